"""GraphQL: meta-segments (members, features, provenance), building them, and the agent."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import fields
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, cast

import strawberry
from strawberry.scalars import JSON
from strawberry.utils.str_converters import to_camel_case

from api.common import (
    LIMIT,
    Frequency,
    Limit,
    MetaSegmentKind,
    Offset,
    Page,
    ToolCallRole,
    at,
    epoch,
    page_of,
)
from api.context import Info
from api.derive import derived
from api.errors import request_names
from api.segments import SERIES_ID, Segment
from graphmem import agent
from graphmem.errors import InvalidInput, NotFound
from graphmem.llm import LLM
from graphmem.series import catalog, meta
from graphmem.series.meta.fresh import fresh
from graphmem.series.meta.query import SegmentFilter
from graphmem.series.meta.tools import Run, ToolEnv, ToolOutput, call_tool, filter_output
from graphmem.timeutil import iso


@strawberry.type(description="Features of a meta-segment, computed exactly over its points")
class MetaFeatures:
    point_count: int = strawberry.field(description="How many points it covers")
    mean: float = strawberry.field(description="Mean of the values")
    std: float = strawberry.field(description="Population standard deviation of the values")
    min: float = strawberry.field(description="Lowest value")
    max: float = strawberry.field(description="Highest value")
    slope_per_day: float = strawberry.field(description="Least squares over all points")
    slope_mean: float | None = strawberry.field(description="Mean of the members' slopes")
    change: float = strawberry.field(description="Last value minus first")
    pct_change: float | None = strawberry.field(
        description="change in % of the first value; null when that is 0"
    )
    change_vs_prev: float | None = strawberry.field(
        description="Mean minus the previous period's mean (same frequency)"
    )
    pct_change_vs_prev: float | None = strawberry.field(
        description="changeVsPrev in % of the previous period's mean"
    )
    member_count: int = strawberry.field(description="How many members it groups")
    coverage: float = strawberry.field(description="Share of the interval spanned by data")


@strawberry.type(description="One call of a tool, stored as a ToolCall node (provenance)")
class ToolCall:
    id: strawberry.ID = strawberry.field(description="The ToolCall node's id")
    tool: str = strawberry.field(description="The tool's name")
    arguments: JSON = strawberry.field(description="The arguments it was called with")
    result: str = strawberry.field(description="The result as JSON text (truncated; see digest)")
    digest: str = strawberry.field(description="A hash of the whole result")
    ok: bool = strawberry.field(description="False when the call failed (see error)")
    error: str | None = strawberry.field(description="Why the call failed, if it did")
    at: dt.datetime = strawberry.field(description="When it was called")
    session: str | None = strawberry.field(description="Groups the calls of one ask or client")
    how: ToolCallRole = strawberry.field(
        description="How it relates to what listed it: BUILT or READ a meta-segment, CALLED "
        "by an ask"
    )

    @classmethod
    def of(cls, row: dict, how: str) -> ToolCall:
        """A stored ToolCall node (as read) and how it relates to what asked for it."""
        return cls(
            id=strawberry.ID(row["id"]),
            tool=row["tool"],
            arguments=json_value(row["args"]),
            result=row["result"],
            digest=row["digest"],
            ok=row["ok"],
            error=row.get("error"),
            at=at(row["at"]),
            session=row.get("session"),
            how=ToolCallRole(how),
        )


def json_value(text: str) -> Any:
    """JSON text as the value it holds; text that is not JSON (an LLM's) as a string."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _tool_calls(
    rows: list[dict[str, Any]], how: str | None, limit: int, offset: int
) -> Page[ToolCall]:
    """A page of tool-call rows ({t: node, how}); `how` when the rows carry none."""
    return page_of([ToolCall.of(r["t"], how or r["how"]) for r in rows], limit, offset)


