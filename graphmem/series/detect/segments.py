"""Segment nodes: building them from statistics, and reading them back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphmem.errors import InvalidInput, NotFound
from graphmem.series.catalog import SeriesInfo, checked_page, get_series
from graphmem.series.detect.stats import Features, SuffStats, features
from graphmem.series.detect.summary import summarize_segment
from graphmem.store import Store
from graphmem.timeutil import iso

MAX_LIMIT = 10_000


@dataclass(frozen=True)
class Segment:
    """An interval of a series with its statistics and summary; `open` while still growing."""

    id: str
    series_id: str
    idx: int  # ordinal in the series, 0-based
    i0: int  # global index of the first point
    n: int
    start: float
    end: float
    open: bool
    summary: str
    stats: SuffStats
    features: Features

    @property
    def start_iso(self) -> str:
        return iso(self.start)

    @property
    def end_iso(self) -> str:
        return iso(self.end)

    def to_row(self) -> dict[str, Any]:
        """Node properties as written to the graph."""
        return {
            "id": self.id,
            "series_id": self.series_id,
            "idx": self.idx,
            "i0": self.i0,
            "start": self.start,
            "end": self.end,
            "start_iso": self.start_iso,
            "end_iso": self.end_iso,
            "open": self.open,
            "summary": self.summary,
            **self.stats.to_props(),
            **self.features.to_props(),
        }

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> Segment:
        stats = SuffStats.from_props(node)
        return cls(
            id=node["id"],
            series_id=node["series_id"],
            idx=node["idx"],
            i0=node["i0"],
            n=stats.n,
            start=node["start"],
            end=node["end"],
            open=bool(node["open"]),
            summary=node["summary"],
            stats=stats,
            features=features(stats),
        )


def segment_id(series_id: str, idx: int) -> str:
    return f"{series_id}:seg:{idx:06d}"


def build_segment(
    series: SeriesInfo, idx: int, i0: int, stats: SuffStats, *, open: bool
) -> Segment:
    """A Segment with derived features and its deterministic one-line summary."""
    feats = features(stats)
    return Segment(
        id=segment_id(series.id, idx),
        series_id=series.id,
        idx=idx,
        i0=i0,
        n=stats.n,
        start=stats.t_first,
        end=stats.t_last,
        open=open,
        summary=summarize_segment(feats, series.unit, stats.t_first, stats.t_last),
        stats=stats,
        features=feats,
    )


def list_segments(
    store: Store,
    series_ref: str,
    start: float | None = None,
    end: float | None = None,
    limit: int = 100,
    offset: int = 0,
) -> list[Segment]:
    """Segments of a series overlapping [start, end], in time order."""
    checked_page(limit, offset, MAX_LIMIT)
    return _listed(store, _in_range(store, series_ref, start, end), limit, offset)


@dataclass(frozen=True)
class SegmentPage:
    """One page of a series' segments in a range, and how many the whole range holds."""

    segments: list[Segment]
    total: int


def page_segments(
    store: Store,
    series_ref: str,
    start: float | None = None,
    end: float | None = None,
    limit: int = 100,
    offset: int = 0,
) -> SegmentPage:
    """list_segments and the count of its whole list together, the series looked up once."""
    checked_page(limit, offset, MAX_LIMIT)
    params = _in_range(store, series_ref, start, end)
    total = int(store.read("segments.count_in_range", **params)[0]["n"])
    return SegmentPage(_listed(store, params, limit, offset), total)


def _listed(store: Store, params: dict[str, object], limit: int, offset: int) -> list[Segment]:
    rows = store.read("segments.in_range", **params, limit=limit, offset=offset)
    return [Segment.from_node(r["g"]) for r in rows]


def _in_range(
    store: Store, series_ref: str, start: float | None, end: float | None
) -> dict[str, object]:
    """The parameters of segments.in_range: the series' id and the bounds (open: none)."""
    if start is not None and end is not None and end < start:
        raise InvalidInput("end", "must not be before start")
    series = get_series(store, series_ref)
    return {
        "series_id": series.id,
        "start": -1e18 if start is None else start,
        "end": 1e18 if end is None else end,
    }


def get_segment(store: Store, segment_id: str) -> Segment:
    rows = store.read("segments.get", id=segment_id)
    if not rows:
        raise NotFound(f"segment: no segment with id {segment_id!r}")
    return Segment.from_node(rows[0]["g"])


@dataclass(frozen=True)
class TimeBounds:
    """The time span a series covers and how much it holds."""

    series_id: str
    start: float | None
    end: float | None
    n_points: int
    n_skipped: int
    n_segments: int

    @property
    def start_iso(self) -> str | None:
        return None if self.start is None else iso(self.start)

    @property
    def end_iso(self) -> str | None:
        return None if self.end is None else iso(self.end)


def time_bounds(store: Store, series_ref: str) -> TimeBounds:
    series = get_series(store, series_ref)
    row = store.read("segments.bounds", series_id=series.id)[0]
    return TimeBounds(
        series_id=series.id,
        start=row["start"],
        end=row["end"],
        n_points=row["n_points"] or 0,
        n_skipped=row["n_skipped"] or 0,
        n_segments=row["n_segments"],
    )
