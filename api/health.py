"""Health: is the store reachable, which engine, which version."""

from __future__ import annotations

import strawberry

import graphmem
from api.context import Info


@strawberry.type
class Health:
    engine: str
    reachable: bool
    version: str | None
    detail: str | None
    graphmem_version: str


def health(info: Info) -> Health:
    h = info.context.state.health()
    return Health(
        engine=h.engine,
        reachable=h.reachable,
        version=h.version,
        detail=h.detail,
        graphmem_version=graphmem.__version__,
    )


@strawberry.type
class HealthQuery:
    health: Health = strawberry.field(resolver=health, description="Store engine and reachability")
