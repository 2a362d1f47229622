"""GraphQL over HTTP against the real app on the embedded store."""

from __future__ import annotations

import httpx

CREATE = """
mutation($name: String!, $unit: String, $description: String) {
  createSeries(name: $name, unit: $unit, description: $description) { id name unit description }
}"""
LIST = "{ series { id name unit } }"


def test_healthz_reports_engine_and_version(api_url: str) -> None:
    body = httpx.get(f"{api_url}/healthz").json()
    assert body["engine"] == "falkordb" and body["reachable"] is True
    assert body["version"].startswith("FalkorDB")


def test_health_query(gql) -> None:
    health = gql("{ health { engine reachable version graphmemVersion } }")["data"]["health"]
    assert health["engine"] == "falkordb" and health["reachable"] and health["graphmemVersion"]


def test_graphiql_is_served(api_url: str) -> None:
    page = httpx.get(f"{api_url}/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "graphiql" in page.text.lower()


def test_create_series_round_trip(gql) -> None:
    created = gql(CREATE, name="sales", unit="USD", description="daily sales")
    series = created["data"]["createSeries"]
    assert series["name"] == "sales" and series["unit"] == "USD"
    assert gql(LIST)["data"]["series"] == [{"id": series["id"], "name": "sales", "unit": "USD"}]
    by_id = gql("query($id: ID!) { seriesById(id: $id) { name description } }", id=series["id"])
    assert by_id["data"]["seriesById"] == {"name": "sales", "description": "daily sales"}
    deleted = gql("mutation($id: ID!) { deleteSeries(id: $id) { id } }", id=series["id"])
    assert deleted["data"]["deleteSeries"]["id"] == series["id"]
    assert gql(LIST)["data"]["series"] == []


def test_bad_input_is_an_error_with_code_and_field_and_stores_nothing(gql) -> None:
    body = gql(CREATE, name="   ", unit="USD")
    error = body["errors"][0]
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "name"}
    assert "name: must not be empty" in error["message"]
    too_long = gql(CREATE, name="ok", unit="u" * 51)
    assert too_long["errors"][0]["extensions"]["field"] == "unit"
    assert gql(LIST)["data"]["series"] == []


def test_duplicate_name_is_an_error(gql) -> None:
    gql(CREATE, name="dup")
    error = gql(CREATE, name="dup")["errors"][0]
    assert error["extensions"]["code"] == "ALREADY_EXISTS" and "already exists" in error["message"]
    assert len(gql(LIST)["data"]["series"]) == 1


def test_unknown_series(gql) -> None:
    assert gql('{ seriesById(id: "nope") { id } }')["data"]["seriesById"] is None
    error = gql('mutation { deleteSeries(id: "nope") { id } }')["errors"][0]
    assert error["extensions"]["code"] == "NOT_FOUND"


def test_malformed_query_has_a_code(gql) -> None:
    error = gql("{ series { nosuchfield } }")["errors"][0]
    assert error["extensions"]["code"] == "GRAPHQL_VALIDATION"
