"""The lone excursion (round 12): a spike or two zeros, too short to end in a boundary of its
own, is no change."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from pushes import in_pieces, resumed_from_older_state

from graphmem.series.detect.blip import lone_excursion
from graphmem.series.detect.segmenter import SegmenterConfig, segment_all

# the merge test (round 21) off too: it would drop what the lone excursion test is shown to
# drop here, and more
OFF = SegmenterConfig(lone_length=0, merge_window=0)


def _glitches(seed: int, step: float = 0.0) -> np.ndarray:
    """A reading near 100 (noise 1): single spikes of twice the reading and pairs of exact
    zeros, three of each, none of them a change; a step at 200."""
    rng = np.random.default_rng(seed)
    xs = 100.0 + rng.standard_normal(400) + np.where(np.arange(400) >= 200, step, 0.0)
    for at in (80, 150, 300):
        xs[at + int(rng.integers(0, 10))] *= 2.0
    for at in (110, 250, 340):
        start = at + int(rng.integers(0, 10))
        xs[start : start + 2] = 0.0
    return xs


def test_spikes_and_two_zeros_are_not_changes_and_a_step_between_them_is_found():
    # Before round 12 a spike far beyond the detector's outliers or two zeros left a boundary
    # (its pair could not form: a segment is 3 points at least): 59 in these ten draws, now 5.
    # (Since round 13 the transient test drops two zeros too, and since round 17 the
    # significance test most glitches: off with lone excursions here.)
    bare = replace(OFF, transient_length=0, significance_window=0)
    off = [segment_all(_glitches(seed), bare) for seed in range(10)]
    quiet = [segment_all(_glitches(seed)) for seed in range(10)]
    steps = [segment_all(_glitches(seed, 8.0)) for seed in range(10)]
    assert sum(map(len, off)) >= 40, off  # 59: nearly every glitch
    assert sum(map(len, quiet)) <= 6 and sum(found == [] for found in quiet) >= 5, quiet
    assert all(any(abs(b - 200) <= 2 for b in found) for found in steps), steps


def test_a_step_with_a_spike_just_after_it_is_still_a_step():
    found = []
    for seed in range(10):
        rng = np.random.default_rng(seed)
        xs = 100.0 + rng.standard_normal(300) + np.where(np.arange(300) >= 150, 6.0, 0.0)
        xs[152] = 200.0
        found.append(segment_all(xs))
    assert all(any(abs(b - 150) <= 2 for b in f) for f in found), found


def test_lone_excursion_reads_the_points_around_it():
    before = np.zeros(15) + 0.1 * np.sin(np.arange(15))
    back = np.concatenate(([50.0, 50.0], 0.1 * np.cos(np.arange(14))))
    assert lone_excursion(before, back, 3)
    assert not lone_excursion(before, back, 1)  # two far points: more than one allowed
    assert not lone_excursion(before, back + np.r_[0.0, 0.0, np.full(14, 5.0)], 3)  # a step
    assert not lone_excursion(before, np.full(16, 50.0), 3)  # every point far: a change


def test_the_lone_excursion_is_decided_the_same_however_points_arrive():
    for seed in range(3):
        xs = _glitches(seed, 8.0)
        assert in_pieces(xs, np.random.default_rng(seed), SegmenterConfig()) == segment_all(xs)


def test_a_state_stored_before_the_lone_excursion_goes_on_without_it():
    xs = _glitches(2)
    # round 11 stored no such setting
    old, found = resumed_from_older_state(xs, 100, OFF, ("config.lone_length",))
    assert old.config.lone_length == 0
    assert found == segment_all(xs, OFF) != segment_all(xs)
