"""The change signal shared by the processes on one data dir (graphmem/vectors/changes.py), and
the indexes that use it to find another process's writes at once, reading nothing otherwise."""

from __future__ import annotations

import multiprocessing
import stat
from pathlib import Path
from typing import Any

from test_vectors import Q, ids, make_items, open_vs, write

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.series.catalog import delete_series
from graphmem.services import Services
from graphmem.spaces import data_dir_of, index_dir
from graphmem.store.base import Row, Store
from graphmem.timeline import TimelineMemory, add_events
from graphmem.vectors import VectorConfig, VectorStore
from graphmem.vectors.changes import FILE, SLOTS, ChangeSignal, slot_of
from graphmem.vectors.summaries import embed_all_summaries

BUMPS = 300  # per process in the concurrent test


def test_a_bump_in_one_mapping_is_read_in_another(tmp_path: Path) -> None:
    writer, reader = ChangeSignal(tmp_path), ChangeSignal(tmp_path)
    slot = slot_of("default/vectors/Proposition")
    assert slot == slot_of("default/vectors/Proposition") and 0 <= slot < SLOTS
    assert reader.read(slot) == 0
    assert writer.bump([slot]) == {slot: (0, 1)}
    assert reader.read(slot) == 1
    other = (slot + 1) % SLOTS
    assert reader.read(other) == 0  # the other counters stay where they were
    writer.bump_all()
    assert (reader.read(slot), reader.read(other)) == (2, 1)
    assert stat.S_IMODE((tmp_path / FILE).stat().st_mode) == 0o600
    writer.close(), reader.close()
    assert ChangeSignal(tmp_path).read(slot) == 2  # kept in the file


def _bump_many(data_dir: str, slot: int) -> None:
    signal = ChangeSignal(Path(data_dir))
    for _ in range(BUMPS):
        signal.bump([slot])


