"""Mergeable sufficient statistics of a segment and the features derived from them.

Statistics are kept as counts, means and centred (co-)moments, merged with Chan et al.'s
pairwise update, not as raw power sums: raw sums lose the spread of values that are large
next to it (Σx² - (Σx)²/n cancels: a std of 1 around a mean of 1e8 came out as 0). Time
is in days from a per-series origin t0 (epoch seconds of the series' first point);
t_first/t_last stay in epoch seconds. Statistics of one series merge exactly only if they
share the same origin. Nodes written with raw sums (before this format) are still read.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.errors import InvalidInput
from graphmem.timeutil import DAY_SECONDS

# Centred sums recovered from raw ones (legacy nodes) below this fraction of the raw sum
# are cancellation noise, not signal.
_REL_TOL = 1e-12

_PROP_NAMES = (
    "n",
    "mean_x",
    "m2_x",
    "mean_t",
    "m2_t",
    "c_tx",
    "min",
    "max",
    "first",
    "last",
    "t_first",
    "t_last",
)
# raw power sums of older versions: read, never written (the upserts remove them)
_LEGACY_SUMS = ("sum_x", "sum_x2", "sum_t", "sum_t2", "sum_tx")


def _as_1d_float(values: Any, field: str) -> np.ndarray:
    """A 1-D float64 array of finite values, or InvalidInput."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInput(field, "must be an array of numbers") from None
    if arr.ndim != 1:
        raise InvalidInput(field, f"must be one-dimensional, got {arr.ndim} dimensions")
    if not np.all(np.isfinite(arr)):
        raise InvalidInput(field, "contains NaN or infinite values")
    return arr


@dataclass(frozen=True)
class SuffStats:
    """Exact, mergeable summary of a set of (t, x) points; t in days from the series origin.

    mx, mt: means; m2x, m2t: Σ(x - mx)², Σ(t - mt)²; ctx: Σ(t - mt)(x - mx).
    """

    n: int
    mx: float
    m2x: float
    mt: float
    m2t: float
    ctx: float
    xmin: float
    xmax: float
    first: float
    last: float
    t_first: float
    t_last: float

    @classmethod
    def empty(cls) -> SuffStats:
        """The identity of merge: no points."""
        nan = math.nan
        return cls(0, 0.0, 0.0, 0.0, 0.0, 0.0, math.inf, -math.inf, nan, nan, math.inf, -math.inf)

    @property
    def is_empty(self) -> bool:
        """True when no points are summarized."""
        return self.n == 0

    @classmethod
    def from_points(cls, ts: np.ndarray, xs: np.ndarray, t0: float) -> SuffStats:
        """Statistics of points at epoch seconds ts with values xs, time origin t0 (epoch s)."""
        t_sec = _as_1d_float(ts, "ts")
        x = _as_1d_float(xs, "xs")
        if t_sec.shape != x.shape:
            raise InvalidInput("xs", f"has {x.size} values but ts has {t_sec.size}")
        if x.size == 0:
            raise InvalidInput("xs", "must not be empty")
        if isinstance(t0, bool) or not isinstance(t0, int | float | np.number):
            raise InvalidInput("t0", f"{t0!r} is not a number")
        if not math.isfinite(float(t0)):
            raise InvalidInput("t0", "must be finite")
        t = (t_sec - float(t0)) / DAY_SECONDS
        # argmin/argmax rather than [0]/[-1]: callers need not pass points sorted by time.
        i_first = int(np.argmin(t_sec))
        i_last = int(np.argmax(t_sec))
        xmin, xmax = float(np.min(x)), float(np.max(x))
        # a constant stretch is exactly constant: its mean, not a rounded sum divided by n
        mx = xmin if xmin == xmax else float(np.mean(x))
        mt = float(np.mean(t))
        dx, dt = x - mx, t - mt
        return cls(
            n=int(x.size),
            mx=mx,
            m2x=float(np.dot(dx, dx)),
            mt=mt,
            m2t=float(np.dot(dt, dt)),
            ctx=float(np.dot(dt, dx)),
            xmin=xmin,
            xmax=xmax,
            first=float(x[i_first]),
            last=float(x[i_last]),
            t_first=float(t_sec[i_first]),
            t_last=float(t_sec[i_last]),
        )

    def merge(self, other: SuffStats) -> SuffStats:
        """Statistics of the union of two disjoint point sets (same origin), in either order."""
        if not isinstance(other, SuffStats):
            raise InvalidInput("other", f"expected SuffStats, got {type(other).__name__}")
        if other.is_empty:
            return self
        if self.is_empty:
            return other
        n = self.n + other.n
        share = other.n / n  # of the merged set that is `other`
        weight = self.n * share  # = n_a * n_b / n
        dx, dt = other.mx - self.mx, other.mt - self.mt
        # On equal times keep self's point, so the result does not depend on float noise.
        head = other if other.t_first < self.t_first else self
        tail = other if other.t_last > self.t_last else self
        return SuffStats(
            n=n,
            mx=self.mx + dx * share,
            m2x=self.m2x + other.m2x + dx * dx * weight,
            mt=self.mt + dt * share,
            m2t=self.m2t + other.m2t + dt * dt * weight,
            ctx=self.ctx + other.ctx + dt * dx * weight,
            xmin=min(self.xmin, other.xmin),
            xmax=max(self.xmax, other.xmax),
            first=head.first,
            last=tail.last,
            t_first=head.t_first,
            t_last=tail.t_last,
        )

    @classmethod
    def merge_all(cls, parts: Iterable[SuffStats]) -> SuffStats:
        """Statistics of the union of disjoint parts; empty() when there are none."""
        result = cls.empty()
        for part in parts:
            result = result.merge(part)
        return result

    def to_props(self, prefix: str = "") -> dict[str, int | float]:
        """Flat graph-node properties (n, mean_x, ..., t_last), names optionally prefixed."""
        values = (
            self.n,
            self.mx,
            self.m2x,
            self.mt,
            self.m2t,
            self.ctx,
            self.xmin,
            self.xmax,
            self.first,
            self.last,
            self.t_first,
            self.t_last,
        )
        return {prefix + name: value for name, value in zip(_PROP_NAMES, values, strict=True)}

    @classmethod
    def from_props(cls, props: Mapping[str, Any], prefix: str = "") -> SuffStats:
        """Inverse of to_props (or of the legacy raw-sum format); extra keys are ignored."""
        legacy = props.get(prefix + "m2_x") is None and props.get(prefix + "sum_x2") is not None
        names = ("n", *_LEGACY_SUMS, *_PROP_NAMES[6:]) if legacy else _PROP_NAMES
        values = [_number(props, prefix + name) for name in names]
        n = values[0]
        if float(n) != int(n) or int(n) < 0:
            raise InvalidInput(prefix + "n", f"{n!r} is not a non-negative integer")
        rest = [float(v) for v in values[1:]]
        if legacy:
            return cls(int(n), *_from_sums(int(n), *rest[:5]), *rest[5:])
        return cls(int(n), *rest)


