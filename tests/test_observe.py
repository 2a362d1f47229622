"""/metrics, request ids, /readyz and warm start, on the real app, store and model."""

from __future__ import annotations

import logging
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from appserver import free_port, served
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from api.app import create_app
from api.metrics import OTHER, OperationLabels
from api.requestid import NO_REQUEST
from graphmem.config import Settings
from graphmem.errors import InvalidInput
from graphmem.store import Store
from graphmem.vectors.store import LABELS

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]

CREATE = 'mutation { createSeries(name: "obs") { id } }'
APPEND = """mutation Append($id: ID!, $points: [PointInput!]!) {
  appendPoints(seriesId: $id, points: $points) { accepted } }"""
ADD_PROPS = """mutation($items: [PropositionInput!]!) {
  addPropositions(propositions: $items) { added } }"""
INGEST_DOC = """mutation($text: String!) {
  ingestDocument(text: $text, date: "2024-05-01", source: "memo") { added } }"""
ADD_EVENT = 'mutation { addEvent(text: "Met Ada at the lab", date: "2024-05-02") { id } }'
LOCAL = "http://localhost"  # a Host the app serves (GRAPHMEM_ALLOWED_HOSTS)
SUBGRAPH = '{ subgraph(question: "Who runs the lab?", k: 3) { nodes { id } } }'
POINTS = [{"timestamp": f"2024-01-{d:02d}", "value": float(d)} for d in range(1, 8)]
POINTS[3]["value"] = None  # a missing value is skipped, not stored
PROPS = [
    {"text": "Ada Brook runs the Kestrel lab.", "date": "2024-01-10"},
    {"text": "The Kestrel lab moved to Harwick.", "date": "2024-02-11"},
]


