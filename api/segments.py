"""GraphQL types, queries and mutations for points, segments and time bounds."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import strawberry

from api.context import Info
from api.errors import request_names
from graphmem.errors import InvalidInput, NotFound
from graphmem.series import ingest, segments
from graphmem.timeutil import parse_timestamp


@strawberry.type
class Segment:
    id: strawberry.ID
    series_id: strawberry.ID
    idx: int = strawberry.field(description="Ordinal within the series, 0-based")
    start: float = strawberry.field(description="Epoch seconds of the first point")
    end: float = strawberry.field(description="Epoch seconds of the last point")
    start_iso: str
    end_iso: str
    n: int
    open: bool = strawberry.field(description="Still growing: the newest segment of the series")
    summary: str
    mean: float
    std: float
    min: float
    max: float
    first: float
    last: float
    slope_per_day: float
    r2: float
    change: float
    pct_change: float | None
    duration_days: float

    @classmethod
    def of(cls, s: segments.Segment) -> Segment:
        f = s.features
        return cls(
            id=strawberry.ID(s.id), series_id=strawberry.ID(s.series_id), idx=s.idx,
            start=s.start, end=s.end, start_iso=s.start_iso, end_iso=s.end_iso, n=s.n,
            open=s.open, summary=s.summary, mean=f.mean, std=f.std, min=f.min, max=f.max,
            first=f.first, last=f.last, slope_per_day=f.slope_per_day, r2=f.r2,
            change=f.change, pct_change=f.pct_change, duration_days=f.duration_days,
        )  # fmt: skip


@strawberry.type
class TimeBounds:
    series_id: strawberry.ID
    start: float | None
    end: float | None
    start_iso: str | None
    end_iso: str | None
    n_points: int
    n_skipped: int = strawberry.field(description="Missing values skipped at ingestion")
    n_segments: int


@strawberry.input
class PointInput:
    timestamp: str = strawberry.field(
        description="ISO date/datetime (naive = UTC) or epoch seconds as text"
    )
    value: float | None = strawberry.field(description="null marks a missing value (skipped)")


def _point_from_input(cls: type, value: Mapping[str, Any], context: object) -> PointInput:
    # strawberry's generic conversion spends ~40 µs per item resolving each field's name and
    # its type, most of a 150k-point append, all of it holding the GIL; both fields are scalars
    return cls(timestamp=value["timestamp"], value=value.get("value"))


PointInput.__strawberry_definition__.from_input = _point_from_input  # type: ignore[attr-defined]


@strawberry.type
class AppendResult:
    series_id: strawberry.ID
    accepted: int
    skipped: int
    duplicate: bool = strawberry.field(description="Already ingested before; nothing changed")
    segments: list[Segment] = strawberry.field(description="Segments closed or updated")


@strawberry.type
class CloseResult:
    series_id: strawberry.ID
    boundaries: int = strawberry.field(description="Boundaries the close confirmed in the tail")
    already_closed: bool = strawberry.field(description="Closed before, no point since")
    segments: list[Segment] = strawberry.field(description="The tail's segments, all closed")


SERIES_ID = {"series": "seriesId"}  # the library's name for a series argument, and the API's


def _time(value: str | None, field: str) -> float | None:
    return None if value is None else float(parse_timestamp(value, field=field))


def segments_query(
    info: Info,
    series_id: strawberry.ID,
    start: str | None = None,
    end: str | None = None,
    limit: int = 100,
    offset: int = 0,
) -> list[Segment]:
    with request_names(SERIES_ID):
        found = segments.list_segments(
            info.context.store, str(series_id), _time(start, "start"), _time(end, "end"),
            limit, offset,
        )  # fmt: skip
    return [Segment.of(s) for s in found]


def segment_query(info: Info, id: strawberry.ID) -> Segment | None:  # noqa: A002
    try:
        return Segment.of(segments.get_segment(info.context.store, str(id)))
    except NotFound:
        return None


def time_bounds_query(info: Info, series_id: strawberry.ID) -> TimeBounds:
    with request_names(SERIES_ID):
        b = segments.time_bounds(info.context.store, str(series_id))
    return TimeBounds(
        series_id=strawberry.ID(b.series_id), start=b.start, end=b.end,
        start_iso=b.start_iso, end_iso=b.end_iso, n_points=b.n_points,
        n_skipped=b.n_skipped, n_segments=b.n_segments,
    )  # fmt: skip


@strawberry.type
class SegmentQuery:
    segments: list[Segment] = strawberry.field(
        resolver=segments_query, description="Segments overlapping [start, end], in time order"
    )
    segment: Segment | None = strawberry.field(resolver=segment_query)
    time_bounds: TimeBounds = strawberry.field(resolver=time_bounds_query)


_BATCH_FIELD = re.compile(r"^(timestamps|values)\[(\d+)\]$")


def _point_field(error: InvalidInput) -> InvalidInput:
    """Name the GraphQL input (points[i].value) rather than the library's arrays."""
    if error.field in ("timestamps", "values"):
        return InvalidInput("points", error.problem)
    match = _BATCH_FIELD.match(error.field)
    if not match:
        return error
    part = "timestamp" if match[1] == "timestamps" else "value"
    return InvalidInput(f"points[{match[2]}].{part}", error.problem)


@strawberry.type
class SegmentMutation:
    @strawberry.mutation(description="Append points (time order); one call lands whole or not")
    def append_points(
        self, info: Info, series_id: strawberry.ID, points: list[PointInput]
    ) -> AppendResult:
        try:
            with request_names(SERIES_ID):
                result = ingest.append(
                    info.context.store, str(series_id),
                    [p.timestamp for p in points], [p.value for p in points],
                )  # fmt: skip
        except InvalidInput as error:
            raise _point_field(error) from None
        return AppendResult(
            series_id=strawberry.ID(result.series_id), accepted=result.accepted,
            skipped=result.skipped, duplicate=result.duplicate,
            segments=[Segment.of(s) for s in result.segments],
        )  # fmt: skip

    @strawberry.mutation(
        description="End a finite or paused stream: confirm the open tail's boundaries and close "
        "its segments (later points reopen the last one); closing again changes nothing"
    )
    def close_series(self, info: Info, series_id: strawberry.ID) -> CloseResult:
        with request_names(SERIES_ID):
            result = ingest.close_series(info.context.store, str(series_id))
        return CloseResult(
            series_id=strawberry.ID(result.series_id), boundaries=result.boundaries,
            already_closed=result.already_closed,
            segments=[Segment.of(s) for s in result.segments],
        )  # fmt: skip
