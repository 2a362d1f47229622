"""The smooth test at confirmation: a bend a cubic explains is not a boundary, a step still is."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from bench.cp_families import family_series
from graphmem.errors import InvalidInput
from graphmem.series.detect.segmenter import OnlineSegmenter, SegmenterConfig, segment_all

OFF = SegmenterConfig(smooth_window=0)


@pytest.mark.parametrize("seed", [11, 13, 16])
def test_a_smooth_curve_of_no_change_gets_no_boundary(seed):
    # Gompertz and logistic curves of 57-77 points (tuned draws): cut at their bends without
    # the test, one segment with it.
    xs = np.array(family_series("gompertz", seed).xs)
    # (the significance test, round 17, off too: it drops some of those cuts alone)
    assert segment_all(xs, replace(OFF, significance_window=0, merge_window=0)) != []
    assert segment_all(xs) == []


def test_a_step_on_a_smooth_curve_is_still_found():
    # An S-curve of 134 points with one real jump at 116: without the test its bends are cut
    # three times besides; with it only the jump is left.
    sig = family_series("saturation", 8)
    xs = np.array(sig.xs)
    assert list(sig.changepoints) == [116]
    # (as above; and the merge test, round 21, off: it drops two of those cuts alone)
    assert len(segment_all(xs, replace(OFF, significance_window=0, merge_window=0))) == 4
    assert segment_all(xs) == [116]
    # An 8-noise-std step on the steep part of a logistic curve, in 20 noise draws.
    t = np.arange(100)
    curve = 100.0 + 50.0 / (1.0 + np.exp(-(t - 55.0) / 12.0))
    hits = 0
    for seed in range(20):
        found = segment_all(
            curve + np.random.default_rng(seed).standard_normal(100) + (t >= 70) * 8.0
        )
        hits += len(found) == 1 and abs(found[0] - 70) <= 5
    assert hits >= 18


def test_steps_on_a_flat_series_are_not_explained_away():
    # A cubic over a few dozen points can mimic a 1-2 std step; a straight stretch is not a
    # curve, so such steps stay (the same boundaries with the test as without it).
    rng = np.random.default_rng(3)
    levels = np.repeat([0.0, 1.5, 0.0, -2.0, -0.5], 150)
    xs = levels + rng.standard_normal(levels.shape[0])
    found = segment_all(xs)
    assert found == segment_all(xs, OFF)
    assert len(found) == 4


def test_boundaries_wait_for_the_test_the_same_however_pushed_and_resumed():
    # A long S-curve whose bends are tested over many points: point by point, in random
    # batches and restored from its state after every batch, the same boundaries as whole.
    xs = np.array(family_series("saturation", 18).xs)
    whole = segment_all(xs)
    assert whole != segment_all(xs, OFF)
    rng = np.random.default_rng(0)
    for sizes in ([1] * len(xs), rng.integers(1, 40, size=len(xs)).tolist()):
        seg, prev, reported = OnlineSegmenter(), 0, []
        for size in sizes:
            if prev >= len(xs):
                break
            reported += seg.push(xs[prev : prev + size])
            seg = OnlineSegmenter.from_state(json.loads(json.dumps(seg.state())))
            prev += size
        assert reported + seg.close() == whole


def test_a_state_from_before_the_test_still_loads():
    seg = OnlineSegmenter()
    seg.push(np.arange(100.0))
    state = seg.state()
    old = {
        k: v for k, v in state.items() if k not in ("floor", "pending", "values", "values_first")
    }
    old["version"] = 2
    old["config"] = {k: v for k, v in state["config"].items() if k != "smooth_window"}
    resumed = OnlineSegmenter.from_state(old)
    assert resumed.push(np.full(50, 500.0)) + resumed.close() == [100]


@pytest.mark.parametrize("window", [-1, 301, 1.5])
def test_bad_smooth_window_is_rejected(window):
    with pytest.raises(InvalidInput) as err:
        SegmenterConfig(smooth_window=window)
    assert err.value.field == "smooth_window"


def test_a_state_from_before_the_season_reports_the_season_off():
    seg = OnlineSegmenter(SegmenterConfig(season=False))
    seg.push(np.arange(100.0))
    state = seg.state()
    state["config"] = {k: v for k, v in state["config"].items() if k != "season"}
    resumed = OnlineSegmenter.from_state(state)
    assert resumed.config.season is False  # what its detector does: the default is newer
    assert resumed.push(np.full(50, 500.0)) + resumed.close() == [100]
