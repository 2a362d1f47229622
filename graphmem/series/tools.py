"""The series tools: JSON-schema functions over segments and meta-segments, with provenance.

Callable with or without an LLM (`run_tool`). Every call is stored as a ToolCall node
linked to the meta-segments it built and the segments / meta-segments it read.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphmem.config import Settings
from graphmem.errors import GraphmemError, InvalidInput
from graphmem.jsonargs import parse_arguments, validate
from graphmem.series import catalog, meta, metabuild, segments
from graphmem.series.compact import bounds_view, meta_brief, meta_view, segment_view
from graphmem.series.periods import FREQUENCIES
from graphmem.series.textsearch import SegmentSearch
from graphmem.store import Store
from graphmem.timeline.reinforce import reinforce_in
from graphmem.timeutil import iso, parse_timestamp

RESULT_CHARS = 4000  # stored on the ToolCall node; the digest covers the whole result


@dataclass
class ToolEnv:
    """What tools run against: the store and, opened on first use, segment text search."""

    store: Store
    settings: Settings | None = None
    _search: SegmentSearch | None = None
    owns_search: bool = True  # False when the search (and its vector index) is shared

    def search(self) -> SegmentSearch:
        if self._search is None:
            from graphmem.embed import Embedder
            from graphmem.vectors import VectorStore

            settings = self.settings or Settings.from_env()
            embedder = Embedder(settings.embed_model)
            vectors = VectorStore(self.store, settings.home, embedder.name, embedder.dim)
            self._search = SegmentSearch(self.store, embedder, vectors)
        return self._search

    def close(self) -> None:
        """Save the vector index if text search was used."""
        if self._search is not None and self.owns_search:
            self._search.vectors.close()
            self._search = None


@dataclass
class ToolOutput:
    """A tool's result and what it touched."""

    result: Any
    series_id: str | None = None
    built: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    handler: Callable[[ToolEnv, dict[str, Any]], ToolOutput]

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-calling description of this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@dataclass(frozen=True)
class ToolResult:
    """What a caller (or the LLM) gets back: JSON content, or an error in plain words."""

    tool: str
    ok: bool
    content: str
    call_id: str
    built: list[str]
    read: list[str]


