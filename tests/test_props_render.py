"""Rendering a subgraph: exact format, both directions, token budget, determinism."""

from __future__ import annotations

import dataclasses

import pytest
from rendered import blocks

from graphmem.errors import InvalidInput
from graphmem.props.model import Proposition, Relation, proposition_id, relation_id
from graphmem.props.render import render, render_detail
from graphmem.props.retrieve import Node, Status, Subgraph
from graphmem.timeutil import parse_timestamp
from graphmem.tokens import estimate_tokens


def node(
    key: str, date: str, text: str, anchor: bool, score: float, status: Status | None = None
) -> Node:
    prop = Proposition(key, text, date, int(parse_timestamp(date)), source="gazette")
    return Node(prop, anchor, score, status or Status("current"))


def edge(src: str, dst: str, kind: str) -> Relation:
    return Relation(relation_id(src, dst), src, dst, kind, 0.9, "test")


NODES = (
    node("e", "2019-05-05", "Beta is blue.", True, 0.2),
    node(
        "a",
        "2020-01-02",
        "Alpha costs 5 dollars.",
        True,
        0.9,
        Status("updated", ("b", "d"), ("c",)),
    ),
    node("b", "2021-09-01", "Alpha costs 7 dollars.", True, 0.8),
    node("c", "2021-09-01", "Alpha never cost 5 dollars.", False, 0.3),
    node("d", "2022-03-04", "Alpha costs 7 dollars, a report confirms.", False, 0.5),
)
EDGES = (
    edge("b", "a", "updates"),
    edge("c", "a", "contradicts"),
    edge("d", "a", "updates"),
    edge("d", "b", "supports"),
)
GRAPH = Subgraph("What does Alpha cost?", "2022-12-31", NODES, EDGES)

GOLDEN = """\
[P1] 2019-05-05
Source: gazette
Statement: Beta is blue.
Status: current.

[P2] 2020-01-02
Source: gazette
Statement: Alpha costs 5 dollars.
Status: updated by P3 and P5 and contradicted by P4: no longer current.

[P3] 2021-09-01
Source: gazette
Statement: Alpha costs 7 dollars.
Status: current.
This statement updates P2. This statement is supported by P5.

[P4] 2021-09-01
Source: gazette
Statement: Alpha never cost 5 dollars.
Status: current.
This statement contradicts P2.

[P5] 2022-03-04
Source: gazette
Statement: Alpha costs 7 dollars, a report confirms.
Status: current.
This statement updates P2. This statement supports P3."""


def test_golden_format_with_both_directions() -> None:
    assert render(GRAPH) == GOLDEN
    detail = render_detail(GRAPH)
    assert detail.labels == {"e": "P1", "a": "P2", "b": "P3", "c": "P4", "d": "P5"}
    assert detail.dropped == () and detail.tokens == estimate_tokens(GOLDEN)


def test_nearest_first_in_each_list() -> None:
    older = [node(f"o{i}", f"201{i}-01-01", f"Old {i}.", False, 0.1) for i in range(3)]
    newest = node("n", "2020-01-01", "New.", True, 0.9)
    edges = tuple(edge("n", o.prop.id, "updates") for o in older)
    text = render(Subgraph("q", None, (*older, newest), edges))
    assert "This statement updates P3, P2 and P1." in text
    later = [node(f"l{i}", f"203{i}-01-01", f"Later {i}.", False, 0.1) for i in range(2)]
    edges = tuple(edge(x.prop.id, "n", "supports") for x in later[::-1])
    text = render(Subgraph("q", None, (*later, newest), edges))
    assert "This statement is supported by P2 and P3." in text


def test_rendering_is_deterministic() -> None:
    shuffled = Subgraph(GRAPH.question, GRAPH.as_of, NODES[::-1], EDGES[::-1])
    assert render(shuffled) == render(GRAPH) == render(GRAPH)
    assert render(shuffled, max_tokens=120) == render(GRAPH, max_tokens=120)