@strawberry.type(description="A group of segments (or meta-segments) with exact statistics")
class MetaSegment:
    id: strawberry.ID = strawberry.field(description="Its id: the same spec, the same id")
    series_id: strawberry.ID = strawberry.field(description="The series it belongs to")
    kind: MetaSegmentKind = strawberry.field(description="How it chose its members")
    frequency: Frequency | None = strawberry.field(
        description="The calendar period it is one of (a range cut by frequency), else null"
    )
    label: str = strawberry.field(description="A short name: the period, the range, the filter")
    start: dt.datetime = strawberry.field(description="Start of the interval it covers (inclusive)")
    end: dt.datetime = strawberry.field(
        description="End of the interval it covers (inclusive: a period's last microsecond)"
    )
    summary: str = strawberry.field(description="One line describing it, vs the previous period")
    spec: JSON = strawberry.field(description="What built it (its id is derived from this)")

    @strawberry.field(description="Features computed exactly over the member points")
    def features(self, info: Info) -> MetaFeatures:
        m = meta.get_meta(info.context.store, str(self.id))
        f = m.features
        return MetaFeatures(
            point_count=f.n,
            mean=f.mean,
            std=f.std,
            min=f.min,
            max=f.max,
            slope_per_day=f.slope_per_day,
            slope_mean=m.slope_mean,
            change=f.change,
            pct_change=f.pct_change,
            change_vs_prev=m.change_prev,
            pct_change_vs_prev=m.pct_change_prev,
            member_count=m.member_count,
            coverage=m.coverage,
        )

    @strawberry.field(
        description="Member segments, in time order (member meta-segments: metaMembers)"
    )
    def members(self, info: Info, limit: Limit = LIMIT, offset: Offset = 0) -> Page[Segment]:
        found = meta.get_members(info.context.store, str(self.id)).segments
        return page_of([Segment.of(g) for g in found], limit, offset)

    @strawberry.field(description="Member meta-segments (recursive groupings), in time order")
    def meta_members(
        self, info: Info, limit: Limit = LIMIT, offset: Offset = 0
    ) -> Page[MetaSegment]:
        found = meta.get_members(info.context.store, str(self.id)).metas
        return page_of([MetaSegment.of(m, info) for m in found], limit, offset)

    @strawberry.field(description="Tool calls that built or read this meta-segment, oldest first")
    def tool_calls(self, info: Info, limit: Limit = LIMIT, offset: Offset = 0) -> Page[ToolCall]:
        rows = meta.tool_calls_of(info.context.store, str(self.id))
        return _tool_calls(rows, None, limit, offset)

    @classmethod
    def of(cls, m: meta.MetaSegment, info: Info) -> MetaSegment:
        unit = catalog.get_series(info.context.store, m.series_id).unit
        props = m.to_props(unit)
        # a period's stored end is the next period's start: here the last instant before it
        end = m.end - 1e-6 if m.is_period else m.end
        return cls(
            id=strawberry.ID(m.id),
            series_id=strawberry.ID(m.series_id),
            kind=MetaSegmentKind(m.kind),
            frequency=None if m.freq is None else Frequency(m.freq),
            label=m.label,
            start=at(m.start),
            end=at(end),
            summary=props["summary"],
            spec=cast(JSON, m.spec),
        )


@strawberry.enum(description="What buildMetaSegments groups")
class MetaSpecKind(Enum):
    RANGE = strawberry.enum_value(
        "range", description="A time range: one meta-segment, or one per calendar period"
    )
    FILTER = strawberry.enum_value(
        "filter", description="The segments meeting conditions (and/or matching a text)"
    )
    MEMBERS = strawberry.enum_value("members", description="Segments or meta-segments by id")


def _spec_field(description: str) -> Any:
    return strawberry.field(default=None, description=description)


@strawberry.input(description="What to group into meta-segments; each kind reads its own fields")
class MetaSpecInput:
    kind: MetaSpecKind = strawberry.field(description="How to choose the members")
    series_id: strawberry.ID | None = _spec_field("The series (range and filter: required)")
    start: dt.datetime | None = _spec_field("range: required; filter: segments ending after it")
    end: dt.datetime | None = _spec_field(
        "range: required, inclusive; filter: segments starting before it"
    )
    frequency: Frequency | None = _spec_field("range only: one meta-segment per calendar period")
    slope_min: float | None = _spec_field("filter: segments rising at least this much per day")
    slope_max: float | None = _spec_field("filter: segments rising at most this much per day")
    std_min: float | None = _spec_field("filter: segments with at least this spread")
    std_max: float | None = _spec_field("filter: segments with at most this spread")
    mean_min: float | None = _spec_field("filter: segments with a mean of at least this")
    mean_max: float | None = _spec_field("filter: segments with a mean of at most this")
    duration_min: float | None = _spec_field("filter: segments lasting at least this many days")
    duration_max: float | None = _spec_field("filter: segments lasting at most this many days")
    min_below: float | None = _spec_field("filter: segments whose lowest value is at most this")
    max_above: float | None = _spec_field("filter: segments whose highest value is at least this")
    member_ids: list[str] | None = _spec_field("members: the segment / meta-segment ids")
    text: str | None = _spec_field("filter only: segments whose summaries mean this")
    k: int | None = _spec_field("filter with text: how many segments (10)")
    label: str | None = _spec_field("members only: a name (default: its first to last date)")


