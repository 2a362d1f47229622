"""The ASGI app: /graphql (GraphiQL on) and /healthz."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from strawberry.asgi import GraphQL

import graphmem
from api.bodysize import BodySizeLimit
from api.context import Context
from api.schema import schema
from api.state import AppState
from graphmem.config import Settings


class GraphQLApp(GraphQL):
    """strawberry's ASGI app with graphmem's typed context."""

    def __init__(self, state: AppState) -> None:
        super().__init__(schema, graphql_ide="graphiql")
        self.state = state

    async def get_context(self, request: Any, response: Any) -> Context:
        return Context(self.state)


def create_app(settings: Settings | None = None) -> Starlette:
    """Build the app; the store opens on first use and closes at shutdown."""
    state = AppState(settings or Settings.from_env())

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
        yield
        state.close()

    graphql = GraphQLApp(state)
    app = Starlette(
        routes=[
            Route("/healthz", healthz),
            Route("/graphql", graphql, methods=["GET", "POST"]),
        ],
        lifespan=lifespan,
        middleware=[Middleware(BodySizeLimit, max_bytes=state.settings.limits.body_bytes)],
    )
    app.state.graphmem = state
    return app
