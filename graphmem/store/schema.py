"""The graph schema as data: unique ids and lookup indexes, applied by each engine's dialect."""

from __future__ import annotations

import re

from graphmem.cypher import statement

UNIQUE: tuple[tuple[str, str], ...] = (
    ("Series", "id"),
    ("Series", "name"),
    ("Chunk", "id"),
    ("Segment", "id"),
    ("MetaSegment", "id"),
    ("ToolCall", "id"),
    ("Document", "id"),
    ("Proposition", "id"),
    ("Event", "id"),
    ("Batch", "id"),
    ("VectorClock", "label"),  # one clock per label, however many writers MERGE it at once
)

INDEXES: tuple[tuple[str, str], ...] = (
    ("Chunk", "series_id"),
    ("Segment", "series_id"),
    ("Segment", "start"),
    ("MetaSegment", "series_id"),
    ("Proposition", "date"),
    ("Proposition", "ts"),  # as-of filters and the back-fill check in graphmem/props
    ("Event", "date"),
    ("Event", "ts"),  # as-of filters and time ranges in graphmem/timeline
    ("Batch", "series_id"),
)

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def ddl(name: str, label: str, prop: str) -> str:
    """Fill a DDL template from cypher/schema.cypher; labels and properties are ours, not users'."""
    if not (_IDENT.match(label) and _IDENT.match(prop)):
        raise ValueError(f"bad schema identifier {label}.{prop}")
    return statement(name).text.replace("<label>", label).replace("<prop>", prop)
