"""Relating new propositions to earlier ones, and refining relation edges with a stronger model.

Candidates. For each new proposition N, the CANDIDATES most similar propositions that count as
earlier than N: stored propositions dated on or before N's date (FAISS as-of filter), plus
propositions of the same ingestion call that come before N (calls are processed in date order,
then input order). A classifier labels each pair N → candidate; an edge always points from N
to the older one.

Same date. Two propositions with the same date are ordered by ingestion: the one stored later
(or later in the same call) is the source, so a pair is related in one direction only.

Back-fill. When N is dated before some stored propositions (documents ingested out of date
order), stored propositions dated strictly after N found among N's 2 × CANDIDATES most similar
are judged as the newer side too (L → N), so "newer → older" holds whatever the ingestion
order.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from graphmem import embcodec
from graphmem.errors import InvalidInput, LLMNotConfigured
from graphmem.props.classify import Candidate, Classifier, Judgement, LLMClassifier
from graphmem.props.memory import PropsMemory
from graphmem.props.model import KINDS, Proposition, Relation, relation_id
from graphmem.vectors import Hit

CANDIDATES = 20
LABEL = "Proposition"


@dataclass(frozen=True)
class Pairing:
    """A newer proposition and the older candidates it is judged against."""

    newer: Proposition
    candidates: tuple[Candidate, ...]
    vector: np.ndarray | None = field(default=None, compare=False, repr=False)  # newer's


@dataclass(frozen=True)
class RefineReport:
    """What refinement did: edges re-judged, whose kind changed, and removed as norel."""

    refined: int
    changed: int
    removed: int


def fetch_props(ctx: PropsMemory, ids: Sequence[str]) -> dict[str, Proposition]:
    """Stored propositions by id (missing ids are left out); one read."""
    if not ids:
        return {}
    rows = ctx.store.read("props.get", ids=sorted(set(ids)))
    return {row["id"]: Proposition.from_row(row) for row in rows}


def pairings(
    ctx: PropsMemory,
    new: Sequence[Proposition],
    vectors: np.ndarray,
    backfill_before: int | None = None,
    min_similarity: float = -1.0,
    k: int = CANDIDATES,
) -> list[Pairing]:
    """Who is judged against whom for `new` (sorted by date, then arrival) before it is stored.

    `backfill_before`: the newest stored date (ts); new propositions dated before it also
    look for newer stored propositions. Stored candidates come from `ctx.recent` where it holds
    them, else from one read (which refills it). Candidates below
    `min_similarity` are left out (the classifier would call them norel anyway).
    """
    batch_ids = {p.id: p for p in new}
    in_batch = vectors @ vectors.T if len(new) else np.zeros((0, 0))
    forward: list[list[tuple[float, str]]] = []
    later: dict[str, list[tuple[float, int]]] = defaultdict(list)  # stored id → (sim, new index)
    for i, (prop, hits) in enumerate(
        zip(new, _earlier_hits(ctx, new, vectors, backfill_before, k), strict=True)
    ):
        # an index out of step with the graph could still list a new id: never pair with it
        scored = [(h.score, h.node_id) for h in hits if h.node_id not in batch_ids]
        earlier = in_batch[i, :i]
        best = np.argpartition(-earlier, k)[:k] if i > k else range(i)
        scored += [(float(earlier[j]), new[j].id) for j in best]
        scored.sort(key=lambda s: (-s[0], s[1]))
        forward.append([s for s in scored[:k] if s[0] >= min_similarity])
        if backfill_before is not None and prop.ts < backfill_before:
            for hit in ctx.vectors.search(LABEL, vectors[i], 2 * k):
                if (
                    hit.ts > prop.ts
                    and hit.node_id not in batch_ids
                    and hit.score >= min_similarity
                ):
                    later[hit.node_id].append((hit.score, i))
    wanted = {nid for s in forward for _, nid in s} | later.keys()
    stored = ctx.recent.get_many(nid for nid in wanted if nid not in batch_ids)
    fetched = fetch_props(
        ctx, [nid for nid in wanted if nid not in batch_ids and nid not in stored]
    )
    ctx.recent.add(fetched.values())
    stored |= fetched
    everything = {**stored, **batch_ids}
    vecs = _vectors_for(ctx, new, vectors, list(stored))

    def candidate(prop: Proposition, sim: float) -> Candidate:
        return Candidate(prop, sim, vecs.get(prop.id))

    out = [
        Pairing(
            p,
            tuple(candidate(everything[nid], sim) for sim, nid in scored if nid in everything),
            vecs.get(p.id),
        )
        for p, scored in zip(new, forward, strict=True)
    ]
    for stored_id in sorted(later):
        if stored_id in stored:
            pairs = sorted(later[stored_id], key=lambda s: (-s[0], new[s[1]].id))[:k]
            cands = tuple(candidate(new[i], sim) for sim, i in pairs)
            out.append(Pairing(stored[stored_id], cands, vecs.get(stored_id)))
    return [p for p in out if p.candidates]


def _vectors_for(
    ctx: PropsMemory, new: Sequence[Proposition], vectors: np.ndarray, stored: list[str]
) -> dict[str, np.ndarray]:
    """The embeddings of the new and the `stored` propositions paired, when the classifier
    reads them (else none): the new ones' as given, stored ones' from `ctx.recent` or one read
    of the graph (which refills it)."""
    if not getattr(ctx.classifier, "wants_vectors", False):
        return {}
    out = {p.id: vectors[i] for i, p in enumerate(new)}
    out |= ctx.recent.vectors_of(stored)
    read = _embeddings(ctx, [pid for pid in stored if pid not in out])
    ctx.recent.add_vectors(read)
    return out | read


def _earlier_hits(
    ctx: PropsMemory, new: Sequence[Proposition], vectors: np.ndarray, newest: int | None, k: int
) -> list[list[Hit]]:
    """Each new proposition's k most similar stored ones dated on or before it."""
    if newest is None:
        # nothing stored is newer than the batch (the usual, date-ordered case): the as-of
        # filter would pass everything, so one unfiltered search serves the whole batch
        return ctx.vectors.search_many(LABEL, vectors, k) if len(new) else []
    return [ctx.vectors.search(LABEL, vectors[i], k, as_of_ts=p.ts) for i, p in enumerate(new)]


