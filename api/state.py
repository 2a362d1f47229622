"""What the app keeps between requests: settings, lazily opened services, the resolver thread."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from graphmem.config import Settings
from graphmem.services import Services
from graphmem.store import Health, Store, engine_of


@dataclass
class AppState:
    """Opens the store on first use, so the app starts (and reports health) even if it is down."""

    settings: Settings
    _services: Services | None = None
    _worker: ThreadPoolExecutor | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _opening: bool = False  # Services.open is running (it may wait minutes for a loading store)
    # worker() is called on the event loop: it must not wait for an open holding _lock
    _worker_lock: threading.Lock = field(default_factory=threading.Lock)

    def services(self) -> Services:
        with self._lock:
            if self._services is None:
                self._opening = True
                try:
                    self._services = Services.open(self.settings)
                finally:
                    self._opening = False
            return self._services

    @property
    def opening(self) -> bool:
        """Whether the store is being opened right now."""
        return self._services is None and self._opening

    def opened_services(self) -> Services | None:
        """The services if they are open, without opening them or waiting for an open."""
        return self._services

    def store(self) -> Store:
        return self.services().store

    def worker(self) -> ThreadPoolExecutor:
        """The one thread GraphQL operations run on, off the event loop.

        One thread keeps operations serialised as they were on the loop (the memories are not
        written for concurrent use), while /healthz and other requests keep being answered.
        """
        with self._worker_lock:
            if self._worker is None:
                self._worker = ThreadPoolExecutor(1, thread_name_prefix="graphmem-graphql")
            return self._worker

    def health(self) -> Health:
        """Never raises: an unreachable store is reported, not thrown; never waits for an open."""
        if self.opening:
            engine = engine_of(self.settings.resolved_store_url)
            return Health(engine=engine, reachable=False, detail="the store is being opened")
        try:
            return self.store().health()
        except Exception as error:  # noqa: BLE001 - health reports every failure
            engine = engine_of(self.settings.resolved_store_url)
            return Health(engine=engine, reachable=False, detail=str(error))

    def close(self) -> None:
        with self._worker_lock:
            worker, self._worker = self._worker, None
        with self._lock:
            services, self._services = self._services, None
        if worker is not None:
            worker.shutdown(wait=True)
        if services is not None:
            services.close()
