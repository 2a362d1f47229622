"""Compact, LLM-friendly views of segments and meta-segments: ids, dates, rounded numbers."""

from __future__ import annotations

from typing import Any

from graphmem.series.meta import MetaSegment
from graphmem.series.segments import Segment, TimeBounds
from graphmem.series.stats import Features
from graphmem.timeutil import iso_date


def rnd(x: float | None, sig: int = 4) -> float | None:
    """Round to `sig` significant digits (None stays None)."""
    if x is None:
        return None
    return float(f"{x:.{sig}g}")


def _features(f: Features) -> dict[str, Any]:
    return {
        "n": f.n,
        "mean": rnd(f.mean),
        "std": rnd(f.std),
        "min": rnd(f.min),
        "max": rnd(f.max),
        "slope_per_day": rnd(f.slope_per_day),
        "change": rnd(f.change),
        "pct_change": rnd(f.pct_change, 3),
    }


def segment_view(s: Segment, summary: bool = True) -> dict[str, Any]:
    view = {"id": s.id, "start": iso_date(s.start), "end": iso_date(s.end), **_features(s.features)}
    if s.open:
        view["open"] = True
    if summary:
        view["summary"] = s.summary
    return view


def meta_brief(m: MetaSegment) -> dict[str, Any]:
    """What a build returns per meta-segment: enough to choose which ones to read in full."""
    view: dict[str, Any] = {
        "id": m.id,
        "label": m.label,
        "n": m.stats.n,
        "mean": rnd(m.stats.sx / m.stats.n),
    }
    if m.pct_change_prev is not None:
        view["pct_vs_prev"] = rnd(m.pct_change_prev, 3)
    return view


def meta_view(m: MetaSegment, full: bool = False) -> dict[str, Any]:
    """The meta-segment's label, dates and features; `full` adds members and summary fields."""
    f = m.features
    view: dict[str, Any] = {
        "id": m.id,
        "label": m.label,
        "start": iso_date(m.stats.t_first),
        "end": iso_date(m.stats.t_last),
        **_features(f),
        "slope_mean": rnd(m.slope_mean),
        "members": m.member_count,
    }
    if m.change_prev is not None:
        view["mean_change_vs_prev"] = rnd(m.change_prev)
        view["pct_change_vs_prev"] = rnd(m.pct_change_prev, 3)
    if full:
        view["kind"] = m.kind
        view["coverage"] = rnd(m.coverage, 3)
        view["r2"] = rnd(f.r2, 3)
        view["duration_days"] = rnd(f.duration_days)
    return view


def bounds_view(b: TimeBounds, name: str, unit: str | None) -> dict[str, Any]:
    return {
        "series_id": b.series_id,
        "name": name,
        "unit": unit,
        "start": iso_date(b.start) if b.start is not None else None,
        "end": iso_date(b.end) if b.end is not None else None,
        "n_points": b.n_points,
        "n_segments": b.n_segments,
    }
