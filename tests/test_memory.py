"""graphmem.Memory and AsyncMemory: each memory through the one entry, on the real store."""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import graphmem
from graphmem.config import Settings
from graphmem.cypher import load_dir
from graphmem.errors import AlreadyExists, InvalidInput, NotFound, StoreUnavailable
from graphmem.memory import (
    AsyncMemory,
    AsyncPropositions,
    AsyncSeries,
    AsyncTimeline,
    Memory,
    Propositions,
    Series,
    Timeline,
)
from graphmem.props.demo_corpus import AS_OF, DOCUMENTS
from graphmem.series.detect.segments import list_segments
from graphmem.series.detect.synthetic import sales_series
from graphmem.series.meta import get_members
from graphmem.store import Store
from graphmem.timeline.demo_corpus import HALLOWEEN, NOW, QUESTION, WARD_RECALLS

Q = load_dir(Path(__file__).parent / "cypher")
RUMOUR = "A rumour claims that Quillmere Foundry will close its Brackwater site."
DENIAL = "Quillmere Foundry denied that it will close its Brackwater site."


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """No LLM (offline extraction and relations); indexes re-checked against the graph at once."""
    return Settings(home=tmp_path, vector_refresh_ms=0)


@pytest.fixture
def memory(store: Store, store_url: str, settings: Settings) -> Iterator[Memory]:
    with Memory(store_url, settings=settings) as opened:
        yield opened


def sales_into(memory: Memory) -> str:
    """The synthetic daily sales series (2010-2020) stored through the memory; its name."""
    data = sales_series(seed=0)
    memory.series.create(data.name, data.unit, data.description)
    result = memory.series.append(data.name, data.ts, data.xs)
    assert (result.accepted, result.duplicate) == (len(data.ts), False)
    return data.name


# --- the three memories ------------------------------------------------------------------------


def test_series_memory_stores_segments_and_builds_meta_segments(
    memory: Memory, store: Store
) -> None:
    name = sales_into(memory)
    assert [s.name for s in memory.series.list()] == [name]
    assert memory.series.get(name).unit == "units sold"
    with pytest.raises(AlreadyExists):
        memory.series.create(name)
    segs = memory.series.segments(name, limit=1000)
    assert segs == list_segments(store, name, limit=1000)  # what the graph holds
    assert sum(s.n for s in segs) == 4018 and segs[-1].open
    assert memory.series.segment(segs[0].id) == segs[0]
    assert memory.series.bounds(name).n_segments == len(segs)
    in_2016 = memory.series.segments(name, start="2016-01-01", end="2016-12-31", limit=1000)
    assert in_2016 and all(s.start_iso[:4] <= "2016" <= s.end_iso[:4] for s in in_2016)

    years = memory.series.meta_by_range(name, "2010-01-01", "2020-12-31", freq="year")
    assert [m.label for m in years] == [str(y) for y in range(2010, 2021)]
    slowest = min(years, key=lambda m: m.features.slope_per_day)
    assert slowest.label == "2016"  # the demo's finding: a weaker trend in 2016
    # the same build again is the same cached nodes; both are recorded as Python tool calls
    again = memory.series.meta_by_range(name, "2010-01-01", "2020-12-31", freq="year")
    assert [m.id for m in again] == [m.id for m in years]
    builds = store.read(Q["memory_test.builds"])
    assert {(r["tool"], r["session"]) for r in builds} == {
        ("create_meta_segment_by_datetime_range", "python")
    }
    assert {r["meta"] for r in builds} == {m.id for m in years}

    pair = memory.series.meta_from_members([years[5].id, years[6].id], label="2015-16")
    assert pair.label == "2015-16" and pair.stats.n == years[5].stats.n + years[6].stats.n
    assert {m.id for m in memory.series.members(pair.id).metas} == {years[5].id, years[6].id}
    falling = memory.series.meta_by_filter(name, "slope<-0.05")
    members = get_members(store, falling.id).segments
    assert members and all(s.features.slope_per_day <= -0.05 for s in members)
    assert memory.series.meta(falling.id).id == falling.id
    assert {m.id for m in memory.series.metas(name)} >= {m.id for m in years} | {pair.id}

    result = memory.series.run_tool("time_bounds", {"series": name})
    assert result.ok and '"n_points":4018' in result.content
    names = {s["function"]["name"] for s in memory.series.tool_schemas()}
    assert "get_meta_features" in names
    assert memory.series.plot(name, memory.settings.home / "sales.png") == len(segs)
    assert memory.series.delete(name).name == name and memory.series.list() == []


