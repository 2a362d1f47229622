"""GraphQL: meta-segments (members, features, provenance), building them, and the agent."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import strawberry
from strawberry.utils.str_converters import to_camel_case

from api.context import Info
from api.errors import request_names
from api.segments import SERIES_ID, Segment
from graphmem import agent
from graphmem.errors import InvalidInput, NotFound
from graphmem.llm import LLM
from graphmem.series import catalog, meta
from graphmem.series.metafresh import fresh
from graphmem.series.segquery import SegmentFilter, time_arg
from graphmem.series.tools import Run, ToolEnv, ToolOutput, call_tool, filter_output


@strawberry.type
class MetaFeatures:
    n: int
    mean: float
    std: float
    min: float
    max: float
    slope_per_day: float = strawberry.field(description="Least squares over all points")
    slope_mean: float | None = strawberry.field(description="Mean of the members' slopes")
    change: float
    pct_change: float | None
    change_vs_prev: float | None = strawberry.field(
        description="Mean minus the previous period's mean (same frequency)"
    )
    pct_change_vs_prev: float | None
    member_count: int
    coverage: float = strawberry.field(description="Share of the interval spanned by data")


@strawberry.type
class ToolCall:
    id: strawberry.ID
    tool: str
    args: str
    result: str = strawberry.field(description="The result as JSON (truncated; see digest)")
    digest: str
    ok: bool
    error: str | None
    at_iso: str
    session: str | None
    how: str = strawberry.field(
        description="BUILT or READ (a meta-segment's calls), CALLED (an ask's)"
    )

    @classmethod
    def of(cls, row: dict, how: str) -> ToolCall:
        """A stored ToolCall node (as read) and how it relates to what asked for it."""
        return cls(
            id=strawberry.ID(row["id"]), tool=row["tool"], args=row["args"],
            result=row["result"], digest=row["digest"], ok=row["ok"], error=row.get("error"),
            at_iso=row["at_iso"], session=row.get("session"), how=how,
        )  # fmt: skip


@strawberry.type
class MetaSegment:
    id: strawberry.ID
    series_id: strawberry.ID
    kind: str
    label: str
    start_iso: str
    end_iso: str
    summary: str
    spec: str

    @strawberry.field(description="Features computed exactly over the member points")
    def features(self, info: Info) -> MetaFeatures:
        m = meta.get_meta(info.context.store, str(self.id))
        f = m.features
        return MetaFeatures(
            n=f.n, mean=f.mean, std=f.std, min=f.min, max=f.max,
            slope_per_day=f.slope_per_day, slope_mean=m.slope_mean, change=f.change,
            pct_change=f.pct_change, change_vs_prev=m.change_prev,
            pct_change_vs_prev=m.pct_change_prev, member_count=m.member_count,
            coverage=m.coverage,
        )  # fmt: skip

    @strawberry.field(
        description="Member segments, in time order (member meta-segments: metaMembers)"
    )
    def members(self, info: Info) -> list[Segment]:
        return [Segment.of(g) for g in meta.get_members(info.context.store, str(self.id)).segments]

    @strawberry.field(description="Member meta-segments (recursive groupings)")
    def meta_members(self, info: Info) -> list[MetaSegment]:
        found = meta.get_members(info.context.store, str(self.id)).metas
        return [MetaSegment.of(m, info) for m in found]

    @strawberry.field(description="Tool calls that built or read this meta-segment")
    def tool_calls(self, info: Info) -> list[ToolCall]:
        rows = info.context.store.read("meta.tool_calls", id=str(self.id))
        return [ToolCall.of(r["t"], r["how"]) for r in rows]

    @classmethod
    def of(cls, m: meta.MetaSegment, info: Info) -> MetaSegment:
        unit = catalog.get_series(info.context.store, m.series_id).unit
        props = m.to_props(unit)
        return cls(
            id=strawberry.ID(m.id), series_id=strawberry.ID(m.series_id), kind=m.kind,
            label=m.label, start_iso=props["start_iso"], end_iso=props["end_iso"],
            summary=props["summary"], spec=props["spec"],
        )  # fmt: skip


@strawberry.input
class MetaSpecInput:
    series_id: strawberry.ID | None = strawberry.field(
        default=None, description="Required for range and filter"
    )
    kind: str = strawberry.field(description="range | filter | members")
    start: str | None = None
    end: str | None = None
    freq: str | None = strawberry.field(
        default=None, description="year | quarter | month | week | day (range only)"
    )
    slope_min: float | None = None
    slope_max: float | None = None
    std_min: float | None = None
    std_max: float | None = None
    mean_min: float | None = None
    mean_max: float | None = None
    duration_min: float | None = None
    duration_max: float | None = None
    min_below: float | None = strawberry.field(
        default=None, description="segments whose lowest value is at most this"
    )
    max_above: float | None = strawberry.field(
        default=None, description="segments whose highest value is at least this"
    )
    member_ids: list[str] | None = None
    text: str | None = strawberry.field(
        default=None, description="filter only: segments whose summaries mean this"
    )
    k: int | None = strawberry.field(default=None, description="how many for text (10)")
    label: str | None = None


# the tools' names for the spec's fields, where they are not its fields in snake_case
_SPEC_NAMES = {"series": "seriesId", "members": "memberIds"}
_TOOL_FOR_KIND = {
    "range": "create_meta_segment_by_datetime_range",
    "filter": "create_meta_segment_by_filter",
    "members": "create_meta_segment_from_members",
}
# the input's filter fields: every SegmentFilter condition but the time bounds (dates here)
_FILTER_FIELDS = tuple(f.name for f in fields(SegmentFilter) if f.name not in ("start", "end"))
# the spec fields each kind reads; a value in any other is refused, not silently ignored
_FIELDS_OF_KIND = {
    "members": ("kind", "member_ids", "label"),
    "range": ("kind", "series_id", "start", "end", "freq"),
    "filter": ("kind", "series_id", "text", "k", "start", "end", *_FILTER_FIELDS),
}


def _check_unused(spec: MetaSpecInput) -> None:
    """InvalidInput naming the first field set that `spec.kind` does not read."""
    used = _FIELDS_OF_KIND[spec.kind]
    for field in fields(MetaSpecInput):
        if field.name not in used and getattr(spec, field.name) is not None:
            name = to_camel_case(field.name)
            raise InvalidInput(f"spec.{name}", f"is not used by kind {spec.kind}; leave it out")


def _tool_args(spec: MetaSpecInput) -> dict[str, object]:
    """The arguments recorded on the ToolCall (for filter: the typed fields as given)."""
    args: dict[str, Any]
    if spec.kind == "members":
        args = {"member_ids": spec.member_ids, "label": spec.label}
    elif spec.kind == "range":
        args = {"series": spec.series_id, "start": spec.start, "end": spec.end, "freq": spec.freq}
    else:
        args = {"series": spec.series_id, "text": spec.text, "k": spec.k, "start": spec.start,
                "end": spec.end, **{k: getattr(spec, k) for k in _FILTER_FIELDS}}  # fmt: skip
    return {k: (str(v) if k == "series" and v is not None else v)
            for k, v in args.items() if v is not None}  # fmt: skip


def _run_filter(spec: MetaSpecInput) -> Run:
    """The filter tool's work on the typed input: errors name the input field."""

    def run(env: ToolEnv) -> ToolOutput:
        if spec.series_id is None:
            raise InvalidInput("series_id", "is required for kind filter")
        filt = SegmentFilter(start=time_arg(spec.start, "start"), end=time_arg(spec.end, "end"),
                             **{k: getattr(spec, k) for k in _FILTER_FIELDS})  # fmt: skip
        return filter_output(env, str(spec.series_id), filt, spec.text, spec.k)

    return run