def _number(props: Mapping[str, Any], key: str) -> Any:
    value = props.get(key)
    if value is None:
        raise InvalidInput(key, "missing from the stored statistics")
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        raise InvalidInput(key, f"{value!r} is not a number")
    return value


def _from_sums(
    n: int, sx: float, sxx: float, st: float, stt: float, stx: float
) -> tuple[float, ...]:
    """(mx, m2x, mt, m2t, ctx) from raw power sums, as precise as those sums still are."""
    if n == 0:
        return 0.0, 0.0, 0.0, 0.0, 0.0
    return (
        sx / n,
        _variance_sum(sxx, sx, n),
        st / n,
        _variance_sum(stt, st, n),
        stx - st * sx / n,
    )


def _variance_sum(sum_sq: float, total: float, n: int) -> float:
    """Centred sum of squares, set to 0 when it is within rounding noise of the raw sum."""
    centred = sum_sq - total * total / n
    return 0.0 if centred <= _REL_TOL * sum_sq else centred


@dataclass(frozen=True)
class Features:
    """Human-meaningful statistics of a segment, derived from its SuffStats."""

    n: int
    mean: float
    std: float
    min: float
    max: float
    first: float
    last: float
    slope_per_day: float
    intercept: float  # fitted value at the series origin t0 (t_days = 0)
    r2: float
    change: float
    pct_change: float | None
    duration_days: float

    def to_props(self, prefix: str = "") -> dict[str, float | None]:
        """Flat graph-node properties; pct_change is None when the first value is 0."""
        values = {
            "mean": self.mean,
            "std": self.std,
            "min": self.min,
            "max": self.max,
            "first": self.first,
            "last": self.last,
            "slope_per_day": self.slope_per_day,
            "r2": self.r2,
            "change": self.change,
            "pct_change": self.pct_change,
            "duration_days": self.duration_days,
        }
        return {prefix + name: value for name, value in values.items()}


def features(stats: SuffStats) -> Features:
    """Mean, spread, linear trend and change of a non-empty segment."""
    if not isinstance(stats, SuffStats):
        raise InvalidInput("stats", f"expected SuffStats, got {type(stats).__name__}")
    if stats.is_empty:
        raise InvalidInput("stats", "summarizes no points")
    n = stats.n
    slope = 0.0
    r2 = 0.0
    if n >= 2 and stats.m2t > 0.0:
        slope = stats.ctx / stats.m2t
        if stats.m2x > 0.0:
            r2 = min(1.0, max(0.0, stats.ctx * stats.ctx / (stats.m2t * stats.m2x)))
    intercept = stats.mx - slope * stats.mt
    change = stats.last - stats.first
    pct_change = None if stats.first == 0 else change / abs(stats.first) * 100.0
    # Clamp into [min, max]: rounding in merged means must not put the mean outside the data.
    mean = min(max(stats.mx, stats.xmin), stats.xmax)
    return Features(
        n=n,
        mean=mean,
        std=math.sqrt(stats.m2x / n),
        min=stats.xmin,
        max=stats.xmax,
        first=stats.first,
        last=stats.last,
        slope_per_day=slope,
        intercept=intercept,
        r2=r2,
        change=change,
        pct_change=pct_change,
        duration_days=(stats.t_last - stats.t_first) / DAY_SECONDS,
    )
