"""Question → anchor-plus-neighbour subgraph of propositions, as of a date.

1. Anchors: the k propositions dated on or before `as_of` most similar to the question (FAISS
   as-of filter), or the k best of a larger pool under a `ranker`.
2. Neighbours: propositions dated on or before `as_of` with a relation edge INTO an anchor
   (newer statements that update, contradict or support it).
3. Edges: every relation among the collected propositions.
4. Status of each proposition as of the date (graphmem/props/status.py): `updated` or
   `contradicted` (and by which) when an UPDATES / CONTRADICTS edge comes from a proposition
   dated on or before `as_of` that is not itself refuted by then; otherwise `current`.
Two reads do it all: anchors with their incoming edges, then the new neighbours with theirs
(plus one when a source outside the subgraph is contradicted: its chain of contradictions).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.errors import InvalidInput, NotFound
from graphmem.props import relate
from graphmem.props.memory import PropsMemory
from graphmem.props.model import Proposition, Relation, checked_date, checked_text
from graphmem.props.relate import LABEL, fetch_props
from graphmem.props.status import Status, statuses

MAX_K = 200
# the search returns this many more hits than anchors: they score the neighbours found among
# them; a neighbour outside them is less similar to the question than all of them
POOL_EXTRA = 90
NO_LIMIT_TS = 1 << 62  # "as of the end of time" when no date is given


@dataclass(frozen=True)
class Node:
    """A proposition in a subgraph."""

    prop: Proposition
    is_anchor: bool
    # cosine similarity to the question; None for a neighbour outside the search pool, which
    # is less similar than every pool member (see POOL_EXTRA) and not worth a read to score
    score: float | None
    status: Status


@dataclass(frozen=True)
class Subgraph:
    """Anchors, their neighbours and the relations among them, as of a date."""

    question: str
    as_of: str | None
    nodes: tuple[Node, ...]  # ascending date, then id
    edges: tuple[Relation, ...]  # sorted by (src, dst)

    def node(self, prop_id: str) -> Node:
        """The node of a proposition id."""
        for node in self.nodes:
            if node.prop.id == prop_id:
                return node
        raise NotFound(f"proposition {prop_id} is not in this subgraph")

    @property
    def anchors(self) -> tuple[Node, ...]:
        """The anchor nodes, best score first."""
        return tuple(sorted((n for n in self.nodes if n.is_anchor), key=lambda n: -(n.score or 0)))


@dataclass(frozen=True)
class Scored:
    """An anchor candidate handed to a ranker: the proposition, its similarity, recall stats."""

    prop: Proposition
    similarity: float
    recall_count: int
    g: float
    last_recalled_at: int | None
    created_at: int | None


Ranker = Callable[[Sequence[Scored]], Sequence[float]]  # higher ranks first
RANK_BY = ("similarity", "recall")


def anchor_ranker(
    ctx: PropsMemory,
    rank_by: str = "similarity",
    now: Any = None,
    as_of: str | None = None,
    fields: tuple[str, str] = ("rank_by", "now"),
) -> Ranker | None:
    """How anchors are chosen: None for plain similarity, or their recall probability p.

    "recall" ranks the search pool by p at `now` (default: the as-of date, else the current
    time) with the timeline's settings, so a proposition recalled often and lately can
    outrank a more similar one. `fields` names the two arguments in error messages.
    """
    if rank_by not in RANK_BY:
        raise InvalidInput(fields[0], f"must be one of {', '.join(RANK_BY)}")
    if rank_by == "similarity":
        if now is not None:
            raise InvalidInput(fields[1], "applies only when ranking by recall")
        return None
    from graphmem.timeline.memory import checked_now
    from graphmem.timeline.recall import ranker

    when = now if now is not None else as_of if as_of is not None else ctx.now()
    return ranker(checked_now(when, fields[1]), ctx.settings.timeline_config())


def subgraph(
    ctx: PropsMemory,
    question: str,
    as_of: str | None = None,
    k: int = 10,
    expand: bool = True,
    refine: bool = False,
    ranker: Ranker | None = None,
) -> Subgraph:
    """The subgraph answering `question` as of `as_of` ('YYYY-MM-DD', inclusive)."""
    text = checked_text(question, "question")
    vector = ctx.embedder.encode_one(text)
    return subgraph_for_vector(ctx, vector, text, as_of, k, expand, refine, ranker)


def subgraph_for_vector(
    ctx: PropsMemory,
    vector: np.ndarray,
    question: str = "",
    as_of: str | None = None,
    k: int = 10,
    expand: bool = True,
    refine: bool = False,
    ranker: Ranker | None = None,
) -> Subgraph:
    """`subgraph` for an already embedded question."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise InvalidInput("k", f"must be an integer from 1 to {MAX_K}")
    day, as_of_ts = (None, NO_LIMIT_TS) if as_of is None else checked_date(as_of, "as_of")
    pool = max(5 * k, k + POOL_EXTRA)
    hits = ctx.vectors.search(LABEL, vector, pool, as_of_ts=None if day is None else as_of_ts)
    scores = {h.node_id: h.score for h in hits}
    anchors = _choose(ctx, hits, k, ranker)
    graph = _collect(ctx, vector, question, day, as_of_ts, anchors, scores, expand)
    if refine and graph.edges:
        # re-judge the returned edges with the stronger model, then collect again
        report = relate.refine(ctx, [e.id for e in graph.edges if not e.refined])
        if report.refined:
            graph = _collect(ctx, vector, question, day, as_of_ts, anchors, scores, expand)
    return graph


