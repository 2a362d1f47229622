"""Shape and determinism of the synthetic series."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.errors import InvalidInput
from graphmem.series.detect.synthetic import piecewise_gaussian, sales_series
from graphmem.timeutil import iso

SEEDS = (0, 1, 2, 3, 4)


def _years_months(ts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Calendar year and month (1-12) of each epoch-second timestamp."""
    months = ts.astype("datetime64[s]").astype("datetime64[M]").astype(np.int64)
    return months // 12 + 1970, months % 12 + 1


def _growth_rate(ts: np.ndarray, xs: np.ndarray) -> float:
    """Least-squares slope of log(x) per day: relative growth, independent of the level."""
    return float(np.polyfit(ts / 86400.0, np.log(xs), 1)[0])


def test_dates_and_length() -> None:
    s = sales_series()
    assert s.ts.size == s.xs.size == 4018
    assert s.ts.dtype == np.int64 and s.xs.dtype == np.float64
    assert iso(int(s.ts[0])) == "2010-01-01T00:00:00Z"
    assert iso(int(s.ts[-1])) == "2020-12-31T00:00:00Z"
    assert np.all(np.diff(s.ts) == 86400)
    assert np.all(s.ts % 86400 == 0)
    assert np.all(np.isfinite(s.xs)) and np.all(s.xs > 0)
    assert (s.name, s.unit) == ("synthetic-sales", "units sold")
    assert "2016" in s.description and "February" in s.description


def test_deterministic_per_seed() -> None:
    a, b = sales_series(seed=3), sales_series(seed=3)
    assert np.array_equal(a.ts, b.ts) and np.array_equal(a.xs, b.xs)
    assert not np.array_equal(sales_series(seed=0).xs, sales_series(seed=1).xs)


def test_arrays_are_read_only() -> None:
    s = sales_series()
    with pytest.raises(ValueError):
        s.xs[0] = 0.0


def test_custom_range_keeps_the_trend_by_date() -> None:
    s = sales_series(start="2016-02-01", end="2016-02-29")
    assert s.ts.size == 29
    assert iso(int(s.ts[0])) == "2016-02-01T00:00:00Z"
    whole = sales_series(seed=1)
    # Same trend and boost on the same dates; only the noise draw differs.
    same_days = whole.xs[np.isin(whole.ts, s.ts)]
    assert np.mean(s.xs) == pytest.approx(np.mean(same_days), rel=0.03)


@pytest.mark.parametrize("seed", SEEDS)
def test_yearly_mean_grows_every_year(seed: int) -> None:
    s = sales_series(seed)
    years, _ = _years_months(s.ts)
    means = [s.xs[years == y].mean() for y in range(2010, 2021)]
    assert all(b > a for a, b in zip(means, means[1:], strict=False))


@pytest.mark.parametrize("seed", SEEDS)
def test_2016_growth_is_much_slower(seed: int) -> None:
    s = sales_series(seed)
    years, months = _years_months(s.ts)
    rates = {}
    for year in range(2010, 2021):
        keep = (years == year) & (months != 2)
        rates[year] = _growth_rate(s.ts[keep], s.xs[keep])
    assert all(rate > 0 for rate in rates.values())
    others = [rate for year, rate in rates.items() if year != 2016]
    assert rates[2016] < 0.5 * min(others)


@pytest.mark.parametrize("seed", SEEDS)
def test_february_is_boosted_every_year(seed: int) -> None:
    s = sales_series(seed)
    years, months = _years_months(s.ts)
    for year in range(2010, 2021):
        jan, feb, mar = (s.xs[(years == year) & (months == m)].mean() for m in (1, 2, 3))
        assert feb > 1.15 * jan and feb > 1.15 * mar, year


def test_sales_rejects_bad_arguments() -> None:
    with pytest.raises(InvalidInput, match="start"):
        sales_series(start="2010-13-01")
    with pytest.raises(InvalidInput, match="end"):
        sales_series(start="2012-01-01", end="2011-01-01")
    with pytest.raises(InvalidInput, match="seed"):
        sales_series(seed=-1)


def test_piecewise_ground_truth() -> None:
    data = piecewise_gaussian(seed=5, n_segments=8)
    lengths = np.diff(np.concatenate([[0], data.changepoints, [data.xs.size]]))
    assert data.changepoints.size == 7 == len(data.means) - 1 == len(data.stds) - 1
    assert np.all((lengths >= 100) & (lengths <= 400))
    for i in range(1, 8):
        shift = abs(data.means[i] - data.means[i - 1])
        assert shift >= max(data.stds[i], data.stds[i - 1]) * (1 - 1e-12)
        ratio = max(data.stds[i], data.stds[i - 1]) / min(data.stds[i], data.stds[i - 1])
        assert ratio == pytest.approx(1.0) or ratio >= 2.0
    bounds = np.concatenate([[0], data.changepoints, [data.xs.size]])
    for i in range(8):
        segment = data.xs[bounds[i] : bounds[i + 1]]
        assert segment.mean() == pytest.approx(
            data.means[i], abs=0.5 * data.stds[i]
        )  # 5 standard errors


def test_piecewise_parameters_and_determinism() -> None:
    a = piecewise_gaussian(1, 3, min_len=10, max_len=10, p_std_change=1.0, mean_shift=(0, 0))
    b = piecewise_gaussian(1, 3, min_len=10, max_len=10, p_std_change=1.0, mean_shift=(0, 0))
    assert np.array_equal(a.xs, b.xs)
    assert a.changepoints.tolist() == [10, 20]
    assert len(set(a.means)) == 1
    assert all(max(s, t) / min(s, t) >= 2.0 for s, t in zip(a.stds, a.stds[1:], strict=False))
    single = piecewise_gaussian(0, 1)
    assert single.changepoints.size == 0 and 100 <= single.xs.size <= 400
    assert not np.array_equal(piecewise_gaussian(0).xs[:50], piecewise_gaussian(1).xs[:50])


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"n_segments": 0}, "n_segments"),
        ({"min_len": 0}, "min_len"),
        ({"min_len": 50, "max_len": 10}, "max_len"),
        ({"mean_shift": (2.0, 1.0)}, "mean_shift"),
        ({"std_ratio": (0.5, 2.0)}, "std_ratio"),
        ({"p_std_change": 1.5}, "p_std_change"),
        ({"base_std": 0.0}, "base_std"),
    ],
)
def test_piecewise_rejects_bad_arguments(kwargs: dict, field: str) -> None:
    with pytest.raises(InvalidInput) as info:
        piecewise_gaussian(0, **kwargs)
    assert info.value.field == field
