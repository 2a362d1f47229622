"""The keyword indexes of propositions and events, opened lazily and kept in step with the graph.

Opening, catching up with other processes' writes and saving: graphmem/vectors/synced.py, as
for the vector indexes; the index itself: graphmem/vectors/keywords.py. Files: one checksummed
`<label>.npz` per label in `<data dir>/keywords/`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from graphmem.cypher import statement
from graphmem.kinds import KINDS, kind_of
from graphmem.store.base import Store
from graphmem.vectors.keywords import KeywordHit, KeywordIndex
from graphmem.vectors.model import Clock
from graphmem.vectors.persist import watermark_of
from graphmem.vectors.synced import SyncedIndexes

FETCH_BATCH = 2000  # rows of text per graph read while catching up
KEYWORD_LABELS = tuple(k.label for k in KINDS if k.vectors and not k.reembedded)
_FETCH = {label: statement(f"keywords.fetch_{kind_of(label).key}").name for label in KEYWORD_LABELS}


class KeywordStore(SyncedIndexes[KeywordIndex]):
    """The keyword index of every label whose text never changes (propositions, events),
    opened lazily in `<data dir>/keywords/` and kept in step with the graph."""

    what = "keyword index"

    def __init__(self, store: Store, data_dir: str | Path, refresh_ms: int = 500) -> None:
        super().__init__(store, Path(data_dir) / "keywords", KEYWORD_LABELS, refresh_ms)

    def _path(self, label: str) -> Path:
        return self.directory / f"{label}.npz"

    def _load(self, label: str) -> KeywordIndex:
        return KeywordIndex.load(self._path(label), label)

    def _empty(self, label: str) -> KeywordIndex:
        return KeywordIndex(label)

    def _add_from_graph(self, label: str, index: KeywordIndex, node_ids: list[str]) -> int:
        added = 0
        for start in range(0, len(node_ids), FETCH_BATCH):
            rows = self.store.read(_FETCH[label], ids=node_ids[start : start + FETCH_BATCH])
            added += index.add(
                [r["id"] for r in rows],
                [r["vid"] for r in rows],
                [r["ts"] for r in rows],
                [r["text"] for r in rows],
            )
        return added

    def _write(
        self, label: str, index: KeywordIndex, synced_at: float | None, clock: Clock
    ) -> None:
        index.save(self._path(label), synced_at, clock)

    def _saved_watermark(self, label: str) -> float | None:
        return watermark_of(self._path(label))

    def add(
        self,
        label: str,
        node_ids: Sequence[str],
        vids: Sequence[int] | np.ndarray,
        ts: Sequence[int] | np.ndarray,
        texts: Sequence[str],
    ) -> int:
        """Index nodes just written to the graph (see VectorStore.add)."""
        return self._own(label, lambda index: index.add(node_ids, vids, ts, texts), 1)

    def search(
        self, label: str, query: str, k: int, as_of_ts: int | None = None
    ) -> list[KeywordHit]:
        """The k `label` nodes whose text best matches `query`'s terms, with ts <= as_of_ts."""
        self.refresh(label)
        return self.index(label).search(query, k, as_of_ts)
