"""Finding segments for meta-segments and tools: by time, by statistics, by text; paged."""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import asdict, dataclass, fields

from graphmem.errors import InvalidInput
from graphmem.series.detect.segments import Segment
from graphmem.series.meta.textsearch import LABEL, SegmentSearch
from graphmem.store import Store
from graphmem.timeutil import parse_timestamp
from graphmem.vectors import vector_id

PAGE = 10_000  # segments per read; callers get every segment, page after page


@dataclass(frozen=True)
class SegmentFilter:
    """Conditions on segment statistics (bounds inclusive); None means no condition."""

    slope_min: float | None = None
    slope_max: float | None = None
    std_min: float | None = None
    std_max: float | None = None
    mean_min: float | None = None
    mean_max: float | None = None
    min_below: float | None = None
    max_above: float | None = None
    duration_min: float | None = None
    duration_max: float | None = None
    start: float | None = None
    end: float | None = None

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if value is not None and (isinstance(value, bool) or not math.isfinite(value)):
                raise InvalidInput(name, f"{value!r} is not a finite number")
        for lo, hi in (
            ("slope_min", "slope_max"),
            ("std_min", "std_max"),
            ("mean_min", "mean_max"),
            ("duration_min", "duration_max"),
            ("start", "end"),
        ):
            a, b = getattr(self, lo), getattr(self, hi)
            if a is not None and b is not None and b < a:
                raise InvalidInput(hi, f"must not be below {lo}")

    @property
    def conditions(self) -> dict[str, float]:
        """The conditions that are set, by name."""
        return {k: v for k, v in asdict(self).items() if v is not None}


# `where` text of the tools: "slope<-0.05 std>5 duration>=30"; each name maps to the
# SegmentFilter field set by a lower (>) and an upper (<) bound.
_WHERE_FIELDS = {
    "slope": ("slope_min", "slope_max"),
    "std": ("std_min", "std_max"),
    "mean": ("mean_min", "mean_max"),
    "duration": ("duration_min", "duration_max"),
    "min": (None, "min_below"),
    "max": ("max_above", None),
}
_CONDITION = re.compile(r"([a-z_]+)\s*(>=|<=|>|<|=)\s*([^\s,;]*)")
WHERE_HELP = "e.g. 'slope<-0.05 std>5' over slope/day, std, mean, min<, max>, duration (days)"


def parse_where(
    text: str | None, start: float | None = None, end: float | None = None
) -> SegmentFilter:
    """A SegmentFilter from `where` text and a time window; errors name the bad condition."""
    text = (text or "").strip().lower()
    leftover = re.sub(r"\band\b|[,;&]", " ", _CONDITION.sub(" ", text)).strip()
    if leftover:
        raise InvalidInput("where", f"cannot read {leftover!r} ({WHERE_HELP})")
    values: dict[str, float | None] = {"start": start, "end": end}
    for name, op, raw in _CONDITION.findall(text):
        if name not in _WHERE_FIELDS:
            raise InvalidInput("where", f"unknown statistic {name!r} ({WHERE_HELP})")
        if op == "=":
            raise InvalidInput("where", f"{name}={raw}: use < or > (bounds are inclusive)")
        target = _WHERE_FIELDS[name][0 if op.startswith(">") else 1]
        if target is None:
            raise InvalidInput("where", f"{name} takes only {'<' if name == 'min' else '>'}")
        try:
            values[target] = float(raw)
        except ValueError:
            raise InvalidInput("where", f"{raw!r} after {name}{op} is not a number") from None
    return SegmentFilter(**values)


def _params(filt: SegmentFilter) -> dict[str, float | None]:
    return {f.name: getattr(filt, f.name) for f in fields(filt)}


def segments_between(store: Store, series_id: str, start: float, end: float) -> list[Segment]:
    """Every segment with a point in [start, end], in time order, read page by page."""
    out: list[Segment] = []
    while True:
        rows = store.read(
            "segments.in_range",
            series_id=series_id,
            start=start,
            end=end,
            limit=PAGE,
            offset=len(out),
        )
        out.extend(Segment.from_node(r["g"]) for r in rows)
        if len(rows) < PAGE:
            return out


def filtered_page(
    store: Store, series_id: str, filt: SegmentFilter, offset: int, limit: int
) -> list[Segment]:
    """One page of the segments meeting `filt`, in time order."""
    rows = store.read(
        "meta.segments_filtered", series_id=series_id, offset=offset, limit=limit, **_params(filt)
    )
    return [Segment.from_node(r["g"]) for r in rows]


def filtered_all(store: Store, series_id: str, filt: SegmentFilter) -> list[Segment]:
    """Every segment meeting `filt`, in time order, however many."""
    out: list[Segment] = []
    while True:
        page = filtered_page(store, series_id, filt, len(out), PAGE)
        out.extend(page)
        if len(page) < PAGE:
            return out


def ranked_by_text(
    search: SegmentSearch, series_id: str, text: str, filt: SegmentFilter | None = None
) -> list[tuple[str, float]]:
    """(segment id, similarity) of the series' segments meeting `filt`, best first.

    Every such segment is ranked (a filter never leaves fewer hits than asked for while more
    segments meet it), and only those: the search is restricted to their vids.
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("text", "must not be empty")
    search.ensure_embedded(series_id)
    if filt is not None and filt.conditions:
        vids = [vector_id(g.id) for g in filtered_all(search.store, series_id, filt)]
    else:
        vids = [r["vid"] for r in search.store.read("segments.vids", series_id=series_id)]
    if not vids:
        return []
    query = search.embedder.encode_one(text)
    hits = search.vectors.search(LABEL, query, len(vids), among=vids)
    return [(h.node_id, h.score) for h in hits]


def get_segments(store: Store, ids: list[str]) -> list[Segment]:
    """These segments, in the order of `ids` (unknown ones left out)."""
    rows = store.read("segments.get_many", ids=ids)
    by_id = {r["g"]["id"]: Segment.from_node(r["g"]) for r in rows}
    return [by_id[i] for i in ids if i in by_id]


def time_arg(value: str | float | dt.date | None, field: str) -> float | None:
    """A tool's date argument as epoch seconds (None stays None)."""
    return None if value is None else float(parse_timestamp(value, field=field))