def test_propositions_memory_relates_and_retrieves_as_of_a_date(memory: Memory) -> None:
    reports = [
        memory.propositions.add_document(d["text"], d["date"], d["source"]) for d in DOCUMENTS
    ]
    assert sum(r.added for r in reports) == 9 and sum(r.relations for r in reports) > 0
    again = memory.propositions.add_document(**DOCUMENTS[0])
    assert (again.added, again.existing) == (0, 2)  # the same document: nothing new

    question = "Will Quillmere Foundry close its Brackwater site?"
    graph = memory.propositions.subgraph(question, as_of=AS_OF, k=3)
    by_text = {n.prop.text: n for n in graph.nodes}
    assert {RUMOUR, DENIAL} <= by_text.keys()
    assert by_text[RUMOUR].status.contradicted_by == (by_text[DENIAL].prop.id,)
    assert all(n.prop.date <= AS_OF for n in graph.nodes)
    text = memory.propositions.context(question, as_of=AS_OF, k=3)
    assert f"Statement: {DENIAL}\n" in text and "This statement contradicts P" in text
    assert memory.propositions.context(question, as_of="2020-01-25", k=3).count(DENIAL) == 0

    ids = [by_text[DENIAL].prop.id, by_text[RUMOUR].prop.id]
    assert [p.text for p in memory.propositions.get(ids)] == [DENIAL, RUMOUR]
    counts = memory.propositions.counts()
    assert (counts["propositions"], counts["documents"]) == (9, 7)
    relations = memory.propositions.relations()
    assert len(relations) == counts["relations"] > 0
    added = memory.propositions.add(
        [{"text": "Brackwater opened a new bridge.", "date": "2024-01-05"}]
    )
    assert added.added == 1 and added.document_id is None


def test_bulk_import_corrections_and_deletions_through_the_memory(
    memory: Memory, store_url: str, tmp_path: Path
) -> None:
    report = memory.propositions.add_documents(DOCUMENTS)
    assert (report.added, report.skipped, len(report.document_ids)) == (9, 0, len(DOCUMENTS))
    assert memory.propositions.add_documents(DOCUMENTS).skipped == len(DOCUMENTS)
    other_settings = Settings(home=tmp_path / "other", vector_refresh_ms=0)
    question = "Will Quillmere Foundry close its Brackwater site?"
    with Memory(store_url, settings=other_settings) as other:  # another process's indexes

        def statuses() -> dict[str, str]:
            graph = other.propositions.subgraph(question, as_of=AS_OF, k=3)
            return {n.prop.text: n.status.state for n in graph.nodes}

        assert statuses()[RUMOUR] == "contradicted"
        denial = next(
            p
            for p in memory.propositions.get(
                [n.prop.id for n in other.propositions.subgraph(question, k=3).nodes]
            )
            if p.text == DENIAL
        )
        fixed = memory.propositions.update(denial.id, date="2020-02-04")
        assert fixed.id != denial.id and fixed.text == DENIAL and fixed.date == "2020-02-04"
        assert memory.propositions.delete(fixed.id).id == fixed.id
        assert DENIAL not in statuses() and statuses()[RUMOUR] == "current"
        deleted = memory.propositions.delete_document(report.document_ids[0])
        assert memory.propositions.counts()["documents"] == len(DOCUMENTS) - 1
        assert not memory.propositions.get(list(deleted.proposition_ids))
        event = memory.timeline.add_event("Planted tomatoes in the garden.", "2024-04-02")
        assert other.timeline.recall("tomatoes", "2024-05-01", k=1)[0].id == event.id
        assert memory.timeline.delete_event(event.id).id == event.id
        assert all(m.id != event.id for m in other.timeline.recall("tomatoes", "2024-05-01"))


def test_timeline_memory_ranks_by_recall_probability(
    store: Store, store_url: str, settings: Settings, tmp_path: Path
) -> None:
    # the paper's example at the paper's time scale (t in days, r the cosine itself)
    paper = settings.with_overrides(time_unit="days", relevance_floor=0.0, relevance_full=1.0)
    with Memory(store_url, settings=paper) as memory:
        _ranks_by_recall(memory, tmp_path)