# the tools' names for the spec's fields, where they are not its fields in camelCase
_SPEC_NAMES = {"series": "seriesId", "members": "memberIds", "freq": "frequency"}
_TOOL_FOR_KIND = {
    MetaSpecKind.RANGE: "create_meta_segment_by_datetime_range",
    MetaSpecKind.FILTER: "create_meta_segment_by_filter",
    MetaSpecKind.MEMBERS: "create_meta_segment_from_members",
}
# the input's filter fields: every SegmentFilter condition but the time bounds (dates here)
_FILTER_FIELDS = tuple(f.name for f in fields(SegmentFilter) if f.name not in ("start", "end"))
# the spec fields each kind reads; a value in any other is refused, not silently ignored
_FIELDS_OF_KIND = {
    MetaSpecKind.MEMBERS: ("kind", "member_ids", "label"),
    MetaSpecKind.RANGE: ("kind", "series_id", "start", "end", "frequency"),
    MetaSpecKind.FILTER: ("kind", "series_id", "text", "k", "start", "end", *_FILTER_FIELDS),
}


def _check_unused(spec: MetaSpecInput) -> None:
    """InvalidInput naming the first field set that `spec.kind` does not read."""
    used = _FIELDS_OF_KIND[spec.kind]
    for field in fields(MetaSpecInput):
        if field.name not in used and getattr(spec, field.name) is not None:
            name = to_camel_case(field.name)
            raise InvalidInput(
                f"spec.{name}", f"is not used by kind {spec.kind.name}; leave it out"
            )


def _tool_args(spec: MetaSpecInput) -> dict[str, object]:
    """The arguments recorded on the ToolCall (for filter: the typed fields as given)."""
    args: dict[str, Any]
    start, end = _iso(spec.start), _iso(spec.end)
    if spec.kind is MetaSpecKind.MEMBERS:
        args = {"member_ids": spec.member_ids, "label": spec.label}
    elif spec.kind is MetaSpecKind.RANGE:
        freq = None if spec.frequency is None else spec.frequency.value
        args = {"series": spec.series_id, "start": start, "end": end, "freq": freq}
    else:
        args = {
            "series": spec.series_id,
            "text": spec.text,
            "k": spec.k,
            "start": start,
            "end": end,
            **{k: getattr(spec, k) for k in _FILTER_FIELDS},
        }
    return {
        k: (str(v) if k == "series" and v is not None else v)
        for k, v in args.items()
        if v is not None
    }


def _iso(value: dt.datetime | None) -> str | None:
    stamp = epoch(value)
    return None if stamp is None else iso(stamp)


def _run_filter(spec: MetaSpecInput) -> Run:
    """The filter tool's work on the typed input: errors name the input field."""

    def run(env: ToolEnv) -> ToolOutput:
        if spec.series_id is None:
            raise InvalidInput("series_id", "is required for kind filter")
        filt = SegmentFilter(
            start=epoch(spec.start),
            end=epoch(spec.end),
            **{k: getattr(spec, k) for k in _FILTER_FIELDS},
        )
        return filter_output(env, str(spec.series_id), filt, spec.text, spec.k)

    return run


def _arguments(root: agent.Step) -> JSON:
    return cast(JSON, json_value(root.arguments))


def _ask_id(root: agent.Answer) -> strawberry.ID:
    return strawberry.ID(root.session)


def _ask_at(root: agent.Answer) -> dt.datetime:
    return at(round(root.at, 3))  # as the Ask node stores it


def _ask_tool_calls(
    root: agent.Answer, info: Info, limit: Limit = LIMIT, offset: Offset = 0
) -> Page[ToolCall]:
    rows = agent.ask_tool_calls(info.context.store, root.session)
    return _tool_calls(rows, "CALLED", limit, offset)


if TYPE_CHECKING:  # the ask mutation returns the library's answer; the schema reads these types
    from graphmem.agent import Answer as AskResult
