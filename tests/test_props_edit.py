"""Deleting and editing: documents, propositions and events, gone from retrieval in this and in
another process (its own vector indexes on the same graph), statuses following the edges."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from graphmem.config import Settings
from graphmem.errors import InvalidInput, NotFound
from graphmem.props import (
    PropsMemory,
    add_document,
    add_propositions,
    counts,
    list_relations,
    subgraph,
)
from graphmem.props.classify import Candidate, Judgement
from graphmem.props.model import Proposition, proposition_id
from graphmem.services import open_props
from graphmem.store import Store
from graphmem.timeline import TimelineMemory, add_events, recall, reinforce

PRICE = re.compile(r"^The (\w+) kettle costs (\d+) dollars\.?$")


class PriceClassifier:
    """Kettle prices: another price of the same kettle updates, the same price supports."""

    name = "prices"

    def classify(self, new: Proposition, candidates: Sequence[Candidate]) -> list[Judgement]:
        mine = PRICE.match(new.text)
        out = []
        for i, cand in enumerate(candidates):
            theirs = PRICE.match(cand.prop.text)
            label = "norel"
            if mine and theirs and mine[1] == theirs[1]:
                label = "supports" if mine[2] == theirs[2] else "updates"
            out.append(Judgement(i, label, 1.0))
        return out


def kettle(name: str, price: int, date: str) -> dict[str, str]:
    return {"text": f"The {name} kettle costs {price} dollars.", "date": date}


def pid(item: dict[str, str]) -> str:
    return proposition_id(item["text"], item["date"])


def memory(store: Store, home: Path) -> PropsMemory:
    """A props memory whose searches always check the graph first (refresh_ms 0)."""
    settings = Settings(home=home, vector_refresh_ms=0)
    return open_props(settings, store, llm=None, classifier=PriceClassifier())


@pytest.fixture
def pair(store: Store, tmp_path: Path) -> Iterator[tuple[PropsMemory, PropsMemory]]:
    """Two memories on one graph, each with its own indexes: this process and another."""
    here, there = memory(store, tmp_path / "here"), memory(store, tmp_path / "there")
    yield here, there
    here.close()
    there.close()


def found(ctx: PropsMemory, question: str, as_of: str | None = None) -> dict[str, str]:
    """Retrieval as a user sees it: id → status of every proposition in the subgraph."""
    graph = subgraph(ctx, question, as_of, k=10)
    return {n.prop.id: n.status.state for n in graph.nodes}


LUMEN = [kettle("Lumen", 89, "2018-01-10"), kettle("Lumen", 99, "2019-01-10")]
ORBIT = kettle("Orbit", 40, "2018-05-01")


def test_deleting_a_proposition_removes_it_here_and_elsewhere_and_restores_status(
    pair: tuple[PropsMemory, PropsMemory],
) -> None:
    here, there = pair
    add_propositions(here, [*LUMEN, ORBIT])
    old, new = pid(LUMEN[0]), pid(LUMEN[1])
    for ctx in pair:  # both indexes open, and the older price is superseded
        assert found(ctx, "What does the Lumen kettle cost?")[old] == "updated"
    deleted = here.delete_proposition(new)
    assert (deleted.id, deleted.text, deleted.date) == (new, LUMEN[1]["text"], "2019-01-10")
    for ctx in pair:
        seen = found(ctx, "What does the Lumen kettle cost?")
        assert new not in seen, "gone from retrieval in both processes"
        assert seen[old] == "current", "what it updated stands again"
        hits = ctx.vectors.search("Proposition", ctx.embedder.encode_one(LUMEN[1]["text"]), 10)
        assert new not in {h.node_id for h in hits}
    assert list_relations(here) == []
    assert counts(here)["propositions"] == 2
    with pytest.raises(NotFound, match="no proposition"):
        here.delete_proposition(new)


def test_a_deletion_is_seen_elsewhere_even_when_as_many_are_added(
    pair: tuple[PropsMemory, PropsMemory],
) -> None:
    """The other process's index compares counts: one deleted and one added leave it equal."""
    here, there = pair
    add_propositions(here, [LUMEN[0], ORBIT])
    assert pid(LUMEN[0]) in found(there, "What does the Lumen kettle cost?")
    here.delete_proposition(pid(LUMEN[0]))
    add_propositions(here, [LUMEN[1]])
    assert counts(here)["propositions"] == 2
    seen = found(there, "What does the Lumen kettle cost?")
    assert pid(LUMEN[0]) not in seen and pid(LUMEN[1]) in seen


