"""Timeline memory on a real embedded FalkorDB, real FAISS indexes and the real embedding model."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from graphmem.cypher import load_dir
from graphmem.embed import Embedder
from graphmem.errors import InvalidInput, NotFound
from graphmem.store import Store
from graphmem.timeline import (
    TimelineConfig,
    TimelineMemory,
    add_event,
    add_events,
    next_g,
    plot_timeline,
    ranker,
    recall,
    recall_probability,
    recall_stats,
    reinforce,
    retention,
    timeline,
)
from graphmem.timeline.demo_corpus import HALLOWEEN, NOW, QUESTION, WARD_RECALLS
from graphmem.timeutil import parse_timestamp
from graphmem.vectors import VectorStore, vector_id

Q = load_dir(Path(__file__).parent / "cypher")
DAY = 86400
# the seed's setting (t in days, r the clipped cosine): the tests of the formula's mechanics
# compute their expected values by hand in it; the defaults are tested at the end
SEED = TimelineConfig(time_unit_seconds=DAY, threshold=0.9, relevance_floor=0.0, relevance_full=1.0)


def ts(date: str) -> int:
    return int(parse_timestamp(date))


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


@pytest.fixture
def ctx(store: Store, embedder: Embedder, tmp_path: Path) -> TimelineMemory:
    vectors = VectorStore(store, tmp_path, embedder.name, embedder.dim)
    return TimelineMemory(store, embedder, vectors, SEED, now=lambda: ts("2030-01-01"))


def event_count(store: Store) -> int:
    return store.read(Q["timeline_test.count_events"])[0]["n"]


# --- the formula -------------------------------------------------------------------------------


def test_recall_probability_matches_hand_computed_values() -> None:
    # p = (1 - exp(-r * e^(-t/g))) / (1 - e^-1), and 1 - e^-1 = 0.632121
    # r=1, t=0, g=1: (1 - e^-1) / (1 - e^-1) = 1
    assert recall_probability(1.0, 0.0, 1.0) == pytest.approx(1.0)
    # r=1, t=1, g=1: e^-1 = 0.367879; 1 - e^-0.367879 = 0.307799; / 0.632121 = 0.486931
    assert recall_probability(1.0, 1.0, 1.0) == pytest.approx(0.486931, abs=1e-6)
    # r=0.5, t=0, g=1: 1 - e^-0.5 = 0.393469; / 0.632121 = 0.622459
    assert recall_probability(0.5, 0.0, 1.0) == pytest.approx(0.622459, abs=1e-6)
    # r=0.8, t=2, g=2: e^-1 * 0.8 = 0.294304; 1 - e^-0.294304 = 0.254950; / 0.632121 = 0.403325
    assert recall_probability(0.8, 2.0, 2.0) == pytest.approx(0.403325, abs=1e-6)
    # r is clipped to [0, 1]: above 1 would give p > 1, a negative cosine p < 0
    assert recall_probability(1.7, 1.0, 1.0) == recall_probability(1.0, 1.0, 1.0)
    assert recall_probability(-0.3, 0.0, 1.0) == 0.0
    assert retention(1.0, 1.0) == recall_probability(1.0, 1.0, 1.0)


def test_next_g_matches_hand_computed_values() -> None:
    # g_n = g + (1 - e^-t) / (1 + e^-t)
    assert next_g(1.0, 0.0) == 1.0  # recalled again at once: nothing learnt
    # t=1: (1 - 0.367879) / (1 + 0.367879) = 0.632121 / 1.367879 = 0.462117
    assert next_g(1.0, 1.0) == pytest.approx(1.462117, abs=1e-6)
    assert next_g(2.0, 50.0) == pytest.approx(3.0)  # a long gap adds (almost) exactly 1
    assert next_g(2.0, 1e9) == 3.0  # no overflow for huge gaps


def test_decay_is_monotone_in_t() -> None:
    for r in (0.2, 0.6, 1.0):
        for g in (1.0, 2.5, 7.0):
            ps = [recall_probability(r, t, g) for t in np.linspace(0, 30, 121)]
            assert all(a > b for a, b in zip(ps, ps[1:], strict=False))
            assert 0 < ps[-1] < ps[0] <= 1


def test_each_recall_slows_the_decay() -> None:
    g, before = 1.0, []
    for _ in range(5):
        before.append(recall_probability(0.7, 5.0, g))
        g_next = next_g(g, 3.0)
        assert g_next > g
        g = g_next
    assert all(a < b for a, b in zip(before, before[1:], strict=False))


def test_formula_and_config_reject_bad_values() -> None:
    with pytest.raises(InvalidInput) as err:
        recall_probability(0.5, -1.0, 1.0)
    assert err.value.field == "t"
    with pytest.raises(InvalidInput) as err:
        recall_probability(0.5, 1.0, 0.0)
    assert err.value.field == "g"
    with pytest.raises(InvalidInput) as err:
        next_g(1.0, float("nan"))
    assert err.value.field == "t"
    for bad, field in (
        ({"time_unit_seconds": 0}, "time_unit_seconds"),
        ({"threshold": 1.5}, "threshold"),
        ({"candidates": 0}, "candidates"),
        ({"relevance_floor": 0.9}, "relevance_full"),  # not above the floor
        ({"relevance_full": 1.5}, "relevance_full"),
    ):
        with pytest.raises(InvalidInput) as err:
            TimelineConfig(**bad)
        assert err.value.field == field


def test_ranker_scores_candidates_by_p() -> None:
    now = ts("2024-01-11")
    rank = ranker(now, SEED)
    candidates = [
        {"similarity": 0.9, "ts": ts("2024-01-01")},  # never recalled, 10 days old
        {
            "similarity": 0.5,
            "ts": ts("2023-01-01"),
            "recall_count": 4,
            "g": 6.0,
            "last_recalled_at": ts("2024-01-10"),
        },  # old, recalled yesterday
    ]
    scores = rank(candidates)
    assert scores[0] == pytest.approx(recall_probability(0.9, 10.0, 1.0))
    assert scores[1] == pytest.approx(recall_probability(0.5, 1.0, 6.0))
    assert scores[1] > scores[0]
    assert rank([]) == []
    # (node, similarity, ts) tuples: the node's statistics, or an id for a never recalled one
    assert rank([(candidates[1], 0.5, candidates[1]["ts"]), ("ev_x", 0.9, ts("2024-01-01"))]) == [
        pytest.approx(scores[1]),
        pytest.approx(scores[0]),
    ]
    with pytest.raises(InvalidInput) as err:
        rank([{"similarity": 0.5}])
    assert err.value.field == "candidates[0]"


def test_ranker_reads_props_scored_candidates() -> None:
    from graphmem.props.model import Proposition
    from graphmem.props.retrieve import Scored

    prop = Proposition("prop_x", "x", "2024-01-01", ts("2024-01-01"))
    scored = Scored(prop, 0.8, 0, 1.0, None, ts("2025-06-01"))  # created_at: ingestion time
    [score] = ranker("2024-01-03", SEED)([scored])
    assert score == pytest.approx(recall_probability(0.8, 2.0, 1.0))  # decay from prop.ts


# --- events ------------------------------------------------------------------------------------


def test_add_event_stores_it_once(ctx: TimelineMemory, store: Store) -> None:
    event = add_event(ctx, "  The  team shipped version 2. ", "2024-03-05", source="notes")
    again = add_event(ctx, "The team shipped version 2.", "2024-03-05T00:00:00Z")
    assert again.id == event.id
    assert event.text == "The team shipped version 2." and event.date == "2024-03-05"
    assert event_count(store) == 1
    node = store.read(Q["timeline_test.event"], id=event.id)[0]["n"]
    assert node["ts"] == node["created_at"] == ts("2024-03-05")
    assert node["recall_count"] == 0 and node["g"] == 1.0
    assert node.get("last_recalled_at") is None
    assert node["vid"] == vector_id(event.id) and node["source"] == "notes"
    assert vector_id(event.id) in ctx.vectors.index("Event")
    other_day = add_event(ctx, "The team shipped version 2.", "2024-03-06")
    assert other_day.id != event.id and event_count(store) == 2


def test_add_event_rejects_bad_input_and_stores_nothing(ctx: TimelineMemory, store: Store) -> None:
    for text, date, field in (
        ("   ", "2024-01-01", "event.text"),
        (None, "2024-01-01", "event.text"),
        ("ok", "2024-02-30", "event.date"),
        ("ok", "yesterday", "event.date"),
        ("ok", None, "event.date"),
    ):
        with pytest.raises(InvalidInput) as err:
            add_event(ctx, text, date)
        assert err.value.field == field
    items = [{"text": "fine", "date": "2024-01-01"}, {"text": "bad", "date": "2024-13-01"}]
    with pytest.raises(InvalidInput) as err:
        add_events(ctx, items)
    assert err.value.field == "items[1].date"
    with pytest.raises(InvalidInput) as err:
        add_events(ctx, [{"text": "x", "date": "2024-01-01", "when": 1}])
    assert err.value.field == "items[0]"
    with pytest.raises(InvalidInput) as err:
        add_events(ctx, [{"text": "x", "date": "2024-01-01"}], embeddings=[[1.0, 2.0]])
    assert err.value.field == "embeddings"
    assert event_count(store) == 0


def test_add_events_with_given_embeddings(ctx: TimelineMemory, store: Store) -> None:
    rng = np.random.default_rng(0)
    vecs = rng.standard_normal((3, ctx.vectors.dim))
    items = [{"text": f"memory {i}", "date": f"2024-01-0{i + 1}"} for i in range(3)]
    events = add_events(ctx, items + items[:1], np.vstack([vecs, vecs[:1]]))
    assert [e.text for e in events] == ["memory 0", "memory 1", "memory 2"]
    assert event_count(store) == 3
    hits = ctx.vectors.search("Event", vecs[1] / np.linalg.norm(vecs[1]), 1)
    assert hits[0].node_id == events[1].id and hits[0].score == pytest.approx(1.0, abs=1e-5)


# --- recall ------------------------------------------------------------------------------------


def test_recall_at_t0_orders_by_relevance(ctx: TimelineMemory) -> None:
    texts = [
        "The bakery on Elm Street sells sourdough bread every morning.",
        "Our cat sleeps on the windowsill in the afternoon sun.",
        "The stock market fell sharply after the interest rate decision.",
    ]
    add_events(ctx, [{"text": t, "date": "2024-05-01"} for t in texts])
    got = recall(ctx, "Where can I buy fresh bread?", "2024-05-01", k=3)
    assert len(got) == 3
    assert got[0].text == texts[0]
    assert [m.r for m in got] == sorted((m.r for m in got), reverse=True)
    for m in got:  # t = 0: p = (1 - e^-r) / (1 - e^-1)
        assert m.t == 0 and m.n == 0 and m.g == 1.0 and m.label == "Event"
        assert m.p == pytest.approx((1 - math.exp(-m.r)) / (1 - math.exp(-1)))
        assert m.recalled == (m.p >= 0.9)


def test_recall_ignores_memories_dated_after_now(ctx: TimelineMemory) -> None:
    add_event(ctx, "The harbour festival had fireworks over the water.", "2024-07-01")
    add_event(ctx, "The harbour festival was cancelled because of the storm.", "2024-07-20")
    got = recall(ctx, "harbour festival", "2024-07-10", k=5)
    assert [m.date for m in got] == ["2024-07-01"]
    assert got[0].t == pytest.approx(9.0)
    assert recall(ctx, "harbour festival", "2024-06-01") == []


def test_halloween_example_repeated_recall_beats_relevance(ctx: TimelineMemory) -> None:
    events = {
        key: add_event(ctx, text, date, source="news") for key, (text, date) in HALLOWEEN.items()
    }
    ward = events["ward"].id
    g = 1.0
    for day in WARD_RECALLS:
        [stats] = reinforce(ctx, [ward], day)
        g = next_g(g, 5.0)  # every recall came 5 days after the previous one (or creation)
        assert stats.changed and stats.g == pytest.approx(g)
    got = recall(ctx, QUESTION, NOW, k=3)
    by_id = {m.id: m for m in got}
    assert got[0].id == ward  # ranked first by p ...
    r_ward = by_id[ward].r
    assert r_ward < by_id[events["report"].id].r  # ... although it is the least relevant
    assert r_ward < by_id[events["forecast"].id].r
    first = by_id[ward]
    assert (first.n, first.t, first.last_recalled_at) == (5, 2.0, ts("2024-10-28"))
    assert first.p == pytest.approx(recall_probability(first.r, 2.0, g))
    assert by_id[events["forecast"].id].t == 3.0 and by_id[events["report"].id].t == 365.0
    # the candidate pool, not k, decides who competes: with k=1 the ward notice still wins
    assert [m.id for m in recall(ctx, QUESTION, NOW, k=1)] == [ward]


def test_recall_can_reinforce_what_it_recalls(ctx: TimelineMemory) -> None:
    event = add_event(ctx, "I parked the car on level 3 of the garage.", "2024-02-01")
    got = recall(ctx, "Where did I park the car?", "2024-02-01", threshold=0.1, reinforce=True)
    assert got[0].id == event.id and got[0].recalled and got[0].n == 0
    [stats] = recall_stats(ctx, [event.id])
    assert (stats.recall_count, stats.last_recalled_at) == (1, ts("2024-02-01"))


def test_recall_rejects_bad_arguments(ctx: TimelineMemory) -> None:
    for kwargs, field in (
        ({"query": " "}, "query"),
        ({"now": "not a date"}, "now"),
        ({"k": 0}, "k"),
        ({"threshold": 0}, "threshold"),
        ({"labels": ("Nope",)}, "labels[0]"),
        ({"candidates": -1}, "candidates"),
    ):
        args = {"query": "anything", "now": "2024-01-01", **kwargs}
        with pytest.raises(InvalidInput) as err:
            recall(ctx, **args)
        assert err.value.field == field


# --- reinforcement -----------------------------------------------------------------------------


def test_reinforce_is_once_per_id_and_now(ctx: TimelineMemory) -> None:
    event = add_event(ctx, "Dinner with Sam at the Thai place.", "2024-04-01")
    [first] = reinforce(ctx, [event.id], "2024-04-03")
    # t = 2 days: g = 1 + (1 - e^-2) / (1 + e^-2) = 1 + 0.761594
    assert first.changed and first.recall_count == 1
    assert first.g == pytest.approx(1.761594, abs=1e-6)
    assert first.last_recalled_at == ts("2024-04-03")
    [again] = reinforce(ctx, [event.id, event.id], "2024-04-03")  # same (id, now): no-op
    assert not again.changed
    assert (again.recall_count, again.g, again.last_recalled_at) == (1, first.g, ts("2024-04-03"))
    [late] = reinforce(ctx, [event.id], "2024-04-02")  # before the last recall: ignored
    assert not late.changed and late.recall_count == 1
    [second] = reinforce(ctx, [event.id], "2024-04-04")
    assert second.recall_count == 2
    assert second.g == pytest.approx(next_g(next_g(1.0, 2.0), 1.0))


def test_reinforce_errors_are_clear_and_change_nothing(ctx: TimelineMemory) -> None:
    old = add_event(ctx, "Moved into the flat on Rose Lane.", "2024-01-01")
    new = add_event(ctx, "Painted the kitchen yellow.", "2024-03-01")
    snapshot = recall_stats(ctx, [old.id, new.id])
    with pytest.raises(InvalidInput) as err:
        reinforce(ctx, [old.id, new.id], "2024-02-01")  # before `new` existed
    assert err.value.field == "now" and new.id in err.value.problem
    assert old.id not in err.value.problem
    with pytest.raises(NotFound) as missing:
        reinforce(ctx, [old.id, "ev_nope"], "2024-06-01")
    assert "ev_nope" in str(missing.value)
    for bad, field in (("2024-99-01", "now"), (None, "now")):
        with pytest.raises(InvalidInput) as err:
            reinforce(ctx, [old.id], bad)
        assert err.value.field == field
    with pytest.raises(InvalidInput) as err:
        reinforce(ctx, [old.id, ""], "2024-06-01")
    assert err.value.field == "ids[1]"
    assert recall_stats(ctx, [old.id, new.id]) == snapshot
    assert reinforce(ctx, [], "2024-06-01") == []


def test_recall_and_reinforce_propositions_and_segments(
    ctx: TimelineMemory, store: Store, embedder: Embedder
) -> None:
    texts = [
        "The museum reopened its east wing in May 2024.",
        "Ticket prices at the museum rose to 20 euros.",
    ]
    ids = ["prop_wing", "prop,price"]  # a comma cannot travel in the packed id string
    vecs = embedder.encode(texts)
    rows = [
        {
            "id": i,
            "text": t,
            "date": "2024-05-10",
            "ts": ts("2024-05-10"),
            "vid": vector_id(i),
            "embedding": v.tolist(),
            "created_at": ts("2026-01-01"),
        }  # ingested much later
        for i, t, v in zip(ids, texts, vecs, strict=True)
    ]
    store.write_batch(Q["timeline_test.create_propositions"], rows)
    ctx.vectors.add("Proposition", ids, [r["vid"] for r in rows], [r["ts"] for r in rows], vecs)
    event = add_event(ctx, "We visited the museum's new east wing.", "2024-05-20")
    reinforce(ctx, ["prop,price"], "2024-05-20")
    got = recall(ctx, "museum east wing", "2024-05-25", k=5)
    assert {m.label for m in got} == {"Event", "Proposition"}
    wing = next(m for m in got if m.id == "prop_wing")
    assert wing.text == texts[0] and wing.date == "2024-05-10" and wing.t == 15.0
    price = next(m for m in got if m.id == "prop,price")
    assert (price.n, price.t, price.g) == (1, 5.0, pytest.approx(next_g(1.0, 10.0)))
    assert [m.id for m in recall(ctx, "museum", "2024-05-25", labels=["Proposition"])] != []
    assert all(
        m.label == "Proposition"
        for m in recall(ctx, "museum", "2024-05-25", labels=["Proposition"])
    )
    store.write(
        Q["timeline_test.create_segment"],
        id="seg_1",
        start=ts("2024-01-01"),
        summary="sales rose 5% in January",
    )
    # decay counts from each memory's own date, not from a proposition's ingestion time
    stats = reinforce(ctx, ["prop_wing", "seg_1", event.id], "2024-05-30")
    assert [s.label for s in stats] == ["Proposition", "Segment", "Event"]
    assert all(s.changed and s.recall_count == 1 for s in stats)
    assert stats[0].g == pytest.approx(next_g(1.0, 20.0))
    assert stats[1].g == pytest.approx(next_g(1.0, 150.0))


@pytest.mark.parametrize("label", ["Segment", "MetaSegment"])
def test_reinforcing_a_segment_follows_the_formula_at_moderate_gaps(
    store: Store, label: str
) -> None:
    # at gaps of a few units the formula's terms matter: g grows by tanh(t/2), far from 0 or 1
    from graphmem.timeline import reinforce_in

    config = TimelineConfig(time_unit_seconds=3600)  # t in hours
    start = 1_700_000_000
    store.write(
        Q[f"timeline_test.create_{label.lower()}"],
        id="mem",
        start=float(start),
        summary="sales rose",
    )
    g, now = 1.0, start
    for n, gap in enumerate([0.3, 1.0, 2.5], start=1):
        now += int(gap * 3600)
        [stats] = reinforce_in(store, ["mem"], now, config)
        g = next_g(g, gap)
        assert (stats.label, stats.recall_count, stats.last_recalled_at) == (label, n, now)
        assert stats.g == pytest.approx(g, rel=1e-12), (label, gap)
    assert g == pytest.approx(1.0 + math.tanh(0.15) + math.tanh(0.5) + math.tanh(1.25))


# --- the timeline ------------------------------------------------------------------------------


def test_timeline_lists_memories_with_importance(ctx: TimelineMemory, tmp_path: Path) -> None:
    a = add_event(ctx, "Started learning the cello.", "2024-01-10")
    b = add_event(ctx, "First cello recital at the community hall.", "2024-03-02")
    add_event(ctx, "Bought a new cello bow.", "2024-09-01")
    reinforce(ctx, [a.id], "2024-02-20")
    items = timeline(ctx, "2024-01-01", "2024-12-31", now="2024-03-04")
    assert [m.id for m in items] == [a.id, b.id]  # in time order; the later one not yet
    assert items[0].t == 13.0 and items[0].recall_count == 1
    assert items[0].importance == pytest.approx(retention(13.0, items[0].g))
    assert items[1].importance == pytest.approx(retention(2.0, 1.0))
    assert len(timeline(ctx, now="2024-12-31")) == 3
    assert timeline(ctx, "2024-02-01", "2024-02-28", now="2024-12-31") == []
    with pytest.raises(InvalidInput) as err:
        timeline(ctx, "2024-03-01", "2024-01-01")
    assert err.value.field == "end"
    png = tmp_path / "timeline.png"
    assert plot_timeline(ctx, png, now="2024-12-31") == 3
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --- settings ----------------------------------------------------------------------------------


def test_time_unit_and_threshold_come_from_the_environment(store: Store, tmp_path: Path) -> None:
    from graphmem.config import Settings
    from graphmem.services import Services

    env = {
        "GRAPHMEM_HOME": str(tmp_path),
        "GRAPHMEM_TIME_UNIT": "hour",
        "GRAPHMEM_RECALL_THRESHOLD": "0.3",
    }
    services = Services(Settings.from_env(env), store)
    try:
        memory = services.timeline()
        assert memory.config == TimelineConfig(time_unit_seconds=3600, threshold=0.3)
        add_event(memory, "The harbour crane was repaired.", "2024-05-01T00:00:00Z")
        (hit,) = recall(memory, "The harbour crane was repaired.", "2024-05-01T12:00:00Z", k=1)
        assert hit.t == pytest.approx(12.0)  # hours, not days
        assert hit.p == pytest.approx(recall_probability(hit.r, 12.0, 1.0))
        assert hit.p < 0.3 and not hit.recalled  # e^-12 leaves almost nothing
        (soon,) = recall(memory, "The harbour crane was repaired.", "2024-05-01T00:30:00Z", k=1)
        assert soon.t == pytest.approx(0.5) and soon.p >= 0.3 and soon.recalled
        (stats,) = reinforce(memory, [soon.id], "2024-05-01T02:00:00Z")
        assert stats.g == pytest.approx(next_g(1.0, 2.0))  # t of 2 hours in the g update
    finally:
        services.vectors().close()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("GRAPHMEM_TIME_UNIT", "fortnights"),
        ("GRAPHMEM_RECALL_THRESHOLD", "high"),
        ("GRAPHMEM_RECALL_THRESHOLD", "1.5"),
        ("GRAPHMEM_RECALL_THRESHOLD", "0"),
    ],
)
def test_bad_timeline_settings_name_the_variable(name: str, value: str) -> None:
    from graphmem.config import Settings

    with pytest.raises(InvalidInput) as info:
        Settings.from_env({name: value})
    assert info.value.field == name


# --- segments and meta-segments ----------------------------------------------------------------


def test_segments_and_meta_segments_in_recall_and_timeline(
    sales_store, embedder: Embedder, tmp_path: Path
) -> None:
    from graphmem.series.detect.segments import list_segments, time_bounds
    from graphmem.series.meta.build import build_by_range

    store, series, _ = sales_store
    bounds = time_bounds(store, series.id)
    years = build_by_range(store, series.id, bounds.start, bounds.end, "year")
    segments = list_segments(store, series.id, limit=10_000)
    assert len(years) >= 3 and len(segments) >= 3
    vectors = VectorStore(store, tmp_path, embedder.name, embedder.dim)
    ctx = TimelineMemory(store, embedder, vectors)
    now = int(bounds.end) + DAY
    last = max(years, key=lambda m: m.start)
    summary = store.read("meta.get_many", ids=[last.id])[0]["m"]["summary"]
    # meta-segments are embedded on first recall, dated by their start
    got = recall(ctx, summary, now, k=3, labels=["MetaSegment"])
    assert got and {m.label for m in got} == {"MetaSegment"}
    assert got[0].id == last.id and got[0].text == summary
    assert got[0].ts == int(last.start) and got[0].r == pytest.approx(1.0, abs=1e-3)
    assert {m.id for m in got} <= {m.id for m in years}
    segs = recall(ctx, "sales level and trend", now, k=5, labels=["Segment"])
    assert len(segs) == 5 and {m.label for m in segs} == {"Segment"}
    reinforce(ctx, [last.id], now)
    again = recall(ctx, summary, now + DAY, k=1, labels=["MetaSegment"])
    assert again[0].id == last.id and again[0].n == 1
    # both appear on the timeline, at their start, whether embedded or not
    items = timeline(ctx, now=now, labels=["Segment", "MetaSegment"])
    by_label = {
        label: [m for m in items if m.label == label] for label in ("Segment", "MetaSegment")
    }
    assert {m.id for m in by_label["MetaSegment"]} == {m.id for m in years}
    assert {m.id for m in by_label["Segment"]} == {s.id for s in segments if s.start <= now}
    assert [m.ts for m in items] == sorted(m.ts for m in items)
    meta_item = next(m for m in items if m.id == last.id)
    assert meta_item.ts == int(last.start) and meta_item.recall_count == 1
    assert meta_item.text == summary
    vectors.close()


def test_demo_prints_the_recalled_notice_first_and_is_repeatable(
    store: Store, tmp_path: Path
) -> None:
    import io

    from graphmem.config import Settings
    from graphmem.demo import timeline_demo
    from graphmem.services import Services

    services = Services(Settings(home=tmp_path), store)
    try:
        runs = []
        for _ in range(2):  # a second run adds and reinforces nothing new
            out = io.StringIO()
            timeline_demo(services, out)
            runs.append(out.getvalue())
    finally:
        services.vectors().close()
    assert runs[0] == runs[1]
    rows = [line for line in runs[0].splitlines() if line[:4] in ("2023", "2024")]
    assert [row.split()[0] for row in rows] == ["2024-10-03", "2024-10-27", "2023-10-31"]
    ward = rows[0].split()
    assert (ward[2], ward[3]) == ("2", str(len(WARD_RECALLS)))  # t = 2 days, n = 5 recalls


def test_reinforce_in_can_skip_memories_dated_after_now(ctx: TimelineMemory, store: Store) -> None:
    from graphmem.timeline import reinforce_in

    past = add_event(ctx, "Bought a bicycle.", "2024-01-01")
    future = add_event(ctx, "The bicycle race.", "2024-09-01")
    unit = TimelineConfig(time_unit_seconds=3600)
    with pytest.raises(InvalidInput, match="before the time of memories"):
        reinforce_in(store, [past.id, future.id], "2024-01-02", unit)
    got = reinforce_in(store, [past.id, future.id], "2024-01-02", unit, skip_future=True)
    assert [(s.id, s.changed, s.recall_count) for s in got] == [
        (past.id, True, 1),
        (future.id, False, 0),
    ]
    assert got[0].g == pytest.approx(next_g(1.0, 24.0)), "t of 24 hours"
    assert recall_stats(ctx, [future.id])[0].last_recalled_at is None


# --- the defaults (t in months, relevance rescaled from the cosine, threshold 0.7) -----------

CHATTER = (
    "Bought milk, eggs and bread at the corner shop.",
    "Went for a 5 km run by the river.",
    "Cooked pasta with mushrooms for dinner.",
    "Watched a documentary about whales.",
    "Walked the dog in the park for an hour.",
    "Paid the electricity bill.",
    "Had coffee with Maya near the station.",
    "Planted tomatoes on the balcony.",
)


@pytest.fixture
def defaults(store: Store, embedder: Embedder, tmp_path: Path) -> TimelineMemory:
    vectors = VectorStore(store, tmp_path, embedder.name, embedder.dim)
    return TimelineMemory(store, embedder, vectors, TimelineConfig())


def test_defaults_find_a_memory_weeks_or_months_old_among_recent_chatter(
    defaults: TimelineMemory,
) -> None:
    dentist = add_event(
        defaults,
        "Booked a dentist appointment with Dr. Hugo for 2024-07-14 at 10:30.",
        "2024-04-20",
    )
    library = add_event(
        defaults,
        "Borrowed 'The Paper Fox' from the library; it is due back on 2024-06-28.",
        "2024-06-01",
    )
    days = np.arange(np.datetime64("2024-04-21"), np.datetime64("2024-06-30"))
    add_events(
        defaults,
        [{"text": CHATTER[i % len(CHATTER)], "date": str(day)} for i, day in enumerate(days)],
    )
    # about two months after the note, with a newer and unrelated note and daily chatter since
    [top, *rest] = recall(defaults, "When is my dentist appointment?", "2024-06-25", k=5)
    assert top.id == dentist.id and top.t == pytest.approx(66 / 30)
    assert top.r > 0.5 and all(m.r < top.r for m in rest)
    assert all(m.r == 0 for m in rest if m.id != library.id), "chatter is irrelevant, not faint"
    [book, *_] = recall(defaults, "Which book did I borrow from the library?", "2024-06-25")
    assert book.id == library.id


def test_defaults_reinforce_what_ordinary_use_recalls(defaults: TimelineMemory) -> None:
    wifi = add_event(defaults, "The wifi password at the cabin is 482913.", "2024-06-01")
    add_events(defaults, [{"text": text, "date": "2024-06-05"} for text in CHATTER])
    # asked in the words one would use, a week and a half later
    [got, *_] = recall(
        defaults, "What's the wifi password at the cabin?", "2024-06-11", reinforce=True
    )
    assert got.id == wifi.id and got.recalled and got.p >= TimelineConfig().threshold
    assert [s.recall_count for s in recall_stats(defaults, [wifi.id])] == [1]
    assert not any(
        m.recalled
        for m in recall(defaults, "What's the wifi password at the cabin?", "2024-06-11")[1:]
    )


def test_defaults_let_a_memory_recalled_often_outlast_one_never_recalled() -> None:
    config = TimelineConfig()
    month = config.time_unit_seconds
    g = 1.0
    for _ in range(3):  # recalled once a month for three months
        g = next_g(g, 1.0)
    now = ts("2024-06-01")
    same = {"similarity": 0.75, "ts": now - 6 * int(month)}  # equally relevant, equally old
    recalled = {**same, "g": g, "last_recalled_at": now - 2 * int(month)}
    never, often = ranker(now, config)([same, recalled])
    assert often > 2 * never

    # how long each stays recalled (p >= threshold) after its last recall, for r = 1
    def lasts(g: float) -> float:
        return next(
            t for t in np.arange(0, 12, 0.01) if recall_probability(1.0, t, g) < config.threshold
        )

    assert lasts(1.0) * 30 == pytest.approx(16, abs=0.5)  # days
    assert lasts(g) > 2 * lasts(1.0)
