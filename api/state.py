"""What the app keeps between requests: settings and lazily opened services."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from graphmem.config import Settings
from graphmem.services import Services
from graphmem.store import Health, Store


@dataclass
class AppState:
    """Opens the store on first use, so the app starts (and reports health) even if it is down."""

    settings: Settings
    _services: Services | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def services(self) -> Services:
        with self._lock:
            if self._services is None:
                self._services = Services.open(self.settings)
            return self._services

    def store(self) -> Store:
        return self.services().store

    def health(self) -> Health:
        """Never raises: an unreachable store is reported, not thrown."""
        engine = self.settings.resolved_store_url.split(":", 1)[0]
        try:
            return self.store().health()
        except Exception as error:  # noqa: BLE001 - health reports every failure
            return Health(engine=engine, reachable=False, detail=str(error))

    def close(self) -> None:
        with self._lock:
            if self._services is not None:
                self._services.close()
                self._services = None
