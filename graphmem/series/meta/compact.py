"""Compact, LLM-friendly views of segments and meta-segments: ids, dates, rounded numbers.

Lists come as small tables ({"cols": "a,b", "rows": [[...], ...]}) of at most ROW_CAP rows,
saying what was left out and how to get it: keys are not repeated on every row.
"""

from __future__ import annotations

from typing import Any

from graphmem.series.detect.segments import Segment, TimeBounds
from graphmem.series.detect.stats import Features
from graphmem.series.meta import MetaSegment
from graphmem.timeutil import iso_date

ROW_CAP = 60  # rows a tool returns at most; the rest is built and can be paged through
BRIEF = 3  # significant digits of slopes, percentages and ratios: enough to compare

META_COLS = ("id", "label", "n", "mean", "slope", "pct_prev")
SEGMENT_COLS = ("id", "start", "end", "n", "mean", "std", "slope")
MEMBER_COLS = ("id", "label", "n", "mean", "slope")


def rnd(x: float | None, sig: int = 4) -> float | None:
    """Round to `sig` significant digits (None stays None)."""
    if x is None:
        return None
    return float(f"{x:.{sig}g}")


def table(
    cols: tuple[str, ...],
    rows: list[list[Any]],
    offset: int = 0,
    total: int | None = None,
    more: bool = False,
    hint: str = "",
) -> dict[str, Any]:
    """Rows as a table; when rows were left out, says which are shown and how to get more."""
    out: dict[str, Any] = {"cols": ",".join(cols), "rows": rows}
    more = more or (total is not None and offset + len(rows) < total)
    if more or offset:
        of = f" of {total}" if total is not None else ""
        out["shown"] = f"{offset + 1}-{offset + len(rows)}{of}" if rows else f"none{of}"
    if more:
        out["more"] = hint or f"call again with offset={offset + len(rows)}"
    return out


def meta_row(m: MetaSegment) -> list[Any]:
    """A meta-segment as a row of META_COLS: enough to compare periods at a glance."""
    f = m.features
    return [
        m.id,
        m.label,
        f.n,
        rnd(f.mean),
        rnd(f.slope_per_day, BRIEF),
        rnd(m.pct_change_prev, BRIEF),
    ]


def segment_row(g: Segment) -> list[Any]:
    f = g.features
    return [
        g.id,
        iso_date(g.start),
        iso_date(g.end),
        f.n,
        rnd(f.mean),
        rnd(f.std, BRIEF),
        rnd(f.slope_per_day, BRIEF),
    ]


def member_row(x: MetaSegment | Segment) -> list[Any]:
    """A member of a meta-segment (a segment or a meta-segment) as a row of MEMBER_COLS."""
    label = x.label if isinstance(x, MetaSegment) else f"{iso_date(x.start)} to {iso_date(x.end)}"
    f = x.features
    return [x.id, label, f.n, rnd(f.mean), rnd(f.slope_per_day, BRIEF)]


def _spread(f: Features) -> dict[str, Any]:
    """What a segment and a meta-segment both show of their points: count, level, spread, slope."""
    return {
        "n": f.n,
        "mean": rnd(f.mean),
        "std": rnd(f.std),
        "min": rnd(f.min),
        "max": rnd(f.max),
        "slope": rnd(f.slope_per_day, BRIEF),
    }


def segment_view(g: Segment) -> dict[str, Any]:
    """One segment in full: dates, features, summary."""
    f = g.features
    view = {
        "id": g.id,
        "start": iso_date(g.start),
        "end": iso_date(g.end),
        **_spread(f),
        "change": rnd(f.change),
        "pct_change": rnd(f.pct_change, BRIEF),
        "summary": g.summary,
    }
    if g.open:
        view["open"] = True
    return view


def meta_view(m: MetaSegment, full: bool = False) -> dict[str, Any]:
    """The features of a meta-segment; `full` adds dates, first-to-last change, fit and cover."""
    f = m.features
    view: dict[str, Any] = {"label": m.label}
    if full or not m.is_period:  # a period's label already says when it is
        view |= {"start": iso_date(m.stats.t_first), "end": iso_date(m.stats.t_last)}
    view |= {
        **_spread(f),
        "slope_mean": rnd(m.slope_mean, BRIEF),
        "members": m.member_count,
    }
    if m.pct_change_prev is not None:
        view["pct_prev"] = rnd(m.pct_change_prev, BRIEF)
    if full:
        view |= {
            "id": m.id,
            "kind": m.kind,
            "prev": m.prev_label,
            "change_prev": rnd(m.change_prev),
            "first": rnd(f.first),
            "last": rnd(f.last),
            "change": rnd(f.change),
            "pct_change": rnd(f.pct_change, BRIEF),
            "r2": rnd(f.r2, BRIEF),
            "days": rnd(f.duration_days),
            "coverage": rnd(m.coverage, BRIEF),
        }
    return view


def bounds_view(b: TimeBounds) -> dict[str, Any]:
    return {
        "start": iso_date(b.start) if b.start is not None else None,
        "end": iso_date(b.end) if b.end is not None else None,
        "n_points": b.n_points,
        "n_segments": b.n_segments,
    }
