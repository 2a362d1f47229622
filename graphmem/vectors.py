"""FAISS indexes over embedded nodes, one per label, kept in step with the graph.

The graph is the source of truth: each embedded node carries `id`, `vid`, `ts` and `embedding`.
An index is a cache of those embeddings that can always be rebuilt from the graph.

Layout. Each index is `IndexIDMap(inner)`: the map holds the vids (so a saved .faiss file can be
checked against its sidecar); `inner` is IndexFlatIP, IndexHNSWFlat or IndexIVFFlat, whose own
ids are slot positions 0..n-1. Aligned numpy arrays give each slot its vid, ts, node id and
whether it is still alive.

As-of filter. Searches run on `inner` with an `IDSelectorBitmap` over slot positions built from
`ts <= as_of` (and the alive mask). Building it is one vectorised compare plus `np.packbits`:
about 0.05 ms at 10^5 items, against about 7 ms for an `IDSelectorBatch` of vids, and testing a
bit costs less than a hash lookup during the search. No time-sorted order is needed, so adds in
any order stay incremental.

Filtered ANN search loses recall when few items pass the filter (HNSW and IVF only keep items
that pass, so a narrow filter can yield fewer than k). So a filter passing at most `exact_below`
items, or an ANN search that still came back short, is answered exactly: a selector-filtered
scan of the HNSW storage, or an IVF search over every list. Its cost grows with the items that
pass (about 0.4 ms for 10^3, 1.7 ms for 10^4 items of dim 384).

Removal. Flat indexes drop items at once; HNSW cannot remove, and IVF removal would break the
slot numbering, so ANN indexes mark slots dead and rebuild once `compact_ratio` of them are.

Freshness across processes. Another process (say `graphmem ingest-docs` beside a running
`graphmem serve`) writes to the same graph and its own copy of the index. Before a search,
at most every `refresh_ms`, VectorStore compares a cheap signature of the label in the graph
(its embedded-node count: constant time for propositions and events) with the value it last
synced to, counting its own adds and removes; on a change it diffs the graph's (vid, id) pairs
against the index and fetches what is missing (about 0.1 s at 10^5 items). An index add that
fails after the graph write marks the label stale, so the next search repairs it at once.
Saving first catches up, then, under a file lock, never replaces a saved index whose
watermark (the wall time at which it was last known to match the graph) is newer.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import math
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from graphmem import embcodec
from graphmem.cypher import statement
from graphmem.errors import GraphmemError, InvalidInput
from graphmem.store.base import Store

log = logging.getLogger(__name__)

LABELS = ("Proposition", "Event", "Segment", "MetaSegment")
FORMAT_VERSION = 1
FETCH_BATCH = 500  # rows per graph fetch while repairing: bounds one reply's size
_MAX_VID = (1 << 63) - 1
_MAX_EF = 4096  # caps how far a narrow filter may widen an HNSW search before going exact

_VIDS = {label: statement(f"vectors.vids_{label.lower()}") for label in LABELS}
_VID_PAIRS = {label: statement(f"vectors.vid_pairs_{label.lower()}") for label in LABELS}
_COUNT = {label: statement(f"vectors.count_{label.lower()}") for label in LABELS}
_FETCH = {label: statement(f"vectors.fetch_{label.lower()}") for label in LABELS}
_FETCH_JSON = {label: statement(f"vectors.fetch_json_{label.lower()}") for label in LABELS}


class VectorIndexError(GraphmemError):
    """A vector index cannot be loaded, rebuilt or kept consistent with the graph."""

    code = "VECTOR_INDEX"


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


@dataclass(frozen=True)
class Hit:
    """One search result."""

    node_id: str
    vid: int
    score: float  # cosine similarity: inner product of normalised vectors
    ts: int


@dataclass(frozen=True)
class OpenReport:
    """How an index was opened: loaded from disk or rebuilt, and what the graph check repaired."""

    label: str
    loaded: bool
    reason: str | None  # why the saved index was not used
    added: int  # embedded nodes found in the graph but not in the index
    removed: int  # index items whose node is gone from the graph


@dataclass(frozen=True)
class _Batch:
    """Validated input to VectorIndex.add."""

    node_ids: list[str]
    vids: np.ndarray
    ts: np.ndarray
    vectors: np.ndarray


class VectorIndex:
    """The FAISS index of one label, with each item's vid, node id and ts."""

    def __init__(
        self, label: str, dim: int, model_name: str, config: VectorConfig | None = None
    ) -> None:
        if not isinstance(dim, int) or isinstance(dim, bool) or dim < 1:
            raise InvalidInput("dim", "must be a positive integer")
        self.label = label
        self.dim = dim
        self.model_name = model_name
        self.config = config or VectorConfig()
        self.dirty = False
        self._lock = threading.RLock()
        self._set_index(*self._new_index("flat", None))
        self._vids = np.empty(0, dtype=np.int64)
        self._ts = np.empty(0, dtype=np.int64)
        self._alive = np.empty(0, dtype=bool)
        self._node_ids: list[str] = []
        self._pos: dict[int, int] = {}

    @property
    def kind(self) -> str:
        """'flat', 'hnsw' or 'ivf'."""
        return self._kind

    def __len__(self) -> int:
        return len(self._pos)

    def __contains__(self, vid: object) -> bool:
        return vid in self._pos

    def vids(self) -> set[int]:
        """The vids of every live item."""
        with self._lock:
            return set(self._pos)

    # --- building --------------------------------------------------------------------------

    def _new_index(self, kind: str, train: np.ndarray | None) -> tuple[str, Any, Any]:
        if kind == "flat":
            inner = faiss.IndexFlatIP(self.dim)
        elif kind == "hnsw":
            inner = faiss.IndexHNSWFlat(self.dim, self.config.hnsw_m, faiss.METRIC_INNER_PRODUCT)
            inner.hnsw.efConstruction = self.config.ef_construction
        else:
            n = 0 if train is None else len(train)
            nlist = self._nlist_for(n)
            quantizer = faiss.IndexFlatIP(self.dim)
            inner = faiss.IndexIVFFlat(quantizer, self.dim, nlist, faiss.METRIC_INNER_PRODUCT)
            inner.referenced_objects = [quantizer]  # the IVF index does not own its quantizer
            # a 64-per-list sample and 10 k-means rounds train in seconds at 10^5 with the
            # same recall as FAISS's defaults (256, 25), which take 2.5x as long
            inner.cp.max_points_per_centroid, inner.cp.niter = 64, 10
            inner.train(train)
        return kind, inner, faiss.IndexIDMap(inner)

    def _set_index(self, kind: str, inner: Any, idmap: Any) -> None:
        self._kind, self._inner, self._idmap = kind, inner, idmap

    def _nlist_for(self, n: int) -> int:
        """IVF lists for n training vectors: about 4*sqrt(n), at least 39 vectors per list."""
        return max(1, min(self.config.nlist or int(4 * math.sqrt(n)), n // 39))

    def _outgrown(self, n: int) -> bool:
        """An IVF index whose data has grown ~16x since it was trained: its lists are long.

        `n`: the item count after the add at hand. Recall holds as lists grow (0.97 at 10^5
        items on centroids trained at 2*10^4); what grows is the scan per search, so retraining
        (seconds at 10^5) waits until the lists are about 16 times as long as when trained.
        """
        if self._kind != "ivf" or self.config.nlist is not None:
            return False
        return self._nlist_for(n) >= 4 * self._inner.nlist

    def _kind_for(self, count: int) -> str:
        return "flat" if count <= self.config.flat_threshold else self.config.kind

    def _rebuild(self, extra: _Batch | None = None) -> None:
        """Rebuild from the live items (plus `extra`), choosing the kind for the new size."""
        keep = np.flatnonzero(self._alive)
        vectors = self._inner.reconstruct_n(0, self._idmap.ntotal)[keep]
        vids, ts = self._vids[keep], self._ts[keep]
        node_ids = [self._node_ids[i] for i in keep]
        if extra is not None:
            vectors = np.vstack([vectors, extra.vectors])
            vids, ts = np.concatenate([vids, extra.vids]), np.concatenate([ts, extra.ts])
            node_ids += extra.node_ids
        kind = self._kind_for(len(vids))
        started = time.perf_counter()
        self._set_index(*self._new_index(kind, vectors))
        self._idmap.add_with_ids(vectors, vids)
        self._vids, self._ts, self._node_ids = vids, ts, node_ids
        self._alive = np.ones(len(vids), dtype=bool)
        self._pos = {int(v): i for i, v in enumerate(vids.tolist())}
        self.dirty = True
        elapsed = time.perf_counter() - started
        log.info(
            "%s vector index rebuilt as %s: %d items, %.1fs", self.label, kind, len(vids), elapsed
        )

    def add(
        self,
        node_ids: Sequence[str],
        vids: Sequence[int] | np.ndarray,
        ts: Sequence[int] | np.ndarray,
        embeddings: Sequence[Sequence[float]] | np.ndarray,
    ) -> int:
        """Add items whose vids are not yet indexed (others are skipped); return how many."""
        batch = _checked_batch(self.dim, node_ids, vids, ts, embeddings)
        with self._lock:
            fresh = _dedupe(batch, self._pos)
            if fresh is None:
                return 0
            if (
                self._kind == "flat"
                and len(self._pos) + len(fresh.vids) > self.config.flat_threshold
            ):
                self._rebuild(fresh)  # crossing the threshold: move everything to ANN
                return len(fresh.vids)
            if self._outgrown(len(self._pos) + len(fresh.vids)):
                self._rebuild(fresh)  # retrain IVF centroids for the new size
                return len(fresh.vids)
            start = self._idmap.ntotal
            self._idmap.add_with_ids(fresh.vectors, fresh.vids)
            self._vids = np.concatenate([self._vids, fresh.vids])
            self._ts = np.concatenate([self._ts, fresh.ts])
            self._alive = np.concatenate([self._alive, np.ones(len(fresh.vids), dtype=bool)])
            self._node_ids += fresh.node_ids
            for i, vid in enumerate(fresh.vids.tolist()):
                self._pos[vid] = start + i
            self.dirty = True
            return len(fresh.vids)

    def remove(self, vids: Sequence[int] | np.ndarray) -> int:
        """Drop the items with these vids (unknown vids are ignored); return how many."""
        wanted = _checked_ints("vids", vids, None, 0, _MAX_VID)
        with self._lock:
            gone = sorted({v for v in wanted.tolist() if v in self._pos})
            if not gone:
                return 0
            if self._kind == "flat":
                self._idmap.remove_ids(faiss.IDSelectorBatch(np.asarray(gone, dtype=np.int64)))
                keep = ~np.isin(self._vids, gone)
                self._vids, self._ts = self._vids[keep], self._ts[keep]
                self._alive = self._alive[keep]
                self._node_ids = [n for n, k in zip(self._node_ids, keep, strict=True) if k]
                self._pos = {v: i for i, v in enumerate(self._vids.tolist())}
            else:
                for vid in gone:
                    self._alive[self._pos.pop(vid)] = False
                if 1 - len(self._pos) / len(self._alive) > self.config.compact_ratio:
                    self._rebuild()
            self.dirty = True
            return len(gone)

    # --- searching -------------------------------------------------------------------------

    def search(
        self, query_vec: Sequence[float] | np.ndarray, k: int, as_of_ts: int | None = None
    ) -> list[Hit]:
        """The k items most similar to `query_vec`, only among items with ts <= as_of_ts."""
        return self.search_many(_checked_query(query_vec, self.dim), k, as_of_ts)[0]

    def search_many(
        self, queries: np.ndarray, k: int, as_of_ts: int | None = None
    ) -> list[list[Hit]]:
        """search() for each row of `queries` (shape (m, dim)) in one FAISS call.

        One call scores all rows as a matrix product, far cheaper than m single searches.
        """
        query = _checked_queries(queries, self.dim)
        if not isinstance(k, int | np.integer) or isinstance(k, bool) or k < 1:
            raise InvalidInput("k", "must be a positive integer")
        if as_of_ts is not None and (
            not isinstance(as_of_ts, int | np.integer) or isinstance(as_of_ts, bool)
        ):
            raise InvalidInput("as_of_ts", "must be integer epoch seconds or None")
        with self._lock:
            total = self._idmap.ntotal
            mask = None if len(self._pos) == total else self._alive
            if as_of_ts is not None:
                older = self._ts <= as_of_ts
                mask = older if mask is None else older & mask
            passing = total if mask is None else int(np.count_nonzero(mask))
            if passing == 0 or len(query) == 0:
                return [[] for _ in range(len(query))]
            k = min(int(k), passing)
            bits = None if passing == total else np.packbits(mask, bitorder="little")
            selector = None if bits is None else faiss.IDSelectorBitmap(total, faiss.swig_ptr(bits))
            scores, slots = self._search(query, k, selector, passing, total)
            return [
                [
                    Hit(self._node_ids[s], int(self._vids[s]), float(d), int(self._ts[s]))
                    for d, s in zip(row_scores, row_slots, strict=True)
                    if s >= 0
                ]
                for row_scores, row_slots in zip(scores.tolist(), slots.tolist(), strict=True)
            ]

    def _search(
        self, query: np.ndarray, k: int, selector: Any, passing: int, total: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Search `inner` (ids are slots); exact whenever ANN could come back short."""
        if self._kind == "flat":
            params = None if selector is None else faiss.SearchParameters(sel=selector)
            return self._inner.search(query, k, params=params)
        if selector is not None and passing <= self.config.exact_below:
            return self._exact(query, k, selector)
        widen = total / passing  # a narrow filter leaves fewer candidates per visited node
        if self._kind == "hnsw":
            ef = min(_MAX_EF, max(k, math.ceil(self.config.ef_search * widen)))
            params = faiss.SearchParametersHNSW(sel=selector, efSearch=ef)
        else:
            nprobe = min(self._inner.nlist, math.ceil(self.config.nprobe * widen))
            params = faiss.SearchParametersIVF(sel=selector, nprobe=nprobe)
        scores, slots = self._inner.search(query, k, params=params)
        if int(np.count_nonzero(slots >= 0, axis=1).min()) < k:
            return self._exact(query, k, selector)
        return scores, slots

    def _exact(self, query: np.ndarray, k: int, selector: Any) -> tuple[np.ndarray, np.ndarray]:
        if self._kind == "hnsw":
            storage = faiss.downcast_index(self._inner.storage)
            params = None if selector is None else faiss.SearchParameters(sel=selector)
            return storage.search(query, k, params=params)
        # an IVFFlat search over every list is an exhaustive scan
        params = faiss.SearchParametersIVF(sel=selector, nprobe=self._inner.nlist)
        return self._inner.search(query, k, params=params)

    # --- persistence -----------------------------------------------------------------------

    def save(self, directory: str | Path, synced_at: float | None = None) -> None:
        """Write `<label>.faiss` and `<label>.npz` atomically into `directory`.

        `synced_at`: the wall time at which the index was last known to match the graph.
        """
        directory = Path(directory)
        with self._lock:
            directory.mkdir(parents=True, exist_ok=True)
            blob = faiss.serialize_index(self._idmap)
            live = self._vids[self._alive]
            meta = {
                "format": FORMAT_VERSION,
                "label": self.label,
                "model": self.model_name,
                "dim": self.dim,
                "kind": self._kind,
                "count": len(live),
                "slots": len(self._vids),
                "checksum": _checksum(live),
                "saved_at": int(time.time()),
                "synced_at": synced_at,
            }
            faiss_path, side_path = _paths(directory, self.label)
            # each file is replaced atomically; a crash between the two leaves a pair whose
            # watermark no longer matches the index, which load() rejects
            _atomic_write(side_path, lambda f: np.savez(f, **self._arrays(meta)))
            _atomic_write(faiss_path, lambda f: f.write(blob.tobytes()))
            _fsync_dir(directory)
            self.dirty = False

    def _arrays(self, meta: dict[str, Any]) -> dict[str, np.ndarray]:
        return {
            "vids": self._vids,
            "ts": self._ts,
            "alive": self._alive,
            "node_ids": np.array(self._node_ids, dtype=np.str_),
            "meta": np.array(json.dumps(meta)),
        }

    @classmethod
    def load(
        cls,
        directory: str | Path,
        label: str,
        dim: int,
        model_name: str,
        config: VectorConfig | None = None,
    ) -> VectorIndex:
        """The index saved in `directory`; VectorIndexError says why it cannot be used."""
        faiss_path, side_path = _paths(Path(directory), label)
        if not (faiss_path.is_file() and side_path.is_file()):
            raise VectorIndexError(f"no saved {label} index in {directory}")
        try:
            with np.load(side_path, allow_pickle=False) as side:
                meta = json.loads(str(side["meta"]))
                vids = side["vids"].astype(np.int64)
                ts = side["ts"].astype(np.int64)
                alive = side["alive"].astype(bool)
                node_ids = side["node_ids"].tolist()
            idmap = faiss.read_index(str(faiss_path))
        except (OSError, ValueError, KeyError, RuntimeError) as error:
            raise VectorIndexError(f"saved {label} index is unreadable: {error}") from error
        _check_watermark(meta, label, dim, model_name)
        index = cls(label, dim, model_name, config)
        index._adopt(idmap, meta, vids, ts, alive, node_ids)
        if index.kind != index._kind_for(len(index)):
            index._rebuild()  # the config changed since the save: rebuild from these vectors
        return index

    def _adopt(
        self,
        idmap: Any,
        meta: dict[str, Any],
        vids: np.ndarray,
        ts: np.ndarray,
        alive: np.ndarray,
        node_ids: list[str],
    ) -> None:
        """Take over a loaded index after checking it matches its sidecar."""
        lengths = {len(vids), len(ts), len(alive), len(node_ids), meta.get("slots")}
        live = vids[alive] if len(alive) == len(vids) else vids
        if (
            lengths != {idmap.ntotal}
            or idmap.d != self.dim
            or meta.get("count") != len(live)
            or meta.get("checksum") != _checksum(live)
            or meta.get("kind") not in ("flat", "hnsw", "ivf")
            or not np.array_equal(faiss.vector_to_array(idmap.id_map), vids)
        ):
            raise VectorIndexError(f"saved {self.label} index does not match its sidecar")
        inner = faiss.downcast_index(idmap.index)
        if meta["kind"] == "hnsw":
            inner.hnsw.efConstruction = self.config.ef_construction
        self._set_index(meta["kind"], inner, idmap)
        self._vids, self._ts, self._alive, self._node_ids = vids, ts, alive, node_ids
        self._pos = {int(v): i for i, v in enumerate(vids.tolist()) if alive[i]}
        self.dirty = False


class VectorStore:
    """The vector indexes of every embedded label, opened lazily and checked against the graph."""

    def __init__(
        self,
        store: Store,
        data_dir: str | Path,
        embedder_name: str,
        dim: int,
        config: VectorConfig | None = None,
    ) -> None:
        if not isinstance(embedder_name, str) or not embedder_name:
            raise InvalidInput("embedder_name", "must be a non-empty string")
        if not isinstance(dim, int) or isinstance(dim, bool) or dim < 1:
            raise InvalidInput("dim", "must be a positive integer")
        self.store = store
        self.directory = Path(data_dir) / "vectors"
        self.embedder_name = embedder_name
        self.dim = dim
        self.config = config or VectorConfig()
        self._indexes: dict[str, VectorIndex] = {}
        self._reports: dict[str, OpenReport] = {}
        # one lock per label: a slow rebuild of one label must not block the others
        self._locks = {label: threading.RLock() for label in LABELS}
        self._seen: dict[str, int] = {}  # graph signature the index was last synced to
        self._checked: dict[str, float] = {}  # monotonic time of the last signature read
        self._synced_at: dict[str, float] = {}  # wall time the index last matched the graph
        self._stale: set[str] = set()  # labels whose index add failed after a graph write

    def index(self, label: str) -> VectorIndex:
        """The index of `label`, opened (loaded or rebuilt, then checked) on first use."""
        if label not in LABELS:
            raise InvalidInput("label", f"must be one of {', '.join(LABELS)}")
        with self._locks[label]:
            if label not in self._indexes:
                self._indexes[label] = self._open(label)
            return self._indexes[label]

    def report(self, label: str) -> OpenReport | None:
        """How `label`'s index was opened, or None if it has not been opened."""
        return self._reports.get(label)

    def _open(self, label: str) -> VectorIndex:
        # the signature is read before the graph is: a write in between is caught next time
        wall, self._checked[label] = time.time(), time.monotonic()
        self._seen[label] = self._signature(label)
        try:
            index = VectorIndex.load(
                self.directory, label, self.dim, self.embedder_name, self.config
            )
            loaded, reason = True, None
        except VectorIndexError as error:
            index = VectorIndex(label, self.dim, self.embedder_name, self.config)
            loaded, reason = False, str(error)
            log.info("rebuilding the %s vector index from the graph: %s", label, reason)
        added, removed = self._sync(label, index)
        self._synced_at[label] = wall
        self._reports[label] = OpenReport(label, loaded, reason, added, removed)
        if not loaded:
            # a rebuild is costly: do not repeat it after a crash
            self._save_unless_newer(label, index)
        return index

    def _signature(self, label: str) -> int:
        """The graph's embedded-node count of `label` (see cypher/vectors.cypher count_*)."""
        rows = self.store.read(_COUNT[label])
        return int(rows[0]["n"]) if rows else 0

    def refresh(self, label: str, force: bool = False) -> tuple[int, int]:
        """Catch `label`'s index up with writes by other processes; (added, removed).

        Reads the graph signature at most every `refresh_ms` unless `force` or the label is
        stale, and diffs the whole label only when the signature moved.
        """
        index = self.index(label)
        due = time.monotonic() - self._checked.get(label, 0.0) >= self.config.refresh_ms / 1000
        if not (force or due or label in self._stale):
            return 0, 0
        with self._locks[label]:
            wall, self._checked[label] = time.time(), time.monotonic()
            signature = self._signature(label)
            if signature == self._seen.get(label) and label not in self._stale:
                self._synced_at[label] = wall
                return 0, 0
            self._stale.discard(label)
            self._seen[label] = signature
            try:
                added, removed = self._sync(label, index)
            except BaseException:
                self._stale.add(label)
                raise
            self._synced_at[label] = wall
        if added or removed:
            log.info("%s vector index caught up with the graph: +%d -%d", label, added, removed)
        return added, removed

    def _graph_vids(self, label: str) -> dict[int, str]:
        """vid → id of every embedded `label` node in the graph."""
        if self.store.engine != "falkordb":
            return {int(row["vid"]): row["id"] for row in self.store.read(_VIDS[label])}
        rows = self.store.read(_VID_PAIRS[label])
        text = rows[0]["pairs"] if rows else None
        return {int(vid): node_id for vid, node_id in json.loads(text or "[]")}

    def _sync(self, label: str, index: VectorIndex) -> tuple[int, int]:
        """Make `index` hold exactly the graph's embedded nodes of `label`."""
        in_graph = self._graph_vids(label)
        have = index.vids()
        removed = index.remove(sorted(have - in_graph.keys()))
        missing = sorted(in_graph[v] for v in in_graph.keys() - have)
        added = 0
        for start in range(0, len(missing), FETCH_BATCH):
            rows = self._fetch(label, missing[start : start + FETCH_BATCH])
            try:
                added += index.add(*self._columns(label, rows))
            except InvalidInput as error:
                raise VectorIndexError(
                    f"{label} nodes in the graph are malformed: {error}"
                ) from error
        return added, removed

    def _fetch(self, label: str, node_ids: list[str]) -> list[dict[str, Any]]:
        """Rows of (id, vid, ts, embedding as stored: text or list) for these nodes."""
        if self.store.engine != "falkordb":
            return self.store.read(_FETCH[label], ids=node_ids)
        rows = self.store.read(_FETCH_JSON[label], ids=node_ids)
        for row in rows:
            # a bad value stays as it is: _columns then names the node and what is wrong
            with contextlib.suppress(TypeError, ValueError):
                row["embedding"] = json.loads(row["embedding"])
        return rows

    def _columns(
        self, label: str, rows: list[dict[str, Any]]
    ) -> tuple[list[str], list[int], list[int], np.ndarray]:
        decoded = []
        for row in rows:
            vec = embcodec.decode(row["embedding"])
            if vec is None or vec.shape != (self.dim,):
                size = "unreadable" if vec is None else f"size {vec.size}"
                raise VectorIndexError(
                    f"{label} {row['id']!r}: stored embedding is {size} but model "
                    f"{self.embedder_name!r} has dim {self.dim}; re-embed the node"
                )
            decoded.append(vec)
        vectors = np.array(decoded, dtype=np.float32)
        return (
            [row["id"] for row in rows],
            [row["vid"] for row in rows],
            [row["ts"] for row in rows],
            vectors.reshape(len(rows), self.dim),
        )

    def add(
        self,
        label: str,
        node_ids: Sequence[str],
        vids: Sequence[int] | np.ndarray,
        ts: Sequence[int] | np.ndarray,
        embeddings: Sequence[Sequence[float]] | np.ndarray,
    ) -> int:
        """Index nodes just written to the graph; already indexed vids are skipped.

        If this fails, the nodes are in the graph but not the index: the label is marked
        stale, so the next search (or `refresh`) fetches them from the graph.
        """
        index = self.index(label)
        try:
            added = index.add(node_ids, vids, ts, embeddings)
        except BaseException:
            self._stale.add(label)
            raise
        self._count_own(label, added)
        return added

    def remove(self, label: str, vids: Sequence[int] | np.ndarray) -> int:
        """Drop nodes deleted from the graph; return how many were indexed."""
        index = self.index(label)
        try:
            removed = index.remove(vids)
        except BaseException:
            self._stale.add(label)
            raise
        self._count_own(label, -removed)
        return removed

    def _count_own(self, label: str, change: int) -> None:
        # this process's own writes move the graph signature too: not a reason to diff
        with self._locks[label]:
            if label in self._seen:
                self._seen[label] += change

    def search(
        self,
        label: str,
        query_vec: Sequence[float] | np.ndarray,
        k: int,
        as_of_ts: int | None = None,
    ) -> list[Hit]:
        """The k `label` nodes most similar to `query_vec` with ts <= as_of_ts."""
        self.refresh(label)
        return self.index(label).search(query_vec, k, as_of_ts)

    def search_many(
        self, label: str, queries: np.ndarray, k: int, as_of_ts: int | None = None
    ) -> list[list[Hit]]:
        """search() for each row of `queries` in one FAISS call."""
        self.refresh(label)
        return self.index(label).search_many(queries, k, as_of_ts)

    def save(self) -> None:
        """Save every opened index that changed, after catching up with the graph."""
        for label, index in list(self._indexes.items()):
            if not index.dirty:
                continue
            try:
                self.refresh(label, force=True)
            except GraphmemError as error:  # the graph is unreachable: save what we have
                log.warning("saving the %s index without catching up: %s", label, error)
            self._save_unless_newer(label, index)

    def _save_unless_newer(self, label: str, index: VectorIndex) -> None:
        """Save `index` unless the saved one was in step with the graph at a later time."""
        mine = self._synced_at.get(label)
        with self._locks[label], _file_lock(self.directory):
            theirs = saved_watermark(self.directory, label)
            if theirs is not None and (mine is None or theirs > mine):
                log.info("%s index on disk is newer than this process's: not replaced", label)
                index.dirty = False
                return
            index.save(self.directory, mine)

    def close(self) -> None:
        """Save and forget every opened index."""
        self.save()
        self._indexes.clear()

    def __enter__(self) -> VectorStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- helpers -----------------------------------------------------------------------------------


def saved_watermark(directory: str | Path, label: str) -> float | None:
    """When the saved index of `label` was last known to match the graph, if readable."""
    _, side_path = _paths(Path(directory), label)
    try:
        with np.load(side_path, allow_pickle=False) as side:
            value = json.loads(str(side["meta"])).get("synced_at")
    except (OSError, ValueError, KeyError):
        return None
    return float(value) if isinstance(value, int | float) else None


@contextlib.contextmanager
def _file_lock(directory: Path) -> Any:
    """An exclusive lock between processes saving into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "a+b") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def _paths(directory: Path, label: str) -> tuple[Path, Path]:
    return directory / f"{label}.faiss", directory / f"{label}.npz"


def _checksum(vids: np.ndarray) -> str:
    """A digest of the vid set, independent of slot order."""
    return hashlib.sha256(np.sort(vids).astype(">i8").tobytes()).hexdigest()


def _check_watermark(meta: dict[str, Any], label: str, dim: int, model_name: str) -> None:
    if meta.get("format") != FORMAT_VERSION or meta.get("label") != label:
        raise VectorIndexError(f"saved {label} index has format/label {meta.get('format')}")
    if meta.get("model") != model_name or meta.get("dim") != dim:
        raise VectorIndexError(
            f"saved {label} index is for model {meta.get('model')!r} (dim {meta.get('dim')}), "
            f"not {model_name!r} (dim {dim})"
        )


def _atomic_write(path: Path, write: Any) -> None:
    """Write through a temp file, fsync it, then rename it over `path`."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _fsync_dir(directory: Path) -> None:
    # makes the renames durable; not every platform can open a directory
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _checked_ints(field: str, values: Any, n: int | None, low: int, high: int) -> np.ndarray:
    try:
        arr = np.asarray(values)
    except (OverflowError, ValueError, TypeError):
        raise InvalidInput(field, "must be a flat list of 64-bit integers") from None
    if arr.size == 0 and (n is None or n == 0):
        return np.empty(0, dtype=np.int64)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise InvalidInput(field, "must be a flat list of integers")
    if n is not None and len(arr) != n:
        raise InvalidInput(field, f"has {len(arr)} items but node_ids has {n}")
    if int(arr.min()) < low or int(arr.max()) > high:
        raise InvalidInput(field, f"values must be between {low} and {high}")
    return arr.astype(np.int64)


def _checked_batch(
    dim: int, node_ids: Sequence[str], vids: Any, ts: Any, embeddings: Any
) -> _Batch:
    if isinstance(node_ids, str | bytes) or not isinstance(node_ids, Sequence):
        raise InvalidInput("node_ids", "must be a list of strings")
    for i, node_id in enumerate(node_ids):
        if not isinstance(node_id, str) or not node_id:
            raise InvalidInput(f"node_ids[{i}]", "must be a non-empty string")
    n = len(node_ids)
    vid_arr = _checked_ints("vids", vids, n, 0, _MAX_VID)
    ts_arr = _checked_ints("ts", ts, n, -(1 << 63), _MAX_VID)
    for i, (node_id, vid) in enumerate(zip(node_ids, vid_arr.tolist(), strict=True)):
        if vector_id(node_id) != vid:
            raise InvalidInput(f"vids[{i}]", f"is not vector_id({node_id!r})")
    try:
        vectors = np.array(embeddings, dtype=np.float32).reshape(n, dim)
    except (ValueError, TypeError):
        raise InvalidInput("embeddings", f"must be {n} vectors of size {dim}") from None
    return _Batch(list(node_ids), vid_arr, ts_arr, _normalised("embeddings", vectors))


def _normalised(field: str, vectors: np.ndarray) -> np.ndarray:
    # the index scores by inner product, which is the cosine only for unit vectors
    if not np.all(np.isfinite(vectors)):
        raise InvalidInput(field, "contains NaN or infinite values")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise InvalidInput(field, "contains an all-zero vector")
    return np.ascontiguousarray(vectors / norms, dtype=np.float32)


def _checked_query(query_vec: Any, dim: int) -> np.ndarray:
    try:
        query = np.array(query_vec, dtype=np.float32).reshape(1, dim)
    except (ValueError, TypeError):
        raise InvalidInput("query_vec", f"must be one vector of size {dim}") from None
    return _normalised("query_vec", query)


def _checked_queries(queries: Any, dim: int) -> np.ndarray:
    query = np.asarray(queries, dtype=np.float32)
    if query.ndim != 2 or query.shape[1] != dim:
        raise InvalidInput("queries", f"must be a matrix of shape (m, {dim})")
    return _normalised("queries", np.ascontiguousarray(query))


def _dedupe(batch: _Batch, present: dict[int, int]) -> _Batch | None:
    """The part of `batch` not yet indexed, first occurrence of each vid; None if empty."""
    seen: set[int] = set()
    keep: list[int] = []
    for i, vid in enumerate(batch.vids.tolist()):
        if vid not in present and vid not in seen:
            seen.add(vid)
            keep.append(i)
    if not keep:
        return None
    if len(keep) == len(batch.vids):
        return batch
    return _Batch(
        [batch.node_ids[i] for i in keep], batch.vids[keep], batch.ts[keep], batch.vectors[keep]
    )
