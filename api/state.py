"""What the app keeps between requests: settings and a lazily opened store."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from graphmem.config import Settings
from graphmem.series.tools import ToolEnv
from graphmem.store import Health, Store, open_store


@dataclass
class AppState:
    """Opens the store on first use, so the app starts (and reports health) even if it is down."""

    settings: Settings
    _store: Store | None = None
    _tools: ToolEnv | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def store(self) -> Store:
        with self._lock:
            if self._store is None:
                self._store = open_store(settings=self.settings)
            return self._store

    def tool_env(self) -> ToolEnv:
        """Tools' environment, kept for the app's life (its vector index stays open)."""
        store = self.store()
        with self._lock:
            if self._tools is None:
                self._tools = ToolEnv(store, self.settings)
            return self._tools

    def health(self) -> Health:
        """Never raises: an unreachable store is reported, not thrown."""
        engine = self.settings.resolved_store_url.split(":", 1)[0]
        try:
            return self.store().health()
        except Exception as error:  # noqa: BLE001 - health reports every failure
            return Health(engine=engine, reachable=False, detail=str(error))

    def close(self) -> None:
        with self._lock:
            if self._tools is not None:
                self._tools.close()
                self._tools = None
            if self._store is not None:
                self._store.close()
                self._store = None
