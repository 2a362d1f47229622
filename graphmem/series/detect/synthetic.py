"""Seedable synthetic series: the daily sales series of the BOCPD memory paper, and test data.

sales_series() reproduces the shape of the synthetic series of "BOCPD-based external memory for
LLM time-series QA": one value per day, 2010-01-01 to 2020-12-31 (4018 days), in "units sold".

- Trend: the level starts at 100 units on 2010-01-01 and grows exponentially by 10 % per year.
- 2016 only: the growth rate drops to a quarter (about +2.4 % over the year); from 2017 on it is
  back to 10 % per year, continuing from the lower level.
- February: every February day is boosted by +25 % over the trend (a step at Feb 1 and Mar 1,
  so each February is two changepoints).
- Noise: independent Gaussian, standard deviation 3 % of the (boosted) level.

The trend and boost depend only on the date (not on start/end); the noise depends on the seed.
piecewise_gaussian() makes piecewise-constant Gaussian data with known changepoints.
"""

from __future__ import annotations

import datetime as dt
import math
import zlib
from dataclasses import dataclass

import numpy as np

from graphmem.errors import InvalidInput
from graphmem.timeutil import DAY_SECONDS

BASE_LEVEL = 100.0
BASE_DATE = "2010-01-01"
YEARLY_GROWTH = 0.10
SLOW_YEAR = 2016
SLOW_FACTOR = 0.25
FEBRUARY_BOOST = 0.25
NOISE_FRACTION = 0.03

_DESCRIPTION = (
    "Synthetic daily sales: 100 units on 2010-01-01 growing 10 % per year, growth cut to a "
    "quarter during 2016, every February +25 %, Gaussian noise of 3 % of the level."
)


def _readonly(arr: np.ndarray) -> np.ndarray:
    """Freeze an array so a frozen dataclass holding it is frozen in substance too."""
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class SeriesData:
    """A named numeric series: ts in epoch seconds (int64), xs as float64."""

    ts: np.ndarray
    xs: np.ndarray
    name: str
    unit: str | None
    description: str


@dataclass(frozen=True, eq=False)
class PiecewiseSeries:
    """Piecewise Gaussian data with its ground truth; changepoints are segment start indices."""

    xs: np.ndarray
    changepoints: np.ndarray  # start index of every segment but the first
    means: tuple[float, ...]
    stds: tuple[float, ...]


def _day(value: str, field: str) -> np.datetime64:
    """An ISO date string as a numpy day."""
    try:
        return np.datetime64(dt.date.fromisoformat(value), "D")
    except (TypeError, ValueError):
        raise InvalidInput(field, f"{value!r} is not an ISO date YYYY-MM-DD") from None


def _log_trend(days: np.ndarray) -> np.ndarray:
    """Natural log of the trend level on each day (days since the Unix epoch)."""
    rate = math.log1p(YEARLY_GROWTH) / 365.25
    base = _day(BASE_DATE, "BASE_DATE").astype(np.int64)
    slow_start = _day(f"{SLOW_YEAR}-01-01", "SLOW_YEAR").astype(np.int64)
    slow_end = _day(f"{SLOW_YEAR + 1}-01-01", "SLOW_YEAR").astype(np.int64)
    elapsed = days - base
    # Days of the slow year already passed, counted with the lost (1 - factor) of the rate.
    slow_elapsed = np.clip(days, slow_start, slow_end) - slow_start
    return math.log(BASE_LEVEL) + rate * (elapsed - (1.0 - SLOW_FACTOR) * slow_elapsed)


