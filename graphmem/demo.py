"""`graphmem demo`: shows, on real data, what is built so far."""

from __future__ import annotations

from typing import TextIO

from graphmem.config import Settings
from graphmem.series.catalog import SeriesInfo, ensure_series
from graphmem.series.ingest import ingest_all
from graphmem.series.segments import list_segments, time_bounds
from graphmem.series.synthetic import sales_series
from graphmem.store import Store
from graphmem.tables import render


def load_sales(store: Store) -> SeriesInfo:
    """The synthetic sales series, ingested on first run and reused after."""
    data = sales_series(seed=0)
    series = ensure_series(store, data.name, data.unit, data.description)
    if time_bounds(store, series.id).n_points == 0:
        ingest_all(store, series.id, data.ts, data.xs, batch_size=1000)
    return series


def run_demo(store: Store, settings: Settings, out: TextIO) -> None:
    """Load the synthetic sales series and print its segments."""
    series = load_sales(store)
    bounds = time_bounds(store, series.id)
    print(
        f"Series {series.name!r} ({series.unit}): {bounds.n_points} daily points "
        f"{bounds.start_iso[:10]} to {bounds.end_iso[:10]}, cut online by BOCPD into "
        f"{bounds.n_segments} segments:\n",
        file=out,
    )
    rows = [
        {"#": s.idx, "start": s.start_iso[:10], "end": s.end_iso[:10], "n": s.n,
         "summary": s.summary + (" (open)" if s.open else "")}
        for s in list_segments(store, series.id, limit=10_000)
    ]  # fmt: skip
    print(render(rows, max_cell=200), file=out)
    print(
        "\nNext: `graphmem plot synthetic-sales -o sales.png`, `graphmem serve` for GraphQL, "
        '`graphmem cypher "MATCH (g:Segment) RETURN g.summary LIMIT 5"`.',
        file=out,
    )
