"""`graphmem demo`: shows, on real data, what is built so far."""

from __future__ import annotations

from typing import TextIO

from graphmem.config import Settings
from graphmem.errors import NotFound
from graphmem.series import catalog
from graphmem.store import Store
from graphmem.tables import render

DEMO_SERIES = (("synthetic-sales", "units sold", "Synthetic daily sales, 2010-2020 (seeded)."),)


def ensure_series(store: Store, name: str, unit: str, description: str) -> catalog.SeriesInfo:
    """The demo series, created on first run and reused after."""
    try:
        return catalog.get_series(store, name)
    except NotFound:
        return catalog.create_series(store, name, unit, description)


def run_demo(store: Store, settings: Settings, out: TextIO) -> None:
    """Create the demo series and print them."""
    for name, unit, description in DEMO_SERIES:
        ensure_series(store, name, unit, description)
    print("Series in the store:", file=out)
    rows = [
        {"id": s.id, "name": s.name, "unit": s.unit, "description": s.description}
        for s in catalog.list_series(store)
    ]
    print(render(rows), file=out)
