"""PropsMemory: the store, embedder, vector indexes, LLM and classifier the props modules share."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.llm import LLM, llm_or_none
from graphmem.props.classify import Classifier, LLMClassifier
from graphmem.props.model import Proposition
from graphmem.props.offline import OfflineClassifier
from graphmem.store.base import Store
from graphmem.vectors import VectorConfig, VectorStore


def _epoch_now() -> int:
    return int(time.time())


class RecentPropositions:
    """Stored propositions kept in memory, newest use last, so relating rarely reads them back.

    Safe to keep: a stored proposition never changes (its id derives from its text and date).
    """

    def __init__(self, capacity: int = 100_000) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, Proposition] = OrderedDict()
        self._lock = threading.Lock()  # one memory may serve several threads

    def get_many(self, ids: Iterable[str]) -> dict[str, Proposition]:
        """Those of `ids` held here."""
        found = {}
        with self._lock:
            for pid in ids:
                prop = self._items.get(pid)
                if prop is not None:
                    self._items.move_to_end(pid)
                    found[pid] = prop
        return found

    def add(self, props: Iterable[Proposition]) -> None:
        with self._lock:
            for prop in props:
                self._items[prop.id] = prop
                self._items.move_to_end(prop.id)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)


@dataclass
class PropsMemory:
    """Everything the propositions functions need; build it with `PropsMemory.open`."""

    store: Store
    embedder: Embedder
    vectors: VectorStore
    settings: Settings
    classifier: Classifier
    llm: LLM | None = None
    now: Callable[[], int] = field(default=_epoch_now)  # epoch seconds for created_at
    close_store: bool = False
    recent: RecentPropositions = field(default_factory=RecentPropositions)

    @classmethod
    def open(
        cls,
        settings: Settings,
        store: Store,
        *,
        llm: LLM | None | Literal["auto"] = "auto",
        classifier: Classifier | None = None,
        embedder: Embedder | None = None,
        vector_config: VectorConfig | None = None,
        close_store: bool = False,
    ) -> PropsMemory:
        """Bundle `store` with the embedder, the vector indexes in `settings.home` and the LLM.

        `llm="auto"` uses the configured LLM if any. The classifier defaults to the LLM
        classifier when there is an LLM, else the offline one. This loads the embedding model
        (its dimension sizes the vector indexes); the indexes themselves open on first use.
        `vector_config` defaults to the settings' (GRAPHMEM_VECTOR_*).
        """
        chosen = llm_or_none(settings) if llm == "auto" else llm
        embedder = embedder or Embedder.from_settings(settings)
        config = vector_config or settings.vector_config()
        vectors = VectorStore(store, settings.home, embedder.name, embedder.dim, config)
        if classifier is None:
            classifier = LLMClassifier(chosen) if chosen is not None else OfflineClassifier()
        return cls(store, embedder, vectors, settings, classifier, chosen, close_store=close_store)

    def close(self) -> None:
        """Save the vector indexes (and close the store if this memory owns it)."""
        self.vectors.close()
        if self.close_store:
            self.store.close()

    def __enter__(self) -> PropsMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
