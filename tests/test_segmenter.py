"""OnlineSegmenter: quality on synthetic and TCPD series, online guarantees, exact resume."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from pushes import pushes, random_cuts

from bench.cp_families import family_series
from bench.cpmetrics import covering, f1_score
from graphmem.errors import InvalidInput
from graphmem.series.detect.segmenter import (
    OnlineSegmenter,
    SegmenterConfig,
    _upgrade_state,
    boundaries_from_run_lengths,
    segment_all,
)
from graphmem.series.detect.synthetic import piecewise_gaussian

TCPD = Path(__file__).parent / "data" / "tcpd"
ROUND_9_STATE = Path(__file__).parent / "data" / "segmenter_state_round9.json"
TCPD_SERIES = ["well_log"] + [f"quality_control_{i}" for i in range(1, 6)]


def _tcpd(name: str) -> np.ndarray:
    data = json.loads((TCPD / f"{name}.json").read_text())
    return np.asarray(data["series"][0]["raw"], dtype=np.float64)


def _f1(seed: int) -> float:
    sig = piecewise_gaussian(seed, n_segments=10)
    truth = {"truth": sig.changepoints.tolist()}
    return f1_score(truth, segment_all(sig.xs), len(sig.xs), margin=5)


@pytest.mark.parametrize("seed", range(5))
def test_finds_synthetic_changepoints(seed):
    # 10 segments of 100-400 points; mean shifts of 1-3 stds, std ratios of 2-4 at half of them.
    # (0.9 per seed before segments had slopes: a 1-std shift is now sometimes read as a slope)
    assert _f1(seed) >= 0.75


def test_mean_f1_over_ten_seeds():
    assert np.mean([_f1(seed) for seed in range(10)]) >= 0.9


def test_tcpd_series_with_default_settings():
    annotations = json.loads((TCPD / "annotations.json").read_text())
    f1s, covers = [], []
    for name in TCPD_SERIES:
        xs = _tcpd(name)
        pred = segment_all(xs)
        f1s.append(f1_score(annotations[name], pred, len(xs)))
        covers.append(covering(annotations[name], pred, len(xs)))
    # Published means on these six (F1 / cover): BOCPD 0.876 / 0.850, binseg 0.901 / 0.854.
    assert np.mean(f1s) >= 0.85
    assert np.mean(covers) >= 0.8


def test_online_guarantees_and_exact_resume():
    cfg = SegmenterConfig()
    xs = piecewise_gaussian(3, n_segments=8).xs
    whole = segment_all(xs, cfg)
    assert whole
    for trial in range(3):
        cuts = random_cuts(len(xs), np.random.default_rng(trial))
        seg, found = pushes(xs, cuts, cfg, resume=True)
        flat = [b for _, new in found for b in new] + seg.close()
        assert flat == whole
        for seen, new in found:
            for b in new:
                assert seen >= b + cfg.min_lag  # point b + min_lag - 1 was pushed by then
        assert seg.n_seen == len(xs)
        assert seg.n_boundaries == len(whole)
        assert seg.last_boundary == whole[-1]
    gaps = np.diff([0, *whole])
    assert (gaps >= cfg.min_segment_length).all()


def test_tiny_batches_and_a_short_warmup_window():
    cfg = SegmenterConfig(min_lag=5, max_lag=40, min_segment_length=3, warmup=8)
    xs = piecewise_gaussian(1, n_segments=4, min_len=40, max_len=60).xs
    whole = segment_all(xs, cfg)
    seg, found = pushes(xs, list(range(1, len(xs) + 1)), cfg, resume=True)
    assert [b for _, new in found for b in new] + seg.close() == whole
    fresh = OnlineSegmenter(cfg)
    for x in xs:
        fresh.push(np.array([x]))
    fresh.close()
    assert fresh.boundaries == whole


def test_boundaries_are_final_and_spaced():
    cfg = SegmenterConfig(min_segment_length=25)
    xs = piecewise_gaussian(4, n_segments=12, min_len=30, max_len=120).xs
    seg = OnlineSegmenter(cfg)
    reported: list[int] = []
    for chunk in np.array_split(xs, 17):
        reported += seg.push(chunk)
        assert seg.boundaries == reported
    assert reported == sorted(set(reported))
    assert reported[0] >= cfg.min_segment_length
    assert (np.diff(reported) >= cfg.min_segment_length).all()


def test_rule_applies_to_any_run_length_sequence():
    # With nothing confirmed online (min_lag as long as the stream), a closed stream's
    # boundaries are the MAP segmentation of its run lengths, which any BOCPD gives.
    xs = piecewise_gaussian(2, n_segments=6).xs
    n = len(xs)
    cfg = SegmenterConfig(min_lag=n + 1, max_lag=n + 2, max_run_lengths=n + 1, prune_threshold=0)
    rl = cfg.detector().update_batch(xs).map_run_length
    assert boundaries_from_run_lengths(rl, cfg) == segment_all(xs, cfg) != []
    with pytest.raises(InvalidInput):
        boundaries_from_run_lengths(np.zeros((2, 2)))


def test_no_boundaries_in_stationary_noise():
    xs = np.random.default_rng(0).normal(10.0, 2.0, 5000)
    assert segment_all(xs) == []


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"hazard_lambda": 1.0}, "hazard_lambda"),
        ({"min_lag": 0}, "min_lag"),
        ({"max_lag": 1}, "max_lag"),
        ({"min_lag": 50, "max_lag": 50}, "min_lag"),
        ({"outlier_prob": 0.7}, "outlier_prob"),
        ({"trend": 1}, "trend"),
        ({"tolerance": -1}, "tolerance"),
        ({"min_segment_length": 0}, "min_segment_length"),
        ({"warmup": 1}, "warmup"),
        ({"prune_threshold": -0.1}, "prune_threshold"),
        ({"max_run_lengths": 0}, "max_run_lengths"),
        ({"protect_recent": -1}, "protect_recent"),
        ({"track_level": "yes"}, "track_level"),
        ({"blip_length": -1}, "blip_length"),
        ({"blip_length": 41, "max_lag": 40}, "blip_length"),
        ({"repeat_length": -1}, "repeat_length"),
        ({"repeat_length": 2.5}, "repeat_length"),
        ({"repeat_length": 41, "max_lag": 40}, "repeat_length"),
    ],
)
def test_bad_config_is_rejected(kwargs, field):
    with pytest.raises(InvalidInput) as err:
        SegmenterConfig(**kwargs)
    assert err.value.field == field


def test_bad_values_are_rejected():
    seg = OnlineSegmenter()
    with pytest.raises(InvalidInput) as err:
        seg.push(np.array([1.0, float("nan")]))
    assert err.value.field == "xs"
    assert seg.n_seen == 0


def test_malformed_state_is_rejected():
    state = OnlineSegmenter().state()
    state["history"] = [1, 2]
    with pytest.raises(InvalidInput):
        OnlineSegmenter.from_state(state)


def _step(n: int, at: int, size: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 50.0 + 2.0 * rng.standard_normal(n) + np.where(np.arange(n) >= at, 2.0 * size, 0.0)


@pytest.mark.parametrize(("n", "at"), [(20, 10), (25, 8), (30, 18), (40, 20), (40, 31)])
def test_short_series_with_one_clear_change_get_it(n, at):
    # a 5-sigma step: found alone, within 2 points, in at least 17 noise draws of 20
    found = [segment_all(_step(n, at, 5.0, seed)) for seed in range(20)]
    exact = [f for f in found if len(f) == 1 and abs(f[0] - at) <= 2]
    assert len(exact) >= 17, found


@pytest.mark.parametrize("back", [3, 8, 15, 20])
def test_a_step_near_the_end_is_found_at_close(back):
    xs = _step(500, 500 - back, 10.0, back)
    seg = OnlineSegmenter()
    assert seg.push(xs[: 500 - back]) == []
    seg.push(xs[500 - back :])
    assert seg.close() == [500 - back] or seg.boundaries == [500 - back]
    assert seg.close() == []  # closing again confirms nothing more
    assert segment_all(xs) == [500 - back]


def test_points_after_a_close_go_on_from_there():
    xs = _step(300, 290, 10.0, 1)
    seg = OnlineSegmenter()
    seg.push(xs)
    seg.close()
    assert seg.boundaries == [290]
    more = 50.0 + 2.0 * np.random.default_rng(9).standard_normal(100)  # back to the old level
    seg.push(more)
    seg.close()
    assert seg.boundaries == [290, 300]


def test_compound_growth_is_not_cut_and_a_fall_in_it_is_found():
    t = np.arange(100)
    found = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        xs = 50.0 * np.exp(0.03 * t) * (1.0 + 0.01 * rng.standard_normal(100))
        found.append((segment_all(xs), segment_all(xs * np.where(t >= 60, 0.8, 1.0))))
    assert sum(smooth == [] and fall == [60] for smooth, fall in found) >= 18, found


def test_a_steady_trend_a_random_walk_and_spikes_are_not_cut():
    rng = np.random.default_rng(4)
    trend = 100.0 + 0.5 * np.arange(400) + rng.standard_normal(400)
    walk = np.cumsum(rng.standard_normal(600))
    spikes = rng.standard_normal(400)
    spikes[[50, 180, 181, 300]] += [12.0, -15.0, -14.0, 20.0]
    for xs in (trend, walk, spikes):
        assert segment_all(xs) == []


def test_beats_no_changepoints_on_a_held_back_family():
    # Families and seeds the defaults were not tuned on (bench/bench_cp_quality.py's split).
    for family in ("steps_heavy", "counts", "exp_break"):
        ours, zero = [], []
        for seed in range(1000, 1012):
            sig = family_series(family, seed)
            truth, n = {"truth": list(sig.changepoints)}, len(sig.xs)
            pred = segment_all(sig.xs)
            ours.append((f1_score(truth, pred, n), covering(truth, pred, n)))
            zero.append((f1_score(truth, [], n), covering(truth, [], n)))
        assert (np.mean(ours, axis=0) > np.mean(zero, axis=0)).all(), family


def test_a_short_closed_s_curve_is_not_cut_and_a_step_on_it_is_found():
    # 40 annual points of a logistic curve rising 60 noise stds: one smooth segment; the same
    # curve with a 6-std step at 25, on its steep part, gets that boundary (within the 5-point
    # margin) most of the time, an 8-std one nearly always. (Before the bend allowance every
    # smooth curve was cut, and the 6-std step found in none of the 20.)
    t = np.arange(40)
    curve = 60.0 / (1.0 + np.exp(-(t - 20.0) / 4.0))
    smooth, stepped = [], []
    for seed in range(20):
        xs = 1000.0 + curve + np.random.default_rng(seed).standard_normal(40)
        smooth.append(segment_all(xs))
        stepped.append([segment_all(xs + np.where(t >= 25, h, 0.0)) for h in (6.0, 8.0)])
    assert sum(found == [] for found in smooth) >= 18, smooth
    for i, least in ((0, 14), (1, 18)):
        hits = [len(s[i]) == 1 and abs(s[i][0] - 25) <= 5 for s in stepped]
        assert sum(hits) >= least, stepped


def _short_step(seed: int) -> tuple[np.ndarray, int]:
    """30 points with one step of 3-6 noise stds somewhere in 8..22; the series and the step."""
    rng = np.random.default_rng(seed)
    at = int(rng.integers(8, 23))
    size = rng.uniform(3.0, 6.0) * rng.choice([-1.0, 1.0])
    return 50.0 + np.where(np.arange(30) >= at, size, 0.0) + rng.standard_normal(30), at


def test_a_short_sloped_stream_closed_lets_its_slope_bend_and_others_do_not():
    # The bend allowance is for streams seen whole at close (shorter than the warm-up) that
    # have a slope; a flat short stream (a step between flat stretches) rarely gets it (its
    # median step is a standard error from zero by chance), a long one never.
    bent = {"sloped": 0, "flat": 0}
    for seed in range(40):
        rng = np.random.default_rng(seed)
        series = {"sloped": np.arange(40.0) + rng.standard_normal(40), "flat": None}
        series["flat"] = _short_step(seed)[0]
        for name, xs in series.items():
            seg = OnlineSegmenter()
            seg.push(xs)
            seg.close()
            bent[name] += seg._det.prior.slope_noise >= 0.02
    assert bent["sloped"] == 40 and bent["flat"] <= 8, bent
    long = OnlineSegmenter()
    long.push(np.random.default_rng(7).standard_normal(200))
    assert long._det.prior.slope_noise == 0.0


def test_a_short_series_with_one_step_gets_it_at_the_step():
    # 30 points, one step: the closed stream reports that step within the 5-point margin and
    # nothing else in nine draws of ten (a bending slope used to absorb more of them).
    hits = 0
    for seed in range(40):
        xs, at = _short_step(seed)
        found = segment_all(xs)
        hits += len(found) == 1 and abs(found[0] - at) <= 5
    assert hits >= 36


def test_season_finds_shifts_under_a_season_and_is_on_by_default():
    # A monthly swing of 3 noise stds with a 4-std level shift at 150: with the season (the
    # default since round 8) the shift is the one boundary in most draws; with season=False
    # the season is read as a wandering level and the shift is found less often.
    t = np.arange(240)
    found = {False: 0, True: 0}
    for seed in range(10):
        rng = np.random.default_rng(seed)
        xs = 20.0 + 3.0 * np.sin(2 * np.pi * t / 12) + rng.standard_normal(240)
        xs += np.where(t >= 150, 4.0, 0.0)
        for season in found:
            pred = segment_all(xs, SegmenterConfig(season=season))
            found[season] += len(pred) == 1 and abs(pred[0] - 150) <= 5
    assert found[True] >= 8 and found[True] > found[False], found
    assert SegmenterConfig().season is True


def _tick_price(seed: int, n: int, jump: int) -> np.ndarray:
    """A price on a grid of 0.05: flat runs, a move of one tick every ten days or so (drawn
    back to its level, at most two ticks from it), and a jump of `jump` ticks at n // 2."""
    rng = np.random.default_rng(seed)
    off = np.zeros(n, dtype=np.int64)
    for i in range(1, n):
        if rng.random() < 0.1:
            up = rng.random() < 0.5 - 0.2 * off[i - 1]
            off[i] = np.clip(off[i - 1] + (1 if up else -1), -2, 2)
        else:
            off[i] = off[i - 1]
    return 0.05 * (300 + off + np.where(np.arange(n) >= n // 2, jump, 0))


def test_a_flag_whose_rate_changes_gets_a_boundary_and_extreme_values_raise_nothing():
    found = []
    for seed in range(10):
        rng = np.random.default_rng(seed)
        flags = np.r_[rng.random(100) < 0.1, rng.random(100) < 0.9].astype(float)
        found.append(segment_all(flags))
    assert all(any(abs(b - 100) <= 2 for b in cut) for cut in found), found
    # a coarse grid near the largest values accepted raises nothing (the floor is capped)
    segment_all(np.array([-9e99, -9e99, 9e99, 9e99] * 20))
    segment_all(1e99 + 1e98 * (np.arange(80) % 3))
    # 0 and 1e99 alternating: the warm-up's line would start past the limit (round 10's review)
    assert segment_all(np.tile([0.0, 1e99], 100)) == []
    assert segment_all(np.tile([0.0, 1e99], 100), SegmenterConfig(season=False)) == []


def test_a_price_on_a_grid_is_not_cut_at_every_tick_and_a_level_change_is_found():
    # A flat run of equal values is not a noise variance near 0: before round 9 nearly every
    # one-tick move after a flat run was a boundary (6-18 of them in each of these draws);
    # now most draws get none. A 12-tick jump is still found in every draw.
    quiet = [segment_all(_tick_price(seed, 300, 0)) for seed in range(10)]
    jumps = [segment_all(_tick_price(seed, 300, 12)) for seed in range(10)]
    assert sum(found == [] for found in quiet) >= 6 and max(map(len, quiet)) <= 3, quiet
    assert all(any(abs(b - 150) <= 5 for b in found) for found in jumps), jumps


def _dropouts(seed: int, step: float) -> np.ndarray:
    """A reading near 100 (noise 1) with four runs of 3-5 exact zeros; a step at 150."""
    rng = np.random.default_rng(seed)
    xs = 100.0 + rng.standard_normal(300) + np.where(np.arange(300) >= 150, step, 0.0)
    for start in (40, 95, 210, 260):
        xs[start : start + int(rng.integers(3, 6))] = 0.0
    return xs


def test_dropouts_are_not_changes_and_a_step_between_them_is_found():
    # Each run of zeros went away and came back: two boundaries, eight a series, with the
    # blip test off (round 9; and the transient test, which reads such a run as an excursion
    # that returns too); now few. An 8-std step is still found in every draw.
    # (the merge test, round 21, off too: the count is of the cuts the other tests see)
    off_cfg = SegmenterConfig(blip_length=0, transient_length=0, merge_window=0)
    off = [segment_all(_dropouts(seed, 0.0), off_cfg) for seed in range(10)]
    quiet = [segment_all(_dropouts(seed, 0.0)) for seed in range(10)]
    steps = [segment_all(_dropouts(seed, 8.0)) for seed in range(10)]
    assert sum(map(len, off)) >= 70, off
    assert sum(map(len, quiet)) <= 10 and sum(found == [] for found in quiet) >= 6, quiet
    assert all(any(abs(b - 150) <= 2 for b in found) for found in steps), steps


def test_a_dropout_on_a_trend_is_not_a_change():
    found = []
    for seed in range(10):
        xs = np.arange(250.0) + 0.2 * np.random.default_rng(seed).standard_normal(250)
        xs[120:123] = 0.0
        found.append(segment_all(xs))
    assert sum(cut == [] for cut in found) >= 8, found


def test_the_blip_test_decides_the_same_however_points_arrive():
    for seed in range(3):
        xs = _dropouts(seed, 8.0)
        whole = segment_all(xs)
        cuts = random_cuts(len(xs), np.random.default_rng(seed))
        seg, found = pushes(xs, cuts, SegmenterConfig(), resume=True)
        assert [b for _, new in found for b in new] + seg.close() == whole


def test_a_state_stored_before_the_blip_test_keeps_its_boundaries():
    xs = _dropouts(1, 0.0)
    seg = OnlineSegmenter(SegmenterConfig(blip_length=0, repeat_length=0))
    seg.push(xs[:100])
    state = json.loads(json.dumps(seg.state()))
    # round 9 stored none of round 10's settings or fields
    for key in ("blip_length", "repeat_length", "repeat_gaps"):
        del state["config"][key]
    del state["origin"]
    for key in ("coarse_floor", "sawtooth_check", "repeat_gaps"):
        del state["detector"]["config"][key]
    for key in ("gaps", "prev", "carry"):  # nor round 11's
        del state["detector"][key]
    old = OnlineSegmenter.from_state(state)
    assert (old.config.blip_length, old.config.repeat_length) == (0, 0)
    off = segment_all(xs, SegmenterConfig(blip_length=0, repeat_length=0))
    assert seg.boundaries + old.push(xs[100:]) + old.close() == off != []


def test_a_state_stored_by_round_9_in_its_warm_up_goes_on_as_before():
    # Rare counts, saved by round 9's code after 30 points (tests/data): round 10's warm-up
    # rules (a coarse grid's rounding floor) would cut nothing; that series goes on as it was.
    stored = json.loads(ROUND_9_STATE.read_text())
    xs, at = np.asarray(stored["values"]), stored["saved_after"]
    old = OnlineSegmenter.from_state(stored["state"])
    assert old.push(xs[at:]) + old.close() == stored["boundaries"] != []
    assert segment_all(xs) == []


def test_a_version_1_state_is_upgraded_with_the_tests_it_never_had_off():
    v1 = {"version": 1, "config": {"hazard_lambda": 250.0, "warmup": 64}, "last": 0}
    v1 |= {"n_boundaries": 0, "detector": {"n_processed": 0}}
    config = _upgrade_state(v1)["config"]
    assert (config["blip_length"], config["repeat_length"], config["season"]) == (0, 0, False)
    assert config["ramp_length"] == 0


def test_rare_counts_are_not_cut_at_each_incident_and_a_new_rate_is_found():
    # Counts mostly zero (an incident every 20 days): a warm-up of zeros read as no noise at all
    # made every later incident a change (round 9: 1-3 boundaries in each of these draws).
    def counts(seed: int, rate: float) -> np.ndarray:
        rng = np.random.default_rng(seed)
        return rng.poisson(np.where(np.arange(300) >= 150, rate, 0.05)).astype(float)

    quiet = [segment_all(counts(seed, 0.05)) for seed in range(10)]
    busier = [segment_all(counts(seed, 0.8)) for seed in range(10)]
    assert sum(found == [] for found in quiet) >= 8, quiet
    assert all(any(abs(b - 150) <= 5 for b in found) for found in busier), busier


def _sawtooth(seed: int, draw: float = 1.0, top: float = 1.0) -> np.ndarray:
    """Stock drawn down by about 80 a step (noise 25 %) and refilled to about 1000 when it falls
    under 200 (a tooth every 10 or so steps); from point 150 on the draw-down is `draw` times
    as fast, and the refills go to `top` times as high."""
    rng = np.random.default_rng(seed)
    level, xs, rate, target = 1000.0, np.empty(300), 80.0, 1000.0
    for i in range(300):
        if i == 150:
            rate, target = rate * draw, target * top
        level -= rate * max(0.0, 1.0 + 0.25 * rng.standard_normal())
        if level < 200.0:
            level = target * (1.0 + 0.02 * rng.standard_normal())
        xs[i] = round(level)
    return xs


def test_a_sawtooth_is_not_cut_at_every_tooth_and_a_new_slope_or_top_is_found():
    # Every refill jumped back to the top: a boundary per tooth, ~33 a series, with the repeat
    # test off; now a few, mostly at the first teeth (the first is not yet a repeat). A
    # draw-down 2.2x faster is found in most draws (slower in fewer: the first slow tooth is
    # long and noisy), refills 60 % higher too. (The transient test, round 13, reads some teeth
    # as excursions that return: off with the repeat test for the count; and the first slow
    # tooth, a refill drawn down through the level before it, as one in a draw more: 6 of 10.
    # The significance test, round 17, off too: the count is of the cuts the other tests see.)
    off_cfg = SegmenterConfig(
        repeat_length=0, transient_length=0, significance_window=0, merge_window=0
    )
    off = [segment_all(_sawtooth(seed), off_cfg) for seed in range(10)]
    quiet = [segment_all(_sawtooth(seed)) for seed in range(10)]
    assert sum(map(len, off)) >= 250, off
    assert sum(map(len, quiet)) <= 50 and max(map(len, quiet)) <= 8, quiet
    for draw, least in ((2.2, 8), (0.45, 6)):
        found = [segment_all(_sawtooth(seed, draw=draw)) for seed in range(10)]
        assert sum(any(140 <= b <= 160 for b in f) for f in found) >= least, (draw, found)
    # Refills 60 % higher: the merge test (round 21) keeps the change in 4 draws of 10 (the
    # levels of a few teeth after it spread about as those before do); without it, in 9.
    higher = [segment_all(_sawtooth(seed, top=1.6)) for seed in range(10)]
    assert sum(any(148 <= b <= 170 for b in f) for f in higher) >= 4, higher
    unmerged = SegmenterConfig(merge_window=0)
    higher = [segment_all(_sawtooth(seed, top=1.6), unmerged) for seed in range(10)]
    assert sum(any(148 <= b <= 170 for b in f) for f in higher) >= 8, higher


def test_the_repeat_test_decides_the_same_however_points_arrive():
    for seed in range(3):
        xs = _sawtooth(seed, top=1.6)
        whole = segment_all(xs)
        for trial in range(2):
            cuts = random_cuts(len(xs), np.random.default_rng(10 * seed + trial))
            seg, found = pushes(xs, cuts, SegmenterConfig(), resume=trial == 1)
            assert [b for _, new in found for b in new] + seg.close() == whole


def test_a_state_stored_before_the_repeat_test_keeps_its_boundaries():
    xs = _sawtooth(2)
    # (the significance test, round 17, off too: the comparison is of the repeat test alone)
    seg = OnlineSegmenter(SegmenterConfig(repeat_length=0, significance_window=0, merge_window=0))
    seg.push(xs[:100])
    state = json.loads(json.dumps(seg.state()))
    del state["config"]["repeat_length"]  # round 10's blip test stored no such setting
    del state["origin"]
    old = OnlineSegmenter.from_state(state)
    assert old.config.repeat_length == 0
    off = segment_all(xs, SegmenterConfig(repeat_length=0, significance_window=0, merge_window=0))
    assert seg.boundaries + old.push(xs[100:]) + old.close() == off != []


def test_a_boundary_found_far_behind_the_newest_point_is_decided_alike_in_any_batching():
    # The walk back may find a boundary 1,156 points behind the newest one (1544, at 2700):
    # pushed one by one its values were still kept and the smooth test dropped it, pushed in
    # 512s they were gone and it was kept (round 10's review); now it is kept untested in both.
    xs = np.cumsum(np.random.default_rng(369).standard_normal(3000))
    whole = segment_all(xs)
    for size in (1, 100, 512):
        seg, found = pushes(
            xs, list(range(size, len(xs), size)) + [len(xs)], SegmenterConfig(), False
        )
        assert [b for _, new in found for b in new] + seg.close() == whole
    seg, found = pushes(xs, list(range(97, len(xs), 97)) + [len(xs)], SegmenterConfig(), True)
    assert [b for _, new in found for b in new] + seg.close() == whole
