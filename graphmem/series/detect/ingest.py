"""Appending points to a series: archive, online segmentation and detector state in one write."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem import metrics
from graphmem.errors import InvalidInput, StoreError
from graphmem.series.catalog import SeriesInfo, get_series, get_series_node
from graphmem.series.detect.archive import (
    CHUNK_SIZE,
    Points,
    chunk_rows,
    read_index_range,
    read_time_range,
)
from graphmem.series.detect.batch import MAX_BATCH, Batch, check_follows, validate_batch
from graphmem.series.detect.segmenter import OnlineSegmenter, SegmenterConfig
from graphmem.series.detect.segments import Segment, build_segment, segment_id
from graphmem.series.detect.stats import SuffStats
from graphmem.store import Store
from graphmem.timeutil import iso


@dataclass(frozen=True)
class AppendResult:
    """What one append did."""

    series_id: str
    accepted: int  # points stored
    skipped: int  # missing (NaN) values skipped
    # the batch had been ingested before (by an earlier call, or by a concurrent writer that
    # landed it first): nothing changed
    duplicate: bool
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
    open_prefix: str | None = None  # JSON: the open segment's folded statistics (see _fold)
    segmenter: str | None = None
    n_closes: int = 0
    closed_at: int | None = None  # n_points when the stream was last closed

    @property
    def closed(self) -> bool:
        """Closed, and no point arrived since."""
        return self.closed_at is not None and self.closed_at == self.n_points

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
            open_prefix=node.get("open_prefix"),
            segmenter=node.get("segmenter"),
            n_closes=node.get("n_closes") or 0,
            closed_at=node.get("closed_at"),
        )


def append(
    store: Store,
    series_ref: str,
    timestamps: Any,
    values: Any,
    config: SegmenterConfig | None = None,
) -> AppendResult:
    """Append one batch atomically; re-sending a batch already ingested changes nothing.

    A batch is identified by its series, timestamps and values (missing ones included): a
    corrected batch with the same timestamps is not a duplicate but comes too late. `config`
    applies to a series' first batch; later batches resume the stored detector.
    """
    if config is not None and not isinstance(config, SegmenterConfig):
        raise InvalidInput("config", "must be a SegmenterConfig or None")
    node = get_series_node(store, series_ref)  # its state too: one read, not two
    batch = validate_batch(timestamps, values)
    return _append(store, SeriesInfo.from_node(node), batch, config, node)


def _append(
    store: Store,
    series: SeriesInfo,
    batch: Batch,
    config: SegmenterConfig | None,
    node: dict[str, Any] | None = None,
) -> AppendResult:
    """append() of a batch already validated; `node`: the series' node if just read.

    A state read before another writer's batch landed is safe: the write's guard on the
    counts refuses it, as it does when that batch lands after the read.
    """
    batch_id = batch.digest(series.id)
    if _seen(store, batch_id):
        return _duplicate(series.id)
    if node is None:
        node = store.read("series.get", id=series.id)[0]["s"]
    state = IngestState.from_node(node)
    try:
        check_follows(batch, state.last_ts)
    except InvalidInput:
        if _seen(store, batch_id):  # another writer landed this very batch since the check
            return _duplicate(series.id)
        raise
    segments = _write(store, series, state, batch, batch_id, config)
    if segments is None:
        if _seen(store, batch_id):  # the guard failed because this batch landed meanwhile
            return _duplicate(series.id)
        raise StoreError(
            f"series {series.name!r} changed while this batch was being prepared "
            "(another writer?); nothing of this batch was stored, send it again"
        )
    n_new = int(len(batch.ts) - np.count_nonzero(batch.missing))
    metrics.count(metrics.POINTS, n_new)
    return AppendResult(series.id, n_new, len(batch.ts) - n_new, False, segments)


def _seen(store: Store, batch_id: str) -> bool:
    return bool(store.read("ingest.batch_seen", id=batch_id))


def _duplicate(series_id: str) -> AppendResult:
    return AppendResult(series_id, 0, 0, True, [])


def _write(
    store: Store,
    series: SeriesInfo,
    state: IngestState,
    batch: Batch,
    batch_id: str,
    config: SegmenterConfig | None,
) -> list[Segment] | None:
    """Segment the batch and write it in one statement guarded on `state`: its segments, or
    None when the series no longer is in that state (another writer appended meanwhile)."""
    keep = ~batch.missing
    new = Points(batch.ts[keep], batch.xs[keep])
    skipped = int(len(batch.ts) - len(new))
    segmenter = _segmenter(state, config)
    boundaries = segmenter.push(new.xs) if len(new) else []
    t0 = state.t0 if state.t0 is not None else (float(new.ts[0]) if len(new) else None)
    partial = _partial_chunk(store, series.id, state.n_points)
    segments, prefix = _segments(store, series, state, new, boundaries, t0, partial)

    written = store.write(
        "ingest.append",
        series_id=series.id,
        expected_points=state.n_points,
        expected_batches=state.n_batches,
        expected_closes=state.n_closes,
        series={
            "t0": t0,  # also the first stored point's time
            "end_ts": float(new.ts[-1]) if len(new) else state.end_ts,
            "last_ts": float(batch.ts[-1]),  # the last time seen, missing values included
            "n_points": state.n_points + len(new),
            "n_skipped": state.n_skipped + skipped,
            "n_batches": state.n_batches + 1,
            "open_idx": state.open_idx + len(boundaries),
            "open_i0": boundaries[-1] if boundaries else state.open_i0,
            "open_prefix": prefix,
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
    return segments if written else None


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
    partial: Points,
    close: bool = False,
) -> tuple[list[Segment], str | None]:
    """The segment that was open (grown or closed), then every segment this batch starts
    (with `close`, every one of them closed).

    A segment that closes gets its statistics from all of its raw points, read back from
    the archive. The open one is a fold over pieces cut at chunk boundaries (_fold), carried
    from batch to batch, so its statistics too are bit-identical however the stream was
    batched. Also returns the open segment's fold prefix to store (JSON).
    """
    if (len(new) == 0 and not close) or t0 is None:  # t0 is None: no point ever stored
        return [], state.open_prefix
    n_prev, b = state.n_points, state.open_i0
    n_end = n_prev + len(new)
    if not boundaries and n_prev > b:
        if state.open_prefix is None:  # stored before folds were kept: rebuild from the archive
            g, acc, tail = b, SuffStats.empty(), read_index_range(store, series.id, b, n_prev)
        else:
            g, acc = _grid_start(b, n_prev), _load_prefix(state.open_prefix)
            # Points g .. n_prev-1 lie in the last, partial chunk, which was read already.
            tail = partial[len(partial) - (n_prev - g) :]
        stats, prefix = _fold(acc, g, b, tail.then(new), t0)
        return [build_segment(series, state.open_idx, b, stats, open=not close)], prefix
    points = read_index_range(store, series.id, b, n_prev).then(new)  # points b .. n_end-1
    cuts = [b, *boundaries, n_end]
    out = []
    for k, (i, j) in enumerate(zip(cuts[:-1], cuts[1:], strict=True)):
        part = points[i - b : j - b]
        if j == n_end:
            stats, prefix = _fold(SuffStats.empty(), i, i, part, t0)
        else:
            stats = SuffStats.from_points(part.ts, part.xs, t0)
        is_open = j == n_end and not close
        out.append(build_segment(series, state.open_idx + k, i, stats, open=is_open))
    return out, prefix


@dataclass(frozen=True)
class CloseResult:
    """What closing a series did."""

    series_id: str
    boundaries: int  # boundaries the close confirmed
    already_closed: bool  # closed before, no point since: nothing changed
    segments: list[Segment]  # the segments written: the tail's, all closed


def close_series(store: Store, series_ref: str) -> CloseResult:
    """End a finite or paused stream: confirm the boundaries of its open tail, close its segments.

    The boundaries are those of the most probable segmentation of the tail since the last
    confirmed boundary (OnlineSegmenter.close); the open segment is split at them and every
    segment is stored closed, together with the detector state, in one statement. Closing again
    without new points changes nothing. Points appended later continue the stream: the last
    segment opens again and grows until a boundary is confirmed behind it; the boundaries the
    close confirmed stay. Meta-segments overlapping the tail are rebuilt when next read.
    """
    node = get_series_node(store, series_ref)
    series, state = SeriesInfo.from_node(node), IngestState.from_node(node)
    if state.closed or state.n_points == 0:
        return CloseResult(series.id, 0, state.closed, [])
    segmenter = _segmenter(state, None)
    boundaries = segmenter.close()
    partial = _partial_chunk(store, series.id, state.n_points)
    segments, prefix = _segments(
        store, series, state, Points.empty(), boundaries, state.t0, partial, close=True
    )
    written = store.write(
        "ingest.close",
        series_id=series.id,
        expected_points=state.n_points,
        expected_batches=state.n_batches,
        expected_closes=state.n_closes,
        series={
            "open_idx": state.open_idx + len(boundaries),
            "open_i0": boundaries[-1] if boundaries else state.open_i0,
            "open_prefix": prefix,
            "segmenter": json.dumps(segmenter.state()),
            "n_closes": state.n_closes + 1,
            "closed_at": state.n_points,
        },
        segments=[s.to_row() for s in segments],
        links=[{"prev": segment_id(series.id, s.idx - 1), "next": s.id} for s in segments[1:]],
        tail_start=segments[0].start,
    )
    if written:
        return CloseResult(series.id, len(boundaries), False, segments)
    now = IngestState.from_node(store.read("series.get", id=series.id)[0]["s"])
    if now.closed and now.n_points == state.n_points:  # another writer closed it meanwhile
        return CloseResult(series.id, 0, True, [])
    raise StoreError(
        f"series {series.name!r} changed while it was being closed (another writer?); "
        "nothing was changed, close it again"
    )


def _grid_start(b: int, n: int) -> int:
    """Where the open segment [b, n)'s last, unfinished fold piece starts."""
    return max(b, n - n % CHUNK_SIZE)