def _choose(ctx: PropsMemory, hits: list, k: int, ranker: Ranker | None) -> list[str]:
    if ranker is None:
        return [h.node_id for h in hits[:k]]
    rows = {r["id"]: r for r in ctx.store.read("props.fetch", ids=[h.node_id for h in hits])}
    pool = [
        Scored(Proposition.from_row(rows[h.node_id]), h.score,
               int(rows[h.node_id].get("recall_count") or 0),
               float(rows[h.node_id].get("g") or 1.0), rows[h.node_id].get("last_recalled_at"),
               rows[h.node_id].get("created_at"))
        for h in hits if h.node_id in rows
    ]  # fmt: skip
    ranks = list(ranker(pool))
    if len(ranks) != len(pool):
        raise InvalidInput("ranker", f"returned {len(ranks)} scores for {len(pool)} candidates")
    order = sorted(range(len(pool)), key=lambda i: (-ranks[i], pool[i].prop.id))
    return [pool[i].prop.id for i in order[:k]]


def _collect(
    ctx: PropsMemory,
    vector: np.ndarray,
    question: str,
    day: str | None,
    as_of_ts: int,
    anchors: list[str],
    scores: dict[str, float],
    expand: bool,
) -> Subgraph:
    read = "props.with_incoming"
    rows = ctx.store.read(read, ids=anchors, as_of=as_of_ts, members=None) if anchors else []
    members = {row["id"]: row for row in rows}
    if expand:
        extra = sorted({e["src"] for row in rows for e in row["incoming"]} - members.keys())
        if extra:
            everyone = sorted([*members, *extra])
            for row in ctx.store.read(read, ids=extra, as_of=as_of_ts, members=everyone):
                members[row["id"]] = row
    anchor_set = set(anchors)
    states = statuses(ctx.store, members.values(), as_of_ts)
    nodes = [
        Node(Proposition.from_row(row), pid in anchor_set, scores.get(pid), states[pid])
        for pid, row in members.items()
    ]
    nodes.sort(key=lambda n: (n.prop.date, n.prop.id))
    edges = sorted(
        (
            _relation(e, row["id"])
            for row in members.values()
            for e in row["incoming"]
            if e["src"] in members
        ),
        key=lambda r: (r.src, r.dst),
    )
    return Subgraph(question, day, tuple(nodes), tuple(edges))


def _relation(edge: dict[str, Any], dst: str) -> Relation:
    return Relation.from_row({**edge, "dst": dst})


def get_propositions(ctx: PropsMemory, ids: Sequence[str]) -> list[Proposition]:
    """Stored propositions by id, in the order asked (unknown ids are left out)."""
    if isinstance(ids, str | bytes) or not isinstance(ids, Sequence):
        raise InvalidInput("ids", "must be a list of proposition ids")
    found = fetch_props(ctx, list(ids))
    return [found[i] for i in ids if i in found]


def counts(ctx: PropsMemory) -> dict[str, int]:
    """How many propositions, documents, STATES edges and relation edges are stored."""
    rows = ctx.store.read("props.counts")
    return {k: int(v) for k, v in rows[0].items()} if rows else {}


def list_relations(ctx: PropsMemory, offset: int = 0, limit: int = 1000) -> list[Relation]:
    """Relation edges ordered by id, a page at a time."""
    for name, value in (("offset", offset), ("limit", limit)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidInput(name, "must be a non-negative integer")
    rows = ctx.store.read("props.relations", offset=offset, limit=limit)
    return [Relation.from_row(row) for row in rows]
