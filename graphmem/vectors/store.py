"""The vector indexes of every embedded label, opened lazily and kept in step with the graph.

Freshness across processes. Another process (say `graphmem ingest-docs` beside a running
`graphmem serve`) writes to the same graph and its own copy of the index. Before a search,
at most every `refresh_ms`, VectorStore compares a cheap signature of the label in the graph
(its embedded-node count, constant time for propositions and events, and the revision of the
label's vector clock, which deleting propositions or events, and re-embedding segments and
meta-segments in place when their summary changes, moves) with the value it last synced to,
counting its own adds and removes; on a change it diffs the graph's (vid, id) pairs against
the index, fetches what is missing (about 0.1 s at 10^5 items) and replaces what was
re-embedded since. An index add that fails after the graph write marks the label stale, so
the next search repairs it at once.
Saving first catches up, then, under a file lock, never replaces a saved index whose
watermark (the wall time at which it was last known to match the graph) is newer.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphmem import embcodec
from graphmem.cypher import statement
from graphmem.errors import GraphmemError, InvalidInput
from graphmem.kinds import kind_of, labels
from graphmem.store.base import Store
from graphmem.vectors.index import VectorIndex
from graphmem.vectors.model import Clock, DamagedIndexFile, Hit, VectorConfig, VectorIndexError
from graphmem.vectors.persist import file_lock, saved_watermark

log = logging.getLogger(__name__)

LABELS = labels("vectors")  # the kinds with a vector index (graphmem/kinds.py)
FETCH_BATCH = 500  # rows per graph fetch while repairing: bounds one reply's size

REEMBEDDED = labels("reembedded")  # re-embedded in place when their summary changes
# statement names, resolved at import so that a missing one fails at once
_VIDS = {label: statement(f"vectors.vids_{kind_of(label).key}").name for label in LABELS}
_COUNT = {label: statement(f"vectors.count_{kind_of(label).key}") for label in LABELS}
_FETCH = {label: statement(f"vectors.fetch_{kind_of(label).key}").name for label in LABELS}
_REVISED = {label: statement(f"vectors.revised_{kind_of(label).key}") for label in REEMBEDDED}
# the clock of kinds whose count is read on its own (see cypher/vectors.cypher)
_CLOCK = {
    label: statement(f"vectors.clock_{kind_of(label).key}")
    for label in LABELS
    if label not in REEMBEDDED
}


@dataclass(frozen=True)
class Signature:
    """What tells whether the graph changed under an index: embedded nodes, vector clock."""

    count: int
    clock: Clock


@dataclass(frozen=True)
class OpenReport:
    """How an index was opened: loaded from disk or rebuilt, and what the graph check repaired."""

    label: str
    loaded: bool
    reason: str | None  # why the saved index was not used
    added: int  # embedded nodes found in the graph but not in the index
    removed: int  # index items whose node is gone from the graph


class VectorStore:
    """The vector indexes of every embedded label, opened lazily and checked against the graph."""

    def __init__(
        self,
        store: Store,
        data_dir: str | Path,
        embedder_name: str,
        dim: int,
        config: VectorConfig | None = None,
    ) -> None:
        if not isinstance(embedder_name, str) or not embedder_name:
            raise InvalidInput("embedder_name", "must be a non-empty string")
        if not isinstance(dim, int) or isinstance(dim, bool) or dim < 1:
            raise InvalidInput("dim", "must be a positive integer")
        self.store = store
        self.directory = Path(data_dir) / "vectors"
        self.embedder_name = embedder_name
        self.dim = dim
        self.config = config or VectorConfig()
        self._indexes: dict[str, VectorIndex] = {}
        self._reports: dict[str, OpenReport] = {}
        # Per label, so a slow open of one label does not block the others. `_opening`: one
        # thread opens the index (the others need it, so they wait). `_syncing`: one thread
        # diffs the index against the graph or saves it; searches do not wait for it, they
        # search the index as it is. `_books` guards the bookkeeping below and is never held
        # across a store or disk wait.
        self._opening = {label: threading.Lock() for label in LABELS}
        self._syncing = {label: threading.Lock() for label in LABELS}
        self._books = threading.Lock()
        self._seen: dict[str, Signature] = {}  # graph signature the index was last synced to
        self._checked: dict[str, float] = {}  # monotonic time of the last signature read
        self._synced_at: dict[str, float] = {}  # wall time the index last matched the graph
        self._stale: set[str] = set()  # labels whose index add failed after a graph write

    def index(self, label: str) -> VectorIndex:
        """The index of `label`, opened (loaded or rebuilt, then checked) on first use."""
        if label not in LABELS:
            raise InvalidInput("label", f"must be one of {', '.join(LABELS)}")
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

    def _open(self, label: str) -> VectorIndex:
        # the signature is read before the graph is: a write in between is caught next time
        wall, self._checked[label] = time.time(), time.monotonic()
        self._seen[label] = self._signature(label)
        try:
            # shared: a save by another process cannot replace one file of the pair mid-read
            with file_lock(self.directory, shared=True):
                index = VectorIndex.load(
                    self.directory, label, self.dim, self.embedder_name, self.config
                )
            loaded, reason = True, None
        except VectorIndexError as error:
            index = VectorIndex(label, self.dim, self.embedder_name, self.config)
            loaded, reason = False, str(error)
            # a missing or outdated index is routine; a damaged file is worth a look
            level = logging.WARNING if isinstance(error, DamagedIndexFile) else logging.INFO
            log.log(level, "rebuilding the %s vector index from the graph: %s", label, reason)
        added, removed, new_ids = self._sync(label, index)
        if loaded:  # re-embedded while it lay on disk
            self._replace_revised(label, index, index.synced, self._seen[label].clock, new_ids)
        self._synced_at[label] = wall
        self._reports[label] = OpenReport(label, loaded, reason, added, removed)
        if not loaded:
            # a rebuild is costly: do not repeat it after a crash
            self._save_unless_newer(label, index)
        return index

    def _signature(self, label: str) -> Signature:
        """The graph's embedded-node count of `label` and its vector clock."""
        rows = self.store.read(_COUNT[label])
        row = rows[0] if rows else {"n": 0}
        if label in _CLOCK:
            clock = self.store.read(_CLOCK[label])
            row = {**row, **(clock[0] if clock else {})}
        return Signature(
            int(row["n"]), Clock(int(row.get("rev") or 0), str(row.get("epoch") or ""))
        )

    def refresh(self, label: str, force: bool = False) -> tuple[int, int]:
        """Catch `label`'s index up with writes by other processes; (added, removed).

        Reads the graph signature at most every `refresh_ms` unless `force` or the label is
        stale, and diffs the whole label only when the signature moved. Unless `force`, a
        thread that finds another one catching the label up does not wait for it: it goes on
        with the index as it is.
        """
        index = self.index(label)
        due = time.monotonic() - self._checked.get(label, 0.0) >= self.config.refresh_ms / 1000
        if not (force or due or label in self._stale):
            return 0, 0
        syncing = self._syncing[label]
        if not syncing.acquire(blocking=force):
            return 0, 0
        try:
            added, removed = self._catch_up(label, index)
        finally:
            syncing.release()
        if added or removed:
            log.info("%s vector index caught up with the graph: +%d -%d", label, added, removed)
        return added, removed

    def _catch_up(self, label: str, index: VectorIndex) -> tuple[int, int]:
        """refresh() once the label is this thread's to sync."""
        wall = time.time()
        with self._books:
            self._checked[label] = time.monotonic()
        signature = self._signature(label)
        with self._books:
            if signature == self._seen.get(label) and label not in self._stale:
                self._synced_at[label] = wall
                return 0, 0
            self._stale.discard(label)
            before, self._seen[label] = self._seen.get(label), signature
        try:
            added, removed, new_ids = self._sync(label, index)
            if before is not None:
                self._replace_revised(label, index, before.clock, signature.clock, new_ids)
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
        return added, removed

    def _graph_vids(self, label: str) -> dict[int, str]:
        """vid → id of every embedded `label` node in the graph."""
        rows = self.store.read_lists(_VIDS[label])
        return {int(vid): node_id for vid, node_id in (rows[0]["pairs"] if rows else [])}

    def _sync(self, label: str, index: VectorIndex) -> tuple[int, int, list[str]]:
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

    def _replace_revised(
        self, label: str, index: VectorIndex, held: Clock, now: Clock, fresh: list[str]
    ) -> int:
        """Replace the vectors of `label` nodes re-embedded since the clock `held`.

        `fresh`: nodes just fetched, whose vectors are current already.
        """
        since = now.replaced_since(held)
        if label not in _REVISED or since is None:
            return 0
        skip = set(fresh)
        rows = [r for r in self.store.read(_REVISED[label], since=since) if r["id"] not in skip]
        index.remove([int(r["vid"]) for r in rows])
        return self._add_from_graph(label, index, [r["id"] for r in rows])

    def _add_from_graph(self, label: str, index: VectorIndex, node_ids: list[str]) -> int:
        """Fetch these nodes' embeddings from the graph, page by page, and index them."""
        added = 0
        for start in range(0, len(node_ids), FETCH_BATCH):
            rows = self._fetch(label, node_ids[start : start + FETCH_BATCH])
            try:
                added += index.add(*self._columns(label, rows))
            except InvalidInput as error:
                raise VectorIndexError(
                    f"{label} nodes in the graph are malformed: {error}"
                ) from error
        return added

    def _fetch(self, label: str, node_ids: list[str]) -> list[dict[str, Any]]:
        """Rows of (id, vid, ts, embedding as stored: text or list) for these nodes.

        A bad embedding stays as it is: _columns then names the node and what is wrong.
        """
        return self.store.read_lists(_FETCH[label], ids=node_ids)

    def _columns(
        self, label: str, rows: list[dict[str, Any]]
    ) -> tuple[list[str], list[int], list[int], np.ndarray]:
        decoded = []
        for row in rows:
            vec = embcodec.decode(row["embedding"])
            if vec is None or vec.shape != (self.dim,):
                size = "unreadable" if vec is None else f"size {vec.size}"
                raise VectorIndexError(
                    f"{label} {row['id']!r}: stored embedding is {size} but model "
                    f"{self.embedder_name!r} has dim {self.dim}; re-embed the node"
                )
            decoded.append(vec)
        vectors = np.array(decoded, dtype=np.float32)
        return (
            [row["id"] for row in rows],
            [row["vid"] for row in rows],
            [row["ts"] for row in rows],
            vectors.reshape(len(rows), self.dim),
        )

    def add(
        self,
        label: str,
        node_ids: Sequence[str],
        vids: Sequence[int] | np.ndarray,
        ts: Sequence[int] | np.ndarray,
        embeddings: Sequence[Sequence[float]] | np.ndarray,
    ) -> int:
        """Index nodes just written to the graph; already indexed vids are skipped.

        If this fails, the nodes are in the graph but not the index: the label is marked
        stale, so the next search (or `refresh`) fetches them from the graph.
        """
        index = self.index(label)
        try:
            added = index.add(node_ids, vids, ts, embeddings)
        except BaseException:
            with self._books:
                self._stale.add(label)
            raise
        self._count_own(label, added)
        return added

    def remove(self, label: str, vids: Sequence[int] | np.ndarray) -> int:
        """Drop nodes deleted from the graph; return how many were indexed."""
        index = self.index(label)
        try:
            removed = index.remove(vids)
        except BaseException:
            with self._books:
                self._stale.add(label)
            raise
        self._count_own(label, -removed)
        return removed

    def _count_own(self, label: str, change: int) -> None:
        # this process's own writes move the graph signature too: not a reason to diff
        with self._books:
            seen = self._seen.get(label)
            if seen is not None:
                self._seen[label] = Signature(seen.count + change, seen.clock)

    def search(
        self,
        label: str,
        query_vec: Sequence[float] | np.ndarray,
        k: int,
        as_of_ts: int | None = None,
        among: Sequence[int] | np.ndarray | None = None,
    ) -> list[Hit]:
        """The k `label` nodes most similar to `query_vec` with ts <= as_of_ts, vid in `among`."""
        self.refresh(label)
        return self.index(label).search(query_vec, k, as_of_ts, among)

    def search_many(
        self, label: str, queries: np.ndarray, k: int, as_of_ts: int | None = None
    ) -> list[list[Hit]]:
        """search() for each row of `queries` in one FAISS call."""
        self.refresh(label)
        return self.index(label).search_many(queries, k, as_of_ts)

    def save(self) -> None:
        """Save every opened index that changed, after catching up with the graph."""
        for label, index in list(self._indexes.items()):
            if not index.dirty:
                continue
            try:
                self.refresh(label, force=True)
            except GraphmemError as error:  # the graph is unreachable: save what we have
                log.warning("saving the %s index without catching up: %s", label, error)
            self._save_unless_newer(label, index)

    def _save_unless_newer(self, label: str, index: VectorIndex) -> None:
        """Save `index` unless the saved one was in step with the graph at a later time."""
        mine = self._synced_at.get(label)
        with self._syncing[label], file_lock(self.directory):
            theirs = saved_watermark(self.directory, label)
            if theirs is not None and (mine is None or theirs > mine):
                log.info("%s index on disk is newer than this process's: not replaced", label)
                index.dirty = False
                return
            seen = self._seen.get(label)
            index.save(self.directory, mine, seen.clock if seen else Clock())

    def close(self) -> None:
        """Save and forget every opened index."""
        self.save()
        self._indexes.clear()

    def __enter__(self) -> VectorStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
