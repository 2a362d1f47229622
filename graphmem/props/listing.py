"""Propositions and relations as stored, page by page (GraphQL `propositions`, `relations`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from graphmem.errors import InvalidInput, NotFound
from graphmem.props.model import Proposition, Relation
from graphmem.store import Store
from graphmem.strings import checked_id

T = TypeVar("T")
DIRECTIONS = ("incoming", "outgoing", "both")
FOREVER = 2**62  # an as-of later than any proposition


@dataclass(frozen=True)
class PropositionFilter:
    """Which propositions to list; None matches any. Times are epoch seconds, inclusive."""

    source: str | None = None
    start: int | None = None
    end: int | None = None
    contains: str | None = None  # in the text, in any case


@dataclass(frozen=True)
class Listed(Generic[T]):
    """One page of a list and the number of items in the whole list."""

    items: list[T]
    total: int


def list_propositions(
    store: Store, where: PropositionFilter, limit: int, offset: int
) -> Listed[Proposition]:
    """Propositions matching `where`, in the store's order, `limit` from `offset`."""
    params = vars(where)
    rows = store.read("props.filtered", **params, offset=offset, limit=limit)
    total = store.read("props.filtered_count", **params)[0]["n"]
    return Listed([Proposition.from_row(row) for row in rows], total)


def relations_of(
    store: Store,
    proposition_id: str,
    as_of_ts: int | None,
    direction: str,
    limit: int,
    offset: int,
    field: str = "propositionId",
) -> Listed[Relation]:
    """A proposition's relation edges from propositions dated by `as_of_ts`, newest first."""
    pid = checked_id(proposition_id, field)
    if direction not in DIRECTIONS:
        raise InvalidInput("direction", f"must be one of {', '.join(DIRECTIONS)}")
    if not store.read("props.get", ids=[pid]):
        raise NotFound(f"{field}: no proposition with id {pid!r}")
    params = {"id": pid, "as_of": FOREVER if as_of_ts is None else as_of_ts, "direction": direction}
    rows = store.read("props.relations_of", **params, offset=offset, limit=limit)
    total = store.read("props.relations_of_count", **params)[0]["n"]
    return Listed([Relation.from_row(row) for row in rows], total)
