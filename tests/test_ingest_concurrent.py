"""Series batches sent by two writers at once: one lands, the other is told it is a duplicate."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from races import around

from graphmem.series.catalog import create_series
from graphmem.series.detect import ingest
from graphmem.series.detect.segments import time_bounds
from graphmem.store import Store

N = 50  # points per batch
T0 = 1_700_000_000.0


def batch(k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k-th batch of a series: N points a minute apart, after batch k - 1."""
    ts = T0 + 60.0 * (np.arange(N) + k * N)
    return ts, np.sin(ts / 3600.0) + k


def both(first: Callable[[], ingest.AppendResult], second: Callable[[], ingest.AppendResult]):
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(first), pool.submit(second)]
        return [f.result(timeout=60) for f in futures]


def assert_one_landed(results: list[ingest.AppendResult]) -> None:
    landed = [r for r in results if not r.duplicate]
    assert len(landed) == 1 and landed[0].accepted == N
    assert [(r.accepted, r.skipped, r.segments) for r in results if r.duplicate] == [(0, 0, [])]


def test_a_batch_landed_while_the_other_writer_prepared_it_is_a_duplicate(
    store: Store, writers: tuple[Store, Store]
) -> None:
    # both read the series state, then both write: the second write's guard fails
    series = create_series(store, "guarded")
    ts, xs = batch(0)
    meet = threading.Barrier(2, timeout=30)
    for connection in writers:
        around(connection, "write", "ingest.append", before=meet.wait)
    results = both(*[lambda c=c: ingest.append(c, series.id, ts, xs) for c in writers])
    assert_one_landed(results)
    assert time_bounds(store, series.id).n_points == N


def test_a_batch_landed_before_the_state_was_read_is_a_duplicate(
    store: Store, writers: tuple[Store, Store]
) -> None:
    # the late writer found no such batch, then reads a state that already holds it: its
    # points no longer come after the last stored one
    series = create_series(store, "ordered")
    ingest.append(store, series.id, *batch(0))
    ts, xs = batch(1)
    checked, landed = threading.Event(), threading.Event()
    early, late = writers
    around(early, "write", "ingest.append", before=lambda: checked.wait(30), after=landed.set)
    seen = iter([True])  # only the late writer's first look waits: its second must not

    def first_look() -> None:
        if next(seen, False):
            checked.set()
            landed.wait(30)

    around(late, "read", "ingest.batch_seen", after=first_look)
    results = both(
        lambda: ingest.append(early, series.id, ts, xs),
        lambda: ingest.append(late, series.id, ts, xs),
    )
    assert not results[0].duplicate and results[1].duplicate
    assert time_bounds(store, series.id).n_points == 2 * N


def test_the_same_batches_raced_by_two_writers_each_land_once(
    store: Store, writers: tuple[Store, Store]
) -> None:
    series = create_series(store, "raced")
    start = threading.Barrier(2, timeout=30)
    rounds = 20
    for k in range(rounds):
        ts, xs = batch(k)

        def send(connection: Store, ts: np.ndarray = ts, xs: np.ndarray = xs):
            start.wait()
            return ingest.append(connection, series.id, ts, xs)

        assert_one_landed(both(*[lambda c=c: send(c) for c in writers]))
    bounds = time_bounds(store, series.id)
    assert (bounds.n_points, bounds.end) == (rounds * N, batch(rounds - 1)[0][-1])
