"""Round 8: a swing (a season, a damped oscillation) is not a change; a change on it still is."""

from __future__ import annotations

import numpy as np

from bench.cp_families import family_series
from graphmem.series.detect.bocpd import OnlineBOCPD
from graphmem.series.detect.segmenter import OnlineSegmenter, SegmenterConfig, segment_all


def _damped(seed: int, n: int = 150) -> np.ndarray:
    # A swing of 30 noise stds, period 17, dying away by e every 30 points (0.2 n).
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    wave = 30.0 * np.exp(-t / 30.0) * np.sin(2 * np.pi * t / 17.0 + rng.uniform(0, 6))
    return 500.0 + wave + rng.standard_normal(n)


def test_a_damped_oscillation_of_no_change_gets_no_boundary():
    # The damped family's tuned draws (40-200 points, period 8-30): one segment in most with
    # the wave in the smooth test, in 2 of 25 without the smooth test (and the significance
    # test, round 17, which drops most of those cuts too).
    draws = [np.array(family_series("damped", seed).xs) for seed in range(25)]
    assert sum(segment_all(xs) == [] for xs in draws) >= 19
    # (the merge test, round 21, off too: it drops some of those cuts alone)
    bare = SegmenterConfig(smooth_window=0, significance_window=0, merge_window=0)
    assert sum(segment_all(xs, bare) == [] for xs in draws) <= 2
    assert sum(segment_all(_damped(seed)) == [] for seed in range(20)) >= 16


def test_a_step_on_a_damped_oscillation_is_still_found():
    # The same swings with a 10-noise-std step at 100: the step is the one boundary.
    t = np.arange(150)
    found = [segment_all(_damped(seed) + (t >= 100) * 10.0) for seed in range(20)]
    hits = sum(len(f) == 1 and abs(f[0] - 100) <= 5 for f in found)
    assert hits >= 14, found


def test_a_step_on_a_growing_season_in_proportion_is_found_and_nothing_else():
    # Monthly, growing 1 % a month, a season of +-15 % (in proportion to the level, so no
    # fixed profile is removed), a 25 % fall at 90: the fall is found, the season not cut.
    t = np.arange(160)
    hits = 0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        log = 0.01 * t + 0.15 * np.sin(2 * np.pi * t / 12) - 0.25 * (t >= 90)
        xs = 1000.0 * np.exp(log + 0.02 * rng.standard_normal(160))
        found = segment_all(xs)
        hits += len(found) == 1 and abs(found[0] - 90) <= 5
    assert hits >= 8


def test_a_season_in_proportion_to_a_growing_level_is_not_removed_as_a_fixed_profile():
    t = np.arange(64)
    rng = np.random.default_rng(0)
    noise = 0.3 * rng.standard_normal(64)
    growing = (50.0 + 2.0 * t) * (1.0 + 0.2 * np.sin(2 * np.pi * t / 12)) + noise
    steady = 100.0 + 20.0 * np.sin(2 * np.pi * t / 12) + noise
    kept = {}
    for name, xs in (("growing", growing), ("steady", steady)):
        det = OnlineBOCPD(250.0, season=True, log_scale=False)
        det.update_batch(xs)
        kept[name] = det.state()["season"]
    assert kept["growing"] is None
    assert kept["steady"] is not None and len(kept["steady"]) == 12


def test_a_seasonal_stream_pushed_point_by_point_cuts_at_its_level_shift():
    # Online: the shift under a season is confirmed while the stream goes on, before close.
    t = np.arange(240)
    rng = np.random.default_rng(5)
    xs = 20.0 + 3.0 * np.sin(2 * np.pi * t / 12) + rng.standard_normal(240) + (t >= 150) * 5.0
    seg = OnlineSegmenter()
    online = [c for x in xs for c in seg.push(np.array([x]))]
    assert len(online) == 1 and abs(online[0] - 150) <= 5
    assert seg.close() == []
