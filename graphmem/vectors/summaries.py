"""Summaries embedded on first use (Segment, MetaSegment: the kinds graphmem/kinds.py marks
`reembedded`): what changed since the last embedding is embedded, stored and indexed.

Here rather than in series/ so that timeline recall, which embeds every series' summaries
before it searches them, needs nothing from the series memory.
"""

from __future__ import annotations

import uuid

from graphmem import embcodec
from graphmem.cypher import statement
from graphmem.embed import Embedder
from graphmem.kinds import kind_of
from graphmem.store import Store
from graphmem.vectors.model import vector_id
from graphmem.vectors.store import REEMBEDDED, VectorStore

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
        [
            {"id": i, "vid": v, "ts": t, "embedding": e, "summary": r["summary"]}
            for i, v, t, e, r in zip(ids, vids, ts, embcodec.encode(vecs), rows, strict=True)
        ],
        epoch=uuid.uuid4().hex,  # names the label's vector clock if this write creates it
    )
    # whatever the index holds under these vids is stale: a summary changed (the open segment
    # grew, a meta-segment was extended), or a deleted series was re-created with the same
    # name (same ids, same vids); `add` would keep the old vector of a vid it already has
    vectors.remove(label, vids)
    vectors.add(label, ids, vids, ts, vecs)
    return len(rows)