else:
    AskStep = derived(
        agent.Step,
        "One step of the agent: a tool it called and what came back",
        {
            "number": "1-based, in the order taken",
            "tool": "The tool called",
            "arguments": strawberry.field(
                resolver=_arguments,
                description="The arguments the model gave (a string when they were not JSON)",
            ),
            "ok": "False when the call failed",
            "result": "What the tool returned, as the model read it",
            "call_id": strawberry.field(name="toolCallId", description="The stored ToolCall node"),
        },
        name="AskStep",
        types={"call_id": strawberry.ID},
    )
    AskResult = derived(
        agent.Answer,
        "An answer of the agent, stored as an Ask node (its provenance)",
        {
            "id": strawberry.field(resolver=_ask_id, description="The Ask node's id (= session)"),
            "question": "The question asked",
            "answer": "The answer; null if none was reached",
            "complete": "False when the step limit was reached",
            "model": "The LLM that answered",
            "at": strawberry.field(resolver=_ask_at, description="When the answer was stored"),
            "steps": "The tool calls taken, in order",
            "evidence": "Ids of the segments / meta-segments the tool results showed the model",
            "session": "Groups this answer's ToolCall nodes",
            "tool_calls": strawberry.field(
                resolver=_ask_tool_calls,
                description="The Ask's tool calls as stored, in step order",
            ),
        },
        name="AskResult",
        types={"steps": list[AskStep]},
        hidden=("tokens", "series_id"),  # the LLM's usage; the series the caller named
    )


SeriesArg = Annotated[strawberry.ID, strawberry.argument(description="The series' id (or name)")]
MetaId = Annotated[strawberry.ID, strawberry.argument(description="The meta-segment's id")]


def meta_segments(
    info: Info,
    series_id: SeriesArg,
    kind: Annotated[
        MetaSegmentKind | None, strawberry.argument(description="Only those of this kind")
    ] = None,
    frequency: Annotated[
        Frequency | None, strawberry.argument(description="Only periods of this frequency")
    ] = None,
    limit: Limit = LIMIT,
    offset: Offset = 0,
) -> Page[MetaSegment]:
    store, sid = info.context.store, str(series_id)
    where = {
        "kind": None if kind is None else str(kind.value),
        "freq": None if frequency is None else str(frequency.value),
    }
    with request_names(SERIES_ID):
        found = meta.list_metas(store, sid, limit, offset, **where)
        total = meta.count_metas(store, sid, **where)
    items = [MetaSegment.of(m, info) for m in found]
    return Page(items=items, total=total, limit=limit, offset=offset)


def meta_segment(info: Info, id: MetaId) -> MetaSegment | None:  # noqa: A002
    """One meta-segment, first brought up to date with points that arrived since its build."""
    store = info.context.store
    try:
        with request_names({"ids[0]": "id", "meta_segment": "id"}):
            found = meta.get_meta(store, str(id))
    except NotFound:
        return None
    # the search (and the model behind it) is opened only if a text grouping is rebuilt
    search = lambda: info.context.services.tools().search()  # noqa: E731
    return MetaSegment.of(fresh(store, found, search), info)


@strawberry.type
class MetaQuery:
    meta_segments: Page[MetaSegment] = strawberry.field(
        resolver=meta_segments, description="A series' meta-segments, in time order"
    )
    meta_segment: MetaSegment | None = strawberry.field(
        resolver=meta_segment,
        description="A meta-segment by id, brought up to date; null if there is none",
    )


@strawberry.type
class MetaMutation:
    @strawberry.mutation(description="Build (or reuse) meta-segments; recorded as a tool call")
    def build_meta_segments(
        self,
        info: Info,
        spec: Annotated[MetaSpecInput, strawberry.argument(description="What to group")],
    ) -> list[MetaSegment]:
        _check_unused(spec)
        env = info.context.services.tools()
        run = _run_filter(spec) if spec.kind is MetaSpecKind.FILTER else None
        with request_names(_SPEC_NAMES, prefix="spec."):
            output, _ = call_tool(
                env, _TOOL_FOR_KIND[spec.kind], _tool_args(spec), session="graphql", run=run
            )
        found = meta.get_metas(info.context.store, output.built)
        return [MetaSegment.of(found[i], info) for i in output.built if i in found]

    @strawberry.mutation(description="Answer a question about a series with the LLM agent")
    def ask(
        self,
        info: Info,
        question: Annotated[str, strawberry.argument(description="The question, in words")],
        series_id: Annotated[
            strawberry.ID | None, strawberry.argument(description="The series it is about")
        ] = None,
        max_steps: Annotated[
            int, strawberry.argument(description="The most tool calls the agent may make")
        ] = 10,
    ) -> AskResult:
        with request_names():
            agent.check_question(question, max_steps)  # the caller's mistakes before the LLM's
        llm = LLM(info.context.state.settings)
        return agent.ask(
            info.context.store,
            llm,
            question,
            str(series_id) if series_id else None,
            max_steps,
            env=info.context.services.tools(),
        )
