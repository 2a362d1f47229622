"""Refuse a request body over GRAPHMEM_MAX_BODY_BYTES before anything parses it (HTTP 413)."""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphmem.limits import ENV


class BodySizeLimit:
    """ASGI middleware: a body over `max_bytes` is refused by its Content-Length, or, sent in
    chunks, as soon as the bytes read pass the limit; the app never sees it.

    A body within the limit is read whole here and handed on: the GraphQL app reads it whole
    anyway, before it can parse it.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(scope, receive, send, f"{declared:,} bytes", declared)
            return
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                await self.app(scope, _replay(message, receive), send)
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_bytes:
                await self._refuse(scope, receive, send, f"at least {size:,} bytes", size)
                return
            if not message.get("more_body", False):
                break
        body = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, _replay(body, receive), send)

    async def _refuse(
        self, scope: Scope, receive: Receive, send: Send, size: str, found: int
    ) -> None:
        message = (
            f"the request body is {size}, more than the {self.max_bytes:,} allowed "
            f"({ENV['body_bytes']}); send large inputs in several requests"
        )
        error = {
            "message": message,
            "extensions": {"code": "REQUEST_TOO_LARGE", "max": self.max_bytes, "found": found},
        }
        # Connection: close, since the rest of the body is left unread
        response = JSONResponse(
            {"data": None, "errors": [error]}, status_code=413, headers={"connection": "close"}
        )
        await response(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the server refuses such a request before it gets here
    return None


def _replay(first: Message, receive: Receive) -> Receive:
    """A receive that gives `first` once, then defers to the server's."""
    pending = [first]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return replay
