"""Memory: the configured store and its three memories, in one object to open and close."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from graphmem.config import Settings
from graphmem.errors import InvalidInput, StoreUnavailable
from graphmem.memory.propositions import Propositions
from graphmem.memory.series import Series
from graphmem.memory.timeline import Timeline
from graphmem.services import Services
from graphmem.spaces import checked_space
from graphmem.store import data_dir_of, redact

if TYPE_CHECKING:
    from collections.abc import Sequence

    from graphmem.store import Store
    from graphmem.vectors.reembed import Progress, Reembedded


class Memory:
    """graphmem's store with its memories: `series`, `propositions` and `timeline`.

    Making one opens nothing: the store opens at `Memory.open`, on entering `with`, or at the
    first call; the embedding model and each vector index open at the first call that needs
    them, once. One Memory may serve many threads. `close()` (or leaving `with`) saves the
    vector indexes and closes the store; calls after it raise StoreUnavailable.

    `store_url` defaults to the settings' (GRAPHMEM_STORE, else the embedded FalkorDB in
    GRAPHMEM_HOME); `settings` to `Settings.from_env()`. Given an embedded URL
    (`falkordb+embedded:///srv/graphmem`) and no settings, its data dir also holds the vector
    indexes.

    `space` (default: the settings', GRAPHMEM_SPACE, else `default`; docs/spaces.md) is the space
    every call reads and writes;
    `in_space(name)` gives a Memory on another space sharing this one's store and model.
    """

    def __init__(
        self,
        store_url: str | None = None,
        *,
        settings: Settings | None = None,
        space: str | None = None,
    ) -> None:
        self.settings = configured(store_url, settings)
        self.space = self.settings.space if space is None else checked_space(space)
        self._owner: Memory | None = None  # set by in_space: the Memory holding the store
        self._services: Services | None = None
        self._closed = False
        self._lock = threading.Lock()
        self.series = Series(self)
        self.propositions = Propositions(self)
        self.timeline = Timeline(self)

    @classmethod
    def open(
        cls,
        store_url: str | None = None,
        *,
        settings: Settings | None = None,
        space: str | None = None,
    ) -> Memory:
        """A Memory with its store open now, so a store that cannot be reached fails here."""
        memory = cls(store_url, settings=settings, space=space)
        memory.services()
        return memory

    def services(self) -> Services:
        """The store, model and this space's indexes behind the memories (the store opens here)."""
        if self._owner is not None:
            return self._owner.services().in_space(self.space)
        with self._lock:
            if self._closed:
                raise StoreUnavailable("this Memory is closed; open a new one")
            if self._services is None:
                self._services = Services.open(self.settings)
            return self._services.in_space(self.space)

    def in_space(self, space: str) -> Memory:
        """A Memory on `space` sharing this one's store and model; closing this one closes it."""
        other = Memory(settings=self.settings, space=space)
        other._owner = self._owner or self
        return other

    def spaces(self) -> list[str]:
        """Every space holding memories in the store, sorted."""
        return self.services().store.spaces()

    def delete_space(self, space: str) -> int:
        """Delete every memory of `space` and its index files; returns how many nodes went."""
        return self.services().delete_space(space)

    def reembed(
        self,
        labels: Sequence[str] | None = None,
        *,
        batch: int | None = None,
        force: bool = False,
        progress: Progress | None = None,
    ) -> list[Reembedded]:
        """Re-embed this space's stored vectors with the configured embedder (after a change of
        GRAPHMEM_EMBED_MODEL or _PRECISION) and rebuild its vector indexes; what was done, per
        label. Resumable; `labels` (default: every embedded one), `batch` nodes per statement,
        `force` re-embeds labels recorded as the embedder's already, `progress(label, done,
        total)` hears each batch (docs/embeddings.md)."""
        return self.services().reembed(labels, batch, force, progress)

    @property
    def store(self) -> Store:
        """The graph store itself, e.g. for `memory.store.inspect(cypher)`."""
        return self.services().store

    def warm_up(self) -> None:
        """Open now what the first calls would: the model, every vector index, the memories."""
        self.services().warm_up()

    def close(self) -> None:
        """Save the vector indexes and close the store; closing twice is harmless.

        A Memory from in_space closes nothing: the one it came from owns the store.
        """
        if self._owner is not None:
            return
        with self._lock:
            services, self._services, self._closed = self._services, None, True
        if services is not None:
            services.close()

    def __enter__(self) -> Memory:
        self.services()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open" if self._services else "not opened yet"
        where = redact(self.settings.resolved_store_url)
        return f"Memory({where!r}, space={self.space!r}, {state})"


def configured(store_url: str | None, settings: Settings | None) -> Settings:
    """The settings a Memory runs with: `settings` (or the environment's) with `store_url`.

    The URL is checked here, without connecting, so a malformed one fails at once.
    """
    if settings is not None and not isinstance(settings, Settings):
        raise InvalidInput("settings", "must be a graphmem.config.Settings, or None")
    if store_url is None:
        return settings or Settings.from_env()
    if not isinstance(store_url, str) or not store_url.strip():
        raise InvalidInput("store_url", "must be a store URL, or None for the configured store")
    base = settings or Settings.from_env()
    try:
        data_dir = data_dir_of(store_url, base)
    except InvalidInput as error:
        raise InvalidInput("store_url", error.problem) from None
    home = data_dir if settings is None else None  # None: keep the settings' home
    return base.with_overrides(store_url=store_url, home=home)