def sales_series(seed: int = 0, start: str = "2010-01-01", end: str = "2020-12-31") -> SeriesData:
    """The paper's synthetic daily sales series between start and end (inclusive, UTC days)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidInput("seed", f"{seed!r} is not a non-negative integer")
    first, last = _day(start, "start"), _day(end, "end")
    if last < first:
        raise InvalidInput("end", f"{end!r} is before start {start!r}")
    dates = np.arange(first, last + np.timedelta64(1, "D"))
    days = dates.astype(np.int64)
    months = dates.astype("datetime64[M]").astype(np.int64) % 12 + 1
    level = np.exp(_log_trend(days)) * np.where(months == 2, 1.0 + FEBRUARY_BOOST, 1.0)
    noise = np.random.default_rng(seed).standard_normal(days.size)
    xs = level * (1.0 + NOISE_FRACTION * noise)
    return SeriesData(
        ts=_readonly(days * DAY_SECONDS),
        xs=_readonly(xs),
        name="synthetic-sales",
        unit="units sold",
        description=_DESCRIPTION,
    )


def _check_range(value: tuple[float, float], field: str, lowest: float) -> tuple[float, float]:
    """A (lo, hi) pair with lowest <= lo <= hi, both finite."""
    try:
        lo, hi = (float(v) for v in value)
    except (TypeError, ValueError):
        raise InvalidInput(field, f"{value!r} is not a (low, high) pair of numbers") from None
    if not (math.isfinite(lo) and math.isfinite(hi)) or not lowest <= lo <= hi:
        raise InvalidInput(field, f"needs {lowest} <= low <= high, finite; got {value!r}")
    return lo, hi


def piecewise_gaussian(
    seed: int = 0,
    n_segments: int = 5,
    *,
    min_len: int = 100,
    max_len: int = 400,
    mean_shift: tuple[float, float] = (1.0, 3.0),
    std_ratio: tuple[float, float] = (2.0, 4.0),
    p_std_change: float = 0.5,
    base_mean: float = 0.0,
    base_std: float = 1.0,
) -> PiecewiseSeries:
    """Gaussian segments with known changepoints.

    Segment lengths are uniform in [min_len, max_len]. At every changepoint the mean moves by a
    uniform multiple in mean_shift of the larger of the two segments' stds (random sign), and
    with probability p_std_change the std is multiplied or divided by a uniform factor in
    std_ratio (divided when above base_std, multiplied when below, so it stays bounded).
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidInput("seed", f"{seed!r} is not a non-negative integer")
    if isinstance(n_segments, bool) or not isinstance(n_segments, int) or n_segments < 1:
        raise InvalidInput("n_segments", f"{n_segments!r} is not a positive integer")
    for name, value in (("min_len", min_len), ("max_len", max_len)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidInput(name, f"{value!r} is not a positive integer")
    if max_len < min_len:
        raise InvalidInput("max_len", f"{max_len} is below min_len {min_len}")
    shift_lo, shift_hi = _check_range(mean_shift, "mean_shift", 0.0)
    ratio_lo, ratio_hi = _check_range(std_ratio, "std_ratio", 1.0)
    if not 0.0 <= p_std_change <= 1.0:
        raise InvalidInput("p_std_change", f"{p_std_change!r} is not a probability in [0, 1]")
    if not math.isfinite(base_mean):
        raise InvalidInput("base_mean", "must be finite")
    if not (math.isfinite(base_std) and base_std > 0):
        raise InvalidInput("base_std", "must be a positive finite number")

    rng = np.random.default_rng(seed)
    lengths = rng.integers(min_len, max_len, size=n_segments, endpoint=True)
    means, stds = [float(base_mean)], [float(base_std)]
    for _ in range(n_segments - 1):
        std = stds[-1]
        if rng.random() < p_std_change:
            factor = rng.uniform(ratio_lo, ratio_hi)
            if std > base_std or (std == base_std and rng.random() < 0.5):
                factor = 1.0 / factor
            std *= factor
        shift = rng.uniform(shift_lo, shift_hi) * max(std, stds[-1])
        means.append(means[-1] + (shift if rng.random() < 0.5 else -shift))
        stds.append(std)
    xs = np.concatenate(
        [rng.normal(m, s, size=int(k)) for m, s, k in zip(means, stds, lengths, strict=True)]
    )
    changepoints = np.cumsum(lengths)[:-1].astype(np.int64)
    return PiecewiseSeries(
        xs=_readonly(xs),
        changepoints=_readonly(changepoints),
        means=tuple(means),
        stds=tuple(stds),
    )


@dataclass(frozen=True, eq=False)
class LabelledSeries:
    """A series of one synthetic family with the changepoints that family plants in it."""

    family: str
    seed: int
    xs: np.ndarray
    changepoints: tuple[int, ...]  # first index of every segment but the first


def _scale(rng: np.random.Generator) -> tuple[float, float]:
    """A level and a noise std of arbitrary magnitude (the detector must not care about units)."""
    level = 10.0 ** rng.uniform(-1.0, 4.0) * (1.0 if rng.random() < 0.8 else -1.0)
    return level, abs(level) * rng.uniform(0.01, 0.2)


def _cuts(rng: np.random.Generator, n: int, k: int, gap: int) -> list[int]:
    """k sorted changepoints in 1..n-1, at least `gap` apart and from both ends."""
    for _ in range(1000):
        cps = sorted(rng.choice(np.arange(gap, n - gap + 1), size=k, replace=False).tolist())
        if all(b - a >= gap for a, b in zip(cps, cps[1:], strict=False)):
            return cps
    return []


def _levels(rng: np.random.Generator, n: int, cps: list[int], shift: tuple[float, float]):
    """A piecewise-constant mean (in noise stds) stepping by `shift` at each changepoint."""
    mean = np.zeros(n)
    for c in cps:
        mean[c:] += rng.uniform(*shift) * (1.0 if rng.random() < 0.5 else -1.0)
    return mean


def _n_changes(rng: np.random.Generator, most: int) -> int:
    """0..most changes, fewer more likely (real series rarely have many)."""
    weights = np.array([1.0 / (k + 1) for k in range(most + 1)])
    return int(rng.choice(most + 1, p=weights / weights.sum()))


def _steps(rng, noise):
    n = int(rng.integers(80, 600))
    cps = _cuts(rng, n, _n_changes(rng, 3), 15)
    return _levels(rng, n, cps, (1.5, 4.0)) + noise(rng, n), cps


def _gauss(rng, n):
    return rng.standard_normal(n)


def _heavy(rng, n):
    return rng.standard_t(3, n) / math.sqrt(3.0)


def _variance(rng):
    n = int(rng.integers(150, 800))
    cps = _cuts(rng, n, int(rng.integers(1, 3)), 40)
    std = np.ones(n)
    for c in cps:
        std[c:] *= rng.uniform(2.5, 5.0) ** (1.0 if std[c - 1] <= 1.0 else -1.0)
    return std * rng.standard_normal(n), cps


def _trend(rng):
    n = int(rng.integers(30, 400))
    t = np.arange(n)
    slope = rng.uniform(0.02, 0.3) * (1.0 if rng.random() < 0.7 else -1.0)
    curve = rng.uniform(0.0, 2.0) * (t / n) ** 2  # growth need not be straight
    return slope * t + curve + rng.standard_normal(n), []


def _trend_kink(rng):
    n = int(rng.integers(80, 500))
    cps = _cuts(rng, n, int(rng.integers(1, 3)), 25)
    slope = np.full(n, rng.uniform(-0.1, 0.1))
    for c in cps:
        slope[c:] = rng.uniform(0.15, 0.5) * (-1.0 if slope[c - 1] > 0 else 1.0)
    return np.cumsum(slope) + rng.standard_normal(n), cps


def _trend_shift(rng):
    n = int(rng.integers(60, 500))
    cps = _cuts(rng, n, int(rng.integers(1, 3)), 20)
    t = np.arange(n)
    return rng.uniform(-0.1, 0.1) * t + _levels(rng, n, cps, (4.0, 8.0)) + _gauss(rng, n), cps


def _random_walk(rng):
    n = int(rng.integers(100, 800))
    return np.cumsum(rng.standard_normal(n) + rng.uniform(-0.1, 0.1)), []


def _random_walk_break(rng):
    n = int(rng.integers(100, 800))
    cps = _cuts(rng, n, 1, 30)
    steps = rng.standard_normal(n)
    steps[cps[0]] += rng.uniform(10.0, 20.0) * (1.0 if rng.random() < 0.5 else -1.0)
    return np.cumsum(steps), cps


def _seasonal_break(rng):
    n = int(rng.integers(96, 400))
    cps = _cuts(rng, n, int(rng.integers(1, 3)), 24)
    season = rng.uniform(1.0, 3.0) * np.sin(2 * math.pi * np.arange(n) / 12 + rng.uniform(0, 6))
    return season + _levels(rng, n, cps, (3.0, 6.0)) + _gauss(rng, n), cps


def _short(rng):
    n = int(rng.integers(15, 61))
    cps = _cuts(rng, n, _n_changes(rng, 2), 5 if n < 30 else 8)
    return _levels(rng, n, cps, (3.0, 6.0)) + _gauss(rng, n), cps


def _outliers(rng):
    n = int(rng.integers(100, 500))
    cps = _cuts(rng, n, int(rng.integers(0, 2)), 30)
    xs = _levels(rng, n, cps, (2.0, 4.0)) + _gauss(rng, n)
    spikes = rng.choice(np.arange(5, n - 5), size=int(rng.integers(1, 5)), replace=False)
    xs[spikes] += rng.uniform(6.0, 12.0, spikes.size) * rng.choice([-1.0, 1.0], spikes.size)
    return xs, cps


def _counts(rng):
    n = int(rng.integers(50, 500))
    cps = _cuts(rng, n, _n_changes(rng, 2), 20)
    rate = np.full(n, rng.uniform(0.5, 20.0))
    for c in cps:
        rate[c:] *= rng.uniform(2.5, 4.0) ** (1.0 if rng.random() < 0.5 else -1.0)
    return rng.poisson(rate).astype(np.float64), cps


def _end_change(rng):
    n = int(rng.integers(60, 400))
    cps = [n - int(rng.integers(5, 21))]
    if rng.random() < 0.5:
        cps.insert(0, int(rng.integers(15, cps[0] - 15)))
    return _levels(rng, n, cps, (3.0, 10.0)) + _gauss(rng, n), cps


def _growth(rng):
    # Yearly or monthly economic series: compound growth, a recession's drop or a new rate.
    n = int(rng.integers(20, 150))
    cps = _cuts(rng, n, _n_changes(rng, 1), max(5, n // 6))
    rate = np.full(n, rng.uniform(0.01, 0.05))
    drop = np.zeros(n)
    for c in cps:
        if rng.random() < 0.5:
            drop[c:] -= rng.uniform(0.1, 0.3)  # a fall of 10-30 %, growth goes on from there
        else:
            rate[c:] = rate[c - 1] * rng.uniform(0.0, 0.4)  # growth slows to under half
    level = np.exp(np.cumsum(rate) + drop)
    return level * (1.0 + rng.uniform(0.005, 0.02) * rng.standard_normal(n)), cps


def _saturation(rng):
    # A smooth S-curve (adoption, a population, a declining rate levelling off), at most one jump.
    n = int(rng.integers(30, 300))
    cps = _cuts(rng, n, _n_changes(rng, 1), max(8, n // 8))
    t = np.arange(n)
    curve = 1.0 / (1.0 + np.exp(-(t - rng.uniform(0.2, 0.8) * n) / rng.uniform(0.08, 0.3) / n))
    height = rng.uniform(30.0, 200.0) * (1.0 if rng.random() < 0.5 else -1.0)
    return height * curve + _levels(rng, n, cps, (6.0, 15.0)) + _gauss(rng, n), cps


def _seasonal(rng):
    # Monthly series whose seasonal swing dwarfs the noise, with at most one shock.
    n = int(rng.integers(72, 300))
    cps = _cuts(rng, n, _n_changes(rng, 1), 24)
    season = rng.uniform(3.0, 10.0) * np.sin(2 * math.pi * np.arange(n) / 12 + rng.uniform(0, 6))
    trend = rng.uniform(0.0, 0.1) * np.arange(n)
    return season + trend + _levels(rng, n, cps, (8.0, 15.0)) + _gauss(rng, n), cps


# Families of series shaped like real ones (lengths, trends, outliers, counts, few changes).
_FAMILIES = {
    "steps": lambda rng: _steps(rng, _gauss),
    "steps_heavy": lambda rng: _steps(rng, _heavy),
    "variance": _variance,
    "trend": _trend,
    "trend_kink": _trend_kink,
    "trend_shift": _trend_shift,
    "random_walk": _random_walk,
    "random_walk_break": _random_walk_break,
    "seasonal_break": _seasonal_break,
    "short": _short,
    "outliers": _outliers,
    "counts": _counts,
    "end_change": _end_change,
    "growth": _growth,
    "seasonal": _seasonal,
    "saturation": _saturation,
}
FAMILIES = tuple(_FAMILIES)
_UNSCALED = {"counts", "growth"}  # counts keep their integer values, growth its own scale


def family_series(family: str, seed: int) -> LabelledSeries:
    """Series number `seed` of a family; every family's draws are independent of the others'."""
    if family not in _FAMILIES:
        raise InvalidInput("family", f"unknown family {family!r}; one of {', '.join(FAMILIES)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidInput("seed", f"{seed!r} is not a non-negative integer")
    rng = np.random.default_rng([zlib.crc32(family.encode()), seed])
    xs, cps = _FAMILIES[family](rng)
    if family not in _UNSCALED:
        level, std = _scale(rng)
        xs = level + std * xs
    return LabelledSeries(family, seed, _readonly(np.asarray(xs, dtype=np.float64)), tuple(cps))
