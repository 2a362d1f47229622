"""The ASGI app: /graphql (GraphiQL on), /healthz, /readyz and /metrics."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from strawberry.asgi import GraphQL

import graphmem
from api.context import Context
from api.observe import Observability, RequestIdInResults
from api.schema import schema
from api.state import AppState
from graphmem.config import Settings


class GraphQLApp(RequestIdInResults, GraphQL):
    """strawberry's ASGI app with graphmem's typed context; responses carry the request id."""

    def __init__(self, state: AppState) -> None:
        super().__init__(schema, graphql_ide="graphiql")
        self.state = state

    async def get_context(self, request: Any, response: Any) -> Context:
        return Context(self.state)


def create_app(settings: Settings | None = None) -> Starlette:
    """Build the app; the store opens on first use and closes at shutdown."""
    state = AppState(settings or Settings.from_env())
    observed = Observability(state)  # request ids, /metrics, warm-up and /readyz

    async def healthz(request: Request) -> JSONResponse:
        h = await run_in_threadpool(state.health)  # it may wait on the network: not on the loop
        body = {
            "engine": h.engine,
            "reachable": h.reachable,
            "version": h.version,
            "detail": h.detail,
            "graphmem_version": graphmem.__version__,
        }
        return JSONResponse(body, status_code=200 if h.reachable else 503)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with observed.running():
            yield
        state.close()

    graphql = GraphQLApp(state)
    routes = [
        Route("/healthz", healthz),
        Route("/graphql", graphql, methods=["GET", "POST"]),
        *observed.routes(),
    ]
    app = Starlette(routes=routes, middleware=[observed.middleware(routes)], lifespan=lifespan)
    app.state.graphmem = state
    return app
