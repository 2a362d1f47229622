"""The raw points archive: Chunk nodes of CHUNK_SIZE points each, and exact range statistics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.errors import InvalidInput
from graphmem.series.detect.stats import SuffStats
from graphmem.store import Store
from graphmem.store.base import Floats

CHUNK_SIZE = 1024


@dataclass(frozen=True)
class Points:
    """Timestamps (epoch seconds) and values, aligned."""

    ts: np.ndarray
    xs: np.ndarray

    def __len__(self) -> int:
        return len(self.ts)

    @classmethod
    def empty(cls) -> Points:
        return cls(np.empty(0), np.empty(0))

    def __getitem__(self, sl: slice) -> Points:
        return Points(self.ts[sl], self.xs[sl])

    def then(self, other: Points) -> Points:
        return Points(np.concatenate([self.ts, other.ts]), np.concatenate([self.xs, other.xs]))


def chunk_id(series_id: str, k: int) -> str:
    return f"{series_id}:chunk:{k:08d}"


def _floats(value: list[float]) -> np.ndarray:
    return np.asarray(value, dtype=np.float64)


def _concat(rows: list[dict[str, Any]]) -> Points:
    if not rows:
        return Points.empty()
    ts = np.concatenate([_floats(r["ts"]) for r in rows])
    xs = np.concatenate([_floats(r["xs"]) for r in rows])
    return Points(ts, xs)


def _read(store: Store, name: str, **params: Any) -> Points:
    """Run a chunk read (its point lists as JSON text where the engine is faster that way)."""
    return _concat(store.read_lists(name, **params))


def read_index_range(store: Store, series_id: str, i0: int, i1: int) -> Points:
    """Points with global index i0 <= i < i1 (indices count stored, non-missing points)."""
    if i1 <= i0:
        return Points.empty()
    k0, k1 = i0 // CHUNK_SIZE, (i1 - 1) // CHUNK_SIZE
    points = _read(store, "chunks.by_index_range", series_id=series_id, k0=k0, k1=k1)
    offset = k0 * CHUNK_SIZE
    return points[i0 - offset : i1 - offset]


def read_time_range(store: Store, series_id: str, start: float, end: float) -> Points:
    """Points with start <= timestamp <= end."""
    if end < start:
        raise InvalidInput("end", "must not be before start")
    points = _read(store, "chunks.by_time_range", series_id=series_id, start=start, end=end)
    lo = int(np.searchsorted(points.ts, start, side="left"))
    hi = int(np.searchsorted(points.ts, end, side="right"))
    return points[lo:hi]


def read_time_ranges(store: Store, series_id: str, ranges: list[tuple[float, float]]) -> Points:
    """Every point of the chunks overlapping any of the [start, end] ranges, in time order.

    Callers pick the points they need with searchsorted; one query however many ranges.
    """
    if not ranges:
        return Points.empty()
    ranges_param = [{"start": a, "end": b} for a, b in ranges]
    return _read(store, "chunks.by_time_ranges", series_id=series_id, ranges=ranges_param)


def range_stats(store: Store, series_id: str, t0: float, start: float, end: float) -> SuffStats:
    """Exact statistics of the points in [start, end] from the archive (empty() if none)."""
    points = read_time_range(store, series_id, start, end)
    if len(points) == 0:
        return SuffStats.empty()
    return SuffStats.from_points(points.ts, points.xs, t0)


def chunk_rows(series_id: str, n_prev: int, partial: Points, new: Points) -> list[dict[str, Any]]:
    """Chunk nodes to write after appending `new` to a series holding n_prev points.

    `partial` holds the points already in the last, not yet full chunk (if any).
    """
    first_k = n_prev // CHUNK_SIZE
    points = partial.then(new)
    rows = []
    for j in range(0, len(points), CHUNK_SIZE):
        part = points[j : j + CHUNK_SIZE]
        k = first_k + j // CHUNK_SIZE
        rows.append(
            {
                "id": chunk_id(series_id, k),
                "series_id": series_id,
                "idx": k,
                "t0": float(part.ts[0]),
                "t1": float(part.ts[-1]),
                "n": len(part),
                "ts": Floats(part.ts.tolist()),
                "xs": Floats(part.xs.tolist()),
            }
        )
    return rows