def _ranks_by_recall(memory: Memory, tmp_path: Path) -> None:
    events = {k: memory.timeline.add_event(t, d, "news") for k, (t, d) in HALLOWEEN.items()}
    ward = events["ward"].id
    for day in WARD_RECALLS:
        [stats] = memory.timeline.reinforce([ward], day)
        assert stats.changed
    got = memory.timeline.recall(QUESTION, NOW, k=3)
    assert got[0].id == ward and got[0].n == len(WARD_RECALLS)  # recalled often, so first
    assert got[0].r < max(m.r for m in got[1:])  # though not the most relevant
    assert [s.recall_count for s in memory.timeline.stats([ward])] == [len(WARD_RECALLS)]
    more = memory.timeline.add_events(
        [{"text": "The parade route was announced.", "date": "2024-10-20"}]
    )
    items = memory.timeline.items(start="2024-10-01", now=NOW)
    assert [i.id for i in items] == [ward, more[0].id, events["forecast"].id]
    assert memory.timeline.plot(tmp_path / "timeline.png", now=NOW) == 4
    assert (tmp_path / "timeline.png").stat().st_size > 0


# --- the async twin ----------------------------------------------------------------------------

PAIRS = [(Series, AsyncSeries), (Propositions, AsyncPropositions), (Timeline, AsyncTimeline)]


def public(cls: type) -> set[str]:
    return {name for name, _ in inspect.getmembers(cls, inspect.isfunction) if name[0] != "_"}


@pytest.mark.parametrize(("sync", "twin"), PAIRS, ids=lambda c: c.__name__)
def test_every_sync_method_has_an_async_twin_with_its_signature(sync: type, twin: type) -> None:
    assert public(twin) == public(sync)
    for name in public(sync):
        method = getattr(twin, name)
        assert inspect.iscoroutinefunction(method), name
        assert inspect.signature(method) == inspect.signature(getattr(sync, name)), name
        assert method.__doc__ == getattr(sync, name).__doc__


def test_async_memory_runs_each_memory_off_the_event_loop(
    store: Store, store_url: str, settings: Settings
) -> None:
    async def scenario() -> None:
        async with AsyncMemory(store_url, settings=settings, max_workers=2) as memory:
            name = (await memory.series.create("visits", "people")).name
            appended = await memory.series.append(name, ["2024-01-01", "2024-01-02"], [3.0, 4.0])
            event, report, listed = await asyncio.gather(
                memory.timeline.add_event("Opened the new library.", "2024-03-01"),
                memory.propositions.add_document("The library opened in March.", "2024-03-01"),
                memory.series.list(),
            )
            assert appended.accepted == 2 and [s.name for s in listed] == ["visits"]
            recalled = await memory.timeline.recall("library opening", "2024-03-02", k=5)
            assert {m.id for m in recalled} == {event.id, *report.proposition_ids}
            graph = await memory.propositions.subgraph("When did the library open?")
            assert [n.prop.id for n in graph.nodes] == list(report.proposition_ids)
            segs = await memory.series.segments(name)
            assert sum(s.n for s in segs) == 2
            # the same store and indexes as a sync Memory underneath
            assert memory.memory.timeline.stats([event.id])[0].id == event.id

    asyncio.run(scenario())


def test_async_calls_run_on_the_bounded_pool(
    store: Store, store_url: str, settings: Settings
) -> None:
    threads: set[str] = set()

    def record(_: int) -> None:  # progress of append_all: called on the thread running it
        threads.add(threading.current_thread().name)

    async def scenario() -> None:
        async with AsyncMemory(store_url, settings=settings, max_workers=2) as memory:
            names = [f"sensor-{i}" for i in range(6)]
            await asyncio.gather(*(memory.series.create(name) for name in names))
            days = [f"2024-01-{d:02}" for d in range(1, 11)]
            await asyncio.gather(
                *(
                    memory.series.append_all(name, days, [1.0] * 10, batch_size=2, progress=record)
                    for name in names
                )
            )
            bounds = await asyncio.gather(*(memory.series.bounds(name) for name in names))
            assert [b.n_points for b in bounds] == [10] * 6

    asyncio.run(scenario())
    assert 1 <= len(threads) <= 2 and all(n.startswith("graphmem-async") for n in threads)


