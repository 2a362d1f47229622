"""The typed per-request context every resolver receives."""

from __future__ import annotations

from dataclasses import dataclass

from strawberry.types import Info as StrawberryInfo

from api.credentials import OPEN, Grant
from api.state import AppState
from graphmem.services import Services
from graphmem.store import Store


@dataclass
class Context:
    """Per-request access to the app's services."""

    state: AppState
    grant: Grant | None = OPEN  # what the caller's token allows (None: no token, read only)

    @property
    def store(self) -> Store:
        return self.state.store()

    @property
    def services(self) -> Services:
        return self.state.services()


Info = StrawberryInfo[Context, None]
