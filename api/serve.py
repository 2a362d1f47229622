"""Starting the servers: the GraphQL API over HTTP (uvicorn) and MCP over stdio.

`graphmem serve` and `graphmem mcp` call these by module name (graphmem/cli.py).
"""

from __future__ import annotations

import logging
import sys

import uvicorn

from api import security
from api.app import create_app
from api.execution import share_the_gil
from api.mcp_server import serve_stdio
from api.requestid import log_config
from graphmem.config import Settings
from graphmem.store import redact


def serve_http(settings: Settings, host: str, port: int, *, insecure: bool = False) -> int:
    """Serve until stopped; 2 (nothing bound) when exposing it without a token is refused."""
    app = create_app(settings)  # checks tokens, hosts and origins before anything is bound
    tokens = app.state.tokens
    problem = security.exposure_problem(settings, tokens)
    if problem and not insecure:
        print(f"refused: {problem}; or pass --insecure to serve anyway", file=sys.stderr)
        return 2
    if problem:
        print(f"warning (--insecure): {problem}", file=sys.stderr)
    store = redact(settings.resolved_store_url)
    print(f"graphmem API on http://{host}:{port}/graphql (store: {store})")
    for line in security.describe(settings, tokens):
        print(f"  {line}")
    # every line of a request carries its id: docs/observability.md
    logs = log_config(logging.getLogger().level)
    share_the_gil()
    uvicorn.run(app, host=host, port=port, log_level="info", log_config=logs)
    return 0


def serve_mcp_stdio(settings: Settings, read_only: bool, space: str) -> int:
    """Serve MCP over stdin/stdout for one client, in `space`, until it closes them."""
    serve_stdio(settings, read_only, space)
    return 0
