"""Graph store: `open_store(url)` gives one interface over embedded FalkorDB, FalkorDB and Neo4j."""

from __future__ import annotations

import atexit
from pathlib import Path
from urllib.parse import SplitResult, parse_qsl, unquote, urlsplit

import redis.exceptions
from falkordb import FalkorDB

from graphmem.config import Settings
from graphmem.errors import InvalidInput, StoreUnavailable
from graphmem.metrics import counts_store_errors
from graphmem.store.base import Health, Row, Store
from graphmem.store.falkordb_engine import CLIENT_NAME, FalkorDBStore

DEFAULT_GRAPH = "graphmem"
# scheme -> engine name (what health reports)
ENGINES = {
    "falkordb+embedded": "falkordb",
    "falkordb": "falkordb",
    "bolt": "neo4j",
    "bolt+s": "neo4j",
    "neo4j": "neo4j",
    "neo4j+s": "neo4j",
    "neo4j+ssc": "neo4j",
}
SCHEMES = tuple(ENGINES)
# Seconds to wait for a remote server to accept a connection; the URL's ?connect_timeout=
# overrides it. Short, so an open or a health check against a server that is down fails
# in seconds rather than after the drivers' 30 s defaults.
CONNECT_TIMEOUT = 5.0

__all__ = ["Health", "Row", "Store", "engine_of", "open_store", "redact"]


@counts_store_errors
def open_store(url: str | None = None, settings: Settings | None = None) -> Store:
    """Open the store at `url` (default: the embedded FalkorDB in the data dir), schema applied."""
    settings = settings or Settings.from_env()
    url = url or settings.resolved_store_url
    parsed = _parse(url)
    if parsed.scheme == "falkordb+embedded":
        store = _embedded(_embedded_dir(parsed, settings), settings)
    elif parsed.scheme == "falkordb":
        store = _external_falkordb(parsed)
    else:
        store = _neo4j(parsed, settings)
    try:
        store.apply_schema()
    except BaseException:
        store.close()
        raise
    atexit.register(store.close)
    return store


def engine_of(url: str) -> str:
    """The engine a store URL names ("falkordb" or "neo4j"), without connecting."""
    scheme = url.split(":", 1)[0].lower()
    return ENGINES.get(scheme, scheme)


def redact(url: str) -> str:
    """The URL with its password replaced by ***, fit for printing and error messages."""
    try:
        parsed = urlsplit(url)
    except ValueError:
        return "<unparseable store url>"
    if "@" not in parsed.netloc:
        return url
    userinfo, hostport = parsed.netloc.rsplit("@", 1)
    user = userinfo.split(":", 1)[0]
    netloc = f"{user}:***@{hostport}" if ":" in userinfo else f"{user}@{hostport}"
    return parsed._replace(netloc=netloc).geturl()


def _parse(url: str) -> SplitResult:
    try:
        parsed = urlsplit(url)
        parsed.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as error:
        raise InvalidInput("store url", f"{redact(url)} is malformed: {error}") from None
    if parsed.scheme not in SCHEMES:
        raise InvalidInput(
            "store url", f"unsupported scheme in {redact(url)!r}; use one of {', '.join(SCHEMES)}"
        )
    return parsed


def _options(parsed: SplitResult) -> float:
    """The connect timeout from the URL's query (the only option there is)."""
    timeout = CONNECT_TIMEOUT
    for key, value in parse_qsl(parsed.query, keep_blank_values=True):
        if key != "connect_timeout":
            raise InvalidInput("store url", f"unknown option {key!r}; known: connect_timeout")
        try:
            timeout = float(value)
        except ValueError:
            timeout = -1.0
        if not timeout > 0:
            raise InvalidInput("store url", f"connect_timeout={value!r} is not a positive number")
    return timeout


def _embedded_dir(parsed: SplitResult, settings: Settings) -> Path:
    """The data dir of an embedded URL: falkordb+embedded:///abs/dir, or the default home."""
    if parsed.netloc:
        raise InvalidInput(
            "store url",
            f"falkordb+embedded://{parsed.netloc}{parsed.path} has a host part "
            f"({parsed.netloc!r}); give the data dir as an absolute path after three slashes, "
            f"e.g. falkordb+embedded:///srv/graphmem",
        )
    if parsed.query:
        raise InvalidInput("store url", "falkordb+embedded URLs take no ?options")
    path = unquote(parsed.path)
    return Path(path) if path else settings.home


def _embedded(data_dir: Path, settings: Settings) -> Store:
    from graphmem.store import embedded

    options = embedded.ServerOptions(settings.appendfsync, settings.store_load_timeout)
    server, client = embedded.acquire(data_dir, options)
    return FalkorDBStore(client, DEFAULT_GRAPH, server, f"FalkorDB in {data_dir}")


def _external_falkordb(parsed: SplitResult) -> Store:
    graph = parsed.path.strip("/") or DEFAULT_GRAPH
    host, port = parsed.hostname or "localhost", parsed.port or 6379
    try:  # the client talks to the server as it is made
        client = FalkorDB(
            host=host,
            port=port,
            username=unquote(parsed.username) if parsed.username else None,
            password=unquote(parsed.password) if parsed.password else None,
            client_name=CLIENT_NAME,
            socket_connect_timeout=_options(parsed),
        )
    except redis.exceptions.RedisError as error:
        raise StoreUnavailable(f"FalkorDB at {host}:{port} is not reachable: {error}") from None
    return FalkorDBStore(client, graph, where=f"FalkorDB at {host}:{port}")


def _neo4j(parsed: SplitResult, settings: Settings) -> Store:
    from graphmem.store.neo4j_engine import Neo4jStore

    if not parsed.hostname:
        raise InvalidInput(
            "store url", f"{parsed.scheme}:// needs a host, e.g. {parsed.scheme}://localhost:7687"
        )
    user = unquote(parsed.username) if parsed.username else settings.neo4j_user
    password = unquote(parsed.password) if parsed.password else settings.neo4j_password
    database = parsed.path.strip("/") or settings.neo4j_database
    netloc = parsed.hostname + (f":{parsed.port}" if parsed.port else "")
    clean = parsed._replace(netloc=netloc, path="", query="").geturl()
    auth = (user or "neo4j", password) if password else None
    store = Neo4jStore(clean, auth, database or None, connect_timeout=_options(parsed))
    store.connect()
    return store


def data_dir_of(url: str, settings: Settings | None = None) -> Path | None:
    """The data dir of an embedded store URL (where FAISS indexes live too), else None."""
    parsed = _parse(url)
    if parsed.scheme != "falkordb+embedded":
        return None
    return _embedded_dir(parsed, settings or Settings.from_env())
