"""Indexes derived from the graph, one per label, kept in step with it across processes.

The FAISS indexes (graphmem/vectors/store.py) and the keyword indexes
(graphmem/vectors/keywords.py) are caches of what embedded nodes carry in the graph. Both are
opened lazily (loaded from disk, else rebuilt from the graph, then checked against it) and
caught up the same way, written once here:

Freshness across processes. Another process (say `graphmem ingest-docs` beside a running
`graphmem serve`, or another worker of `graphmem serve --workers N`) writes to the same graph
and its own copy of an index. A process that changed a label bumps its counter in the data
dir's change signal (graphmem/vectors/changes.py) after the graph write and before it answers;
a search whose counter moved catches up at once (waiting for a catch-up under way), so a write
acknowledged by one process is found by the next search in any other on the host. Without a
move, and for writers the signal does not reach (other hosts), before a search, at
most every `refresh_ms`, the index compares a cheap signature of the label in the graph (its
embedded-node count, constant time for propositions and events, and the revision of the
label's vector clock, which deleting propositions or events, and re-embedding segments and
meta-segments in place when their summary changes, moves) with the value it last synced to,
counting its own adds and removes. On a change to propositions or events that only added
nodes (the count grew, the clock did not move), it reads the nodes created since its last
catch-up (their creation `seq`, cypher/vectors.cypher added_*) and fetches them; if the index
then holds as many items as the graph counts it is done. Otherwise (opening, a removal, a
re-embedding, a count that does not match, segments and meta-segments) it diffs the graph's
(vid, id) pairs against the index, fetches what is missing (about 0.2 s at 10^5 items) and
lets the subclass replace what changed in place. An add that fails after the graph write
marks the label stale, so the next search repairs it at once. Searches never wait for a
catch-up: a thread that finds another one catching a label up searches the index as it is.
Saving first catches up, then, under a file lock, never replaces a saved index whose
watermark (the wall time at which it was last known to match the graph) is newer.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, Self, TypeVar

import numpy as np

from graphmem.cypher import statement
from graphmem.errors import GraphmemError, InvalidInput
from graphmem.files import file_lock
from graphmem.kinds import kind_of, labels
from graphmem.spaces import data_dir_of
from graphmem.store.base import Row, Store
from graphmem.vectors.changes import ChangeSignal, change_key, slot_of
from graphmem.vectors.model import Clock, DamagedIndexFile, VectorIndexError

# statement names, resolved at import so that a missing one fails at once
_VIDS = {lbl: statement(f"vectors.vids_{kind_of(lbl).key}").name for lbl in labels("vectors")}
_COUNT = {lbl: statement(f"vectors.count_{kind_of(lbl).key}") for lbl in labels("vectors")}
# the clock of kinds whose count is read on its own (see cypher/vectors.cypher), the
# store-wide marks that spare reading that count again while no space changed, and the nodes
# created since a clock seq (the incremental catch-up)
_CLOCK, _TOTAL, _REVS, _ADDED = (
    {
        lbl: statement(f"vectors.{name}_{kind_of(lbl).key}")
        for lbl in labels("vectors")
        if not kind_of(lbl).reembedded
    }
    for name in ("clock", "total", "revs", "added")
)


class DerivedIndex(Protocol):
    """What SyncedIndexes needs of one label's index."""

    dirty: bool
    synced: Clock  # a loaded index: the vector clock it was saved at

    def __len__(self) -> int: ...

    def __contains__(self, vid: object) -> bool: ...

    def vids(self) -> set[int]: ...

    def remove(self, vids: Sequence[int] | np.ndarray) -> int: ...


I = TypeVar("I", bound=DerivedIndex)  # noqa: E741 - the index type


@dataclass(frozen=True)
class Signature:
    """What tells whether the graph changed under an index: embedded nodes, vector clock."""

    count: int
    clock: Clock
    # the clock's creation count (kinds not re-embedded): what an incremental catch-up starts
    # from. Not compared: this process's own adds move it without changing what it holds.
    seq: int = field(default=0, compare=False)


