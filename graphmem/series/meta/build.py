"""Building meta-segments on demand: by calendar period, by filter, from members; cached."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from graphmem.errors import InvalidInput, NotFound
from graphmem.series.catalog import SeriesInfo, get_series
from graphmem.series.detect.archive import Points, read_index_range, read_time_ranges
from graphmem.series.detect.ingest import IngestState
from graphmem.series.detect.segments import Segment, get_segment, segment_id
from graphmem.series.detect.stats import SuffStats
from graphmem.series.meta import (
    MetaSegment,
    currency,
    get_metas,
    is_current,
    meta_id,
    save_metas,
)
from graphmem.series.meta.periods import Period, check_freq, periods_between, previous
from graphmem.series.meta.query import (
    SegmentFilter,
    filtered_all,
    get_segments,
    ranked_by_text,
    segments_between,
)
from graphmem.series.meta.textsearch import SegmentSearch
from graphmem.store import Store
from graphmem.strings import MAX_LABEL, MAX_QUERY, checked_name, checked_str
from graphmem.timeutil import iso_date


@dataclass(frozen=True)
class _Context:
    """A series and its ingestion state, read once per build."""

    series: SeriesInfo
    state: IngestState
    t0: float  # the first point's time (epoch s)
    end_ts: float  # the last point's time


def _context(store: Store, series_ref: str) -> _Context:
    series = get_series(store, series_ref)
    state = IngestState.from_node(store.read("series.get", id=series.id)[0]["s"])
    if state.n_points == 0 or state.t0 is None or state.end_ts is None:
        raise InvalidInput("series", f"{series.name!r} holds no points yet")
    return _Context(series, state, state.t0, state.end_ts)


def _stable_before(store: Store, ctx: _Context) -> float:
    """Where the open segment starts: points and segments before it are final."""
    return get_segment(store, segment_id(ctx.series.id, ctx.state.open_idx)).start


@dataclass(frozen=True)
class _Interval:
    """A half-open interval [a, b) to summarise, with the spec naming its meta-segment."""

    a: float
    b: float
    label: str
    spec: dict


@dataclass(frozen=True)
class _Segs:
    """Segments in time order (disjoint), with their bounds as arrays for bisection."""

    items: list[Segment]
    starts: np.ndarray
    ends: np.ndarray

    @classmethod
    def of(cls, segs: list[Segment]) -> _Segs:
        return cls(segs, np.array([g.start for g in segs]), np.array([g.end for g in segs]))

    def overlapping(self, a: float, b: float) -> list[Segment]:
        """Segments with a point in [a, b): end >= a and start < b."""
        lo = int(np.searchsorted(self.ends, a, "left"))
        hi = int(np.searchsorted(self.starts, b, "left"))
        return self.items[lo:hi]


def _interval_stats(
    segs: _Segs, points: Points, a: float, b: float, t0: float
) -> tuple[SuffStats, list[str]]:
    """Exact statistics of [a, b): whole segments by their sums, cut ones from raw points."""
    parts, members = [], []
    for g in segs.overlapping(a, b):
        members.append(g.id)
        if g.start >= a and g.end < b:
            parts.append(g.stats)
            continue
        i = int(np.searchsorted(points.ts, max(a, g.start), "left"))
        j = min(
            int(np.searchsorted(points.ts, g.end, "right")),
            int(np.searchsorted(points.ts, b, "left")),
        )
        if j > i:
            parts.append(SuffStats.from_points(points.ts[i:j], points.xs[i:j], t0))
    return SuffStats.merge_all(parts), members


def _cut_ranges(segs: _Segs, intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Time ranges whose raw points are needed: where an interval cuts a segment."""
    out = []
    for a, b in intervals:
        if a >= b:
            continue  # nothing new can lie there
        for g in segs.overlapping(a, b):
            if not (g.start >= a and g.end < b):
                out.append((max(a, g.start), min(b, g.end)))
    return out


def _slope_mean(members: list[Segment]) -> float | None:
    """Mean of the member segments' slopes, as the source paper reports it."""
    slopes = [g.features.slope_per_day for g in members]
    return float(np.mean(slopes)) if slopes else None


