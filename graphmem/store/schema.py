"""The graph schema as data: unique ids and lookup indexes, applied by each engine's dialect."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphmem.cypher import statement
from graphmem.kinds import RELATIONS
from graphmem.store.dialect import Dialect

# Every node carries its space (graphmem/spaces.py): ids and names are unique per space, so
# each unique constraint is on (space, key), a composite constraint on both engines.
KEYS: tuple[tuple[str, str], ...] = (
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
    ("VectorClock", "label"),  # one clock per label and space, however many writers MERGE it
)
UNIQUE: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (label, ("space", prop)) for label, prop in KEYS
)
# The constraints of stores written before spaces (one property each): an open that finds
# them gives every node the space `default`, then drops them (Store.apply_schema).
LEGACY_UNIQUE: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (label, (prop,)) for label, prop in KEYS
)
LABELS: tuple[str, ...] = tuple(dict.fromkeys(label for label, _ in KEYS))

INDEXES: tuple[tuple[str, str], ...] = (
    ("Chunk", "series_id"),
    ("Segment", "series_id"),
    ("Segment", "start"),
    ("MetaSegment", "series_id"),
    ("Proposition", "date"),
    ("Proposition", "ts"),  # as-of filters and the back-fill check in graphmem/props
    ("Proposition", "seq"),  # vectors.added_proposition: what a catch-up reads
    ("Event", "date"),
    ("Event", "ts"),  # as-of filters and time ranges in graphmem/timeline
    ("Event", "seq"),  # vectors.added_event
    ("Batch", "series_id"),
    ("ToolCall", "series_id"),  # series.delete
    ("ToolCall", "session"),  # toolcalls.by_session
    ("Ask", "series_id"),  # series.delete
    ("Series", "space"),  # series.list
    ("Proposition", "space"),  # props.filtered, counts
    ("Event", "space"),
    ("Document", "space"),
    ("Document", "source"),  # props.other_versions
)

# Relationship property indexes: (type, property). Relation edges are looked up by id when
# refined (props.relations_by_id), one index per type.
EDGE_INDEXES: tuple[tuple[str, str], ...] = tuple((rel.type, "id") for rel in RELATIONS)

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def ddl(name: str, label: str, props: str | tuple[str, ...] = ()) -> str:
    """Fill a DDL template from cypher/schema.cypher; labels and properties are ours, not users'.

    <prop> is the one property, <props> the properties as n.a, n.b and <names> joined by _.
    """
    props = (props,) if isinstance(props, str) else props
    if not (_IDENT.match(label) and all(_IDENT.match(p) for p in props)):
        raise ValueError(f"bad schema identifier {label}.{props}")
    text = statement(name).text.replace("<label>", label)
    if len(props) == 1:
        text = text.replace("<prop>", props[0])
    return text.replace("<props>", ", ".join(f"n.{p}" for p in props)).replace(
        "<names>", "_".join(props)
    )


@dataclass(frozen=True)
class SchemaItem:
    """One index or unique constraint graphmem needs."""

    what: str  # 'index' (node property), 'edge_index' (relationship property) or 'unique'
    label: str  # node label, or relationship type for an edge index
    props: tuple[str, ...]  # one, or (space, key) for a unique constraint

    @property
    def key(self) -> tuple[str, str, tuple[str, ...]]:
        return self.what, self.label, self.props

    @property
    def prop(self) -> str:
        """The properties joined by _ (how the item is named)."""
        return "_".join(self.props)

    def __str__(self) -> str:
        return f"{self.what} on {self.label}({', '.join(self.props)})"


def plan(dialect: Dialect) -> list[SchemaItem]:
    """Every schema item `dialect`'s engine needs, in the order they are created."""
    # FalkorDB builds a unique constraint on an index of each of its properties
    backing = [(label, p) for label, props in UNIQUE for p in props]
    indexed = dict.fromkeys(INDEXES + (tuple(backing) if dialect.unique_needs_index else ()))
    return (
        [SchemaItem("index", label, (prop,)) for label, prop in indexed]
        + [SchemaItem("edge_index", rel, (prop,)) for rel, prop in EDGE_INDEXES]
        + [SchemaItem("unique", label, props) for label, props in UNIQUE]
    )


def ddl_of(dialect: Dialect, item: SchemaItem) -> str | None:
    """The statement creating `item`, or None where the engine needs a command instead."""
    template = dialect.template(item.what)
    return None if template is None else ddl(template, item.label, item.props)
