"""Finding segments by meaning: their summaries embedded lazily and searched with FAISS.

Segments and meta-segments are embedded on first use, not when built: summaries of the open
segment change with every append, and most meta-segments are never searched by text. A search
of one series embeds that series' segments; recall over the Segment or MetaSegment label
(graphmem/timeline) embeds every series' first. A (meta-)segment's time in the index is its
start.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.embed import Embedder
from graphmem.store import Store
from graphmem.vectors import VectorStore
from graphmem.vectors.summaries import embed_summaries

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
