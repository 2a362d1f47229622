"""GraphQL types, queries and mutations for points, segments and time bounds."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

import strawberry

from api.common import LIMIT, Limit, Offset, Page, at, epoch
from api.context import Info
from api.derive import derived
from api.errors import request_names
from graphmem.errors import InvalidInput, NotFound
from graphmem.series.detect import ingest, segments


@strawberry.type(
    description="A statistically stable stretch of a series: its points, features and summary"
)
class Segment:
    id: strawberry.ID = strawberry.field(description="The segment's id")
    series_id: strawberry.ID = strawberry.field(description="The series it belongs to")
    index: int = strawberry.field(description="Ordinal within the series, 0-based")
    start: dt.datetime = strawberry.field(description="Time of its first point (inclusive)")
    end: dt.datetime = strawberry.field(description="Time of its last point (inclusive)")
    point_count: int = strawberry.field(description="How many points it holds")
    open: bool = strawberry.field(description="Still growing: the newest segment of the series")
    summary: str = strawberry.field(description="One line describing level, trend and spread")
    mean: float = strawberry.field(description="Mean of the values")
    std: float = strawberry.field(description="Population standard deviation of the values")
    min: float = strawberry.field(description="Lowest value")
    max: float = strawberry.field(description="Highest value")
    first: float = strawberry.field(description="Value of the first point")
    last: float = strawberry.field(description="Value of the last point")
    slope_per_day: float = strawberry.field(description="Least-squares trend, units per day")
    r2: float = strawberry.field(description="Share of the variance the trend explains (0 to 1)")
    change: float = strawberry.field(description="Last value minus first")
    pct_change: float | None = strawberry.field(
        description="change in % of the first value; null when that is 0"
    )
    duration_days: float = strawberry.field(description="Days from the first point to the last")

    @classmethod
    def of(cls, s: segments.Segment) -> Segment:
        f = s.features
        return cls(
            id=strawberry.ID(s.id),
            series_id=strawberry.ID(s.series_id),
            index=s.idx,
            start=at(s.start),
            end=at(s.end),
            point_count=s.n,
            open=s.open,
            summary=s.summary,
            mean=f.mean,
            std=f.std,
            min=f.min,
            max=f.max,
            first=f.first,
            last=f.last,
            slope_per_day=f.slope_per_day,
            r2=f.r2,
            change=f.change,
            pct_change=f.pct_change,
            duration_days=f.duration_days,
        )


def _segments(root: ingest.AppendResult | ingest.CloseResult) -> list[Segment]:
    return [Segment.of(s) for s in root.segments]


if TYPE_CHECKING:  # resolvers return the library's objects; the schema reads the derived types
    from graphmem.series.detect.ingest import AppendResult, CloseResult
    from graphmem.series.detect.segments import TimeBounds
else:
    TimeBounds = derived(
        segments.TimeBounds,
        "The time span a series covers and how much it holds",
        {
            "series_id": "The series",
            "start": "Time of its first point (inclusive); null without points",
            "end": "Time of its last point (inclusive); null without points",
            "n_points": strawberry.field(name="pointCount", description="Points stored"),
            "n_skipped": strawberry.field(
                name="skippedCount", description="Missing values skipped at ingestion"
            ),
            "n_segments": strawberry.field(
                name="segmentCount", description="Segments the points are cut into"
            ),
        },
        types={"series_id": strawberry.ID, "start": dt.datetime | None, "end": dt.datetime | None},
    )


@strawberry.input(description="One point of a series")
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


if not TYPE_CHECKING:
    AppendResult = derived(
        ingest.AppendResult,
        "What an appendPoints call stored",
        {
            "series_id": "The series appended to",
            "accepted": "Points stored",
            "skipped": "Points with a null value, skipped",
            "duplicate": "Already ingested before; nothing changed",
            "segments": strawberry.field(
                resolver=_segments, description="Segments closed or updated"
            ),
        },
        types={"series_id": strawberry.ID},
    )
    CloseResult = derived(
        ingest.CloseResult,
        "What a closeSeries call confirmed",
        {
            "series_id": "The series closed",
            "boundaries": "Boundaries the close confirmed in the tail",
            "already_closed": "Closed before, no point since",
            "segments": strawberry.field(
                resolver=_segments, description="The tail's segments, all closed"
            ),
        },
        types={"series_id": strawberry.ID},
    )


SERIES_ID = {"series": "seriesId"}  # the library's name for a series argument, and the API's


SeriesArg = Annotated[strawberry.ID, strawberry.argument(description="The series' id (or name)")]


def segments_query(
    info: Info,
    series_id: SeriesArg,
    start: Annotated[
        dt.datetime | None, strawberry.argument(description="Segments ending at or after this")
    ] = None,
    end: Annotated[
        dt.datetime | None, strawberry.argument(description="Segments starting at or before this")
    ] = None,
    limit: Limit = LIMIT,
    offset: Offset = 0,
) -> Page[Segment]:
    store, lo, hi = info.context.store, epoch(start), epoch(end)
    with request_names(SERIES_ID):
        page = segments.page_segments(store, str(series_id), lo, hi, limit, offset)
    items = [Segment.of(s) for s in page.segments]
    return Page(items=items, total=page.total, limit=limit, offset=offset)


def segment_query(
    info: Info,
    id: Annotated[strawberry.ID, strawberry.argument(description="The segment's id")],  # noqa: A002
) -> Segment | None:
    try:
        return Segment.of(segments.get_segment(info.context.store, str(id)))
    except NotFound:
        return None


def time_bounds_query(info: Info, series_id: SeriesArg) -> TimeBounds:
    with request_names(SERIES_ID):
        return segments.time_bounds(info.context.store, str(series_id))


@strawberry.type
class SegmentQuery:
    segments: Page[Segment] = strawberry.field(
        resolver=segments_query, description="Segments overlapping [start, end], in time order"
    )
    segment: Segment | None = strawberry.field(
        resolver=segment_query, description="A segment by id; null if there is none"
    )
    time_bounds: TimeBounds = strawberry.field(
        resolver=time_bounds_query, description="The span a series covers and how much it holds"
    )


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
        self,
        info: Info,
        series_id: SeriesArg,
        points: Annotated[list[PointInput], strawberry.argument(description="In time order")],
    ) -> AppendResult:
        try:
            with request_names(SERIES_ID):
                result = ingest.append(
                    info.context.store,
                    str(series_id),
                    [p.timestamp for p in points],
                    [p.value for p in points],
                )
        except InvalidInput as error:
            raise _point_field(error) from None
        return result

    @strawberry.mutation(
        description="End a finite or paused stream: confirm the open tail's boundaries and close "
        "its segments (later points reopen the last one); closing again changes nothing"
    )
    def close_series(self, info: Info, series_id: SeriesArg) -> CloseResult:
        with request_names(SERIES_ID):
            return ingest.close_series(info.context.store, str(series_id))
