"""GraphQL over HTTP against the real app on the embedded store."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from starlette.testclient import TestClient

from api.app import create_app
from graphmem.config import Settings
from graphmem.series import catalog
from graphmem.store import engine_of

CREATE = """
mutation($name: String!, $unit: String, $description: String) {
  createSeries(name: $name, unit: $unit, description: $description) { id name unit description }
}"""
LIST = "{ series { items { id name unit } } }"
LOCAL = "http://localhost"  # a Host the app serves (TestClient's default, testserver, is not)


def test_healthz_reports_engine_and_version(api_url: str, store_url: str) -> None:
    body = httpx.get(f"{api_url}/healthz").json()
    assert body["engine"] == engine_of(store_url) and body["reachable"] is True
    assert body["version"].lower().startswith(engine_of(store_url))  # FalkorDB 4.x, Neo4j/5.x


def test_health_query(gql, store_url: str) -> None:
    health = gql("{ health { engine reachable version graphmemVersion } }")["data"]["health"]
    assert health["engine"] == engine_of(store_url)
    assert health["reachable"] and health["graphmemVersion"]


def test_graphiql_is_served(api_url: str) -> None:
    page = httpx.get(f"{api_url}/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "graphiql" in page.text.lower()


def test_create_series_round_trip(gql) -> None:
    created = gql(CREATE, name="sales", unit="USD", description="daily sales")
    series = created["data"]["createSeries"]
    assert series["name"] == "sales" and series["unit"] == "USD"
    assert gql(LIST)["data"]["series"]["items"] == [
        {"id": series["id"], "name": "sales", "unit": "USD"}
    ]
    by_id = gql("query($id: ID!) { seriesById(id: $id) { name description } }", id=series["id"])
    assert by_id["data"]["seriesById"] == {"name": "sales", "description": "daily sales"}
    deleted = gql("mutation($id: ID!) { deleteSeries(id: $id) { id } }", id=series["id"])
    assert deleted["data"]["deleteSeries"]["id"] == series["id"]
    assert gql(LIST)["data"]["series"]["items"] == []


def test_series_are_paged_with_a_total(gql) -> None:
    for name in ("a", "b", "c"):
        gql(CREATE, name=name)
    page = gql("{ series(limit: 2, offset: 1) { items { name } total limit offset } }")
    assert page["data"]["series"] == {
        "items": [{"name": "b"}, {"name": "c"}],
        "total": 3,
        "limit": 2,
        "offset": 1,
    }
    created = gql('{ seriesById(id: "a") { createdAt } }')["data"]["seriesById"]["createdAt"]
    assert created.startswith("20") and created.endswith("Z")


def test_bad_input_is_an_error_with_code_and_field_and_stores_nothing(gql) -> None:
    body = gql(CREATE, name="   ", unit="USD")
    error = body["errors"][0]
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "name"}
    assert "name: must not be empty" in error["message"]
    too_long = gql(CREATE, name="ok", unit="u" * 51)
    assert too_long["errors"][0]["extensions"]["field"] == "unit"
    assert gql(LIST)["data"]["series"]["items"] == []


def test_duplicate_name_is_an_error(gql) -> None:
    gql(CREATE, name="dup")
    error = gql(CREATE, name="dup")["errors"][0]
    assert error["extensions"]["code"] == "ALREADY_EXISTS" and "already exists" in error["message"]
    assert len(gql(LIST)["data"]["series"]["items"]) == 1


def test_unknown_series(gql) -> None:
    assert gql('{ seriesById(id: "nope") { id } }')["data"]["seriesById"] is None
    error = gql('mutation { deleteSeries(id: "nope") { id } }')["errors"][0]
    assert error["extensions"]["code"] == "NOT_FOUND"


def test_malformed_query_has_a_code(gql) -> None:
    error = gql("{ series { nosuchfield } }")["errors"][0]
    assert error["extensions"]["code"] == "GRAPHQL_VALIDATION"


def test_empty_id_names_the_id_argument(gql) -> None:
    for query in ('{ seriesById(id: "") { id } }', 'mutation { deleteSeries(id: " ") { id } }'):
        error = gql(query)["errors"][0]
        assert error["extensions"] == {"code": "BAD_INPUT", "field": "id"}


def test_expected_errors_are_not_logged_unexpected_ones_are(
    gql, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    with caplog.at_level(logging.ERROR):
        gql(CREATE, name="   ")  # BAD_INPUT
        gql('mutation { deleteSeries(id: "nope") { id } }')  # NOT_FOUND
    assert caplog.records == []

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(catalog, "list_series", broken)
    with caplog.at_level(logging.ERROR):
        error = gql(LIST)["errors"][0]
    assert error["extensions"] == {"code": "INTERNAL"}
    assert error["message"] == "internal error: RuntimeError", "the text of a bug is not shown"
    assert [r.exc_info[1].args for r in caplog.records if r.exc_info] == [("a bug",)]


def test_healthz_answers_while_a_graphql_operation_is_busy(
    api_url: str, store, monkeypatch: pytest.MonkeyPatch
) -> None:
    release, entered = threading.Event(), threading.Event()
    real = catalog.list_series

    def slow(*args: object, **kwargs: object):  # holds the operation until /healthz answered
        entered.set()
        release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(catalog, "list_series", slow)
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(httpx.post, f"{api_url}/graphql", json={"query": LIST}, timeout=60)
        assert entered.wait(30)
        try:
            health = httpx.get(f"{api_url}/healthz", timeout=10)
        finally:
            release.set()
        assert health.status_code == 200 and health.json()["reachable"] is True
        assert pending.result().json()["data"]["series"]["items"] == []


@pytest.mark.parametrize(
    ("url", "engine"),
    [("bolt://127.0.0.1:1", "neo4j"), ("falkordb://127.0.0.1:1", "falkordb")],
)
def test_healthz_when_the_store_cannot_be_opened(url: str, engine: str) -> None:
    with TestClient(create_app(Settings(store_url=url)), base_url=LOCAL) as client:
        response = client.get("/healthz")
        health = client.post("/graphql", json={"query": "{ health { engine reachable } }"})
    assert response.status_code == 503
    body = response.json()
    assert body["engine"] == engine and body["reachable"] is False
    assert "not reachable" in body["detail"]
    assert health.json()["data"]["health"] == {"engine": engine, "reachable": False}
