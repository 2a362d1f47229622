"""OnlineBOCPD throughput and memory, and a comparison with two PyPI BOCPD packages.

Signal: graphmem.series.detect.synthetic.piecewise_gaussian (segments of 100-400 points, mean
shifts of 1-3 stds, std ratios 2-4 at half the changes). Changepoints of every detector are
derived the same way: its MAP run length per point (converted to r_t = points of the current
segment before x_t) is read back as a closed stream is (boundaries_from_run_lengths, defaults).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from bench_cp_quality import long_signal  # noqa: E402
from cpmetrics import f1_score  # noqa: E402

from graphmem.series.detect.bocpd import (  # noqa: E402
    DEFAULT_MAX_RUN_LENGTHS,
    DEFAULT_PROTECT_RECENT,
    DEFAULT_PRUNE_THRESHOLD,
    OnlineBOCPD,
    prior_from_warmup,
)
from graphmem.series.detect.segmenter import boundaries_from_run_lengths, segment_all  # noqa: E402

HAZARD = 250.0


def _mb(n_bytes: float) -> str:
    return f"{n_bytes / 1e6:8.2f} MB"


def batch_run(xs: np.ndarray) -> tuple[float, int, OnlineBOCPD]:
    """Points/s of one update_batch over xs, and the tracemalloc peak of a second, traced run."""
    det = OnlineBOCPD(HAZARD)
    t = time.perf_counter()
    det.update_batch(xs)
    rate = len(xs) / (time.perf_counter() - t)
    tracemalloc.start()
    OnlineBOCPD(HAZARD).update_batch(xs)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return rate, peak, det


def per_point_run(xs: np.ndarray) -> tuple[float, int]:
    """Points/s of update() once per point, and the tracemalloc peak over (a prefix of) the run."""
    det = OnlineBOCPD(HAZARD)
    update = det.update
    values = xs.tolist()
    t = time.perf_counter()
    for v in values:
        update(v)
    rate = len(values) / (time.perf_counter() - t)
    traced = OnlineBOCPD(HAZARD)
    prefix = values[:100_000]
    tracemalloc.start()
    for v in prefix:
        traced.update(v)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return rate, peak


def throughput(sizes: list[int]) -> None:
    OnlineBOCPD(HAZARD).update_batch(np.random.default_rng(0).normal(size=100))  # load the kernel
    print(
        f"OnlineBOCPD defaults (hazard 250, data-scaled prior, pruning {DEFAULT_PRUNE_THRESHOLD:g}"
        f" / {DEFAULT_PROTECT_RECENT} protected / {DEFAULT_MAX_RUN_LENGTHS})"
    )
    print(
        f"  {'T':>9s} {'batch pts/s':>13s} {'batch peak':>11s} {'1/call pts/s':>13s}"
        f" {'1/call peak':>11s} {'state JSON':>10s} {'kept':>5s} {'F1':>6s}"
    )
    for n in sizes:
        xs, cps = long_signal(n, seed=n)
        b_rate, b_peak, det = batch_run(xs)
        p_rate, p_peak = per_point_run(xs)
        state = len(json.dumps(det.state()))
        kept = len(det.run_length_posterior()[0])
        f1 = f1_score({"truth": cps}, segment_all(xs), n)
        print(
            f"  {n:9,d} {b_rate:13,.0f} {_mb(b_peak):>11s} {p_rate:13,.0f} {_mb(p_peak):>11s}"
            f" {state / 1e3:7.1f} kB {kept:5d} {f1:6.3f}"
        )
    print("  F1: segment_all on this piecewise-Gaussian signal, data the defaults were checked")
    print("  on while tuned (bench_cp_quality.py reports tuned and held-back quality).")
    print("  batch peak: tracemalloc peak of one update_batch, which is its own outputs")
    print("  (24 bytes per point: cp_prob, map_run_length, oldest_run_length); 1/call peak:")
    print("  over the first 100,000 single-point calls. The detector's own memory is fixed:")
    det = OnlineBOCPD(HAZARD)
    print(
        f"  a {det._hyp.nbytes / 1e3:.1f} kB workspace for max_run_lengths = {det.max_run_lengths}."
    )


def _ours_map(xs: np.ndarray, **kwargs) -> tuple[np.ndarray, float]:
    det = OnlineBOCPD(HAZARD, **kwargs)
    t = time.perf_counter()
    rl = det.update_batch(xs).map_run_length
    return rl, time.perf_counter() - t


def _bcd_map(xs: np.ndarray) -> tuple[np.ndarray, float]:
    """bayesian_changepoint_detection's exact online BOCPD (full (T+1)^2 matrix)."""
    from functools import partial

    import bayesian_changepoint_detection.online_changepoint_detection as oncd

    p = prior_from_warmup(xs[:32])
    lik = oncd.StudentT(alpha=p.alpha0, beta=p.beta0, kappa=p.kappa0, mu=p.mu0)
    t = time.perf_counter()
    r_matrix, _ = oncd.online_changepoint_detection(xs, partial(oncd.constant_hazard, HAZARD), lik)
    dt = time.perf_counter() - t
    # Column t+1 is the posterior after x_t; row j = points of the run including x_t.
    return np.argmax(r_matrix[:, 1:], axis=0) - 1, dt


