"""Many clients at once on the real app over HTTP: nothing lost or doubled, reads never held up.

The app runs with one thread per pool (GRAPHMEM_WORKERS=1) where a test shows that a query is
answered while a mutation is held inside a store write or an LLM call: with a shared pool, or
a lock held across those waits, the query would wait for the mutation to be released, which
the test only does after the query was answered (it fails when the request times out).
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from appserver import serving
from races import around

from api.app import create_app
from api.execution import CACHED_TEXT_MOST, operation_kind, parsed
from api.state import AppState
from graphmem.config import Settings
from graphmem.store import Store

CREATE = "mutation($n: String!) { createSeries(name: $n) { id } }"
APPEND = """mutation($s: ID!, $p: [PointInput!]!) { appendPoints(seriesId: $s, points: $p) {
  accepted duplicate } }"""
ADD_PROPS = """mutation($p: [PropositionInput!]!) { addPropositions(propositions: $p) {
  propositionIds added } }"""
ADD_EVENT = "mutation($t: String!, $d: Date!) { addEvent(text: $t, date: $d) { id } }"
INGEST = 'mutation($t: String!) { ingestDocument(text: $t, date: "2024-03-01") { added } }'
SERIES = "{ series { items { id name } } }"
SEGMENTS = "query($s: ID!) { segments(seriesId: $s, limit: 1000) { items { pointCount } } }"
BOUNDS = "query($s: ID!) { timeBounds(seriesId: $s) { pointCount segmentCount } }"
SUBGRAPH = "query($q: String!) { subgraph(question: $q, k: 5) { nodes { id } edges { src } } }"
RECALL = 'query($q: String!) { recall(query: $q, now: "2030-01-01", k: 5) { id } }'
BY_SOURCE = """query($s: String!) {
  propositions(filter: {source: $s}, limit: 1000) { items { id } } }"""
TIMELINE = '{ timeline(now: "2030-01-01") { items { label id } } }'

WRITERS, READERS = 4, 4
BATCHES, POINTS = 6, 50  # appends per writer, points per append
ADDS, PER_ADD = 4, 3  # addPropositions per writer, propositions per call
EVENTS = 4  # addEvent per writer
T0 = 1_700_000_000
JOBS = ["baker", "smith", "ferryman", "clerk", "miller", "weaver", "tanner", "carpenter"]


Post = Callable[..., dict]


@pytest.fixture
def start(
    store: Store,
    store_url: str,
    short_tmp: Path,
    request: pytest.FixtureRequest,
) -> Iterator[Callable[..., tuple[Post, AppState]]]:
    """Starts the real app with these settings on the (empty) store under test: (post, state)."""
    with contextlib.ExitStack() as stack:

        def start_app(**settings: Any) -> tuple[Post, AppState]:
            home = short_tmp / f"conc-{request.node.name[:40]}"
            application = create_app(Settings(store_url=store_url, home=home, **settings))
            url = stack.enter_context(serving(application))

            def post(query: str, **variables: Any) -> dict:
                response = httpx.post(
                    f"{url}/graphql", timeout=120, json={"query": query, "variables": variables}
                )
                assert response.status_code == 200, response.text
                body = response.json()
                assert not body.get("errors"), body["errors"]
                return body["data"]

            return post, application.state.graphmem

        yield start_app


def points(start: int, n: int) -> list[dict[str, Any]]:
    return [
        {"timestamp": str(T0 + 60 * (start + i)), "value": float((start + i) % 17)}
        for i in range(n)
    ]


def statements(writer: int, call: int) -> list[dict[str, str]]:
    """Distinct statements of one addPropositions call (people named by writer and call)."""
    month = 1 + writer % 9
    return [
        {
            "text": f"Writer{writer} Person{call}x{i} works as a {JOBS[(call + i) % 8]}.",
            "date": f"2024-{month:02d}-{10 + call * PER_ADD + i:02d}",
            "source": f"w{writer}",
        }
        for i in range(PER_ADD)
    ]


def test_reads_and_writes_at_once_lose_and_double_nothing(start) -> None:
    post, _ = start()
    post(ADD_PROPS, p=statements(9, 0))  # something to find from the start
    done = threading.Event()

    def write(w: int) -> dict[str, Any]:
        series = post(CREATE, n=f"writer-{w}")["createSeries"]["id"]
        acked: dict[str, Any] = {"series": series, "points": 0, "props": set(), "events": set()}
        for k in range(max(BATCHES, ADDS, EVENTS)):
            if k < BATCHES:
                done_ = post(APPEND, s=series, p=points(k * POINTS, POINTS))["appendPoints"]
                acked["points"] += done_["accepted"]
            if k < ADDS:
                ids = post(ADD_PROPS, p=statements(w, k))["addPropositions"]["propositionIds"]
                acked["props"].update(ids)
            if k < EVENTS:
                event = post(ADD_EVENT, t=f"Writer {w} met guest {k}.", d=f"2024-05-{k + 1:02d}")
                acked["events"].add(event["addEvent"]["id"])
        return acked

    def read(r: int) -> int:
        reads = 0
        while not done.is_set() or reads < 5:
            names = {s["name"]: s["id"] for s in post(SERIES)["series"]["items"]}
            for sid in names.values():
                post(SEGMENTS, s=sid)
            post(SUBGRAPH, q=f"What is the job of Writer{r} Person{reads % ADDS}x0?")
            post(RECALL, q=f"Who did writer {r} meet?")
            reads += 1
        return reads

    with ThreadPoolExecutor(WRITERS + READERS) as pool:
        readers = [pool.submit(read, r) for r in range(READERS)]
        writers = [pool.submit(write, w) for w in range(WRITERS)]
        acked = [w.result(timeout=600) for w in writers]  # raises what a writer met
        done.set()
        assert all(r.result(timeout=600) >= 5 for r in readers)

    for w, mine in enumerate(acked):
        assert mine["points"] == BATCHES * POINTS
        bounds = post(BOUNDS, s=mine["series"])["timeBounds"]
        segments = post(SEGMENTS, s=mine["series"])["segments"]["items"]
        assert bounds["pointCount"] == BATCHES * POINTS == sum(s["pointCount"] for s in segments)
        assert bounds["segmentCount"] == len(segments)
        stored = [p["id"] for p in post(BY_SOURCE, s=f"w{w}")["propositions"]["items"]]
        assert sorted(stored) == sorted(mine["props"]) and len(stored) == ADDS * PER_ADD
    events = [i["id"] for i in post(TIMELINE)["timeline"]["items"] if i["label"] == "EVENT"]
    assert sorted(events) == sorted(set().union(*(m["events"] for m in acked)))
    assert len(events) == WRITERS * EVENTS


def test_a_query_is_answered_while_a_write_is_held_inside_the_store(start) -> None:
    post, state = start(workers=1)
    series = post(CREATE, n="held")["createSeries"]["id"]
    post(APPEND, s=series, p=points(0, POINTS))
    entered, release = threading.Event(), threading.Event()
    around(
        state.store(), "write", "ingest.append", before=lambda: (entered.set(), release.wait(120))
    )
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(post, APPEND, s=series, p=points(POINTS, POINTS))
        assert entered.wait(120)
        # the only mutation thread is inside the store write; queries still get answered
        assert post(SERIES)["series"]["items"] == [{"id": series, "name": "held"}]
        assert post(BOUNDS, s=series)["timeBounds"]["pointCount"] == POINTS  # not the held batch
        assert post(RECALL, q="anything")["recall"] == []
        assert not pending.done()
        release.set()
        assert pending.result(timeout=120)["appendPoints"]["accepted"] == POINTS
    assert post(BOUNDS, s=series)["timeBounds"]["pointCount"] == 2 * POINTS


def test_a_query_is_answered_while_a_mutation_waits_on_the_llm(start, llm_server) -> None:
    post, _ = start(
        workers=1, llm_base_url=llm_server.url, llm_api_key="test-key", llm_timeout=120.0
    )
    post(ADD_PROPS, p=[{"text": "Ada Alder works as a baker.", "date": "2024-06-01"}])
    hold = threading.Event()
    found = {
        "propositions": [{"text": "The Verrin Bridge opened to traffic.", "date": "2024-03-01"}]
    }
    # the extraction is held; the relation judgement that may follow finds nothing related
    llm_server.script(
        {"hold": hold, "content": json.dumps(found)}, {"content": json.dumps({"judgements": []})}
    )
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(post, INGEST, t="The Verrin Bridge opened to traffic today.")
        assert llm_server.received.wait(120)
        nodes = post(SUBGRAPH, q="What is the job of Ada Alder?")["subgraph"]["nodes"]
        assert len(nodes) == 1
        assert post(SERIES)["series"]["items"] == []
        assert not pending.done()  # the read above did not wait for the LLM
        hold.set()
        assert pending.result(timeout=120)["ingestDocument"]["added"] == 1


@pytest.mark.parametrize(
    ("query", "name", "kind"),
    [
        ("{ series { total } }", None, "query"),
        ("query Q { series { id } }", None, "query"),
        ("mutation($n: String!) { createSeries(name: $n) { id } }", None, "mutation"),
        (
            'fragment F on Series { id } mutation M { createSeries(name: "x") { ...F } }',
            None,
            "mutation",
        ),
        (
            'query A { series(limit: 1) { name } } mutation B { deleteSeries(id: "}") { id } }',
            "B",
            "mutation",
        ),
        ('query A { series { id } } mutation B { createSeries(name: "q") { id } }', "A", "query"),
        ("# mutation\n{ series { id } }", None, "query"),
        ("not graphql at all", None, "query"),
    ],
)
def test_operations_are_routed_by_their_type(query: str, name: str | None, kind: str) -> None:
    assert operation_kind(query, name) == kind


def test_short_query_texts_are_parsed_once_and_long_ones_each_time() -> None:
    short = "{ series { id } }"
    long = "{ series { id } }" + " " * CACHED_TEXT_MOST  # values written inline, say
    assert parsed(short) is parsed(short)
    assert parsed(long) is not parsed(long)  # not kept: hundreds of them would fill the memory
    assert parsed(long).to_dict() == parsed(short).to_dict()
