"""The per-engine test fixtures: they never wipe a database that holds other data."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from conftest import Q, claim, neo4j_test_url, wipe

from graphmem.config import Settings
from graphmem.store import open_store


def test_a_database_with_other_data_is_refused_not_wiped(short_tmp: Path) -> None:
    url = f"falkordb+embedded://{short_tmp / 'not-a-test-db'}"
    with open_store(url, Settings()) as store:
        store.write(
            "series.create",
            id="s",
            name="precious",
            unit=None,
            description=None,
            created_at=0,
            created_at_iso="1970-01-01T00:00:00Z",
        )
        with pytest.raises(pytest.exit.Exception, match="refusing to run the tests on") as caught:
            claim(store, url)
        assert "holds 1 nodes and no test marker" in str(caught.value)
        assert store.read("series.get", id="s"), "nothing was deleted"


def test_an_empty_or_marked_database_is_claimed_and_wiped(short_tmp: Path) -> None:
    url = f"falkordb+embedded://{short_tmp / 'test-db'}"
    with open_store(url, Settings()) as store:
        claim(store, url)  # empty: claimed
        store.write(
            "series.create",
            id="s",
            name="scratch",
            unit=None,
            description=None,
            created_at=0,
            created_at_iso="1970-01-01T00:00:00Z",
        )
        claim(store, url)  # data, but marked: a test database
        wipe(store)
        assert store.read(Q["engines.census"]) == [{"marked": 1, "nodes": 1}]


def test_the_neo4j_url_carries_credentials_and_database(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "neo4j+s://db.example:7687")
    monkeypatch.setenv("NEO4J_USER", "tester")
    monkeypatch.setenv("NEO4J_PASSWORD", "p@ss:w/rd")
    monkeypatch.setenv("NEO4J_DATABASE", "graphmemtest")
    parts = urlsplit(neo4j_test_url())
    assert (parts.scheme, parts.hostname, parts.port) == ("neo4j+s", "db.example", 7687)
    assert unquote(parts.username) == "tester" and unquote(parts.password) == "p@ss:w/rd"
    assert parts.path == "/graphmemtest"
    monkeypatch.setenv("NEO4J_URI", "bolt://u:pw@host/fromurl")
    assert neo4j_test_url() == "bolt://u:pw@host/fromurl", "what the URL says wins"
