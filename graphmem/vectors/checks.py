"""Argument checking for vector indexes: batches, ids, timestamps and unit vectors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.errors import InvalidInput
from graphmem.vectors.model import _MAX_VID, vector_id


@dataclass(frozen=True)
class _Batch:
    """Validated input to VectorIndex.add."""

    node_ids: list[str]
    vids: np.ndarray
    ts: np.ndarray
    vectors: np.ndarray


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


def _held_vids(vids: Any, held: Mapping[int, int]) -> list[int]:
    """The valid vids of `vids` that `held` (vid → slot) has, sorted, each once."""
    wanted = _checked_ints("vids", vids, None, 0, _MAX_VID)
    return sorted({v for v in wanted.tolist() if v in held})


def _checked_ids(node_ids: Any) -> Sequence[str]:
    """A list of non-empty node id strings; else InvalidInput."""
    if isinstance(node_ids, str | bytes) or not isinstance(node_ids, Sequence):
        raise InvalidInput("node_ids", "must be a list of strings")
    for i, node_id in enumerate(node_ids):
        if not isinstance(node_id, str) or not node_id:
            raise InvalidInput(f"node_ids[{i}]", "must be a non-empty string")
    return node_ids


def _checked_batch(
    dim: int, node_ids: Sequence[str], vids: Any, ts: Any, embeddings: Any
) -> _Batch:
    n = len(_checked_ids(node_ids))
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
