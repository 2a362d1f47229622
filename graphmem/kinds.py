"""The registry of memory kinds and relation types: what per-kind Cypher is expanded from.

A statement in cypher/ written once for every kind (`// name: vids_<kind> with vectors`, or an
`// each kind with recall` block inside one statement) is expanded by graphmem/cypher.py from
this table, so a new kind of memory is one line here, not copies of Cypher.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MemoryKind:
    """A kind of memory: a node label with an id, a time of its own and, maybe, an embedding."""

    label: str  # the node label; fills <Kind>
    key: str  # lower case; fills <kind>: statement names (vids_event) and parameters ($event)
    time: str  # fills <time>: the property holding the memory's own time
    # fills <embedded>: the property holding the text its embedding was made from
    embedded: str = "text"
    vectors: bool = True  # carries an embedding, indexed by graphmem/vectors
    recall: bool = True  # carries recall statistics (graphmem/timeline)
    # re-embedded in place when its summary changes: embedded lazily, and its vector index
    # follows a (:VectorClock {label}) node (see cypher/vectors.cypher)
    reembedded: bool = False


@dataclass(frozen=True)
class RelationKind:
    """A relation between propositions: an edge type, always from the newer to the older."""

    type: str  # the relationship type; fills <REL>
    key: str  # lower case; fills <rel>: what classifiers answer and statements name it


KINDS: tuple[MemoryKind, ...] = (
    MemoryKind("Proposition", "proposition", time="ts"),
    MemoryKind("Event", "event", time="ts"),
    MemoryKind("Segment", "segment", time="start", embedded="embedded_summary", reembedded=True),
    MemoryKind(
        "MetaSegment", "metasegment", time="start", embedded="embedded_summary", reembedded=True
    ),
)

RELATIONS: tuple[RelationKind, ...] = (
    RelationKind("UPDATES", "updates"),
    RelationKind("CONTRADICTS", "contradicts"),
    RelationKind("SUPPORTS", "supports"),
)

TRAITS = ("vectors", "recall", "reembedded")  # MemoryKind flags a selector may name


def kind_of(label: str) -> MemoryKind:
    """The registered kind with this label; KeyError if there is none."""
    for kind in KINDS:
        if kind.label == label:
            return kind
    raise KeyError(label)


def labels(trait: str | None = None) -> tuple[str, ...]:
    """The labels of every kind, or of those with `trait` (one of TRAITS)."""
    if trait is not None and trait not in TRAITS:
        raise ValueError(f"unknown trait {trait!r}; known: {', '.join(TRAITS)}")
    return tuple(k.label for k in KINDS if trait is None or getattr(k, trait))
