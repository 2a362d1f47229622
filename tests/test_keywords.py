"""The keyword (BM25) index: terms, scores, as-of search, removal, files, other writers."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem.config import Settings
from graphmem.errors import InvalidInput
from graphmem.props import PropsMemory, add_document, add_propositions
from graphmem.props.model import proposition_id
from graphmem.services import open_props
from graphmem.store import Store
from graphmem.vectors import keywords as kw
from graphmem.vectors import vector_id
from graphmem.vectors.keywords import KeywordIndex, terms

LABEL = "Proposition"
DOCS = [
    "Quillmere Foundry employs 1,200 people in Brackwater.",
    "Quillmere Foundry opened a second smelting hall.",
    "The Brackwater council raised parking fees by 4.5 percent.",
    "Mara Velsh was appointed chief executive of Quillmere Foundry.",
    "Tomas Rilke replaced Mara Velsh as chief executive.",
    "Brackwater Rovers climbed to third place in the league.",
    "The foundry's sites in Brackwater employ 1200 people.",
    "Unemployment in Brackwater stood at 4.5 percent.",
]


def index_of(docs: list[str], first_ts: int = 1000) -> KeywordIndex:
    index = KeywordIndex(LABEL)
    ids = [f"d{i}" for i in range(len(docs))]
    index.add(ids, [vector_id(i) for i in ids], [first_ts + i for i in range(len(docs))], docs)
    return index


def hits(index: KeywordIndex, query: str, k: int = 10, as_of: int | None = None) -> list[str]:
    return [h.node_id for h in index.search(query, k, as_of)]


def test_terms_fold_case_stem_words_and_keep_numbers_whole() -> None:
    assert terms("The Foundry's SITES, and its site") == ["foundri", "site", "site"]
    assert terms("1,200 people; 1200 jobs; 4.5 percent; 3,5 and 2024-03-10") == [
        "1200",
        "peopl",
        "1200",
        "job",
        "4.5",
        "percent",
        "3",
        "5",
        "2024",
        "03",
        "10",
    ]
    assert terms("Ｑｕｉｌｌｍｅｒｅ") == terms("quillmere")  # NFKC: full-width letters
    assert terms("a I the of") == []


def test_bm25_prefers_the_rarer_term_and_matches_numbers() -> None:
    index = index_of(DOCS)
    # "brackwater" is in five documents, "velsh" in two: Velsh decides
    assert set(hits(index, "Velsh Brackwater", 2)) == {"d3", "d4"}
    # numbers are terms: 1,200 and 1200 are the same, 4.5 is one term
    assert set(hits(index, "1200")) == {"d0", "d6"}
    assert set(hits(index, "4.5")) == {"d2", "d7"}
    assert hits(index, "zeppelin") == [] and hits(index, "the of") == []
    [top] = index.search("Rilke", 1)
    # one matching term in one of 8 documents: idf = ln(1 + 7.5/1.5), scaled by length
    n_terms = len(terms(DOCS[4]))
    avgdl = sum(len(terms(d)) for d in DOCS) / len(DOCS)
    norm = kw.K1 * (1 - kw.B + kw.B * n_terms / avgdl)
    assert top.score == pytest.approx(math.log(1 + 7.5 / 1.5) * (kw.K1 + 1) / (1 + norm))


def test_as_of_is_inclusive_and_ties_go_to_the_newer_document() -> None:
    index = index_of(["Velsh spoke.", "Velsh spoke.", "Velsh spoke."], first_ts=100)
    assert hits(index, "Velsh", 3, as_of=101) == ["d1", "d0"]  # d1 is dated exactly 101
    assert hits(index, "Velsh", 3, as_of=99) == []
    assert hits(index, "Velsh", 1) == ["d2"]


def test_removal_and_compaction_score_as_a_fresh_index_of_what_is_left() -> None:
    index = index_of(DOCS)
    gone = ["d0", "d3"]
    assert index.remove([vector_id(i) for i in gone]) == 2  # a quarter: compacts
    assert index.remove([vector_id("d0")]) == 0
    keep = [d for i, d in enumerate(DOCS) if f"d{i}" not in gone]
    fresh = index_of(keep)
    renamed = {f"d{j}": f"d{i}" for j, i in enumerate(i for i in range(8) if f"d{i}" not in gone)}
    for query in ("Quillmere Foundry", "Brackwater 4.5", "Velsh chief executive"):
        got = [(h.node_id, round(h.score, 6)) for h in index.search(query, 10)]
        want = [(renamed[h.node_id], round(h.score, 6)) for h in fresh.search(query, 10)]
        assert got == want
    assert len(index) == 6 and index.vids() == {vector_id(renamed[f"d{j}"]) for j in range(6)}


def test_batches_merged_in_steps_score_as_one_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kw, "TAIL_MIN", 5)  # merge the tail into the base every few postings
    stepwise = KeywordIndex(LABEL)
    for i, doc in enumerate(DOCS):
        stepwise.add([f"d{i}"], [vector_id(f"d{i}")], [1000 + i], [doc])
    assert stepwise.add(["d1"], [vector_id("d1")], [1001], [DOCS[1]]) == 0  # already there
    whole = index_of(DOCS)
    for query in ("Quillmere Foundry", "Brackwater 4.5 1200", "Velsh"):
        assert stepwise.search(query, 10) == whole.search(query, 10)


def test_bad_input_is_refused_and_changes_nothing() -> None:
    index = index_of(DOCS[:2])
    for call, field in (
        (lambda: index.search("x", 0), "k"),
        (lambda: index.search(None, 1), "query"),  # type: ignore[arg-type]
        (lambda: index.add(["a"], [vector_id("b")], [1], ["text"]), "vids[0]"),
        (lambda: index.add(["a"], [vector_id("a")], [1], ["one", "two"]), "texts"),
        (lambda: index.add(["a"], [vector_id("a")], [1], [7]), "texts[0]"),  # type: ignore[list-item]
    ):
        with pytest.raises(InvalidInput) as err:
            call()
        assert err.value.field == field
    assert len(index) == 2


@pytest.fixture
def home(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path, vector_refresh_ms=0)  # check the graph before each search


@pytest.fixture
def ctx(store: Store, home: Settings) -> Iterator[PropsMemory]:
    memory = open_props(home, store, llm=None)
    yield memory
    memory.close()


ITEMS = [{"text": text, "date": f"2021-0{1 + i % 8}-1{i % 10}"} for i, text in enumerate(DOCS)]


def found(memory: PropsMemory, query: str, k: int = 10) -> list[str]:
    return [h.node_id for h in memory.keywords.search(LABEL, query, k)]


def test_saved_index_is_loaded_and_a_damaged_one_rebuilt(
    store: Store, home: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    memory = open_props(home, store, llm=None)
    add_propositions(memory, ITEMS, relate=False)
    before = [found(memory, q) for q in ("Velsh", "Brackwater 1200", "percent")]
    memory.close()
    path = Path(home.home) / "keywords" / f"{LABEL}.npz"
    assert path.is_file()
    again = open_props(home, store, llm=None)
    assert [found(again, q) for q in ("Velsh", "Brackwater 1200", "percent")] == before
    report = again.keywords.report(LABEL)
    assert report is not None and report.loaded and report.added == 0
    again.close()
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING):
        rebuilt = open_props(home, store, llm=None)
        assert [found(rebuilt, q) for q in ("Velsh", "Brackwater 1200", "percent")] == before
    report = rebuilt.keywords.report(LABEL)
    assert report is not None and not report.loaded and report.added == len(ITEMS)
    assert sum("keyword index" in r.getMessage() for r in caplog.records) == 1
    rebuilt.close()


def test_another_writers_propositions_are_found_before_the_next_search(
    store: Store, home: Settings, tmp_path: Path, ctx: PropsMemory
) -> None:
    add_propositions(ctx, ITEMS[:4], relate=False)
    assert found(ctx, "Rilke") == []
    # "another process": its own memory and data dir on the same graph
    other = open_props(home.with_overrides(home=tmp_path / "other"), store, llm=None)
    add_propositions(other, ITEMS[4:], relate=False)
    other.close()
    rilke = proposition_id(ITEMS[4]["text"], ITEMS[4]["date"])
    assert found(ctx, "Rilke") == [rilke]
    assert len(found(ctx, "Brackwater")) == 5


def test_deleted_and_edited_propositions_leave_the_keyword_index_at_once(
    store: Store, home: Settings
) -> None:
    from graphmem.props.edit import delete_document, delete_proposition, update_proposition

    # the graph is not checked again for a minute: only this process's own removals count
    ctx = open_props(home.with_overrides(vector_refresh_ms=60_000), store, llm=None)
    add_propositions(ctx, ITEMS[:4], relate=False)
    velsh = proposition_id(ITEMS[3]["text"], ITEMS[3]["date"])
    assert found(ctx, "Velsh") == [velsh]
    delete_proposition(ctx, velsh)
    assert found(ctx, "Velsh") == []
    hall = proposition_id(ITEMS[1]["text"], ITEMS[1]["date"])
    edited = update_proposition(ctx, hall, text="Quillmere Foundry opened a third smelting hall.")
    assert found(ctx, "third smelting") == [edited.id]
    assert found(ctx, "second") == []
    report = add_document(ctx, "Ostwick council approved the Harlow bypass.", "2022-05-01")
    assert found(ctx, "Harlow bypass") == list(report.proposition_ids)
    delete_document(ctx, report.document_id)
    assert found(ctx, "Harlow bypass") == []
    ctx.close()