def test_deleting_a_document_keeps_what_another_document_states(
    pair: tuple[PropsMemory, PropsMemory],
) -> None:
    here, there = pair
    shared = "The Lumen kettle costs 89 dollars."
    first = add_document(here, f"{shared} The Orbit kettle costs 40 dollars.", "2018-01-10", "a")
    second = add_document(here, shared, "2018-01-10", "b")
    orbit = proposition_id("The Orbit kettle costs 40 dollars.", "2018-01-10")
    lumen = proposition_id(shared, "2018-01-10")
    assert found(there, "What does the Orbit kettle cost?").keys() >= {orbit, lumen}
    deleted = here.delete_document(first.document_id)
    assert (deleted.id, deleted.proposition_ids) == (first.document_id, (orbit,))
    assert counts(here) == {"propositions": 1, "documents": 1, "states": 1, "relations": 0}
    for ctx in pair:
        seen = found(ctx, "What does the Orbit kettle cost?")
        assert orbit not in seen and lumen in seen
    with pytest.raises(NotFound, match="no document"):
        here.delete_document(first.document_id)
    here.delete_document(second.document_id)  # the last document stating it
    assert counts(here) == {"propositions": 0, "documents": 0, "states": 0, "relations": 0}
    assert found(there, "What does the Lumen kettle cost?") == {}
    again = add_document(here, f"{shared} The Orbit kettle costs 40 dollars.", "2018-01-10", "a")
    assert (again.document_id, again.added) == (first.document_id, 2), "ingested anew"


def test_editing_the_text_re_embeds_and_re_relates_under_a_new_id(
    pair: tuple[PropsMemory, PropsMemory],
) -> None:
    here, there = pair
    doc = add_document(here, "The Lumen kettle costs 98 dollars.", "2019-01-10", "shop")
    add_propositions(here, [LUMEN[0], ORBIT])
    typo = pid({"text": "The Lumen kettle costs 98 dollars.", "date": "2019-01-10"})
    reinforce(_timeline(here), [typo], "2019-02-01")
    assert found(there, "What does the Lumen kettle cost?")[typo] == "current"
    fixed = here.update_proposition(typo, text="The Lumen kettle costs 99 dollars.")
    assert fixed.id == pid(LUMEN[1]) and fixed.text == LUMEN[1]["text"]
    assert fixed.date == "2019-01-10" and fixed.source == "shop"
    for ctx in pair:
        seen = found(ctx, "What does the Lumen kettle cost?")
        assert typo not in seen and seen[fixed.id] == "current"
        assert seen[pid(LUMEN[0])] == "updated", "related anew: it updates the older price"
        hits = ctx.vectors.search("Proposition", ctx.embedder.encode_one(fixed.text), 1)
        assert hits[0].node_id == fixed.id and hits[0].score == pytest.approx(1.0, abs=1e-4)
    assert here.store.read("props.document", id=doc.document_id)[0]["props"] == [fixed.id]
    stats = here.store.read("props.fetch", ids=[fixed.id])[0]
    assert stats["recall_count"] == 1, "the recall statistics go with it"
    assert counts(here) == {"propositions": 3, "documents": 1, "states": 1, "relations": 1}


def test_editing_the_date_moves_it_in_time(pair: tuple[PropsMemory, PropsMemory]) -> None:
    here, there = pair
    add_propositions(here, LUMEN)
    moved = here.update_proposition(pid(LUMEN[1]), date="2017-06-01")  # now the older one
    assert moved.id == proposition_id(LUMEN[1]["text"], "2017-06-01")
    for ctx in pair:
        seen = found(ctx, "What does the Lumen kettle cost?")
        assert seen == {moved.id: "updated", pid(LUMEN[0]): "current"}
        assert found(ctx, "What does the Lumen kettle cost?", as_of="2017-12-31") == {
            moved.id: "current"
        }
    (edge,) = list_relations(here)
    assert (edge.src, edge.dst, edge.kind) == (pid(LUMEN[0]), moved.id, "updates")


