"""The vector indexes of every embedded label, opened lazily and kept in step with the graph.

How an index is opened, caught up with other processes' writes and saved is
graphmem/vectors/synced.py; here: how a FAISS index is loaded, filled from the graph's
embeddings, searched, and how re-embedded nodes (segments and meta-segments whose summary
changed, any node `graphmem reembed` gave a new vector) are replaced.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from graphmem import embcodec
from graphmem.cypher import statement
from graphmem.errors import InvalidInput
from graphmem.kinds import kind_of, labels
from graphmem.store.base import Store
from graphmem.vectors.changes import change_key, signal_changes
from graphmem.vectors.index import VectorIndex
from graphmem.vectors.model import Clock, Columns, Hit, VectorConfig, VectorIndexError
from graphmem.vectors.persist import saved_watermark
from graphmem.vectors.synced import OpenReport, Signature, SyncedIndexes

__all__ = ["LABELS", "OpenReport", "Signature", "VectorStore"]

LABELS = labels("vectors")  # the kinds with a vector index (graphmem/kinds.py)
DIRECTORY = "vectors"  # in a space's index dir
FETCH_BATCH = 500  # rows per graph fetch while repairing: bounds one reply's size

REEMBEDDED = labels("reembedded")  # re-embedded in place when their summary changes
# statement names, resolved at import so that a missing one fails at once
_FETCH = {label: statement(f"vectors.fetch_{kind_of(label).key}").name for label in LABELS}
# every kind: segments and meta-segments are re-embedded when their summary changes, any kind by
# `graphmem reembed` (graphmem/vectors/reembed.py)
_REVISED = {label: statement(f"vectors.revised_{kind_of(label).key}") for label in LABELS}


def signal_changed(data_dir: Path, space: str, changed: Iterable[str], what: str) -> None:
    """Tell the vector indexes of `space` in every process on the data dir that the `changed`
    labels changed in the graph by a write that went around them (`what`: it, for the log):
    their next search catches up."""
    keys = [change_key(space, DIRECTORY, label) for label in changed]
    signal_changes(data_dir, keys, what)


class VectorStore(SyncedIndexes[VectorIndex]):
    """The vector indexes of every embedded label, opened lazily and checked against the graph."""

    what = "vector index"

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
        self.embedder_name = embedder_name
        self.dim = dim
        self.config = config or VectorConfig()
        super().__init__(store, Path(data_dir) / DIRECTORY, LABELS, self.config.refresh_ms)

    def _load(self, label: str) -> VectorIndex:
        return VectorIndex.load(self.directory, label, self.dim, self.embedder_name, self.config)

    def _empty(self, label: str) -> VectorIndex:
        return VectorIndex(label, self.dim, self.embedder_name, self.config)

    def _write(self, label: str, index: VectorIndex, synced_at: float | None, clock: Clock) -> None:
        index.save(self.directory, synced_at, clock)

    def _saved_watermark(self, label: str) -> float | None:
        return saved_watermark(self.directory, label)

    def _caught_up(
        self, label: str, index: VectorIndex, held: Clock, now: Clock, fresh: list[str]
    ) -> None:
        self._replace_revised(label, index, held, now, fresh)

    def _replace_revised(
        self, label: str, index: VectorIndex, held: Clock, now: Clock, fresh: list[str]
    ) -> int:
        """Replace the vectors of `label` nodes re-embedded since the clock `held`.

        `fresh`: nodes just fetched, whose vectors are current already.
        """
        since = now.replaced_since(held)
        if since is None:
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
        return self._own(label, lambda index: index.add(node_ids, vids, ts, embeddings), 1)

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

    def vectors(self, label: str, vids: Sequence[int] | np.ndarray) -> dict[int, np.ndarray]:
        """The stored vectors of these `label` vids (VectorIndex.vectors)."""
        self.refresh(label)
        return self.index(label).vectors(vids)

    def search_columns(
        self, label: str, query_vec: Sequence[float] | np.ndarray, k: int, as_of_ts: int | None
    ) -> Columns:
        """search() as columns (VectorIndex.search_columns)."""
        self.refresh(label)
        return self.index(label).search_columns(query_vec, k, as_of_ts)

    def search_many(
        self, label: str, queries: np.ndarray, k: int, as_of_ts: int | None = None
    ) -> list[list[Hit]]:
        """search() for each row of `queries` in one FAISS call."""
        self.refresh(label)
        return self.index(label).search_many(queries, k, as_of_ts)