def judge(classifier: Classifier, todo: Sequence[Pairing], now: int) -> list[Relation]:
    """The relation edges the classifier finds (norel pairs make none)."""
    out: list[Relation] = []
    for pairing, judgements in zip(todo, _answers(classifier, todo), strict=True):
        for j in judgements:
            if j.label in KINDS:
                older = pairing.candidates[j.index].prop
                rid = relation_id(pairing.newer.id, older.id)
                out.append(
                    Relation(
                        rid,
                        pairing.newer.id,
                        older.id,
                        j.label,
                        j.confidence,
                        classifier.name,
                        refined=False,
                        created_at=now,
                    )
                )
    return out


def _answers(classifier: Classifier, todo: Sequence[Pairing]) -> list[list[Judgement]]:
    """The classifier's judgements of each pairing (checked), in one model run where it can."""
    pairs = [(pairing.newer, pairing.candidates) for pairing in todo]
    many = getattr(classifier, "classify_many", None)
    if many is None:
        answers = [classifier.classify(*p) for p in pairs]
    elif getattr(classifier, "wants_vectors", False):
        answers = many(pairs, [pairing.vector for pairing in todo])
    else:
        answers = many(pairs)
    return [
        _checked(judgements, len(pairing.candidates), classifier)
        for pairing, judgements in zip(todo, answers, strict=True)
    ]


def _checked(judgements: list[Judgement], n: int, classifier: Classifier) -> list[Judgement]:
    # a custom classifier answering out of range is a programming error worth a clear message
    for j in judgements:
        if not 0 <= j.index < n or j.label not in (*KINDS, "norel"):
            raise InvalidInput("classifier", f"{classifier.name} returned an invalid {j!r}")
    return judgements


def _each_once(judgements: list[Judgement], n: int, classifier: Classifier) -> list[Judgement]:
    """The judgements in candidate order, one per candidate (a re-judged edge needs its own)."""
    by_index = {j.index: j for j in judgements}
    if len(judgements) != n or len(by_index) != n:
        raise InvalidInput(
            "classifier",
            f"{classifier.name} must judge each candidate once: {n} given, "
            f"{len(judgements)} judgements for {len(by_index)} of them",
        )
    return [by_index[i] for i in range(n)]