def _bocd_map(xs: np.ndarray) -> tuple[np.ndarray, float]:
    """bocd's BayesianOnlineChangePointDetection, one update per point."""
    import bocd

    p = prior_from_warmup(xs[:32])
    det = bocd.BayesianOnlineChangePointDetection(
        bocd.ConstantHazard(HAZARD),
        bocd.StudentT(mu=p.mu0, kappa=p.kappa0, alpha=p.alpha0, beta=p.beta0),
    )
    out = np.empty(len(xs), dtype=np.int64)
    t = time.perf_counter()
    for i, x in enumerate(xs):
        det.update(x)
        out[i] = int(det.rt.max()) - 1  # rt counts x_t itself; max() breaks ties
    return out, time.perf_counter() - t


def comparison(n: int) -> None:
    xs, cps = long_signal(n, seed=2024)
    truth = {"truth": cps}
    print(f"Comparison on {n:,d} points, {len(cps)} changepoints, same hazard (250) and prior")
    print("  (prior_from_warmup of the first 32 points); changepoints from each MAP run length")
    print(
        "  read back as a close reads the most probable segmentation (boundaries_from_run_lengths)."
    )
    ours_rl, ours_dt = _ours_map(xs)
    exact_rl, exact_dt = _ours_map(
        xs,
        prior=prior_from_warmup(xs[:32]),
        prune_threshold=0.0,
        max_run_lengths=n,
        track_level=False,
    )
    rows = [
        ("OnlineBOCPD (defaults)", ours_rl, ours_dt),
        ("OnlineBOCPD exact (no pruning, fixed prior)", exact_rl, exact_dt),
    ]
    for name, fn in (
        ("bayesian-changepoint-detection 0.2.dev1", _bcd_map),
        ("bocd 0.1.2", _bocd_map),
    ):
        try:
            rl, dt = fn(xs)
        except Exception as exc:  # noqa: BLE001 - report and carry on
            print(f"  {name}: unavailable ({type(exc).__name__}: {exc})")
            continue
        rows.append((name, rl, dt))
    print(f"  {'detector':45s} {'pts/s':>11s} {'defaults':>11s} {'F1':>6s} {'MAP = exact':>11s}")
    print(f"  {'':45s} {'':>11s} {'x faster':>11s}")
    for name, rl, dt in rows:
        f1 = f1_score(truth, boundaries_from_run_lengths(rl), n)
        agree = float(np.mean(rl == exact_rl))
        print(f"  {name:45s} {n / dt:11,.0f} {dt / ours_dt:10.1f}x {f1:6.3f} {agree:11.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    args = parser.parse_args()
    throughput([10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000])
    print()
    comparison(2_000 if args.quick else 10_000)


if __name__ == "__main__":
    main()
