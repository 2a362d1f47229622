"""Appending points to a series: archive, online segmentation and detector state in one write."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.errors import StoreError
from graphmem.series.archive import CHUNK_SIZE, Points, chunk_rows, read_index_range
from graphmem.series.batch import check_follows, validate_batch
from graphmem.series.catalog import SeriesInfo, get_series
from graphmem.series.segmenter import OnlineSegmenter, SegmenterConfig
from graphmem.series.segments import Segment, build_segment, get_segment, segment_id
from graphmem.series.stats import SuffStats
from graphmem.store import Store


@dataclass(frozen=True)
class AppendResult:
    """What one append did."""

    series_id: str
    accepted: int  # points stored
    skipped: int  # missing (NaN) values skipped
    duplicate: bool  # the batch had been ingested before: nothing changed
    segments: list[Segment]  # segments closed or updated by this batch, the open one last


@dataclass(frozen=True)
class IngestState:
    """Per-series ingestion state kept on the Series node."""

    n_points: int = 0
    n_skipped: int = 0
    n_batches: int = 0
    t0: float | None = None
    last_ts: float | None = None
    end_ts: float | None = None
    open_idx: int = 0
    open_i0: int = 0
    segmenter: str | None = None

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> IngestState:
        return cls(
            n_points=node.get("n_points") or 0,
            n_skipped=node.get("n_skipped") or 0,
            n_batches=node.get("n_batches") or 0,
            t0=node.get("t0"),
            last_ts=node.get("last_ts"),
            end_ts=node.get("end_ts"),
            open_idx=node.get("open_idx") or 0,
            open_i0=node.get("open_i0") or 0,
            segmenter=node.get("segmenter"),
        )


def append(
    store: Store,
    series_ref: str,
    timestamps: Any,
    values: Any,
    config: SegmenterConfig | None = None,
) -> AppendResult:
    """Append one batch atomically; re-sending a batch already ingested changes nothing.

    `config` applies to a series' first batch; later batches resume the stored detector.
    """
    series = get_series(store, series_ref)
    batch = validate_batch(timestamps, values)
    batch_id = batch.digest(series.id)
    if store.read("ingest.batch_seen", id=batch_id):
        return AppendResult(series.id, 0, 0, True, [])
    state = IngestState.from_node(store.read("series.get", id=series.id)[0]["s"])
    check_follows(batch, state.last_ts)

    keep = ~batch.missing
    new = Points(batch.ts[keep], batch.xs[keep])
    skipped = int(len(batch.ts) - len(new))
    segmenter = _segmenter(state, config)
    boundaries = segmenter.push(new.xs) if len(new) else []
    t0 = state.t0 if state.t0 is not None else (float(new.ts[0]) if len(new) else None)
    segments = _segments(store, series, state, new, boundaries, t0)
    partial = _partial_chunk(store, series.id, state.n_points)

    written = store.write(
        "ingest.append",
        series_id=series.id,
        expected_points=state.n_points,
        expected_batches=state.n_batches,
        series={
            "t0": t0,  # also the first stored point's time
            "end_ts": float(new.ts[-1]) if len(new) else state.end_ts,
            "last_ts": float(batch.ts[-1]),  # the last time seen, missing values included
            "n_points": state.n_points + len(new),
            "n_skipped": state.n_skipped + skipped,
            "n_batches": state.n_batches + 1,
            "open_idx": state.open_idx + len(boundaries),
            "open_i0": boundaries[-1] if boundaries else state.open_i0,
            "segmenter": json.dumps(segmenter.state()),
        },
        chunks=chunk_rows(series.id, state.n_points, partial, new),
        segments=[s.to_row() for s in segments],
        links=[{"prev": segment_id(series.id, s.idx - 1), "next": s.id} for s in segments[1:]],
        batch={
            "id": batch_id,
            "n": len(new),
            "n_skipped": skipped,
            "first_ts": float(batch.ts[0]),
            "last_ts": float(batch.ts[-1]),
            "at": int(time.time()),
        },
    )
    if not written:
        raise StoreError(
            f"series {series.name!r} changed while this batch was being prepared "
            "(another writer?); nothing of this batch was stored, send it again"
        )
    return AppendResult(series.id, len(new), skipped, False, segments)


def _segmenter(state: IngestState, config: SegmenterConfig | None) -> OnlineSegmenter:
    if state.segmenter:
        return OnlineSegmenter.from_state(json.loads(state.segmenter))
    return OnlineSegmenter(config or SegmenterConfig())


def _partial_chunk(store: Store, series_id: str, n_prev: int) -> Points:
    """Points of the last chunk when it is not full yet (they are rewritten with the new ones)."""
    start = n_prev - n_prev % CHUNK_SIZE
    return read_index_range(store, series_id, start, n_prev)


def _segments(
    store: Store,
    series: SeriesInfo,
    state: IngestState,
    new: Points,
    boundaries: list[int],
    t0: float | None,
) -> list[Segment]:
    """The segment that was open (grown or closed), then every segment this batch starts.

    A segment that closes gets its statistics from all of its raw points, read back from
    the archive, so closed segments do not depend on how the stream was batched. The open
    segment grows by merging sufficient statistics; it is recomputed when it closes.
    """
    if len(new) == 0:
        return []
    n_prev, b = state.n_points, state.open_i0
    n_end = n_prev + len(new)
    if not boundaries and n_prev > b:
        stored = get_segment(store, segment_id(series.id, state.open_idx)).stats
        grown = stored.merge(SuffStats.from_points(new.ts, new.xs, t0))
        return [build_segment(series, state.open_idx, b, grown, open=True)]
    points = read_index_range(store, series.id, b, n_prev).then(new)  # points b .. n_end-1
    cuts = [b, *boundaries, n_end]
    out = []
    for k, (i, j) in enumerate(zip(cuts[:-1], cuts[1:], strict=True)):
        part = points[i - b : j - b]
        stats = SuffStats.from_points(part.ts, part.xs, t0)
        out.append(build_segment(series, state.open_idx + k, i, stats, open=j == n_end))
    return out


def ingest_all(
    store: Store,
    series_ref: str,
    ts: np.ndarray,
    xs: np.ndarray,
    batch_size: int = 10_000,
    progress: Any = None,
) -> list[AppendResult]:
    """Append a whole array in batches (each atomic); `progress(n)` is called after each."""
    results = []
    for lo in range(0, len(ts), batch_size):
        results.append(
            append(store, series_ref, ts[lo : lo + batch_size], xs[lo : lo + batch_size])
        )
        if progress is not None:
            progress(min(batch_size, len(ts) - lo))
    return results
