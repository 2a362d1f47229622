"""What the app keeps between requests: settings, lazily opened services, the worker pools."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

from graphmem.config import Settings
from graphmem.services import Services
from graphmem.store import Health, Store, engine_of

T = TypeVar("T")


@dataclass
class AppState:
    """Opens the store on first use, so the app starts (and reports health) even if it is down."""

    settings: Settings
    _services: Services | None = None
    _pools: dict[str, ThreadPoolExecutor] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _opening: bool = False  # Services.open is running (it may wait minutes for a loading store)
    # pool() is called on the event loop: it must not wait for an open holding _lock
    _pools_lock: threading.Lock = field(default_factory=threading.Lock)

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

    def pool(self, kind: str) -> ThreadPoolExecutor:
        """The threads `kind` ("query" or "mutation") operations run on, off the event loop.

        Each kind has its own `settings.workers` threads, so mutations in flight (a long
        append, a wait on the LLM) never leave a query without a thread. docs/concurrency.md
        says what runs in parallel and what is serialised.
        """
        with self._pools_lock:
            pool = self._pools.get(kind)
            if pool is None:
                pool = self._pools[kind] = ThreadPoolExecutor(
                    self.settings.workers, thread_name_prefix=f"graphmem-{kind}"
                )
            return pool

    async def run(self, work: Callable[[], T], kind: str = "query") -> T:
        """`work` on the `kind` pool (see pool()), in a copy of the caller's context.

        Store and model calls block: there they cannot stall the event loop, so /healthz and
        other requests are answered meanwhile; the context carries the request id, metrics
        sink (api/observe.py) and, once RequestLimits sets it, the operation's deadline along.
        """
        context = contextvars.copy_context()
        pool = self.pool(kind)
        return await asyncio.get_running_loop().run_in_executor(pool, context.run, work)

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
        with self._pools_lock:
            pools, self._pools = list(self._pools.values()), {}
        with self._lock:
            services, self._services = self._services, None
        for pool in pools:
            pool.shutdown(wait=True)
        if services is not None:
            services.close()
