"""The ASGI app: /graphql (with GraphiQL when on), /mcp, /healthz, /readyz, /metrics, and who
may reach them."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any, Literal

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from strawberry.asgi import GraphQL

import graphmem
from api import graphiql, security
from api.auth import TokenAuth, grant_of, space_of
from api.bodysize import BodySizeLimit
from api.context import Context
from api.credentials import Tokens
from api.mcp_server import McpHttp
from api.observe import Observability, RequestIdInResults
from api.schema import schema
from api.state import AppState
from graphmem.config import Settings


class GraphQLApp(RequestIdInResults, TokenAuth, GraphQL[Context, None]):  # type: ignore[misc]
    """strawberry's ASGI app with graphmem's typed context, tokens, GraphiQL page, request ids."""

    def __init__(self, state: AppState, tokens: Tokens) -> None:
        ide: Literal["graphiql"] | None = (
            "graphiql" if security.graphiql_enabled(state.settings) else None
        )
        super().__init__(schema, graphql_ide=ide)
        self.state = state
        self.tokens = tokens

    async def get_context(self, request: Any, response: Any) -> Context:
        return Context(self.state, grant_of(request), space_of(request))

    async def render_graphql_ide(self, request: Any) -> Response:
        return graphiql.page()


def create_app(settings: Settings | None = None) -> Starlette:
    """Build the app; the store opens on first use and closes at shutdown.

    Tokens (and the tokens file), hosts and origins are checked here: InvalidInput naming
    the variable, before anything is served.
    """
    settings = settings or Settings.from_env()
    tokens = Tokens.from_settings(settings)
    state = AppState(settings)
    observed = Observability(state)  # request ids, /metrics, warm-up and /readyz
    mcp = McpHttp(state, tokens)  # the MCP server at /mcp (docs/mcp.md)

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
        async with observed.running(), mcp.running():
            yield
        state.close()

    graphql = GraphQLApp(state, tokens)
    routes = [
        Route("/healthz", healthz),
        Route("/graphql", graphql, methods=["GET", "POST"]),
        mcp.route(),
        *graphiql.routes(settings),
        *observed.routes(),
    ]
    # request ids and metrics outermost: what security refuses is counted and has an id too
    # then hosts and CORS: a body is read (up to its limit) only for a request they let in
    middleware = [
        observed.middleware(routes),
        *security.middleware(settings),
        Middleware(BodySizeLimit, max_bytes=settings.limits.body_bytes),
    ]
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.graphmem = state
    app.state.tokens = tokens
    return app
