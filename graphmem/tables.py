"""Rows for the CLI: an aligned text table, JSON or CSV; epoch-second times as ISO text."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.timeutil import iso

MAX_CELL = 60
FORMATS = ("table", "json", "csv")

# Names of the properties the graph stores as epoch seconds (DESIGN.md, graph model): segment
# and meta-segment bounds, chunk bounds and points, statistics' first and last times, the
# time of a tool call, and every *_at / *_ts. Not `epoch` (VectorClock's counter), not `t`
# (recall's days since), not `date` (stored as ISO text already).
EPOCH_NAMES = frozenset(
    ("start", "end", "ts", "t0", "t1", "t_first", "t_last", "at", "stable_before", "built_end")
)
EPOCH_SUFFIXES = ("_at", "_ts")


def is_epoch_name(name: str) -> bool:
    """Whether a column or property of this name holds epoch seconds (`g.start` as `start`)."""
    key = name.rsplit(".", 1)[-1]
    return key in EPOCH_NAMES or key.endswith(EPOCH_SUFFIXES)


def _as_time(value: Any) -> Any:
    """ISO text for a number of epoch seconds; anything else (or out of range) as it is."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    try:
        return iso(value)
    except InvalidInput:  # not finite or outside years 1-9999: not a time after all
        return value


def with_times(value: Any, name: str | None = None) -> Any:
    """`value` with the numbers under epoch names as ISO text, in maps and lists too."""
    if isinstance(value, Mapping):
        return {key: with_times(item, str(key)) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [with_times(item, name) for item in value]
    return _as_time(value) if name is not None and is_epoch_name(name) else value


def number_text(value: float) -> str:
    """A float in full and positional: 1454284800.0, never 1.45428e+09."""
    if not math.isfinite(value):
        return str(value)
    return format(Decimal(repr(value)), "f")


def json_text(value: Any) -> str:
    """One value as JSON, floats positional; NaN and infinities (not JSON) as null."""
    if isinstance(value, float):
        return number_text(value) if math.isfinite(value) else "null"
    if isinstance(value, Mapping):
        items = (
            f"{json.dumps(str(k), ensure_ascii=False)}:{json_text(v)}" for k, v in value.items()
        )
        return "{" + ",".join(items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(json_text(item) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False, default=str)


def text(value: Any) -> str:
    """One value in full as plain text: '' for null, JSON for maps and lists."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return number_text(value)
    return json_text(value)


def cell(value: Any, max_cell: int | None = MAX_CELL) -> str:
    """One value on one line of a table, cut to `max_cell` characters (None: never cut)."""
    shown = text(value).replace("\n", " ")
    if max_cell is None or len(shown) <= max_cell:
        return shown
    return shown[: max_cell - 1] + "…"


def _columns(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every key of the rows, in the order they first appear."""
    return list(dict.fromkeys(key for row in rows for key in row))


def render(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str] | None = None,
    max_cell: int | None = MAX_CELL,
) -> str:
    """Rows of dicts as an aligned text table."""
    if not rows:
        return "(no rows)"
    columns = list(columns or _columns(rows))
    cells = [[cell(row.get(c), max_cell) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    rule = "  ".join("-" * w for w in widths)
    body = ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in cells]
    return "\n".join(out.rstrip() for out in [line, rule, *body])


def json_rows(rows: Sequence[Mapping[str, Any]]) -> str:
    """One JSON array of row objects, a row per line."""
    if not rows:
        return "[]"
    return "[\n" + ",\n".join(json_text(row) for row in rows) + "\n]"


def csv_rows(rows: Sequence[Mapping[str, Any]]) -> str:
    """A header line and a line per row (RFC 4180: quoted as needed, CRLF line ends)."""
    if not rows:
        return ""
    columns = _columns(rows)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(columns)
    writer.writerows([text(row.get(c)) for c in columns] for row in rows)
    return out.getvalue()


def formatted(
    rows: Sequence[Mapping[str, Any]],
    fmt: str = "table",
    width: int | None = None,
    times: bool = True,
) -> str:
    """Rows in one of FORMATS; values in full but for a table's cells cut at `width`."""
    if fmt not in FORMATS:
        raise InvalidInput("format", f"must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if times:
        rows = [with_times(row) for row in rows]
    if fmt == "json":
        return json_rows(rows)
    if fmt == "csv":
        return csv_rows(rows)
    return render(rows, max_cell=width)
