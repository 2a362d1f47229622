"""Graph store: `open_store(url)` gives one interface over embedded FalkorDB, FalkorDB and Neo4j."""

from __future__ import annotations

import atexit
from pathlib import Path
from urllib.parse import unquote, urlparse

from falkordb import FalkorDB

from graphmem.config import Settings
from graphmem.errors import InvalidInput
from graphmem.store.base import Health, Row, Store
from graphmem.store.falkordb_engine import CLIENT_NAME, FalkorDBStore

DEFAULT_GRAPH = "graphmem"
SCHEMES = ("falkordb+embedded", "falkordb", "bolt", "neo4j", "neo4j+s", "neo4j+ssc", "bolt+s")

__all__ = ["Health", "Row", "Store", "open_store"]


def open_store(url: str | None = None, settings: Settings | None = None) -> Store:
    """Open the store at `url` (default: the embedded FalkorDB in the data dir), schema applied."""
    settings = settings or Settings.from_env()
    url = url or settings.resolved_store_url
    parsed = urlparse(url)
    if parsed.scheme not in SCHEMES:
        raise InvalidInput("store url", f"unsupported scheme in {url!r}; use one of {SCHEMES}")
    if parsed.scheme == "falkordb+embedded":
        store = _embedded(Path(unquote(parsed.path) or settings.home), settings)
    elif parsed.scheme == "falkordb":
        store = _external_falkordb(parsed)
    else:
        store = _neo4j(url, parsed, settings)
    try:
        store.apply_schema()
    except BaseException:
        store.close()
        raise
    atexit.register(store.close)
    return store


def _embedded(data_dir: Path, settings: Settings) -> Store:
    from graphmem.store import embedded

    server, client = embedded.acquire(data_dir, settings.appendfsync)
    return FalkorDBStore(client, DEFAULT_GRAPH, on_close=server.release)


def _external_falkordb(parsed) -> Store:  # noqa: ANN001 - urllib's ParseResult
    graph = parsed.path.strip("/") or DEFAULT_GRAPH
    client = FalkorDB(
        host=parsed.hostname or "localhost",
        port=parsed.port or 6379,
        username=unquote(parsed.username) if parsed.username else None,
        password=unquote(parsed.password) if parsed.password else None,
        client_name=CLIENT_NAME,
    )
    return FalkorDBStore(client, graph)


def _neo4j(url: str, parsed, settings: Settings) -> Store:  # noqa: ANN001
    from graphmem.store.neo4j_engine import Neo4jStore

    user = unquote(parsed.username) if parsed.username else settings.neo4j_user
    password = unquote(parsed.password) if parsed.password else settings.neo4j_password
    database = parsed.path.strip("/") or settings.neo4j_database
    netloc = parsed.hostname + (f":{parsed.port}" if parsed.port else "")
    clean = parsed._replace(netloc=netloc, path="").geturl()
    auth = (user or "neo4j", password) if password else None
    return Neo4jStore(clean, auth, database or None)


def data_dir_of(url: str) -> Path | None:
    """The data dir of an embedded store URL (where FAISS indexes live too), else None."""
    parsed = urlparse(url)
    return Path(unquote(parsed.path)) if parsed.scheme == "falkordb+embedded" else None
