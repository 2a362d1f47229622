"""The recall probability of Timeline Memory, its reinforcement rule and their settings.

p_n(t) = (1 − exp(−r·e^(−t/g_n))) / (1 − e^(−1)),   g_0 = 1,
g_n = g_(n−1) + (1 − e^(−t)) / (1 + e^(−t))

r is the cosine relevance of a memory to the query, t the time since the memory was last
recalled (or since its own time, if never), n its recall count, all times in units of
`TimelineConfig.time_unit_seconds` (default: days). The denominator makes p = 1 for a perfectly
relevant memory at t = 0, so p lies in [0, 1] only while r does: a cosine can be negative and,
for vectors that are not normalised, above 1, so r is clipped to [0, 1] first (a negative
cosine means "unrelated", p = 0). Each recall adds tanh(t/2) to g: recalling a memory again at
once adds almost nothing, recalling it after a long gap adds almost 1, and a larger g makes p
decay more slowly.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from graphmem.errors import InvalidInput

_NORM = 1.0 - math.exp(-1.0)  # p at r = 1, t = 0
DAY = 86400


@dataclass(frozen=True)
class TimelineConfig:
    """Time unit of t, the recall threshold k, and how many search hits are scored per label."""

    time_unit_seconds: float = DAY
    threshold: float = 0.9  # a memory counts as recalled when p >= threshold
    # Hits scored per label. Decay can lift an old, often recalled memory above more similar
    # ones, but only from among these. Cost grows linearly: at 10^5 memories an HNSW search for
    # 500 hits takes ~6 ms and 5000 ~76 ms, plus ~1 ms per 100 ids for the statistics read, so
    # 300 keeps recall within its 20 ms budget on a busy machine (bench/bench_timeline.py).
    candidates: int = 300

    def __post_init__(self) -> None:
        unit = self.time_unit_seconds
        if not _real(unit) or not math.isfinite(unit) or unit <= 0:
            raise InvalidInput("time_unit_seconds", "must be a positive number of seconds")
        checked_threshold(self.threshold)
        checked_count(self.candidates, "candidates", 100_000)


def _real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def checked_threshold(value: object, field: str = "threshold") -> float:
    """A recall threshold in (0, 1]; else InvalidInput."""
    if not _real(value) or not 0 < float(value) <= 1:  # type: ignore[arg-type]
        raise InvalidInput(field, "must be a number in (0, 1]")
    return float(value)  # type: ignore[arg-type]


def checked_count(value: object, field: str, most: int) -> int:
    """An integer from 1 to `most`; else InvalidInput."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= most:
        raise InvalidInput(field, f"must be an integer from 1 to {most}")
    return int(value)


def _finite(value: object, field: str, low: float) -> float:
    if not _real(value) or not math.isfinite(value) or value < low:  # type: ignore[arg-type]
        raise InvalidInput(field, f"must be a finite number >= {low}")
    return float(value)  # type: ignore[arg-type]


def recall_probability(r: float, t: float, g: float) -> float:
    """p = (1 − exp(−r·e^(−t/g))) / (1 − e^(−1)), with r clipped to [0, 1]; t >= 0, g > 0."""
    if not _real(r) or math.isnan(r):
        raise InvalidInput("r", "must be a number")
    t = _finite(t, "t", 0.0)
    g = _finite(g, "g", 0.0)
    if g == 0:
        raise InvalidInput("g", "must be positive")
    r = min(max(float(r), 0.0), 1.0)
    return -math.expm1(-r * math.exp(-t / g)) / _NORM


def retention(t: float, g: float) -> float:
    """p at full relevance (r = 1): how much of a memory is left after t units."""
    return recall_probability(1.0, t, g)


def next_g(g: float, t: float) -> float:
    """g after one more recall, t units after the previous one: g + (1 − e^(−t))/(1 + e^(−t))."""
    g = _finite(g, "g", 0.0)
    t = _finite(t, "t", 0.0)
    return g + math.tanh(t / 2)  # (1 − e^−t)/(1 + e^−t) = tanh(t/2), without overflow


def probabilities(r: np.ndarray, t: np.ndarray, g: np.ndarray) -> np.ndarray:
    """`recall_probability` over arrays: r clipped to [0, 1], t to >= 0 (no other checks)."""
    r = np.clip(np.asarray(r, dtype=np.float64), 0.0, 1.0)
    t = np.maximum(np.asarray(t, dtype=np.float64), 0.0)
    return -np.expm1(-r * np.exp(-t / np.asarray(g, dtype=np.float64))) / _NORM


def elapsed(now: int, since: np.ndarray, unit: float) -> np.ndarray:
    """Time units from `since` to `now`, never negative.

    Statistics are stored as of the latest recall, so a `now` before a memory's last recall
    (asking about the past) sees t = 0 for it: the history of g is not kept.
    """
    return np.maximum(now - np.asarray(since, dtype=np.float64), 0.0) / unit
