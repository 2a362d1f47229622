"""Gaps (round 11): exact repeats of a reading carried forward are no reading, where the values
rarely repeat by chance; flags, counts and coarse grids keep their repeats as readings."""

from __future__ import annotations

import json

import numpy as np
from pushes import pushes, random_cuts

from graphmem.series.detect.bocpd import OnlineBOCPD
from graphmem.series.detect.gaps import fill_gaps, repeat_chance, repeats, resolution
from graphmem.series.detect.segmenter import OnlineSegmenter, SegmenterConfig, segment_all

OFF = SegmenterConfig(repeat_gaps=False)


def _carried(seed: int, step: float = 0.0, n: int = 300) -> np.ndarray:
    """A daily reading near 50 (noise 1, two decimals) whose missing days are filled with the
    last reading: 12 days from 60, 20 from 140, 8 from 220; a step at 160, the first reading
    after the longest stretch."""
    rng = np.random.default_rng(seed)
    xs = 50.0 + rng.standard_normal(n)
    for start, length in zip((60, 140, 220), (12, 20, 8), strict=True):
        xs[start : start + length] = xs[start - 1]
    xs[160:] += step
    return np.round(xs, 2)


def test_the_grid_and_the_chance_of_a_repeat():
    assert resolution(np.array([5.452, 5.301, 5.298])) == 0.001
    assert resolution(np.array([0.0, 987.0, 1312.0, 1675.0])) == 1.0  # a running total
    assert resolution(np.array([0.25, 0.5, 1.0])) == 0.25
    assert resolution(np.random.default_rng(0).normal(size=64)) < 1e-8
    assert repeat_chance(_carried(0)[:64]) < 0.01  # noise of 100 steps, a stretch carried
    flags = (np.random.default_rng(1).random(64) < 0.3).astype(float)
    counts = np.random.default_rng(2).poisson(3.0, 64).astype(float)
    ticks = 100.0 + 0.5 * np.random.default_rng(3).integers(-2, 3, 64)
    assert all(repeat_chance(x) > 0.05 for x in (flags, counts, ticks, np.zeros(64)))


def test_repeats_are_filled_on_the_line_between_readings():
    xs = np.array([1.0, 2.0, 2.0, 2.0, 5.0, 5.0])
    assert repeats(xs, prev=1.0).tolist() == [True, False, True, True, False, True]
    assert fill_gaps(xs).tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 5.0]


def test_a_carried_stretch_is_no_boundary_and_a_step_after_one_is():
    # Round 10 cut each stretch as a segment (at its start and where readings resumed).
    assert all(segment_all(_carried(seed), OFF) for seed in range(10))
    assert [segment_all(_carried(seed)) for seed in range(10)] == [[]] * 10
    # a step of 6 and of 4 noise stds at the first reading after the 20-day stretch
    assert [segment_all(_carried(seed, 6.0)) for seed in range(10)] == [[160]] * 10
    assert [segment_all(_carried(seed, -4.0)) for seed in range(10)] == [[160]] * 10


def test_flags_counts_and_coarse_grids_keep_their_repeats():
    rng = np.random.default_rng(4)
    t = np.arange(300)
    flags = (rng.random(300) < np.where(t >= 150, 0.9, 0.1)).astype(float)
    counts = rng.poisson(np.where(t >= 150, 8.0, 3.0)).astype(float)
    ticks = 100.0 + 0.5 * (rng.integers(-2, 3, 300) + np.where(t >= 150, 15, 0))
    for xs in (flags, counts, ticks):
        det = OnlineBOCPD()
        det.update_batch(xs)
        assert det.state()["gaps"] is False
        assert segment_all(xs) == segment_all(xs, OFF) != []


def test_gaps_decide_the_same_however_points_arrive():
    xs = _carried(3, 5.0)
    whole = segment_all(xs)
    for trial in range(3):
        cuts = random_cuts(len(xs), np.random.default_rng(trial))
        seg, found = pushes(xs, cuts, resume=True)
        assert [c for _, new in found for c in new] + seg.close() == whole
    batch = OnlineBOCPD().update_batch(xs)
    det, cps = OnlineBOCPD(), []
    for i, x in enumerate(xs):
        cps.append(det.update(float(x)).cp_prob)
        if i % 37 == 0:
            det = OnlineBOCPD.from_state(json.loads(json.dumps(det.state())))
    assert det.state()["gaps"] is True
    assert np.array_equal(np.concatenate(cps), batch.cp_prob)


def test_a_state_stored_before_gaps_goes_on_without_them():
    xs = _carried(5)
    seg = OnlineSegmenter()
    seg.push(xs[:30])  # still in its warm-up
    state = json.loads(json.dumps(seg.state()))
    # round 10 stored none of round 11's settings or fields
    del state["config"]["repeat_gaps"]
    del state["detector"]["config"]["repeat_gaps"]
    for key in ("gaps", "prev", "carry"):
        del state["detector"][key]
    old = OnlineSegmenter.from_state(state)
    assert old.config.repeat_gaps is False
    assert old.push(xs[30:]) + old.close() == segment_all(xs, OFF) != []
