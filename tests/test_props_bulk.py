"""Bulk import of documents: what one call stores, idempotent, resumable after an interruption,
every document checked first, progress reported."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_props_world import ctx  # noqa: F401 - fixtures

from graphmem.config import Settings
from graphmem.errors import InvalidInput
from graphmem.props import PropsMemory, add_document, counts, list_relations
from graphmem.props.bulk import add_documents
from graphmem.props.listing import PropositionFilter, list_propositions
from graphmem.props.model import document_id
from graphmem.services import open_props
from graphmem.store import Store

NEWS = [
    {
        "text": "Quillon Dynamics employs 1,200 people. Marta Velkova runs it from Halvek.",
        "date": "2016-06-01",
        "source": "annual report",
    },
    {
        "text": "Quillon Dynamics employs 1,450 people. A new Quillon plant opened in Brask.",
        "date": "2017-06-01",
        "source": "annual report",
    },
    {
        "text": "The Halvek council approved the Verrin bridge. Building starts in March.",
        "date": "2017-02-11",
    },
    {"text": "Quillon Dynamics employs 1,450 people.", "date": "2017-06-01", "source": "wire"},
    {
        "text": "Idris Okonjo replaced Marta Velkova as chief executive of Quillon Dynamics.",
        "date": "2019-03-18",
        "source": "wire",
    },
    {
        "text": "The Verrin bridge opened to traffic. It cost 40 million dollars.",
        "date": "2020-09-30",
    },
]
# distinct statements in NEWS: the wire restates the 2017 headcount, and "It cost ..." stays
# with the sentence naming the bridge
SENTENCES = 8


def snapshot(ctx: PropsMemory) -> tuple[dict[str, int], list, list]:  # noqa: F811
    """Everything a load stores: counts, relation edges, each document's propositions."""
    docs = [ctx.store.read("props.document", id=doc_id(d)) for d in NEWS]
    edges = [(e.src, e.dst, e.kind) for e in list_relations(ctx)]
    return counts(ctx), sorted(edges), docs


def doc_id(doc: dict[str, str]) -> str:
    return document_id(doc["text"], doc["date"], doc.get("source"))


def test_one_call_stores_what_adding_them_one_by_one_does(
    store: Store,
    tmp_path: Path,
) -> None:
    with open_props(Settings(home=tmp_path / "one"), store, llm=None) as one:
        for doc in NEWS:
            add_document(one, doc["text"], doc["date"], doc.get("source"))
        expected = snapshot(one)
    store.write("admin.wipe")
    with open_props(Settings(home=tmp_path / "bulk"), store, llm=None) as bulk:
        report = bulk.ingest_documents([*NEWS, NEWS[0]])  # a repeated document counts once
        assert report.document_ids == tuple(doc_id(d) for d in NEWS)
        assert (report.skipped, report.added, report.existing) == (0, SENTENCES, 0)
        assert report.relations == expected[0]["relations"] > 0
        assert snapshot(bulk) == expected
        assert all(rows for rows in expected[2]), "every document stored complete"


def test_a_second_run_skips_every_document(ctx: PropsMemory) -> None:  # noqa: F811
    first = add_documents(ctx, NEWS)
    before = snapshot(ctx)
    again = add_documents(ctx, NEWS)
    assert again.document_ids == first.document_ids
    assert (again.skipped, again.added, again.existing, again.relations) == (len(NEWS), 0, 0, 0)
    assert snapshot(ctx) == before


def interrupt_after(batches: int):
    """A progress callback pressing Ctrl-C once `batches` batches are stored."""
    seen = []

    def progress(stage: str, done: int, total: int) -> None:
        seen.append(stage)
        if seen.count("store") == batches:
            raise KeyboardInterrupt

    return progress


def test_an_interrupted_load_resumes_where_it_stopped(store: Store, tmp_path: Path) -> None:
    with open_props(Settings(home=tmp_path / "whole"), store, llm=None) as whole:
        add_documents(whole, NEWS, batch_size=2)
        expected = snapshot(whole)
    store.write("admin.wipe")
    with open_props(Settings(home=tmp_path / "cut"), store, llm=None) as cut:
        with pytest.raises(KeyboardInterrupt):
            add_documents(cut, NEWS, batch_size=2, progress=interrupt_after(2))
        stored = sum(bool(rows) for rows in snapshot(cut)[2])
        assert 0 < stored < len(NEWS), "whole documents stored, the others not"
        assert counts(cut)["propositions"] == 4, "the two batches stored"
        resumed = add_documents(cut, NEWS, batch_size=2)
        assert (resumed.skipped, resumed.added) == (stored, SENTENCES - 4)
        assert snapshot(cut) == expected


