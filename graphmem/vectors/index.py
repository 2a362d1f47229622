"""The FAISS index of one label: building, adding, removing, as-of search, saving.

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
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import faiss
import numpy as np

from graphmem.errors import InvalidInput
from graphmem.vectors.checks import (
    _Batch,
    _checked_batch,
    _checked_ints,
    _checked_queries,
    _checked_query,
    _dedupe,
    _held_vids,
)
from graphmem.vectors.model import (
    _MAX_VID,
    Clock,
    Columns,
    DamagedIndexFile,
    Hit,
    VectorConfig,
    VectorIndexError,
)
from graphmem.vectors.persist import SavedIndex, index_paths, read_index, write_index
from graphmem.vectors.rwlock import ReadWriteLock

log = logging.getLogger(__name__)
T = TypeVar("T")

_MAX_EF = 4096  # caps how far a narrow filter may widen an HNSW search before going exact


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
        self.synced = Clock()  # a loaded index: the vector clock it was saved at
        # searches share it (FAISS searches are const and release the GIL); adds, removals
        # and rebuilds hold it alone
        self._lock = ReadWriteLock()
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
        with self._lock.shared():
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
        if kind == "ivf" and inner.direct_map.type == faiss.DirectMap.NoMap:
            inner.make_direct_map(True)  # vectors() reads single items back; adds keep it
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
        with self._lock.exclusive():
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
        with self._lock.exclusive():
            gone = _held_vids(vids, self._pos)
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

    def vectors(self, vids: Sequence[int] | np.ndarray) -> dict[int, np.ndarray]:
        """The stored vector of each of `vids` that is indexed (others are left out)."""
        wanted = _checked_ints("vids", vids, None, 0, _MAX_VID).tolist()
        with self._lock.shared():
            held = [v for v in dict.fromkeys(wanted) if v in self._pos]
            if not held:
                return {}
            slots = np.array([self._pos[v] for v in held], dtype=np.int64)
            rows = self._inner.reconstruct_batch(slots)
        return dict(zip(held, rows, strict=True))

    # --- searching -------------------------------------------------------------------------

    def search(
        self,
        query_vec: Sequence[float] | np.ndarray,
        k: int,
        as_of_ts: int | None = None,
        among: Sequence[int] | np.ndarray | None = None,
    ) -> list[Hit]:
        """The k items most similar to `query_vec`, only among items with ts <= as_of_ts.

        `among`: only items with these vids (unknown vids are ignored).
        """
        return self.search_many(_checked_query(query_vec, self.dim), k, as_of_ts, among)[0]

    def search_many(
        self,
        queries: np.ndarray,
        k: int,
        as_of_ts: int | None = None,
        among: Sequence[int] | np.ndarray | None = None,
    ) -> list[list[Hit]]:
        """search() for each row of `queries` (shape (m, dim)) in one FAISS call.

        One call scores all rows as a matrix product, far cheaper than m single searches.
        """
        return self._searched(_checked_queries(queries, self.dim), k, as_of_ts, among, self._hits)

    def search_columns(
        self, query_vec: Sequence[float] | np.ndarray, k: int, as_of_ts: int | None = None
    ) -> Columns:
        """search() as columns, without a Hit per item: for callers that rank hundreds."""
        query = _checked_query(query_vec, self.dim)
        return self._searched(query, k, as_of_ts, None, self._columns)[0]

    def _hits(self, scores: np.ndarray, slots: np.ndarray) -> list[list[Hit]]:
        return [
            [
                Hit(self._node_ids[s], int(self._vids[s]), float(d), int(self._ts[s]))
                for d, s in zip(row_scores, row_slots, strict=True)
                if s >= 0
            ]
            for row_scores, row_slots in zip(scores.tolist(), slots.tolist(), strict=True)
        ]

    def _columns(self, scores: np.ndarray, slots: np.ndarray) -> list[Columns]:
        out = []
        for row_scores, row_slots in zip(scores, slots, strict=True):
            found = row_slots[row_slots >= 0]
            out.append(
                Columns(
                    [self._node_ids[s] for s in found.tolist()],
                    self._vids[found],
                    row_scores[row_slots >= 0].astype(np.float64),
                    self._ts[found],
                )
            )
        return out

    def _searched(
        self,
        query: np.ndarray,
        k: int,
        as_of_ts: int | None,
        among: Sequence[int] | np.ndarray | None,
        found: Callable[[np.ndarray, np.ndarray], list[T]],
    ) -> list[T]:
        """search_many's work; `found` reads the slots FAISS returns, under the shared lock."""
        if not isinstance(k, int | np.integer) or isinstance(k, bool) or k < 1:
            raise InvalidInput("k", "must be a positive integer")
        if as_of_ts is not None and (
            not isinstance(as_of_ts, int | np.integer) or isinstance(as_of_ts, bool)
        ):
            raise InvalidInput("as_of_ts", "must be integer epoch seconds or None")
        wanted = None if among is None else _checked_ints("among", among, None, 0, _MAX_VID)
        with self._lock.shared():
            total = self._idmap.ntotal
            mask = None if len(self._pos) == total else self._alive
            if as_of_ts is not None:
                older = self._ts <= as_of_ts
                mask = older if mask is None else older & mask
            if wanted is not None:  # the same bitmap selector, set from the slots of `among`
                chosen = np.zeros(total, dtype=bool)
                chosen[[self._pos[v] for v in wanted.tolist() if v in self._pos]] = True
                mask = chosen if mask is None else chosen & mask
            passing = total if mask is None else int(np.count_nonzero(mask))
            if passing == 0 or len(query) == 0:
                none = np.empty((len(query), 0))
                return found(none.astype(np.float32), none.astype(np.int64))
            k = min(int(k), passing)
            bits = (
                None if mask is None or passing == total else np.packbits(mask, bitorder="little")
            )
            selector = None if bits is None else faiss.IDSelectorBitmap(total, faiss.swig_ptr(bits))
            return found(*self._search(query, k, selector, passing, total))

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

    def save(
        self, directory: str | Path, synced_at: float | None = None, clock: Clock | None = None
    ) -> None:
        """Write `<label>.faiss` and `<label>.npz` atomically into `directory`.

        `synced_at`: the wall time at which the index was last known to match the graph;
        `clock`: the label's vector clock whose every re-embedding the index holds.
        """
        clock = clock or Clock()
        with self._lock.shared():
            blob = faiss.serialize_index(self._idmap)
            meta = {
                "label": self.label,
                "model": self.model_name,
                "dim": self.dim,
                "kind": self._kind,
                "count": len(self._pos),
                "slots": len(self._vids),
                "saved_at": int(time.time()),
                "synced_at": synced_at,
                "rev": clock.rev,
                "epoch": clock.epoch,
            }
            arrays = {  # copies: `alive` changes in place, and the write runs unlocked
                "vids": self._vids.copy(),
                "ts": self._ts.copy(),
                "alive": self._alive.copy(),
                "node_ids": np.array(self._node_ids, dtype=np.str_),
            }
            self.dirty = False  # an add from here on makes it dirty again
        try:
            write_index(Path(directory), self.label, blob, arrays, meta)
        except BaseException:
            self.dirty = True
            raise

    @classmethod
    def load(
        cls,
        directory: str | Path,
        label: str,
        dim: int,
        model_name: str,
        config: VectorConfig | None = None,
    ) -> VectorIndex:
        """The index saved in `directory`; VectorIndexError says why it cannot be used
        (DamagedIndexFile: a file is unreadable or fails its checksum)."""
        saved = read_index(Path(directory), label)
        meta = saved.meta
        if meta.get("label") != label:
            raise VectorIndexError(f"saved {label} index holds label {meta.get('label')!r}")
        if meta.get("model") != model_name or meta.get("dim") != dim:
            raise VectorIndexError(
                f"saved {label} index is for model {meta.get('model')!r} (dim {meta.get('dim')}), "
                f"not {model_name!r} (dim {dim})"
            )
        index = cls(label, dim, model_name, config)
        index._adopt(saved, index_paths(Path(directory), label)[0])
        if index.kind != index._kind_for(len(index)):
            index._rebuild()  # the config changed since the save: rebuild from these vectors
        return index

    def _adopt(self, saved: SavedIndex, path: Path) -> None:
        """Take over a loaded index after checking it agrees with its side file."""
        idmap, meta = saved.idmap, saved.meta
        vids = saved.arrays["vids"].astype(np.int64)
        ts = saved.arrays["ts"].astype(np.int64)
        alive = saved.arrays["alive"].astype(bool)
        node_ids = saved.arrays["node_ids"].tolist()
        lengths = {len(vids), len(ts), len(alive), len(node_ids), meta.get("slots")}
        # the checksums passed, so a disagreement here means a pair from two different saves
        if (
            lengths != {idmap.ntotal}
            or idmap.d != self.dim
            or meta.get("count") != int(np.count_nonzero(alive))
            or meta.get("kind") not in ("flat", "hnsw", "ivf")
            or not np.array_equal(faiss.vector_to_array(idmap.id_map), vids)
        ):
            raise DamagedIndexFile(path, "it does not agree with its side file")
        inner = faiss.downcast_index(idmap.index)
        if meta["kind"] == "hnsw":
            inner.hnsw.efConstruction = self.config.ef_construction
        self._set_index(meta["kind"], inner, idmap)
        self._vids, self._ts, self._alive, self._node_ids = vids, ts, alive, node_ids
        self._pos = {int(v): i for i, v in enumerate(vids.tolist()) if alive[i]}
        rev, epoch = meta.get("rev"), meta.get("epoch")
        if isinstance(rev, int) and not isinstance(rev, bool) and isinstance(epoch, str):
            self.synced = Clock(rev, epoch)
        self.dirty = False
