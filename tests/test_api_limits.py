"""Request limits over HTTP: each refused before work starts, with its code, naming what is over.

"Before work starts" is checked on the store's server itself: the count of graph statements it
ran does not change. The app under test has small argument limits and its own data dir; its
depth, alias and cost limits are the defaults, and its token limit lets the issue's alias bomb
through the parser (the default token limit refuses it there: see the first test).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import graphql
import httpx
import pytest
from appserver import served
from starlette.testclient import TestClient

from api.app import create_app
from graphmem.config import Settings
from graphmem.errors import InvalidInput
from graphmem.limits import Limits
from graphmem.store import Store
from graphmem.store import server_process as proc

HTTP = httpx.Client(timeout=60)
LIMITS = Limits(
    body_bytes=512 * 1024,
    query_length=100_000,
    tokens=20_000,
    points=50,
    propositions=3,
    documents=2,
    list_items=20,
    document=300,
    text=100,
    k=200,
    page=30,
)
APPEND = (
    "mutation($s: ID!, $p: [PointInput!]!) { appendPoints(seriesId: $s, points: $p) { accepted } }"
)
BOUNDS = "query($s: ID!) { timeBounds(seriesId: $s) { pointCount } }"
INGEST_DOCS = "mutation($d: [DocumentInput!]!) { ingestDocuments(documents: $d) { added } }"
# the issue's request: 1,000 aliases of subgraph(k: 200), ~60 KB, which ran for 283 s
BOMB = (
    "{"
    + " ".join(
        f'a{i}: subgraph(question: "what changed in week {i}?", k: 200) {{ nodes {{ id text }} }}'
        for i in range(1000)
    )
    + "}"
)


@dataclasses.dataclass(frozen=True)
class App:
    url: str
    data: Path  # its embedded server's data dir
    settings: Settings


@pytest.fixture(scope="module")
def app(short_tmp: Path) -> Iterator[App]:
    data = short_tmp / "limits"
    settings = Settings(store_url=f"falkordb+embedded://{data}", home=data, limits=LIMITS)
    with served(settings) as url:
        post(url, "{ health { reachable } }")  # opens the store
        yield App(url, data, settings)


def post(url: str, query: str, **variables: Any) -> dict[str, Any]:
    response = HTTP.post(f"{url}/graphql", json={"query": query, "variables": variables})
    assert response.status_code == 200, response.text
    return response.json()


def statements(data: Path) -> int:
    """Graph statements the store's server has run so far."""
    stats = proc.control(data / proc.SOCKET, 5).info("commandstats")
    return sum(stats.get(f"cmdstat_graph.{c}", {}).get("calls", 0) for c in ("QUERY", "RO_QUERY"))


def refused(app: App, query: str, **variables: Any) -> list[dict[str, Any]]:
    """The errors of a request that must be refused before any statement runs."""
    before = statements(app.data)
    answer = post(app.url, query, **variables)
    assert answer["data"] is None and answer["errors"], answer
    assert statements(app.data) == before, "a refused request ran statements"
    return answer["errors"]


def points(n: int) -> list[dict[str, Any]]:
    return [{"timestamp": str(1_700_000_000 + 60 * i), "value": float(i % 7)} for i in range(n)]


def new_series(app: App, name: str) -> str:
    created = post(app.url, "mutation($n: String!) { createSeries(name: $n) { id } }", n=name)
    return created["data"]["createSeries"]["id"]


def test_the_default_limits_refuse_the_alias_bomb_as_it_is_parsed(gql) -> None:
    errors = gql(BOMB)["errors"]
    assert [e["extensions"] for e in errors] == [
        {"code": "QUERY_TOO_COMPLEX", "limit": "tokens", "max": Limits().tokens}
    ]