def build_by_range(
    store: Store, series_ref: str, start: float, end: float, freq: str | None = None
) -> list[MetaSegment]:
    """Meta-segments over [start, end]: one per calendar period of `freq`, or one in all.

    Cached by spec; a cached one is extended, not rebuilt, when points arrived since.
    Periods without points are left out.
    """
    return build_range(store, series_ref, start, end, freq)[1]


def build_range(
    store: Store,
    series_ref: str,
    start: float,
    end: float,
    freq: str | None = None,
    load: int | None = None,
) -> tuple[list[str], list[MetaSegment]]:
    """Like build_by_range: (every id in time order, the first `load` meta-segments or all).

    A cache hit reads only the ids and what tells whether each is current, then the
    `load` nodes asked for.
    """
    if end < start:
        raise InvalidInput("end", "must not be before start")
    ctx = _context(store, series_ref)
    lo, hi = max(start, ctx.t0), min(end, ctx.end_ts)
    if lo > hi:
        raise InvalidInput(
            "start",
            f"[{iso_date(start)}, {iso_date(end)}] holds no points; the series covers "
            f"{iso_date(ctx.t0)} to {iso_date(ctx.end_ts)}",
        )
    sid = ctx.series.id
    if freq is None:
        spec = {"kind": "range", "series_id": sid, "start": start, "end": end}
        label = f"{iso_date(start)} to {iso_date(end)}"
        intervals = [_Interval(start, math.nextafter(end, math.inf), label, spec)]
        first_prev = None
    else:
        periods = periods_between(lo, hi, check_freq(freq))
        intervals = [
            _Interval(
                p.start,
                p.end,
                p.label,
                {"kind": "range", "series_id": sid, "freq": freq, "start": p.start},
            )
            for p in periods
        ]
        first_prev = previous(periods[0])
    ids, built = _ensure(store, ctx, intervals, first_prev)
    if not ids:
        raise InvalidInput("start", _in_gap(store, ctx, start, end))
    wanted = ids if load is None else ids[:load]
    stored = get_metas(store, [i for i in wanted if i not in built])
    return ids, [built.get(i) or stored[i] for i in wanted]


def _in_gap(store: Store, ctx: _Context, start: float, end: float) -> str:
    """Why [start, end], inside the series' span, built nothing: the points either side."""
    # the range starts after the first point (else it would hold it), so this segment exists
    [row] = store.read("segments.last_starting_before", series_id=ctx.series.id, start=start)
    g = Segment.from_node(row["g"])
    # one point past the segment: the first after the gap when the gap follows the segment
    ts = read_index_range(store, ctx.series.id, g.i0, g.i0 + g.n + 1).ts
    j = int(np.searchsorted(ts, start, "left"))
    return (
        f"[{iso_date(start)}, {iso_date(end)}] holds no points (a gap in the data); the "
        f"nearest are on {iso_date(ts[j - 1])} and {iso_date(ts[j])}"
    )