def test_an_edit_into_a_stored_statement_merges_into_it(
    pair: tuple[PropsMemory, PropsMemory],
) -> None:
    here, _ = pair
    add_document(here, "The Lumen kettle costs 89 dollars.", "2018-01-10", "shop")
    add_propositions(here, [kettle("Lumen", 80, "2018-01-10")])
    merged = here.update_proposition(pid(kettle("Lumen", 80, "2018-01-10")), text=LUMEN[0]["text"])
    assert merged.id == pid(LUMEN[0]) and merged.source == "shop"
    assert counts(here) == {"propositions": 1, "documents": 1, "states": 1, "relations": 0}


def test_an_edit_keeping_the_identity_is_made_in_place(
    pair: tuple[PropsMemory, PropsMemory],
) -> None:
    here, _ = pair
    add_propositions(here, [{**LUMEN[0], "source": "shop"}])
    same = here.update_proposition(
        pid(LUMEN[0]), text="the Lumen kettle costs 89 dollars", source="catalogue"
    )
    assert same.id == pid(LUMEN[0]) and same.source == "catalogue"
    row = here.store.read("props.get", ids=[same.id])[0]
    assert (row["text"], row["source"]) == ("the Lumen kettle costs 89 dollars", "catalogue")
    assert counts(here)["propositions"] == 1


@pytest.mark.parametrize(
    ("changes", "field", "problem"),
    [
        ({}, "text", "nothing to change"),
        ({"text": "  "}, "text", "is empty"),
        ({"date": "2019-02-30"}, "date", "not a valid calendar date"),
        ({"source": "a\x00b"}, "source", "control character"),
    ],
)
def test_a_bad_edit_names_the_field_and_changes_nothing(
    pair: tuple[PropsMemory, PropsMemory], changes: dict, field: str, problem: str
) -> None:
    here, _ = pair
    add_propositions(here, LUMEN)
    before, edges = counts(here), list_relations(here)
    with pytest.raises(InvalidInput, match=problem) as error:
        here.update_proposition(pid(LUMEN[0]), **changes)
    assert error.value.field == field
    assert counts(here) == before and list_relations(here) == edges
    with pytest.raises(NotFound):
        here.update_proposition("prop_missing", text="Anything.")
    with pytest.raises(InvalidInput) as error:
        here.delete_proposition("")
    assert error.value.field == "id"


def _timeline(ctx: PropsMemory) -> TimelineMemory:
    return TimelineMemory(ctx.store, ctx.embedder, ctx.vectors)


def test_deleting_an_event_removes_it_from_recall_here_and_elsewhere(
    pair: tuple[PropsMemory, PropsMemory],
) -> None:
    here, there = (_timeline(ctx) for ctx in pair)
    items = [
        {"text": "The ward flooded after the storm.", "date": "2021-10-31"},
        {"text": "The library reopened on Main Street.", "date": "2021-11-02"},
    ]
    flood = add_events(here, items)[0].id
    ids = {m.id for m in recall(there, "flooding in the ward", "2021-12-01", 5, 0.5)}
    assert flood in ids
    gone = here.delete_event(flood)
    assert (gone.id, gone.text, gone.date) == (flood, items[0]["text"], "2021-10-31")
    for ctx in (here, there):
        ids = {m.id for m in recall(ctx, "flooding in the ward", "2021-12-01", 5, 0.5)}
        assert flood not in ids and len(ids) == 1
    with pytest.raises(NotFound, match="no event"):
        here.delete_event(flood)


def test_a_corrected_proposition_keeps_the_headings_it_sits_under(
    pair: tuple[PropsMemory, PropsMemory],
) -> None:
    here, _ = pair
    about = "Riverside Dental › Fees 2025"
    (pid,) = add_propositions(
        here, [{"text": "A hygienist visit costs £62.", "date": "2025-01-10", "about": about}]
    ).proposition_ids
    new = here.update_proposition(pid, text="A hygienist visit costs £64.")
    assert new.id != pid and new.about == about
    # found by its heading's words, which its text does not hold
    graph = subgraph(here, "Riverside Dental", k=1, expand=False, channels="keyword")
    assert [n.prop.id for n in graph.nodes] == [new.id]
