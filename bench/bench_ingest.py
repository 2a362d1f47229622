"""End-to-end series ingestion (detector + graph writes) on the embedded store."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import temp_store  # noqa: E402

from graphmem.series.catalog import create_series  # noqa: E402
from graphmem.series.detect.ingest import append  # noqa: E402
from graphmem.series.detect.segments import time_bounds  # noqa: E402
from graphmem.series.detect.synthetic import piecewise_gaussian  # noqa: E402


def signal(n: int) -> tuple[np.ndarray, np.ndarray]:
    """A piecewise-Gaussian signal of n points at one-minute spacing."""
    parts, seed = [], 0
    while sum(len(p) for p in parts) < n:
        parts.append(piecewise_gaussian(seed=seed, n_segments=50, base_mean=100.0).xs)
        seed += 1
    xs = np.concatenate(parts)[:n]
    ts = 1_600_000_000 + 60.0 * np.arange(n)
    return ts, xs


def run(n: int, batch: int) -> None:
    ts, xs = signal(n)
    with temp_store() as store:
        series = create_series(store, "bench", unit="units")
        t = time.perf_counter()
        for lo in range(0, n, batch):
            append(store, series.id, ts[lo : lo + batch], xs[lo : lo + batch])
        elapsed = time.perf_counter() - t
        bounds = time_bounds(store, series.id)
    print(
        f"{n:>9,} points in batches of {batch:>6,}: {n / elapsed:>9,.0f} points/s "
        f"({elapsed:.1f} s, {bounds.n_segments} segments)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--batches", type=int, nargs="+", default=[10_000, 1_000])
    args = parser.parse_args()
    for batch in args.batches:
        run(args.n, batch)


if __name__ == "__main__":
    main()
