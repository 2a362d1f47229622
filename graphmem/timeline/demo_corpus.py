"""The timeline demo's memories: the source paper's Halloween example (used by tests too)."""

from __future__ import annotations

from typing import Any

# key -> (text, date): three memories about crowds at a city's Halloween
HALLOWEEN = {
    # a year-old report of heavy crowds
    "report": (
        "Last Halloween, huge crowds packed the streets around Shibuya Crossing and "
        "police struggled to control them.",
        "2023-10-31",
    ),
    # a recent crowd forecast
    "forecast": (
        "A forecast says Shibuya will be very crowded on Halloween night this year.",
        "2024-10-27",
    ),
    # earlier this month: the ward discourages visits (recalled several times since)
    "ward": (
        "Shibuya ward asked people not to visit the area for Halloween this year and "
        "banned street drinking.",
        "2024-10-03",
    ),
}
# the days the ward announcement was recalled, and the question asked afterwards
WARD_RECALLS = ("2024-10-08", "2024-10-13", "2024-10-18", "2024-10-23", "2024-10-28")
QUESTION = "Will Shibuya be crowded on Halloween?"
NOW = "2024-10-30"
# the paper's setting of the formula (TimelineConfig fields): t in days, r the cosine itself
PAPER: dict[str, Any] = {"time_unit_seconds": 86400, "relevance_floor": 0.0, "relevance_full": 1.0}