# --- opening, closing, sharing -----------------------------------------------------------------


def test_nothing_opens_until_used_and_an_unreachable_store_fails_at_open(tmp_path: Path) -> None:
    url = "falkordb://127.0.0.1:1?connect_timeout=2"  # nothing listens on port 1
    memory = Memory(url, settings=Settings(home=tmp_path))
    assert "not opened yet" in repr(memory)
    with pytest.raises(StoreUnavailable):
        memory.series.list()
    with pytest.raises(StoreUnavailable):
        Memory.open(url, settings=Settings(home=tmp_path))
    memory.close()


def test_close_saves_the_indexes_and_ends_the_memory(
    store: Store, store_url: str, settings: Settings
) -> None:
    with Memory(store_url, settings=settings) as memory:
        memory.timeline.add_event("Bought a red bicycle.", "2024-05-03")
    assert (settings.home / "vectors" / "Event.faiss").is_file()  # saved on leaving `with`
    with pytest.raises(StoreUnavailable, match="closed"):
        memory.timeline.recall("bicycle", "2024-06-01")
    memory.close()  # a second close is harmless
    reopened = Memory.open(store_url, settings=settings)
    try:
        [found] = reopened.timeline.recall("bicycle", "2024-06-01", k=1)
        assert found.text == "Bought a red bicycle."
    finally:
        reopened.close()

    async def closed_async() -> None:
        memory = await AsyncMemory.open(store_url, settings=settings)
        await memory.close()
        with pytest.raises(StoreUnavailable, match="closed"):
            await memory.series.list()
        await memory.close()

    asyncio.run(closed_async())


def test_two_memories_on_one_data_dir_see_each_others_writes(short_tmp: Path) -> None:
    url = f"falkordb+embedded://{short_tmp / 'two-memories'}"
    settings = Settings(home=short_tmp / "two-memories", vector_refresh_ms=0)
    first, second = Memory.open(url), Memory.open(url, settings=settings)
    assert first.settings.home == short_tmp / "two-memories"  # an embedded URL: indexes beside it
    try:
        a = first.timeline.add_event("Planted tomatoes in the garden.", "2024-04-02")
        assert second.timeline.recall("tomatoes", "2024-05-01", k=1)[0].id == a.id
        b = second.timeline.add_event("Harvested the first tomatoes.", "2024-07-20")
        first.close()  # the other one keeps the embedded server it shares
        assert [e.id for e in second.timeline.items(now="2024-08-01")] == [a.id, b.id]
    finally:
        first.close()
        second.close()
    third = Memory.open(url, settings=settings)  # after both closed, everything is still there
    try:
        found = third.timeline.recall("tomato harvest", "2024-08-01", k=2)
        assert {m.id for m in found} == {a.id, b.id}
    finally:
        third.close()


def test_memory_is_the_package_entry() -> None:
    assert graphmem.Memory is Memory and graphmem.AsyncMemory is AsyncMemory
    with pytest.raises(AttributeError):
        graphmem.NoSuchThing  # noqa: B018


# --- bad arguments -----------------------------------------------------------------------------

