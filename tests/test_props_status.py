"""Status as of a date, computed once: refuted sources, chains of refutations, as-of inclusive,
and the rendered text agreeing with the status for every node of every rendered subgraph."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from rendered import VOID, blocks, relations
from test_props_world import INDEX, ctx  # noqa: F401 - fixtures

from bench.props_worlds import GoldClassifier, World, load_worlds
from graphmem.config import Settings
from graphmem.props import PropsMemory, add_propositions, render_detail, retrieve, subgraph
from graphmem.props.model import proposition_id
from graphmem.props.retrieve import Node, Subgraph
from graphmem.props.status import Status
from graphmem.services import open_props
from graphmem.store import Store

# a fact, a false official claim that updates it, the claim's refutation, and (later) a
# statement that the refutation was itself wrong
FACT = ("Ilse Varn is the chief executive of Tamsin Mills.", "2018-01-10")
CLAIM = ("The trade ministry said Oskar Fell is the chief executive of Tamsin Mills.", "2019-05-02")
DENIAL = (
    "Tamsin Mills said the ministry was wrong: Oskar Fell is not its chief executive.",
    "2019-05-06",
)
REVERSAL = (
    "Tamsin Mills admitted its denial was false: Oskar Fell leads Tamsin Mills.",
    "2020-02-01",
)
QUESTION = "Who is the chief executive of Tamsin Mills?"


def _world() -> World:
    keys = ("fact", "claim", "denial", "reversal")
    items = zip(keys, (FACT, CLAIM, DENIAL, REVERSAL), strict=True)
    props = tuple({"key": k, "date": d, "source": None, "text": t} for k, (t, d) in items)
    gold = {
        ("claim", "fact"): "updates",
        ("denial", "claim"): "contradicts",
        ("reversal", "denial"): "contradicts",
        ("reversal", "claim"): "supports",
    }
    return World(props, gold, ())


@pytest.fixture
def chain(store: Store, tmp_path: Path) -> Iterator[PropsMemory]:
    """The fact, claim, denial and reversal, related by their gold labels."""
    world = _world()
    memory = open_props(Settings(home=tmp_path), store, llm=None, classifier=GoldClassifier(world))
    add_propositions(memory, world.items())
    yield memory
    memory.close()


def pid(item: tuple[str, str]) -> str:
    return proposition_id(*item)


def test_a_refuted_claim_stops_superseding_and_the_text_says_so(chain: PropsMemory) -> None:
    before = subgraph(chain, QUESTION, as_of="2019-05-03")
    assert before.node(pid(FACT)).status == Status("updated", (pid(CLAIM),))
    after = subgraph(chain, QUESTION, as_of="2019-12-31")
    assert after.node(pid(CLAIM)).status == Status("contradicted", (), (pid(DENIAL),))
    fact = after.node(pid(FACT)).status
    assert fact == Status("current", discounted=(pid(CLAIM),))
    shown = blocks(render_detail(after).text)
    assert re.fullmatch(
        r"current\. P\d+ does not count: it is itself contradicted\.", shown[FACT[0]]["Status"]
    )
    claim = shown[CLAIM[0]]["label"]
    assert shown[FACT[0]]["Relations"] == f"This statement is updated by {claim}{VOID}."
    assert shown[CLAIM[0]]["Status"].startswith("contradicted by ")
    assert "(not counted: this statement is contradicted)" in shown[CLAIM[0]]["Relations"]


@pytest.mark.parametrize("expand", [True, False])
def test_a_refuted_refutation_counts_no_more(chain: PropsMemory, expand: bool) -> None:
    # without expansion the sources are outside the subgraph: their chain is read apart
    graph = subgraph(chain, QUESTION, as_of="2020-06-01", k=1 if not expand else 10, expand=expand)
    if expand:
        assert graph.node(pid(DENIAL)).status.state == "contradicted"
        assert graph.node(pid(CLAIM)).status.state == "current"
    fact = graph.node(pid(FACT)).status
    assert (fact.state, fact.updated_by, fact.discounted) == ("updated", (pid(CLAIM),), ())


def test_as_of_is_inclusive(chain: PropsMemory) -> None:
    day = DENIAL[1]
    graph = subgraph(chain, DENIAL[0], as_of=day, k=1, expand=False)
    assert [n.prop.id for n in graph.anchors] == [pid(DENIAL)], "dated on the day: an anchor"
    assert subgraph(chain, QUESTION, as_of=day).node(pid(CLAIM)).status.state == "contradicted"
    day_before = subgraph(chain, QUESTION, as_of="2019-05-05")
    assert pid(DENIAL) not in {n.prop.id for n in day_before.nodes}
    assert day_before.node(pid(CLAIM)).status.state == "current"


def _refs(part: str) -> tuple[set[str], int]:
    """P-labels and the count of propositions not shown in a Status clause."""
    hidden = re.search(r"(\d+) later propositions? not shown", part)
    return set(re.findall(r"P\d+", part)), int(hidden.group(1)) if hidden else 0


def _expected(
    ids: tuple[str, ...], labels: dict[str, str], unlisted: int = 0
) -> tuple[set[str], int]:
    return {labels[i] for i in ids if i in labels}, sum(i not in labels for i in ids) + unlisted


def check_agrees(graph: Subgraph, node: Node, fields: dict[str, str], labels: dict) -> None:
    """One block says what the node's status says, and names the node's source."""
    status = node.status
    assert fields.get("Source") == node.prop.source
    found = re.fullmatch(
        r"(.+?\.)(?: (.+) (?:does not count: it is|do not count: each is) itself "
        r"contradicted\.)?",
        fields["Status"],
    )
    assert found is not None, fields["Status"]
    main, void = found.group(1), found.group(2) or ""
    if status.state == "current":
        assert main == "current."
    else:
        tail = ": no longer current." if status.updated_by else ": not current."
        assert main.endswith(tail)
        body = main.removesuffix(tail)
        updated, _, contradicted = body.partition("contradicted by ")
        assert _refs(updated) == _expected(status.updated_by, labels, status.updated_unlisted)
        assert _refs(contradicted) == _expected(
            status.contradicted_by, labels, status.contradicted_unlisted
        )
        assert body.startswith("updated by" if status.updated_by else "contradicted by")
    assert _refs(void) == _expected(status.discounted, labels)
    counted = {*status.updated_by, *status.contradicted_by}
    # every member whose change edge counts is named by the status, not counted as not shown
    for edge in graph.edges:
        if edge.dst == node.prop.id and edge.kind in _VERBS:
            assert (edge.src in counted) != graph.node(edge.src).status.refuted, edge
    assert relations(fields.get("Relations", "")) == _sentences(graph, node, labels, counted)


_VERBS = {"updates": "is updated by", "contradicts": "is contradicted by"}


def _sentences(graph: Subgraph, node: Node, labels: dict, counted: set[str]) -> set:
    """The relation sentences a block owes: every edge it gives; every edge it receives but
    those its Status line counts, marked when their source does not count."""
    pid, out = node.prop.id, set()
    for edge in graph.edges:
        if edge.src == pid:
            refuted = node.status.refuted and edge.kind != "supports"
            out.add((edge.kind, labels[edge.dst], "refuted" if refuted else ""))
        elif edge.dst == pid and edge.src not in counted:
            void = "void" if edge.src in node.status.discounted else ""
            out.add((_VERBS.get(edge.kind, "is supported by"), labels[edge.src], void))
    return out


WORLDS = load_worlds(INDEX)


@pytest.mark.parametrize("named", WORLDS, ids=[w.name for w in WORLDS])
def test_status_and_text_agree_in_every_rendered_subgraph(ctx: PropsMemory, named) -> None:  # noqa: F811
    world = named.world
    add_propositions(ctx, world.items())  # offline classifier
    checked = 0
    for q in world.questions:
        graph = subgraph(ctx, q.question, as_of=q.date, k=10)
        rendered = render_detail(graph)
        shown = blocks(rendered.text)
        assert len(shown) == len(graph.nodes)
        for node in graph.nodes:
            fields = shown[node.prop.text]
            assert fields["label"] == rendered.labels[node.prop.id]
            check_agrees(graph, node, fields, rendered.labels)
            checked += 1
    assert checked >= 10 * len(world.questions) // 2


STATUS_QUERY = """query($q: String!, $asOf: Date) {
  subgraph(question: $q, asOf: $asOf, k: 10) {
    nodes { id text source status updatedBy updatedByCount contradictedBy contradictedByCount }
    context } }"""
ADD = """mutation($items: [PropositionInput!]!) {
  addPropositions(propositions: $items) { added } }"""


def test_graphql_status_is_what_the_context_says(gql) -> None:
    items = [{"text": t, "date": d, "source": "gazette"} for t, d in (FACT, CLAIM, DENIAL)]
    assert gql(ADD, items=items)["data"]["addPropositions"]["added"] == 3
    for as_of in ("2019-05-03", "2019-12-31"):
        data = gql(STATUS_QUERY, q=QUESTION, asOf=as_of)["data"]["subgraph"]
        shown = blocks(data["context"])
        label = {n["id"]: shown[n["text"]]["label"] for n in data["nodes"]}
        for n in data["nodes"]:
            block = shown[n["text"]]
            assert block["Source"] == n["source"] == "gazette"
            state, status = block["Status"], n["status"].lower()  # the enum's name: CURRENT...
            assert state.startswith("current." if status == "current" else f"{status} by ")
            for other in n["updatedBy"] + n["contradictedBy"]:
                assert label[other] in state
            assert n["updatedByCount"] == len(n["updatedBy"])  # few edges: all listed
            assert n["contradictedByCount"] == len(n["contradictedBy"])


FACTS = [
    (f"Quillmere Foundry runs {3 + i} furnaces in Brackwater.", f"{2010 + i}-01-01")
    for i in range(11)
]


def test_a_status_names_every_member_past_the_cap(store: Store, tmp_path: Path) -> None:
    # the nine newest update the second oldest (a neighbour of theirs), which updates the oldest
    keys = [f"f{i}" for i in range(len(FACTS))]
    props = tuple(
        {"key": k, "date": d, "source": None, "text": t}
        for k, (t, d) in zip(keys, FACTS, strict=True)
    )
    gold = {("f1", "f0"): "updates", **{(k, "f1"): "updates" for k in keys[2:]}}
    world = World(props, gold, ())
    memory = open_props(Settings(home=tmp_path), store, llm=None, classifier=GoldClassifier(world))
    try:
        add_propositions(memory, world.items())
        ids = [proposition_id(*f) for f in FACTS]
        anchors = [ids[0], *ids[2:]]  # ten anchors; the second oldest joins as their neighbour
        asked = retrieve._Asked("furnaces", None, None, retrieve.NO_LIMIT_TS)
        graph = retrieve._collect(memory, asked, anchors, [], True)
        node = graph.node(ids[1])
        assert not node.is_anchor
        assert len(anchors) - 1 > retrieve.INCOMING, "the premise: more updates than are read"
        assert set(node.status.updated_by) == set(ids[2:]) and node.status.updated_unlisted == 0
        text = render_detail(graph)
        block = blocks(text.text)[FACTS[1][0]]
        assert "not shown" not in block["Status"]
        check_agrees(graph, node, block, text.labels)
    finally:
        memory.close()
