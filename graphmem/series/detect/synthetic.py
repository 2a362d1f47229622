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


def frozen_array(arr: np.ndarray) -> np.ndarray:
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
        ts=frozen_array(days * DAY_SECONDS),
        xs=frozen_array(xs),
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
        xs=frozen_array(xs),
        changepoints=frozen_array(changepoints),
        means=tuple(means),
        stds=tuple(stds),
    )
