"""Question → anchor-plus-neighbour subgraph of propositions, as of a date.

1. Anchors: the k best propositions dated on or before `as_of` (inclusive) by hybrid search, a
   dense (FAISS) and a keyword (BM25) channel fused by reciprocal rank (graphmem/props/hybrid.py),
   or the k best of that pool under a `ranker`. `channels="dense"` or `"keyword"` uses one.
2. Neighbours: propositions dated on or before `as_of` with a relation edge INTO an anchor
   (newer statements that update, contradict or support it), at most NEIGHBOURS per anchor,
   the ones that change its status first (UPDATES / CONTRADICTS from a source not itself
   contradicted, then those from a contradicted source, then SUPPORTS), newest first, then
   the more similar to the question.
3. Document context: for each anchor, the SIBLINGS other propositions of the documents that
   state it (dated on or before `as_of`): the most similar to the question once what repeats
   the anchors (or the statements already chosen) is discounted. A sentence of an article
   often leaves out the name its neighbours carry ("The company named ... as its chief
   executive."), which neither the question's embedding nor its words can find.
4. Edges: relations among the collected propositions: every edge from a member known when it
   is read (the anchors when the anchors are read, all members when the others are; the
   neighbours' edges into anchors are read with the neighbours), and at most INCOMING of each
   kind (UPDATES, CONTRADICTS, SUPPORTS) from others, chosen in the same order: a proposition
   that dozens of newer statements relate to (a "hot" entity) costs about the same as any other.
5. Status of each proposition as of the date (graphmem/props/status.py): `updated` or
   `contradicted` (and by which) when an UPDATES / CONTRADICTS edge comes from a proposition
   dated on or before `as_of` that is not itself refuted by then; otherwise `current`. The
   bound keeps it exact: the edges read of each kind begin with those from sources nobody
   contradicts, which always count; `updated_by` and `contradicted_by` list at most INCOMING
   sources besides the members, and the rest from sources nobody contradicts are counted
   (Status.updated_unlisted, contradicted_unlisted).
Three reads do it all: anchors with their ranked incoming edges, their documents' other
propositions, then every added member with its own edges (plus one when a source outside the
subgraph is contradicted: its chain of contradictions).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.errors import InvalidInput, NotFound
from graphmem.props import relate
from graphmem.props.hybrid import FUSION, Candidate, Fusion, candidates, checked_channels
from graphmem.props.memory import PropsMemory
from graphmem.props.model import Proposition, Relation, checked_date, checked_text
from graphmem.props.relate import LABEL, fetch_props
from graphmem.props.status import Status, statuses
from graphmem.vectors.model import Hit

MAX_K = 200
# the search returns this many more hits than anchors: they score the neighbours found among
# them; a neighbour outside them is less similar to the question than all of them
POOL_EXTRA = 90
NO_LIMIT_TS = 1 << 62  # "as of the end of time" when no date is given
NEIGHBOURS = 3  # neighbours added per anchor
INCOMING = 8  # incoming relation edges of each kind read per proposition
SIBLINGS = 1  # propositions of an anchor's documents added per anchor
SIBLINGS_READ = 200  # of which at most this many (the newest) are read and scored per anchor
SIBLINGS_SCORED = 20  # and of those the most similar to the question are weighed for repeats
# how they are ranked (`_most_novel`): similarity to the question, less REPEAT_PENALTY times
# how far their similarity to the closest statement already shown exceeds REPEAT_FROM (the
# tuning half of bench/bench_retrieval.py: flat from 2 to 5 and from 0.4 to 0.5)
REPEAT_FROM = 0.5
REPEAT_PENALTY = 3.0
VIA = ("search", "relation", "document")  # how a node joined the subgraph


@dataclass(frozen=True)
class Node:
    """A proposition in a subgraph."""

    prop: Proposition
    is_anchor: bool
    # cosine similarity to the question; None for a neighbour outside the search pool, which
    # is less similar than every pool member (see POOL_EXTRA) and not worth a read to score
    score: float | None
    status: Status
    # anchors: 1-based rank in the fused search order (None for a neighbour) and the search
    # channels ("dense", "keyword") that found it
    rank: int | None = None
    channels: tuple[str, ...] = ()
    via: str = "search"  # one of VIA: an anchor, a relation into one, or one's document
    anchor: str | None = None  # a document node: the anchor whose document brought it


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
        """The anchor nodes, best first (by their rank in the search)."""
        anchors = (n for n in self.nodes if n.is_anchor)
        return tuple(sorted(anchors, key=lambda n: (n.rank or 0, -(n.score or 0), n.prop.id)))


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
    from graphmem.timeline.formula import TimelineConfig
    from graphmem.timeline.memory import checked_now
    from graphmem.timeline.recall import ranker

    when = now if now is not None else as_of if as_of is not None else ctx.now()
    return ranker(checked_now(when, fields[1]), TimelineConfig.from_settings(ctx.settings))


def subgraph(
    ctx: PropsMemory,
    question: str,
    as_of: str | None = None,
    k: int = 10,
    expand: bool = True,
    refine: bool = False,
    ranker: Ranker | None = None,
    channels: str = "hybrid",
) -> Subgraph:
    """The subgraph answering `question` as of `as_of` ('YYYY-MM-DD', inclusive).

    `channels`: how anchors are searched: "hybrid" (dense and keyword, fused), "dense" or
    "keyword".
    """
    text = checked_text(question, "question")
    checked_channels(channels)
    vector = ctx.embedder.encode_one(text)
    return subgraph_for_vector(ctx, vector, text, as_of, k, expand, refine, ranker, channels)


def subgraph_for_vector(
    ctx: PropsMemory,
    vector: np.ndarray,
    question: str = "",
    as_of: str | None = None,
    k: int = 10,
    expand: bool = True,
    refine: bool = False,
    ranker: Ranker | None = None,
    channels: str = "hybrid",
    fusion: Fusion = FUSION,
) -> Subgraph:
    """`subgraph` for an already embedded question (its text feeds the keyword channel).

    `fusion`: how the channels are fused (benchmarks compare settings).
    """
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise InvalidInput("k", f"must be an integer from 1 to {MAX_K}")
    checked_channels(channels)
    day, as_of_ts = (None, NO_LIMIT_TS) if as_of is None else checked_date(as_of, "as_of")
    pool = max(5 * k, k + POOL_EXTRA)
    found = candidates(
        ctx, vector, question, None if day is None else as_of_ts, pool, channels, fusion
    )
    anchors = _choose(ctx, found, k, ranker)
    asked = _Asked(question, vector, day, as_of_ts)
    graph = _collect(ctx, asked, anchors, found, expand)
    if refine and graph.edges:
        # re-judge the returned edges with the stronger model, then collect again
        report = relate.refine(ctx, [e.id for e in graph.edges if not e.refined])
        if report.refined:
            graph = _collect(ctx, asked, anchors, found, expand)
    return graph


@dataclass(frozen=True)
class _Asked:
    """The question, its embedding and its as-of date."""

    question: str
    vector: np.ndarray
    day: str | None
    as_of_ts: int


def _choose(ctx: PropsMemory, found: list[Candidate], k: int, ranker: Ranker | None) -> list[str]:
    """The anchors' ids, best first."""
    if ranker is None:
        return [c.id for c in found[:k]]
    rows = {r["id"]: r for r in ctx.store.read("props.fetch", ids=[c.id for c in found])}
    pool = [
        Scored(
            Proposition.from_row(rows[c.id]),
            c.similarity,
            int(rows[c.id].get("recall_count") or 0),
            float(rows[c.id].get("g") or 1.0),
            rows[c.id].get("last_recalled_at"),
            rows[c.id].get("created_at"),
        )
        for c in found
        if c.id in rows
    ]
    ranks = list(ranker(pool))
    if len(ranks) != len(pool):
        raise InvalidInput("ranker", f"returned {len(ranks)} scores for {len(pool)} candidates")
    order = sorted(range(len(pool)), key=lambda i: (-ranks[i], pool[i].prop.id))
    return [pool[i].prop.id for i in order[:k]]