def _ensure(
    store: Store, ctx: _Context, intervals: list[_Interval], first_prev: Period | None
) -> tuple[list[str], dict[str, MetaSegment]]:
    """Build or extend what is missing or stale; (ids that exist, in order; what was built).

    A cached one is current when no point arrived since it was built, or when its interval
    ends before the segment that was open then: points and segments there are final.
    """
    ids = [meta_id(iv.spec) for iv in intervals]
    light = currency(store, ids)
    n_points = ctx.state.n_points
    todo = [
        k
        for k, (iv, mid) in enumerate(zip(intervals, ids, strict=True))
        if mid not in light or not is_current(*light[mid], iv.b, n_points)
    ]
    if not todo:
        return ids, {}
    # full nodes only where needed: to extend a stale one, or as the previous period of one
    need = {ids[k] for k in todo} | {ids[k - 1] for k in todo if k > 0}
    cached = get_metas(store, [i for i in need if i in light])
    prev = first_prev if todo[0] == 0 else None
    span_a = prev.start if prev else intervals[todo[0]].a
    segs = _Segs.of(segments_between(store, ctx.series.id, span_a, intervals[todo[-1]].b))
    wanted = [(_fresh_from(cached.get(ids[k]), intervals[k]), intervals[k].b) for k in todo]
    if prev:
        wanted.append((prev.start, prev.end))
    points = read_time_ranges(store, ctx.series.id, _cut_ranges(segs, wanted))
    stable = _stable_before(store, ctx)
    built: dict[str, MetaSegment] = {}
    prev_stats = _interval_stats(segs, points, prev.start, prev.end, ctx.t0)[0] if prev else None
    prev_label = first_prev.label if first_prev else None
    todo_set = set(todo)
    for k, (iv, mid) in enumerate(zip(intervals, ids, strict=True)):
        meta = cached.get(mid)
        if k in todo_set:
            meta = _build_one(ctx, segs, points, iv, mid, meta, prev_stats, prev_label, stable)
            if meta is not None:
                built[mid] = meta
        if first_prev is not None:  # periods: each is compared with the one before
            prev_stats, prev_label = (meta.stats if meta else None), iv.label
    save_metas(store, list(built.values()), ctx.series.unit)
    return [mid for mid in ids if mid in light or mid in built], built


def _fresh_from(old: MetaSegment | None, iv: _Interval) -> float:
    """Where new points start: after the series' end when a cached meta-segment was built."""
    if old is None:
        return iv.a
    held = old.stats.t_last if old.built_end is None else max(old.built_end, old.stats.t_last)
    return max(iv.a, math.nextafter(held, math.inf))


def _build_one(
    ctx: _Context,
    segs: _Segs,
    points: Points,
    iv: _Interval,
    mid: str,
    old: MetaSegment | None,
    prev_stats: SuffStats | None,
    prev_label: str | None,
    stable_before: float,
) -> MetaSegment | None:
    new_stats, _ = _interval_stats(segs, points, _fresh_from(old, iv), iv.b, ctx.t0)
    stats = new_stats if old is None else old.stats.merge(new_stats)
    if stats.is_empty:
        return None
    _, members = _interval_stats(segs, Points.empty(), iv.a, iv.b, ctx.t0)
    change = pct = None
    if prev_stats is not None and not prev_stats.is_empty:
        prev_mean = prev_stats.mx
        change = stats.mx - prev_mean
        pct = None if prev_mean == 0 else 100 * change / abs(prev_mean)
    return MetaSegment(
        id=mid,
        series_id=ctx.series.id,
        kind=iv.spec["kind"],
        label=iv.label,
        spec=iv.spec,
        start=iv.a,
        end=min(iv.b, iv.spec.get("end", iv.b)),
        stats=stats,
        member_count=len(members),
        slope_mean=_slope_mean(segs.overlapping(iv.a, iv.b)),
        change_prev=change,
        pct_change_prev=pct,
        prev_label=prev_label if change is not None else None,
        built_n_points=ctx.state.n_points,
        built_at=int(time.time()),
        stable_before=stable_before,
        built_end=ctx.end_ts,
        member_ids=tuple(members),
    )


def build_by_filter(store: Store, series_ref: str, filt: SegmentFilter) -> MetaSegment:
    """One meta-segment grouping every segment that meets the filter (however many)."""
    ctx = _context(store, series_ref)
    segs = filtered_all(store, ctx.series.id, filt)
    if not segs:
        raise NotFound("filter: no segment of this series meets the filter")
    conditions = filt.conditions
    spec = {"kind": "filter", "series_id": ctx.series.id, **conditions}
    label = "segments where " + (", ".join(_condition_texts(conditions)) or "any")
    return _group(store, ctx, spec, label, segs, [])


def _condition_texts(conditions: dict[str, float]) -> list[str]:
    """'name=value' per condition for labels (the LLM reads them): time bounds as dates."""
    return [
        f"{k}={iso_date(v) if k in ('start', 'end') else format(v, 'g')}"
        for k, v in sorted(conditions.items())
    ]


