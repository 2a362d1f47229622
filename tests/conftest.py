"""Shared fixtures: a real embedded FalkorDB, and Neo4j when NEO4J_URI is set.

Every test that uses a store (`store`, and what is built on it: `sales_store`, `store_url`,
`api_url`, `gql`) runs once per engine in ENGINES, its id naming the engine ([embedded],
[neo4j]). The Neo4j runs use the database of NEO4J_URI's path or NEO4J_DATABASE (the server
default otherwise) and claim it with a marker node: a database holding data without the marker
is refused, never wiped.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest

from graphmem.config import Settings
from graphmem.cypher import load_dir
from graphmem.store import Store, open_store

# bench/ is not in the wheel: the tests import what they share with it (bench/props_worlds.py,
# bench/tool_render.py) as `bench.*` from the checkout
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

NO_NEO4J = pytest.mark.skipif(
    not os.environ.get("NEO4J_URI"), reason="NEO4J_URI is not set: no Neo4j server to test"
)
ENGINES = ["embedded", pytest.param("neo4j", marks=[pytest.mark.neo4j, NO_NEO4J])]
Q = load_dir(Path(__file__).parent / "cypher")


@pytest.fixture(scope="session")
def short_tmp() -> Iterator[Path]:
    """A short temporary dir: unix socket paths must stay under ~100 characters."""
    with tempfile.TemporaryDirectory(prefix="gm-") as tmp:
        yield Path(tmp)


@pytest.fixture(scope="session")
def embedded_url(short_tmp: Path) -> str:
    return f"falkordb+embedded://{short_tmp / 'db'}"


def neo4j_test_url() -> str:
    """NEO4J_URI with the credentials (NEO4J_USER, NEO4J_PASSWORD) and database in it.

    So that every open_store(url, Settings()) of a test, in any process, reaches the same one.
    """
    parts = urlsplit(os.environ["NEO4J_URI"])
    user = parts.username or os.environ.get("NEO4J_USER") or "neo4j"
    password = parts.password or os.environ.get("NEO4J_PASSWORD")
    database = parts.path.strip("/") or os.environ.get("NEO4J_DATABASE", "")
    auth = quote(user, safe="") + (f":{quote(password, safe='')}" if password else "")
    host = parts.hostname or "localhost"
    netloc = f"{auth}@{host}" + (f":{parts.port}" if parts.port else "")
    return parts._replace(netloc=netloc, path=f"/{database}" if database else "").geturl()


@pytest.fixture(scope="session", params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """The engine under test: what depends on it runs once per engine."""
    return request.param


@pytest.fixture(scope="session")
def store_url(engine: str, request: pytest.FixtureRequest) -> str:
    """The URL of the store under test, for tests that open connections or processes."""
    return request.getfixturevalue("embedded_url") if engine == "embedded" else neo4j_test_url()


@pytest.fixture(scope="session")
def _session_store(store_url: str) -> Iterator[Store]:
    store = open_store(store_url, Settings())
    claim(store, store_url)
    yield store
    store.close()


def claim(store: Store, url: str) -> None:
    """Mark the database as the tests'; refuse (stop the run) if it holds other data."""
    row = store.read(Q["engines.census"])[0]
    if row["nodes"] > 0 and row["marked"] == 0:
        from graphmem.store import redact

        pytest.exit(
            f"refusing to run the tests on {redact(url)}: its database holds {row['nodes']} "
            f"nodes and no test marker, so it is not a test database and would be wiped. Point "
            f"NEO4J_URI (its path) or NEO4J_DATABASE at an empty database for the tests",
            returncode=4,
        )
    store.write(Q["engines.mark"])


def wipe(store: Store) -> None:
    """Delete everything but the test database marker (and restore it if a test wiped it)."""
    store.write(Q["engines.wipe"])
    store.write(Q["engines.mark"])


@pytest.fixture
def store(_session_store: Store) -> Iterator[Store]:
    """An empty store, on each engine in turn."""
    wipe(_session_store)
    yield _session_store
    wipe(_session_store)


@pytest.fixture
def writers(store: Store, store_url: str) -> Iterator[tuple[Store, Store]]:
    """Two connections of their own to the (empty) store under test, as two processes have."""
    pair = (open_store(store_url, Settings()), open_store(store_url, Settings()))
    yield pair
    for connection in pair:
        connection.close()


@pytest.fixture
def any_store(store: Store) -> Store:
    """The store contract's name for `store`: an empty store on every engine."""
    return store


@pytest.fixture(scope="session")
def api_url(engine: str, store_url: str, _session_store: Store, short_tmp: Path) -> Iterator[str]:
    """The real ASGI app served by uvicorn on a free local port, on the store under test."""
    from appserver import served

    with served(Settings(store_url=store_url, home=short_tmp / f"api-{engine}")) as url:
        yield url


@pytest.fixture(scope="session")
def own_store_url(short_tmp: Path) -> str:
    """A data dir of its own, for tests that throw hostile input at the store.

    Should they find a value that crashes the server, the shared one of the other tests is spared.
    """
    return f"falkordb+embedded://{short_tmp / 'hostile'}"


@pytest.fixture(scope="session")
def own_api_url(own_store_url: str, short_tmp: Path) -> Iterator[str]:
    """The real app on the store of own_store_url (its vector indexes beside it)."""
    from appserver import served

    with served(Settings(store_url=own_store_url, home=short_tmp / "hostile")) as url:
        yield url


@pytest.fixture
def gql(api_url: str, store: Store):
    """POST a GraphQL document to the running app; returns the decoded JSON body."""
    import httpx

    def call(query: str, **variables: object) -> dict:
        response = httpx.post(
            f"{api_url}/graphql", json={"query": query, "variables": variables}, timeout=60
        )
        assert response.status_code == 200, response.text
        return response.json()

    return call


@pytest.fixture
def llm_server() -> Iterator:
    """A scripted OpenAI-compatible server on localhost (see tests/llm_server.py)."""
    from llm_server import ScriptedLLM

    scripted = ScriptedLLM()
    server = scripted.serve()
    yield scripted
    server.shutdown()


@pytest.fixture
def llm_settings(llm_server) -> Settings:
    """Settings pointing the real openai client at the scripted server."""
    return Settings(llm_base_url=llm_server.url, llm_api_key="test-key", llm_timeout=5.0)


@pytest.fixture
def sales_store(store: Store):
    """The store holding the synthetic sales series (seed 0), as `graphmem demo` has it."""
    from graphmem.series.catalog import create_series
    from graphmem.series.detect.ingest import append
    from graphmem.series.detect.synthetic import sales_series

    data = sales_series(seed=0)
    series = create_series(store, data.name, data.unit, data.description)
    append(store, series.id, data.ts, data.xs)
    return store, series, data
