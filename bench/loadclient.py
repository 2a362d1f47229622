"""A lean HTTP/1.1 keep-alive client for the load benchmark: asyncio streams, no parsing extras.

httpx costs ~0.5 ms of CPU per request; on a 2-core machine shared with the server that is a
tenth of the server's budget at 300 req/s. This client only writes a POST and reads one
Content-Length (or chunked) reply, so the load it generates costs far less than the server.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any


class Connection:
    """One keep-alive connection; requests on it are sequential (one virtual client)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def post_json(self, path: str, payload: Any) -> tuple[int, Any]:
        """POST `payload` as JSON; (status, decoded JSON body or the raw text)."""
        body = json.dumps(payload).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode()
        if self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        assert self._reader is not None
        self._writer.write(head + body)
        status, headers = await self._head()
        data = await self._body(headers)
        if headers.get("connection") == "close":
            await self.close()
        try:
            return status, json.loads(data)
        except ValueError:
            return status, data.decode(errors="replace")

    async def _head(self) -> tuple[int, dict[str, str]]:
        assert self._reader is not None
        raw = await self._reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        return status, headers

    async def _body(self, headers: dict[str, str]) -> bytes:
        assert self._reader is not None
        if "content-length" in headers:
            return await self._reader.readexactly(int(headers["content-length"]))
        if headers.get("transfer-encoding") != "chunked":
            raise RuntimeError(f"reply without a length: {headers}")
        parts = []
        while True:
            size = int((await self._reader.readuntil(b"\r\n")).strip(), 16)
            parts.append(await self._reader.readexactly(size + 2))
            if size == 0:
                return b"".join(p[:-2] for p in parts)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._reader = self._writer = None
