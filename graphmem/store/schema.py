"""The graph schema as data: unique ids and lookup indexes, applied by each engine's dialect."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphmem.cypher import statement
from graphmem.kinds import RELATIONS
from graphmem.store.dialect import Dialect

UNIQUE: tuple[tuple[str, str], ...] = (
    ("Series", "id"),
    ("Series", "name"),
    ("Chunk", "id"),
    ("Segment", "id"),
    ("MetaSegment", "id"),
    ("ToolCall", "id"),
    ("Ask", "id"),
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
    ("ToolCall", "series_id"),  # series.delete
    ("ToolCall", "session"),  # toolcalls.by_session
    ("Ask", "series_id"),  # series.delete
)

# Relationship property indexes: (type, property). Relation edges are looked up by id when
# refined (props.relations_by_id), one index per type.
EDGE_INDEXES: tuple[tuple[str, str], ...] = tuple((rel.type, "id") for rel in RELATIONS)

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def ddl(name: str, label: str, prop: str) -> str:
    """Fill a DDL template from cypher/schema.cypher; labels and properties are ours, not users'."""
    if not (_IDENT.match(label) and _IDENT.match(prop)):
        raise ValueError(f"bad schema identifier {label}.{prop}")
    return statement(name).text.replace("<label>", label).replace("<prop>", prop)


@dataclass(frozen=True)
class SchemaItem:
    """One index or unique constraint graphmem needs."""

    what: str  # 'index' (node property), 'edge_index' (relationship property) or 'unique'
    label: str  # node label, or relationship type for an edge index
    prop: str

    @property
    def key(self) -> tuple[str, str, str]:
        return self.what, self.label, self.prop

    def __str__(self) -> str:
        return f"{self.what} on {self.label}.{self.prop}"


def plan(dialect: Dialect) -> list[SchemaItem]:
    """Every schema item `dialect`'s engine needs, in the order they are created."""
    indexed = INDEXES + (UNIQUE if dialect.unique_needs_index else ())
    return (
        [SchemaItem("index", label, prop) for label, prop in indexed]
        + [SchemaItem("edge_index", rel, prop) for rel, prop in EDGE_INDEXES]
        + [SchemaItem("unique", label, prop) for label, prop in UNIQUE]
    )


def ddl_of(dialect: Dialect, item: SchemaItem) -> str | None:
    """The statement creating `item`, or None where the engine needs a command instead."""
    template = dialect.template(item.what)
    return None if template is None else ddl(template, item.label, item.prop)
