"""PropsMemory: the store, embedder, vector indexes, LLM and classifier the props modules share."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.llm import LLM
from graphmem.props.classify import Classifier
from graphmem.props.model import Proposition
from graphmem.store.base import Store
from graphmem.vectors import KeywordStore, VectorStore

if TYPE_CHECKING:
    from graphmem.props.bulk import DocumentsReport
    from graphmem.props.edit import DeletedDocument
    from graphmem.props.ingest import Progress


V = TypeVar("V")


def _epoch_now() -> int:
    return int(time.time())


class _Kept(Generic[V]):
    """Values by id, least recently used dropped beyond `capacity` (the caller locks)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, V] = OrderedDict()

    def get_many(self, ids: Iterable[str]) -> dict[str, V]:
        found = {}
        for key in ids:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
                found[key] = value
        return found

    def put(self, items: Iterable[tuple[str, V]]) -> None:
        for key, value in items:
            self._items[key] = value
            self._items.move_to_end(key)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)

    def drop(self, ids: Iterable[str]) -> None:
        for key in ids:
            self._items.pop(key, None)


class RecentPropositions:
    """Stored propositions kept in memory, newest use last, so relating rarely reads them back;
    and their embeddings, fewer of them (a vector is ~1.5 kB, a text ~0.2 kB).

    Safe to keep: a stored proposition never changes its text or date (its id derives from
    them; an edit makes another proposition). One deleted is forgotten by the process deleting
    it; another process's copy is never used, since candidates come from its vector index,
    which drops the deleted one (and the write of an edge to it finds nothing).
    """

    def __init__(self, capacity: int = 100_000, vector_capacity: int = 20_000) -> None:
        self._props: _Kept[Proposition] = _Kept(capacity)
        self._vectors: _Kept[np.ndarray] = _Kept(vector_capacity)
        self._lock = threading.Lock()  # one memory may serve several threads

    def get_many(self, ids: Iterable[str]) -> dict[str, Proposition]:
        """Those of `ids` held here."""
        with self._lock:
            return self._props.get_many(ids)

    def forget(self, ids: Iterable[str]) -> None:
        ids = list(ids)
        with self._lock:
            self._props.drop(ids)
            self._vectors.drop(ids)

    def add(self, props: Iterable[Proposition]) -> None:
        with self._lock:
            self._props.put((prop.id, prop) for prop in props)

    def vectors_of(self, ids: Iterable[str]) -> dict[str, np.ndarray]:
        """The embeddings of those of `ids` held here."""
        with self._lock:
            return self._vectors.get_many(ids)

    def add_vectors(self, vectors: dict[str, np.ndarray]) -> None:
        """Keep these propositions' embeddings (as the graph holds them)."""
        with self._lock:
            self._vectors.put(vectors.items())


@dataclass
class PropsMemory:
    """Everything the propositions functions need; `graphmem.services.open_props` builds one."""

    store: Store
    embedder: Embedder
    vectors: VectorStore
    settings: Settings
    classifier: Classifier
    llm: LLM | None = None
    now: Callable[[], int] = field(default=_epoch_now)  # epoch seconds for created_at
    close_store: bool = False
    recent: RecentPropositions = field(default_factory=RecentPropositions)
    # the BM25 channel of retrieval; None: one in the settings' data dir (opened on first use)
    keywords: KeywordStore = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.keywords is None:
            # beside the vector indexes: the space's derived-index dir (graphmem/spaces.py)
            self.keywords = KeywordStore(
                self.store, self.vectors.directory.parent, self.settings.vector_refresh_ms
            )

    # Editing and bulk import as methods (a facade can expose them); the functions are in
    # graphmem/props/edit.py and bulk.py, imported on call since they import this module.

    def ingest_documents(
        self,
        documents: Sequence[Mapping[str, Any]],
        *,
        relate: bool = True,
        progress: Progress | None = None,
        replace: bool = False,
    ) -> DocumentsReport:
        """Store documents [{text, date, source?}] in bulk, resumably; with `replace`, a stored
        earlier version (same source and date, other text) is deleted (bulk.add_documents)."""
        from graphmem.props.bulk import add_documents

        return add_documents(self, documents, relate=relate, progress=progress, replace=replace)

    def delete_document(self, doc_id: str) -> DeletedDocument:
        """Delete a document with the propositions only it states (edit.delete_document)."""
        from graphmem.props.edit import delete_document

        return delete_document(self, doc_id)

    def delete_proposition(self, prop_id: str) -> Proposition:
        """Delete a proposition with its relation edges (edit.delete_proposition)."""
        from graphmem.props.edit import delete_proposition

        return delete_proposition(self, prop_id)

    def update_proposition(
        self,
        prop_id: str,
        text: str | None = None,
        date: str | None = None,
        source: str | None = None,
    ) -> Proposition:
        """Correct a proposition; re-embedded and re-related if its text or date changed."""
        from graphmem.props.edit import update_proposition

        return update_proposition(self, prop_id, text, date, source)

    def close(self) -> None:
        """Save the vector and keyword indexes (and close the store if this memory owns it)."""
        self.keywords.close()
        self.vectors.close()
        if self.close_store:
            self.store.close()

    def __enter__(self) -> PropsMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
