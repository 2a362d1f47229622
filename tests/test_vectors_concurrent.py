"""Vector indexes used by many threads: searches beside adds, removals, rebuilds and catch-ups."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from races import around
from test_vectors import DIM, Items, make_items, open_vs, write

from graphmem.store import Store
from graphmem.vectors import VectorConfig, VectorIndex
from graphmem.vectors.rwlock import ReadWriteLock

SEARCHERS = 4


def test_readers_share_the_lock_and_a_writer_has_it_alone() -> None:
    lock = ReadWriteLock()
    both_in = threading.Barrier(2, timeout=30)  # passes only if two readers hold it at once

    def reader() -> None:
        with lock.shared():
            both_in.wait()

    with ThreadPoolExecutor(2) as pool:
        for future in [pool.submit(reader), pool.submit(reader)]:
            future.result(timeout=30)

    events: list[str] = []
    writer_waiting = threading.Event()

    def writer() -> None:
        writer_waiting.set()
        with lock.exclusive():
            events.append("writer")

    def late_reader() -> None:
        with lock.shared():
            events.append("late reader")

    with ThreadPoolExecutor(3) as pool:
        with lock.shared():  # a first reader holds it while a writer asks
            first = pool.submit(writer)
            assert writer_waiting.wait(30)
            while not lock._writers_waiting:  # the writer is queued behind this reader
                threading.Event().wait(0.001)
            late = pool.submit(late_reader)  # arrives after the waiting writer
            assert not first.done() and not late.done()
        first.result(timeout=30)
        late.result(timeout=30)
    assert events == ["writer", "late reader"]  # a waiting writer goes before later readers


def checked_hits(items: Items, query_row: int, hits: list, k: int, as_of: int | None) -> None:
    """Every hit is an indexed item with its own id, time and exact score; none twice."""
    assert len(hits) <= k
    assert len({h.vid for h in hits}) == len(hits)
    position = {vid: i for i, vid in enumerate(items.vids)}
    for hit in hits:
        row = position[hit.vid]
        assert hit.node_id == items.ids[row]
        assert hit.ts == int(items.ts[row])
        assert hit.score == pytest.approx(float(items.vecs[query_row] @ items.vecs[row]), abs=1e-4)
        assert as_of is None or hit.ts <= as_of


@pytest.mark.parametrize("kind", ["hnsw", "ivf"])
def test_searches_beside_adds_removals_and_rebuilds_return_only_real_items(kind: str) -> None:
    items = make_items(1200, seed=21)
    # flat up to 200 items, then ANN: the adds cross the threshold (a rebuild), and removals
    # past compact_ratio rebuild it again, while the searches go on
    index = VectorIndex(
        "Proposition",
        DIM,
        "test-model",
        VectorConfig(flat_threshold=200, kind=kind, compact_ratio=0.2),
    )
    index.add(items.ids[:50], items.vids[:50], items.ts[:50], items.vecs[:50])
    writing = threading.Event()
    removed: list[int] = []

    def writer() -> None:
        try:
            for start in range(50, 1200, 50):
                rows = slice(start, start + 50)
                index.add(items.ids[rows], items.vids[rows], items.ts[rows], items.vecs[rows])
                gone = items.vids[start - 50 : start - 40]  # ten of the batch before
                assert index.remove(gone) == len(gone)
                removed.extend(gone)
        finally:
            writing.set()

    def searcher(seed: int) -> int:
        rng, searches = np.random.default_rng(seed), 0
        while not writing.is_set() or searches < 20:
            row = int(rng.integers(len(items.ids)))
            as_of = None if searches % 2 else int(items.ts[row])
            hits = index.search(items.vecs[row], 10, as_of_ts=as_of)
            checked_hits(items, row, hits, 10, as_of)
            searches += 1
        return searches

    with ThreadPoolExecutor(SEARCHERS + 1) as pool:
        searches = [pool.submit(searcher, seed) for seed in range(SEARCHERS)]
        pool.submit(writer).result(timeout=300)
        assert all(s.result(timeout=300) >= 20 for s in searches)

    assert index.vids() == set(items.vids) - set(removed)
    assert len(index) == len(items.ids) - len(removed)


def test_a_search_does_not_wait_for_a_catch_up_held_in_the_store(
    store: Store, tmp_path: Path
) -> None:
    items = make_items(40, seed=22)
    write(store, items, slice(0, 20))
    serving = open_vs(store, tmp_path, refresh_ms=0)  # every search checks the graph
    assert len(serving.search("Proposition", items.vecs[0], 40)) == 20
    write(store, items, slice(20, 40))  # another process's writes: the next check diffs
    entered, release = threading.Event(), threading.Event()
    around(
        store,
        "read_lists",
        "vectors.vids_proposition",
        before=lambda: (entered.set(), release.wait(60)),
    )
    with ThreadPoolExecutor(1) as pool:
        catching_up = pool.submit(serving.search, "Proposition", items.vecs[30], 1)
        assert entered.wait(60)
        # another search meanwhile: not held, it searches the index as it is
        assert len(serving.search("Proposition", items.vecs[0], 40)) == 20
        assert not catching_up.done()
        release.set()
        assert catching_up.result(timeout=60)[0].node_id == items.ids[30]
    assert len(serving.search("Proposition", items.vecs[0], 40)) == 40


def test_graph_writes_and_adds_beside_catch_ups_leave_every_node_indexed(
    store: Store, tmp_path: Path
) -> None:
    items = make_items(400, seed=23)
    serving = open_vs(store, tmp_path, refresh_ms=0)  # every search diffs against the graph
    serving.index("Proposition")
    done = threading.Event()

    def ingest(part: int) -> None:  # what an ingestion does: graph write, then index add
        for start in range(part * 100, part * 100 + 100, 20):
            rows = slice(start, start + 20)
            write(store, items, rows)
            serving.add(
                "Proposition", items.ids[rows], items.vids[rows], items.ts[rows], items.vecs[rows]
            )

    def search(seed: int) -> None:
        rng = np.random.default_rng(seed)
        while not done.is_set():
            row = int(rng.integers(len(items.ids)))
            checked_hits(items, row, serving.search("Proposition", items.vecs[row], 5), 5, None)

    with ThreadPoolExecutor(8) as pool:
        searches = [pool.submit(search, seed) for seed in range(SEARCHERS)]
        for writer in [pool.submit(ingest, part) for part in range(4)]:
            writer.result(timeout=300)
        done.set()
        for s in searches:
            s.result(timeout=300)
    serving.refresh("Proposition", force=True)
    assert serving.index("Proposition").vids() == set(items.vids)
