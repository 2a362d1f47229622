"""Ingestion: graph shape, newer → older edges, same-date rule, back-fill, idempotency, input
validation, progress, and LLM extraction through the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_props_retrieve import Supports
from test_props_world import ctx, llm_ctx, world  # noqa: F401 - fixtures

from bench.props_worlds import World
from graphmem import embcodec
from graphmem.config import Settings
from graphmem.cypher import load_dir
from graphmem.errors import InvalidInput, LLMError
from graphmem.props import (
    OfflineClassifier,
    PropsMemory,
    add_document,
    add_propositions,
    counts,
    list_relations,
)
from graphmem.props.bulk import add_documents
from graphmem.props.ingest import DocumentRow, store_propositions
from graphmem.props.model import document_id, make_proposition, proposition_id
from graphmem.props.retrieve import get_propositions
from graphmem.services import open_props
from graphmem.store import Store
from graphmem.timeutil import parse_timestamp
from graphmem.vectors import vector_id

EMPTY = {"propositions": 0, "documents": 0, "states": 0, "relations": 0}

PROPS_TEST = load_dir(Path(__file__).parent / "cypher")


def test_world_edges_point_newer_to_older_and_reingest_changes_nothing(
    ctx: PropsMemory,  # noqa: F811
    world: World,  # noqa: F811
) -> None:
    first = add_propositions(ctx, world.items())
    assert first.added == len(world.propositions) and first.existing == 0
    assert first.relations > 0
    position = {pid: i for i, pid in enumerate(first.proposition_ids)}
    dates = {p.id: p.ts for p in get_propositions(ctx, first.proposition_ids)}
    edges = list_relations(ctx)
    assert len(edges) == first.relations
    pairs = {(e.src, e.dst) for e in edges}
    for e in edges:
        assert dates[e.src] >= dates[e.dst], "edges point from the newer proposition"
        if dates[e.src] == dates[e.dst]:
            assert position[e.src] > position[e.dst], "same date: later in input is the source"
        assert (e.dst, e.src) not in pairs, "never both directions"
        assert e.model == OfflineClassifier.name and not e.refined and 0 <= e.confidence <= 1
    before = counts(ctx)
    again = add_propositions(ctx, world.items())
    assert (again.added, again.existing, again.relations) == (0, len(world.propositions), 0)
    assert counts(ctx) == before
    assert list_relations(ctx) == edges


def test_same_date_rule_within_and_across_calls(
    ctx: PropsMemory,  # noqa: F811
    store: Store,
    tmp_path: Path,
) -> None:
    claim = {"text": "The Verrin Bridge will be demolished in 2020.", "date": "2018-03-10"}
    denial = {
        "text": "The Halvek council denied that the Verrin Bridge will be demolished.",
        "date": "2018-03-10",
    }
    add_propositions(ctx, [claim, denial])
    (edge,) = list_relations(ctx)
    ids = (
        proposition_id(denial["text"], "2018-03-10"),
        proposition_id(claim["text"], "2018-03-10"),
    )
    assert (edge.src, edge.dst, edge.kind) == (*ids, "contradicts")
    store.write("admin.wipe")
    # which one is the source is the rule under test, not what a model makes of a claim
    # repeated after its denial (offline-v20 calls that pair norel): every pair is related here
    settings = Settings(home=tmp_path / "again")
    with open_props(settings, store, llm=None, classifier=Supports()) as fresh:
        add_propositions(fresh, [denial])
        add_propositions(fresh, [claim])  # stored later, so it is the source
        (edge,) = list_relations(fresh)
    assert (edge.src, edge.dst) == (ids[1], ids[0])


def test_backfill_links_newer_stored_propositions(ctx: PropsMemory) -> None:  # noqa: F811
    newer = {
        "text": "Idris Okonjo is the chief executive of Quillon Dynamics.",
        "date": "2019-03-18",
    }
    older = {
        "text": "Marta Velkova is the chief executive of Quillon Dynamics.",
        "date": "2015-03-02",
    }
    add_propositions(ctx, [newer])
    report = add_propositions(ctx, [older])  # ingested after, dated before
    assert report.relations == 1
    (edge,) = list_relations(ctx)
    assert edge.src == proposition_id(newer["text"], newer["date"])
    assert edge.dst == proposition_id(older["text"], older["date"])
    assert edge.kind == "updates"


def test_graph_shape_of_documents_and_propositions(ctx: PropsMemory) -> None:  # noqa: F811
    text = "Quillon Dynamics employs 1,200 people. Dr. Velkova leads it from Halvek."
    report = add_document(ctx, text, "2016-06-01", "qd-annual-report")
    assert report.document_id and report.document_id.startswith("doc_")
    assert counts(ctx) == {"propositions": 2, "documents": 1, "states": 2, "relations": 0}
    props = ctx.store.read("props.fetch", ids=list(report.proposition_ids))
    embeddings = ctx.store.read("props.embeddings_json", ids=list(report.proposition_ids))
    assert sorted(p["text"] for p in props) == [
        "Dr. Velkova leads it from Halvek.",
        "Quillon Dynamics employs 1,200 people.",
    ]
    for row in props:
        assert row["vid"] == vector_id(row["id"])
        assert row["ts"] == parse_timestamp("2016-06-01") and row["date"] == "2016-06-01"
        assert row["source"] == "qd-annual-report"
        assert (row["recall_count"], row["g"]) == (0, 1.0) and row["created_at"] > 0
    vecs = np.array([embcodec.decode(json.loads(r["embedding"])) for r in embeddings])
    assert vecs.shape == (2, 384)
    texts = [p["text"] for p in sorted(props, key=lambda p: p["id"])]
    by_id = sorted(embeddings, key=lambda r: r["id"])
    stored = np.array([embcodec.decode(json.loads(r["embedding"])) for r in by_id])
    assert np.array_equal(stored, ctx.embedder.encode(texts)), "stored exactly, no rounding"
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    hits = ctx.vectors.search("Proposition", vecs[0], 2)
    assert {h.node_id for h in hits} == set(report.proposition_ids)


def test_a_document_over_several_batches_states_all(ctx: PropsMemory) -> None:  # noqa: F811
    doc = DocumentRow(document_id("Three.", "2020-01-01", None), "Three.", "2020-01-01", 0, None)
    items = [make_proposition(f"Fact number {i}.", "2020-01-01", None, doc.id) for i in range(3)]
    report = store_propositions(ctx, items, [doc], relate=False, batch_size=1)
    assert counts(ctx) == {"propositions": 3, "documents": 1, "states": 3, "relations": 0}
    stored = ctx.store.read("props.document", id=doc.id)
    assert stored[0]["props"] == sorted(report.proposition_ids)


def test_same_document_twice_changes_nothing(ctx: PropsMemory) -> None:  # noqa: F811
    text = (
        "The Lumen Kettle costs 89 dollars. The Lumen Kettle costs 99 dollars. "
        "Farrowbright Appliances makes kettles."
    )
    first = add_document(ctx, text, "2018-02-12", "catalogue")
    before, edges = counts(ctx), list_relations(ctx)
    second = add_document(ctx, text, "2018-02-12", "catalogue")
    assert second.document_id == first.document_id
    assert (second.added, second.relations) == (0, 0)
    assert counts(ctx) == before and list_relations(ctx) == edges
    # the same statement in another document is one node stated twice
    add_document(ctx, "The Lumen Kettle costs 89 dollars.", "2018-02-12", "shop")
    after = counts(ctx)
    assert (after["propositions"], after["documents"]) == (3, 2)
    assert after["states"] == before["states"] + 1


def test_a_document_keeps_its_layout_and_its_identity(ctx: PropsMemory) -> None:  # noqa: F811
    reply = (
        "Subject: RE: Lumen Kettle price\r\n\r\nThe plans for 2019:\r\n- Lumen Kettle: 99 dollars"
        "\r\n- Lumen Toaster: 45 dollars\r\n\r\nThanks,\r\nAnna\r\n\r\n"
        "On Mon, 4 Feb 2019, Ben wrote:\r\n> The Lumen Kettle costs 89 dollars.\r\n"
    )
    report = add_document(ctx, reply, "2019-02-05", "mail")
    stored = ctx.store.read("props.fetch", ids=list(report.proposition_ids))
    assert sorted((p["text"], p["date"]) for p in stored) == [
        ("The Lumen Kettle costs 89 dollars.", "2019-02-04"),
        ("The plans for 2019: Lumen Kettle: 99 dollars", "2019-02-05"),
        ("The plans for 2019: Lumen Toaster: 45 dollars", "2019-02-05"),
    ], "one statement an item, the quoted message's on its date, none from the sign-off"
    # the same words wrapped otherwise are the same document: nothing is added
    again = add_document(
        ctx, reply.replace("\r\n", "\n").replace(": ", ":  "), "2019-02-05", "mail"
    )
    assert (again.document_id, again.added) == (report.document_id, 0)


def test_an_interrupted_legacy_document_is_completed_when_added_again(
    ctx: PropsMemory,  # noqa: F811
) -> None:
    text = "The Lumen Kettle costs 89 dollars. Farrowbright Appliances makes kettles."
    first = add_document(ctx, text, "2018-02-12", "catalogue")
    complete = counts(ctx)
    missing = first.proposition_ids[1]
    ctx.store.write(
        PROPS_TEST["props_test.interrupted_legacy_document"], id=first.document_id, missing=missing
    )
    assert counts(ctx)["propositions"] == complete["propositions"] - 1
    again = add_document(ctx, text, "2018-02-12", "catalogue")
    assert (again.added, again.existing) == (1, 1)
    assert counts(ctx) == complete


@pytest.mark.parametrize(
    ("items", "field"),
    [
        ("not a list", "propositions"),
        ([{"text": "a", "date": "2020-01-01"}, "b"], "propositions[1]"),
        (
            [{"text": "a", "date": "2020-01-01"}, {"text": " ", "date": "2020-01-01"}],
            "propositions[1].text",
        ),
        (
            [{"text": f"s{i}", "date": "2020-01-01"} for i in range(3)]
            + [{"text": "s3", "date": "2020-13-01"}],
            "propositions[3].date",
        ),
        ([{"text": "a", "date": "2020-01-01", "when": 1}], "propositions[0]"),
    ],
)
def test_bad_input_names_the_field_and_stores_nothing(
    ctx: PropsMemory,  # noqa: F811
    items: object,
    field: str,
) -> None:
    with pytest.raises(InvalidInput) as info:
        add_propositions(ctx, items)  # type: ignore[arg-type]
    assert info.value.field == field
    assert counts(ctx) == EMPTY


def test_bad_document_input(ctx: PropsMemory) -> None:  # noqa: F811
    for args, field in ((("", "2020-01-01"), "text"), (("Hi.", "yesterday"), "date")):
        with pytest.raises(InvalidInput) as info:
            add_document(ctx, *args)
        assert info.value.field == field
    with pytest.raises(InvalidInput, match="embeddings"):
        add_propositions(ctx, [{"text": "a", "date": "2020-01-01"}], embeddings=np.zeros((1, 3)))
    assert counts(ctx) == EMPTY


def test_batches_report_progress(ctx: PropsMemory) -> None:  # noqa: F811
    items = [{"text": f"Item {i} weighs {i} kilograms.", "date": "2020-01-01"} for i in range(25)]
    calls: list[tuple[str, int, int]] = []
    report = add_propositions(
        ctx, items, batch_size=10, relate=False, progress=lambda *a: calls.append(a)
    )
    assert calls == [("store", 10, 25), ("store", 20, 25), ("store", 25, 25)]
    assert report.added == 25 and report.relations == 0
    assert report.proposition_ids == tuple(proposition_id(i["text"], i["date"]) for i in items)
    assert counts(ctx)["propositions"] == 25


def test_llm_extraction_through_the_scripted_server(
    llm_server,
    llm_ctx: PropsMemory,  # noqa: F811
) -> None:
    extracted = {
        "propositions": [
            {
                "text": "Marta Velkova is the chief executive of Quillon Dynamics.",
                "date": "2015-03-02",
            },
            {
                "text": "Idris Okonjo became chief executive of Quillon Dynamics.",
                "date": "2019-03-18",
            },
        ]
    }
    judged = {"judgements": [{"index": 1, "label": "updates", "confidence": 0.85}]}
    llm_server.script(
        {"content": "this is not JSON"},  # malformed: retried once
        {"content": json.dumps(extracted)},
        {"content": json.dumps(judged)},  # the 2019 statement against the 2015 one
    )
    text = "Marta Velkova ran Quillon Dynamics from 2015. In March 2019 Idris Okonjo took over."
    report = add_document(llm_ctx, text, "2019-04-01", "halvek-herald")
    assert report.added == 2 and report.relations == 1
    first, retry, classify = llm_server.requests
    assert first["response_format"] == {"type": "json_object"}
    assert "Document date: 2019-04-01" in first["messages"][1]["content"]
    assert text in first["messages"][1]["content"]
    assert "invalid" in retry["messages"][-1]["content"]
    prompt = classify["messages"][1]["content"]
    assert "NEW (2019-03-18, source: halvek-herald)" in prompt
    assert "[1] (2015-03-02, source: halvek-herald) Marta Velkova" in prompt
    (edge,) = list_relations(llm_ctx)
    assert (edge.kind, edge.confidence, edge.model) == ("updates", 0.85, llm_ctx.llm.model)
    stored = get_propositions(llm_ctx, report.proposition_ids)
    assert [p.date for p in stored] == ["2015-03-02", "2019-03-18"]
    before = counts(llm_ctx)
    again = add_document(llm_ctx, text, "2019-04-01", "halvek-herald")
    assert len(llm_server.requests) == 3, "a stored document is not extracted again"
    assert (again.added, again.existing, again.relations) == (0, 2, 0)
    assert again.proposition_ids == report.proposition_ids
    assert counts(llm_ctx) == before


def test_the_llm_reads_a_reply_and_the_message_it_quotes_under_its_date(
    llm_server,
    llm_ctx: PropsMemory,  # noqa: F811
) -> None:
    extracted = {
        "propositions": [{"text": "The Orbit launch moved to 12 March.", "date": "2025-03-04"}]
    }
    llm_server.script({"content": json.dumps(extracted)})
    reply = (
        "Subject: Re: Orbit launch\n\nHi all,\n\nThe launch moves to 12 March.\n"
        "- venue: Hall 2\n\nOn Mon, 3 Mar 2025, Ben wrote:\n> The launch is on 5 March.\n"
    )
    add_document(llm_ctx, reply, "2025-03-04", "mail")
    content = llm_server.requests[0]["messages"][1]["content"]
    # the subject as a heading line, then a line a block; the quote under its own date
    assert content.endswith(
        "# Orbit launch\nThe launch moves to 12 March.\nvenue: Hall 2\n"
        "# Stated on 2025-03-03:\nThe launch is on 5 March."
    )
    assert "Hi all" not in content


def test_the_llm_reads_a_forwarded_message_under_the_date_it_was_sent(
    llm_server,
    llm_ctx: PropsMemory,  # noqa: F811
) -> None:
    extracted = {
        "propositions": [{"text": "The Orbit launch is on 12 March.", "date": "2025-03-03"}]
    }
    llm_server.script({"content": json.dumps(extracted)})
    forward = (
        "FYI, see below.\n\n-----Original Message-----\nFrom: Ben\nSent: Monday, March 3, 2025 "
        "9:00 AM\nSubject: Orbit\n\nHi Anna,\n\nThe launch is on 12 March.\n\nThanks,\nBen\n"
    )
    add_document(llm_ctx, forward, "2025-03-04", "mail")
    content = llm_server.requests[0]["messages"][1]["content"]
    assert content.endswith("# Stated on 2025-03-03:\n# Orbit\nThe launch is on 12 March.")


def test_llm_extraction_malformed_twice_stores_nothing(llm_server, llm_ctx) -> None:  # noqa: F811
    bad_date = {"propositions": [{"text": "Something happened.", "date": "March 2019"}]}
    llm_server.script({"content": json.dumps(bad_date)}, {"content": '{"props": []}'})
    with pytest.raises(LLMError, match="malformed output twice"):
        add_document(llm_ctx, "Something happened.", "2019-04-01")
    assert "propositions[0].date" in llm_server.requests[1]["messages"][-1]["content"]
    assert counts(llm_ctx) == EMPTY


NEW_OLD = {"text": "Quillon Dynamics acquired Brenmoor Labs.", "date": "2019-02-01"}
LATE = [
    {"text": "The Orrin ferry sails twice a day from Halvek.", "date": "2021-04-02"},
    {"text": "Brenmoor Labs moved its research centre to Port Kelvary.", "date": "2021-05-10"},
]


def _fail_index_adds(memory: PropsMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the next index adds fail (a full disk, a bug), after the graph write."""
    index = memory.vectors.index("Proposition")

    def broken(*args: object, **kwargs: object) -> int:
        raise RuntimeError("index add failed")

    monkeypatch.setattr(index, "add", broken)


