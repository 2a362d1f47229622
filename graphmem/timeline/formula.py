"""The recall probability of Timeline Memory, its reinforcement rule and their settings.

p_n(t) = (1 − exp(−r·e^(−t/g_n))) / (1 − e^(−1)),   g_0 = 1,
g_n = g_(n−1) + (1 − e^(−t)) / (1 + e^(−t))

r is the relevance of a memory to the query, t the time since the memory was last recalled (or
since its own time, if never), n its recall count, all times in units of
`TimelineConfig.time_unit_seconds` (default: months of 30 days). r comes from the cosine
similarity c of the embeddings, rescaled: r = (c − floor) / (full − floor) clipped to [0, 1]
(defaults 0.4 and 0.8). Sentence-embedding cosines of unrelated texts sit around 0.1–0.3 and
of the right memory around 0.4–0.8, so the raw cosine let a recent, unrelated memory outrank
an older, relevant one (its e^(−t/g) factor was all that differed); rescaled, unrelated
memories score 0 whatever their age and the right one about 1. The denominator makes p = 1
for a fully relevant memory at t = 0. Each recall adds tanh(t/2) to g: recalling a memory
again at once adds almost nothing, recalling it after a long gap adds almost 1, and a larger g
makes p decay more slowly.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from graphmem.config import TIME_UNITS, Settings, checked_relevance_scale
from graphmem.errors import InvalidInput

_NORM = 1.0 - math.exp(-1.0)  # p at r = 1, t = 0
DAY = 86400
WEEK = 7 * DAY
MONTH = 30 * DAY


@dataclass(frozen=True)
class TimelineConfig:
    """Time unit of t, the relevance scale, the recall threshold k, and the search pool.

    The defaults were chosen on the tuning half of bench/bench_timeline.py's event log (see
    docs/timeline.md): t in months of 30 days, relevance 0 below a cosine of 0.4 and 1 from
    0.8, a memory recalled (and reinforced, when asked) when p >= 0.7.
    """

    time_unit_seconds: float = MONTH
    threshold: float = 0.7  # a memory counts as recalled when p >= threshold
    # r = (cosine − floor) / (full − floor), clipped to [0, 1]: sentence-embedding cosines of
    # unrelated texts are rarely 0 and of the right memory rarely 1 (floor 0, full 1: r is the
    # clipped cosine itself)
    relevance_floor: float = 0.4
    relevance_full: float = 0.8
    # Hits scored per label. Decay can lift an old, often recalled memory above more similar
    # ones, but only from among these. Cost grows linearly: at 10^5 memories an HNSW search for
    # 500 hits takes ~6 ms and 5000 ~76 ms, plus ~1 ms per 100 ids for the statistics read, so
    # 300 keeps recall within its 20 ms budget on a busy machine (bench/bench_timeline.py).
    candidates: int = 300

    @classmethod
    def from_settings(cls, settings: Settings) -> TimelineConfig:
        """GRAPHMEM_TIME_UNIT, GRAPHMEM_RECALL_THRESHOLD, GRAPHMEM_RELEVANCE_FLOOR and _FULL."""
        return cls(
            time_unit_seconds=TIME_UNITS[settings.time_unit],
            threshold=float(settings.recall_threshold),
            relevance_floor=float(settings.relevance_floor),
            relevance_full=float(settings.relevance_full),
        )

    def __post_init__(self) -> None:
        unit = self.time_unit_seconds
        if not _real(unit) or not math.isfinite(unit) or unit <= 0:
            raise InvalidInput("time_unit_seconds", "must be a positive number of seconds")
        checked_threshold(self.threshold)
        checked_count(self.candidates, "candidates", 100_000)
        checked_relevance_scale(self.relevance_floor, self.relevance_full)

    def relevance(self, cosine: np.ndarray | float) -> np.ndarray:
        """r of the formula for cosine similarities (see relevance_floor)."""
        return relevance(cosine, self.relevance_floor, self.relevance_full)


def relevance(cosine: np.ndarray | float, floor: float = 0.0, full: float = 1.0) -> np.ndarray:
    """(cosine − floor) / (full − floor), clipped to [0, 1]."""
    return np.clip((np.asarray(cosine, dtype=np.float64) - floor) / (full - floor), 0.0, 1.0)


def _real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def checked_threshold(value: object, field: str = "threshold") -> float:
    """A recall threshold in (0, 1]; else InvalidInput."""
    if not _real(value) or not 0 < float(value) <= 1:  # type: ignore[arg-type]
        raise InvalidInput(field, "must be a number in (0, 1]")
    return float(value)  # type: ignore[arg-type]


def checked_count(value: object, field: str, most: int) -> int:
    """An integer from 1 to `most`; else InvalidInput."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Integral)
        or not 1 <= int(value) <= most
    ):
        raise InvalidInput(field, f"must be an integer from 1 to {most}")
    return int(value)


def _finite(value: object, field: str, low: float) -> float:
    if not _real(value) or not math.isfinite(value) or value < low:  # type: ignore[arg-type,operator]
        raise InvalidInput(field, f"must be a finite number >= {low}")
    return float(value)  # type: ignore[arg-type]


def recall_probability(r: float, t: float, g: float) -> float:
    """p = (1 − exp(−r·e^(−t/g))) / (1 − e^(−1)), with r (the relevance, already rescaled)
    clipped to [0, 1]; t >= 0, g > 0."""
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
