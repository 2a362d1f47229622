"""Anchor candidates of a question: a dense (FAISS) and a keyword (BM25) channel, fused.

Each channel returns its `pool` best propositions dated on or before the as-of date (inclusive):
the dense one by cosine similarity of the embeddings, the keyword one by BM25 over the words
and numbers of the text (graphmem/vectors/keywords.py), so a rare name or a number in the
question finds the statements that contain it even when the embedding blurs it with similar
ones. Reciprocal rank fusion orders the union: a candidate ranked r_d by the dense channel and
r_k by the keyword one scores w_d / (K + r_d) + w_k / (K + r_k) (a channel that did not return
it adds nothing); ranks start at 1. Candidates the dense channel did not return get their
cosine similarity from the vector index, so every candidate has one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphmem.errors import InvalidInput
from graphmem.props.memory import PropsMemory
from graphmem.props.relate import LABEL

CHANNELS = ("hybrid", "dense", "keyword")


@dataclass(frozen=True)
class Fusion:
    """Reciprocal rank fusion: K and each channel's weight."""

    k: float = 60.0
    dense: float = 1.0
    keyword: float = 1.0


# The standard setting (Cormack et al. 2009). On the tuning half of bench/bench_retrieval.py's
# news-like corpus no other K (5 to 60) or keyword weight (0.3 to 1) did better by more than
# a question or two (docs/retrieval.md).
FUSION = Fusion()


@dataclass(frozen=True)
class Candidate:
    """A proposition found by at least one channel."""

    id: str
    vid: int
    similarity: float  # cosine similarity to the question
    dense_rank: int | None  # 1-based rank in the dense channel; None: not returned by it
    keyword_rank: int | None  # 1-based rank in the keyword channel
    fused: float

    @property
    def channels(self) -> tuple[str, ...]:
        """The channels that returned it."""
        return tuple(
            name
            for name, rank in (("dense", self.dense_rank), ("keyword", self.keyword_rank))
            if rank
        )


def checked_channels(value: object, field: str = "channels") -> str:
    """One of CHANNELS; else InvalidInput."""
    if value not in CHANNELS:
        raise InvalidInput(field, f"must be one of {', '.join(CHANNELS)}")
    return str(value)


def candidates(
    ctx: PropsMemory,
    vector: np.ndarray,
    question: str,
    as_of_ts: int | None,
    pool: int,
    channels: str = "hybrid",
    fusion: Fusion = FUSION,
) -> list[Candidate]:
    """The union of the channels' `pool` best, best fused score first (ties: more similar)."""
    dense = ctx.vectors.search(LABEL, vector, pool, as_of_ts) if channels != "keyword" else []
    keyword = (
        ctx.keywords.search(LABEL, question, pool, as_of_ts)
        if channels != "dense" and question
        else []
    )
    similarity = {h.node_id: h.score for h in dense}
    vids = {h.node_id: h.vid for h in dense} | {h.node_id: h.vid for h in keyword}
    missing = [vids[h.node_id] for h in keyword if h.node_id not in similarity]
    if missing:
        for hit in ctx.vectors.search(LABEL, vector, len(missing), among=missing):
            similarity[hit.node_id] = hit.score
    dense_rank = {h.node_id: i for i, h in enumerate(dense, start=1)}
    keyword_rank = {h.node_id: i for i, h in enumerate(keyword, start=1)}
    found = [
        Candidate(
            pid,
            vids[pid],
            similarity[pid],
            dense_rank.get(pid),
            keyword_rank.get(pid),
            _fused(fusion, dense_rank.get(pid), keyword_rank.get(pid)),
        )
        for pid in vids
        if pid in similarity  # a keyword hit not yet in the vector index: caught up next time
    ]
    found.sort(key=lambda c: (-c.fused, -c.similarity, c.id))
    return found


def _fused(fusion: Fusion, dense: int | None, keyword: int | None) -> float:
    score = 0.0
    if dense is not None:
        score += fusion.dense / (fusion.k + dense)
    if keyword is not None:
        score += fusion.keyword / (fusion.k + keyword)
    return score