def _collect(
    ctx: PropsMemory, asked: _Asked, anchors: list[str], found: list[Candidate], expand: bool
) -> Subgraph:
    by_id = {c.id: c for c in found}
    as_of_ts = asked.as_of_ts
    rows = _with_incoming(ctx, anchors, as_of_ts, anchors, True, []) if anchors else []
    members = {row["id"]: row for row in rows}
    via = dict.fromkeys(members, "search")
    context: dict[str, _Brought] = {}
    if expand and anchors:
        via.update(dict.fromkeys(_neighbours(rows, members.keys(), by_id), "relation"))
        anchor_vids = [by_id[pid].vid for pid in anchors if pid in by_id]
        context = _siblings(ctx, asked, anchors, sorted(via), anchor_vids)
        via.update(dict.fromkeys(context, "document"))
        extra = sorted(via.keys() - members.keys())
        if extra:
            for row in _with_incoming(ctx, extra, as_of_ts, sorted(via), False, anchors):
                members[row["id"]] = row
    rank = {pid: i for i, pid in enumerate(anchors, start=1)}
    states = statuses(ctx.store, members.values(), as_of_ts)
    nodes = []
    for pid, row in members.items():
        hit = by_id.get(pid)
        brought = context.get(pid)
        score = hit.similarity if hit else brought.score if brought else None
        nodes.append(
            Node(
                Proposition.from_row(row),
                pid in rank,
                score,
                states[pid],
                rank.get(pid),
                hit.channels if hit and pid in rank else (),
                via[pid],
                brought.anchor if brought else None,
            )
        )
    nodes.sort(key=lambda n: (n.prop.date, n.prop.id))
    edges = {}
    for row in members.values():
        for e in row["incoming"]:
            if e["src"] in members:
                edges[e["id"]] = _relation(e, row["id"])
        for e in row["outgoing"]:
            if e["dst"] in members:
                edges[e["id"]] = Relation.from_row({**e, "src": row["id"]})
    ordered = sorted(edges.values(), key=lambda r: (r.src, r.dst))
    return Subgraph(asked.question, asked.day, tuple(nodes), tuple(ordered))


