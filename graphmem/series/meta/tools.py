"""The series tools: JSON-schema functions over segments and meta-segments, with provenance.

Callable with or without an LLM (`run_tool`). Every call is stored as a ToolCall node
linked to the meta-segments it built and the segments / meta-segments it read.
Schemas are terse on purpose: the LLM reads them on every request.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphmem.config import Settings
from graphmem.errors import GraphmemError, InvalidInput
from graphmem.jsonargs import parse_arguments, validate
from graphmem.series import catalog, meta
from graphmem.series.detect import segments
from graphmem.series.meta import build as metabuild
from graphmem.series.meta.compact import (
    BRIEF,
    MEMBER_COLS,
    META_COLS,
    ROW_CAP,
    SEGMENT_COLS,
    bounds_view,
    member_row,
    meta_row,
    meta_view,
    rnd,
    segment_row,
    segment_view,
    table,
)
from graphmem.series.meta.fresh import fresh
from graphmem.series.meta.periods import FREQUENCIES
from graphmem.series.meta.query import (
    WHERE_HELP,
    SegmentFilter,
    filtered_page,
    get_segments,
    parse_where,
    ranked_by_text,
    time_arg,
)
from graphmem.series.meta.textsearch import SegmentSearch
from graphmem.store import Store
from graphmem.timeline.formula import TimelineConfig
from graphmem.timeline.reinforce import reinforce_in
from graphmem.timeutil import iso, parse_timestamp

log = logging.getLogger(__name__)

RESULT_CHARS = 4000  # stored on the ToolCall node; the digest covers the whole result


@dataclass
class ToolEnv:
    """What tools run against: the store and, opened on first use, segment text search.

    `open_search` comes from the composition root (graphmem/services.py: `Services.tools()`,
    `open_tools`); without it the text tools fail with a clear error and the others work.
    """

    store: Store
    settings: Settings | None = None
    open_search: Callable[[], SegmentSearch] | None = None
    owns_search: bool = True  # False when the search (and its vector index) is shared
    _search: SegmentSearch | None = None

    def configured(self) -> Settings:
        """The settings given, or read from the environment on first use."""
        if self.settings is None:
            self.settings = Settings.from_env()
        return self.settings

    def search(self) -> SegmentSearch:
        if self._search is None:
            if self.open_search is None:
                raise GraphmemError(
                    "text search needs the embedding model: run the tools through "
                    "graphmem.services (Services.tools() or open_tools(settings, store))"
                )
            self._search = self.open_search()
        return self._search

    def close(self) -> None:
        """Save the vector index if text search was used."""
        if self._search is not None and self.owns_search:
            self._search.vectors.close()
            self._search = None


@dataclass
class ToolOutput:
    """A tool's result and what it touched; `shown` (default: all) is what the caller saw."""

    result: Any
    series_id: str | None = None
    built: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)
    shown: list[str] | None = None

    def seen(self) -> list[str]:
        """What the caller was shown (`shown`, else all it built and read), each id once."""
        return list(dict.fromkeys(self.shown if self.shown is not None else self.built + self.read))


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
    """What a caller (or the LLM) gets back: JSON content, or an error in plain words.

    `call_id` names the stored ToolCall, for failed calls too; `shown` the ids of what the
    content shows (an answer's evidence).
    """

    tool: str
    ok: bool
    content: str
    call_id: str
    built: list[str]
    read: list[str]
    shown: list[str] = field(default_factory=list)


def _obj(required: list[str], **props: dict[str, Any]) -> dict[str, Any]:
    """Unknown arguments are refused by `validate`, so no additionalProperties is sent."""
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out


# Shared parameter definitions, each written once; `where` and `text` are described only
# in search_segments, which the filter tool's description points to.
STR = {"type": "string"}
FREQ = {"type": "string", "enum": list(FREQUENCIES)}
WHERE = {"type": "string", "description": WHERE_HELP}
TEXT = {"type": "string", "description": "meaning, e.g. 'sharp drop'"}
PAGE = {"type": "integer", "minimum": 1, "maximum": ROW_CAP}
OFFSET = {"type": "integer", "minimum": 0}