def test_every_document_is_checked_before_anything_is_stored(ctx: PropsMemory) -> None:  # noqa: F811
    cases = [
        ([*NEWS[:2], {"text": "Fine.", "date": "2020-02-30"}], "documents[2].date"),
        ([NEWS[0], {"text": " ", "date": "2020-01-01"}], "documents[1].text"),
        ([NEWS[0], {"text": "Fine.", "date": "2020-01-01", "author": "x"}], "documents[1]"),
        ([NEWS[0], "Fine."], "documents[1]"),
        ("Fine.", "documents"),
    ]
    for documents, field in cases:
        with pytest.raises(InvalidInput) as error:
            add_documents(ctx, documents)
        assert error.value.field == field
    assert counts(ctx) == {"propositions": 0, "documents": 0, "states": 0, "relations": 0}


def test_progress_counts_documents_and_propositions(ctx: PropsMemory) -> None:  # noqa: F811
    add_documents(ctx, NEWS[:2])
    calls: list[tuple[str, int, int]] = []
    add_documents(ctx, NEWS, batch_size=3, progress=lambda *call: calls.append(call))
    documents = [(done, total) for stage, done, total in calls if stage == "documents"]
    assert documents[0] == (2, len(NEWS)), "the stored ones at once"
    assert documents[-1] == (len(NEWS), len(NEWS))
    assert [d for d, _ in documents] == sorted(d for d, _ in documents)
    stored = [(done, total) for stage, done, total in calls if stage == "store"]
    assert stored[-1][0] == stored[-1][1] == SENTENCES - 4, "the new propositions"


def test_an_edited_page_sent_again_is_an_earlier_version_to_replace(ctx: PropsMemory) -> None:  # noqa: F811
    page = {"source": "wiki/team", "date": "2024-06-10"}
    first = {**page, "text": "Lena Moss leads the Orbit team.\n\nThe Orbit team has 23 people."}
    edited = {**page, "text": "Lena Moss leads the Orbit team.\n\nThe Orbit team has 24 people."}
    add_documents(ctx, [first])
    old = document_id(first["text"], page["date"], page["source"])
    # sent again edited: reported, both versions kept until asked
    report = add_documents(ctx, [edited])
    assert (report.earlier_versions, report.replaced) == ((old,), 0)
    assert counts(ctx)["documents"] == 2
    # another article of the same source and date is no earlier version: its wording differs
    article = {**page, "text": "The Halvek council approved the Verrin bridge on Monday."}
    assert add_documents(ctx, [article], replace=True).earlier_versions == ()
    assert counts(ctx)["documents"] == 3
    # another page of the same date, or the same page on another date, is no earlier version
    other = add_documents(ctx, [{**edited, "source": "wiki/office"}])
    later = add_documents(ctx, [{**edited, "date": "2024-07-01"}])
    assert other.earlier_versions == later.earlier_versions == ()
    # with replace, the earlier version goes with the statement only it made
    report = add_documents(ctx, [edited], replace=True)
    assert (report.earlier_versions, report.replaced) == ((old,), 1)
    texts = {p.text for p in list_propositions(ctx.store, PropositionFilter(), 100, 0).items}
    assert "The Orbit team has 23 people." not in texts
    assert {"Lena Moss leads the Orbit team.", "The Orbit team has 24 people."} <= texts


def test_two_versions_in_one_call_are_never_replaced(ctx: PropsMemory) -> None:  # noqa: F811
    versions = [
        {"source": "wiki/team", "date": "2024-06-10", "text": f"The Orbit team has {n} people."}
        for n in (23, 24)
    ]
    add_documents(ctx, versions)
    again = add_documents(ctx, versions, replace=True)  # resumed: both stored already
    assert (again.earlier_versions, again.replaced, counts(ctx)["documents"]) == ((), 0, 2)
