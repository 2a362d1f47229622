"""Changepoint quality of OnlineSegmenter with default settings: tuned vs held-back data.

The defaults were chosen on the tuned split only; the held-back split (other synthetic families,
other seeds of the tuned ones, the other TCPD series) is reported beside it. Every cell is the
mean F1 (5-sample margin) / covering over the family's series, scored as TCPDBench does (all
annotators), beside two baselines: no changepoints, and BOCPD as TCPDBench runs it by default.
Also: the piecewise-Gaussian families and a long stream (speed and quality far from the warm-up).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from cp_baselines import tcpdbench_bocpd, zero  # noqa: E402
from cp_families import family_series  # noqa: E402
from cpmetrics import covering, f1_score  # noqa: E402

from graphmem.series.detect.segmenter import SegmenterConfig, segment_all  # noqa: E402
from graphmem.series.detect.synthetic import piecewise_gaussian  # noqa: E402

TCPD = Path(__file__).resolve().parent.parent / "tests" / "data" / "tcpd"
# The split. Defaults are chosen on TUNED only; HELD is looked at to report, never to choose.
TUNED_TCPD = ("quality_control_1", "quality_control_3", "quality_control_4", "quality_control_5")
HELD_TCPD = ("well_log", "quality_control_2")
TUNED_FAMILIES = (
    "steps",
    "variance",
    "trend",
    "trend_kink",
    "random_walk",
    "short",
    "outliers",
    "end_change",
    "growth",
    "saturation",  # round 6: held back until then
    "seasonal_break",  # round 6: held back until then
    "damped",  # round 7: held back until then
    "gompertz",  # round 7: held back until then
    "airline",  # round 8: held back until then
    "retail_promo",  # round 8: held back until then
    "load_shift",  # round 9: held back until then
    "tick_price",  # round 9: held back until then
    "vol_regime",  # round 10: held back until then
    "rare_events",  # round 10: held back until then
    "inventory_saw",  # round 10: held back until then
    "sensor_dropout",  # round 10: held back until then
    "tourism_shock",  # round 11: held back until then
    "availability",  # round 11: held back until then
    "cumulative_count",  # round 11: held back until then
    "carried_forward",  # round 11: held back until then
    "peg_break",  # round 12: held back until then
    "lab_qc",  # round 12: held back until then
    "interval_run",  # round 12: held back until then
    "river_stage",  # round 13: held back until then
    "small_share",  # round 13: held back until then
    "spot_price",  # round 13: held back until then
    "latency_p95",  # round 14: held back until then
    "battery_fade",  # round 14: held back until then
    "resting_hr",  # round 14: held back until then
    "water_meter",  # round 14: held back until then
    "solar_yield",  # round 14: held back until then
    "fuel_economy",  # round 14: held back until then
    "air_quality",  # round 15: held back until then
    "bed_occupancy",  # round 15: held back until then
    "vibration",  # round 15: held back until then
    "call_volume",  # round 16: held back until then
    "soil_moisture",  # round 16: held back until then
    "tide_gauge",  # round 16: held back until then
    "parcel_depot",  # round 17: held back until then
    "greenhouse_co2",  # round 17: held back until then
    "hotel_rate",  # round 17: held back until then
    "ev_charging",  # round 18: held back until then
    "pool_chlorine",  # round 18: held back until then
    "web_signups",  # round 18: held back until then
    "gas_meter",  # round 19: held back until then
    "bus_punctuality",  # round 19: held back until then
    "server_memory",  # round 19: held back until then
    "dairy_milk_yield",  # round 20: held back until then
    "ed_median_wait",  # round 20: held back until then
    "press_reject_rate",  # round 20: held back until then
)
HELD_FAMILIES = (
    "steps_heavy",
    "trend_shift",
    "random_walk_break",
    "counts",
    "seasonal",
    # round 6: written before the detector was changed for them
    "exp_break",
    "smooth_step",
    "seasonal_counts",
    # round 7: written blind before the detector was changed for them
    "sensor_recal",
    "traffic_cycle",
    "overdispersed_counts",
    # round 8: written blind before the detector was changed for them
    "share_shift",
    "ar1_steps",
    # written blind for round 20, scored with round 19's defaults first
    "cold_store_temperature",
    "library_daily_loans",
    "bridge_strain_gauge",
    # written blind for round 21, scored with round 20's defaults (merge_window=0) beside round 21's
    "beehive_weight",
    "ferry_passengers",
    "kiln_temperature",
    # written blind for round 22 (short yearly series, monthly seasons, daily prices), scored
    # with round 21's defaults beside round 22's
    "annual_national_statistic",
    "monthly_visitor_arrivals",
    "daily_exchange_rate",
)
TUNED_SEEDS = range(0, 25)
HELD_SEEDS = range(1000, 1025)  # the tuned families, other draws; and the held-back families
GOAL_F1, GOAL_COVER = 0.70, 0.65

Detector = Callable[[np.ndarray], list[int]]
Case = tuple[np.ndarray, dict[str, list[int]]]


def tcpd_series(name: str) -> Case:
    """A TCPD series with its annotations (every annotator)."""
    data = json.loads((TCPD / f"{name}.json").read_text())
    annotations = json.loads((TCPD / "annotations.json").read_text())[name]
    return np.asarray(data["series"][0]["raw"], dtype=np.float64), annotations


def family_cases(family: str, seeds: range) -> list[Case]:
    out = []
    for seed in seeds:
        sig = family_series(family, seed)
        out.append((np.array(sig.xs), {"truth": list(sig.changepoints)}))
    return out


def split_cases(held: bool) -> dict[str, list[Case]]:
    """Rows of one side of the split: TCPD series one by one, then synthetic families."""
    names = HELD_TCPD if held else TUNED_TCPD
    cases = {f"tcpd {name}": [tcpd_series(name)] for name in names}
    families = (*HELD_FAMILIES, *TUNED_FAMILIES) if held else TUNED_FAMILIES
    for family in families:
        cases[family] = family_cases(family, HELD_SEEDS if held else TUNED_SEEDS)
    return cases


def mean_scores(detect: Detector, cases: list[Case]) -> np.ndarray:
    """Mean (F1, covering) of a detector over cases."""
    rows = []
    for xs, truth in cases:
        pred = detect(xs)
        rows.append((f1_score(truth, pred, len(xs)), covering(truth, pred, len(xs))))
    return np.mean(rows, axis=0)


def _cell(score: np.ndarray | None) -> str:
    return "" if score is None else f"{score[0]:.3f} / {score[1]:.3f}"


def split_table(detectors: dict[str, Detector]) -> dict[str, dict[str, dict[str, np.ndarray]]]:
    """Print the tuned and held-back scores side by side; return them by side, row, detector."""
    sides = {"tuned": split_cases(False), "held-back": split_cases(True)}
    scores = {
        side: {row: {d: mean_scores(f, c) for d, f in detectors.items()} for row, c in rows.items()}
        for side, rows in sides.items()
    }
    names = list(detectors)
    head = "".join(f"{d:>16s}" for d in names)
    print(f"  {'':30s}{'tuned':^{16 * len(names)}s}  |{'held-back':^{16 * len(names)}s}")
    print(f"  {'family (series)':30s}{head}  |{head}")
    rows = list(dict.fromkeys([*scores["tuned"], *scores["held-back"]]))
    for row in rows:
        cells = []
        for side in sides:
            got = scores[side].get(row)
            cells.append("".join(f"{_cell(got and got[d]):>16s}" for d in names))
        n = [len(sides[s].get(row, [])) for s in sides]
        print(f"  {f'{row} ({n[0]}|{n[1]})':30s}{cells[0]}  |{cells[1]}")
    means = []
    for side in sides:
        means.append(
            "".join(
                f"{_cell(np.mean([s[d] for s in scores[side].values()], axis=0)):>16s}"
                for d in names
            )
        )
    print(f"  {'mean over rows':30s}{means[0]}  |{means[1]}")
    return scores


def goal_check(scores: dict[str, dict[str, np.ndarray]], ours: str) -> None:
    """Held-back goals: F1 and covering over the bar, and beating each baseline on every row."""
    mean = np.mean([s[ours] for s in scores.values()], axis=0)
    ok = mean[0] >= GOAL_F1 and mean[1] >= GOAL_COVER
    print(f"  held-back mean F1 {mean[0]:.3f} (goal >= {GOAL_F1}), covering {mean[1]:.3f} ", end="")
    print(f"(goal >= {GOAL_COVER}): {'met' if ok else 'NOT met'}")
    for base in (d for d in next(iter(scores.values())) if d != ours):
        lost = [
            row
            for row, s in scores.items()
            if not (s[ours][0] >= s[base][0] and s[ours][1] >= s[base][1])
        ]
        print(f"  rows where {base} is not beaten on both F1 and covering: {lost or 'none'}")


def oracle_changepoint(xs: np.ndarray, margin: int = 5, edge: int = 5) -> int:
    """Best single change in xs for a +-margin score: centre of the window of most likelihood.

    Gaussian, mean and variance unknown on each side (profile likelihood of each split).
    """
    n = len(xs)
    c1, c2 = np.cumsum(xs), np.cumsum(xs * xs)
    ks = np.arange(edge, n - edge + 1)

    def loglik(s1: np.ndarray, s2: np.ndarray, k: np.ndarray) -> np.ndarray:
        return -0.5 * k * np.log(np.maximum(s2 / k - (s1 / k) ** 2, 1e-300))

    lp = loglik(c1[ks - 1], c2[ks - 1], ks)
    lp += loglik(c1[-1] - c1[ks - 1], c2[-1] - c2[ks - 1], n - ks)
    mass = np.convolve(np.exp(lp - lp.max()), np.ones(2 * margin + 1), mode="same")
    return int(ks[np.argmax(mass)])


def oracle_f1(xs: np.ndarray, cps: list[int]) -> float:
    """F1 (margin 5) of an offline oracle told the true changes around each one: each change
    placed by oracle_changepoint between its true neighbours (how well these changes can be
    localised from the data at all)."""
    bounds = [0, *cps, len(xs)]
    pred = [
        lo + oracle_changepoint(xs[lo:hi]) for lo, hi in zip(bounds[:-2], bounds[2:], strict=True)
    ]
    return f1_score({"truth": cps}, pred, len(xs))


def piecewise_table(cfg: SegmenterConfig, seeds: int) -> None:
    families = {
        "mean 1-3 sd, std x2-4 at half": {},
        "small mean shifts 1-1.5 sd": {"mean_shift": (1.0, 1.5), "p_std_change": 0.0},
        "std changes x2-4 only": {"mean_shift": (0.0, 0.0), "p_std_change": 1.0},
    }
    print(
        f"Piecewise Gaussian, 10 segments of 100-400 points, {seeds} seeds (checked while tuning)"
    )
    print(f"  {'family':32s} {'F1':>6s} {'F1@10':>6s} {'F1@20':>6s} {'cover':>6s} {'oracle':>6s}")
    for name, kwargs in families.items():
        rows = []
        for seed in range(seeds):
            sig = piecewise_gaussian(seed, n_segments=10, **kwargs)
            xs, cps = np.array(sig.xs), sig.changepoints.tolist()
            pred = segment_all(xs, cfg)
            rows.append(
                [f1_score({"truth": cps}, pred, len(xs), margin=m) for m in (5, 10, 20)]
                + [covering({"truth": cps}, pred, len(xs)), oracle_f1(xs, cps)]
            )
        f5, f10, f20, cov, orc = np.mean(rows, axis=0)
        print(f"  {name:32s} {f5:6.3f} {f10:6.3f} {f20:6.3f} {cov:6.3f} {orc:6.3f}")
    print("  oracle: an offline estimator told where the neighbouring true changes are puts")
    print("  each change at the centre of its +-5 window of most likelihood (oracle_f1).")


def long_signal(n: int, seed: int = 0, **kwargs) -> tuple[np.ndarray, list[int]]:
    """A piecewise-Gaussian stream of n points (segments 100-400) with its changepoints."""
    sig = piecewise_gaussian(seed, n_segments=n // 100 + 2, **kwargs)
    cps = sig.changepoints[sig.changepoints < n].tolist()
    return np.array(sig.xs[:n]), cps


def long_stream(cfg: SegmenterConfig, n: int) -> None:
    xs, cps = long_signal(n, seed=12345)
    truth = {"truth": cps}
    t = time.perf_counter()
    pred = segment_all(xs, cfg)
    dt = time.perf_counter() - t
    f1, cov = f1_score(truth, pred, n), covering(truth, pred, n)
    print(f"Long stream: {n:,} points, {len(truth['truth'])} changes: F1 {f1:.3f}, cover {cov:.3f}")
    print(f"  ({n / dt:,.0f} points/s, segmenting only)")


def config_from(overrides: list[str]) -> SegmenterConfig:
    """SegmenterConfig() with key=value overrides (for trying settings on the tuned split)."""
    cfg = SegmenterConfig()
    for item in overrides:
        key, value = item.split("=", 1)
        kind = type(getattr(cfg, key))
        parsed = value.lower() in ("1", "true", "yes") if kind is bool else kind(value)
        cfg = dataclasses.replace(cfg, **{key: parsed})
    return cfg


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer seeds, no long stream")
    parser.add_argument("--set", nargs="*", default=[], help="override a setting: key=value")
    args = parser.parse_args()
    cfg = config_from(args.set)
    print(f"OnlineSegmenter settings: {cfg}\n")
    detectors = {
        "graphmem": lambda xs: segment_all(xs, cfg),
        "no cps": zero,
        "BOCPD (TCPDB.)": tcpdbench_bocpd,
    }
    print("F1 (margin 5) / covering; rows: TCPD series, then synthetic families")
    print("(graphmem.series.detect.synthetic); (n|n): series per row, tuned | held-back")
    scores = split_table(detectors)
    goal_check(scores["held-back"], "graphmem")
    print()
    piecewise_table(cfg, seeds=10 if args.quick else 30)
    if not args.quick:
        print()
        long_stream(cfg, 1_000_000)


if __name__ == "__main__":
    main()