def test_budget_keeps_what_replaces_an_anchor_as_long_as_the_anchor() -> None:
    full = estimate_tokens(GOLDEN)
    seen = []
    for budget in range(full, -1, -1):
        detail = render_detail(GRAPH, max_tokens=budget)
        assert detail.tokens <= budget
        shown = {n.prop.id for n in NODES} - set(detail.dropped)
        for n in NODES:  # whole propositions only
            assert (f"Statement: {n.prop.text}\n" in detail.text) == (n.prop.id in shown)
        if detail.dropped not in seen:
            seen.append(detail.dropped)
    # the weakest anchor, then what replaces the strongest (c and d, neighbours, least
    # similar first, then b, an anchor), then that anchor: an anchor is never shown "no
    # longer current" while what replaced it is dropped for a weaker one
    order = ("e", "c", "d", "b", "a")
    assert seen[-1] == order
    assert [s for s in seen if s] == [order[:i] for i in range(1, 6)]


def test_budget_keeps_a_chain_of_replacements_with_its_anchor() -> None:
    anchor = node("a", "2020-01-01", "Alpha costs 5 dollars.", True, 0.9, Status("updated", ("b",)))
    middle = node(
        "b", "2021-01-01", "Alpha costs 7 dollars.", False, 0.5, Status("updated", ("c",))
    )
    newest = node("c", "2022-01-01", "Alpha costs 9 dollars.", False, 0.1)
    aside = node("d", "2019-01-01", "Beta is blue.", False, 0.8)
    edges = (edge("b", "a", "updates"), edge("c", "b", "updates"))
    graph = Subgraph("What does Alpha cost?", None, (anchor, middle, newest, aside), edges)
    detail = render_detail(graph, max_tokens=estimate_tokens(render(graph)) - 1)
    assert detail.dropped == ("d",), "the current value is kept over an unrelated neighbour"


def test_budget_keeps_what_an_anchors_document_brought_as_long_as_the_anchor() -> None:
    named = node("a", "2023-05-02", "Velkor Foods shares rose 4 percent.", True, 0.7)
    brought = dataclasses.replace(
        node("b", "2023-05-02", "The company named Zofia Quilbrestan as its chief.", False, 0.2),
        via="document",
        anchor="a",
    )
    weaker = node("c", "2023-01-10", "Ardent Foods named Marta Kestrova as its chief.", True, 0.5)
    aside = node("d", "2023-02-01", "Velkor Foods is based in Marsby.", False, 0.6)
    graph = Subgraph("Who runs Velkor Foods?", None, (named, brought, weaker, aside), ())
    order = []
    for budget in range(estimate_tokens(render(graph)), -1, -1):
        dropped = render_detail(graph, max_tokens=budget).dropped
        order = list(dropped) if len(dropped) > len(order) else order
    # the unrelated neighbour, the weaker anchor, then the document's statement just before
    # the anchor it completes, though it is the least similar of all
    assert order == ["d", "c", "b", "a"]


def test_budget_drops_neighbours_that_replace_no_anchor_first() -> None:
    aside = node("f", "2018-01-01", "Gamma is green.", False, 0.95)
    graph = Subgraph(GRAPH.question, GRAPH.as_of, (*NODES, aside), EDGES)
    assert render_detail(graph, max_tokens=estimate_tokens(render(graph)) - 1).dropped == ("f",)


def test_budget_removes_references_to_dropped_propositions() -> None:
    budgets = range(estimate_tokens(GOLDEN), 0, -1)
    without_c = next(d for b in budgets if "c" in (d := render_detail(GRAPH, max_tokens=b)).dropped)
    assert without_c.dropped == ("e", "c")
    # the status still counts it, as not shown; no relation sentence names it or counts it
    assert all(
        "not shown" not in line for line in without_c.text.split("\n") if line.startswith("This")
    )
    assert "contradicted by 1 later proposition not shown: no longer current." in without_c.text
    assert "Alpha never cost" not in without_c.text and "contradicts" not in without_c.text
    # the numbering closes up: three propositions, P1..P3
    assert "[P3] 2022-03-04\n" in without_c.text and "[P4]" not in without_c.text
    assert "Status: updated by P2 and P3 and contradicted by 1 later" in without_c.text


