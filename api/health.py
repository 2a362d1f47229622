"""Health: is the store reachable, which engine, which version."""

from __future__ import annotations

import strawberry

import graphmem
from api.context import Info


@strawberry.type(description="Whether the graph store answers, and what runs")
class Health:
    engine: str = strawberry.field(description="The graph store's engine")
    reachable: bool = strawberry.field(description="The store answered a query")
    version: str | None = strawberry.field(description="The engine's version, if it told")
    detail: str | None = strawberry.field(description="Why it is not reachable, if it is not")
    graphmem_version: str = strawberry.field(description="The version of graphmem serving")


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
