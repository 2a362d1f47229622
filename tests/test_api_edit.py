"""Deleting, editing and bulk import over GraphQL and the CLI; what the served process deletes is
gone from retrieval in another process (this test's own memories, on the same graph)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem.cli import main
from graphmem.config import Settings
from graphmem.props import PropsMemory, subgraph
from graphmem.props.model import document_id
from graphmem.services import open_props
from graphmem.store import Store
from graphmem.timeline import TimelineMemory, recall

INGEST = """mutation($docs: [DocumentInput!]!) {
  ingestDocuments(documents: $docs) { documentIds skipped added existing relations } }"""
DOCS = [
    {
        "text": "Quillmere Foundry employs 1,200 people. Mara Velsh runs it from Brackwater.",
        "date": "2018-03-02",
        "source": "gazette",
    },
    {"text": "Quillmere Foundry employs 1,200 people.", "date": "2018-03-02", "source": "wire"},
    {
        "text": "Tomas Rilke replaced Mara Velsh as chief executive of Quillmere Foundry.",
        "date": "2021-09-01",
    },
]
QUESTION = "Who runs Quillmere Foundry?"


@pytest.fixture
def elsewhere(store: Store, tmp_path: Path) -> Iterator[PropsMemory]:
    """Another process's memory: its own indexes, checking the graph before every search."""
    settings = Settings(home=tmp_path / "elsewhere", vector_refresh_ms=0)
    with open_props(settings, store, llm=None) as memory:
        yield memory


def texts(gql) -> set[str]:
    graph = gql("query($q: String!) { subgraph(question: $q) { nodes { text } } }", q=QUESTION)
    return {n["text"] for n in graph["data"]["subgraph"]["nodes"]}


def test_ingest_documents_then_delete_and_edit(gql, elsewhere: PropsMemory) -> None:
    first = gql(INGEST, docs=DOCS)["data"]["ingestDocuments"]
    assert len(first["documentIds"]) == 3 and first["documentIds"][0].startswith("doc_")
    assert (first["skipped"], first["added"], first["existing"]) == (0, 3, 0)
    again = gql(INGEST, docs=DOCS)["data"]["ingestDocuments"]
    assert (again["skipped"], again["added"], again["relations"]) == (3, 0, 0)
    assert again["documentIds"] == first["documentIds"]
    assert len(subgraph(elsewhere, QUESTION).nodes) == 3  # its index holds them all

    deleted = gql(
        "mutation($id: ID!) { deleteDocument(id: $id) { id propositionIds } }",
        id=first["documentIds"][0],
    )["data"]["deleteDocument"]
    assert deleted["id"] == first["documentIds"][0] and len(deleted["propositionIds"]) == 1
    kept = {"Quillmere Foundry employs 1,200 people.", DOCS[2]["text"]}
    assert texts(gql) == kept, "the headcount stays: the wire states it too"
    assert {n.prop.text for n in subgraph(elsewhere, QUESTION).nodes} == kept

    ceo = next(n.prop for n in subgraph(elsewhere, QUESTION).nodes if "Rilke" in n.prop.text)
    edit = """mutation($id: ID!, $text: String) {
      updateProposition(id: $id, text: $text) { id text date source } }"""
    fixed = gql(edit, id=ceo.id, text="Tomas Rilke became chief executive of Quillmere Foundry.")
    new = fixed["data"]["updateProposition"]
    assert new["id"] != ceo.id and new["date"] == "2021-09-01"
    assert texts(gql) == {"Quillmere Foundry employs 1,200 people.", new["text"]}
    assert {n.prop.id for n in subgraph(elsewhere, QUESTION).nodes} >= {new["id"]}
    assert ceo.id not in {n.prop.id for n in subgraph(elsewhere, QUESTION).nodes}

    gone = gql("mutation($id: ID!) { deleteProposition(id: $id) { id text } }", id=new["id"])
    assert gone["data"]["deleteProposition"] == {"id": new["id"], "text": new["text"]}
    assert texts(gql) == {"Quillmere Foundry employs 1,200 people."}
    assert new["id"] not in {n.prop.id for n in subgraph(elsewhere, QUESTION).nodes}