BAD_CALLS: list[tuple[str, Callable[[Memory], object], str]] = [
    ("series name", lambda m: m.series.create(""), "name"),
    ("series list limit", lambda m: m.series.list(limit="ten"), "limit"),
    ("segments offset", lambda m: m.series.segments("s", offset=-1), "offset"),
    ("segments start", lambda m: m.series.segments("s", start="yesterday"), "start"),
    (
        "append order",
        lambda m: m.series.append("s", ["2020-01-02", "2020-01-01"], [1, 2]),
        "timestamps[1]",
    ),
    ("append values", lambda m: m.series.append("s", ["2020-01-03"], "x"), "values"),
    (
        "batch size",
        lambda m: m.series.append_all("s", ["2020-01-03"], [1], batch_size=0),
        "batch_size",
    ),
    (
        "freq",
        lambda m: m.series.meta_by_range("s", "2020-01-01", "2020-12-31", freq="fortnight"),
        "freq",
    ),
    ("range end", lambda m: m.series.meta_by_range("s", "2020-01-01", object()), "end"),
    ("where", lambda m: m.series.meta_by_filter("s", "slope<abc"), "where"),
    ("members", lambda m: m.series.meta_from_members("seg_1"), "member_ids"),
    ("metas limit", lambda m: m.series.metas("s", limit=0), "limit"),
    ("schemas", lambda m: m.series.tool_schemas("list_series"), "exclude"),
    ("max steps", lambda m: m.series.ask("Why?", max_steps=0), "max_steps"),
    ("plot path", lambda m: m.series.plot("s", 5), "path"),
    ("document text", lambda m: m.propositions.add_document(" ", "2020-01-01"), "text"),
    ("document date", lambda m: m.propositions.add_document("A fact.", "01/02/2020"), "date"),
    (
        "relate",
        lambda m: m.propositions.add_document("A fact.", "2020-01-01", relate="no"),
        "relate",
    ),
    ("propositions", lambda m: m.propositions.add("A fact."), "propositions"),
    ("subgraph k", lambda m: m.propositions.subgraph("Who?", k=0), "k"),
    ("rank by", lambda m: m.propositions.subgraph("Who?", rank_by="magic"), "rank_by"),
    ("as of", lambda m: m.propositions.subgraph("Who?", as_of="soon"), "as_of"),
    ("get ids", lambda m: m.propositions.get("prop_1"), "ids"),
    ("refine ids", lambda m: m.propositions.refine("edge_1"), "edge_ids"),
    ("event date", lambda m: m.timeline.add_event("Lunch.", "not a date"), "event.date"),
    ("events", lambda m: m.timeline.add_events("Lunch."), "events"),
    ("recall k", lambda m: m.timeline.recall("lunch", "2024-01-01", k=0), "k"),
    (
        "recall labels",
        lambda m: m.timeline.recall("lunch", "2024-01-01", labels=["Meal"]),
        "labels[0]",
    ),
    (
        "reinforce flag",
        lambda m: m.timeline.recall("lunch", "2024-01-01", reinforce="yes"),
        "reinforce",
    ),
    ("reinforce ids", lambda m: m.timeline.reinforce("ev_1", "2024-01-01"), "ids"),
    ("items limit", lambda m: m.timeline.items(limit=0), "limit"),
]


def snapshot(store: Store) -> list[str]:
    """Every node and edge but tool calls (failed calls are recorded, as provenance)."""
    rows = store.read(Q["fuzz_test.nodes"]) + store.read(Q["fuzz_test.edges"])
    return sorted(repr(row) for row in rows)


@pytest.mark.parametrize(
    ("call", "field"), [c[1:] for c in BAD_CALLS], ids=[c[0] for c in BAD_CALLS]
)
def test_bad_arguments_name_the_field_and_change_nothing(
    memory: Memory, store: Store, call: Callable[[Memory], object], field: str
) -> None:
    memory.series.create("s")
    memory.series.append("s", ["2020-01-01"], [1.0])
    before = snapshot(store)
    with pytest.raises(InvalidInput) as raised:
        call(memory)
    assert raised.value.field == field
    assert snapshot(store) == before


def test_bad_arguments_to_open_name_the_field(store_url: str, tmp_path: Path) -> None:
    for make, field in (
        (lambda: Memory(5), "store_url"),
        (lambda: Memory("mysql://localhost/db"), "store_url"),
        (lambda: Memory(settings={"home": str(tmp_path)}), "settings"),
        (lambda: AsyncMemory(store_url, max_workers=0), "max_workers"),
        (lambda: AsyncMemory(store_url, max_workers=2.5), "max_workers"),
    ):
        with pytest.raises(InvalidInput) as raised:
            make()
        assert raised.value.field == field


def test_unknown_ids_are_not_found(memory: Memory) -> None:
    with pytest.raises(NotFound):
        memory.series.get("no-such-series")
    with pytest.raises(NotFound):
        memory.series.meta("meta_missing")
    assert memory.propositions.get(["prop_missing"]) == []


def test_open_props_refuses_vectors_keyed_for_another_model(store: Store, tmp_path: Path) -> None:
    from graphmem.services import open_embedder, open_props, open_vectors

    fp32 = Settings(home=tmp_path, embed_precision="fp32")
    vectors = open_vectors(fp32, store, open_embedder(fp32))
    int8 = Settings(home=tmp_path, embed_precision="int8")
    with pytest.raises(InvalidInput, match="vectors: are keyed for the model") as raised:
        open_props(int8, store, llm=None, vectors=vectors)
    assert raised.value.field == "vectors"
    vectors.close()
