"""The composition root: one store and one embedding model; per space, the vector indexes every
memory shares. The only place an embedder or a vector store is built from settings
(tests/test_layers.py keeps it so): the memories and the series tools receive them.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

from graphmem import deadline
from graphmem.config import Settings
from graphmem.errors import GraphmemError, InvalidInput
from graphmem.spaces import (
    DEFAULT_SPACE,
    checked_space,
    index_dir,
    remove_index_files,
)
from graphmem.store import Store, open_store

T = TypeVar("T")
log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from typing import Literal

    from graphmem.embed import Embedder
    from graphmem.llm import LLM
    from graphmem.props.classify import Classifier
    from graphmem.props.memory import PropsMemory
    from graphmem.props.offline import OfflineClassifier
    from graphmem.series.meta.tools import ToolEnv
    from graphmem.timeline import TimelineMemory
    from graphmem.vectors import VectorConfig, VectorStore
    from graphmem.vectors.reembed import Progress, Reembedded


def open_embedder(settings: Settings) -> Embedder:
    """The embedding model GRAPHMEM_EMBED_MODEL, _EMBED_BACKEND and _MODEL_CACHE ask for."""
    from graphmem.embed import Embedder

    return Embedder.from_settings(settings)


def offline_classifier(settings: Settings, embedder: Embedder) -> OfflineClassifier:
    """The offline relation classifier over `embedder`'s vectors; when the relation model was
    fitted on another embedding model's (GRAPHMEM_EMBED_MODEL set to another), that one too."""
    from graphmem.embed import Embedder
    from graphmem.embed.embedder import CACHED_ONES
    from graphmem.props.offline import OfflineClassifier, same_model
    from graphmem.props.pairmodel import load_model

    model = load_model()
    fitted_with = model.embedding.model if model.embedding else None
    fitted = None
    if fitted_with is not None and not same_model(embedder, fitted_with):
        base, _, precision = fitted_with.partition("@")
        fitted = Embedder(
            base,
            cache_dir=settings.model_cache,
            cached_ones=CACHED_ONES,
            precision=precision or "fp32",
        )
    return OfflineClassifier(model=model, embedder=embedder, fitted=fitted)


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
        classifier = (
            LLMClassifier(chosen) if chosen is not None else offline_classifier(settings, embedder)
        )
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
    own indexes, caches and memories, so nothing crosses spaces. At most
    GRAPHMEM_MAX_OPEN_SPACES spaces stay open: the least recently used one that no operation
    holds (`using`) is closed first, and opened again by its next use (docs/spaces.md).
    """

    settings: Settings
    store: Store
    space: str = DEFAULT_SPACE
    _parent: Services | None = None  # the Services owning the store (None: these)
    # the others, on the owner, least recently used first
    _spaces: OrderedDict[str, Services] = field(default_factory=OrderedDict)
    _closing: dict[str, Services] = field(default_factory=dict)  # on the owner: being closed
    _closed_spaces: int = 0  # on the owner: how many times a space was closed to bound them
    _leases: int = 0  # operations holding these services now (under the owner's _spaces_lock)
    _evicted: bool = False  # closed (to bound the open spaces, or deleted): use the space's next
    _shut: threading.Event = field(default_factory=threading.Event)  # set once that close is done
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
        """The services of `space` (checked; None: `default`), made on first use.

        Without a lease (`using`) they may be closed once GRAPHMEM_MAX_OPEN_SPACES other
        spaces were used since; their accessors then answer with the space's reopened ones.
        """
        return self._held(space, 0)

    @contextlib.contextmanager
    def using(self, space: str | None) -> Iterator[Services]:
        """The services of `space`, never closed to bound the open spaces while this lasts."""
        with Lease(lambda: self, space) as lease:
            yield lease()

    def open_spaces(self) -> int:
        """How many spaces have services in this process (the owner's included)."""
        owner = self.owner
        with owner._spaces_lock:
            return 1 + len(owner._spaces)

    def closed_spaces(self) -> int:
        """How many times a space was closed to keep GRAPHMEM_MAX_OPEN_SPACES."""
        return self.owner._closed_spaces

    def _held(self, space: str | None, lease: int) -> Services:
        """The services of `space`, most recently used now, with `lease` more holders."""
        space, owner = checked_space(space), self.owner
        if space == owner.space:
            return owner  # never closed: it holds the store
        with owner._spaces_lock:
            found = owner._spaces.get(space)
            if found is None:
                view = owner.store.in_space(space)
                found = owner._spaces[space] = Services(owner.settings, view, space, owner)
            owner._spaces.move_to_end(space)
            found._leases += lease
            idle = owner._evict(keep=found)
        owner._shut_down(idle)
        return found

    def _release(self) -> None:
        """One holder fewer; close what is over the limit now that it may be idle."""
        owner = self.owner
        if self is owner:
            return
        with owner._spaces_lock:
            self._leases -= 1
            idle = owner._evict()
        owner._shut_down(idle)

    def _evict(self, keep: Services | None = None) -> list[Services]:
        """Under _spaces_lock: take out the least recently used idle spaces over the limit."""
        excess = 1 + len(self._spaces) - self.settings.max_open_spaces
        if excess <= 0:
            return []
        idle = [s for s in self._spaces.values() if s._leases == 0 and s is not keep][:excess]
        for services in idle:
            del self._spaces[services.space]
            services._evicted = True
            self._closing[services.space] = services
            self._closed_spaces += 1
        return idle

    def _shut_down(self, evicted: list[Services]) -> None:
        """Close the indexes of spaces taken out (outside _spaces_lock: it saves files)."""
        for services in evicted:
            try:  # not bound by the operation that went over the limit, nor failing it
                with deadline.lifted():
                    services._close_indexes()
            except (GraphmemError, OSError) as error:  # the graph holds it all: reopens catch up
                log.warning("closing space %s: indexes not saved: %s", services.space, error)
            finally:
                services._shut.set()
                with self._spaces_lock:
                    if self._closing.get(services.space) is services:
                        del self._closing[services.space]

    def _current(self) -> Services:
        """These services, or the space's reopened ones if these were closed meanwhile."""
        if not self._evicted:
            return self
        return self.owner.in_space(self.space)

    def delete_space(self, space: str) -> int:
        """Delete every node of `space` and its index files; how many nodes went.

        Its open indexes and memories in this process are dropped first: the next use of the
        space starts empty.
        """
        space, owner = checked_space(space), self.owner
        with owner._spaces_lock:
            target = owner if space == owner.space else owner._spaces.pop(space, None)
            if target is not None and target is not owner:
                target._evicted = True
        if target is not None:
            target._close_indexes()
        deleted = owner.store.delete_space_nodes(space)
        remove_index_files(owner.settings.home, space)
        _signal_every_change(owner.settings.home)  # other processes drop the space's items
        return deleted

    @contextlib.contextmanager
    def _opening(self) -> Iterator[None]:
        """Hold the lock, without the operation's time limit: what is opened here (the model,
        the indexes read from the graph) is opened once, at first use, and may take longer."""
        with self._lock, deadline.lifted():
            yield

    def _part(self, name: str, make: Callable[[Services], T]) -> T:
        """The part `name` (e.g. "_props") of the space's live services, made on first use."""
        live = self._current()
        with live._opening():
            part = getattr(live, name)
            if part is None:
                part = make(live)
                setattr(live, name, part)
            return cast("T", part)

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

        def make(live: Services) -> VectorStore:
            previous = live.owner._closing.get(live.space)
            if previous is not None:  # its last save first: then the files are up to date
                previous._shut.wait()
            return open_vectors(live.settings, live.store, live.embedder(), check=check)

        return self._part("_vectors", make)

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
        def make(live: Services) -> TimelineMemory:
            from graphmem.timeline import TimelineMemory
            from graphmem.timeline.formula import TimelineConfig

            config = TimelineConfig.from_settings(live.settings)
            return TimelineMemory(live.store, live.embedder(), live.vectors(), config)

        return self._part("_timeline", make)

    def props(self) -> PropsMemory:
        """The propositions memory; its relation classifier uses the LLM when one is set."""

        def make(live: Services) -> PropsMemory:
            embedder, vectors = live.embedder(), live.vectors()
            return open_props(live.settings, live.store, embedder=embedder, vectors=vectors)

        return self._part("_props", make)

    def tools(self) -> ToolEnv:
        def make(live: Services) -> ToolEnv:
            from graphmem.series.meta.textsearch import SegmentSearch
            from graphmem.series.meta.tools import ToolEnv

            search = SegmentSearch(live.store, live.embedder(), live.vectors())
            return ToolEnv(live.store, live.settings, lambda: search, owns_search=False)

        return self._part("_tools", make)

    def warm_up(self) -> None:
        """Open now what a first call would: the model (and one inference), every vector index,
        the propositions' keyword index and relation classifier, the memories; so no later call
        pays for it."""
        from graphmem.props.relate import LABEL
        from graphmem.vectors.store import LABELS

        self.embedder().encode_one("warm-up")  # a first inference allocates its buffers
        vectors = self.vectors()
        for label in LABELS:
            vectors.index(label)
        props = self.props()
        props.keywords.index(LABEL)  # what retrieval's keyword channel searches
        classifier_warm_up = getattr(props.classifier, "warm_up", None)  # optional (Classifier)
        if classifier_warm_up is not None:
            classifier_warm_up()
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
            others, self._spaces = list(self._spaces.values()), OrderedDict()
        for other in others:
            other._close_indexes()
        with self._lock:
            self._close_indexes()
            self.store.close()

    def __enter__(self) -> Services:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _signal_every_change(home: Path) -> None:
    """Move every counter of the data dir's change signal (graphmem/vectors/changes.py)."""
    from graphmem.vectors.changes import signal_changes

    signal_changes(home, None, "the deletion of a space")


class Lease:
    """The services of one space, held (see `Services.using`) from their first use until
    `close()`: an operation's, so its space is never closed under it, nor opened for nothing."""

    def __init__(self, owner: Callable[[], Services], space: str | None) -> None:
        self._owner, self.space = owner, space
        self._held: Services | None = None
        self._lock = threading.Lock()

    def __call__(self) -> Services:
        with self._lock:
            if self._held is None:
                self._held = self._owner()._held(self.space, 1)
            return self._held

    def close(self) -> None:
        with self._lock:
            held, self._held = self._held, None
        if held is not None:
            held._release()

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