def _page(args: dict[str, Any]) -> tuple[int, int]:
    return args.get("limit") or 20, args.get("offset") or 0


def _list_series(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    store = env.store
    found = catalog.list_series(store, limit=ROW_CAP + 1)
    rows = []
    for s in found[:ROW_CAP]:
        b = bounds_view(segments.time_bounds(store, s.id))
        rows.append([s.name, s.unit, b["start"], b["end"], b["n_points"], b["n_segments"]])
    cols = ("name", "unit", "start", "end", "n_points", "n_segments")
    more = len(found) > ROW_CAP
    return ToolOutput(table(cols, rows, more=more, hint="more series: ask time_bounds by name"))


def _time_bounds(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    s = catalog.get_series(env.store, args["series"])
    return ToolOutput(bounds_view(segments.time_bounds(env.store, s.id)), s.id)


def _search_segments(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    store = env.store
    s = catalog.get_series(store, args["series"])
    filt = parse_where(
        args.get("where"), time_arg(args.get("start"), "start"), time_arg(args.get("end"), "end")
    )
    limit, offset = _page(args)
    if args.get("text"):  # rank every segment meeting the conditions, then page
        ranked = ranked_by_text(env.search(), s.id, args["text"], filt)
        chosen = ranked[offset : offset + limit]
        found = get_segments(store, [i for i, _ in chosen])
        scores = dict(chosen)
        rows = [[*segment_row(g), rnd(scores[g.id], BRIEF)] for g in found]
        result = table((*SEGMENT_COLS, "score"), rows, offset, total=len(ranked))
    else:
        found = filtered_page(store, s.id, filt, offset, limit + 1)
        more, found = len(found) > limit, found[:limit]
        result = table(SEGMENT_COLS, [segment_row(g) for g in found], offset, more=more)
    return ToolOutput(result, s.id, read=[g.id for g in found])


def _get_segment(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    g = segments.get_segment(env.store, args["segment_id"])
    return ToolOutput(segment_view(g), g.series_id, read=[g.id])


def _by_range(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    start = float(parse_timestamp(args["start"], "start"))
    end = float(parse_timestamp(args["end"], "end"))
    freq = args.get("freq")
    ids, shown = metabuild.build_range(env.store, args["series"], start, end, freq, ROW_CAP)
    coarser = f" or a coarser freq than {freq}" if freq and freq != "year" else ""
    hint = f"rest built too: narrow start/end{coarser}, or list_meta_segments"
    result = table(META_COLS, [meta_row(m) for m in shown], total=len(ids), hint=hint)
    return ToolOutput(result, shown[0].series_id, built=ids, shown=[m.id for m in shown])


def _by_filter(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    filt = parse_where(
        args.get("where"), time_arg(args.get("start"), "start"), time_arg(args.get("end"), "end")
    )
    return filter_output(env, args["series"], filt, args.get("text"), args.get("k"))


def filter_output(
    env: ToolEnv, series: str, filt: SegmentFilter, text: str | None = None, k: int | None = None
) -> ToolOutput:
    """create_meta_segment_by_filter's work, on a filter already built (GraphQL's typed input)."""
    if k is not None and not text:
        raise InvalidInput("k", "only applies with text (the k segments closest to it)")
    if text:
        m = metabuild.build_by_text(env.store, series, text, env.search(), k or 10, filt=filt)
    else:
        m = metabuild.build_by_filter(env.store, series, filt)
    view = {"id": m.id, **meta_view(m)}
    return ToolOutput(view, m.series_id, built=[m.id], read=list(m.member_ids), shown=[m.id])


def _from_members(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    m = metabuild.build_from_members(env.store, args["member_ids"], args.get("label"))
    view = {"id": m.id, **meta_view(m)}
    return ToolOutput(view, m.series_id, built=[m.id], read=list(m.member_ids))


def _features(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    m = fresh(env.store, meta.get_meta(env.store, args["meta_segment_id"]), env.search)
    return ToolOutput(meta_view(m, full=bool(args.get("full"))), m.series_id, read=[m.id])


def _members(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    limit, offset = _page(args)
    fresh(env.store, meta.get_meta(env.store, args["meta_segment_id"]), env.search)
    found = meta.get_members(env.store, args["meta_segment_id"], limit, offset)
    rows = [member_row(x) for x in found.in_time_order()]
    owner = found.meta
    result = table(MEMBER_COLS, rows, offset, total=owner.member_count)
    read = [owner.id] + [g.id for g in found.segments] + [m.id for m in found.metas]
    return ToolOutput(result, owner.series_id, read=read)


def _list_metas(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
    limit, offset = _page(args)
    sid = catalog.get_series(env.store, args["series"]).id
    found = meta.list_metas(env.store, sid, limit=limit + 1, offset=offset)
    rows = [[m.id, m.label, m.kind, m.stats.n] for m in found[:limit]]
    result = table(("id", "label", "kind", "n"), rows, offset, more=len(found) > limit)
    return ToolOutput(result, sid)


TOOLS: dict[str, Tool] = {
    t.name: t
    for t in [
        Tool("list_series", "Stored series and their bounds.", _obj([]), _list_series),
        Tool(
            "time_bounds",
            "First and last date, points and segments of a series.",
            _obj(["series"], series=STR),
            _time_bounds,
        ),
        Tool(
            "search_segments",
            "Segments from start to end meeting where; with text, most similar first.",
            _obj(
                ["series"],
                series=STR,
                start=STR,
                end=STR,
                where=WHERE,
                text=TEXT,
                limit=PAGE,
                offset=OFFSET,
            ),
            _search_segments,
        ),
        Tool(
            "get_segment",
            "One segment's features and summary (std: population std).",
            _obj(["segment_id"], segment_id=STR),
            _get_segment,
        ),
        Tool(
            "create_meta_segment_by_datetime_range",
            "Group segments: one meta-segment per whole freq period touching start..end "
            "(no freq: one for start..end). slope: per day; pct_prev: % change of mean vs "
            "previous period.",
            _obj(["series", "start", "end"], series=STR, start=STR, end=STR, freq=FREQ),
            _by_range,
        ),
        Tool(
            "create_meta_segment_by_filter",
            "One meta-segment of the segments search_segments finds (with text: the k best).",
            _obj(
                ["series"],
                series=STR,
                start=STR,
                end=STR,
                where=STR,
                text=STR,
                k={"type": "integer", "minimum": 1, "maximum": 200},
            ),
            _by_filter,
        ),
        Tool(
            "create_meta_segment_from_members",
            "One meta-segment of given members, e.g. months into a quarter.",
            _obj(
                ["member_ids"], member_ids={"type": "array", "items": STR, "minItems": 1}, label=STR
            ),
            _from_members,
        ),
        Tool(
            "get_meta_features",
            "Features of a meta-segment (std: population std); full: all of them.",
            _obj(["meta_segment_id"], meta_segment_id=STR, full={"type": "boolean"}),
            _features,
        ),
        Tool(
            "get_members",
            "What a meta-segment groups.",
            _obj(["meta_segment_id"], meta_segment_id=STR, limit=PAGE, offset=OFFSET),
            _members,
        ),
        Tool(
            "list_meta_segments",
            "Meta-segments built for a series.",
            _obj(["series"], series=STR, limit=PAGE, offset=OFFSET),
            _list_metas,
        ),
    ]
}


def built_metas(
    env: ToolEnv, name: str, arguments: dict[str, Any], session: str | None = None
) -> list[meta.MetaSegment]:
    """Run a building tool (arguments that are None left out): what it built, in its order."""
    given = {key: value for key, value in arguments.items() if value is not None}
    output, _ = call_tool(env, name, given, session=session)
    found = meta.get_metas(env.store, output.built)
    return [found[i] for i in output.built if i in found]


def tool_schemas(exclude: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The OpenAI function descriptions of every tool but those in `exclude`."""
    return [t.schema() for t in TOOLS.values() if t.name not in exclude]


Run = Callable[[ToolEnv], ToolOutput]


def call_tool(
    target: Store | ToolEnv,
    name: str,
    arguments: str | dict[str, Any] | None,
    session: str | None = None,
    run: Run | None = None,
) -> tuple[ToolOutput, str]:
    """Validate, run and record one tool call; returns (output, ToolCall id), raises on error.

    `run`: the tool's work on arguments the caller has already typed (GraphQL's input
    fields), instead of the handler; `arguments` are then only recorded.
    """
    output, _, call_id, error = _with_env(target, name, arguments, session, run)
    if error is not None:
        raise error
    return output, call_id


def run_tool(
    target: Store | ToolEnv,
    name: str,
    arguments: str | dict[str, Any] | None,
    session: str | None = None,
) -> ToolResult:
    """Like call_tool, but errors come back in plain words (for the LLM), not raised."""
    output, content, call_id, error = _with_env(target, name, arguments, session)
    if error is not None:
        return ToolResult(name, False, content, call_id, [], [])
    return ToolResult(name, True, content, call_id, output.built, output.read, output.seen())


def _with_env(
    target: Store | ToolEnv, name: str, arguments: Any, session: str | None, run: Run | None = None
) -> tuple[Any, str, str, Exception | None]:
    env = target if isinstance(target, ToolEnv) else ToolEnv(target)
    try:
        return _execute(env, name, arguments, session, run)
    finally:
        if env is not target:
            env.close()


def _execute(
    env: ToolEnv, name: str, arguments: Any, session: str | None, run: Run | None
) -> tuple[Any, str, str, Exception | None]:
    """(output, content, ToolCall id, error): recorded once, when the call has fully run.

    Every error comes back (GraphQL raises it, the agent reads its words), not only
    graphmem's own: one tool's bug must not end an agent's answer without a word.
    """
    call_id = "tc_" + uuid.uuid4().hex
    try:
        tool = TOOLS.get(name)
        if tool is None:
            raise InvalidInput("tool", f"unknown tool {name!r}; tools: {', '.join(TOOLS)}")
        if run is None:
            output = tool.handler(env, validate(parse_arguments(arguments), tool.parameters))
        else:
            output = run(env)
        _recall(env, output.seen(), int(time.time()))
    except Exception as exc:
        words = failure_words(name, exc, call_id)
        content = json.dumps({"error": words}, ensure_ascii=False)
        with contextlib.suppress(GraphmemError):  # a store that is down cannot record it
            _record(env.store, call_id, name, arguments, content, None, words, session)
        return None, content, call_id, exc
    content = json.dumps(output.result, separators=(",", ":"), ensure_ascii=False)
    _record(env.store, call_id, name, arguments, content, output, None, session)
    return output, content, call_id, None


def failure_words(name: str, exc: Exception, call_id: str = "") -> str:
    """What a caller reads of a tool's failure: graphmem's own message, else a logged bug."""
    if isinstance(exc, GraphmemError):
        return str(exc)
    # a bug or an untranslated library error: the caller still gets plain words
    log.exception("tool %s failed unexpectedly (call %s)", name, call_id or "-")
    return f"internal error in {name} ({type(exc).__name__}); it is logged"


def _recall(env: ToolEnv, ids: list[str], now: int) -> None:
    """A tool reading a memory is a recall of it (timeline memory statistics).

    Memories dated after `now` (a series reaching into the future) cannot have been
    recalled before their own time: they are left out rather than failing the call.
    """
    if ids:
        config = TimelineConfig.from_settings(env.configured())
        reinforce_in(env.store, ids, now, config, skip_future=True)


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