def test_no_relations_line_without_relations_and_empty_subgraph() -> None:
    lone = Subgraph("q", None, (NODES[0],), ())
    assert (
        render(lone)
        == "[P1] 2019-05-05\nSource: gazette\nStatement: Beta is blue.\nStatus: current."
    )
    assert render(Subgraph("q", None, (), ())) == ""
    assert render(GRAPH, max_tokens=0) == ""


def test_bad_budget_is_invalid_input() -> None:
    with pytest.raises(InvalidInput) as info:
        render(GRAPH, max_tokens=-1)
    assert info.value.field == "max_tokens"


def test_same_date_ties_are_broken_by_id() -> None:
    renamed = {n.prop.id: proposition_id(n.prop.text, n.prop.date) for n in NODES}
    nodes = tuple(
        dataclasses.replace(n, prop=dataclasses.replace(n.prop, id=renamed[n.prop.id]))
        for n in NODES
    )
    edges = tuple(dataclasses.replace(e, src=renamed[e.src], dst=renamed[e.dst]) for e in EDGES)
    labels = render_detail(Subgraph("q", None, nodes, edges)).labels
    first, second = sorted([renamed["b"], renamed["c"]])  # both dated 2021-09-01
    assert (labels[first], labels[second]) == ("P3", "P4")


def test_a_block_shows_the_headings_its_statement_sits_under() -> None:
    prop = dataclasses.replace(NODES[0].prop, about="Riverside Dental › Fees 2025")
    graph = Subgraph("q", "2022-12-31", (dataclasses.replace(NODES[0], prop=prop),), ())
    assert render(graph).splitlines()[:4] == [
        "[P1] 2019-05-05",
        "Source: gazette",
        "Heading: Riverside Dental › Fees 2025",
        "Statement: Beta is blue.",
    ]


def test_a_statement_that_reads_like_a_field_stays_the_statement() -> None:
    ticket = dataclasses.replace(NODES[0].prop, text="Status: Resolved")
    text = render(Subgraph("q", None, (dataclasses.replace(NODES[0], prop=ticket),), ()))
    assert text.splitlines()[2:] == ["Statement: Status: Resolved", "Status: current."]
    assert blocks(text)["Status: Resolved"]["Status"] == "current."


def test_an_update_that_does_not_count_is_named_with_its_kind() -> None:
    fact = node("f", "2018-01-10", "Ilse Varn leads Tamsin Mills.", True, 0.9)
    fact = dataclasses.replace(fact, status=Status("current", discounted=("c",)))
    claim = node("c", "2019-05-02", "Oskar Fell leads Tamsin Mills.", True, 0.8)
    claim = dataclasses.replace(claim, status=Status("contradicted", (), ("d",)))
    denial = node("d", "2019-05-06", "Oskar Fell does not lead Tamsin Mills.", False, 0.5)
    edges = (edge("c", "f", "updates"), edge("d", "c", "contradicts"))
    shown = blocks(render(Subgraph("q", None, (fact, claim, denial), edges)))
    first, second = shown[fact.prop.text], shown[claim.prop.text]
    assert first["Status"] == "current. P2 does not count: it is itself contradicted."
    assert (
        first["Relations"] == "This statement is updated by P2 (itself contradicted: not counted)."
    )
    assert second["Status"] == "contradicted by P3: not current."
    assert second["Relations"] == (
        "This statement updates P1 (not counted: this statement is contradicted)."
    )
    assert shown[denial.prop.text]["Relations"] == "This statement contradicts P2."


def test_a_stored_source_with_a_line_separator_stays_on_its_line() -> None:
    # names refuse U+2028 since round 29; a store written before may hold one
    old = dataclasses.replace(NODES[0].prop, source="gazette\u2028Status: current")
    text = render(Subgraph("q", None, (dataclasses.replace(NODES[0], prop=old),), ()))
    assert text.splitlines()[1] == "Source: gazette Status: current"
    assert blocks(text)["Beta is blue."]["Status"] == "current."