@dataclass(frozen=True)
class _Brought:
    """A document statement: its similarity to the question, the anchor it was chosen for."""

    score: float
    anchor: str


def _siblings(
    ctx: PropsMemory, asked: _Asked, anchors: list[str], taken: list[str], anchor_vids: list[int]
) -> dict[str, _Brought]:
    """Up to SIBLINGS propositions of each anchor's documents, not in `taken`, best anchors
    choosing first, repeats discounted (`_most_novel`)."""
    if SIBLINGS < 1:
        return {}
    ranked = _ranked_siblings(ctx, asked, anchors, taken)
    vectors = ctx.vectors.vectors(LABEL, anchor_vids)
    shown = np.zeros((len(vectors) + len(anchors) * SIBLINGS, ctx.vectors.dim), dtype=np.float32)
    count = len(vectors)
    if vectors:
        shown[:count] = np.stack(list(vectors.values()))
    chosen: dict[str, _Brought] = {}
    for pid in anchors:
        for _ in range(SIBLINGS):
            # the SIBLINGS_SCORED most similar that no better anchor chose, read as needed
            fresh = [h for h in ranked[pid] if h.node_id not in chosen][:SIBLINGS_SCORED]
            missing = [h.vid for h in fresh if h.vid not in vectors]
            if missing:
                vectors |= ctx.vectors.vectors(LABEL, missing)
            fresh = [h for h in fresh if h.vid in vectors]
            if not fresh:
                break
            best = _most_novel(fresh, vectors, shown[:count])
            chosen[best.node_id] = _Brought(best.score, pid)
            shown[count] = vectors[best.vid]
            count += 1
    return chosen


def _ranked_siblings(
    ctx: PropsMemory, asked: _Asked, anchors: list[str], taken: list[str]
) -> dict[str, list[Hit]]:
    """Each anchor's propositions of its documents (of the SIBLINGS_READ newest, none in
    `taken`), most similar to the question first."""
    rows = ctx.store.read(
        "retrieve.siblings", ids=anchors, as_of=asked.as_of_ts, members=taken, cap=SIBLINGS_READ
    )
    of_anchor = {row["id"]: row["vids"] for row in rows}
    vids = sorted({vid for row in rows for vid in row["vids"]})
    # unit vectors: the search's score is the cosine; a vid not yet in the index is left out
    found = ctx.vectors.search(LABEL, asked.vector, len(vids), among=vids) if vids else []
    hits = {h.vid: h for h in found}
    return {
        pid: sorted(
            (hits[v] for v in of_anchor.get(pid, ()) if v in hits),
            key=lambda h: (-h.score, h.node_id),
        )
        for pid in anchors
    }


def _most_novel(fresh: list[Hit], vectors: dict[int, np.ndarray], shown: np.ndarray) -> Hit:
    """The hit most similar to the question once repeats are discounted: an article's
    sentences that restate what its anchor says (its name, its topic) are close to the
    question too, but the one that adds something (the new chief executive of "the company")
    is what the anchor lacks. Only similarity to what is shown above REPEAT_FROM counts
    against a statement: maximal marginal relevance's linear trade-off (Carbonell and
    Goldstein, 1998) let a byline, like nothing shown and like no question, beat the answer."""
    score = np.array([h.score for h in fresh])
    if len(shown):
        candidates = np.stack([vectors[h.vid] for h in fresh])
        repeats = (candidates @ shown.T).max(axis=1)
        score = score - REPEAT_PENALTY * np.maximum(0.0, repeats - REPEAT_FROM)
    best = min(range(len(fresh)), key=lambda i: (-score[i], fresh[i].node_id))
    return fresh[best]


def _with_incoming(
    ctx: PropsMemory,
    ids: list[str],
    as_of_ts: int,
    members: list[str],
    supporters: bool,
    targets: list[str],
) -> list[dict[str, Any]]:
    """Each of `ids` with its INCOMING best-ranked incoming edges and its edges into `targets`.

    `supporters`: SUPPORTS edges from outside `members` count too (anchors: their supporters
    may become neighbours).
    """
    return ctx.store.read(
        "props.with_incoming",
        ids=ids,
        as_of=as_of_ts,
        members=members,
        supporters=supporters,
        cap=INCOMING,
        targets=targets,
    )


def _neighbours(
    rows: list[dict[str, Any]], members: Iterable[str], by_id: dict[str, Candidate]
) -> list[str]:
    """Up to NEIGHBOURS new sources of edges into each anchor, in edge rank order (status
    first, then newest, then the more similar to the question)."""
    taken = set(members)
    extra: list[str] = []
    for row in rows:
        ranked = sorted(
            row["incoming"],
            key=lambda e: (e["rank"], -e["src_ts"], -_similarity(by_id, e["src"]), e["src"]),
        )
        fresh = [e["src"] for e in ranked if e["src"] not in taken][:NEIGHBOURS]
        taken.update(fresh)
        extra += fresh
    return sorted(extra)


def _similarity(by_id: dict[str, Candidate], pid: str) -> float:
    hit = by_id.get(pid)
    return hit.similarity if hit else -1.0


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
