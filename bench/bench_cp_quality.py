"""Changepoint quality of OnlineSegmenter with default settings: synthetic signals and TCPD series.

Prints F1 (5-sample margin) and covering, TCPD rows beside the published TCPDBench scores.
"""

from __future__ import annotations

import argparse
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


def synthetic_table(cfg: SegmenterConfig, seeds: int) -> None:
    print(f"Synthetic, {seeds} seeds each (F1 at margin 5 / covering)")
    print(f"  {'family':34s} {'mean F1':>8s} {'min F1':>7s} {'cover':>6s}")
    for name, kwargs in FAMILIES.items():
        f1s, covers = [], []
        for seed in range(seeds):
            sig = piecewise_gaussian(seed, n_segments=10, **kwargs)
            f1, cov = score(np.array(sig.xs), {"truth": sig.changepoints.tolist()}, cfg)
            f1s.append(f1)
            covers.append(cov)
        print(f"  {name:34s} {np.mean(f1s):8.3f} {np.min(f1s):7.3f} {np.mean(covers):6.3f}")


def long_stream(cfg: SegmenterConfig, n: int) -> None:
    xs, cps = long_signal(n, seed=12345)
    t = time.perf_counter()
    f1, cov = score(xs, {"truth": cps}, cfg)
    dt = time.perf_counter() - t
    print(f"Long stream: {n} points, {len(cps)} changepoints (level and noise drift far from")
    print(f"  the warm-up): F1 {f1:.3f}  cover {cov:.3f}  ({n / dt:,.0f} points/s incl. scoring)")


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
