"""Meta-segment benchmark: build times (cache miss / hit), get_meta_features, agent tokens."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import percentiles_ms, temp_store, timed  # noqa: E402

from graphmem.agent import SYSTEM, describe_series  # noqa: E402
from graphmem.series.catalog import create_series  # noqa: E402
from graphmem.series.ingest import ingest_all  # noqa: E402
from graphmem.series.meta import get_meta  # noqa: E402
from graphmem.series.metabuild import build_by_range  # noqa: E402
from graphmem.series.synthetic import piecewise_gaussian, sales_series  # noqa: E402
from graphmem.series.tools import run_tool, tool_schemas  # noqa: E402
from graphmem.store import Store  # noqa: E402
from graphmem.tokens import estimate_tokens  # noqa: E402

FREQS = ("year", "month", "week")


def builds(store: Store, series_id: str, repeat: int) -> None:
    for freq in FREQS:
        misses, count = [], 0
        for _ in range(repeat):
            store.write("meta.clear", series_id=series_id)
            t = time.perf_counter()
            count = len(build_by_range(store, series_id, 0, 4e9, freq))
            misses.append(time.perf_counter() - t)
        hits = timed(lambda f=freq: build_by_range(store, series_id, 0, 4e9, f), repeat)
        print(f"  build all {count:>5} {freq:<5} meta-segments: miss {percentiles_ms(misses)} | "
              f"hit {percentiles_ms(hits)}")  # fmt: skip


def features(store: Store, series_id: str, repeat: int) -> None:
    ids = [m.id for m in build_by_range(store, series_id, 0, 4e9, "month")]
    it = iter(np.resize(ids, repeat))
    direct = timed(lambda: get_meta(store, str(next(it))), repeat)
    it = iter(np.resize(ids, repeat))
    tool = timed(
        lambda: run_tool(store, "get_meta_features", {"meta_segment_id": str(next(it))}), repeat
    )
    print(f"  get_meta_features: read {percentiles_ms(direct)} | as a tool call, with its "
          f"ToolCall node written {percentiles_ms(tool)}")  # fmt: skip


def tokens(store: Store, series_id: str, ts: np.ndarray, xs: np.ndarray) -> None:
    """Tokens of the paper's yearly-trend trace against the raw series as CSV."""
    seen = [SYSTEM.format(series=describe_series(store, series_id)),
            "How did the yearly trend change?", json.dumps(tool_schemas())]  # fmt: skip
    bounds = json.loads(run_tool(store, "time_bounds", {"series": series_id}).content)
    seen.append(json.dumps(bounds))
    args = {"series": series_id, "start": bounds["start"], "end": bounds["end"], "freq": "year"}
    years = run_tool(store, "create_meta_segment_by_datetime_range", args).content
    seen.append(years)
    for year in json.loads(years)[-3:]:
        seen.append(run_tool(store, "get_meta_features", {"meta_segment_id": year["id"]}).content)
    agent = sum(estimate_tokens(s) for s in seen)
    without_schemas = agent - estimate_tokens(seen[2])
    raw = estimate_tokens("timestamp,value\n" + "".join(
        f"{np.datetime64(int(t), 's').astype('datetime64[D]')},{x:.2f}\n"
        for t, x in zip(ts, xs, strict=True)
    ))  # fmt: skip
    print(f"  yearly-trend task: agent sees ~{agent:,} tokens ({without_schemas:,} without the "
          f"tool schemas) vs ~{raw:,} for the raw series as CSV: {100 * agent / raw:.2f} % "
          f"({100 * without_schemas / raw:.2f} %)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--big", type=int, default=1_000_000, help="points of the large series")
    args = parser.parse_args()
    with temp_store() as store:
        data = sales_series(seed=0)
        series = create_series(store, data.name, data.unit)
        ingest_all(store, series.id, data.ts, data.xs)
        print(f"11-year daily sales series ({len(data.ts)} points):")
        builds(store, series.id, args.repeat)
        features(store, series.id, args.repeat * 10)
        tokens(store, series.id, data.ts, data.xs)

        parts, seed = [], 0
        while sum(map(len, parts)) < args.big:
            parts.append(piecewise_gaussian(seed=seed, n_segments=50, base_mean=100.0).xs)
            seed += 1
        xs = np.concatenate(parts)[: args.big]
        ts = 1_000_000_000 + 900.0 * np.arange(args.big)  # 15-minute spacing, ~28 years
        big = create_series(store, "big", unit="units")
        t = time.perf_counter()
        ingest_all(store, big.id, ts, xs)
        print(f"\n{args.big:,}-point series (15-minute spacing, ingested in "
              f"{time.perf_counter() - t:.0f} s):")  # fmt: skip
        builds(store, big.id, max(3, args.repeat // 5))
        features(store, big.id, args.repeat * 10)
        tokens(store, big.id, ts, xs)


if __name__ == "__main__":
    main()