def relation_rows(relations: Sequence[Relation]) -> list[dict]:
    """Rows for props.write_batch's $rels."""
    return [
        {
            "id": r.id,
            "src": r.src,
            "dst": r.dst,
            "kind": r.kind,
            "confidence": r.confidence,
            "model": r.model,
        }
        for r in relations
    ]


def fetch_relations(ctx: PropsMemory, edge_ids: Sequence[str]) -> list[Relation]:
    """Relation edges by id (unknown ids are left out), in id order."""
    if not edge_ids:
        return []
    rows = ctx.store.read("props.relations_by_id", ids=sorted(set(edge_ids)))
    return sorted((Relation.from_row(r) for r in rows), key=lambda r: r.id)


def strong_classifier(ctx: PropsMemory) -> Classifier:
    """The LLM classifier on the stronger model; LLMNotConfigured without an LLM."""
    if ctx.llm is None:
        raise LLMNotConfigured("refinement needs an LLM: set OPENAI_BASE_URL")
    return LLMClassifier(ctx.llm, model=ctx.llm.strong_model)


def refine(
    ctx: PropsMemory,
    edge_ids: Sequence[str],
    classifier: Classifier | None = None,
    force: bool = False,
) -> RefineReport:
    """Re-judge edges with the stronger model; update kind/confidence or drop them (norel).

    Every re-judged edge is marked `refined: true`; already refined edges are skipped unless
    `force`. All judgements are made before anything is written, so a failing LLM leaves the
    edges as they were.
    """
    if isinstance(edge_ids, str):
        raise InvalidInput("edge_ids", "must be a list of edge ids")
    edges = [e for e in fetch_relations(ctx, edge_ids) if force or not e.refined]
    if not edges:
        return RefineReport(0, 0, 0)
    classifier = classifier or strong_classifier(ctx)
    props = fetch_props(ctx, [e.src for e in edges] + [e.dst for e in edges])
    vecs = _embeddings(ctx, list(props))
    by_src: dict[str, list[Relation]] = defaultdict(list)
    for edge in edges:
        if edge.src in props and edge.dst in props:
            by_src[edge.src].append(edge)
    groups = [by_src[src] for src in sorted(by_src)]
    # the stored vectors are the service's embedder's: only its own classifier may read them
    given = vecs if classifier is ctx.classifier else {}
    todo = [
        Pairing(
            props[group[0].src],
            tuple(
                Candidate(props[e.dst], _cosine(vecs, e.src, e.dst), given.get(e.dst))
                for e in group
            ),
            given.get(group[0].src),
        )
        for group in groups
    ]
    rows: list[dict] = []
    changed = removed = 0
    for group, judgements in zip(groups, _answers(classifier, todo), strict=True):
        for edge, j in zip(group, _each_once(judgements, len(group), classifier), strict=True):
            changed += j.label != edge.kind and j.label != "norel"
            removed += j.label == "norel"
            rows.append(
                {
                    "id": edge.id,
                    "src": edge.src,
                    "dst": edge.dst,
                    "kind": j.label,
                    "confidence": j.confidence,
                    "model": classifier.name,
                }
            )
    ctx.store.write("props.replace_relations", rows=rows, now=ctx.now())
    return RefineReport(len(rows), changed, removed)


def _embeddings(ctx: PropsMemory, ids: list[str]) -> dict[str, np.ndarray]:
    if not ids:
        return {}
    out = {}
    for row in ctx.store.read_lists("props.embeddings", ids=ids):
        vec = embcodec.decode(row["embedding"])
        if vec is not None:
            out[row["id"]] = vec
    return out


def _cosine(vecs: dict[str, np.ndarray], a: str, b: str) -> float:
    if a not in vecs or b not in vecs:
        return 0.0
    va, vb = vecs[a], vecs[b]
    denom = float(np.linalg.norm(va) * np.linalg.norm(vb))
    return float(va @ vb) / denom if denom else 0.0
