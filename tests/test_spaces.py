"""Spaces: two tenants on one store, with the same series names, texts and events, never see
each other: segments, meta-segments and their cache ids, tool calls, retrieval (vector and
keyword search), recall, lists, deletions. Chosen by header, CLI option and Python argument;
tokens bound to spaces; bad names; deleting a space; a store written before spaces."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from api.app import create_app
from graphmem import AsyncMemory, Memory, cli
from graphmem.config import Settings
from graphmem.cypher import load_dir
from graphmem.errors import InvalidInput, NotFound
from graphmem.props.demo_corpus import AS_OF, DOCUMENTS
from graphmem.series.detect.synthetic import sales_series
from graphmem.spaces import DEFAULT_SPACE, checked_space, index_dir
from graphmem.store import Store
from graphmem.store.schema import SchemaItem

Q = load_dir(Path(__file__).parent / "cypher")
QUESTION = "Will Quillmere Foundry close its Brackwater site?"
PICNIC = "The Brackwater picnic moved to the riverside meadow."
WRITE = "write-token-" + "w" * 24
READ = "read-token-" + "r" * 24
BOUND = "bound-token-" + "b" * 24


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path, vector_refresh_ms=0)


@pytest.fixture
def pair(store: Store, store_url: str, settings: Settings) -> Iterator[tuple[Memory, Memory]]:
    """Memories on the spaces `alpha` and `beta` of the store under test, one store between them."""
    with Memory(store_url, settings=settings, space="alpha") as alpha:
        yield alpha, alpha.in_space("beta")


def sales_into(memory: Memory, scale: float) -> str:
    data = sales_series(seed=0)
    memory.series.create(data.name, data.unit)
    memory.series.append(data.name, data.ts, [x * scale for x in data.xs])
    return data.name


def test_series_segments_meta_segments_and_tool_calls_stay_in_their_space(pair) -> None:
    alpha, beta = pair
    name = sales_into(alpha, 1.0)
    assert beta.series.list() == [] and alpha.space == "alpha" and beta.space == "beta"
    with pytest.raises(NotFound):
        beta.series.get(name)
    sales_into(beta, 10.0)  # the same name is free in another space
    assert [s.name for s in alpha.series.list()] == [s.name for s in beta.series.list()] == [name]
    seg_a, seg_b = alpha.series.segments(name, limit=5), beta.series.segments(name, limit=5)
    assert [s.id for s in seg_a] == [s.id for s in seg_b], "the same ids, one per space"
    assert seg_b[0].features.mean == pytest.approx(10 * seg_a[0].features.mean)
    assert alpha.series.segment(seg_a[0].id).features.mean == seg_a[0].features.mean

    years_a = alpha.series.meta_by_range(name, "2010-01-01", "2012-12-31", freq="year")
    years_b = beta.series.meta_by_range(name, "2010-01-01", "2012-12-31", freq="year")
    assert [m.id for m in years_a] == [m.id for m in years_b], "the same cache ids"
    for a, b in zip(years_a, years_b, strict=True):
        assert b.features.mean == pytest.approx(10 * a.features.mean), "each built on its data"
        assert alpha.series.meta(a.id).features.mean == a.features.mean
    built_a = alpha.store.read(Q["spaces_test.builds"])
    built_b = beta.store.read(Q["spaces_test.builds"])
    assert {r["meta"] for r in built_a} == {r["meta"] for r in built_b} == {m.id for m in years_a}
    assert not {r["call"] for r in built_a} & {r["call"] for r in built_b}
    calls_a = alpha.store.read("meta.tool_calls", id=years_a[0].id)
    assert {c["t"]["id"] for c in calls_a} <= {r["call"] for r in built_a}

    assert beta.series.delete(name).name == name
    assert beta.series.list() == [] and alpha.series.segments(name, limit=5) == seg_a
    assert alpha.series.meta(years_a[0].id).id == years_a[0].id


def test_retrieval_vector_and_keyword_search_stay_in_their_space(pair) -> None:
    alpha, beta = pair
    for memory in pair:
        memory.propositions.add_documents(DOCUMENTS)
    assert alpha.propositions.counts() == beta.propositions.counts()
    picnic = alpha.propositions.add([{"text": PICNIC, "date": "2020-02-01"}])
    assert picnic.added == 1
    assert PICNIC not in beta.propositions.context("Where did the Brackwater picnic move?", k=3)
    assert PICNIC in alpha.propositions.context("Where did the Brackwater picnic move?", k=3)
    # each channel of retrieval on its own: the dense index and the keyword (BM25) one
    vec = beta.services().embedder().encode_one(PICNIC)
    hits = beta.services().vectors().search("Proposition", vec, 20)
    texts = {p.text for p in beta.propositions.get([h.node_id for h in hits])}
    assert PICNIC not in texts and len(hits) == 9
    keywords = beta.services().props().keywords
    assert keywords.search("Proposition", "riverside meadow picnic", 5) == []
    assert alpha.services().props().keywords.search("Proposition", "riverside meadow", 5)

    graph = beta.propositions.subgraph(QUESTION, as_of=AS_OF, k=3)
    gone = graph.nodes[0].prop.id
    assert beta.propositions.delete(gone).id == gone
    assert gone not in {n.prop.id for n in beta.propositions.subgraph(QUESTION, AS_OF, k=3).nodes}
    assert alpha.propositions.get([gone])[0].id == gone, "the same id in alpha stays"
    assert gone in {n.prop.id for n in alpha.propositions.subgraph(QUESTION, AS_OF, k=3).nodes}
    assert alpha.propositions.counts()["propositions"] == 10
    assert beta.propositions.counts()["propositions"] == 8
    assert len(beta.propositions.relations()) < len(alpha.propositions.relations())


def test_recall_reinforcement_and_events_stay_in_their_space(pair) -> None:
    alpha, beta = pair
    same = [
        memory.timeline.add_event("Planted tomatoes in the garden.", "2024-04-02")
        for memory in pair
    ]
    assert same[0].id == same[1].id
    only = alpha.timeline.add_event("Repaired the garden fence.", "2024-04-03")
    [stats] = alpha.timeline.reinforce([same[0].id], "2024-04-20")
    assert stats.changed
    assert [s.recall_count for s in beta.timeline.stats([same[1].id])] == [0]
    assert [s.recall_count for s in alpha.timeline.stats([same[0].id])] == [1]
    assert {m.id for m in beta.timeline.recall("garden", "2024-05-01")} == {same[1].id}
    assert only.id in {m.id for m in alpha.timeline.recall("garden", "2024-05-01")}
    assert [i.id for i in beta.timeline.items(now="2024-05-01")] == [same[1].id]
    with pytest.raises(NotFound):
        beta.timeline.delete_event(only.id)
    assert beta.timeline.delete_event(same[1].id).id == same[1].id
    assert len(alpha.timeline.items(now="2024-05-01")) == 2


def test_another_process_writes_are_found_whatever_other_spaces_do(
    store: Store, store_url: str, tmp_path: Path
) -> None:
    """A search checks store-wide marks before counting its space (graphmem/vectors/synced.py):
    an addition in the space balanced by a deletion in another still reaches the index."""

    def opened(name: str) -> Memory:
        return Memory(
            store_url, settings=Settings(home=tmp_path / name, vector_refresh_ms=0), space="alpha"
        )

    with opened("one") as reader, opened("two") as writer:
        other = writer.in_space("beta").timeline
        gone = other.add_event("Walked the dog by the canal.", "2024-03-01")
        assert reader.timeline.recall("canal walk", "2024-05-01") == []
        other.delete_event(gone.id)  # the label's count is back where it was...
        added = writer.timeline.add_event("Swam in the canal.", "2024-03-02")  # ...but here
        assert [m.id for m in reader.timeline.recall("canal", "2024-05-01")] == [added.id]
        more = writer.timeline.add_event("Rowed on the canal.", "2024-03-03")
        found = {m.id for m in reader.timeline.recall("canal", "2024-05-01")}
        assert found == {added.id, more.id}


def test_listing_and_deleting_a_space_removes_its_nodes_and_index_files(
    pair, store: Store, settings: Settings
) -> None:
    alpha, beta = pair
    for memory in pair:
        memory.timeline.add_event("Planted tomatoes in the garden.", "2024-04-02")
    name = sales_into(beta, 1.0)
    beta.series.meta_by_range(name, "2010-01-01", "2011-12-31", freq="year")
    beta.services()._close_indexes()  # saves beta's index files
    assert (index_dir(settings.home, "beta") / "vectors").is_dir()
    assert alpha.spaces() == ["alpha", "beta"]
    deleted = alpha.delete_space("beta")
    assert deleted > 10 and alpha.spaces() == ["alpha"]
    assert store.in_space("beta").read(Q["spaces_test.nodes_of_space"])[0]["n"] == 0
    assert not index_dir(settings.home, "beta").exists()
    assert beta.series.list() == [] and beta.timeline.items(now="2024-05-01") == []
    assert len(alpha.timeline.items(now="2024-05-01")) == 1
    assert alpha.delete_space("never-used") == 0


def test_bad_space_names_are_refused_naming_the_field(store_url: str, settings: Settings) -> None:
    for bad in ("", "Upper", "with space", "-dash-first", "x" * 64, "dot.name", "a\n", 7):
        with pytest.raises(InvalidInput) as raised:
            Memory(store_url, settings=settings, space=bad)
        assert raised.value.field == "space"
    assert checked_space("a" * 63) == "a" * 63 and checked_space(None) == DEFAULT_SPACE
    with pytest.raises(InvalidInput) as raised:
        Settings(space="Not Valid")
    assert raised.value.field == "GRAPHMEM_SPACE"
    assert Memory(store_url, settings=settings.with_overrides(space="from-env")).space == "from-env"


def test_async_memory_takes_a_space(store: Store, store_url: str, settings: Settings) -> None:
    import asyncio

    async def run() -> tuple[list[str], list[str]]:
        async with AsyncMemory(store_url, settings=settings, space="gamma") as memory:
            await memory.timeline.add_event("Painted the shed.", "2024-03-01")
            return await memory.spaces(), [e.id for e in await memory.timeline.items()]

    spaces, items = asyncio.run(run())
    assert spaces == ["gamma"] and len(items) == 1
    with Memory(store_url, settings=settings) as default:
        assert default.space == DEFAULT_SPACE and default.timeline.items() == []


def test_a_store_written_before_spaces_joins_the_default_space(store: Store) -> None:
    store.write(Q["spaces_test.legacy_nodes"])
    # an old store's constraints were on the id alone
    legacy = SchemaItem("unique", "Series", ("name",))
    store._create(legacy)
    assert legacy.key in store._existing_schema()
    store.apply_schema()  # what an open does
    assert legacy.key not in store._existing_schema()
    assert store.read(Q["spaces_test.without_space"]) == [], "every node has a space"
    assert store.read("series.get_by_name", name="legacy")[0]["s"]["id"] == "ser_legacy"
    assert store.in_space("other").read("series.get_by_name", name="legacy") == []
    assert [r["id"] for r in store.read("props.existing", ids=["prop_legacy"])] == ["prop_legacy"]


# --- choosing a space over HTTP and on the command line ----------------------------------------


@pytest.fixture
def client(store: Store, store_url: str, short_tmp: Path) -> Iterator[Callable[..., TestClient]]:
    with contextlib.ExitStack() as stack:

        def make(**changes: object) -> TestClient:
            settings = Settings(store_url=store_url, home=short_tmp / "spaces", **changes)
            return stack.enter_context(
                TestClient(create_app(settings), base_url="http://localhost")
            )

        yield make


def post(app: TestClient, query: str, space: str | None = None, token: str | None = None):
    headers = {"X-Graphmem-Space": space} if space is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return app.post("/graphql", json={"query": query}, headers=headers)


CREATE = 'mutation { createSeries(name: "shared") { id } }'
LIST = "{ space series { items { name } } }"


def test_the_header_chooses_the_space_of_a_graphql_request(client) -> None:
    app = client()
    assert post(app, CREATE, "tenant-a").status_code == 200
    assert post(app, LIST, "tenant-a").json()["data"] == {
        "space": "tenant-a",
        "series": {"items": [{"name": "shared"}]},
    }
    assert post(app, LIST).json()["data"] == {"space": "default", "series": {"items": []}}
    assert post(app, "{ spaces }").json()["data"]["spaces"] == ["tenant-a"]
    event = 'mutation { addEvent(text: "Fed the cat.", date: "2024-01-02") { id } }'
    assert post(app, event, "tenant-a").json()["data"]["addEvent"]["id"]
    recall = '{ recall(query: "cat", now: "2024-02-01") { text } }'
    assert post(app, recall, "tenant-a").json()["data"]["recall"] == [{"text": "Fed the cat."}]
    assert post(app, recall, "tenant-b").json()["data"]["recall"] == []
    bad = post(app, LIST, "Tenant A")
    assert bad.status_code == 400
    error = bad.json()["errors"][0]
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "X-Graphmem-Space"}
    gone = post(app, 'mutation { deleteSpace(name: "tenant-a") { name nodes } }')
    # the series, the event and the Event vector clock its write moved
    assert gone.json()["data"]["deleteSpace"] == {"name": "tenant-a", "nodes": 3}
    assert post(app, LIST, "tenant-a").json()["data"]["series"]["items"] == []


def tokens_file(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.json"
    entries = [
        {"name": "admin", "token": WRITE, "access": "write", "spaces": "*"},
        {"name": "reader", "token": READ, "access": "read"},
        {"name": "tenant", "token": BOUND, "access": "write", "spaces": ["tenant-a"]},
    ]
    path.write_text(json.dumps({"tokens": entries}))
    path.chmod(0o600)
    return path


def test_tokens_are_bound_to_their_spaces(client, store: Store, tmp_path: Path) -> None:
    app = client(tokens_file=tokens_file(tmp_path))
    assert post(app, CREATE, "tenant-a", BOUND).json()["data"]["createSeries"]["id"]
    refused = post(app, CREATE, "tenant-b", BOUND)
    assert refused.status_code == 403
    assert refused.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    assert "tenant-b" in refused.json()["errors"][0]["message"]
    assert post(app, CREATE, None, BOUND).status_code == 403, "default is a space like any"
    assert store.in_space("tenant-b").read("series.list", offset=0, limit=10) == []
    forbidden = post(app, 'mutation { deleteSpace(name: "tenant-b") { nodes } }', "tenant-a", BOUND)
    assert forbidden.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    # the read token reaches every space, read only; the admin token every space
    assert post(app, LIST, "tenant-a", READ).json()["data"]["series"]["items"] == [
        {"name": "shared"}
    ]
    read_only = post(app, CREATE, "tenant-a", READ).json()["errors"][0]["extensions"]["code"]
    assert read_only == "FORBIDDEN"
    assert post(app, CREATE, "tenant-b", WRITE).status_code == 200
    assert post(app, "{ spaces }", "tenant-a", BOUND).json()["data"]["spaces"] == ["tenant-a"]
    assert post(app, "{ spaces }", None, WRITE).json()["data"]["spaces"] == ["tenant-a", "tenant-b"]


def test_mcp_over_http_uses_the_header_and_the_binding(client, tmp_path: Path) -> None:
    app = client(tokens_file=tokens_file(tmp_path))
    post(app, CREATE, "tenant-a", BOUND)
    headers = {
        "Authorization": f"Bearer {BOUND}",
        "Accept": "application/json, text/event-stream",
        "X-Graphmem-Space": "tenant-a",
    }
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "resources/read",
        "params": {"uri": "graphmem://series"},
    }
    reply = app.post("/mcp", json=body, headers=headers)
    assert reply.status_code == 200 and "shared" in json.dumps(reply.json())
    other = app.post("/mcp", json=body, headers={**headers, "X-Graphmem-Space": "tenant-b"})
    assert other.status_code == 403


def test_the_cli_takes_a_space_option_and_manages_spaces(
    store: Store, store_url: str, tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("GRAPHMEM_HOME", str(tmp_path))
    monkeypatch.setenv("GRAPHMEM_VECTOR_REFRESH_MS", "0")
    base = ["--store", store_url]
    assert (
        cli.main([*base, "add-event", "Fed the cat.", "--date", "2024-01-02", "--space", "home"])
        == 0
    )
    monkeypatch.setenv("GRAPHMEM_SPACE", "work")
    assert cli.main([*base, "add-event", "Shipped the release.", "--date", "2024-01-03"]) == 0
    capsys.readouterr()
    assert cli.main([*base, "space", "list"]) == 0
    assert capsys.readouterr().out.split() == ["home", "work"]
    assert cli.main([*base, "recall", "cat", "--now", "2024-02-01", "--space", "home"]) == 0
    out = capsys.readouterr().out
    assert "Fed the cat." in out and "Shipped" not in out
    # the event, and the vector clock recording which embedder made its vector
    assert store.in_space("home").read(Q["spaces_test.nodes_of_space"])[0]["n"] == 2
    assert cli.main([*base, "space", "delete", "home"]) == 2, "needs --yes"
    assert store.in_space("home").read(Q["spaces_test.nodes_of_space"])[0]["n"] == 2
    assert cli.main([*base, "space", "delete", "home", "--yes"]) == 0
    assert store.in_space("home").read(Q["spaces_test.nodes_of_space"])[0]["n"] == 0
    assert cli.main([*base, "series", "list", "--space", "Bad!"]) == 1
    assert "--space" in capsys.readouterr().err
