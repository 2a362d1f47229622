"""Finding segments by meaning: their summaries embedded lazily and searched with FAISS."""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.embed import Embedder
from graphmem.errors import InvalidInput
from graphmem.series.segments import Segment
from graphmem.store import Store
from graphmem.vectors import VectorStore, vector_id

LABEL = "Segment"
OVERFETCH = 20  # hits from other series are dropped after the search


@dataclass
class SegmentSearch:
    """Embeds segment summaries on first use (and again when a summary changed)."""

    store: Store
    embedder: Embedder
    vectors: VectorStore

    def ensure_embedded(self, series_id: str) -> int:
        """Embed summaries that have no embedding or changed since; returns how many."""
        rows = self.store.read("segments.unembedded", series_id=series_id)
        if not rows:
            return 0
        vecs = self.embedder.encode([r["summary"] for r in rows])
        ids = [r["id"] for r in rows]
        vids = [vector_id(i) for i in ids]
        ts = [int(r["start"]) for r in rows]
        self.store.write_batch(
            "segments.set_embeddings",
            [{"id": i, "vid": v, "ts": t, "embedding": e.tolist(), "summary": r["summary"]}
             for i, v, t, e, r in zip(ids, vids, ts, vecs, rows, strict=True)],
        )  # fmt: skip
        stale = [r["vid"] for r in rows if r["vid"] is not None]
        if stale:  # the open segment's summary changed: replace its vector
            self.vectors.remove(LABEL, stale)
        self.vectors.add(LABEL, ids, vids, ts, vecs)
        return len(rows)

    def search(
        self, series_id: str, query: str, k: int = 10, min_score: float | None = None
    ) -> list[tuple[Segment, float]]:
        """The k segments of the series whose summaries are closest to `query`."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("text", "must not be empty")
        if not 1 <= k <= 1000:
            raise InvalidInput("k", "must be between 1 and 1000")
        self.ensure_embedded(series_id)
        hits = self.vectors.search(LABEL, self.embedder.encode_one(query), k * OVERFETCH)
        prefix = f"{series_id}:seg:"
        mine = [h for h in hits if h.node_id.startswith(prefix)]
        if min_score is not None:
            mine = [h for h in mine if h.score >= min_score]
        mine = mine[:k]
        rows = self.store.read("segments.get_many", ids=[h.node_id for h in mine])
        by_id = {r["g"]["id"]: Segment.from_node(r["g"]) for r in rows}
        return [(by_id[h.node_id], h.score) for h in mine if h.node_id in by_id]
