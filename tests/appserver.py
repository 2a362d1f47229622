"""The real ASGI app served by uvicorn on a free local port, for tests that talk HTTP to it."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import uvicorn
from starlette.applications import Starlette

from api.app import create_app
from graphmem.config import Settings


def free_port() -> int:
    """A local TCP port nothing listens on (now)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def served(settings: Settings) -> Iterator[str]:
    """Serve the app with `settings` on 127.0.0.1; yields its base URL, stops it on exit."""
    with serving(create_app(settings)) as url:
        yield url


@contextlib.contextmanager
def serving(app: Starlette) -> Iterator[str]:
    """Serve `app` on 127.0.0.1 (a test may reach into its state); yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
