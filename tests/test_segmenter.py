"""OnlineSegmenter: quality on synthetic and TCPD series, online guarantees, exact resume."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from graphmem.errors import InvalidInput
from graphmem.series.bocpd import OnlineBOCPD
from graphmem.series.cpmetrics import covering, f1_score
from graphmem.series.segmenter import (
    OnlineSegmenter,
    SegmenterConfig,
    boundaries_from_run_lengths,
    segment_all,
)
from graphmem.series.synthetic import piecewise_gaussian

TCPD = Path(__file__).parent / "data" / "tcpd"
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
    assert _f1(seed) >= 0.9


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


def _pushes(xs: np.ndarray, cuts: list[int], cfg: SegmenterConfig, resume: bool):
    seg = OnlineSegmenter(cfg)
    prev, found = 0, []
    for cut in cuts:
        new = seg.push(xs[prev:cut])
        found.append((cut, new))
        if resume:
            seg = OnlineSegmenter.from_state(json.loads(json.dumps(seg.state())))
        prev = cut
    return seg, found


def _random_cuts(n: int, rng: np.random.Generator) -> list[int]:
    cuts, pos = [], 0
    while pos < n:
        pos = min(n, pos + int(rng.choice([1, 1, 3, 7, 20, 31, 90, 250])))
        cuts.append(pos)
    return cuts


def test_online_guarantees_and_exact_resume():
    cfg = SegmenterConfig()
    xs = piecewise_gaussian(3, n_segments=8).xs
    whole = segment_all(xs, cfg)
    assert whole
    for trial in range(3):
        cuts = _random_cuts(len(xs), np.random.default_rng(trial))
        seg, found = _pushes(xs, cuts, cfg, resume=True)
        flat = [b for _, new in found for b in new]
        assert flat == whole
        for seen, new in found:
            for b in new:
                assert seen >= b + cfg.lag + 1  # point b + lag was in this push or earlier
        assert seg.n_seen == len(xs)
        assert seg.n_boundaries == len(whole)
        assert seg.last_boundary == whole[-1]
    gaps = np.diff([0, *whole])
    assert (gaps >= cfg.min_segment_length).all()


def test_tiny_batches_and_a_short_warmup_window():
    cfg = SegmenterConfig(lag=5, min_segment_length=3, warmup=8)
    xs = piecewise_gaussian(1, n_segments=4, min_len=40, max_len=60).xs
    whole = segment_all(xs, cfg)
    seg, found = _pushes(xs, list(range(1, len(xs) + 1)), cfg, resume=True)
    assert [b for _, new in found for b in new] == whole
    fresh = OnlineSegmenter(cfg)
    for x in xs:
        fresh.push(np.array([x]))
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
    xs = piecewise_gaussian(2, n_segments=6).xs
    rl = OnlineBOCPD().update_batch(xs).map_run_length
    assert boundaries_from_run_lengths(rl) == segment_all(xs)
    with pytest.raises(InvalidInput):
        boundaries_from_run_lengths(np.zeros((2, 2)))


def test_no_boundaries_in_stationary_noise():
    xs = np.random.default_rng(0).normal(10.0, 2.0, 5000)
    assert segment_all(xs) == []


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"hazard_lambda": 1.0}, "hazard_lambda"),
        ({"lag": 0}, "lag"),
        ({"tolerance": -1}, "tolerance"),
        ({"min_segment_length": 0}, "min_segment_length"),
        ({"warmup": 1}, "warmup"),
        ({"prune_threshold": -0.1}, "prune_threshold"),
        ({"max_run_lengths": 0}, "max_run_lengths"),
        ({"protect_recent": -1}, "protect_recent"),
        ({"track_level": "yes"}, "track_level"),
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
    state["tail"] = [1, 2]
    with pytest.raises(InvalidInput):
        OnlineSegmenter.from_state(state)