def build_from_members(
    store: Store, member_ids: list[str], label: str | None = None
) -> MetaSegment:
    """A meta-segment over given segments and/or meta-segments, statistics combined exactly."""
    if not member_ids:
        raise InvalidInput("members", "at least one member id is required")
    label = checked_name(label, "label", MAX_LABEL)
    ids = sorted(set(member_ids))
    segs = [Segment.from_node(r["g"]) for r in store.read("segments.get_many", ids=ids)]
    metas = list(get_metas(store, ids).values())
    missing = set(ids) - {g.id for g in segs} - {m.id for m in metas}
    if missing:
        raise NotFound(f"members: no segment or meta-segment with id {sorted(missing)[0]!r}")
    series_ids = {g.series_id for g in segs} | {m.series_id for m in metas}
    if len(series_ids) > 1:
        raise InvalidInput("members", "all members must belong to the same series")
    ctx = _context(store, series_ids.pop())
    spec = {"kind": "members", "series_id": ctx.series.id, "members": ids}
    first = min([g.start for g in segs] + [m.stats.t_first for m in metas])
    last = max([g.end for g in segs] + [m.stats.t_last for m in metas])
    return _group(store, ctx, spec, label or f"{iso_date(first)} to {iso_date(last)}", segs, metas)


def build_by_text(
    store: Store,
    series_ref: str,
    text: str,
    search: SegmentSearch,
    k: int = 10,
    min_score: float | None = None,
    filt: SegmentFilter | None = None,
) -> MetaSegment:
    """One meta-segment grouping the k segments closest to `text` among those meeting `filt`."""
    checked_str(text, "text", MAX_QUERY)
    if not 1 <= k <= 1000:
        raise InvalidInput("k", "must be between 1 and 1000")
    ctx = _context(store, series_ref)
    ranked = ranked_by_text(search, ctx.series.id, text, filt)
    if min_score is not None:
        ranked = [(i, score) for i, score in ranked if score >= min_score]
    if not ranked:
        raise NotFound("text: no segment meeting the conditions is similar enough")
    segs = sorted(get_segments(store, [i for i, _ in ranked[:k]]), key=lambda g: g.start)
    conditions = filt.conditions if filt else {}
    spec = {
        "kind": "text",
        "series_id": ctx.series.id,
        "text": text.strip(),
        "k": k,
        "min_score": min_score,
        **conditions,
    }
    where = "".join(f", {text}" for text in _condition_texts(conditions))
    return _group(store, ctx, spec, f"segments like {text.strip()!r}{where}", segs, [])


def _group(
    store: Store,
    ctx: _Context,
    spec: dict,
    label: str,
    segs: list[Segment],
    metas: list[MetaSegment],
) -> MetaSegment:
    """Combine disjoint members exactly; overlapping ones would count points twice."""
    spans = sorted(
        [(g.start, g.end, g.id) for g in segs]
        + [(m.stats.t_first, m.stats.t_last, m.id) for m in metas]
    )
    for (_, a1, a_id), (b0, _, b_id) in zip(spans, spans[1:], strict=False):
        if b0 <= a1:
            raise InvalidInput(
                "members", f"{a_id} and {b_id} overlap in time; their points would count twice"
            )
    stats = SuffStats.merge_all([g.stats for g in segs] + [m.stats for m in metas])
    slopes = [g.features.slope_per_day for g in segs] + [
        m.slope_mean for m in metas if m.slope_mean is not None
    ]
    meta = MetaSegment(
        id=meta_id(spec),
        series_id=ctx.series.id,
        kind=spec["kind"],
        label=label,
        spec=spec,
        start=spans[0][0],
        end=spans[-1][1],
        stats=stats,
        member_count=len(spans),
        slope_mean=float(np.mean(slopes)) if slopes else None,
        built_n_points=ctx.state.n_points,
        built_at=int(time.time()),
        member_ids=tuple(s[2] for s in spans),
    )
    save_metas(store, [meta], ctx.series.unit)
    return meta