def test_the_alias_bomb_is_refused_before_anything_runs(app: App) -> None:
    errors = refused(app, BOMB)
    by_limit = {e["extensions"]["limit"]: e for e in errors}
    assert by_limit["aliases"]["extensions"] == {
        "code": "QUERY_TOO_COMPLEX",
        "limit": "aliases",
        "max": 100,
        "found": 1000,
    }
    assert by_limit["cost"]["extensions"] == {
        "code": "QUERY_TOO_COMPLEX",
        "limit": "cost",
        "max": 50_000,
        "found": 1000 * 201,
    }
    assert "GRAPHMEM_MAX_ALIASES" in by_limit["aliases"]["message"]
    assert "GRAPHMEM_MAX_COST" in by_limit["cost"]["message"]


# 12 deep (and over the cost: lists in lists)
NESTED = '{ metaSegment(id: "m") { ' + "metaMembers { items { " * 5 + "id" + " } }" * 5 + " } }"
COSTLY = " ".join(
    f'm{i}: metaSegments(seriesId: "s", limit: 30) {{ items {{ '
    + "metaMembers(limit: 10) { items { " * 3
    + "id"
    + " } }" * 3
    + " } }"
    for i in range(2)
)  # 2 x (1 + 30 x (1 + 1 + 10 x (1 + 1 + 10 x (1 + 1 + 10))))


@pytest.mark.parametrize(
    ("query", "extensions"),
    [
        (NESTED, {"code": "QUERY_TOO_COMPLEX", "limit": "depth", "max": 10, "found": 12}),
        (
            "{" + COSTLY + "}",
            {"code": "QUERY_TOO_COMPLEX", "limit": "cost", "max": 50_000, "found": 73_322},
        ),
        (
            "{ health { " + "a " * 20_000 + "} }",
            {"code": "QUERY_TOO_COMPLEX", "limit": "tokens", "max": 20_000},
        ),
        (
            "{ health { reachable } }" + " " * 100_000,
            {"code": "QUERY_TOO_COMPLEX", "limit": "query_length", "max": 100_000},
        ),
    ],
    ids=["depth", "cost", "tokens", "length"],
)
def test_documents_over_a_limit_are_refused_naming_it(
    app: App, query: str, extensions: dict
) -> None:
    errors = refused(app, query)
    assert extensions in [e["extensions"] for e in errors]


def test_nested_fragments_are_measured_once_each(app: App) -> None:
    """20 spreads of the next fragment, 5 deep: 3.2 million aliases once expanded."""
    fragments = [
        f"fragment F{i} on MetaSegment {{ " + " ".join([f"...F{i + 1}"] * 20) + " }"
        for i in range(5)
    ]
    fragments.append("fragment F5 on MetaSegment { a: id }")
    errors = refused(app, '{ metaSegment(id: "m") { ...F0 } } ' + " ".join(fragments))
    aliases = next(e["extensions"] for e in errors if e["extensions"]["limit"] == "aliases")
    assert aliases["found"] == 20**5


def test_introspection_is_not_counted(app: App) -> None:
    answer = post(app.url, graphql.get_introspection_query())
    assert "errors" not in answer and answer["data"]["__schema"]["queryType"]["name"] == "Query"


