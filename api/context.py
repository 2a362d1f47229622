"""The typed per-request context every resolver receives."""

from __future__ import annotations

from dataclasses import dataclass, field

from strawberry.types import Info as StrawberryInfo

from api.credentials import OPEN, Grant
from api.state import AppState
from graphmem.services import Lease, Services
from graphmem.spaces import DEFAULT_SPACE
from graphmem.store import Store


@dataclass
class Context:
    """Per-request access to the app's services."""

    state: AppState
    grant: Grant | None = OPEN  # what the caller's token allows (None: no token, read only)
    space: str = DEFAULT_SPACE  # the request's X-Graphmem-Space (checked against the grant)
    # the space's services, held while the operation runs (api/execution.py closes it)
    lease: Lease = field(init=False)

    def __post_init__(self) -> None:
        self.lease = Lease(self.state.services, self.space)

    @property
    def store(self) -> Store:
        return self.services.store

    @property
    def services(self) -> Services:
        """The services of the request's space: its store view, indexes and memories."""
        return self.lease()


Info = StrawberryInfo[Context, None]
