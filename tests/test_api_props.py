"""GraphQL and CLI over the propositions memory (real store, FAISS and model; no LLM)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem.cli import main
from graphmem.store import Store

ADD = """mutation($items: [PropositionInput!]!) {
  addPropositions(propositions: $items) { propositionIds added existing relations } }"""
SUBGRAPH = """query($q: String!, $asOf: Date) {
  subgraph(question: $q, asOf: $asOf, k: 5) {
    nodes { id text date isAnchor status updatedBy } edges { src dst kind }
    context(maxTokens: 400) } }"""

ITEMS = [
    {"text": "Mara Velsh is the chief executive of Quillmere Foundry.", "date": "2018-03-02"},
    {
        "text": "Tomas Rilke replaced Mara Velsh as chief executive of Quillmere Foundry.",
        "date": "2021-09-01",
    },
    {
        "text": "Quillmere Foundry employs 1,200 people in Brackwater.",
        "date": "2018-03-02",
        "source": "gazette",
    },
]


def test_add_propositions_and_dated_subgraph(gql) -> None:
    first = gql(ADD, items=ITEMS)["data"]["addPropositions"]
    assert first["added"] == 3 and len(first["propositionIds"]) == 3
    again = gql(ADD, items=ITEMS)["data"]["addPropositions"]
    assert again["added"] == 0 and again["existing"] == 3 and again["relations"] == 0
    before = gql(SUBGRAPH, q="Who leads Quillmere Foundry?", asOf="2019-12-31")["data"]
    dates = [n["date"] for n in before["subgraph"]["nodes"]]
    assert dates and max(dates) <= "2019-12-31", "as of: nothing from after the date"
    now = gql(SUBGRAPH, q="Who leads Quillmere Foundry?", asOf=None)["data"]["subgraph"]
    assert any("Tomas Rilke" in n["text"] for n in now["nodes"])
    context = now["context"]
    assert context.startswith("[P1] 2") and "\nStatement: Tomas Rilke" in context
    listed = gql('{ propositions(filter: {source: "gazette"}) { items { text date source } } }')
    assert listed["data"]["propositions"]["items"] == [
        {"text": ITEMS[2]["text"], "date": "2018-03-02", "source": "gazette"}
    ]
    window = gql(
        '{ propositions(filter: {start: "2020-01-01", end: "2021-12-31"}) '
        "{ items { date } total } }"
    )
    assert window["data"]["propositions"] == {"items": [{"date": "2021-09-01"}], "total": 1}
    page = gql("{ propositions(limit: 1, offset: 1) { items { date } total limit offset } }")
    assert page["data"]["propositions"] == {
        "items": [{"date": "2018-03-02"}],
        "total": 3,
        "limit": 1,
        "offset": 1,
    }


RELATIONS = """query($id: ID!, $asOf: Date, $direction: Direction!) {
  relations(propositionId: $id, asOf: $asOf, direction: $direction) {
    items { src dst kind confidence } total } }"""


def test_relations_of_a_proposition_by_direction_and_date(gql) -> None:
    ceo, successor, _ = gql(ADD, items=ITEMS)["data"]["addPropositions"]["propositionIds"]

    def relations(pid: str, direction: str = "BOTH", as_of: str | None = None) -> dict:
        found = gql(RELATIONS, id=pid, asOf=as_of, direction=direction)["data"]["relations"]
        assert found["total"] == len(found["items"])
        return found

    incoming = relations(ceo, "INCOMING")["items"]
    assert incoming and all(e["dst"] == ceo for e in incoming)
    update = next(e for e in incoming if e["src"] == successor)
    assert update["kind"] in ("UPDATES", "CONTRADICTS") and 0 < update["confidence"] <= 1
    assert relations(successor, "OUTGOING")["items"] == [
        e for e in relations(successor)["items"] if e["src"] == successor
    ]
    assert update in relations(successor, "OUTGOING")["items"]
    assert all(e["src"] == ceo for e in relations(ceo, "OUTGOING")["items"])
    # as of a date before the newer proposition: its edges did not exist yet
    assert successor not in {e["src"] for e in relations(ceo, as_of="2019-12-31")["items"]}
    missing = gql(RELATIONS, id="nope", direction="BOTH")["errors"][0]
    assert missing["extensions"]["code"] == "NOT_FOUND"


def test_ingest_document_without_llm_splits_sentences(gql) -> None:
    text = "The Verrin Bridge opened. It is 420 metres long. Mayor Anna Holt cut the ribbon."
    doc = gql(
        f'mutation {{ ingestDocument(text: "{text}", date: "2012-05-05", source: "city") '
        "{ documentId added } }"
    )
    result = doc["data"]["ingestDocument"]
    assert result["documentId"].startswith("doc_") and result["added"] == 2
    stored = gql("{ propositions { items { text } } }")["data"]["propositions"]["items"]
    # "It" refers back: the length stays with the bridge it is the length of
    assert {p["text"] for p in stored} == {
        "The Verrin Bridge opened. It is 420 metres long.",
        "Mayor Anna Holt cut the ribbon.",
    }


def test_bad_propositions_name_the_field_and_store_nothing(gql) -> None:
    bad = [ITEMS[0], {"text": "x", "date": "2018-13-40"}]
    error = gql(ADD, items=bad)["errors"][0]
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "$items[1].date"}
    assert gql("{ propositions { total } }")["data"]["propositions"]["total"] == 0
    error = gql('{ subgraph(question: "x", asOf: "yesterday") { question } }')["errors"][0]
    assert error["extensions"]["field"] == "asOf"


def test_a_proposition_keeps_the_headings_it_sits_under(gql) -> None:
    heading = "Riverside Dental › Fees 2025"
    items = [{"text": "A hygienist appointment costs £62.", "date": "2025-01-10", "about": heading}]
    gql(ADD, items=items)
    listed = gql("{ propositions { items { text about } } }")["data"]["propositions"]["items"]
    assert listed == [{"text": items[0]["text"], "about": heading}]
    query = '{ subgraph(question: "Riverside Dental fees", k: 1) { nodes { about } context } }'
    graph = gql(query)["data"]["subgraph"]
    assert graph["nodes"] == [{"about": heading}] and f"\nHeading: {heading}\n" in graph["context"]
    bad = [{"text": "Fees rise.", "date": "2025-02-01", "about": "x" * 501}]
    error = gql(ADD, items=bad)["errors"][0]
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "propositions[0].about"}
    assert gql("{ propositions { total } }")["data"]["propositions"]["total"] == 1


def test_cli_ingest_docs_and_query(
    monkeypatch: pytest.MonkeyPatch,
    store_url: str,
    store: Store,
    short_tmp: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GRAPHMEM_STORE", store_url)
    monkeypatch.setenv("GRAPHMEM_HOME", str(short_tmp / "cli-props"))
    path = tmp_path / "docs.jsonl"
    path.write_text("\n".join(json.dumps({"text": i["text"], "date": i["date"]}) for i in ITEMS))
    assert main(["ingest-docs", str(path)]) == 0
    assert "3 documents: 3 propositions added" in capsys.readouterr().out
    assert main(["query", "Who leads Quillmere Foundry?", "--as-of", "2022-01-01"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("[P1]") and "Tomas Rilke" in out
    # a budget nothing fits in says so, rather than printing an empty page
    assert main(["query", "Who leads Quillmere Foundry?", "--max-tokens", "5"]) == 0
    printed = capsys.readouterr()
    assert printed.out == "" and "no proposition fits in --max-tokens 5; 3 found" in printed.err
    # before anything was stated, it says so rather than printing a blank line
    assert main(["query", "Who leads Quillmere Foundry?", "--as-of", "1990-01-01"]) == 0
    printed = capsys.readouterr()
    assert printed.out == ""
    assert "no proposition dated on or before 1990-01-01 is stored" in printed.err
    # an edited page sent again: noted, then replaced when asked
    page = {"date": "2018-03-02", "source": "gazette"}
    for people in ("1,200", "1,250"):
        path.write_text(json.dumps({**page, "text": f"Quillmere Foundry employs {people} people."}))
        assert main(["ingest-docs", str(path)]) == 0
    assert "1 stored documents have the source and date" in capsys.readouterr().err
    assert main(["ingest-docs", "--replace", str(path)]) == 0
    assert "1 earlier versions (same source and date, other text) were deleted" in (
        capsys.readouterr().out
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "ok", "date": "2020-01-01"}\n{"text": "no date"}\n')
    assert main(["ingest-docs", str(bad)]) == 1
    assert "line 2: date: is missing: a date in the form YYYY-MM-DD" in capsys.readouterr().err


CROWDS = [
    # the more similar to the question, three months old
    {
        "text": "Heavy crowds are expected at the Sendra crossing on Halloween night.",
        "date": "2026-08-01",
    },
    # less similar and older, but recalled month after month, last a few days ago
    {
        "text": "The Sendra ward office asked residents to avoid the district on Halloween.",
        "date": "2026-06-01",
    },
]
CROWD_QUESTION = "Will the Sendra crossing be crowded on Halloween night?"
RANKED = """query($q: String!, $rankBy: RankBy!, $now: DateTime) {
  subgraph(question: $q, k: 1, expand: false, rankBy: $rankBy, now: $now) {
    nodes { id score isAnchor } } }"""
REINFORCE = """mutation($ids: [ID!]!, $now: DateTime!) {
  reinforce(ids: $ids, now: $now) { recallCount } }"""
RECALL_DAYS = ("2026-07-01", "2026-08-01", "2026-09-01", "2026-10-28")


def test_subgraph_ranked_by_recall_lifts_a_repeatedly_recalled_proposition(gql) -> None:
    similar, recalled = gql(ADD, items=CROWDS)["data"]["addPropositions"]["propositionIds"]
    by_similarity = gql(RANKED, q=CROWD_QUESTION, rankBy="SIMILARITY")["data"]["subgraph"]
    assert [n["id"] for n in by_similarity["nodes"]] == [similar]
    for day in RECALL_DAYS:
        gql(REINFORCE, ids=[recalled], now=day)
    by_recall = gql(RANKED, q=CROWD_QUESTION, rankBy="RECALL", now="2026-10-31")["data"]
    (anchor,) = by_recall["subgraph"]["nodes"]
    assert anchor["id"] == recalled and anchor["isAnchor"]
    assert anchor["score"] < by_similarity["nodes"][0]["score"], "less similar, yet first"
    bad = gql(RANKED, q=CROWD_QUESTION, rankBy="POPULARITY")["errors"][0]
    assert bad["extensions"] == {"code": "BAD_INPUT", "field": "$rankBy"}
    bad = gql(RANKED, q=CROWD_QUESTION, rankBy="RECALL", now="soon")["errors"][0]
    assert bad["extensions"]["field"] == "$now"
    bad = gql(RANKED, q=CROWD_QUESTION, rankBy="SIMILARITY", now="2026-10-31")["errors"][0]
    assert bad["extensions"]["field"] == "now"


def test_cli_query_ranked_by_recall(
    monkeypatch: pytest.MonkeyPatch,
    store_url: str,
    store: Store,
    short_tmp: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GRAPHMEM_STORE", store_url)
    monkeypatch.setenv("GRAPHMEM_HOME", str(short_tmp / "cli-rank"))
    path = tmp_path / "docs.jsonl"
    path.write_text("\n".join(json.dumps(item) for item in CROWDS))
    assert main(["ingest-docs", str(path)]) == 0
    capsys.readouterr()
    recalled = store.read(
        "props.filtered",
        source=None,
        start=None,
        end=None,
        contains="ward office",
        offset=0,
        limit=1,
    )[0]["id"]
    from graphmem.timeline import reinforce_in

    for day in RECALL_DAYS:
        reinforce_in(store, [recalled], day)
    plain = ["query", CROWD_QUESTION, "-k", "1", "--no-expand"]
    assert main(plain) == 0
    assert CROWDS[0]["text"] in capsys.readouterr().out
    assert main([*plain, "--rank-by", "recall", "--now", "2026-10-31"]) == 0
    out = capsys.readouterr().out
    assert CROWDS[1]["text"] in out and CROWDS[0]["text"] not in out
    assert main([*plain, "--rank-by", "luck"]) == 1
    assert "--rank-by" in capsys.readouterr().err