ARGUMENTS = [
    # (document, variables, field, max, found)
    (APPEND, {"s": "x", "p": points(51)}, "points", 50, 51),
    (
        "mutation($p: [PropositionInput!]!) { addPropositions(propositions: $p) { added } }",
        {"p": [{"text": f"fact {i}", "date": "2024-01-01"} for i in range(4)]},
        "propositions",
        3,
        4,
    ),
    (
        "mutation($p: [PropositionInput!]!) { addPropositions(propositions: $p) { added } }",
        {"p": [{"text": "x" * 101, "date": "2024-01-01"}]},
        "propositions[0].text",
        100,
        101,
    ),
    (
        'mutation($t: String!) { ingestDocument(text: $t, date: "2024-01-01") { added } }',
        {"t": "y" * 301},
        "text",
        300,
        301,
    ),
    (
        INGEST_DOCS,
        {"d": [{"text": f"Fact {i}.", "date": "2024-01-01"} for i in range(3)]},
        "documents",
        2,
        3,
    ),
    (
        INGEST_DOCS,
        {"d": [{"text": "y" * 301, "date": "2024-01-01"}]},
        "documents[0].text",
        300,
        301,
    ),
    (
        'mutation { addEvent(text: "' + "z" * 101 + '", date: "2024-01-01") { id } }',
        {},
        "text",
        100,
        101,
    ),
    ('mutation { deleteDocument(id: "' + "d" * 101 + '") { id } }', {}, "id", 100, 101),
    (
        'mutation { updateProposition(id: "p", text: "' + "t" * 101 + '") { id } }',
        {},
        "text",
        100,
        101,
    ),
    (
        'mutation($i: [ID!]!) { reinforce(ids: $i, now: "2024-01-01") { id } }',
        {"i": [f"ev_{i}" for i in range(21)]},
        "ids",
        20,
        21,
    ),
    ('{ subgraph(question: "q", k: 201) { question } }', {}, "k", 200, 201),
    (
        'query($k: Int = 500) { recall(query: "q", now: "2024-01-01", k: $k) { id } }',
        {},
        "k",
        200,
        500,
    ),
    ('{ segments(seriesId: "s", limit: 31) { total } }', {}, "limit", 30, 31),
    ("query($l: Int!) { propositions(limit: $l) { total } }", {"l": 31}, "limit", 30, 31),
    ("{ series { total } }", {}, "limit", 30, 100),  # its default is over the limit
    ('{ metaSegment(id: "m") { toolCalls(limit: 31) { total } } }', {}, "limit", 30, 31),
]


@pytest.mark.parametrize(("query", "variables", "field", "most", "found"), ARGUMENTS)
def test_argument_values_over_a_limit_are_refused_naming_the_argument(
    app: App, query: str, variables: dict, field: str, most: int, found: int
) -> None:
    errors = refused(app, query, **variables)
    assert [e["extensions"] for e in errors] == [
        {"code": "LIMIT_EXCEEDED", "field": field, "max": most, "found": found}
    ]
    assert "GRAPHMEM_MAX_" in errors[0]["message"]


def test_a_long_list_is_refused_before_its_items_are_looked_at(app: App) -> None:
    sid = new_series(app, "long list")
    batch = points(51)
    batch[7]["value"] = "not a number"  # coercing the items would find this first
    errors = refused(app, APPEND, s=sid, p=batch)
    assert [e["extensions"]["code"] for e in errors] == ["LIMIT_EXCEEDED"]
    literal = ", ".join(
        f'{{timestamp: "{p["timestamp"]}", value: {json.dumps(p["value"])}}}' for p in batch
    )
    errors = refused(
        app, f'mutation {{ appendPoints(seriesId: "{sid}", points: [{literal}]) {{ accepted }} }}'
    )
    assert [e["extensions"]["field"] for e in errors] == ["points"]
    assert post(app.url, BOUNDS, s=sid)["data"]["timeBounds"]["pointCount"] == 0


def test_requests_within_the_limits_are_served(app: App) -> None:
    sid = new_series(app, "within")
    appended = post(app.url, APPEND, s=sid, p=points(50))
    assert appended["data"]["appendPoints"]["accepted"] == 50
    found = post(
        app.url, '{ segments(seriesId: "' + sid + '", limit: 30) { items { pointCount } } }'
    )
    assert sum(s["pointCount"] for s in found["data"]["segments"]["items"]) == 50
    # a document's text may be as long as ingestDocument's, longer than other strings
    docs = [{"text": "w" * 200 + ".", "date": "2024-01-01"}, {"text": "v.", "date": "2024-01-02"}]
    assert post(app.url, INGEST_DOCS, d=docs)["data"]["ingestDocuments"]["added"] == 2