def scrape(url: str) -> Samples:
    """Every sample of the app's /metrics, keyed by (name, labels)."""
    response = httpx.get(f"{url}/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    return parsed(response.text)


def parsed(text: str) -> Samples:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def requests_of(samples: Samples, operation: str, kind: str, outcome: str = "ok") -> float:
    return value(
        samples, "graphmem_graphql_requests_total", operation=operation, type=kind, outcome=outcome
    )


@pytest.fixture
def fresh_api(store: Store, store_url: str, tmp_path: Path) -> Iterator[str]:
    """An app of its own (counters from zero, vector indexes of its own) on the empty store.

    Searches check the graph every time (refresh 0 ms), so its index sizes follow the graph.
    """
    settings = Settings(store_url=store_url, home=tmp_path / "home", vector_refresh_ms=0)
    with served(settings) as url:
        yield url


def poster(url: str) -> Callable[..., httpx.Response]:
    def post(query: str, headers: dict[str, str] | None = None, **variables: object):
        response = httpx.post(
            f"{url}/graphql",
            json={"query": query, "variables": variables},
            headers=headers,
            timeout=60,
        )
        assert response.status_code == 200, response.text
        return response

    return post


def test_metrics_count_operations_outcomes_and_latency(fresh_api: str) -> None:
    post = poster(fresh_api)
    before = scrape(fresh_api)
    assert requests_of(before, "ListSeries", "query") == 0
    post("query ListSeries { series { items { name } } }")
    post("query ListSeries { series { items { name } } }")
    post("{ b: series { total } ...F } fragment F on Query { a: health { reachable } }")
    post('mutation { deleteSeries(id: "nope") { id } }')  # NOT_FOUND
    post('mutation { createSeries(name: " ") { id } }')  # BAD_INPUT
    post("{ noSuchField }")  # does not validate
    after = scrape(fresh_api)
    assert requests_of(after, "ListSeries", "query") == 2
    # unnamed: the root fields, not the aliases, fragments included
    assert requests_of(after, "health,series", "query") == 1
    assert requests_of(after, "deleteSeries", "mutation", "NOT_FOUND") == 1
    assert requests_of(after, "createSeries", "mutation", "BAD_INPUT") == 1
    assert requests_of(after, "invalid", "query", "GRAPHQL_VALIDATION") == 1
    histogram = "graphmem_graphql_request_duration_seconds"
    assert value(after, f"{histogram}_count", operation="ListSeries", type="query") == 2
    assert value(after, f"{histogram}_sum", operation="ListSeries", type="query") > 0
    assert value(after, f"{histogram}_bucket", operation="ListSeries", type="query", le="+Inf") == 2
    assert value(after, "graphmem_http_requests_total", route="/graphql", status="200") == 6
    assert value(after, "graphmem_http_requests_total", route="/metrics", status="200") == 1
    httpx.get(f"{fresh_api}/no/such/page")
    assert value(scrape(fresh_api), "graphmem_http_requests_total", route=OTHER, status="404") == 1


def test_metrics_count_what_ingestion_stored(fresh_api: str) -> None:
    post = poster(fresh_api)
    sid = post(CREATE).json()["data"]["createSeries"]["id"]
    accepted = post(APPEND, id=sid, points=POINTS).json()["data"]["appendPoints"]["accepted"]
    post(APPEND, id=sid, points=POINTS)  # the same batch again: a duplicate, nothing stored
    added = post(ADD_PROPS, items=PROPS).json()["data"]["addPropositions"]["added"]
    post(ADD_PROPS, items=PROPS)  # already stored
    text = "Ada Brook hired two engineers. The Kestrel lab opened a second floor."
    from_doc = post(INGEST_DOC, text=text).json()["data"]["ingestDocument"]["added"]
    post(INGEST_DOC, text=text)  # the same document: nothing new
    post(ADD_EVENT)
    post(ADD_EVENT)  # same text and date: a no-op
    samples = scrape(fresh_api)
    assert accepted == 6 and value(samples, "graphmem_points_ingested_total") == 6
    assert added == 2 and from_doc >= 1
    assert value(samples, "graphmem_propositions_ingested_total") == added + from_doc
    assert value(samples, "graphmem_documents_ingested_total") == 1
    assert value(samples, "graphmem_events_ingested_total") == 1
    assert requests_of(samples, "Append", "mutation") == 2


def test_operations_run_at_once_are_each_counted_and_answered_with_their_request_id(
    fresh_api: str,
) -> None:
    post = poster(fresh_api)
    sids = [
        post(f'mutation {{ createSeries(name: "s{i}") {{ id }} }}').json()["data"]["createSeries"][
            "id"
        ]
        for i in range(8)
    ]

    def call(i: int) -> tuple[str, dict]:
        rid = f"concurrent-{i}"
        if i % 2:
            response = post(APPEND, headers={"X-Request-Id": rid}, id=sids[i // 2], points=POINTS)
        else:
            response = post(
                "query ListSeries { series { items { name } } }", headers={"X-Request-Id": rid}
            )
        return rid, response.json()

    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(call, range(16)))
    for rid, body in answers:  # the id of the request the operation ran for, on any thread
        assert body["extensions"] == {"requestId": rid} and not body.get("errors")
    samples = scrape(fresh_api)
    assert requests_of(samples, "ListSeries", "query") == 8
    assert requests_of(samples, "Append", "mutation") == 8
    assert value(samples, "graphmem_points_ingested_total") == 8 * 6


def test_vector_index_sizes_follow_the_indexes(fresh_api: str) -> None:
    post = poster(fresh_api)
    empty = scrape(fresh_api)
    for label in LABELS:  # warmed up: every index is open, on an empty store
        key = frozenset({("space", "default"), ("label", label)})
        assert ("graphmem_vector_index_items", key) in empty
        assert value(empty, "graphmem_vector_index_items", space="default", label=label) == 0
    post(ADD_PROPS, items=PROPS)
    post(ADD_EVENT)
    post(SUBGRAPH)
    post(ADD_PROPS, items=PROPS[:1], headers={"X-Graphmem-Space": "team-b"})
    post(SUBGRAPH, headers={"X-Graphmem-Space": "only-named"})  # a read of an empty space
    samples = scrape(fresh_api)
    spaces = {dict(labels)["space"] for name, labels in samples if name.endswith("index_items")}
    assert spaces == {"default", "team-b"}, "a space a client only named adds no series"
    sizes = {"default": len(PROPS), "team-b": 1}
    for space, size in sizes.items():  # each space's index counts its own memories
        assert value(samples, "graphmem_vector_index_items", space=space, label="Proposition") == (
            size
        )
    assert value(samples, "graphmem_vector_index_items", space="default", label="Event") == 1


def test_request_id_in_header_and_extensions_honoured_when_sane(fresh_api: str) -> None:
    post = poster(fresh_api)
    mine = post(CREATE, headers={"X-Request-Id": "client-7f3a:retry.2"})
    assert mine.headers["x-request-id"] == "client-7f3a:retry.2"
    assert mine.json()["extensions"] == {"requestId": "client-7f3a:retry.2"}
    error = post(CREATE, headers={"X-Request-Id": "client-7f3a:retry.2"}).json()
    assert error["errors"][0]["extensions"]["code"] == "ALREADY_EXISTS"
    assert error["extensions"]["requestId"] == "client-7f3a:retry.2", "errors carry it too"
    generated = set()
    for sent in (None, "has space", "x" * 129, "<script>", ""):
        headers = None if sent is None else {"X-Request-Id": sent}
        response = post("{ series { total } }", headers=headers)
        rid = response.headers["x-request-id"]
        assert rid != sent and re.fullmatch("[0-9a-f]{32}", rid), "replaced by a new one"
        assert response.json()["extensions"]["requestId"] == rid
        generated.add(rid)
    assert len(generated) == 5, "a new id per request"
    for path in ("/healthz", "/readyz", "/metrics"):
        assert (
            httpx.get(f"{fresh_api}{path}", headers={"X-Request-Id": "probe-1"}).headers[
                "x-request-id"
            ]
            == "probe-1"
        )


def test_request_id_on_every_log_line_of_the_request(
    store: Store, store_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # warm-up off: the request itself opens the vector indexes, which logs (INFO)
    settings = Settings(store_url=store_url, home=tmp_path / "home", warmup="off")
    with served(settings) as url, caplog.at_level(logging.INFO):
        logging.getLogger("graphmem.test").info("outside any request")
        post = poster(url)
        post(SUBGRAPH, headers={"X-Request-Id": "opens-index"})
        post(ADD_EVENT, headers={"X-Request-Id": "adds-event"})
    by_id: dict[str, list[str]] = {}
    for record in caplog.records:
        if not record.name.startswith(("graphmem", "api")):  # httpx logs in this thread
            continue
        by_id.setdefault(record.request_id, []).append(record.getMessage())
    assert by_id[NO_REQUEST] == ["outside any request"]
    opened = by_id["opens-index"]
    assert any("rebuilding the Proposition vector index" in m for m in opened), opened
    assert any("rebuilding the Event vector index" in m for m in by_id["adds-event"])
    assert not any("Event" in m for m in opened), "each line carries its own request's id"


def test_readyz_says_what_is_missing_until_warm(store: Store, store_url: str, tmp_path: Path):
    app = create_app(Settings(store_url=store_url, home=tmp_path / "home", warmup="off"))
    state = app.state.graphmem
    with TestClient(app, base_url=LOCAL) as client:
        cold = client.get("/readyz")
        assert cold.status_code == 503
        body = cold.json()
        assert body["ready"] is False
        assert body["missing"] == ["store", "embedding model", "vector indexes"]
        assert body["store"] == {"open": False, "opening": False}
        assert body["vector_indexes"] == {"open": [], "missing": list(LABELS)}
        assert body["warmup"]["mode"] == "off" and body["warmup"]["state"] == "off"
        assert state.opened_services() is None, "warm-up off: /readyz opens nothing"
        assert client.get("/healthz").status_code == 200, "healthz is liveness: it answers"

        state.services()  # the store opens, nothing else
        half = client.get("/readyz").json()
        assert half["missing"] == ["embedding model", "vector indexes"]
        assert half["store"] == {"open": True, "reachable": True, "detail": None}

        state.services().warm_up()
        ready = client.get("/readyz")
        assert ready.status_code == 200
        assert ready.json()["missing"] == [] and ready.json()["ready"] is True
        assert ready.json()["vector_indexes"]["open"] == sorted(LABELS)


def test_a_store_that_is_down_lets_the_app_start_and_readyz_says_so(tmp_path: Path) -> None:
    settings = Settings(store_url=f"falkordb://127.0.0.1:{free_port()}", home=tmp_path / "home")
    with served(settings) as url:
        health = httpx.get(f"{url}/healthz")
        assert health.status_code == 503 and health.json()["reachable"] is False
        ready = httpx.get(f"{url}/readyz")
        assert ready.status_code == 503
        body = ready.json()
        assert body["missing"][:3] == ["store", "embedding model", "vector indexes"]
        assert body["store"]["open"] is False
        assert body["warmup"]["state"] in ("failed", "running"), "a failed warm-up is retried"
        assert ("warm-up" in body["missing"]) == (body["warmup"]["state"] == "running")
        errors = value(scrape(url), "graphmem_store_errors_total", code="STORE_UNAVAILABLE")
        assert errors >= 2, "the warm-up's and /healthz's opens failed"
        failed = poster(url)("{ series { total } }").json()
        assert failed["errors"][0]["extensions"]["code"] == "STORE_UNAVAILABLE"
        assert requests_of(scrape(url), "series", "query", "STORE_UNAVAILABLE") == 1


def test_warm_start_opens_everything_before_the_first_request(
    store: Store, store_url: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    app = create_app(Settings(store_url=store_url, home=home))  # warm-up: startup, the default
    state = app.state.graphmem
    assert state.opened_services() is None
    with TestClient(app, base_url=LOCAL):  # runs the lifespan's startup, sends no request
        services = state.opened_services()
        assert services is not None, "the store is open"
        opened = services.opened()
        assert opened.embedder is not None and opened.embedder.loaded, "the model is loaded"
        assert opened.vectors is not None and set(opened.vectors.sizes()) == set(LABELS)
    lazy = create_app(Settings(store_url=store_url, home=home, warmup="off"))
    with TestClient(lazy, base_url=LOCAL):
        assert lazy.state.graphmem.opened_services() is None, "off: nothing opens before use"


def test_background_warm_up_answers_at_once_and_becomes_ready(
    store: Store, store_url: str, tmp_path: Path
) -> None:
    settings = Settings(store_url=store_url, home=tmp_path / "home", warmup="background")
    with served(settings) as url:
        assert httpx.get(f"{url}/healthz").status_code == 200
        deadline = time.monotonic() + 120  # a bound on waiting, not a timed assertion
        while (ready := httpx.get(f"{url}/readyz")).status_code != 200:
            assert ready.json()["warmup"]["state"] in ("pending", "running"), ready.json()
            assert time.monotonic() < deadline, ready.json()
            time.sleep(0.05)
        assert ready.json()["warmup"]["state"] == "done"


def test_healthz_answers_while_a_background_warm_up_waits_on_a_hung_store(
    tmp_path: Path,
) -> None:
    with socket.socket() as silent:  # takes connections, never answers: a store that hangs
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        url_of_store = f"falkordb://127.0.0.1:{port}"
        settings = Settings(store_url=url_of_store, home=tmp_path / "home", warmup="background")
        with served(settings) as url:
            deadline = time.monotonic() + 60  # a bound on waiting, not a timed assertion
            while not (ready := httpx.get(f"{url}/readyz")).json()["store"].get("opening"):
                assert time.monotonic() < deadline, ready.json()
                time.sleep(0.05)
            assert ready.status_code == 503 and ready.json()["warmup"]["state"] == "running"
            health = httpx.get(f"{url}/healthz", timeout=30)
            assert health.status_code == 503
            assert health.json()["detail"] == "the store is being opened"
            assert httpx.get(f"{url}/metrics").status_code == 200
            silent.close()  # the store goes away: the open fails, so the app can stop


def test_graphmem_serve_warms_up_then_logs_each_line_with_its_request_id(
    short_tmp: Path, tmp_path: Path
) -> None:
    port = free_port()
    env = {**os.environ, "GRAPHMEM_HOME": str(short_tmp / "obs-serve")}
    env.pop("GRAPHMEM_STORE", None)
    log_path = tmp_path / "serve.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "graphmem.cli", "-v", "serve", "--port", str(port)],
            env=env,
            stdout=log,
            stderr=log,  # uvicorn's access lines go to stdout
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:  # connections are accepted once startup, warm-up included, is done
            try:
                first = httpx.get(f"{base}/readyz", headers={"X-Request-Id": "first-call"})
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and proc.poll() is None, log_path.read_text()
                time.sleep(0.2)
        assert first.status_code == 200, first.json()
        assert first.json()["warmup"]["state"] == "done"
        httpx.post(f"{base}/graphql", json={"query": CREATE}, headers={"X-Request-Id": "mk-1"})
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    lines = log_path.read_text().splitlines()
    warmed = next(i for i, line in enumerate(lines) if "warm-up done" in line)
    started = next(i for i, line in enumerate(lines) if "Application startup complete" in line)
    assert warmed < started, "ready only once warm"
    assert "[-]" in lines[warmed], "outside a request: no id"
    access = [line for line in lines if '"POST /graphql HTTP/1.1" 200' in line]
    assert len(access) == 1 and "[mk-1]" in access[0], lines
    assert any("[first-call]" in line and "/readyz" in line for line in lines), lines


def test_operation_labels_are_capped() -> None:
    labels = OperationLabels(limit=2)
    assert [labels("A"), labels("B"), labels("C"), labels("A")] == ["A", "B", OTHER, "A"]


def test_warmup_setting() -> None:
    assert Settings.from_env({}).warmup == "startup"
    assert Settings.from_env({"GRAPHMEM_WARMUP": " Background "}).warmup == "background"
    with pytest.raises(InvalidInput) as error:
        Settings.from_env({"GRAPHMEM_WARMUP": "later"})
    assert error.value.field == "GRAPHMEM_WARMUP"


def test_refused_requests_have_an_id_and_are_counted(
    store: Store, store_url: str, tmp_path: Path
) -> None:
    origin = "https://app.example.com"
    settings = Settings(
        store_url=store_url,
        home=tmp_path / "home",
        api_token="t" * 32,
        cors_origins=(origin,),
        warmup="off",
    )
    with TestClient(create_app(settings), base_url=LOCAL) as client:
        refused = client.post(
            "/graphql",
            json={"query": "{ series { total } }"},
            headers={"X-Request-Id": "no-token-1", "Origin": origin},
        )
        assert refused.status_code == 401
        assert refused.headers["X-Request-Id"] == "no-token-1"
        assert refused.json()["extensions"] == {"requestId": "no-token-1"}
        # a browser page may send its own id and read the one it got back
        assert "X-Request-Id" in refused.headers["Access-Control-Expose-Headers"]
        preflight = client.options(
            "/graphql",
            headers={
                "Origin": origin,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "x-request-id",
            },
        )
        assert preflight.status_code == 200
        foreign = client.post(
            "/graphql", json={"query": "{ series { total } }"}, headers={"Host": "attacker.example"}
        )
        assert foreign.status_code == 400 and len(foreign.headers["X-Request-Id"]) == 32
        assert client.get("/metrics", headers={"Host": "10.0.0.7:8000"}).status_code == 200
        samples = parsed(client.get("/metrics").text)
    assert value(samples, "graphmem_http_requests_total", route="/graphql", status="401") == 1
    assert value(samples, "graphmem_http_requests_total", route="/graphql", status="400") == 1
    assert not any(name == "graphmem_graphql_requests_total" for name, _ in samples), (
        "refused before GraphQL: no operation counted"
    )
