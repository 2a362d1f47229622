"""`Memory.series`: numeric series, their segments and meta-segments, the tools and the agent."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmem.errors import InvalidInput
from graphmem.memory.part import Part, When, checked_path
from graphmem.series import catalog, meta
from graphmem.series.catalog import SeriesInfo
from graphmem.series.detect import ingest, segments
from graphmem.series.detect.ingest import AppendResult
from graphmem.series.detect.segments import Segment, TimeBounds
from graphmem.series.meta import Members, MetaSegment
from graphmem.series.meta.fresh import fresh
from graphmem.series.meta.query import time_arg
from graphmem.series.meta.tools import ToolResult, built_metas, run_tool, tool_schemas
from graphmem.timeutil import iso, parse_timestamp

if TYPE_CHECKING:
    from graphmem.agent import Answer, Step
    from graphmem.series.detect.segmenter import SegmenterConfig

SESSION = "python"  # the session of the ToolCall nodes that record builds made here


class Series(Part):
    """Numeric series: points cut online into segments, meta-segments over them, the tools.

    A series is named by its id or its name wherever one is asked for (`series`).
    """

    def create(
        self, name: str, unit: str | None = None, description: str | None = None
    ) -> SeriesInfo:
        """Create a series; a name already taken raises AlreadyExists."""
        return catalog.create_series(self._store(), name, unit, description)

    def ensure(
        self, name: str, unit: str | None = None, description: str | None = None
    ) -> SeriesInfo:
        """The series of this name, created with `unit` and `description` if there is none."""
        return catalog.ensure_series(self._store(), name, unit, description)

    def get(self, series: str) -> SeriesInfo:
        """One series by id or name; NotFound if there is none."""
        return catalog.get_series(self._store(), series)

    def list(self, limit: int = 1000, offset: int = 0) -> builtins.list[SeriesInfo]:
        """Series ordered by name."""
        return catalog.list_series(self._store(), limit, offset)

    def delete(self, series: str) -> SeriesInfo:
        """Delete a series with its chunks, segments, meta-segments and tool calls."""
        services = self._services()
        return catalog.delete_series(services.store, series, data_dir=services.settings.home)

    def append(
        self,
        series: str,
        timestamps: Sequence[When],
        values: Sequence[float | None],
        config: SegmenterConfig | None = None,
    ) -> AppendResult:
        """Append one batch atomically (at most 1,000,000 points); re-sending it is a no-op.

        Timestamps must increase strictly; None / NaN values are skipped and counted.
        `config` applies to a series' first batch.
        """
        return ingest.append(self._store(), series, timestamps, values, config)

    def append_all(
        self,
        series: str,
        timestamps: Sequence[When],
        values: Sequence[float | None],
        batch_size: int = 10_000,
        progress: Callable[[int], object] | None = None,
    ) -> builtins.list[AppendResult]:
        """Append any number of points in atomic batches; every point is checked first.

        `progress(n)` is called with the points of each batch once it is stored.
        """
        return ingest.ingest_all(self._store(), series, timestamps, values, batch_size, progress)

    def segments(
        self,
        series: str,
        start: When | None = None,
        end: When | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> builtins.list[Segment]:
        """Segments overlapping [start, end], in time order (the open one last)."""
        begin, finish = time_arg(start, "start"), time_arg(end, "end")
        return segments.list_segments(self._store(), series, begin, finish, limit, offset)

    def segment(self, segment_id: str) -> Segment:
        """One segment by id; NotFound if there is none."""
        return segments.get_segment(self._store(), segment_id)

    def bounds(self, series: str) -> TimeBounds:
        """First and last time, points and segments of a series."""
        return segments.time_bounds(self._store(), series)

    def meta_by_range(
        self, series: str, start: When, end: When, freq: str | None = None
    ) -> builtins.list[MetaSegment]:
        """Meta-segments over [start, end]: one per whole `freq` period (year, quarter, month,
        week, day) touching it, or one in all. Cached; recorded as a tool call."""
        arguments = {
            "series": series,
            "start": _when(start, "start"),
            "end": _when(end, "end"),
            "freq": freq,
        }
        return self._build("create_meta_segment_by_datetime_range", arguments)

    def meta_by_filter(
        self,
        series: str,
        where: str | None = None,
        *,
        text: str | None = None,
        k: int | None = None,
        start: When | None = None,
        end: When | None = None,
    ) -> MetaSegment:
        """One meta-segment of the segments meeting `where` (e.g. "slope<-0.05 std>5") between
        start and end; with `text`, the k (10) of them closest to it in meaning."""
        arguments = {
            "series": series,
            "where": where,
            "text": text,
            "k": k,
            "start": _when(start, "start"),
            "end": _when(end, "end"),
        }
        return self._build("create_meta_segment_by_filter", arguments)[0]

    def meta_from_members(self, member_ids: Sequence[str], label: str | None = None) -> MetaSegment:
        """One meta-segment grouping segments and/or meta-segments (say months into a quarter)."""
        ids = list(member_ids) if isinstance(member_ids, list | tuple) else member_ids
        arguments = {"member_ids": ids, "label": label}
        return self._build("create_meta_segment_from_members", arguments)[0]

    def meta(self, meta_id: str) -> MetaSegment:
        """A meta-segment, first brought up to date with the points that arrived since."""
        services = self._services()
        found = meta.get_meta(services.store, meta_id)
        return fresh(services.store, found, services.tools().search)

    def metas(self, series: str, limit: int = 1000, offset: int = 0) -> builtins.list[MetaSegment]:
        """The meta-segments built for a series, in time order, as stored."""
        return meta.list_metas(self._store(), series, limit, offset)

    def members(self, meta_id: str, limit: int | None = None, offset: int = 0) -> Members:
        """What an up-to-date meta-segment groups: all of it, or `limit` from `offset`."""
        self.meta(meta_id)
        return meta.get_members(self._store(), meta_id, limit, offset)

    def tool_schemas(self, exclude: Sequence[str] = ()) -> builtins.list[dict[str, Any]]:
        """The series tools as OpenAI function schemas, for an LLM of your own."""
        if isinstance(exclude, str) or not isinstance(exclude, Sequence):
            raise InvalidInput("exclude", "must be a list of tool names")
        return tool_schemas(tuple(exclude))

    def run_tool(
        self, name: str, arguments: str | dict[str, Any] | None = None, session: str | None = None
    ) -> ToolResult:
        """Run one tool as an LLM would (JSON arguments); errors come back in plain words.

        Every call is stored as a ToolCall node; `session` groups calls.
        """
        return run_tool(self._services().tools(), name, arguments, session)

    def ask(
        self,
        question: str,
        series: str | None = None,
        max_steps: int = 10,
        on_step: Callable[[Step, int], None] | None = None,
    ) -> Answer:
        """Let the configured LLM answer `question` with the tools (LLMNotConfigured without)."""
        from graphmem import agent
        from graphmem.llm import LLM

        agent.check_question(question, max_steps)  # the caller's mistakes before the LLM's
        services = self._services()
        llm = LLM(services.settings)
        return agent.ask(
            services.store, llm, question, series, max_steps, on_step, env=services.tools()
        )

    def plot(
        self, series: str, path: str | Path, start: When | None = None, end: When | None = None
    ) -> int:
        """Write a PNG of the series with its segments; returns how many segments it shows."""
        from graphmem.plot import plot_series

        target = checked_path(path, "path")
        begin, finish = time_arg(start, "start"), time_arg(end, "end")
        return plot_series(self._store(), series, target, begin, finish)

    def _build(self, tool: str, arguments: dict[str, Any]) -> builtins.list[MetaSegment]:
        """Run a build tool, recorded as GraphQL's buildMetaSegments is; what it built."""
        return built_metas(self._services().tools(), tool, arguments, SESSION)


def _when(value: When | None, field: str) -> str | None:
    """A time as a tool argument: text as given, anything else as ISO text (checked here)."""
    if value is None or isinstance(value, str):
        return value
    return iso(parse_timestamp(value, field))
