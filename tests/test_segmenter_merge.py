"""The merge test (round 21): a boundary is kept only if the segments it separates differ."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from pushes import in_pieces, resumed_from_older_state

from bench.cp_families import family_series
from graphmem.errors import InvalidInput
from graphmem.series.detect import merge
from graphmem.series.detect.merge import EARLY_STRICTNESS, worth_a_boundary
from graphmem.series.detect.segmenter import OnlineSegmenter, SegmenterConfig, segment_all

UNMERGED = SegmenterConfig(merge_window=0)
WINDOW = SegmenterConfig().merge_window
PENALTY = SegmenterConfig().merge_penalty


def _hits(found: list[int], cps: list[int]) -> int:
    return sum(any(abs(b - c) <= 5 for b in found) for c in cps)


def test_clustered_boundaries_go_and_the_labelled_changes_stay() -> None:
    # A river's storms, a latency's daily peaks, a meter's days: the other tests leave clusters
    # of boundaries a few points apart; the merge test drops about half of them (ten tuned draws
    # of each family: 149 -> 80) and no labelled change found without it.
    merged, unmerged, kept, found = 0, 0, 0, 0
    for family, seed in itertools.product(("river_stage", "latency_p95", "water_meter"), range(10)):
        sig = family_series(family, seed)
        xs, cps = np.array(sig.xs), list(sig.changepoints)
        with_test, without = segment_all(xs), segment_all(xs, UNMERGED)
        merged, unmerged = merged + len(with_test), unmerged + len(without)
        kept, found = kept + _hits(with_test, cps), found + _hits(without, cps)
    assert merged <= 0.6 * unmerged, (merged, unmerged)
    assert kept == found, (kept, found)


def _reported(xs: np.ndarray) -> dict[int, int]:
    """Each boundary and the points pushed (one at a time) when it was reported."""
    seg, when = OnlineSegmenter(), {}
    for i in range(xs.shape[0]):
        when.update((b, i + 1) for b in seg.push(xs[i : i + 1]))
    return when


def _ar1(seed: int, phi: float, n: int = 400) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.zeros(n)
    for i in range(1, n):
        x[i] = phi * x[i - 1] + rng.standard_normal()
    return x


def test_a_clear_change_is_reported_at_once_and_a_doubtful_one_waits_for_its_segment() -> None:
    step = 1.0 * (np.arange(400) >= 150)
    rng = np.random.default_rng(2)
    white = 10.0 + rng.standard_normal(400)
    # 6 stds in independent noise: clear on the 20 points after it, reported then (as before
    # round 21: the significance window)
    assert _reported(white + 6.0 * step) == {150: 170}
    # 2 stds in AR(1) noise (phi 0.5): the wander could make as much of 20 or 40 points, so it
    # waits for merge_window points after it, and then the segments differ
    assert _reported(10.0 + _ar1(1, 0.5) + 2.0 * step) == {150: 150 + WINDOW}
    # followed 30 points later by a step back, a block of its own: both kept, the first
    # before its window is in
    both = _reported(white + 6.0 * step - 6.0 * (np.arange(400) >= 180))
    assert list(both) == [150, 180] and both[150] < 150 + WINDOW, both


def test_the_merge_test_decides_the_same_however_points_arrive() -> None:
    # pieces of 1-250 points, the state saved and restored after each (a boundary held or not),
    # and one point at a time
    cases = [("river_stage", 0), ("river_stage", 2), ("server_memory", 3)]
    cases += [(family, seed) for family in ("dairy_milk_yield", "gas_meter") for seed in range(4)]
    for family, seed in cases:
        xs = np.array(family_series(family, seed).xs)
        whole = segment_all(xs)
        assert in_pieces(xs, np.random.default_rng(seed), SegmenterConfig()) == whole, family
        seg = OnlineSegmenter()
        assert [b for x in xs for b in seg.push(np.array([x]))] + seg.close() == whole, family
    xs = np.array(family_series("river_stage", 0).xs)
    assert segment_all(xs) != segment_all(xs, UNMERGED)  # the test decides something here


def test_a_boundary_is_not_known_before_it_is_confirmed() -> None:
    # dairy_milk_yield, draw 1: 274 is confirmed 127 points after it, though the smooth test
    # would have kept it 40 points after; the boundary before it, 244, must not read 274 as
    # the end of its segment before 274 is known (one point at a time it then read 80 points)
    xs = np.array(family_series("dairy_milk_yield", 1).xs)
    seg = OnlineSegmenter()
    assert [b for x in xs for b in seg.push(np.array([x]))] + seg.close() == segment_all(xs)


def test_a_state_stored_before_the_merge_test_goes_on_without_it() -> None:
    xs = np.array(family_series("river_stage", 0).xs)
    dropped = ("config.merge_window", "held", "reported_last", "n_reported")
    old, found = resumed_from_older_state(xs, 300, UNMERGED, dropped)
    assert old.config.merge_window == 0
    assert found == segment_all(xs, UNMERGED) != segment_all(xs)


def test_the_segments_decide_not_a_spike_or_the_noise() -> None:
    rng = np.random.default_rng(0)
    left, right = rng.standard_normal(100), rng.standard_normal(60)
    assert not worth_a_boundary(left, right, PENALTY)  # the same noise on both sides
    assert worth_a_boundary(left, right + 1.0, PENALTY)  # one std: BIC's price, independent
    spiked = right.copy()
    spiked[5] = 1000.0  # a wild point the other tests let through is drawn in
    assert not worth_a_boundary(left, spiked, PENALTY)
    t = np.arange(160, dtype=np.float64)
    kink = np.where(t < 100, t, 100.0 - 0.5 * (t - 100)) + 0.3 * rng.standard_normal(160)
    assert worth_a_boundary(kink[:100], kink[100:], PENALTY)  # a new slope, the lines tell
    wander = np.empty(400)  # AR(1) noise, phi 0.8: its stretches wander, no change
    wander[0] = 0.0
    for i in range(1, 400):
        wander[i] = 0.8 * wander[i - 1] + rng.standard_normal()
    for at in (100, 200, 300):
        assert not worth_a_boundary(wander[at - 100 : at], wander[at : at + 60], PENALTY)
    assert worth_a_boundary(left[:2], right, PENALTY)  # too few points before: no verdict
    # an early verdict asks three times as much: one std on 20 points is not yet enough
    assert worth_a_boundary(left, right[:20] + 1.0, PENALTY)
    assert not worth_a_boundary(left, right[:20] + 1.0, PENALTY, strict=EARLY_STRICTNESS)


def test_a_jump_against_a_trend_keeps_its_boundary(monkeypatch: pytest.MonkeyPatch) -> None:
    # A level dropping by two stds on a rising trend: the two sides' means hardly differ (the
    # drop undoes what the trend added), one line with a jump explains them far better.
    t = np.arange(160, dtype=np.float64)
    drop = np.where(t >= 100, 2.0, 0.0)
    noise = [np.random.default_rng(seed).standard_normal(160) for seed in range(40)]

    def kept(series: list[np.ndarray]) -> int:
        return sum(worth_a_boundary(y[:100], y[100:], PENALTY) for y in series)

    dropped = [0.02 * t + e - drop for e in noise]
    assert kept(dropped) >= 20  # about 3 in 4 of such draws (0.76 over 4,000 seeds)
    rising = [0.02 * t + e for e in noise]
    assert sum(merge._jump_on_a_line(y[:100], y[100:], PENALTY, math.log(160)) for y in rising) <= 2
    monkeypatch.setattr(merge, "OFFSET_PRICE", math.inf)  # the means alone lose it
    assert kept(dropped) <= 2


@pytest.mark.parametrize(
    "setting",
    [
        {"merge_window": -1},
        {"merge_window": 2},
        {"merge_penalty": 0.5},
        {"merge_window": 2.5},
        {"merge_window": True},
        {"merge_window": 100_001},
        {"merge_penalty": -1.0},
        {"merge_penalty": float("nan")},
        {"merge_penalty": "6"},
    ],
)
def test_bad_merge_settings_name_the_field(setting: dict) -> None:
    with pytest.raises(InvalidInput) as err:
        SegmenterConfig(**setting)
    assert next(iter(setting)) in str(err.value)
