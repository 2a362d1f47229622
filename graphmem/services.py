"""The composition root: one store and one embedding model; per space, the vector indexes every
memory shares. The only place an embedder or a vector store is built from settings
(tests/test_layers.py keeps it so): the memories and the series tools receive them.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from graphmem import deadline
from graphmem.config import Settings
from graphmem.errors import InvalidInput
from graphmem.spaces import (
    DEFAULT_SPACE,
    checked_space,
    index_dir,
    remove_index_files,
)
from graphmem.store import Store, open_store

if TYPE_CHECKING:
    from typing import Literal

    from graphmem.embed import Embedder
    from graphmem.llm import LLM
    from graphmem.props.classify import Classifier
    from graphmem.props.memory import PropsMemory
    from graphmem.series.meta.tools import ToolEnv
    from graphmem.timeline import TimelineMemory
    from graphmem.vectors import VectorConfig, VectorStore
    from graphmem.vectors.reembed import Progress, Reembedded


def open_embedder(settings: Settings) -> Embedder:
    """The embedding model GRAPHMEM_EMBED_MODEL, _EMBED_BACKEND and _MODEL_CACHE ask for."""
    from graphmem.embed import Embedder

    return Embedder.from_settings(settings)


def open_vectors(
    settings: Settings,
    store: Store,
    embedder: Embedder,
    config: VectorConfig | None = None,
    *,
    check: bool = True,
) -> VectorStore:
    """The vector indexes of `store`'s space in `settings.home`, sized by `embedder`.

    `config` defaults to the settings' (GRAPHMEM_VECTOR_*). One per data dir and space in a
    process: two would each keep their own copy of an index. With `check`, logs a warning if
    the space's stored vectors were made by another embedder (graphmem/vectors/reembed.py).
    """
    from graphmem.vectors import VectorConfig, VectorStore
    from graphmem.vectors.reembed import check_embedder

    config = config or VectorConfig.from_settings(settings)
    home = index_dir(settings.home, store.space)
    vectors = VectorStore(store, home, embedder.name, embedder.dim, config)
    if check:
        check_embedder(store, vectors)
    return vectors


def open_props(
    settings: Settings,
    store: Store,
    *,
    llm: LLM | None | Literal["auto"] = "auto",
    classifier: Classifier | None = None,
    embedder: Embedder | None = None,
    vectors: VectorStore | None = None,
    vector_config: VectorConfig | None = None,
    close_store: bool = False,
) -> PropsMemory:
    """A propositions memory on `store` (for a library user or a test; `Services.props()` shares).

    `llm="auto"` uses the configured LLM if any. The classifier defaults to the LLM
    classifier when there is an LLM, else the offline one. Without `embedder` this loads the
    embedding model; without `vectors` it opens the indexes of `settings.home` (`vector_config`
    defaults to the settings'); the indexes themselves load on first use.
    """
    from graphmem.llm import llm_or_none
    from graphmem.props.classify import LLMClassifier
    from graphmem.props.memory import PropsMemory
    from graphmem.props.offline import OfflineClassifier

    chosen = llm_or_none(settings) if llm == "auto" else llm
    embedder = embedder or open_embedder(settings)
    vectors = vectors or open_vectors(settings, store, embedder, vector_config)
    if vectors.embedder_name != embedder.name:  # vectors of one model searched with another's
        raise InvalidInput(
            "vectors",
            f"are keyed for the model {vectors.embedder_name!r}, not the embedder's "
            f"{embedder.name!r}: pass the embedder they were opened with",
        )
    if classifier is None:
        classifier = LLMClassifier(chosen) if chosen is not None else OfflineClassifier()
    return PropsMemory(
        store, embedder, vectors, settings, classifier, chosen, close_store=close_store
    )


def open_tools(settings: Settings, store: Store, embedder: Embedder | None = None) -> ToolEnv:
    """The series tools on `store` with their own segment text search, opened on first use.

    The embedding model loads (unless `embedder` is given) only when a tool searches by text;
    `ToolEnv.close()` saves that search's vector index. `Services.tools()` shares its own.
    """
    from graphmem.series.meta.textsearch import SegmentSearch
    from graphmem.series.meta.tools import ToolEnv

    def search() -> SegmentSearch:
        model = embedder or open_embedder(settings)
        return SegmentSearch(store, model, open_vectors(settings, store, model))

    return ToolEnv(store, settings, search)


@dataclass(frozen=True)
class Opened:
    """The parts of a Services opened so far (None: not yet)."""

    embedder: Embedder | None
    vectors: VectorStore | None


@dataclass
class Services:
    """The store plus what is opened on first use: embedder, vectors, memories, tools.

    Two VectorStores on one data dir would each keep their own copy of an index, so every
    memory gets the one here. The Services that opened the store serve its space (`default`);
    `in_space(name)` gives those of another space: the same store and embedding model, their
    own indexes, caches and memories, so nothing crosses spaces.
    """

    settings: Settings
    store: Store
    space: str = DEFAULT_SPACE
    _parent: Services | None = None  # the Services owning the store (None: these)
    _spaces: dict[str, Services] = field(default_factory=dict)  # the others, on the owner
    _embedder: Embedder | None = None
    _vectors: VectorStore | None = None
    _props: PropsMemory | None = None
    _timeline: TimelineMemory | None = None
    _tools: ToolEnv | None = None
    _lock: threading.RLock = field(default_factory=threading.RLock)
    # guards _spaces only: _lock may be held for seconds while the model loads
    _spaces_lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def open(cls, settings: Settings, url: str | None = None) -> Services:
        with deadline.lifted():  # see _opening
            return cls(settings, open_store(url, settings))

    @property
    def owner(self) -> Services:
        """The Services that own the store, the model and the other spaces."""
        return self._parent or self

    def in_space(self, space: str | None) -> Services:
        """The services of `space` (checked; None: `default`), made on first use."""
        space, owner = checked_space(space), self.owner
        if space == owner.space:
            return owner
        with owner._spaces_lock:
            found = owner._spaces.get(space)
            if found is None:
                view = owner.store.in_space(space)
                found = owner._spaces[space] = Services(owner.settings, view, space, owner)
            return found

    def delete_space(self, space: str) -> int:
        """Delete every node of `space` and its index files; how many nodes went.

        Its open indexes and memories in this process are dropped first: the next use of the
        space starts empty.
        """
        space, owner = checked_space(space), self.owner
        with owner._spaces_lock:
            target = owner if space == owner.space else owner._spaces.pop(space, None)
        if target is not None:
            target._close_indexes()
        deleted = owner.store.delete_space_nodes(space)
        remove_index_files(owner.settings.home, space)
        return deleted

    @contextlib.contextmanager
    def _opening(self) -> Iterator[None]:
        """Hold the lock, without the operation's time limit: what is opened here (the model,
        the indexes read from the graph) is opened once, at first use, and may take longer."""
        with self._lock, deadline.lifted():
            yield

    def embedder(self) -> Embedder:
        if self._parent is not None:
            return self._parent.embedder()  # one model for every space
        with self._opening():
            if self._embedder is None:
                self._embedder = open_embedder(self.settings)
            return self._embedder

    def vectors(self, *, check: bool = True) -> VectorStore:
        """This space's vector indexes; opening them warns (with `check`) if the stored vectors
        were made by another embedder than the configured one."""
        with self._opening():
            if self._vectors is None:
                self._vectors = open_vectors(
                    self.settings, self.store, self.embedder(), check=check
                )
            return self._vectors

    def reembed(
        self,
        labels: Sequence[str] | None = None,
        batch: int | None = None,
        force: bool = False,
        progress: Progress | None = None,
    ) -> list[Reembedded]:
        """Re-embed this space's stored vectors with the configured embedder and rebuild its
        vector indexes (graphmem/vectors/reembed.py); what was done, per label."""
        from graphmem.vectors.reembed import BATCH, checked_batch, checked_labels, reembed

        chosen = checked_labels(labels)  # bad arguments fail before the model loads
        size = checked_batch(BATCH if batch is None else batch)
        vectors = self.vectors(check=False)  # what the warning would say, this fixes
        with deadline.lifted():
            return reembed(self.store, self.embedder(), vectors, chosen, size, force, progress)

    def timeline(self) -> TimelineMemory:
        with self._opening():
            if self._timeline is None:
                from graphmem.timeline import TimelineMemory
                from graphmem.timeline.formula import TimelineConfig

                config = TimelineConfig.from_settings(self.settings)
                self._timeline = TimelineMemory(self.store, self.embedder(), self.vectors(), config)
            return self._timeline

    def props(self) -> PropsMemory:
        """The propositions memory; its relation classifier uses the LLM when one is set."""
        with self._opening():
            if self._props is None:
                self._props = open_props(
                    self.settings, self.store, embedder=self.embedder(), vectors=self.vectors()
                )
            return self._props

    def tools(self) -> ToolEnv:
        with self._opening():
            if self._tools is None:
                from graphmem.series.meta.textsearch import SegmentSearch
                from graphmem.series.meta.tools import ToolEnv

                search = SegmentSearch(self.store, self.embedder(), self.vectors())
                self._tools = ToolEnv(self.store, self.settings, lambda: search, owns_search=False)
            return self._tools

    def warm_up(self) -> None:
        """Open now what a first call would: the model (and one inference), every vector index,
        the propositions' keyword index, the memories; so no later call pays for it."""
        from graphmem.props.relate import LABEL
        from graphmem.vectors.store import LABELS

        self.embedder().encode_one("warm-up")  # a first inference allocates its buffers
        vectors = self.vectors()
        for label in LABELS:
            vectors.index(label)
        self.props().keywords.index(LABEL)  # what retrieval's keyword channel searches
        self.timeline()
        self.tools()

    def opened(self) -> Opened:
        """What is open so far; takes no lock, so it answers while something is being opened."""
        return Opened(self._embedder, self._vectors)

    def opened_spaces(self) -> dict[str, Opened]:
        """What is open so far in every space used in this process, by space name."""
        owner = self.owner
        with owner._spaces_lock:  # held for a copy only, never across an opening
            others = dict(owner._spaces)
        return {owner.space: owner.opened()} | {name: s.opened() for name, s in others.items()}

    def _close_indexes(self) -> None:
        """Save and forget the vector and keyword indexes and the memories using them."""
        with self._lock:
            if self._props is not None:
                self._props.keywords.close()
            if self._vectors is not None:
                self._vectors.close()
            self._vectors = self._props = self._timeline = self._tools = None

    def close(self) -> None:
        """Save the vector and keyword indexes (of every space) and close the store."""
        with self._spaces_lock:
            others, self._spaces = list(self._spaces.values()), {}
        for other in others:
            other._close_indexes()
        with self._lock:
            self._close_indexes()
            self.store.close()

    def __enter__(self) -> Services:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
