"""Retrieval: as-of anchors, neighbours, status as of a date, refinement and the ranker hook."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from test_props_world import ctx, gold_ctx, world  # noqa: F401 - fixtures

from bench.props_worlds import World
from graphmem.config import Settings
from graphmem.errors import InvalidInput, LLMNotConfigured
from graphmem.props import (
    PropsMemory,
    add_propositions,
    get_propositions,
    list_relations,
    refine,
    subgraph,
)
from graphmem.props.classify import Judgement
from graphmem.props.model import proposition_id, relation_id
from graphmem.props.retrieve import Subgraph, subgraph_for_vector
from graphmem.services import open_props
from graphmem.store import Store


def key_ids(world: World) -> dict[str, str]:  # noqa: F811
    return {key: pid for pid, key in world.keys.items()}


def check_invariants(graph: Subgraph, as_of: str, k: int, ctx: PropsMemory) -> None:  # noqa: F811
    ids = {n.prop.id for n in graph.nodes}
    anchors = {n.prop.id for n in graph.nodes if n.is_anchor}
    assert len(anchors) <= k
    assert all(n.prop.date <= as_of for n in graph.nodes), "nothing dated after as_of"
    for n in graph.nodes:
        assert n.is_anchor == (n.via == "search")
        if n.via == "relation":  # joined by an edge INTO an anchor
            assert any(e.src == n.prop.id and e.dst in anchors for e in graph.edges)
    assert all(e.src in ids and e.dst in ids for e in graph.edges)
    by = {i for n in graph.nodes for i in n.status.updated_by + n.status.contradicted_by}
    assert all(p.date <= as_of for p in get_propositions(ctx, sorted(by)))
    assert [(n.prop.date, n.prop.id) for n in graph.nodes] == sorted(
        (n.prop.date, n.prop.id) for n in graph.nodes
    )


def test_as_of_never_returns_later_propositions(gold_ctx: PropsMemory, world: World) -> None:  # noqa: F811
    questions = sorted({q.question for q in world.questions})[:6]
    qvecs = gold_ctx.embedder.encode(questions)
    texts = [p["text"] for p in world.propositions]
    pvecs = gold_ctx.embedder.encode(texts)
    dates = np.array([p["date"] for p in world.propositions])
    rng = np.random.default_rng(7)
    start = dt.date(2012, 1, 1)
    days = sorted(str(start + dt.timedelta(int(d))) for d in rng.integers(0, 4400, 12))
    k = 8
    for as_of in days:
        for question, qvec in zip(questions, qvecs, strict=True):
            graph = subgraph_for_vector(gold_ctx, qvec, question, as_of, k=k, channels="dense")
            check_invariants(graph, as_of, k, gold_ctx)
            check_invariants(
                subgraph_for_vector(gold_ctx, qvec, question, as_of, k=k), as_of, k, gold_ctx
            )
            # dense: the anchors are exactly the top k among propositions dated <= as_of
            allowed = np.flatnonzero(dates <= as_of)
            sims = pvecs[allowed] @ qvec
            want = {proposition_id(texts[i], dates[i]) for i in allowed[np.argsort(-sims)[:k]]}
            got = {n.prop.id for n in graph.nodes if n.is_anchor}
            assert len(got) == min(k, len(allowed))
            if len(allowed) > k:  # ties at the cut-off aside, the same set
                cut = np.sort(sims)[-k]
                assert (
                    {
                        proposition_id(texts[i], dates[i])
                        for i in allowed
                        if pvecs[i] @ qvec > cut + 1e-4
                    }
                    <= got
                    <= want
                    | {
                        proposition_id(texts[i], dates[i])
                        for i in allowed
                        if abs(pvecs[i] @ qvec - cut) <= 1e-4
                    }
                )
            else:
                assert got == want


def test_status_as_of_a_date(gold_ctx: PropsMemory, world: World) -> None:  # noqa: F811
    ids = key_ids(world)

    def status(key: str, as_of: str, question: str) -> tuple:
        graph = subgraph(gold_ctx, question, as_of=as_of, k=10)
        node = graph.node(ids[key])
        keys = {pid: key for key, pid in ids.items()}
        return (
            node.status.state,
            sorted(keys[i] for i in node.status.updated_by),
            sorted(keys[i] for i in node.status.contradicted_by),
        )

    ceo = "Who is the chief executive of Quillon Dynamics?"
    assert status("qc1", "2017-01-01", ceo) == ("current", [], [])
    assert status("qc1", "2019-03-20", ceo) == ("updated", ["qc3"], [])
    assert status("qc1", "2020-01-01", ceo) == ("updated", ["qc3", "qc4"], [])
    assert status("qc3", "2020-01-01", ceo) == ("current", [], [])
    assert status("qc3", "2024-01-01", ceo) == ("updated", ["qc5", "qc6"], [])
    coach = "Who is the head coach of the Halvek Ravens?"
    # a forum post (a hedged source) never updates the coach; the club denies it a day later
    assert status("rv1", "2019-10-10", coach) == ("current", [], [])
    assert status("rv5", "2019-10-11", coach) == ("contradicted", [], ["rv6"])
    assert status("rv1", "2019-10-11", coach) == ("current", [], [])
    assert status("rv1", "2021-06-01", coach) == ("updated", ["rv7"], [])


def test_expand_adds_newer_neighbours_of_anchors(gold_ctx: PropsMemory, world: World) -> None:  # noqa: F811
    question = "What is the population of Port Kelvary?"
    plain = subgraph(gold_ctx, question, as_of="2022-01-01", k=1, expand=False)
    (anchor,) = plain.nodes
    assert anchor.is_anchor and plain.edges == ()
    full = subgraph(gold_ctx, question, as_of="2022-01-01", k=1)
    neighbours = [n for n in full.nodes if not n.is_anchor]
    assert neighbours and full.node(anchor.prop.id).is_anchor
    for n in neighbours:
        assert any(e.src == n.prop.id and e.dst == anchor.prop.id for e in full.edges)
        assert n.prop.date <= "2022-01-01" and n.prop.ts > anchor.prop.ts


def test_bad_arguments_name_the_field(ctx: PropsMemory) -> None:  # noqa: F811
    for kwargs, field in (
        ({"question": " "}, "question"),
        ({"question": "q", "k": 0}, "k"),
        ({"question": "q", "as_of": "2020-1-1"}, "as_of"),
    ):
        with pytest.raises(InvalidInput) as info:
            subgraph(ctx, **kwargs)
        assert info.value.field == field
    assert subgraph(ctx, "anything").nodes == ()  # an empty memory


def test_ranker_hook_orders_the_anchors(gold_ctx: PropsMemory) -> None:  # noqa: F811
    seen = []

    def oldest_first(pool):
        seen.extend(pool)
        return [-s.prop.ts for s in pool]

    question = "Who is the mayor of Halvek?"
    graph = subgraph(gold_ctx, question, k=2, expand=False, ranker=oldest_first)
    assert len(seen) > 2 and all(s.recall_count == 0 and s.g == 1.0 for s in seen)
    oldest = sorted(seen, key=lambda s: (s.prop.ts, s.prop.id))[:2]
    assert {n.prop.id for n in graph.nodes} == {s.prop.id for s in oldest}
    assert all(
        n.score == next(s.similarity for s in seen if s.prop.id == n.prop.id) for n in graph.nodes
    )


class Supports:
    """Ingestion classifier for the refinement tests: every pair supports."""

    name = "fixed"

    def classify(self, new, candidates):
        return [Judgement(i, "supports", 0.5) for i in range(len(candidates))]


@pytest.fixture
def strong_ctx(store: Store, tmp_path: Path, llm_settings: Settings) -> Iterator[PropsMemory]:
    settings = llm_settings.with_overrides(home=tmp_path, llm_strong_model="strong-model")
    memory = open_props(settings, store, classifier=Supports())
    yield memory
    memory.close()


P1 = {"text": "Marta Velkova is the chief executive of Quillon Dynamics.", "date": "2015-03-02"}
P2 = {"text": "Idris Okonjo is the chief executive of Quillon Dynamics.", "date": "2019-03-18"}
P3 = {"text": "Quillon Dynamics employs 2,050 people.", "date": "2020-02-10"}
UPDATES_FIRST = {
    "content": json.dumps({"judgements": [{"index": 1, "label": "updates", "confidence": 0.9}]})
}


def pid(item: dict) -> str:
    return proposition_id(item["text"], item["date"])


def test_refine_rejudges_with_the_strong_model(llm_server, strong_ctx: PropsMemory) -> None:
    add_propositions(strong_ctx, [P1, P2, P3])
    edges = list_relations(strong_ctx)
    assert sorted((e.src, e.dst) for e in edges) == sorted(
        [(pid(P2), pid(P1)), (pid(P3), pid(P1)), (pid(P3), pid(P2))]
    )
    # each call labels its first candidate `updates`; the ones left out are norel
    llm_server.script(UPDATES_FIRST, UPDATES_FIRST)
    report = refine(strong_ctx, [e.id for e in edges])
    assert (report.refined, report.changed, report.removed) == (3, 2, 1)
    assert [r["model"] for r in llm_server.requests] == ["strong-model"] * 2
    first_of_p3 = min(relation_id(pid(P3), pid(P1)), relation_id(pid(P3), pid(P2)))
    after = list_relations(strong_ctx)
    assert sorted(e.id for e in after) == sorted([relation_id(pid(P2), pid(P1)), first_of_p3])
    for e in after:
        assert (e.kind, e.confidence, e.model, e.refined) == ("updates", 0.9, "strong-model", True)
    assert refine(strong_ctx, [e.id for e in after]).refined == 0  # already refined: skipped
    assert len(llm_server.requests) == 2


def test_subgraph_can_refine_the_edges_it_returns(llm_server, strong_ctx: PropsMemory) -> None:
    add_propositions(strong_ctx, [P1, P2])
    llm_server.script(UPDATES_FIRST)
    graph = subgraph(strong_ctx, "Who runs Quillon Dynamics?", refine=True)
    (edge,) = graph.edges
    assert (edge.kind, edge.refined, edge.model) == ("updates", True, "strong-model")
    assert graph.node(pid(P1)).status.updated_by == (pid(P2),)
    again = subgraph(strong_ctx, "Who runs Quillon Dynamics?", refine=True)
    assert again.edges == graph.edges and len(llm_server.requests) == 1


class SkipsTheFirst:
    """A refining classifier that judges every candidate but the first."""

    name = "skips"

    def classify(self, new, candidates):
        return [Judgement(i, "updates", 0.9) for i in range(1, len(candidates))]


def test_refine_needs_a_judgement_of_every_edge(ctx: PropsMemory) -> None:  # noqa: F811
    ctx.classifier = Supports()
    add_propositions(ctx, [P1, P2, P3])
    before = list_relations(ctx)
    with pytest.raises(InvalidInput, match="must judge each candidate once: 1 given, 0 judgements"):
        refine(ctx, [e.id for e in before], classifier=SkipsTheFirst())
    assert list_relations(ctx) == before  # nothing written


def test_refine_without_an_llm_says_so(ctx: PropsMemory) -> None:  # noqa: F811
    ctx.classifier = Supports()
    add_propositions(ctx, [P1, P2])
    with pytest.raises(LLMNotConfigured):
        refine(ctx, [e.id for e in list_relations(ctx)])
    assert refine(ctx, []).refined == 0