def test_edits_and_deletions_of_what_is_missing_or_bad_change_nothing(gql) -> None:
    gql(INGEST, docs=DOCS[:1])
    before = gql("{ propositions { items { id text date } } }")["data"]["propositions"]["items"]
    for query, code, field in [
        ('mutation { deleteDocument(id: "doc_missing") { id } }', "NOT_FOUND", None),
        ('mutation { deleteProposition(id: "prop_missing") { id } }', "NOT_FOUND", None),
        ('mutation { deleteEvent(id: "ev_missing") { id } }', "NOT_FOUND", None),
        ('mutation { updateProposition(id: "prop_missing", text: "x") { id } }', "NOT_FOUND", None),
        (
            f'mutation {{ updateProposition(id: "{before[0]["id"]}", date: "2018-02-30") '
            "{ id } }",
            "BAD_INPUT",
            "date",
        ),
        (
            f'mutation {{ updateProposition(id: "{before[0]["id"]}") {{ id }} }}',
            "BAD_INPUT",
            "text",
        ),
        (
            'mutation { ingestDocuments(documents: [{text: "Fine.", date: "2020-01-01"}, '
            '{text: "", date: "2020-01-01"}]) { added } }',
            "BAD_INPUT",
            "documents[1].text",
        ),
    ]:
        error = gql(query)["errors"][0]
        assert error["extensions"]["code"] == code, query
        assert error["extensions"].get("field") == field, query
    assert (
        gql("{ propositions { items { id text date } } }")["data"]["propositions"]["items"]
        == before
    )


def test_delete_event_removes_it_from_recall_elsewhere(
    gql, store: Store, tmp_path: Path, elsewhere: PropsMemory
) -> None:
    add = 'mutation($t: String!) { addEvent(text: $t, date: "2021-10-31") { id } }'
    flood = gql(add, t="The ward flooded after the storm.")["data"]["addEvent"]["id"]
    gql(add, t="The library reopened on Main Street.")
    other = TimelineMemory(store, elsewhere.embedder, elsewhere.vectors)
    assert flood in {m.id for m in recall(other, "flooding in the ward", "2021-12-01", 5, 0.5)}
    deleted = gql("mutation($id: ID!) { deleteEvent(id: $id) { id text date } }", id=flood)
    assert deleted["data"]["deleteEvent"] == {
        "id": flood,
        "text": "The ward flooded after the storm.",
        "date": "2021-10-31",
    }
    found = {m.id for m in recall(other, "flooding in the ward", "2021-12-01", 5, 0.5)}
    assert flood not in found and len(found) == 1


def test_cli_bulk_ingest_resumes_and_edits(
    monkeypatch: pytest.MonkeyPatch,
    store_url: str,
    store: Store,
    short_tmp: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    elsewhere: PropsMemory,
) -> None:
    monkeypatch.setenv("GRAPHMEM_STORE", store_url)
    monkeypatch.setenv("GRAPHMEM_HOME", str(short_tmp / "cli-edit"))
    path = tmp_path / "docs.jsonl"
    path.write_text("\n".join(json.dumps(d) for d in DOCS[:2]))
    assert main(["ingest-docs", str(path)]) == 0
    assert capsys.readouterr().out.startswith("2 documents: 2 propositions added, 0 already")
    path.write_text("\n".join(json.dumps(d) for d in DOCS))
    assert main(["ingest-docs", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 documents: 1 propositions added")
    assert out.rstrip().endswith("; 2 documents were stored already")

    ceo = next(n.prop for n in subgraph(elsewhere, QUESTION).nodes if "Rilke" in n.prop.text)
    assert main(["proposition", "update", ceo.id, "--date", "2021-09-02"]) == 0
    moved = capsys.readouterr().out.split()[0]
    assert moved.startswith("prop_") and moved != ceo.id
    assert [n.prop.date for n in subgraph(elsewhere, QUESTION).nodes if "Rilke" in n.prop.text] == [
        "2021-09-02"
    ]
    assert main(["proposition", "delete", moved]) == 0
    assert capsys.readouterr().out.startswith(f"deleted {moved}")
    assert all("Rilke" not in n.prop.text for n in subgraph(elsewhere, QUESTION).nodes)
    doc = document_id(DOCS[0]["text"], DOCS[0]["date"], DOCS[0]["source"])
    assert main(["document", "delete", doc]) == 0
    assert "and 1 proposition no other document states" in capsys.readouterr().out
    assert main(["document", "delete", doc]) == 1
    assert "no document" in capsys.readouterr().err
    assert main(["event", "delete", "ev_missing"]) == 1


def test_ingest_documents_replaces_an_earlier_version_when_asked(gql) -> None:
    query = """mutation($docs: [DocumentInput!]!, $replace: Boolean!) {
      ingestDocuments(documents: $docs, replace: $replace) { earlierVersions replaced } }"""
    page = {"date": "2018-03-02", "source": "gazette"}
    gql(INGEST, docs=[{**page, "text": "Quillmere Foundry employs 1,200 people."}])
    edited = [{**page, "text": "Quillmere Foundry employs 1,250 people."}]
    old = document_id("Quillmere Foundry employs 1,200 people.", page["date"], page["source"])
    kept = gql(query, docs=edited, replace=False)["data"]["ingestDocuments"]
    assert kept == {"earlierVersions": [old], "replaced": 0}
    gone = gql(query, docs=edited, replace=True)["data"]["ingestDocuments"]
    assert gone == {"earlierVersions": [old], "replaced": 1}
    assert texts(gql) == {"Quillmere Foundry employs 1,250 people."}
