"""SuffStats merge exactly and Features match numpy."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from graphmem.errors import InvalidInput
from graphmem.series.detect.stats import Features, SuffStats, features

DAY = 86400
T_2010 = 1262304000  # 2010-01-01T00:00:00Z


def _daily(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Daily epoch timestamps from 2010 and a noisy trending series."""
    rng = np.random.default_rng(seed)
    ts = T_2010 + DAY * np.arange(n, dtype=np.int64)
    xs = 150.0 + 0.03 * np.arange(n) + rng.normal(0, 5, n)
    return ts, xs


def _assert_stats_close(a: SuffStats, b: SuffStats) -> None:
    """Field-by-field comparison, relative 1e-9 for sums, exact for counts and extremes."""
    assert a.n == b.n
    for name in ("mx", "m2x", "mt", "m2t", "ctx"):
        assert getattr(a, name) == pytest.approx(getattr(b, name), rel=1e-9, abs=1e-9), name
    for name in ("xmin", "xmax", "first", "last", "t_first", "t_last"):
        assert getattr(a, name) == getattr(b, name), name


@pytest.mark.parametrize("seed", range(5))
def test_merge_of_random_splits_equals_whole(seed: int) -> None:
    ts, xs = _daily(4018, seed)
    t0 = float(ts[0])
    whole = SuffStats.from_points(ts, xs, t0)
    rng = np.random.default_rng(100 + seed)
    cuts = np.sort(rng.choice(np.arange(1, ts.size), size=12, replace=False))
    parts = [
        SuffStats.from_points(t, x, t0)
        for t, x in zip(np.split(ts, cuts), np.split(xs, cuts), strict=True)
    ]
    _assert_stats_close(SuffStats.merge_all(parts), whole)
    _assert_stats_close(SuffStats.merge_all(reversed(parts)), whole)
    shuffled = [parts[i] for i in rng.permutation(len(parts))]
    _assert_stats_close(SuffStats.merge_all(shuffled), whole)


def test_merge_picks_first_and_last_by_time_in_either_order() -> None:
    a = SuffStats.from_points(np.array([0, DAY]), np.array([1.0, 2.0]), 0)
    b = SuffStats.from_points(np.array([2 * DAY, 3 * DAY]), np.array([5.0, -1.0]), 0)
    for merged in (a.merge(b), b.merge(a)):
        assert (merged.first, merged.last) == (1.0, -1.0)
        assert (merged.t_first, merged.t_last) == (0.0, 3.0 * DAY)
        assert (merged.xmin, merged.xmax, merged.n) == (-1.0, 5.0, 4)


def test_empty_is_the_identity() -> None:
    stats = SuffStats.from_points(np.array([0, DAY]), np.array([1.0, 2.0]), 0)
    assert stats.merge(SuffStats.empty()) == stats
    assert SuffStats.empty().merge(stats) == stats
    assert SuffStats.merge_all([]).is_empty
    with pytest.raises(InvalidInput, match="stats"):
        features(SuffStats.empty())


def test_unsorted_points_give_first_and_last_by_time() -> None:
    stats = SuffStats.from_points(np.array([2 * DAY, 0, DAY]), np.array([3.0, 1.0, 2.0]), 0)
    assert (stats.first, stats.last, stats.t_first, stats.t_last) == (1.0, 3.0, 0.0, 2.0 * DAY)


def test_props_round_trip() -> None:
    ts, xs = _daily(30, 1)
    stats = SuffStats.from_points(ts, xs, float(ts[0]))
    props = stats.to_props()
    assert set(props) == {
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
    }
    assert SuffStats.from_props(props) == stats
    prefixed = stats.to_props(prefix="s_")
    assert "s_c_tx" in prefixed
    assert SuffStats.from_props({**prefixed, "other": 1}, prefix="s_") == stats


def test_from_props_rejects_missing_and_bad_values() -> None:
    props = SuffStats.from_points(np.array([0]), np.array([1.0]), 0).to_props()
    with pytest.raises(InvalidInput, match="c_tx"):
        SuffStats.from_props({k: v for k, v in props.items() if k != "c_tx"})
    with pytest.raises(InvalidInput, match="n"):
        SuffStats.from_props({**props, "n": 1.5})
    with pytest.raises(InvalidInput, match="min"):
        SuffStats.from_props({**props, "min": "low"})


@pytest.mark.parametrize(
    ("ts", "xs", "field"),
    [
        ([0, 1], [1.0], "xs"),
        ([], [], "xs"),
        ([0, 1], [1.0, math.nan], "xs"),
        ([0, math.inf], [1.0, 2.0], "ts"),
        ([[0, 1]], [[1.0, 2.0]], "ts"),
        (["a"], [1.0], "ts"),
    ],
)
def test_from_points_rejects_bad_input(ts: list, xs: list, field: str) -> None:
    with pytest.raises(InvalidInput) as info:
        SuffStats.from_points(np.array(ts), np.array(xs), 0)
    assert info.value.field == field


def test_from_points_rejects_bad_origin() -> None:
    with pytest.raises(InvalidInput, match="t0"):
        SuffStats.from_points(np.array([0]), np.array([1.0]), math.nan)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n", [2, 3, 50, 4018])
