"""Pictures for people: a series with its segments."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.errors import InvalidInput
from graphmem.series.catalog import get_series
from graphmem.series.detect.archive import read_time_range
from graphmem.series.detect.segments import list_segments, time_bounds
from graphmem.store import Store
from graphmem.timeutil import iso

MAX_SEGMENTS = 10_000


def _dates(ts: np.ndarray) -> np.ndarray:
    return np.array([dt.datetime.fromtimestamp(t, dt.UTC) for t in ts], dtype=object)


def _window(
    store: Store, series_id: str, start: float | None, end: float | None
) -> tuple[float, float]:
    """[start, end] to plot (the series' first and last point where not given); it must hold
    points, else the picture would be empty."""
    if start is not None and end is not None and start > end:
        raise InvalidInput("start", f"{iso(start)} is after end {iso(end)}")
    bounds = time_bounds(store, series_id)
    if bounds.start is None or bounds.end is None:
        raise InvalidInput("series", "holds no points to plot")
    lo = bounds.start if start is None else start
    hi = bounds.end if end is None else end
    if lo > bounds.end or hi < bounds.start or lo > hi:
        raise InvalidInput(
            "start" if start is not None else "end",
            f"{iso(lo)} to {iso(hi)} holds no points; the series covers {iso(bounds.start)} "
            f"to {iso(bounds.end)}",
        )
    return lo, hi


def plot_series(
    store: Store, series_ref: str, path: Path, start: float | None = None, end: float | None = None
) -> int:
    """Write a PNG of the series, segment boundaries and per-segment means; returns #segments."""
    import matplotlib

    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.dates as mdates
    import matplotlib.pyplot as plt

    series = get_series(store, series_ref)
    lo, hi = _window(store, series.id, start, end)
    segs = list_segments(store, series.id, lo, hi, limit=MAX_SEGMENTS)
    points = read_time_range(store, series.id, lo, hi)
    fig, ax = plt.subplots(figsize=(14, 5), dpi=110)
    ax.plot(_dates(points.ts), points.xs, lw=0.6, color="#4a6fa5", label=series.name)
    for i, seg in enumerate(segs):
        d0, d1 = _dates(np.array([seg.start, seg.end]))
        # only the first segment's line gets a legend entry: matplotlib takes None as no label
        label: Any = "segment mean" if i == 0 else None
        ax.hlines(seg.features.mean, d0, d1, colors="#d1495b", lw=2, label=label)
        if i:
            ax.axvline(d0, color="#888", lw=0.6, ls="--")
    locator = mdates.AutoDateLocator()
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
    ax.set_ylabel(series.unit or "value")
    ax.set_title(f"{series.name}: {len(points)} points, {len(segs)} segments")
    ax.legend(loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return len(segs)
