"""Starting the servers: the GraphQL API over HTTP (uvicorn) and MCP over stdio.

`graphmem serve` and `graphmem mcp` call these by module name (graphmem/cli.py).

With `--workers N` (N > 1) uvicorn's supervisor runs N worker processes on one socket and
starts a new one when one dies; each builds its app with `worker_app` from the environment,
where the supervisor put what the command line changed. Their metrics meet in a directory of
prometheus_client's multiprocess mode. See docs/deploying.md.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette

from api import security
from api.app import create_app
from api.execution import share_the_gil
from api.mcp_server import serve_stdio
from api.metrics import MULTIPROC_DIR
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
    if settings.serve_workers > 1:
        del app  # each worker builds its own
        return _serve_workers(settings, host, port, logs)
    share_the_gil()
    uvicorn.run(app, host=host, port=port, log_level="info", log_config=logs)
    return 0


WORKER_APP = "api.serve:worker_app"  # what uvicorn imports in each worker
HEALTHCHECK_S = 30  # a worker that answers no ping for this long is killed and replaced


def worker_app() -> Starlette:
    """The app of one worker of `serve --workers N`, from the environment (uvicorn calls it)."""
    share_the_gil()
    return create_app(Settings.from_env())


def worker_environment(settings: Settings) -> dict[str, str]:
    """What the workers need in their environment to read the supervisor's settings."""
    env = {
        "GRAPHMEM_HOST": settings.host,
        "GRAPHMEM_WARMUP": settings.warmup,
        "GRAPHMEM_SERVE_WORKERS": str(settings.serve_workers),
    }
    if settings.store_url:  # --store
        env["GRAPHMEM_STORE"] = settings.store_url
    return env


def _serve_workers(settings: Settings, host: str, port: int, logs: dict[str, Any]) -> int:
    """Serve with `settings.serve_workers` processes until stopped, then stop them all.

    On SIGINT or SIGTERM uvicorn's supervisor sends SIGTERM to every worker and waits for
    each: a worker closes its store at shutdown, and the last one to close the embedded
    store stops its server.
    """
    os.environ.update(worker_environment(settings))
    with multiprocess_metrics():
        uvicorn.run(
            WORKER_APP,
            factory=True,
            host=host,
            port=port,
            workers=settings.serve_workers,
            log_level="info",
            log_config=logs,
            timeout_worker_healthcheck=HEALTHCHECK_S,
        )
    return 0


@contextlib.contextmanager
def multiprocess_metrics() -> Iterator[Path]:
    """A directory for the workers' metrics, emptied first: $PROMETHEUS_MULTIPROC_DIR if set,
    else a temporary one, removed at the end. Set in the environment before any worker starts
    (prometheus_client reads it at import)."""
    given = os.environ.get(MULTIPROC_DIR)
    directory = Path(given) if given else Path(tempfile.mkdtemp(prefix="graphmem-metrics-"))
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("*.db"):  # a previous run's: its counts are not this one's
        stale.unlink()
    os.environ[MULTIPROC_DIR] = str(directory)
    try:
        yield directory
    finally:
        if not given:
            shutil.rmtree(directory, ignore_errors=True)


def serve_mcp_stdio(settings: Settings, read_only: bool, space: str) -> int:
    """Serve MCP over stdin/stdout for one client, in `space`, until it closes them."""
    serve_stdio(settings, read_only, space)
    return 0