@dataclass(frozen=True)
class OpenReport:
    """How an index was opened: loaded from disk or rebuilt, and what the graph check repaired."""

    label: str
    loaded: bool
    reason: str | None  # why the saved index was not used
    added: int  # embedded nodes found in the graph but not in the index
    removed: int  # index items whose node is gone from the graph


class SyncedIndexes(Generic[I]):
    """Per-label indexes opened lazily and checked against the graph; subclasses say how to
    load, create, fill and save one label's index."""

    what = "index"  # names the index in log messages

    def __init__(
        self, store: Store, directory: Path, known: tuple[str, ...], refresh_ms: int
    ) -> None:
        self.store = store
        self.directory = directory
        self.refresh_ms = refresh_ms
        self._known = known
        self._indexes: dict[str, I] = {}
        self._reports: dict[str, OpenReport] = {}
        # Per label, so a slow open of one label does not block the others. `_opening`: one
        # thread opens the index (the others need it, so they wait). `_syncing`: one thread
        # diffs the index against the graph or saves it; searches do not wait for it, they
        # search the index as it is. `_books` guards the bookkeeping below and is never held
        # across a store or disk wait.
        self._opening = {label: threading.Lock() for label in known}
        self._syncing = {label: threading.Lock() for label in known}
        self._books = threading.Lock()
        self._seen: dict[str, Signature] = {}  # graph signature the index was last synced to
        self._watermark: dict[str, int] = {}  # seq of the clock the index was last synced to
        self._marks: dict[str, tuple[Any, ...]] = {}  # store-wide marks of the last count
        self._checked: dict[str, float] = {}  # monotonic time of the last signature read
        self._synced_at: dict[str, float] = {}  # wall time the index last matched the graph
        self._stale: set[str] = set()  # labels whose index add failed after a graph write
        self._log = logging.getLogger(type(self).__module__)  # the subclass's module logs
        self._signal = self._open_signal()
        self._slots = {lbl: slot_of(change_key(store.space, directory.name, lbl)) for lbl in known}
        self._heard: dict[str, int] = {}  # the signal's counter the index last caught up at

    def _open_signal(self) -> ChangeSignal | None:
        """The data dir's change signal; None (the timed check alone) if it cannot be opened."""
        try:
            return ChangeSignal(data_dir_of(self.directory.parent, self.store.space))
        except OSError as error:
            self._log.warning(
                "no change signal for the %s in %s, other processes' writes are seen within "
                "GRAPHMEM_VECTOR_REFRESH_MS: %s",
                self.what,
                self.directory,
                error,
            )
            return None

    def _counter(self, label: str) -> int | None:
        """The label's counter in the change signal now (None: no signal)."""
        return None if self._signal is None else self._signal.read(self._slots[label])

    def _moved(self, label: str) -> bool:
        """Whether a process changed `label` since the index last caught up with the graph."""
        counter = self._counter(label)
        return counter is not None and counter != self._heard.get(label)

    def _bump(self, label: str) -> tuple[int, int] | None:
        """Tell the other processes `label` changed in the graph; (before, after) or None."""
        if self._signal is None:
            return None
        slot = self._slots[label]
        try:
            return self._signal.bump([slot])[slot]
        except OSError as error:  # the graph holds the write: the timed check still finds it
            self._log.warning("could not signal a change of %s: %s", label, error)
            return None

    # --- what a subclass provides ----------------------------------------------------------

    def _load(self, label: str) -> I:
        """The saved index of `label`; VectorIndexError says why it cannot be used."""
        raise NotImplementedError

    def _empty(self, label: str) -> I:
        raise NotImplementedError

    def _add_from_graph(self, label: str, index: I, node_ids: list[str]) -> int:
        """Fetch these nodes from the graph and index them; how many were added."""
        raise NotImplementedError

    def _write(self, label: str, index: I, synced_at: float | None, clock: Clock) -> None:
        """Save `index` (the file lock is held)."""
        raise NotImplementedError

    def _saved_watermark(self, label: str) -> float | None:
        raise NotImplementedError

    def _caught_up(self, label: str, index: I, held: Clock, now: Clock, fresh: list[str]) -> None:
        """Replace what was changed in place in the graph since the clock `held`.

        `fresh`: nodes just fetched, current already. Nothing by default.
        """

    # --- opening and freshness -------------------------------------------------------------

    def index(self, label: str) -> I:
        """The index of `label`, opened (loaded or rebuilt, then checked) on first use."""
        if label not in self._known:
            raise InvalidInput("label", f"must be one of {', '.join(self._known)}")
        index = self._indexes.get(label)
        if index is not None:
            return index
        with self._opening[label]:
            if label not in self._indexes:
                self._indexes[label] = self._open(label)
            return self._indexes[label]

    def sizes(self) -> dict[str, int]:
        """Items in each opened index; takes no lock, so a scrape never waits for a rebuild."""
        return {label: len(index) for label, index in list(self._indexes.items())}

    def report(self, label: str) -> OpenReport | None:
        """How `label`'s index was opened, or None if it has not been opened."""
        return self._reports.get(label)

    def _open(self, label: str) -> I:
        # the signature is read before the graph is: a write in between is caught next time
        wall, self._checked[label] = time.time(), time.monotonic()
        heard = self._counter(label)  # read before the graph, as the signature is
        self._seen[label] = self._signature(label)
        try:
            # shared: a save by another process cannot replace a file mid-read
            with file_lock(self.directory, shared=True):
                index = self._load(label)
            loaded, reason = True, None
        except VectorIndexError as error:
            index = self._empty(label)
            loaded, reason = False, str(error)
            # a missing or outdated index is routine; a damaged file is worth a look
            level = logging.WARNING if isinstance(error, DamagedIndexFile) else logging.INFO
            self._log.log(
                level, "rebuilding the %s %s from the graph: %s", label, self.what, reason
            )
        added, removed, new_ids = self._sync(label, index)
        if loaded:  # changed in place while it lay on disk
            self._caught_up(label, index, index.synced, self._seen[label].clock, new_ids)
        self._synced_at[label] = wall
        self._watermark[label] = self._seen[label].seq
        if heard is not None:
            self._heard[label] = heard
        self._reports[label] = OpenReport(label, loaded, reason, added, removed)
        if not loaded:
            # a rebuild is costly: do not repeat it after a crash
            self._save_unless_newer(label, index)
        return index

    def rebuild(self, label: str) -> int:
        """Build `label`'s index anew from the graph, put it in place of the one in use and save
        it; its size. After the label's vectors were re-embedded: nothing of the old index stays
        (an IVF index is trained again on the new vectors)."""
        if label not in self._known:
            raise InvalidInput("label", f"must be one of {', '.join(self._known)}")
        with self._opening[label], self._syncing[label]:
            wall = time.time()
            heard = self._counter(label)
            signature = self._signature(label)  # read before the graph, as in _open
            index = self._empty(label)
            self._sync(label, index)
            with self._books:
                self._indexes[label] = index
                self._seen[label], self._synced_at[label] = signature, wall
                self._watermark[label] = signature.seq
                self._stale.discard(label)
                if heard is not None:
                    self._heard[label] = heard
        self._bump(label)  # the vectors changed in place: other processes replace theirs
        self._save_unless_newer(label, index)
        return len(index)

    def _signature(self, label: str) -> Signature:
        """The graph's embedded-node count of `label` (in the store's space) and its clock."""
        # the clock before the count: every node of a seq up to the one read is counted
        clock = self.store.read(_CLOCK[label]) if label in _CLOCK else []
        rows = self._space_count(label)
        row = {**(rows[0] if rows else {"n": 0}), **(clock[0] if clock else {})}
        return Signature(
            int(row["n"]),
            Clock(int(row.get("rev") or 0), str(row.get("epoch") or "")),
            int(row.get("seq") or 0),
        )

    def _space_count(self, label: str) -> list[Row]:
        """The count_* rows of `label`; the last count again while the store-wide marks
        (cypher/vectors.cypher total_*, revs_*) have not moved since it was read."""
        if label not in _TOTAL:
            return self.store.read(_COUNT[label])
        total, revs = self.store.read(_TOTAL[label]), self.store.read(_REVS[label])
        mark = (total[0]["n"] if total else 0, *(revs[0].values() if revs else ()))
        with self._books:
            seen = self._seen.get(label)
            if seen is not None and self._marks.get(label) == mark and label not in self._stale:
                return [{"n": seen.count}]
        rows = self.store.read(_COUNT[label])
        with self._books:
            self._marks[label] = mark
        return rows

    def refresh(self, label: str, force: bool = False) -> tuple[int, int]:
        """Catch `label`'s index up with writes by other processes; (added, removed).

        Reads the graph signature when the change signal moved, else at most every
        `refresh_ms`, unless `force` or the label is stale, and diffs the whole label only when
        the signature moved. A thread that finds another one catching the label up waits for
        it only if `force` or the signal moved (a write it must see was acknowledged); else it
        goes on with the index as it is.
        """
        index = self.index(label)
        moved = self._moved(label)
        if not (force or moved or self._due(label) or label in self._stale):
            return 0, 0
        syncing = self._syncing[label]
        if not syncing.acquire(blocking=force or moved):
            return 0, 0
        try:
            # a catch-up this thread waited for may have covered what it came for
            if not (force or self._moved(label) or self._due(label) or label in self._stale):
                return 0, 0
            added, removed = self._catch_up(label, index)
        finally:
            syncing.release()
        if added or removed:
            self._log.info(
                "%s %s caught up with the graph: +%d -%d", label, self.what, added, removed
            )
        return added, removed

    def _due(self, label: str) -> bool:
        """Whether `refresh_ms` passed since the label's graph signature was last read."""
        return time.monotonic() - self._checked.get(label, 0.0) >= self.refresh_ms / 1000

    def _catch_up(self, label: str, index: I) -> tuple[int, int]:
        """refresh() once the label is this thread's to sync."""
        wall = time.time()
        with self._books:
            self._checked[label] = time.monotonic()
        heard = self._counter(label)  # before the signature: a later bump is heard next time
        signature = self._signature(label)
        with self._books:
            if heard is not None:  # it can only fail below by raising: the label is stale then
                self._heard[label] = heard
            if signature == self._seen.get(label) and label not in self._stale:
                self._synced_at[label] = wall
                # in step: the next catch-up need not read this process's own adds since
                self._watermark[label] = signature.seq
                return 0, 0
            # a stale index lacks what this process wrote: only the whole diff finds it
            since = None if label in self._stale else self._watermark.get(label)
            self._stale.discard(label)
            before, self._seen[label] = self._seen.get(label), signature
        try:
            added, removed = self._apply(label, index, before, signature, since)
        except BaseException:
            # the next try must start from what the index holds, not from `signature`
            with self._books:
                if before is None:
                    self._seen.pop(label, None)
                else:
                    self._seen[label] = before
                self._stale.add(label)
            raise
        with self._books:
            self._synced_at[label] = wall
            self._watermark[label] = signature.seq
        return added, removed

    def _apply(
        self, label: str, index: I, before: Signature | None, now: Signature, since: int | None
    ) -> tuple[int, int]:
        """Bring `index`, in step with the graph at `before` (None: not known) and its clock's
        seq `since`, to the graph at `now`; (added, removed). Reads only the nodes created
        meanwhile when they account for the whole change, else diffs the whole label."""
        added = 0
        if before is not None and since is not None:
            added = self._add_created(label, index, since, before, now)
            if added and len(index) == now.count:
                return added, 0
        more, removed, new_ids = self._sync(label, index)
        if before is not None:
            self._caught_up(label, index, before.clock, now.clock, new_ids)
        return added + more, removed

    def _add_created(
        self, label: str, index: I, since: int, before: Signature, now: Signature
    ) -> int:
        """Fetch the nodes created since the clock's seq was `since`; how many were added.

        None are looked for unless the count grew and the clock says nothing was removed or
        re-embedded since `before`. The caller diffs the whole label unless the index then
        holds as many items as the graph counts (it does not when a writer did not stamp what
        it created, or this process's own add is between its graph write and its index add).
        """
        if label not in _ADDED or now.clock != before.clock or now.count <= before.count:
            return 0
        rows = self.store.read(_ADDED[label], since=since)
        missing = [row["id"] for row in rows if int(row["vid"]) not in index]
        return self._add_from_graph(label, index, missing) if missing else 0

    def _graph_vids(self, label: str) -> dict[int, str]:
        """vid → id of every embedded `label` node in the graph."""
        rows = self.store.read_lists(_VIDS[label])
        return {int(vid): node_id for vid, node_id in (rows[0]["pairs"] if rows else [])}

    def _sync(self, label: str, index: I) -> tuple[int, int, list[str]]:
        """Make `index` hold exactly the graph's embedded nodes of `label`.

        Returns (added, removed, ids of the nodes it looked up to add).
        """
        # the index first: a node this process writes meanwhile is in the graph before it is
        # in the index, so it is either in `have` or found in the graph and fetched, never
        # taken for one deleted from the graph
        have = index.vids()
        in_graph = self._graph_vids(label)
        removed = index.remove(sorted(have - in_graph.keys()))
        missing = sorted(in_graph[v] for v in in_graph.keys() - have)
        return self._add_from_graph(label, index, missing), removed, missing

    # --- this process's own writes ---------------------------------------------------------

    def _own(self, label: str, change: Callable[[I], int], sign: int) -> int:
        """Apply this process's change (an add: sign 1, a remove: -1) to `label`'s index.

        If it fails, the graph holds what the index lacks: the label is marked stale, so the
        next search (or `refresh`) repairs it from the graph.
        """
        index = self.index(label)
        try:
            done = change(index)
        except BaseException:
            with self._books:
                self._stale.add(label)
            self._bump(label)
            raise
        bumped = self._bump(label)
        # this process's own writes move the graph signature too: not a reason to diff
        with self._books:
            if bumped is not None and self._heard.get(label) == bumped[0]:
                self._heard[label] = bumped[1]  # no other process's change in between
            seen = self._seen.get(label)
            if seen is not None:
                self._seen[label] = Signature(seen.count + sign * done, seen.clock)
            mark = self._marks.get(label)
            if mark is not None and sign > 0:  # additions move the label count alike
                self._marks[label] = (mark[0] + done, *mark[1:])
            else:  # a deletion moves a clock too: count the space again
                self._marks.pop(label, None)
        return done

    def remove(self, label: str, vids: Sequence[int] | np.ndarray) -> int:
        """Drop nodes deleted from the graph; return how many were indexed."""
        return self._own(label, lambda index: index.remove(vids), -1)

    # --- saving ----------------------------------------------------------------------------

    def save(self) -> None:
        """Save every opened index that changed, after catching up with the graph."""
        for label, index in list(self._indexes.items()):
            if not index.dirty:
                continue
            try:
                self.refresh(label, force=True)
            except GraphmemError as error:  # the graph is unreachable: save what we have
                self._log.warning(
                    "saving the %s %s without catching up: %s", label, self.what, error
                )
            self._save_unless_newer(label, index)

    def _save_unless_newer(self, label: str, index: I) -> None:
        """Save `index` unless the saved one was in step with the graph at a later time."""
        mine = self._synced_at.get(label)
        with self._syncing[label], file_lock(self.directory):
            theirs = self._saved_watermark(label)
            if theirs is not None and (mine is None or theirs > mine):
                self._log.info(
                    "%s %s on disk is newer than this process's: not replaced", label, self.what
                )
                index.dirty = False
                return
            seen = self._seen.get(label)
            self._write(label, index, mine, seen.clock if seen else Clock())

    def close(self) -> None:
        """Save and forget every opened index."""
        self.save()
        self._indexes.clear()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
