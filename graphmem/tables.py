"""Plain-text tables for the CLI."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

MAX_CELL = 60


def cell(value: Any, max_cell: int = MAX_CELL) -> str:
    """One value as short text: JSON for containers, truncated to keep rows readable."""
    if value is None:
        text = ""
    elif isinstance(value, float):
        text = f"{value:.6g}"
    elif isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    text = text.replace("\n", " ")
    return text if len(text) <= max_cell else text[: max_cell - 1] + "…"


def render(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str] | None = None,
    max_cell: int = MAX_CELL,
) -> str:
    """Rows of dicts as an aligned text table."""
    if not rows:
        return "(no rows)"
    columns = list(columns or rows[0].keys())
    cells = [[cell(row.get(c), max_cell) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    rule = "  ".join("-" * w for w in widths)
    body = ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in cells]
    return "\n".join(text.rstrip() for text in [line, rule, *body])
