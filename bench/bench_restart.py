"""Restart time of an embedded store of 10^6 points and 10^5 propositions, with/without compaction.

Points go through the real ingestion (graphmem.series.detect.ingest.append, batches of 10,000).
Propositions, one document per batch and relation edges are written with the real ingestion
statement (props.write_batch, 256 propositions per batch as graphmem.props.ingest sends them)
but with synthetic embeddings and relations: embedding 10^5 texts with the real model takes
~12 minutes, and a restart depends on the graph's size and shape, not on what vectors mean.

Layouts, each restarted by opening the store (server start, load, schema check):
- uncompacted: the schema in the snapshot, every write since in the AOF's tail (redis's own
  rewrite is switched off while building, so nothing compacts behind our back);
- compacted: everything in the RDB snapshot, after the compaction graphmem starts at open;
- legacy (--legacy-props, smaller): as stores written before compaction existed, with the
  schema DDL at the head of the tail, so the replay runs without indexes.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import redis

sys.path.insert(0, str(Path(__file__).parent))

from bench_ingest import signal  # noqa: E402

from graphmem import embcodec  # noqa: E402
from graphmem.config import Settings  # noqa: E402
from graphmem.cypher import load_dir  # noqa: E402
from graphmem.props.model import make_proposition  # noqa: E402
from graphmem.series.catalog import create_series  # noqa: E402
from graphmem.series.detect.ingest import append  # noqa: E402
from graphmem.store import Store, embedded, open_store  # noqa: E402
from graphmem.store import server_process as proc  # noqa: E402
from graphmem.vectors import vector_id  # noqa: E402

Q = load_dir(Path(__file__).parent / "cypher")
PROP_BATCH = 256
POINT_BATCH = 10_000
KINDS = ("supports", "updates", "contradicts")


@contextlib.contextmanager
def compaction(schema: bool) -> Iterator[None]:
    """No compaction while building (`schema`: except the one after schema creation)."""
    original = embedded.EmbeddedServer.compact

    def only_schema(self: embedded.EmbeddedServer, force: bool = False) -> None:
        if force and schema:
            original(self, force=True)

    embedded.EmbeddedServer.compact = only_schema  # type: ignore[method-assign]
    try:
        yield
    finally:
        embedded.EmbeddedServer.compact = original  # type: ignore[method-assign]


def control(data_dir: Path) -> redis.Redis:
    return redis.Redis(unix_socket_path=str(data_dir / proc.SOCKET), decode_responses=True)


def aof_mb(data_dir: Path) -> tuple[float, float]:
    """(snapshot, tail) sizes of the append-only file in MB."""
    files = list((data_dir / proc.AOF_DIR).iterdir())
    base = sum(f.stat().st_size for f in files if ".base." in f.name)
    tail = sum(f.stat().st_size for f in files if ".incr." in f.name)
    return base / 1e6, tail / 1e6


def add_points(store: Store, n: int) -> None:
    ts, xs = signal(n)
    series = create_series(store, "restart-bench", unit="units")
    for lo in range(0, n, POINT_BATCH):
        append(store, series.id, ts[lo : lo + POINT_BATCH], xs[lo : lo + POINT_BATCH])


def add_propositions(store: Store, n: int, seed: int = 0) -> int:
    """n propositions in batches as the real ingestion writes them; how many relation edges."""
    rng = np.random.default_rng(seed)
    relations = 0
    for start in range(0, n, PROP_BATCH):
        idx = range(start, min(n, start + PROP_BATCH))
        props = [
            make_proposition(
                f"fact {i} about topic {i % 97} in region {i % 13}",
                f"{2010 + i % 15}-{1 + i % 12:02d}-{1 + i % 28:02d}",
            )
            for i in idx
        ]
        vecs = rng.standard_normal((len(props), 384)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        rows = [
            {
                "id": p.id,
                "text": p.text,
                "date": p.date,
                "ts": p.ts,
                "source": "bench",
                "vid": vector_id(p.id),
                "embedding": e,
            }
            for p, e in zip(props, embcodec.encode(vecs), strict=True)
        ]
        rels = [
            {
                "id": f"rel-{start}-{j}",
                "src": rows[j]["id"],
                "dst": rows[j - 1]["id"],
                "kind": KINDS[j % 3],
                "confidence": 0.8,
                "model": "synthetic",
            }
            for j in range(1, len(rows), 4)
        ]
        doc = {
            "id": f"doc-{start}",
            "date": rows[0]["date"],
            "ts": rows[0]["ts"],
            "source": "bench",
            "text": f"document {start}",
        }
        states = [{"doc": doc["id"], "prop": r["id"]} for r in rows]
        store.write(
            "props.write_batch",
            docs=[doc],
            props=rows,
            states=states,
            rels=rels,
            now=0,
            epoch="bench",
        )
        relations += len(rels)
    return relations


def census(store: Store) -> str:
    nodes = {r["label"]: r["n"] for r in store.read(Q["restart_bench.census"])}
    edges = store.read(Q["restart_bench.edge_count"])[0]["n"]
    return ", ".join(f"{n:,} {label}" for label, n in nodes.items()) + f"; {edges:,} edges"


def build(url: str, data_dir: Path, points: int, props: int, schema_in_snapshot: bool) -> str:
    t = time.perf_counter()
    with compaction(schema_in_snapshot):
        store = open_store(url, Settings())
        control(data_dir).config_set("auto-aof-rewrite-percentage", 0)
        if points:
            add_points(store, points)
        relations = add_propositions(store, props)
        held = census(store)
        store.close()
    print(
        f"built {points:,} points + {props:,} propositions ({relations:,} relations) "
        f"in {time.perf_counter() - t:.0f} s: {held}"
    )
    return held


def restart(url: str, data_dir: Path, label: str, expected: str) -> None:
    """Open the closed store (start, load, schema check); print the time; check its contents."""
    base, tail = aof_mb(data_dir)
    t = time.perf_counter()
    store = open_store(url, Settings(store_load_timeout=3600))
    elapsed = time.perf_counter() - t
    print(f"restart, {label}: {elapsed:.1f} s (AOF: snapshot {base:.0f} MB + tail {tail:.0f} MB)")
    held = census(store)
    assert held == expected, f"restarted store holds {held}, expected {expected}"
    t = time.perf_counter()
    while control(data_dir).info("persistence")["aof_rewrite_in_progress"]:
        time.sleep(0.05)
    base, tail = aof_mb(data_dir)
    print(
        f"  compaction started at open finished {time.perf_counter() - t:.1f} s after: "
        f"snapshot {base:.0f} MB + tail {tail:.1f} MB"
    )
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--props", type=int, default=100_000)
    parser.add_argument("--legacy-props", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gmb-") as tmp:
        data_dir = Path(tmp) / "db"
        url = f"falkordb+embedded://{data_dir}"
        held = build(url, data_dir, args.points, args.props, schema_in_snapshot=True)
        restart(url, data_dir, "uncompacted (every write in the tail)", held)
        restart(url, data_dir, "compacted", held)
    if args.legacy_props:
        with tempfile.TemporaryDirectory(prefix="gmb-") as tmp:
            data_dir = Path(tmp) / "db"
            url = f"falkordb+embedded://{data_dir}"
            held = build(url, data_dir, 0, args.legacy_props, schema_in_snapshot=False)
            restart(url, data_dir, "legacy layout (schema DDL in the tail)", held)
            restart(url, data_dir, "legacy store after its compaction", held)


if __name__ == "__main__":
    main()
