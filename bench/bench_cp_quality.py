"""Changepoint quality of OnlineSegmenter with default settings: synthetic signals and TCPD series.

Prints F1 (5-sample margin) and covering, TCPD rows beside the published TCPDBench scores.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path

import numpy as np

from graphmem.series.cpmetrics import covering, f1_score
from graphmem.series.segmenter import SegmenterConfig, segment_all
from graphmem.series.synthetic import piecewise_gaussian

TCPD = Path(__file__).resolve().parent.parent / "tests" / "data" / "tcpd"
TCPD_SERIES = ["well_log"] + [f"quality_control_{i}" for i in range(1, 6)]
# From tests/data/tcpd/README.md (TCPDBench, default settings): (F1, cover).
PUBLISHED = {
    "well_log": {"bocpd": (0.796, 0.776), "binseg": (0.534, 0.695), "zero": (0.237, 0.225)},
    "quality_control_1": {
        "bocpd": (0.800, 0.887),
        "binseg": (1.000, 0.992),
        "zero": (0.667, 0.503),
    },
    "quality_control_2": {
        "bocpd": (1.000, 0.927),
        "binseg": (1.000, 0.922),
        "zero": (0.750, 0.638),
    },
    "quality_control_3": {
        "bocpd": (1.000, 0.997),
        "binseg": (1.000, 0.996),
        "zero": (0.667, 0.500),
    },
    "quality_control_4": {
        "bocpd": (0.658, 0.511),
        "binseg": (0.873, 0.518),
        "zero": (0.780, 0.673),
    },
    "quality_control_5": {
        "bocpd": (1.000, 1.000),
        "binseg": (1.000, 1.000),
        "zero": (1.000, 1.000),
    },
}
# Synthetic families (graphmem.series.synthetic.piecewise_gaussian, 10 segments of 100-400 points).
FAMILIES = {
    "mean 1-3 sd, std x2-4 at half": {},
    "small mean shifts 1-1.5 sd": {"mean_shift": (1.0, 1.5), "p_std_change": 0.0},
    "std changes x2-4 only": {"mean_shift": (0.0, 0.0), "p_std_change": 1.0},
}


def long_signal(n: int, seed: int = 0, **kwargs) -> tuple[np.ndarray, list[int]]:
    """A piecewise-Gaussian stream of n points (segments 100-400) with its changepoints."""
    sig = piecewise_gaussian(seed, n_segments=n // 100 + 2, **kwargs)
    cps = sig.changepoints[sig.changepoints < n].tolist()
    return np.array(sig.xs[:n]), cps


def score(xs: np.ndarray, truth: dict[str, list[int]], cfg: SegmenterConfig) -> tuple[float, float]:
    """F1 and covering of the default segmenter's boundaries."""
    pred = segment_all(xs, cfg)
    return f1_score(truth, pred, len(xs)), covering(truth, pred, len(xs))


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
    """F1 (margin 5) of an offline oracle told the true changes around each one.

    Each change is placed by oracle_changepoint within the span between its true neighbours:
    a yardstick for how well these changes can be localised from the data at all.
    """
    bounds = [0, *cps, len(xs)]
    pred = [
        lo + oracle_changepoint(xs[lo:hi]) for lo, hi in zip(bounds[:-2], bounds[2:], strict=True)
    ]
    return f1_score({"truth": cps}, pred, len(xs))


def synthetic_table(cfg: SegmenterConfig, seeds: int) -> None:
    print(f"Synthetic, {seeds} seeds each (F1 at margin 5 unless noted / covering)")
    print(
        f"  {'family':34s} {'mean F1':>8s} {'min F1':>7s} {'cover':>6s} {'F1@10':>6s}"
        f" {'F1@20':>6s} {'oracle':>6s}"
    )
    for name, kwargs in FAMILIES.items():
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
        low = np.min([r[0] for r in rows])
        print(f"  {name:34s} {f5:8.3f} {low:7.3f} {cov:6.3f} {f10:6.3f} {f20:6.3f} {orc:6.3f}")
    print("  oracle: an offline estimator, told where the neighbouring true changes are, puts")
    print("  each change at the centre of its +-5 window of most likelihood (oracle_f1).")


def long_stream(cfg: SegmenterConfig, n: int) -> None:
    xs, cps = long_signal(n, seed=12345)
    t = time.perf_counter()
    f1, cov = score(xs, {"truth": cps}, cfg)
    dt = time.perf_counter() - t
    print(f"Long stream: {n} points, {len(cps)} changepoints (level and noise drift far from")
    print(f"  the warm-up): F1 {f1:.3f}  cover {cov:.3f}  ({n / dt:,.0f} points/s incl. scoring)")
    f1, cov = score(xs, {"truth": cps}, dataclasses.replace(cfg, track_level=False))
    print(f"  without level tracking (plain BOCPD model): F1 {f1:.3f}  cover {cov:.3f}")


def tcpd_table(cfg: SegmenterConfig) -> None:
    annotations = json.loads((TCPD / "annotations.json").read_text())
    print("TCPD series (F1 / cover); published TCPDBench columns from tests/data/tcpd/README.md")
    head = f"  {'series':18s} {'ours':>13s} {'BOCPD':>13s} {'binseg':>13s} {'zero':>13s}  found"
    print(head)
    rows = {"ours": [], "bocpd": [], "binseg": [], "zero": []}
    for name in TCPD_SERIES:
        data = json.loads((TCPD / f"{name}.json").read_text())
        xs = np.asarray(data["series"][0]["raw"], dtype=np.float64)
        pred = segment_all(xs, cfg)
        ours = (
            f1_score(annotations[name], pred, len(xs)),
            covering(annotations[name], pred, len(xs)),
        )
        rows["ours"].append(ours)
        cells = [f"{ours[0]:.3f} / {ours[1]:.3f}"]
        for key in ("bocpd", "binseg", "zero"):
            pub = PUBLISHED[name][key]
            rows[key].append(pub)
            cells.append(f"{pub[0]:.3f} / {pub[1]:.3f}")
        print(f"  {name:18s} " + " ".join(f"{c:>13s}" for c in cells) + f"  {pred}")
    means = [np.mean(rows[k], axis=0) for k in ("ours", "bocpd", "binseg", "zero")]
    print(f"  {'mean':18s} " + " ".join(f"{m[0]:.3f} / {m[1]:.3f}".rjust(13) for m in means))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer seeds, shorter stream")
    args = parser.parse_args()
    cfg = SegmenterConfig()
    print(f"OnlineSegmenter defaults: {cfg}\n")
    synthetic_table(cfg, seeds=5 if args.quick else 30)
    print()
    long_stream(cfg, n=20_000 if args.quick else 1_000_000)
    print()
    tcpd_table(cfg)


if __name__ == "__main__":
    main()
