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
from graphmem.store import data_dir_of, redact

if TYPE_CHECKING:
    from graphmem.store import Store


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
    """

    def __init__(self, store_url: str | None = None, *, settings: Settings | None = None) -> None:
        self.settings = configured(store_url, settings)
        self._services: Services | None = None
        self._closed = False
        self._lock = threading.Lock()
        self.series = Series(self)
        self.propositions = Propositions(self)
        self.timeline = Timeline(self)

    @classmethod
    def open(cls, store_url: str | None = None, *, settings: Settings | None = None) -> Memory:
        """A Memory with its store open now, so a store that cannot be reached fails here."""
        memory = cls(store_url, settings=settings)
        memory.services()
        return memory

    def services(self) -> Services:
        """The shared store, model and indexes behind the memories (the store opens here)."""
        with self._lock:
            if self._closed:
                raise StoreUnavailable("this Memory is closed; open a new one")
            if self._services is None:
                self._services = Services.open(self.settings)
            return self._services

    @property
    def store(self) -> Store:
        """The graph store itself, e.g. for `memory.store.inspect(cypher)`."""
        return self.services().store

    def warm_up(self) -> None:
        """Open now what the first calls would: the model, every vector index, the memories."""
        self.services().warm_up()

    def close(self) -> None:
        """Save the vector indexes and close the store; closing twice is harmless."""
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
        return f"Memory({redact(self.settings.resolved_store_url)!r}, {state})"


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