def _obj(required: list[str], **props: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


SERIES = {"type": "string", "description": "series id or name"}
DATE = {"type": "string", "description": "ISO date YYYY-MM-DD (or datetime)"}
NUM = {"type": "number"}


def _time(args: dict[str, Any], name: str) -> float | None:
    value = args.get(name)
    return None if value is None else float(parse_timestamp(value, field=name))


def _list_series(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    store = env.store
    out = []
    for s in catalog.list_series(store):
        out.append(bounds_view(segments.time_bounds(store, s.id), s.name, s.unit))
    return ToolOutput(out)


def _time_bounds(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    store = env.store
    s = catalog.get_series(store, args["series"])
    return ToolOutput(bounds_view(segments.time_bounds(store, s.id), s.name, s.unit), s.id)


def _search_segments(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    store = env.store
    s = catalog.get_series(store, args["series"])
    filt = metabuild.SegmentFilter(
        slope_min=args["slope_min"], slope_max=args["slope_max"], std_min=args["std_min"],
        std_max=args["std_max"], mean_min=args["mean_min"], mean_max=args["mean_max"],
        start=_time(args, "start"), end=_time(args, "end"),
    )  # fmt: skip
    if args.get("text"):
        hits = env.search().search(s.id, args["text"], args["limit"])
        found = [g for g, _ in hits if _meets(g, filt)]
    else:
        found = segments.filter_segments(store, s.id, filt, args["limit"])
    return ToolOutput(
        [segment_view(g, summary=False) for g in found], s.id, read=[g.id for g in found]
    )


def _meets(g: segments.Segment, filt: metabuild.SegmentFilter) -> bool:
    """The statistics conditions of a filter, applied to a segment found by text."""
    f = g.features
    checks = [(filt.slope_min, f.slope_per_day, 1), (filt.slope_max, f.slope_per_day, -1),
              (filt.std_min, f.std, 1), (filt.std_max, f.std, -1),
              (filt.mean_min, f.mean, 1), (filt.mean_max, f.mean, -1),
              (filt.start, g.end, 1), (filt.end, g.start, -1)]  # fmt: skip
    return all(bound is None or (value - bound) * sign >= 0 for bound, value, sign in checks)


def _get_segment(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    store = env.store
    g = segments.get_segment(store, args["segment_id"])
    return ToolOutput(segment_view(g), g.series_id, read=[g.id])


def _by_range(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    store = env.store
    start, end = _time(args, "start"), _time(args, "end")
    built = metabuild.build_by_range(store, args["series"], start, end, args.get("freq"))
    sid = built[0].series_id if built else None
    return ToolOutput([meta_brief(m) for m in built], sid, built=[m.id for m in built])


def _by_filter(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    store = env.store
    if args.get("text"):
        m = metabuild.build_by_text(store, args["series"], args["text"], env.search(), args["k"])
        return ToolOutput(meta_view(m), m.series_id, built=[m.id], read=list(m.member_ids))
    conditions = {k: v for k, v in args.items() if k not in ("series", "text", "k")}
    for key in ("start", "end"):
        conditions[key] = _time(args, key)
    m = metabuild.build_by_filter(store, args["series"], metabuild.SegmentFilter(**conditions))
    return ToolOutput(meta_view(m), m.series_id, built=[m.id])


def _from_members(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    store = env.store
    m = metabuild.build_from_members(store, args["member_ids"], args.get("label"))
    return ToolOutput(meta_view(m), m.series_id, built=[m.id], read=list(m.member_ids))


def _features(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    store = env.store
    m = meta.get_meta(store, args["meta_segment_id"])
    return ToolOutput(meta_view(m, full=True), m.series_id, read=[m.id])


def _members(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    store = env.store
    members = meta.get_members(store, args["meta_segment_id"])
    seg_views = [segment_view(g, summary=False) for g in members.segments]
    meta_views = [meta_view(m) for m in members.metas]
    read = (
        [args["meta_segment_id"]] + [g.id for g in members.segments] + [m.id for m in members.metas]
    )
    series_id = meta.get_meta(store, args["meta_segment_id"]).series_id
    return ToolOutput({"segments": seg_views, "meta_segments": meta_views}, series_id, read=read)


def _list_metas(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    store = env.store
    found = meta.list_metas(store, args["series"], limit=args["limit"])
    sid = catalog.get_series(store, args["series"]).id
    return ToolOutput([{"id": m.id, "label": m.label, "kind": m.kind} for m in found], sid)


_FILTERS = {
    "slope_min": {**NUM, "description": "minimum slope per day"},
    "slope_max": {**NUM, "description": "maximum slope per day"},
    "std_min": NUM, "std_max": NUM, "mean_min": NUM, "mean_max": NUM,
    "start": {**DATE, "description": "segments ending on or after this date"},
    "end": {**DATE, "description": "segments starting on or before this date"},
}  # fmt: skip
_META_ID = {"type": "string", "description": "a meta-segment id"}
TEXT = {"type": "string", "description": "what the segments look like, e.g. 'sharp drop'"}

TOOLS: dict[str, Tool] = {
    t.name: t
    for t in [
        Tool(
            "list_series", "List the stored series with their time bounds.", _obj([]), _list_series
        ),
        Tool(
            "time_bounds",
            "First and last date of a series, number of points and of segments.",
            _obj(["series"], series=SERIES),
            _time_bounds,
        ),
        Tool(
            "search_segments",
            "Find segments of a series by time range, statistics (slope, std, mean) and/or "
            "meaning of their summaries (text).",
            _obj(
                ["series"],
                series=SERIES,
                **_FILTERS,
                text=TEXT,
                limit={"type": "integer", "minimum": 1, "maximum": 500, "default": 50},
            ),
            _search_segments,
        ),  # fmt: skip
        Tool(
            "get_segment",
            "Statistics and summary of one segment.",
            _obj(["segment_id"], segment_id={"type": "string"}),
            _get_segment,
        ),
        Tool(
            "create_meta_segment_by_datetime_range",
            "Group segments by a date range, optionally one meta-segment per calendar period "
            "(freq). Returns each meta-segment's id and features.",
            _obj(
                ["series", "start", "end"],
                series=SERIES,
                start=DATE,
                end=DATE,
                freq={"type": "string", "enum": list(FREQUENCIES)},
            ),
            _by_range,
        ),  # fmt: skip
        Tool(
            "create_meta_segment_by_filter",
            "Group every segment whose statistics meet the conditions into one meta-segment; "
            "or, with text, the k segments whose summaries are closest in meaning.",
            _obj(
                ["series"],
                series=SERIES,
                **_FILTERS,
                text=TEXT,
                k={"type": "integer", "minimum": 1, "maximum": 200, "default": 10},
                duration_min={**NUM, "description": "minimum duration in days"},
                duration_max=NUM,
                min_below=NUM,
                max_above=NUM,
            ),
            _by_filter,
        ),  # fmt: skip
        Tool(
            "create_meta_segment_from_members",
            "Combine segments and/or meta-segments (e.g. months into a quarter) into one.",
            _obj(
                ["member_ids"],
                member_ids={"type": "array", "items": {"type": "string"}, "minItems": 1},
                label={"type": "string"},
            ),
            _from_members,
        ),  # fmt: skip
        Tool(
            "get_meta_features",
            "Features of a meta-segment: n, mean, std, min, max, slope, change vs previous.",
            _obj(["meta_segment_id"], meta_segment_id=_META_ID),
            _features,
        ),
        Tool(
            "get_members",
            "The segments and meta-segments a meta-segment groups (for evidence).",
            _obj(["meta_segment_id"], meta_segment_id=_META_ID),
            _members,
        ),
        Tool(
            "list_meta_segments",
            "Meta-segments already built for a series (ids and labels).",
            _obj(
                ["series"],
                series=SERIES,
                limit={"type": "integer", "minimum": 1, "maximum": 1000, "default": 100},
            ),
            _list_metas,
        ),  # fmt: skip
    ]
}


def tool_schemas() -> list[dict[str, Any]]:
    return [t.schema() for t in TOOLS.values()]


def call_tool(
    target: Store | ToolEnv,
    name: str,
    arguments: str | dict[str, Any] | None,
    session: str | None = None,
) -> tuple[ToolOutput, str]:
    """Validate, run and record one tool call; returns (output, ToolCall id), raises on error."""
    env = target if isinstance(target, ToolEnv) else ToolEnv(target)
    store = env.store
    call_id = "tc_" + uuid.uuid4().hex
    try:
        tool = TOOLS.get(name)
        if tool is None:
            raise InvalidInput("tool", f"unknown tool {name!r}; tools: {', '.join(TOOLS)}")
        output = tool.handler(env, validate(parse_arguments(arguments), tool.parameters))
    except GraphmemError as exc:
        content = json.dumps({"error": str(exc)}, ensure_ascii=False)
        _record(store, call_id, name, arguments, content, None, str(exc), session)
        raise
    finally:
        if env is not target:
            env.close()
    content = json.dumps(output.result, separators=(",", ":"), ensure_ascii=False)
    _record(store, call_id, name, arguments, content, output, None, session)
    touched = list(dict.fromkeys(output.built + output.read))
    if touched:  # a tool reading a segment is a recall of it (timeline memory)
        reinforce_in(store, touched, int(time.time()))
    return output, call_id


def run_tool(
    target: Store | ToolEnv,
    name: str,
    arguments: str | dict[str, Any] | None,
    session: str | None = None,
) -> ToolResult:
    """Like call_tool, but errors come back in plain words (for the LLM), not raised."""
    try:
        output, call_id = call_tool(target, name, arguments, session)
    except GraphmemError as exc:
        content = json.dumps({"error": str(exc)}, ensure_ascii=False)
        return ToolResult(name, False, content, "", [], [])
    content = json.dumps(output.result, separators=(",", ":"), ensure_ascii=False)
    return ToolResult(name, True, content, call_id, output.built, output.read)


def _record(
    store: Store,
    call_id: str,
    name: str,
    arguments: Any,
    content: str,
    output: ToolOutput | None,
    error: str | None,
    session: str | None,
) -> None:
    now = time.time()
    args_text = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    store.write(
        "toolcalls.record",
        id=call_id,
        series_id=output.series_id if output else None,
        session=session,
        tool=name,
        args=args_text[:RESULT_CHARS],
        result=content[:RESULT_CHARS],
        digest=hashlib.sha1(content.encode()).hexdigest(),
        ok=error is None,
        error=error,
        at=now,
        at_iso=iso(round(now, 3)),
        built=output.built if output else [],
        read=output.read if output else [],
    )