def _fold(acc: SuffStats, g: int, b: int, points: Points, t0: float) -> tuple[SuffStats, str]:
    """Fold points g, g+1, ... of the open segment starting at b into acc (its pieces before g).

    Pieces end at multiples of CHUNK_SIZE, and each is summarised whole by from_points, so the
    result depends only on the points, not on where batches began. Returns the statistics of
    the whole open segment and, as JSON, those of its finished pieces (the next batch's acc).
    """
    n_end = g + len(points)
    done = _grid_start(b, n_end)  # pieces before this are finished
    cuts = [g, *range(g - g % CHUNK_SIZE + CHUNK_SIZE, done + 1, CHUNK_SIZE)]
    for i, j in zip(cuts[:-1], cuts[1:], strict=True):
        piece = points[i - g : j - g]
        acc = acc.merge(SuffStats.from_points(piece.ts, piece.xs, t0))
    prefix = json.dumps(None if acc.is_empty else acc.to_props())
    if done < n_end:
        rest = points[done - g :]
        acc = acc.merge(SuffStats.from_points(rest.ts, rest.xs, t0))
    return acc, prefix


def _load_prefix(text: str | None) -> SuffStats:
    """Inverse of _fold's prefix JSON (Python's float repr round-trips exactly)."""
    props = json.loads(text) if text else None
    return SuffStats.empty() if props is None else SuffStats.from_props(props)


