"""GraphQL: timeline memory (recall ranked by recall probability, reinforcement, events)."""

from __future__ import annotations

import strawberry

from api.context import Info
from graphmem import timeline as tl
from graphmem.errors import InvalidInput
from graphmem.timeutil import iso


@strawberry.type
class Recalled:
    label: str
    id: strawberry.ID
    text: str
    date: str
    r: float = strawberry.field(
        description="Relevance: the cosine similarity rescaled to [0, 1] (GRAPHMEM_RELEVANCE_*)"
    )
    t: float = strawberry.field(description="Time units since the last recall (or creation)")
    n: int = strawberry.field(description="Recall count")
    g: float = strawberry.field(description="Decay scale; grows with each recall")
    p: float = strawberry.field(description="Recall probability")
    recalled: bool = strawberry.field(description="p >= threshold")


@strawberry.type
class TimelineItem:
    label: str
    id: strawberry.ID
    text: str
    date: str
    recall_count: int
    g: float
    last_recalled_at: str | None
    importance: float = strawberry.field(description="Retention at `now`: p with r = 1")


@strawberry.type
class RecallStats:
    label: str
    id: strawberry.ID
    recall_count: int
    g: float
    last_recalled_at: str | None
    changed: bool = strawberry.field(description="This call recorded a recall")


@strawberry.type
class Event:
    id: strawberry.ID
    text: str
    date: str


def _iso(ts: int | None) -> str | None:
    return None if ts is None else iso(ts)


def recall(
    info: Info,
    query: str,
    now: str,
    k: int = 10,
    threshold: float | None = None,
    labels: list[str] | None = None,
    reinforce: bool = False,
) -> list[Recalled]:
    found = tl.recall(
        info.context.services.timeline(), query, now, k, threshold,
        tuple(labels) if labels else tl.DEFAULT_LABELS, reinforce=reinforce,
    )  # fmt: skip
    return [
        Recalled(
            label=m.label,
            id=strawberry.ID(m.id),
            text=m.text,
            date=m.date,
            r=m.r,
            t=m.t,
            n=m.n,
            g=m.g,
            p=m.p,
            recalled=m.recalled,
        )  # fmt: skip
        for m in found
    ]


def timeline(
    info: Info, start: str | None = None, end: str | None = None, now: str | None = None
) -> list[TimelineItem]:
    items = tl.timeline(info.context.services.timeline(), start, end, now)
    return [
        TimelineItem(
            label=i.label,
            id=strawberry.ID(i.id),
            text=i.text,
            date=i.date,
            recall_count=i.recall_count,
            g=i.g,
            last_recalled_at=_iso(i.last_recalled_at),
            importance=i.importance,
        )  # fmt: skip
        for i in items
    ]


@strawberry.type
class TimelineQuery:
    recall: list[Recalled] = strawberry.field(
        resolver=recall, description="Memories ranked by recall probability at `now`"
    )
    timeline: list[TimelineItem] = strawberry.field(
        resolver=timeline, description="Memories in time order with their importance at `now`"
    )


@strawberry.type
class TimelineMutation:
    @strawberry.mutation(description="Store an episodic memory (same text and date: no-op)")
    def add_event(self, info: Info, text: str, date: str, source: str | None = None) -> Event:
        try:
            event = tl.add_event(info.context.services.timeline(), text, date, source)
        except InvalidInput as error:  # the library names the event; here its arguments
            raise InvalidInput(error.field.removeprefix("event."), error.problem) from None
        return Event(id=strawberry.ID(event.id), text=event.text, date=event.date)

    @strawberry.mutation(description="Delete an episodic memory")
    def delete_event(self, info: Info, id: strawberry.ID) -> Event:  # noqa: A002
        event = info.context.services.timeline().delete_event(str(id))
        return Event(id=strawberry.ID(event.id), text=event.text, date=event.date)

    @strawberry.mutation(description="Record a recall of these memories at `now` (once per now)")
    def reinforce(self, info: Info, ids: list[strawberry.ID], now: str) -> list[RecallStats]:
        stats = tl.reinforce(info.context.services.timeline(), [str(i) for i in ids], now)
        return [
            RecallStats(
                label=s.label,
                id=strawberry.ID(s.id),
                recall_count=s.recall_count,
                g=s.g,
                last_recalled_at=_iso(s.last_recalled_at),
                changed=s.changed,
            )  # fmt: skip
            for s in stats
        ]
