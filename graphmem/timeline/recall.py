"""Recall: search candidates by relevance, then rank them by recall probability at `now`.

Per label, the `candidates` memories dated at or before `now` most similar to the query come
from the vector index (with their relevance r and their ts). Segments and meta-segments are
embedded on first use (their summaries; their time is their start), so a recall over those
labels first embeds any that are new or whose summary changed. Only the few that were ever
recalled need their statistics from the graph: one read by id list. Scoring is vectorised,
and a second read fetches text and date for the k winners only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.errors import InvalidInput
from graphmem.kinds import kind_of
from graphmem.strings import MAX_QUERY, checked_str
from graphmem.timeline.formula import (
    TimelineConfig,
    checked_count,
    checked_threshold,
    elapsed,
    probabilities,
)
from graphmem.timeline.memory import (
    DEFAULT_LABELS,
    TimelineMemory,
    checked_labels,
    checked_now,
    packed_per_label,
    per_label,
)
from graphmem.timeline.reinforce import reinforce as record_recall
from graphmem.timeutil import iso_date
from graphmem.vectors.summaries import embed_all_summaries

MAX_K = 1000


@dataclass(frozen=True)
class Recalled:
    """A memory as recall scored it (statistics as they were before any reinforcement)."""

    label: str
    id: str
    text: str
    date: str
    ts: int
    r: float  # relevance: the cosine similarity rescaled (TimelineConfig.relevance), in [0, 1]
    t: float  # time units since the last recall, or since ts if never recalled
    n: int  # recall count
    g: float
    p: float  # recall probability
    recalled: bool  # p >= threshold
    last_recalled_at: int | None = None
    source: str | None = None
    cosine: float = 0.0  # cosine similarity of the embeddings of the memory and the query


def recall(
    ctx: TimelineMemory,
    query: str,
    now: Any,
    k: int = 10,
    threshold: float | None = None,
    labels: Sequence[str] = DEFAULT_LABELS,
    candidates: int | None = None,
    reinforce: bool = False,
) -> list[Recalled]:
    """The k memories most likely recalled by `query` at `now`, highest p first.

    `reinforce=True` also records a recall (see `reinforce`) of those with p >= threshold.
    """
    if not checked_str(query, "query", MAX_QUERY).strip():
        raise InvalidInput("query", "must be a non-empty string")
    args = _checked(ctx.config, now, k, threshold, labels, candidates)  # before the model runs
    vector = ctx.embedder.encode_one(query)
    return _recall(ctx, vector, *args, reinforce)


def recall_vector(
    ctx: TimelineMemory,
    vector: Sequence[float] | np.ndarray,
    now: Any,
    k: int = 10,
    threshold: float | None = None,
    labels: Sequence[str] = DEFAULT_LABELS,
    candidates: int | None = None,
    reinforce: bool = False,
) -> list[Recalled]:
    """`recall` for an already embedded query (a unit vector of the index's dimension)."""
    args = _checked(ctx.config, now, k, threshold, labels, candidates)
    return _recall(ctx, vector, *args, reinforce)


def _checked(
    config: TimelineConfig, now: Any, k: Any, threshold: Any, labels: Any, candidates: Any
) -> tuple[int, int, float, tuple[str, ...], int]:
    now_ts = checked_now(now)
    k = checked_count(k, "k", MAX_K)
    cutoff = checked_threshold(config.threshold if threshold is None else threshold)
    pool = checked_count(
        config.candidates if candidates is None else candidates, "candidates", 100_000
    )
    return now_ts, k, cutoff, checked_labels(labels), max(pool, k)


def _recall(
    ctx: TimelineMemory,
    vector: Any,
    now: int,
    k: int,
    threshold: float,
    labels: tuple[str, ...],
    pool: int,
    reinforce: bool,
) -> list[Recalled]:
    _embed_summaries(ctx, labels)
    # columns, not a Hit per candidate: a recall ranks hundreds of them
    found = [(label, ctx.vectors.search_columns(label, vector, pool, now)) for label in labels]
    ids = [i for _, c in found for i in c.node_ids]
    if not ids:
        return []
    kinds = [label for label, c in found for _ in c.node_ids]
    params = packed_per_label({label: c.node_ids for label, c in found})
    stats = {row["id"]: row for row in ctx.store.read("timeline.recalled_stats", **params)}
    cosine = np.concatenate([c.scores for _, c in found])
    stamps = np.concatenate([c.ts for _, c in found])
    since = stamps.astype(np.float64)
    g = np.ones(len(ids))
    n = np.zeros(len(ids), dtype=np.int64)
    last: dict[int, int] = {}
    for i, node_id in enumerate(ids):
        row = stats.get(node_id)
        if row is not None:  # recalled before: decay runs from the last recall
            last[i] = int(row["last_recalled_at"])
            since[i] = last[i]
            g[i] = float(row["g"] if row["g"] is not None else 1.0)
            n[i] = int(row["recall_count"] or 0)
    t = elapsed(now, since, ctx.config.time_unit_seconds)
    r = ctx.config.relevance(cosine)
    p = probabilities(r, t, g)
    order = _top(p, cosine, ids, k)
    top: dict[str, list[str]] = {}
    for i in order:
        top.setdefault(kinds[i], []).append(ids[i])
    details = {row["id"]: row for row in ctx.store.read("timeline.details", **per_label(top))}
    out = [
        Recalled(
            kinds[i],
            ids[i],
            details[ids[i]]["text"],
            details[ids[i]]["date"] or iso_date(int(stamps[i])),
            int(stamps[i]),
            float(r[i]),
            float(t[i]),
            int(n[i]),
            float(g[i]),
            float(p[i]),
            bool(p[i] >= threshold),
            last.get(i),
            details[ids[i]]["source"],
            float(cosine[i]),
        )
        for i in order
        if ids[i] in details  # deleted since the search
    ]
    chosen = [m.id for m in out if m.recalled]
    if reinforce and chosen:
        record_recall(ctx, chosen, now)
    return out


def _embed_summaries(ctx: TimelineMemory, labels: tuple[str, ...]) -> None:
    """Segments and meta-segments are embedded on first use: embed what is new or changed."""
    lazy = [label for label in labels if kind_of(label).reembedded]
    for label in lazy:
        embed_all_summaries(ctx.store, ctx.embedder, ctx.vectors, label)


def _top(p: np.ndarray, cosine: np.ndarray, ids: list[str], k: int) -> list[int]:
    """Indexes of the k best by p, then cosine, then id; only the front runners are sorted."""
    front = np.arange(len(p))
    if len(p) > k:
        kth = np.partition(p, len(p) - k)[len(p) - k]
        front = np.flatnonzero(p >= kth)  # ties with the k-th stay in the running
    return sorted(front.tolist(), key=lambda i: (-p[i], -cosine[i], ids[i]))[:k]


def _get(item: Any, name: str) -> Any:
    """A candidate's field, from a mapping or an attribute."""
    if isinstance(item, Mapping):
        return item.get(name)
    return getattr(item, name, None)


Ranker = Callable[[Sequence[Any]], list[float]]


def ranker(now: Any, config: TimelineConfig | None = None) -> Ranker:
    """A ranking function for retrieval candidates: their recall probability p at `now`.

    A candidate is either a mapping or an object (e.g. `graphmem.props.retrieve.Scored`) with
    `similarity` (the cosine, rescaled into r by the config), its own time `ts` (or `prop.ts`)
    in epoch seconds, and optionally `g` and `last_recalled_at`; or a tuple (node, similarity,
    ts) whose node is a mapping with those statistics, or just an id. Missing statistics mean never
    recalled (g = 1, decay from ts). Returns one score per candidate, in order; higher first.
    """
    now_ts = checked_now(now)
    config = config or TimelineConfig()

    def rank(candidates: Sequence[Any]) -> list[float]:
        r, since, g = [], [], []
        for i, c in enumerate(candidates):
            if isinstance(c, tuple):
                node, sim, ts = c if len(c) == 3 else (None, None, None)
                stats = node if isinstance(node, Mapping) else {}
            else:
                stats, sim, ts = c, _get(c, "similarity"), _get(c, "ts")
                ts = _get(_get(c, "prop"), "ts") if ts is None else ts
            if ts is None or sim is None:
                raise InvalidInput(f"candidates[{i}]", "needs a similarity and a ts")
            last = _get(stats, "last_recalled_at")
            r.append(float(sim))
            since.append(float(ts if last is None else last))
            g.append(float(_get(stats, "g") or 1.0))
        if not r:
            return []
        t = elapsed(now_ts, np.array(since), config.time_unit_seconds)
        return probabilities(config.relevance(np.array(r)), t, np.array(g)).tolist()

    return rank