def test_a_body_over_the_limit_is_refused_unread(app: App) -> None:
    sid = new_series(app, "big body")
    body = json.dumps({"query": APPEND, "variables": {"s": sid, "p": points(20_000)}}).encode()
    assert len(body) > LIMITS.body_bytes

    def chunks() -> Iterator[bytes]:  # no Content-Length: sent chunked
        for start in range(0, len(body), 64 * 1024):
            yield body[start : start + 64 * 1024]

    before = statements(app.data)
    for content in (body, chunks()):
        response = HTTP.post(
            f"{app.url}/graphql", content=content, headers={"content-type": "application/json"}
        )
        assert response.status_code == 413
        error = response.json()["errors"][0]
        assert error["extensions"]["code"] == "REQUEST_TOO_LARGE"
        assert error["extensions"]["max"] == LIMITS.body_bytes
        assert error["extensions"]["found"] > LIMITS.body_bytes
        assert "GRAPHMEM_MAX_BODY_BYTES" in error["message"]
    assert statements(app.data) == before
    assert post(app.url, BOUNDS, s=sid)["data"]["timeBounds"]["pointCount"] == 0


def test_an_operation_past_its_time_limit_is_a_timeout_and_stores_nothing(app: App) -> None:
    sid = new_series(app, "timed out")
    hurried = dataclasses.replace(
        app.settings, limits=dataclasses.replace(LIMITS, operation_timeout=0.001)
    )
    with served(hurried) as url:  # the same store, a 1 ms limit
        answer = post(url, APPEND, s=sid, p=points(50))
    error = answer["errors"][0]
    assert answer["data"] is None and error["extensions"] == {"code": "TIMEOUT"}
    assert "GRAPHMEM_OPERATION_TIMEOUT" in error["message"]
    assert post(app.url, BOUNDS, s=sid)["data"]["timeBounds"]["pointCount"] == 0


ASK = 'mutation { ask(question: "What is stored?") { answer } }'


def test_operations_calling_the_llm_have_their_own_time_limit(
    store: Store, store_url: str, llm_server, llm_settings: Settings
) -> None:
    short = Limits(operation_timeout=0.2, llm_operation_timeout=30)
    settings = dataclasses.replace(llm_settings, store_url=store_url, limits=short)
    llm_server.script({"delay": 1, "content": "Nothing yet."})
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        answer = client.post("/graphql", json={"query": ASK}).json()
    assert answer["data"]["ask"]["answer"] == "Nothing yet."

    settings = dataclasses.replace(settings, limits=Limits(llm_operation_timeout=0.3))
    llm_server.script({"delay": 3, "content": "Too late."})
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        answer = client.post("/graphql", json={"query": ASK}).json()
    assert answer["errors"][0]["extensions"] == {"code": "TIMEOUT"}
    assert "GRAPHMEM_LLM_OPERATION_TIMEOUT" in answer["errors"][0]["message"]


def test_limits_come_from_the_environment(app: App) -> None:
    env = {
        "GRAPHMEM_STORE": app.settings.store_url,
        "GRAPHMEM_HOME": str(app.data),
        "GRAPHMEM_MAX_POINTS": "7",
        "GRAPHMEM_OPERATION_TIMEOUT": "2.5",
    }
    settings = Settings.from_env(env)
    assert (settings.limits.points, settings.limits.operation_timeout) == (7, 2.5)
    assert settings.limits.k == Limits().k  # the others keep their defaults
    with served(settings) as url:
        error = post(url, APPEND, s="x", p=points(8))["errors"][0]
    assert error["extensions"] == {
        "code": "LIMIT_EXCEEDED",
        "field": "points",
        "max": 7,
        "found": 8,
    }
    for name, value in (
        ("GRAPHMEM_MAX_K", "0"),
        ("GRAPHMEM_MAX_BODY_BYTES", "32MB"),
        ("GRAPHMEM_OPERATION_TIMEOUT", "-1"),
    ):
        with pytest.raises(InvalidInput) as caught:
            Settings.from_env({name: value})
        assert caught.value.field == name