def test_bumps_from_processes_at_once_all_count(tmp_path: Path) -> None:
    slot = slot_of("s/keywords/Event")
    spawn = multiprocessing.get_context("spawn")
    workers = [spawn.Process(target=_bump_many, args=(str(tmp_path), slot)) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert [worker.exitcode for worker in workers] == [0, 0, 0]
    assert ChangeSignal(tmp_path).read(slot) == 3 * BUMPS


def test_the_signal_lives_in_the_data_dir_of_every_space(tmp_path: Path) -> None:
    for space in ("default", "team-a"):
        assert data_dir_of(index_dir(tmp_path, space), space) == tmp_path
    assert data_dir_of(tmp_path / "elsewhere", "team-a") == tmp_path / "elsewhere"


class CountingStore:
    """A store that counts the statements read through it (what a search costs), and keeps
    each one's name and rows."""

    def __init__(self, store: Store) -> None:
        self.inner, self.reads = store, 0
        self.log: list[tuple[str, list[Row]]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def read(self, name: Any, /, **params: Any) -> Any:
        return self._logged(name, self.inner.read(name, **params))

    def read_lists(self, name: Any, /, **params: Any) -> Any:
        return self._logged(name, self.inner.read_lists(name, **params))

    def _logged(self, name: Any, rows: list[Row]) -> list[Row]:
        self.reads += 1
        self.log.append((getattr(name, "name", name), rows))
        return rows

    def since(self, reads: int) -> dict[str, list[Row]]:
        """Statement name → rows of the statements read after the first `reads`."""
        return dict(self.log[reads:])


def test_another_process_add_is_found_at_once_and_no_change_costs_no_statement(
    store: Store, tmp_path: Path
) -> None:
    items = make_items(40, seed=21)
    write(store, items, slice(0, 20))
    counting = CountingStore(store)
    # the timed check alone would not look at the graph again for an hour
    serving = open_vs(counting, tmp_path, refresh_ms=3_600_000)  # type: ignore[arg-type]
    assert len(serving.search("Proposition", items.vecs[30], 40)) == 20
    before = counting.reads
    for _ in range(5):
        serving.search("Proposition", items.vecs[3], 5)
    assert counting.reads == before  # nothing changed: not a statement
    # "another worker": its own indexes on the same graph and data dir
    other = open_vs(store, tmp_path, refresh_ms=3_600_000)
    other.index("Proposition")
    write(store, items, slice(20, 40))
    other.add("Proposition", items.ids[20:], items.vids[20:], items.ts[20:], items.vecs[20:])
    assert ids(serving.search("Proposition", items.vecs[30], 1)) == [items.ids[30]]
    assert len(serving.search("Proposition", items.vecs[30], 40)) == 40
    caught_up = counting.reads
    serving.search("Proposition", items.vecs[30], 1)
    assert counting.reads == caught_up  # heard once, checked once
    # its own add is not taken for someone else's: no statement before the next search
    more = make_items(3, seed=22, prefix="own")
    write(store, more)
    serving.add("Proposition", more.ids, more.vids, more.ts, more.vecs)
    added = counting.reads
    assert ids(serving.search("Proposition", more.vecs[1], 1)) == [more.ids[1]]
    assert counting.reads == added
    # the other one hears it, and a removal the same way
    assert ids(other.search("Proposition", more.vecs[1], 1)) == [more.ids[1]]
    store.write(Q["vectors_test.delete_propositions"], ids=[items.ids[30]])
    other.remove("Proposition", [items.vids[30]])
    assert items.ids[30] not in ids(serving.search("Proposition", items.vecs[30], 43))


def test_deleting_a_space_in_one_process_empties_its_indexes_in_another(
    store: Store, tmp_path: Path
) -> None:
    space = store.in_space("doomed")
    items = make_items(10, seed=23)
    write(space, items)
    settings_dir = tmp_path  # one data dir, two "processes"
    serving = open_vs(space, index_dir(settings_dir, "doomed"), refresh_ms=3_600_000)
    assert len(serving.search("Proposition", items.vecs[0], 10)) == 10
    deleting = Services(Settings(home=settings_dir), store)
    assert deleting.delete_space("doomed") >= 10
    assert serving.search("Proposition", items.vecs[0], 10) == []


def test_a_catch_up_reads_only_what_another_process_created_and_still_sees_a_removal(
    store: Store, tmp_path: Path
) -> None:
    vecs = make_items(305, seed=31).vecs
    items = [{"text": f"event {i}", "date": "2024-03-01"} for i in range(305)]
    # "another worker" writes through the real ingestion path
    other = TimelineMemory(store, Embedder(), open_vs(store, tmp_path, refresh_ms=3_600_000))
    events = add_events(other, items[:300], vecs[:300])
    counting = CountingStore(store)
    serving = open_vs(counting, tmp_path, refresh_ms=3_600_000)  # type: ignore[arg-type]
    assert len(serving.search("Event", vecs[0], 400)) == 300
    before = counting.reads
    events += add_events(other, items[300:], vecs[300:])
    assert ids(serving.search("Event", vecs[302], 1)) == [events[302].id]
    read = counting.since(before)
    assert "vectors.vids_event" not in read and "vectors.vids_event_json" not in read
    assert sorted(row["id"] for row in read["vectors.added_event"]) == sorted(
        e.id for e in events[300:]
    )
    assert max(len(rows) for rows in read.values()) == 5  # no statement read the 300 others
    assert len(serving.search("Event", vecs[0], 400)) == 305
    # a removal moves the clock: the whole label is diffed, and the event is gone
    other.delete_event(events[302].id)
    before = counting.reads
    assert events[302].id not in ids(serving.search("Event", vecs[302], 400))
    assert len(serving.search("Event", vecs[0], 400)) == 304
    assert "vectors.added_event" not in counting.since(before)


def test_deleting_a_series_in_one_process_drops_its_segments_in_another_at_once(
    sales_store: tuple, tmp_path: Path
) -> None:
    store, series, _ = sales_store
    embedder = Embedder()
    config = VectorConfig(refresh_ms=3_600_000)
    writer = VectorStore(store, tmp_path, embedder.name, embedder.dim, config)
    serving = VectorStore(store, tmp_path, embedder.name, embedder.dim, config)
    embedded = embed_all_summaries(store, embedder, writer, "Segment")
    query = embedder.encode(["sales rose"])[0]
    assert len(serving.search("Segment", query, 1000)) == embedded > 0
    delete_series(store, series.id, data_dir=tmp_path)  # "another worker" deletes it
    assert serving.search("Segment", query, 1000) == []
    assert writer.search("Segment", query, 1000) == []  # its own indexes, the same way