def new_part(store: Store, series_ref: str, batch: Batch) -> tuple[Batch, int]:
    """The points of `batch` after the series' last stored timestamp, and how many before it
    there were: a file that grew since it was ingested appends its new rows. The points before
    must be exactly the ones stored over their time span (missing values aside); a changed or
    dropped row there raises InvalidInput naming its time, since stored points stay as they
    are."""
    node = get_series_node(store, series_ref)
    last = IngestState.from_node(node).last_ts
    if last is None:
        return batch, 0
    cut = int(np.searchsorted(batch.ts, last, side="right"))
    if cut == 0:
        return batch, 0
    old = Batch(batch.ts[:cut], batch.xs[:cut])
    stored = read_time_range(store, SeriesInfo.from_node(node).id, float(old.ts[0]), last)
    given = Points(old.ts[~old.missing], old.xs[~old.missing])
    if len(stored.ts) != len(given.ts) or not (
        np.array_equal(stored.ts, given.ts) and np.array_equal(stored.xs, given.xs)
    ):
        raise InvalidInput("timestamps", _first_difference(old, given, stored, last))
    return Batch(batch.ts[cut:], batch.xs[cut:]), cut


def _first_difference(old: Batch, given: Points, stored: Points, last: float) -> str:
    """Where the input's rows up to the last stored timestamp (`old`; `given`: those with a
    value) differ from the stored points, in words."""
    ts, xs = given.ts, given.xs
    n = min(len(ts), len(stored.ts))
    differs = np.flatnonzero((ts[:n] != stored.ts[:n]) | (xs[:n] != stored.xs[:n]))
    i = int(differs[0]) if len(differs) else n
    if i < len(ts) and i < len(stored.ts) and ts[i] == stored.ts[i]:
        what = f"the value at {iso(ts[i])} is {xs[i]:.15g}, stored as {stored.xs[i]:.15g}"
    elif i < len(stored.ts) and (i >= len(ts) or stored.ts[i] < ts[i]):
        when = stored.ts[i]
        what = (
            f"the input's row at {iso(when)} has no value, stored as {stored.xs[i]:.15g}"
            if when in old.ts[old.missing]
            else f"the stored point at {iso(when)} is not in the input"
        )
    else:
        what = f"the point at {iso(ts[i])} is not stored"
    return (
        f"points up to the last stored timestamp {iso(last)} must match the stored ones to be "
        f"skipped, but {what}; stored points are not changed, only points after "
        f"{iso(last)} can be added"
    )


def ingest_all(
    store: Store,
    series_ref: str,
    ts: Any,
    xs: Any = None,
    batch_size: int = 10_000,
    progress: Any = None,
) -> list[AppendResult]:
    """Append a whole array in batches (each atomic); `progress(n)` is called after each.

    Every point is checked before the first batch is sent, so bad input anywhere stores
    nothing (and errors index the whole array, not a batch). `ts` may instead be a Batch
    that validate_batch() returned (with `xs` None): it is not checked again.
    """
    if (
        isinstance(batch_size, bool)
        or not isinstance(batch_size, int | np.integer)
        or not 1 <= batch_size <= MAX_BATCH
    ):
        raise InvalidInput("batch_size", f"must be an integer from 1 to {MAX_BATCH:,}")
    if progress is not None and not callable(progress):
        raise InvalidInput("progress", "must be a function of the points done, or None")
    whole = ts if isinstance(ts, Batch) and xs is None else validate_batch(ts, xs, most=None)
    series = get_series(store, series_ref)
    results = []
    for lo in range(0, len(whole.ts), batch_size):
        part = Batch(whole.ts[lo : lo + batch_size], whole.xs[lo : lo + batch_size])
        results.append(_append(store, series, part, None))  # a slice of a valid batch is valid
        if progress is not None:
            progress(len(part.ts))
    return results