def test_features_match_numpy(seed: int, n: int) -> None:
    ts, xs = _daily(n, seed)
    # A segment late in the series: the origin is far from the points, as for real segments.
    t0 = float(ts[0]) - 3000 * DAY
    f = features(SuffStats.from_points(ts, xs, t0))
    t_days = (ts - t0) / DAY
    slope, intercept = np.polyfit(t_days, xs, 1)
    assert f.n == n
    assert f.mean == pytest.approx(np.mean(xs), rel=1e-12)
    assert f.std == pytest.approx(np.std(xs), rel=1e-9)
    assert f.slope_per_day == pytest.approx(slope, rel=1e-8)
    assert f.intercept == pytest.approx(intercept, rel=1e-8)
    expected_r2 = 1.0 if n == 2 else np.corrcoef(t_days, xs)[0, 1] ** 2
    assert f.r2 == pytest.approx(expected_r2, rel=1e-8, abs=1e-12)
    assert (f.min, f.max, f.first, f.last) == (xs.min(), xs.max(), xs[0], xs[-1])
    assert f.change == xs[-1] - xs[0]
    assert f.pct_change == pytest.approx((xs[-1] - xs[0]) / abs(xs[0]) * 100)
    assert f.duration_days == n - 1


def test_features_of_irregular_epoch_float_timestamps() -> None:
    rng = np.random.default_rng(7)
    ts = np.sort(rng.uniform(1.3e9, 1.6e9, 500))
    xs = rng.normal(0, 1, 500) + 1e-8 * (ts - 1.3e9)
    f = features(SuffStats.from_points(ts, xs, float(ts[0])))
    slope = np.polyfit((ts - ts[0]) / DAY, xs, 1)[0]
    assert f.slope_per_day == pytest.approx(slope, rel=1e-8)
    assert f.r2 == pytest.approx(np.corrcoef(ts, xs)[0, 1] ** 2, rel=1e-8)


def test_single_point() -> None:
    f = features(SuffStats.from_points(np.array([T_2010]), np.array([42.5]), T_2010 - DAY))
    assert (f.n, f.mean, f.std, f.slope_per_day, f.r2) == (1, 42.5, 0.0, 0.0, 0.0)
    assert (f.change, f.pct_change, f.duration_days) == (0.0, 0.0, 0.0)
    assert f.intercept == 42.5


def test_constant_series() -> None:
    ts, _ = _daily(365, 0)
    f = features(SuffStats.from_points(ts, np.full(365, 151.2), float(ts[0])))
    assert f.std == 0.0
    assert f.slope_per_day == pytest.approx(0.0, abs=1e-12)
    assert f.r2 == 0.0
    assert f.mean == pytest.approx(151.2, rel=1e-15)
    assert f.change == 0.0


def test_equal_timestamps_have_no_slope() -> None:
    f = features(SuffStats.from_points(np.array([T_2010, T_2010]), np.array([1.0, 3.0]), 0))
    assert (f.slope_per_day, f.r2, f.std) == (0.0, 0.0, 1.0)


def test_pct_change_is_none_when_first_is_zero() -> None:
    f = features(SuffStats.from_points(np.array([0, DAY]), np.array([0.0, 2.0]), 0))
    assert f.pct_change is None
    assert f.change == 2.0
    neg = features(SuffStats.from_points(np.array([0, DAY]), np.array([-4.0, -2.0]), 0))
    assert neg.pct_change == pytest.approx(50.0)


def test_features_props() -> None:
    ts, xs = _daily(10, 3)
    f = features(SuffStats.from_points(ts, xs, float(ts[0])))
    props = f.to_props()
    assert set(props) == {
        "mean",
        "std",
        "min",
        "max",
        "first",
        "last",
        "slope_per_day",
        "r2",
        "change",
        "pct_change",
        "duration_days",
    }
    assert props["slope_per_day"] == f.slope_per_day
    assert set(f.to_props("f_")) == {"f_" + k for k in props}


def test_dataclasses_are_frozen() -> None:
    stats = SuffStats.from_points(np.array([0]), np.array([1.0]), 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        stats.n = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        features(stats).mean = 2.0  # type: ignore[misc]
    assert isinstance(features(stats), Features)


@pytest.mark.parametrize(("level", "spread"), [(1e8, 1.0), (1e4, 1e-3), (1e6, 1e-2)])
def test_spread_small_next_to_the_level_is_kept_through_merges(level: float, spread: float) -> None:
    rng = np.random.default_rng(7)
    ts = T_2010 + DAY * np.arange(1000, dtype=np.int64)
    xs = level + spread * (rng.normal(size=1000) + 0.01 * np.arange(1000))
    t0 = float(ts[0])
    parts = [
        SuffStats.from_points(t, x, t0)
        for t, x in zip(np.array_split(ts, 7), np.array_split(xs, 7), strict=True)
    ]
    f = features(SuffStats.merge_all(parts))
    t_days = (ts - t0) / DAY
    assert f.mean == pytest.approx(np.mean(xs), rel=1e-12)
    assert f.std == pytest.approx(np.std(xs), rel=1e-6)
    assert f.slope_per_day == pytest.approx(np.polyfit(t_days, xs, 1)[0], rel=1e-6)


def test_statistics_stored_as_raw_sums_by_older_versions_are_read() -> None:
    ts, xs = _daily(200, 3)
    t0 = float(ts[0])
    t = (ts - t0) / DAY
    legacy = {
        "n": 200,
        "sum_x": float(xs.sum()),
        "sum_x2": float(xs @ xs),
        "sum_t": float(t.sum()),
        "sum_t2": float(t @ t),
        "sum_tx": float(t @ xs),
        "min": float(xs.min()),
        "max": float(xs.max()),
        "first": float(xs[0]),
        "last": float(xs[-1]),
        "t_first": float(ts[0]),
        "t_last": float(ts[-1]),
    }
    _assert_stats_close(SuffStats.from_props(legacy), SuffStats.from_points(ts, xs, t0))
