"""What a search pays to catch up with another process's write, at 10^4 (or --nodes) events.

Two VectorStores on one graph and data dir stand for two workers of `graphmem serve --workers
N`: "writer" adds --batch events through the real ingestion (graphmem.timeline.add_events,
synthetic 32-dim embeddings: the catch-up reads ids and vids, and fetches only the new vectors),
then "serving" searches, catching up first (graphmem/vectors/synced.py). Rounds alternate:
- incremental: what a catch-up does now, reading the events created since its last one
  (cypher/vectors.cypher added_*);
- full diff: the same catch-up with its watermark forgotten, so it diffs every (vid, id) pair
  of the label against the index, as every catch-up did before.
Printed: wall time of the search (catch-up included), the statements it read and the most rows
(pairs, for the diff) one of them returned.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import percentiles_ms, temp_store  # noqa: E402

from graphmem.embed import Embedder  # noqa: E402
from graphmem.store import Store  # noqa: E402
from graphmem.timeline import TimelineMemory, add_events  # noqa: E402
from graphmem.vectors import VectorConfig, VectorStore  # noqa: E402

DIM = 32
FILL_BATCH = 1_000  # the most one add_events takes


class Reads:
    """A store that records, per statement read through it, its name and how many items
    (rows, or (vid, id) pairs of a list column) it returned."""

    def __init__(self, store: Store) -> None:
        self.inner, self.log = store, []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def read(self, name: Any, /, **params: Any) -> Any:
        return self._logged(name, self.inner.read(name, **params))

    def read_lists(self, name: Any, /, **params: Any) -> Any:
        return self._logged(name, self.inner.read_lists(name, **params))

    def _logged(self, name: Any, rows: list[dict]) -> list[dict]:
        pairs = [len(rows[0]["pairs"])] if rows and "pairs" in rows[0] else []
        self.log.append((getattr(name, "name", name), max([len(rows), *pairs])))
        return rows


def events(start: int, n: int, rng: np.random.Generator) -> tuple[list[dict], np.ndarray]:
    items = [{"text": f"event {i}", "date": "2024-03-01"} for i in range(start, start + n)]
    return items, rng.standard_normal((n, DIM)).astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_000, help="events in the label")
    parser.add_argument("--batch", type=int, default=10, help="events per write")
    parser.add_argument("--rounds", type=int, default=20, help="writes per variant")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    config = VectorConfig(refresh_ms=3_600_000)  # only the change signal starts a catch-up
    with temp_store() as store, tempfile.TemporaryDirectory(prefix="gmb-") as home:
        writer = TimelineMemory(store, Embedder(), VectorStore(store, Path(home), "m", DIM, config))
        for start in range(0, args.nodes, FILL_BATCH):
            add_events(writer, *events(start, min(FILL_BATCH, args.nodes - start), rng))
        reads = Reads(store)
        serving = VectorStore(reads, Path(home), "m", DIM, config)  # type: ignore[arg-type]
        query = rng.standard_normal(DIM).astype(np.float32)
        serving.search("Event", query, 5)  # opened: the whole label read once
        times: dict[str, list[float]] = {"incremental": [], "full diff": []}
        shape: dict[str, tuple[int, int]] = {}
        written = args.nodes
        for round_ in range(2 * args.rounds):
            variant = "incremental" if round_ % 2 == 0 else "full diff"
            add_events(writer, *events(written, args.batch, rng))
            written += args.batch
            if variant == "full diff":
                serving._watermark.pop("Event", None)  # noqa: SLF001 - the old behaviour
            reads.log.clear()
            t = time.perf_counter()
            serving.search("Event", query, 5)
            times[variant].append(time.perf_counter() - t)
            shape[variant] = (len(reads.log), max(items for _, items in reads.log))
        assert len(serving.index("Event")) == written
        print(
            f"catch-up of {args.batch} new events in a label of ~{args.nodes:,}, "
            f"{args.rounds} rounds each, alternating:"
        )
        for variant, samples in times.items():
            statements, most = shape[variant]
            print(
                f"  {variant:11s} {percentiles_ms(samples)}  "
                f"{statements} statements, at most {most:,} items from one"
            )


if __name__ == "__main__":
    main()