@strawberry.type
class AskStep:
    number: int
    tool: str
    arguments: str
    ok: bool
    result: str
    tool_call_id: str = strawberry.field(description="The stored ToolCall node")


@strawberry.type(description="An answer of the agent, stored as an Ask node (its provenance)")
class AskResult:
    id: strawberry.ID = strawberry.field(description="The Ask node's id (= session)")
    question: str
    answer: str | None
    complete: bool = strawberry.field(description="False when the step limit was reached")
    model: str = strawberry.field(description="The LLM that answered")
    at_iso: str = strawberry.field(description="When the answer was stored")
    steps: list[AskStep]
    evidence: list[str] = strawberry.field(
        description="Ids of the segments / meta-segments the tool results showed the model"
    )
    session: str = strawberry.field(description="Groups this answer's ToolCall nodes")

    @strawberry.field(description="The Ask's tool calls as stored, in step order")
    def tool_calls(self, info: Info) -> list[ToolCall]:
        rows = info.context.store.read("asks.tool_calls", id=str(self.id))
        return [ToolCall.of(r["t"], "CALLED") for r in rows]


def meta_segments(
    info: Info, series_id: strawberry.ID, limit: int = 1000, offset: int = 0
) -> list[MetaSegment]:
    with request_names(SERIES_ID):
        found = meta.list_metas(info.context.store, str(series_id), limit, offset)
    return [MetaSegment.of(m, info) for m in found]


def meta_segment(info: Info, id: strawberry.ID) -> MetaSegment | None:  # noqa: A002
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
    meta_segments: list[MetaSegment] = strawberry.field(resolver=meta_segments)
    meta_segment: MetaSegment | None = strawberry.field(resolver=meta_segment)


@strawberry.type
class MetaMutation:
    @strawberry.mutation(description="Build (or reuse) meta-segments; recorded as a tool call")
    def build_meta_segments(self, info: Info, spec: MetaSpecInput) -> list[MetaSegment]:
        if spec.kind not in _TOOL_FOR_KIND:
            raise InvalidInput("spec.kind", f"must be one of {', '.join(_TOOL_FOR_KIND)}")
        _check_unused(spec)
        env = info.context.services.tools()
        run = _run_filter(spec) if spec.kind == "filter" else None
        with request_names(_SPEC_NAMES, prefix="spec."):
            output, _ = call_tool(
                env, _TOOL_FOR_KIND[spec.kind], _tool_args(spec), session="graphql", run=run
            )
        found = meta.get_metas(info.context.store, output.built)
        return [MetaSegment.of(found[i], info) for i in output.built if i in found]

    @strawberry.mutation(description="Answer a question about a series with the LLM agent")
    def ask(
        self, info: Info, question: str, series_id: strawberry.ID | None = None,
        max_steps: int = 10,
    ) -> AskResult:  # fmt: skip
        with request_names():
            agent.check_question(question, max_steps)  # the caller's mistakes before the LLM's
        llm = LLM(info.context.state.settings)
        result = agent.ask(
            info.context.store, llm, question, str(series_id) if series_id else None, max_steps,
            env=info.context.services.tools(),
        )  # fmt: skip
        return AskResult(
            id=strawberry.ID(result.session), question=result.question, answer=result.answer,
            complete=result.complete, model=result.model, at_iso=result.at_iso,
            steps=[AskStep(number=s.number, tool=s.tool, arguments=s.arguments, ok=s.ok,
                           result=s.result, tool_call_id=s.call_id) for s in result.steps],
            evidence=result.evidence, session=result.session,
        )  # fmt: skip
