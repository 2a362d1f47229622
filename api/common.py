"""Shapes the GraphQL concerns share: enums, the Page connection, paging arguments, times."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Annotated, Any, Generic, TypeVar

import dateutil.parser
import strawberry
from strawberry.types.scalar import ScalarDefinition

from graphmem.series.catalog import checked_page

T = TypeVar("T")
LIMIT = 100  # every list's default page size; the most is GRAPHMEM_MAX_PAGE (api/complexity.py)
MOST = 10_000  # the library's own ceiling for a page


def _parser(parse: Callable[[str], Any], what: str) -> Callable[[object], Any]:
    """A scalar's parser raising ValueError, which graphql-core reports with its place (an
    inline value's location, a variable's path), unlike strawberry's own parse errors."""

    def parsed(value: object) -> Any:
        if not isinstance(value, str):
            raise ValueError(f"{what} is written as a string")
        try:
            return parse(value)
        except (ValueError, OverflowError) as error:
            why = "" if value in str(error) else f" ({error})"  # graphql-core quotes the value
            raise ValueError(f"not {what}{why}") from None

    return parsed


def _iso_time(value: dt.datetime | float) -> str:
    """An instant in ISO 8601 UTC; the library's epoch seconds too (derived types hold those)."""
    instant = value if isinstance(value, dt.datetime) else at(value)
    return instant.isoformat().replace("+00:00", "Z")


def _iso_date(value: dt.date | str) -> str:
    """A date as YYYY-MM-DD; the library's dates are that text already."""
    return value if isinstance(value, str) else value.isoformat()


DATE = ScalarDefinition(
    name="Date",
    description="A calendar date, ISO 8601: YYYY-MM-DD",
    specified_by_url=None,
    serialize=_iso_date,
    parse_value=_parser(dt.date.fromisoformat, "a date YYYY-MM-DD"),
    parse_literal=None,
    origin=dt.date,
)
DATE_TIME = ScalarDefinition(
    name="DateTime",
    description="An instant, ISO 8601 (2016-01-31T12:00:00Z; a date alone is its midnight); "
    "without an offset it is UTC. Written in UTC with Z",
    specified_by_url=None,
    serialize=_iso_time,
    parse_value=_parser(dateutil.parser.isoparse, "an ISO 8601 time"),
    parse_literal=None,
    origin=dt.datetime,
)
SCALARS: dict[object, Any] = {dt.date: DATE, dt.datetime: DATE_TIME}


@strawberry.type(description="One page of a list: its items and where they sit in the whole list")
class Page(Generic[T]):
    items: list[T] = strawberry.field(description="This page's items, in the list's order")
    total: int = strawberry.field(description="How many items the whole list holds")
    limit: int = strawberry.field(description="The most items a page holds, as asked")
    offset: int = strawberry.field(description="How many items of the list come before this page")


Limit = Annotated[
    int, strawberry.argument(description="The most items to return (1 to GRAPHMEM_MAX_PAGE)")
]
Offset = Annotated[int, strawberry.argument(description="How many items to skip first")]


def page_of(items: Sequence[T], limit: int, offset: int) -> Page[T]:
    """One page of a list read whole (lists that stay small enough to read at once)."""
    checked_page(limit, offset, MOST)
    return Page(
        items=list(items[offset : offset + limit]), total=len(items), limit=limit, offset=offset
    )


def at(ts: float) -> dt.datetime:
    """Epoch seconds as an aware UTC datetime (the DateTime scalar writes it in ISO 8601)."""
    return dt.datetime.fromtimestamp(ts, dt.UTC)


def epoch(value: dt.datetime | None) -> float | None:
    """A DateTime argument as epoch seconds; a naive one is taken as UTC."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return value.timestamp()


def day(value: dt.date | None) -> str | None:
    """A Date argument as the library's 'YYYY-MM-DD'."""
    return None if value is None else value.isoformat()


@strawberry.enum(description="Calendar periods (UTC); weeks are ISO weeks, from Monday")
class Frequency(Enum):
    YEAR = strawberry.enum_value("year", description="Calendar years")
    QUARTER = strawberry.enum_value("quarter", description="Calendar quarters")
    MONTH = strawberry.enum_value("month", description="Calendar months")
    WEEK = strawberry.enum_value("week", description="ISO weeks, Monday to Sunday")
    DAY = strawberry.enum_value("day", description="Calendar days")


@strawberry.enum(description="How a meta-segment chose its members")
class MetaSegmentKind(Enum):
    RANGE = strawberry.enum_value(
        "range", description="A time range, whole or cut into calendar periods (frequency)"
    )
    FILTER = strawberry.enum_value("filter", description="The segments meeting conditions")
    TEXT = strawberry.enum_value(
        "text", description="The segments whose summaries best match a text (a filter with text)"
    )
    MEMBERS = strawberry.enum_value("members", description="Segments or meta-segments by id")


@strawberry.enum(description="Whether a proposition still stands as of a date")
class PropositionStatus(Enum):
    CURRENT = strawberry.enum_value("current", description="Neither updated nor contradicted")
    UPDATED = strawberry.enum_value("updated", description="A newer proposition updates it")
    CONTRADICTED = strawberry.enum_value(
        "contradicted", description="A newer proposition contradicts it (and is not refuted)"
    )


@strawberry.enum(description="How a newer proposition relates to an older one")
class RelationKind(Enum):
    UPDATES = strawberry.enum_value("updates", description="Replaces it with newer information")
    CONTRADICTS = strawberry.enum_value("contradicts", description="Says it is not so")
    SUPPORTS = strawberry.enum_value("supports", description="Says the same or backs it up")


@strawberry.enum(description="Which of a proposition's relations")
class Direction(Enum):
    INCOMING = strawberry.enum_value("incoming", description="From newer propositions to it")
    OUTGOING = strawberry.enum_value("outgoing", description="From it to older propositions")
    BOTH = strawberry.enum_value("both", description="Incoming and outgoing")


@strawberry.enum(description="How a tool call relates to what asked for it")
class ToolCallRole(Enum):
    BUILT = strawberry.enum_value("BUILT", description="It built the meta-segment")
    READ = strawberry.enum_value("READ", description="It read the meta-segment, built before")
    CALLED = strawberry.enum_value("CALLED", description="The agent called it to answer an ask")


@strawberry.enum(description="How anchors are chosen")
class RankBy(Enum):
    SIMILARITY = strawberry.enum_value("similarity", description="By similarity to the question")
    RECALL = strawberry.enum_value(
        "recall", description="By recall probability at `now`: similarity, recency and recalls"
    )


@strawberry.enum(description="A kind of memory the timeline holds")
class MemoryLabel(Enum):
    PROPOSITION = strawberry.enum_value("Proposition", description="A dated proposition")
    EVENT = strawberry.enum_value("Event", description="An episodic memory (addEvent)")
    SEGMENT = strawberry.enum_value("Segment", description="A segment of a series")
    META_SEGMENT = strawberry.enum_value("MetaSegment", description="A meta-segment")