def _found(memory: PropsMemory, text: str) -> bool:
    hits = memory.vectors.search("Proposition", memory.embedder.encode_one(text), 1)
    return bool(hits) and hits[0].node_id == proposition_id(text, _date_of(text))


def _date_of(text: str) -> str:
    return next(i["date"] for i in LATE if i["text"] == text)


def test_a_failed_index_add_is_repaired_when_the_input_is_sent_again(
    ctx: PropsMemory,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    add_propositions(ctx, [NEW_OLD])
    _fail_index_adds(ctx, monkeypatch)
    with pytest.raises(RuntimeError, match="index add failed"):
        add_propositions(ctx, LATE)
    monkeypatch.undo()
    assert counts(ctx)["propositions"] == 3  # the graph write landed
    again = add_propositions(ctx, LATE)
    assert (again.added, again.existing) == (0, 2)  # skipped as already stored ...
    assert all(_found(ctx, item["text"]) for item in LATE)  # ... yet searchable, no restart
    assert len(ctx.vectors.index("Proposition")) == 3


def test_a_crash_between_graph_write_and_index_add_is_repaired_on_reopen(
    ctx: PropsMemory,  # noqa: F811
    store: Store,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    add_propositions(ctx, [NEW_OLD])
    ctx.vectors.save()  # the saved index holds the first proposition
    _fail_index_adds(ctx, monkeypatch)
    with pytest.raises(RuntimeError):
        add_propositions(ctx, LATE)
    # the "crash": this memory is never closed, so its index is never saved
    reopened = open_props(Settings(home=tmp_path), store, llm=None)
    try:
        assert all(_found(reopened, item["text"]) for item in LATE)
        report = reopened.vectors.report("Proposition")
        assert report is not None and report.loaded and (report.added, report.removed) == (2, 0)
    finally:
        reopened.close()
    monkeypatch.undo()


def test_recent_propositions_keep_the_most_recently_used() -> None:
    from graphmem.props.memory import RecentPropositions

    recent = RecentPropositions(capacity=2)
    a, b, c = (make_proposition(f"Fact {x}.", "2020-01-01", None, None) for x in "abc")
    recent.add([a, b])
    assert recent.get_many([a.id]) == {a.id: a}  # a is now the most recently used
    recent.add([c])
    assert set(recent.get_many([a.id, b.id, c.id])) == {a.id, c.id}


def _in_batches_of_7(memory: PropsMemory, items: list) -> int:
    return add_propositions(memory, items, batch_size=7).relations


def _in_calls_of_5(memory: PropsMemory, items: list) -> int:
    # candidates come from the in-memory cache and from the graph
    return sum(
        add_propositions(memory, items[i : i + 5]).relations for i in range(0, len(items), 5)
    )


@pytest.mark.parametrize("ingest", [_in_batches_of_7, _in_calls_of_5])
def test_relations_do_not_depend_on_how_propositions_arrive(
    ctx: PropsMemory,  # noqa: F811
    world: World,  # noqa: F811
    store: Store,
    tmp_path: Path,
    ingest,
) -> None:
    add_propositions(ctx, world.items())
    at_once = {(e.src, e.dst, e.kind) for e in list_relations(ctx)}
    store.write("admin.wipe")
    with open_props(Settings(home=tmp_path / "split"), store, llm=None) as split:
        reported = ingest(split, world.items())
        assert {(e.src, e.dst, e.kind) for e in list_relations(split)} == at_once
        assert reported == len(at_once)


def test_a_documents_statements_are_not_related_to_each_other_offline(
    ctx: PropsMemory,  # noqa: F811 - the fixture
) -> None:
    page = (
        "# Fees from September 2024\n\nThe price of a 30-minute lesson will be £10.25.\n\n"
        "The price of a 45-minute lesson will be £14.50.\n"
    )
    first = add_document(ctx, page, "2024-06-18")
    assert first.added == 2 and first.relations == 0  # said at once: no update
    later = "# Fees from January 2025\n\nThe price of a 30-minute lesson will be £10.75.\n"
    assert add_document(ctx, later, "2025-01-06").relations >= 1  # another date: related


def test_propositions_keep_their_headings_and_documents_take_none(
    ctx: PropsMemory,  # noqa: F811 - the fixture
) -> None:
    heading = "Riverside Dental › Fees 2025"
    prop = make_proposition("A hygienist visit costs £62.", "2025-01-10", about=heading)
    (pid,) = add_propositions(ctx, [prop]).proposition_ids  # a Proposition keeps its about
    assert get_propositions(ctx, [pid])[0].about == heading
    with pytest.raises(InvalidInput) as err:
        add_documents(ctx, [{"text": "Fees rise.", "date": "2025-02-01", "about": heading}])
    assert err.value.field == "documents[0]" and "about" in err.value.problem
    assert counts(ctx)["documents"] == 0


def test_a_same_day_reply_is_related_to_the_message_it_quotes(
    ctx: PropsMemory,  # noqa: F811 - the fixture
) -> None:
    thread = (
        "From: Ann Lee <ann@example.org>\nTo: Ben Carter\nDate: 10 Mar 2025\nSubject: Launch\n\n"
        "The launch of the Orrin app is now on 19 March.\n\n"
        "On 10 March 2025 at 09:12, Ben Carter <ben@example.org> wrote:\n"
        "> The launch of the Orrin app is on 12 March.\n"
    )
    report = add_document(ctx, thread, "2025-03-10")
    assert report.added == 2 and report.relations >= 1  # another message: judged
