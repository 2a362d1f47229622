"""GraphQL: timeline memory (recall ranked by recall probability, reinforcement, events)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import strawberry

from api.common import LIMIT, Limit, MemoryLabel, Offset, Page, day, epoch, maybe_at
from api.context import Info
from graphmem import timeline as tl
from graphmem.errors import InvalidInput
from graphmem.series.catalog import checked_page

Now = Annotated[dt.datetime, strawberry.argument(description="The time it is, for the decay")]
Labels = Annotated[
    list[MemoryLabel] | None,
    strawberry.argument(description="Which kinds of memory (default: PROPOSITION and EVENT)"),
]


@strawberry.type(description="A memory found by recall, with the terms of its recall probability")
class Recalled:
    label: MemoryLabel = strawberry.field(description="What kind of memory it is")
    id: strawberry.ID = strawberry.field(description="The memory's id")
    text: str = strawberry.field(description="Its text (a segment's: its summary)")
    date: dt.date = strawberry.field(description="The date it is dated to")
    r: float = strawberry.field(
        description="Relevance: the cosine similarity rescaled to [0, 1] (GRAPHMEM_RELEVANCE_*)"
    )
    t: float = strawberry.field(description="Time units since the last recall (or creation)")
    n: int = strawberry.field(description="Recall count")
    g: float = strawberry.field(description="Decay scale; grows with each recall")
    p: float = strawberry.field(description="Recall probability")
    recalled: bool = strawberry.field(description="p >= threshold")


@strawberry.type(description="A memory on the timeline")
class TimelineItem:
    label: MemoryLabel = strawberry.field(description="What kind of memory it is")
    id: strawberry.ID = strawberry.field(description="The memory's id")
    text: str = strawberry.field(description="Its text (a segment's: its summary)")
    date: dt.date = strawberry.field(description="The date it is dated to")
    recall_count: int = strawberry.field(description="How often it was recalled")
    g: float = strawberry.field(description="Decay scale; grows with each recall")
    last_recalled_at: dt.datetime | None = strawberry.field(
        description="When it was last recalled; null if never"
    )
    importance: float = strawberry.field(description="Retention at `now`: p with r = 1")


@strawberry.type(description="A memory's recall record after reinforce")
class RecallStats:
    label: MemoryLabel = strawberry.field(description="What kind of memory it is")
    id: strawberry.ID = strawberry.field(description="The memory's id")
    recall_count: int = strawberry.field(description="How often it was recalled")
    g: float = strawberry.field(description="Decay scale; grows with each recall")
    last_recalled_at: dt.datetime | None = strawberry.field(
        description="When it was last recalled; null if never"
    )
    changed: bool = strawberry.field(description="This call recorded a recall")


@strawberry.type(description="An episodic memory")
class Event:
    id: strawberry.ID = strawberry.field(description="The event's id (from its text and date)")
    text: str = strawberry.field(description="What happened")
    date: dt.date = strawberry.field(description="When it happened")


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
    found = tl.recall(
        info.context.services.timeline(),
        query,
        epoch(now),
        k,
        threshold,
        _labels(labels),
        reinforce=reinforce,
    )
    return [
        Recalled(
            label=MemoryLabel(m.label),
            id=strawberry.ID(m.id),
            text=m.text,
            date=dt.date.fromisoformat(m.date),
            r=m.r,
            t=m.t,
            n=m.n,
            g=m.g,
            p=m.p,
            recalled=m.recalled,
        )
        for m in found
    ]


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
        items=[_item(i) for i in items],
        total=tl.count_timeline(memory, lo, hi, now_ts, chosen),
        limit=limit,
        offset=offset,
    )


def _item(i: tl.TimelineItem) -> TimelineItem:
    return TimelineItem(
        label=MemoryLabel(i.label),
        id=strawberry.ID(i.id),
        text=i.text,
        date=dt.date.fromisoformat(i.date),
        recall_count=i.recall_count,
        g=i.g,
        last_recalled_at=maybe_at(i.last_recalled_at),
        importance=i.importance,
    )


@strawberry.type
class TimelineQuery:
    recall: list[Recalled] = strawberry.field(
        resolver=recall, description="The k memories ranked by recall probability at `now`"
    )
    timeline: Page[TimelineItem] = strawberry.field(
        resolver=timeline, description="Memories in time order with their importance at `now`"
    )


def _event(event: tl.Event) -> Event:
    return Event(
        id=strawberry.ID(event.id), text=event.text, date=dt.date.fromisoformat(event.date)
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
        return _event(event)

    @strawberry.mutation(description="Delete an episodic memory")
    def delete_event(
        self,
        info: Info,
        id: Annotated[strawberry.ID, strawberry.argument(description="The event's id")],  # noqa: A002
    ) -> Event:
        return _event(info.context.services.timeline().delete_event(str(id)))

    @strawberry.mutation(description="Record a recall of these memories at `now` (once per now)")
    def reinforce(
        self,
        info: Info,
        ids: Annotated[list[strawberry.ID], strawberry.argument(description="Memory ids")],
        now: Now,
    ) -> list[RecallStats]:
        stats = tl.reinforce(info.context.services.timeline(), [str(i) for i in ids], epoch(now))
        return [
            RecallStats(
                label=MemoryLabel(s.label),
                id=strawberry.ID(s.id),
                recall_count=s.recall_count,
                g=s.g,
                last_recalled_at=maybe_at(s.last_recalled_at),
                changed=s.changed,
            )
            for s in stats
        ]
