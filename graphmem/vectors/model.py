"""Shared vocabulary of the vector indexes: node ids to FAISS ids, settings, hits, the error."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graphmem.config import Settings
from graphmem.errors import GraphmemError, InvalidInput

_MAX_VID = (1 << 63) - 1


class VectorIndexError(GraphmemError):
    """A vector index cannot be loaded, rebuilt or kept consistent with the graph."""

    code = "VECTOR_INDEX"


class DamagedIndexFile(VectorIndexError):
    """A saved index file is unreadable or does not match its checksum: it is rebuilt."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path} is damaged: {problem}")
        self.path = path


@dataclass(frozen=True)
class Clock:
    """A label's vector clock in the graph: how many times nodes were re-embedded in place,
    and the epoch of the clock node (a graph wiped and refilled starts a new one)."""

    rev: int = 0
    epoch: str = ""

    def replaced_since(self, older: Clock) -> int | None:
        """Nodes re-embedded after which revision are not in an index synced at `older`;
        None when none are. A new epoch or a revision gone back: every one may be."""
        if self == older:
            return None
        if self.epoch != older.epoch or self.rev < older.rev:
            return 0
        return older.rev


def vector_id(node_id: str) -> int:
    """The FAISS id of a node: the first 8 bytes of sha1(id), as a non-negative int64."""
    return int.from_bytes(hashlib.sha1(node_id.encode("utf-8")).digest()[:8], "big") & _MAX_VID


@dataclass(frozen=True)
class VectorConfig:
    """How indexes are built and searched."""

    flat_threshold: int = 20_000  # at most this many items: exact IndexFlatIP
    # above the threshold: "ivf" or "hnsw". IVF is the default: on MiniLM embeddings at 10^5
    # items it adds ~60k vectors/s against HNSW's ~7k (M=32), with as good a recall@20
    # (0.97 at nprobe 16 vs 0.97 at efSearch 64; bench/bench_props.py ingests through it)
    kind: str = "ivf"
    hnsw_m: int = 32
    ef_construction: int = 40
    ef_search: int = 64
    nlist: int | None = None  # IVF lists; None: about 4*sqrt(n), at most n/39
    nprobe: int = 16
    exact_below: int = 10_000  # filtered ANN searches passing at most this many go exact
    compact_ratio: float = 0.2  # share of dead ANN slots that triggers a rebuild
    # how often (at most) a search checks the graph for writes by other processes; 0: always
    refresh_ms: int = 500

    @classmethod
    def from_settings(cls, settings: Settings) -> VectorConfig:
        """How vector indexes are built and refreshed, from GRAPHMEM_VECTOR_*."""
        if settings.vector_index == "flat":
            # never leave exact search: the threshold is beyond any index's size
            return cls(flat_threshold=1 << 62, refresh_ms=settings.vector_refresh_ms)
        kind = "ivf" if settings.vector_index == "auto" else settings.vector_index
        return cls(
            flat_threshold=settings.vector_flat_max,
            kind=kind,
            refresh_ms=settings.vector_refresh_ms,
        )

    def __post_init__(self) -> None:
        if self.kind not in ("ivf", "hnsw"):
            raise InvalidInput("kind", "must be 'ivf' or 'hnsw'")
        for name in ("flat_threshold", "hnsw_m", "ef_construction", "ef_search", "nprobe"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InvalidInput(name, "must be a positive integer")
        if self.nlist is not None and (not isinstance(self.nlist, int) or self.nlist < 1):
            raise InvalidInput("nlist", "must be a positive integer or None")
        if not isinstance(self.exact_below, int) or self.exact_below < 0:
            raise InvalidInput("exact_below", "must be a non-negative integer")
        if not 0 < self.compact_ratio < 1:
            raise InvalidInput("compact_ratio", "must be between 0 and 1")
        if (
            not isinstance(self.refresh_ms, int)
            or isinstance(self.refresh_ms, bool)
            or (self.refresh_ms < 0)
        ):
            raise InvalidInput("refresh_ms", "must be a non-negative integer")


@dataclass(frozen=True, slots=True)  # a recall makes a thousand: slots build them faster
class Hit:
    """One search result."""

    node_id: str
    vid: int
    score: float  # cosine similarity: inner product of normalised vectors
    ts: int


@dataclass(frozen=True)
class Columns:
    """Search results as columns, best first: item i is Hit(node_ids[i], vids[i], ...)."""

    node_ids: list[str]
    vids: np.ndarray  # int64
    scores: np.ndarray  # float64, cosine similarity
    ts: np.ndarray  # int64
