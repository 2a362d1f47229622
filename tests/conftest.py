"""Shared fixtures: a real embedded FalkorDB (and Neo4j when NEO4J_URI is set)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem.config import Settings
from graphmem.store import Store, open_store

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

NO_NEO4J = pytest.mark.skipif(
    not os.environ.get("NEO4J_URI"), reason="NEO4J_URI is not set: no Neo4j server to test"
)
ENGINES = ["embedded", pytest.param("neo4j", marks=[pytest.mark.neo4j, NO_NEO4J])]


@pytest.fixture(scope="session")
def short_tmp() -> Iterator[Path]:
    """A short temporary dir: unix socket paths must stay under ~100 characters."""
    with tempfile.TemporaryDirectory(prefix="gm-") as tmp:
        yield Path(tmp)


@pytest.fixture(scope="session")
def embedded_url(short_tmp: Path) -> str:
    return f"falkordb+embedded://{short_tmp / 'db'}"


@pytest.fixture(scope="session")
def _embedded_session(embedded_url: str) -> Iterator[Store]:
    store = open_store(embedded_url, Settings())
    yield store
    store.close()


def _neo4j_store() -> Store:
    return open_store(os.environ["NEO4J_URI"], Settings.from_env())


@pytest.fixture(params=ENGINES)
def any_store(request: pytest.FixtureRequest) -> Iterator[Store]:
    """An empty store on every available engine."""
    if request.param == "embedded":
        store = request.getfixturevalue("_embedded_session")
        store.write("admin.wipe")
        yield store
        store.write("admin.wipe")
    else:
        store = _neo4j_store()
        store.write("admin.wipe")
        yield store
        store.write("admin.wipe")
        store.close()


@pytest.fixture
def store(_embedded_session: Store) -> Iterator[Store]:
    """An empty embedded store."""
    _embedded_session.write("admin.wipe")
    yield _embedded_session
    _embedded_session.write("admin.wipe")


@pytest.fixture(scope="session")
def api_url(embedded_url: str, _embedded_session: Store, short_tmp: Path) -> Iterator[str]:
    """The real ASGI app served by uvicorn on a free local port, on the embedded store."""
    from appserver import served

    with served(Settings(store_url=embedded_url, home=short_tmp / "api")) as url:
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
    """The embedded store holding the synthetic sales series (seed 0), as `graphmem demo` has it."""
    from graphmem.series.catalog import create_series
    from graphmem.series.ingest import append
    from graphmem.series.synthetic import sales_series

    data = sales_series(seed=0)
    series = create_series(store, data.name, data.unit, data.description)
    append(store, series.id, data.ts, data.xs)
    return store, series, data
