"""The timeline of memories in time order with their current importance, as data and as a PNG."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.errors import InvalidInput
from graphmem.timeline.formula import checked_count, elapsed, probabilities
from graphmem.timeline.memory import (
    DEFAULT_LABELS,
    RECALLED,
    TimelineMemory,
    checked_labels,
    checked_now,
)
from graphmem.timeutil import iso_date

MAX_ITEMS = 100_000
_FIRST, _LAST = -(1 << 62), 1 << 62  # open ends of a range


@dataclass(frozen=True)
class TimelineItem:
    """A memory on the timeline."""

    label: str
    id: str
    text: str
    date: str
    ts: int
    recall_count: int
    g: float
    last_recalled_at: int | None
    t: float  # time units since the last recall, or since ts
    importance: float  # retention: p with r = 1, i.e. how well the memory is kept at `now`


def timeline(
    ctx: TimelineMemory,
    start: Any = None,
    end: Any = None,
    now: Any = None,
    labels: Sequence[str] = DEFAULT_LABELS,
    limit: int = 10_000,
) -> list[TimelineItem]:
    """Memories dated in [start, end] and not after `now` (default: ctx.now()), oldest first.

    At most `limit` items: the oldest ones of the range.
    """
    where, now_ts = _window(ctx, start, end, now, labels)
    limit = checked_count(limit, "limit", MAX_ITEMS)
    rows = ctx.store.read("timeline.in_range", **where, limit=limit)
    rows.sort(key=lambda row: (row["ts"], row["id"]))
    rows = rows[:limit]
    if not rows:
        return []
    since = np.array(
        [r["ts"] if r["last_recalled_at"] is None else r["last_recalled_at"] for r in rows],
        dtype=np.float64,
    )
    g = np.array([float(r["g"]) for r in rows])
    t = elapsed(now_ts, since, ctx.config.time_unit_seconds)
    kept = probabilities(np.ones(len(rows)), t, g)
    return [
        TimelineItem(
            row["label"],
            row["id"],
            row["text"],
            row["date"] or iso_date(row["ts"]),
            int(row["ts"]),
            int(row["recall_count"]),
            float(row["g"]),
            None if row["last_recalled_at"] is None else int(row["last_recalled_at"]),
            float(t[i]),
            float(kept[i]),
        )
        for i, row in enumerate(rows)
    ]


def count_timeline(
    ctx: TimelineMemory,
    start: Any = None,
    end: Any = None,
    now: Any = None,
    labels: Sequence[str] = DEFAULT_LABELS,
) -> int:
    """How many memories `timeline` would list without a limit."""
    where, _ = _window(ctx, start, end, now, labels)
    return sum(int(row["n"]) for row in ctx.store.read("timeline.count_in_range", **where))


def _window(
    ctx: TimelineMemory, start: Any, end: Any, now: Any, labels: Sequence[str]
) -> tuple[dict[str, Any], int]:
    """The parameters of timeline.in_range (the kinds enabled, the range up to now), and now."""
    lo = _FIRST if start is None else checked_now(start, "start")
    hi = _LAST if end is None else checked_now(end, "end")
    now_ts = ctx.now() if now is None else checked_now(now)
    if lo > hi:
        raise InvalidInput("end", "is before start")
    chosen = checked_labels(labels)
    enabled = {kind.key: kind.label in chosen for kind in RECALLED}
    return {"start": lo, "end": min(hi, now_ts), **enabled}, now_ts


def plot_timeline(
    ctx: TimelineMemory,
    path: str | Path,
    start: Any = None,
    end: Any = None,
    now: Any = None,
    labels: Sequence[str] = DEFAULT_LABELS,
    top: int = 8,
) -> int:
    """Write a PNG of the memories on a time axis, coloured by importance; returns how many."""
    import matplotlib

    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.dates as mdates
    import matplotlib.pyplot as plt

    now_ts = ctx.now() if now is None else checked_now(now)
    items = timeline(ctx, start, end, now_ts, labels)
    top = checked_count(top, "top", 100)
    fig, ax = plt.subplots(figsize=(14, 5), dpi=110)
    if items:
        when = mdates.date2num([dt.datetime.fromtimestamp(m.ts, dt.UTC) for m in items])
        importance = [m.importance for m in items]
        markers = {"Event": "o", "Proposition": "s", "Segment": "^", "MetaSegment": "D"}
        shown = None
        for label in dict.fromkeys(m.label for m in items):
            idx = [i for i, m in enumerate(items) if m.label == label]
            shown = ax.scatter(
                [when[i] for i in idx],
                [importance[i] for i in idx],
                c=[importance[i] for i in idx],
                cmap="viridis",
                vmin=0.0,
                vmax=1.0,
                marker=markers[label],
                s=36,
                edgecolors="#333",
                linewidths=0.4,
                label=label,
            )
        if shown is not None:
            fig.colorbar(shown, ax=ax, label="importance (retention p at r = 1)")
        for i in sorted(range(len(items)), key=lambda i: -importance[i])[:top]:
            text = items[i].text if len(items[i].text) <= 40 else items[i].text[:39] + "…"
            ax.annotate(
                text,
                (when[i], importance[i]),
                textcoords="offset points",
                xytext=(4, 6),
                fontsize=7,
                rotation=15,
            )
        ax.legend(loc="upper left")
    now = mdates.date2num(dt.datetime.fromtimestamp(now_ts, dt.UTC))
    ax.axvline(now, color="#d1495b", lw=1, ls="--")
    locator = mdates.AutoDateLocator()
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
    ax.set_ylim(-0.05, 1.1)
    ax.set_ylabel("importance")
    ax.set_title(f"{len(items)} memories as of {iso_date(now_ts)}")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(Path(path))
    plt.close(fig)
    return len(items)
