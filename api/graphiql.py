"""GraphiQL from the package: the page at GET /graphql, its files under /graphiql/static.

The vendored build (api/static/graphiql/vendor) comes from tools/graphiql/update; the page
and start.js are graphmem's. A Content-Security-Policy lets the page load and call nothing
but this server, so a browser would refuse an outside URL even if one crept in.
"""

from __future__ import annotations

import functools
from pathlib import Path

from starlette.responses import HTMLResponse
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

from api.security import graphiql_enabled
from graphmem.config import Settings

STATIC = Path(__file__).parent / "static" / "graphiql"
STATIC_PATH = "/graphiql/static"  # the page at /graphql refers to it as graphiql/static/...
CSP = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",  # GraphiQL's components set inline styles
        "img-src 'self' data:",
        "font-src 'self' data:",  # its fonts are data: URLs inside graphiql.min.css
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ]
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@functools.cache
def _page() -> str:
    return (STATIC / "index.html").read_text(encoding="utf-8")


def page() -> HTMLResponse:
    """The GraphiQL page, with a policy that keeps it on this server."""
    return HTMLResponse(_page(), headers=HEADERS)


def routes(settings: Settings) -> list[BaseRoute]:
    """The page's files, when GraphiQL is on."""
    if not graphiql_enabled(settings):
        return []
    return [Mount(STATIC_PATH, app=StaticFiles(directory=STATIC), name="graphiql")]
