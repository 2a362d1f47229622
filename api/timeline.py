"""GraphQL: timeline memory (recall ranked by recall probability, reinforcement, events)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Annotated

import strawberry

from api.common import LIMIT, Limit, MemoryLabel, Offset, Page, day, epoch
from api.context import Info
from api.derive import derived
from graphmem import timeline as tl
from graphmem.errors import InvalidInput
from graphmem.series.catalog import checked_page

Now = Annotated[dt.datetime, strawberry.argument(description="The time it is, for the decay")]
Labels = Annotated[
    list[MemoryLabel] | None,
    strawberry.argument(description="Which kinds of memory (default: PROPOSITION and EVENT)"),
]


_RECALL_COUNT = "How often it was recalled"
_G = "Decay scale; grows with each recall"
_LAST_RECALLED_AT = "When it was last recalled; null if never"
_MEMORY = {"label": MemoryLabel, "id": strawberry.ID}  # what recall, timeline and reinforce show
_LAST = {"last_recalled_at": dt.datetime | None}

if TYPE_CHECKING:  # resolvers return the library's objects; the schema reads the derived types
    from graphmem.timeline import Event, Recalled, RecallStats, TimelineItem
else:
    Recalled = derived(
        tl.Recalled,
        "A memory found by recall, with the terms of its recall probability",
        {
            "label": "What kind of memory it is",
            "id": "The memory's id",
            "text": "Its text (a segment's: its summary)",
            "date": "The date it is dated to",
            "r": "Relevance: the cosine similarity rescaled to [0, 1] (GRAPHMEM_RELEVANCE_*)",
            "t": "Time units since the last recall (or creation)",
            "n": "Recall count",
            "g": _G,
            "p": "Recall probability",
            "recalled": "p >= threshold",
        },
        types={**_MEMORY, "date": dt.date},
        # the date as epoch seconds, the last recall (t counts from it), the source, the cosine
        # r is rescaled from
        hidden=("ts", "last_recalled_at", "source", "cosine"),
    )
    TimelineItem = derived(
        tl.TimelineItem,
        "A memory on the timeline",
        {
            "label": "What kind of memory it is",
            "id": "The memory's id",
            "text": "Its text (a segment's: its summary)",
            "date": "The date it is dated to",
            "recall_count": _RECALL_COUNT,
            "g": _G,
            "last_recalled_at": _LAST_RECALLED_AT,
            "importance": "Retention at `now`: p with r = 1",
        },
        types={**_MEMORY, **_LAST, "date": dt.date},
        hidden=("ts", "t"),  # the date as epoch seconds; t is in importance already
    )
    RecallStats = derived(
        tl.RecallStats,
        "A memory's recall record after reinforce",
        {
            "label": "What kind of memory it is",
            "id": "The memory's id",
            "recall_count": _RECALL_COUNT,
            "g": _G,
            "last_recalled_at": _LAST_RECALLED_AT,
            "changed": "This call recorded a recall",
        },
        types={**_MEMORY, **_LAST},
        hidden=("ts",),  # the memory's date as epoch seconds
    )
    Event = derived(
        tl.Event,
        "An episodic memory",
        {
            "id": "The event's id (from its text and date)",
            "text": "What happened",
            "date": "When it happened",
        },
        types={"id": strawberry.ID, "date": dt.date},
        hidden=("ts", "source"),  # the date as epoch seconds; the source is not shown back
    )


def _labels(labels: list[MemoryLabel] | None) -> tuple[str, ...]:
    return tuple(str(label.value) for label in labels) if labels else tl.DEFAULT_LABELS


def recall(
    info: Info,
    query: Annotated[str, strawberry.argument(description="What to recall, in words")],
    now: Now,
    k: Annotated[int, strawberry.argument(description="How many memories")] = 10,
    threshold: Annotated[
        float | None,
        strawberry.argument(description="p at or above which a memory counts as recalled"),
    ] = None,
    labels: Labels = None,
    reinforce: Annotated[
        bool, strawberry.argument(description="Record a recall of those recalled")
    ] = False,
) -> list[Recalled]:
    return tl.recall(
        info.context.services.timeline(),
        query,
        epoch(now),
        k,
        threshold,
        _labels(labels),
        reinforce=reinforce,
    )


def timeline(
    info: Info,
    start: Annotated[
        dt.datetime | None, strawberry.argument(description="Dated at or after this")
    ] = None,
    end: Annotated[
        dt.datetime | None, strawberry.argument(description="Dated at or before this (inclusive)")
    ] = None,
    now: Annotated[
        dt.datetime | None, strawberry.argument(description="The time it is (default: now)")
    ] = None,
    labels: Labels = None,
    limit: Limit = LIMIT,
    offset: Offset = 0,
) -> Page[TimelineItem]:
    checked_page(limit, offset, tl.view.MAX_ITEMS)
    memory = info.context.services.timeline()
    lo, hi = epoch(start), epoch(end)
    now_ts = memory.now() if now is None else epoch(now)
    chosen = _labels(labels)
    items = tl.timeline(memory, lo, hi, now_ts, chosen, limit=offset + limit)[offset:]
    return Page(
        items=items,
        total=tl.count_timeline(memory, lo, hi, now_ts, chosen),
        limit=limit,
        offset=offset,
    )


@strawberry.type
class TimelineQuery:
    recall: list[Recalled] = strawberry.field(
        resolver=recall, description="The k memories ranked by recall probability at `now`"
    )
    timeline: Page[TimelineItem] = strawberry.field(
        resolver=timeline, description="Memories in time order with their importance at `now`"
    )


@strawberry.type
class TimelineMutation:
    @strawberry.mutation(description="Store an episodic memory (same text and date: no-op)")
    def add_event(
        self,
        info: Info,
        text: Annotated[str, strawberry.argument(description="What happened")],
        date: Annotated[dt.date, strawberry.argument(description="When it happened")],
        source: Annotated[str | None, strawberry.argument(description="Where it is from")] = None,
    ) -> Event:
        try:
            event = tl.add_event(info.context.services.timeline(), text, day(date), source)
        except InvalidInput as error:  # the library names the event; here its arguments
            raise InvalidInput(error.field.removeprefix("event."), error.problem) from None
        return event

    @strawberry.mutation(description="Delete an episodic memory")
    def delete_event(
        self,
        info: Info,
        id: Annotated[strawberry.ID, strawberry.argument(description="The event's id")],  # noqa: A002
    ) -> Event:
        return info.context.services.timeline().delete_event(str(id))

    @strawberry.mutation(description="Record a recall of these memories at `now` (once per now)")
    def reinforce(
        self,
        info: Info,
        ids: Annotated[list[strawberry.ID], strawberry.argument(description="Memory ids")],
        now: Now,
    ) -> list[RecallStats]:
        return tl.reinforce(info.context.services.timeline(), [str(i) for i in ids], epoch(now))
