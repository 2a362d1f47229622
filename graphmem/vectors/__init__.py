"""FAISS indexes over embedded nodes, one per label, kept in step with the graph.

The graph is the source of truth: each embedded node carries `id`, `vid`, `ts` and `embedding`.
An index is a cache of those embeddings that can always be rebuilt from the graph.

Modules: `model` (node ids to FAISS ids, settings, hits, the errors), `index` (the FAISS
index of one label), `persist` (its files on disk), `checks` (argument checking) and `store`
(every label's index, kept in step with the graph, through `synced`, which the keyword (BM25)
indexes share: `keywords` and `keywordstore`).
"""

from graphmem.vectors.index import VectorIndex
from graphmem.vectors.keywords import KeywordHit, KeywordIndex
from graphmem.vectors.keywordstore import KEYWORD_LABELS, KeywordStore
from graphmem.vectors.model import (
    Clock,
    DamagedIndexFile,
    Hit,
    VectorConfig,
    VectorIndexError,
    vector_id,
)
from graphmem.vectors.persist import saved_watermark
from graphmem.vectors.store import LABELS, VectorStore

__all__ = [
    "KEYWORD_LABELS",
    "LABELS",
    "Clock",
    "DamagedIndexFile",
    "Hit",
    "KeywordHit",
    "KeywordIndex",
    "KeywordStore",
    "VectorConfig",
    "VectorIndex",
    "VectorIndexError",
    "VectorStore",
    "saved_watermark",
    "vector_id",
]
