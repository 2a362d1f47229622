"""Finding segments by meaning: their summaries embedded lazily and searched with FAISS.

Segments and meta-segments are embedded on first use, not when built: summaries of the open
segment change with every append, and most meta-segments are never searched by text. A search
of one series embeds that series' segments; recall over the Segment or MetaSegment label
(graphmem/timeline) embeds every series' first. A (meta-)segment's time in the index is its
start.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from graphmem import embcodec
from graphmem.cypher import statement
from graphmem.embed import Embedder
from graphmem.kinds import kind_of, labels
from graphmem.store import Store
from graphmem.vectors import VectorStore, vector_id

REEMBEDDED = labels("reembedded")

LABEL = "Segment"


@dataclass
class SegmentSearch:
    """Embeds segment summaries on first use (and again when a summary changed)."""

    store: Store
    embedder: Embedder
    vectors: VectorStore

    def ensure_embedded(self, series_id: str) -> int:
        """Embed the series' segment summaries that have no embedding or changed since."""
        rows = self.store.read("segments.unembedded", series_id=series_id)
        return embed_summaries(self.store, self.embedder, self.vectors, LABEL, rows)


# statement names per re-embedded kind (graphmem/kinds.py), resolved at import
_UNEMBEDDED = {k: statement(f"vectors.unembedded_{kind_of(k).key}").name for k in REEMBEDDED}
_SET = {k: statement(f"vectors.set_embeddings_{kind_of(k).key}").name for k in REEMBEDDED}


def embed_all_summaries(store: Store, embedder: Embedder, vectors: VectorStore, label: str) -> int:
    """Embed every series' Segment or MetaSegment summaries not embedded yet; returns how many."""
    return embed_summaries(store, embedder, vectors, label, store.read(_UNEMBEDDED[label]))


def embed_summaries(
    store: Store, embedder: Embedder, vectors: VectorStore, label: str, rows: list[dict]
) -> int:
    """Embed these (id, summary, start, vid) rows of `label`, store and index the vectors."""
    rows = [r for r in rows if r["summary"]]
    if not rows:
        return 0
    vecs = embedder.encode([r["summary"] for r in rows])
    ids = [r["id"] for r in rows]
    vids = [vector_id(i) for i in ids]
    ts = [int(r["start"]) for r in rows]
    store.write_batch(
        _SET[label],
        [{"id": i, "vid": v, "ts": t, "embedding": e, "summary": r["summary"]}
         for i, v, t, e, r in zip(ids, vids, ts, embcodec.encode(vecs), rows, strict=True)],
        epoch=uuid.uuid4().hex,  # names the label's vector clock if this write creates it
    )  # fmt: skip
    # whatever the index holds under these vids is stale: a summary changed (the open segment
    # grew, a meta-segment was extended), or a deleted series was re-created with the same
    # name (same ids, same vids); `add` would keep the old vector of a vid it already has
    vectors.remove(label, vids)
    vectors.add(label, ids, vids, ts, vecs)
    return len(rows)
