"""MetaSegment: a group of segments (or meta-segments) with exact statistics and a summary."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from graphmem.errors import InvalidInput, NotFound
from graphmem.series.catalog import checked_page, get_series
from graphmem.series.detect.segments import Segment
from graphmem.series.detect.stats import Features, SuffStats, features
from graphmem.series.detect.summary import fmt_num, summarize_segment
from graphmem.series.meta.periods import check_freq
from graphmem.store import Store
from graphmem.timeutil import iso

KINDS = ("range", "filter", "text", "members")  # a range cut by freq: one per period
PAGE = 10_000  # rows per read when reading every member


def meta_id(spec: dict[str, Any]) -> str:
    """Deterministic id from the spec: the same spec always names the same node."""
    canonical = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    return "meta_" + hashlib.sha1(canonical.encode()).hexdigest()[:12]


def is_current(built_n_points: int, stable_before: float | None, end: float, n_points: int) -> bool:
    """Built over all `n_points` of its series, or ending where points and segments are final
    (before the segment that was open at build time): nothing since can change it."""
    return built_n_points == n_points or (stable_before is not None and end <= stable_before)


@dataclass(frozen=True)
class MetaSegment:
    """A built meta-segment; `start`/`end` bound what it covers (end exclusive for periods)."""

    id: str
    series_id: str
    kind: str
    label: str
    spec: dict[str, Any]
    start: float
    end: float
    stats: SuffStats
    member_count: int
    slope_mean: float | None
    change_prev: float | None = None
    pct_change_prev: float | None = None
    prev_label: str | None = None
    built_n_points: int = 0
    built_at: int = 0
    stable_before: float | None = None  # data and segments before this were final when built
    built_end: float | None = None  # the series' last point when built: later ones are new
    member_ids: tuple[str, ...] = field(default=(), compare=False)

    def current(self, n_points: int) -> bool:
        """Whether it still holds for a series of `n_points` points (see is_current)."""
        return is_current(self.built_n_points, self.stable_before, self.end, n_points)

    @property
    def freq(self) -> str | None:
        """The calendar period of a range cut into periods (year, month...), else None."""
        return self.spec.get("freq")

    @property
    def is_period(self) -> bool:
        """One calendar period of a range (its label says when it is; its end is exclusive)."""
        return self.freq is not None

    @property
    def features(self) -> Features:
        return features(self.stats)

    @property
    def coverage(self) -> float:
        """Share of [start, end] spanned by the data (1.0 = points from end to end).

        Each point stands for one mean spacing of its neighbours: 365 daily points cover a
        year, not 364 days of it. A single point gives 0 (its spacing is unknown).
        """
        span, n = self.end - self.start, self.stats.n
        if span <= 0:
            return 1.0
        spanned = self.stats.t_last - self.stats.t_first
        return min(1.0, spanned * n / (n - 1) / span) if n > 1 else 0.0

    def summary(self, unit: str | None) -> str:
        """One deterministic line: label, members, level, trend, volatility, change vs prev."""
        base = summarize_segment(self.features, unit, self.stats.t_first, self.stats.t_last)
        members = f"{self.member_count} segment{'s' if self.member_count != 1 else ''}"
        if self.kind == "members":
            members = f"{self.member_count} members"
        text = f"{self.label} ({members}): {base}"
        if self.change_prev is not None:
            pct = "" if self.pct_change_prev is None else f" ({fmt_num(self.pct_change_prev)} %)"
            sign = "+" if self.change_prev >= 0 else ""
            text = text[:-1] + f"; mean vs {self.prev_label}: {sign}{fmt_num(self.change_prev)}"
            text += f"{' ' + unit if unit else ''}{pct}."
        return text

    def to_props(self, unit: str | None) -> dict[str, Any]:
        return {
            "id": self.id,
            "series_id": self.series_id,
            "kind": self.kind,
            "freq": self.freq,
            "label": self.label,
            "spec": json.dumps(self.spec, sort_keys=True),
            "start": self.start,
            "end": self.end,
            "start_iso": iso(self.start),
            "end_iso": iso(self.end),
            "member_count": self.member_count,
            "slope_mean": self.slope_mean,
            "change_prev": self.change_prev,
            "pct_change_prev": self.pct_change_prev,
            "prev_label": self.prev_label,
            "coverage": self.coverage,
            "summary": self.summary(unit),
            "built_n_points": self.built_n_points,
            "built_at": self.built_at,
            "stable_before": self.stable_before,
            "built_end": self.built_end,
            **self.stats.to_props(),
            **self.features.to_props(),
        }

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> MetaSegment:
        return cls(
            id=node["id"],
            series_id=node["series_id"],
            kind="range" if node["kind"] == "period" else node["kind"],  # as stored before 17
            label=node["label"],
            spec=json.loads(node["spec"]),
            start=node["start"],
            end=node["end"],
            stats=SuffStats.from_props(node),
            member_count=node["member_count"],
            slope_mean=node.get("slope_mean"),
            change_prev=node.get("change_prev"),
            pct_change_prev=node.get("pct_change_prev"),
            prev_label=node.get("prev_label"),
            built_n_points=node.get("built_n_points", 0),
            built_at=node.get("built_at", 0),
            stable_before=node.get("stable_before"),
            built_end=node.get("built_end"),
        )


def save_metas(store: Store, metas: list[MetaSegment], unit: str | None) -> None:
    """Write meta-segments and their MEMBER_OF edges (stale memberships removed): one statement."""
    if metas:
        store.write(
            "meta.upsert",
            metas=[{"id": m.id, "props": m.to_props(unit)} for m in metas],
            ids=[m.id for m in metas],
            links=[{"meta": m.id, "member": x} for m in metas for x in m.member_ids],
        )


def get_metas(store: Store, ids: list[str]) -> dict[str, MetaSegment]:
    """The stored meta-segments among `ids`, by id."""
    rows = store.read("meta.get_many", ids=ids)
    return {r["m"]["id"]: MetaSegment.from_node(r["m"]) for r in rows}


def currency(store: Store, ids: list[str]) -> dict[str, tuple[int, float | None]]:
    """(built_n_points, stable_before) of the stored meta-segments among `ids`: a light read."""
    rows = store.read("meta.currency", ids=ids)
    return {r["id"]: (r["built_n_points"] or 0, r["stable_before"]) for r in rows}


def get_meta(store: Store, meta_id_: str) -> MetaSegment:
    found = get_metas(store, [meta_id_])
    if meta_id_ not in found:
        raise NotFound(f"meta_segment: no meta-segment with id {meta_id_!r}")
    return found[meta_id_]


def tool_calls_of(store: Store, meta_id_: str) -> list[dict[str, Any]]:
    """The ToolCall nodes that built or read a meta-segment ({t: node, how}), oldest first."""
    return store.read("meta.tool_calls", id=meta_id_)


def list_metas(
    store: Store,
    series_ref: str,
    limit: int = 1000,
    offset: int = 0,
    kind: str | None = None,
    freq: str | None = None,
) -> list[MetaSegment]:
    """Meta-segments of a series in time order; only those of `kind` and `freq` if given."""
    checked_page(limit, offset)
    where = _meta_filter(store, series_ref, kind, freq)
    rows = store.read("meta.list", **where, limit=limit, offset=offset)
    return [MetaSegment.from_node(r["m"]) for r in rows]


def count_metas(
    store: Store, series_ref: str, kind: str | None = None, freq: str | None = None
) -> int:
    """How many meta-segments list_metas lists in all."""
    return int(store.read("meta.count", **_meta_filter(store, series_ref, kind, freq))[0]["n"])


def _meta_filter(
    store: Store, series_ref: str, kind: str | None, freq: str | None
) -> dict[str, str | None]:
    if kind is not None and kind not in KINDS:
        raise InvalidInput("kind", f"must be one of {', '.join(KINDS)}")
    if freq is not None:
        check_freq(freq)
    return {"series_id": get_series(store, series_ref).id, "kind": kind, "freq": freq}


@dataclass(frozen=True)
class Members:
    """What a meta-segment groups: segments and meta-segments, in time order."""

    meta: MetaSegment
    segments: list[Segment]
    metas: list[MetaSegment]

    def in_time_order(self) -> list[Segment | MetaSegment]:
        """Both kinds in the order they were read (start, then id), which the split lost."""
        both: list[Segment | MetaSegment] = [*self.metas, *self.segments]
        return sorted(both, key=lambda x: (x.start, x.id))


def get_members(store: Store, meta_id_: str, limit: int | None = None, offset: int = 0) -> Members:
    """Members in time order: all of them, or `limit` of them from `offset`."""
    owner = get_meta(store, meta_id_)  # NotFound for an unknown id
    if limit is not None:
        rows = store.read("meta.members", id=meta_id_, offset=offset, limit=limit)
    else:
        rows = []
        while True:
            page = store.read("meta.members", id=meta_id_, offset=offset + len(rows), limit=PAGE)
            rows.extend(page)
            if len(page) < PAGE:
                break
    return Members(
        meta=owner,
        segments=[Segment.from_node(r["x"]) for r in rows if r["is_segment"]],
        metas=[MetaSegment.from_node(r["x"]) for r in rows if not r["is_segment"]],
    )
