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

ENGINES = ["embedded"] + (["neo4j"] if os.environ.get("NEO4J_URI") else [])


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
