"""Status as of a date: computed once per subgraph, read by the API and by the rendered text.

A proposition is `updated` when an UPDATES edge reaches it from a proposition dated on or
before the date that counts, `contradicted` when a CONTRADICTS edge does (updated wins when
both), else `current`. SUPPORTS never changes a status.

Which edges count: an UPDATES or CONTRADICTS edge counts unless its source is itself refuted,
i.e. contradicted by a proposition that counts, with the same rule applied to that one, and
so on along the chain of contradictions (edges point from newer to older, so the chain ends).
A false claim that updated a fact stops superseding it once the claim is refuted; a denial
that was itself refuted stops refuting. Edges that do not count are kept in `discounted`, so
the text can say why they change nothing. The whole chain is followed: the subgraph's rows
give each member's incoming edges; for sources outside the subgraph that are contradicted,
the chain is read from the graph (`props.contradictors`, one read per level, usually one).
Each kind lists the subgraph's members whose edges count and at most retrieve.INCOMING other
sources (the edges read), and counts the rest from sources nobody contradicts
(`updated_unlisted`, `contradicted_unlisted`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graphmem.store import Store

CHANGES = ("UPDATES", "CONTRADICTS")
MAX_LEVELS = 8  # reads along a chain of contradictions; deeper sources count as standing


@dataclass(frozen=True)
class Status:
    """Whether a proposition still stands as of the subgraph's date, and why."""

    state: str  # "current", "updated" or "contradicted" (updated wins when both)
    updated_by: tuple[str, ...] = ()  # sources of the UPDATES edges that count
    contradicted_by: tuple[str, ...] = ()  # sources of the CONTRADICTS edges that count
    discounted: tuple[str, ...] = ()  # sources of UPDATES / CONTRADICTS edges that are refuted
    # sources whose edges count beyond those listed (a list holds the members and at most
    # retrieve.INCOMING others): every one nobody contradicts is counted; one contradicted by a
    # refuted source only when its edge was read
    updated_unlisted: int = 0
    contradicted_unlisted: int = 0

    @property
    def updated_count(self) -> int:
        """How many propositions update it and count."""
        return len(self.updated_by) + self.updated_unlisted

    @property
    def contradicted_count(self) -> int:
        """How many propositions contradict it and count."""
        return len(self.contradicted_by) + self.contradicted_unlisted

    @property
    def refuted(self) -> bool:
        """Contradicted by a proposition that counts (its own edges then count no more)."""
        return bool(self.contradicted_by)


def statuses(store: Store, rows: Iterable[Mapping[str, Any]], as_of_ts: int) -> dict[str, Status]:
    """The status of each row's proposition (rows of `props.with_incoming`)."""
    rows = list(rows)
    contradictors = {
        row["id"]: tuple(e["src"] for e in row["incoming"] if e["type"] == "CONTRADICTS")
        for row in rows
    }
    outside = {
        e["src"] for row in rows for e in row["incoming"] if e.get("src_refuted")
    } - contradictors.keys()
    contradictors.update(_chains(store, outside, as_of_ts))
    refuted = _Refuted(contradictors)
    incoming = _with_members(rows, contradictors)
    return {row["id"]: _status(row, incoming[row["id"]], refuted) for row in rows}


def _with_members(
    rows: list[Mapping[str, Any]], contradictors: Mapping[str, tuple[str, ...]]
) -> dict[str, list[Mapping[str, Any]]]:
    """Each row's incoming edges read, and the edges from other rows into it that its capped
    read left out (an anchor's read takes every edge from the anchors, at most INCOMING from
    others: a neighbour that updates it may be past the cap), ranked as the read ranks them: 0
    when the source has no contradictor, else 1. So the status names every member whose edge
    counts, and counts no member as not read."""
    incoming = {row["id"]: list(row["incoming"]) for row in rows}
    read = {e["id"] for row in rows for e in row["incoming"]}
    for row in rows:
        for e in row.get("outgoing") or ():
            if e["type"] in CHANGES and e["dst"] in incoming and e["id"] not in read:
                rank = 1 if contradictors.get(row["id"]) else 0
                edge = {**e, "src": row["id"], "rank": rank, "src_refuted": rank == 1}
                incoming[e["dst"]].append(edge)
                read.add(e["id"])
    return incoming


def _chains(store: Store, ids: set[str], as_of_ts: int) -> dict[str, tuple[str, ...]]:
    """Who contradicts each of `ids` as of the date, and who contradicts those, to the end."""
    known: dict[str, tuple[str, ...]] = {}
    todo = sorted(ids)
    for _ in range(MAX_LEVELS):
        if not todo:
            break
        for row in store.read("props.contradictors", ids=todo, as_of=as_of_ts):
            known[row["id"]] = tuple(sorted(c["id"] for c in row["by"]))
            for c in row["by"]:
                if not c["contradicted"]:
                    known.setdefault(c["id"], ())
        todo = sorted({c for by in known.values() for c in by} - known.keys())
    return known


class _Refuted:
    """refuted(x): x is contradicted by a proposition that is not refuted itself."""

    def __init__(self, contradictors: Mapping[str, tuple[str, ...]]) -> None:
        self.contradictors = contradictors
        self.memo: dict[str, bool] = {}

    def __call__(self, pid: str) -> bool:
        if pid not in self.memo:
            self.memo[pid] = False  # a cycle cannot occur (newer → older); this guards anyway
            self.memo[pid] = any(not self(c) for c in self.contradictors.get(pid, ()))
        return self.memo[pid]


def _status(row: Mapping[str, Any], incoming: list[Mapping[str, Any]], refuted: _Refuted) -> Status:
    changes = [e for e in incoming if e["type"] in CHANGES]
    standing = [e for e in changes if not refuted(e["src"])]
    updated = tuple(sorted(e["src"] for e in standing if e["type"] == "UPDATES"))
    contradicted = tuple(sorted(e["src"] for e in standing if e["type"] == "CONTRADICTS"))
    discounted = tuple(sorted({e["src"] for e in changes} - {e["src"] for e in standing}))
    state = "updated" if updated else "contradicted" if contradicted else "current"
    unlisted = _unlisted(row, changes)
    return Status(
        state, updated, contradicted, discounted, unlisted["UPDATES"], unlisted["CONTRADICTS"]
    )


def _unlisted(row: Mapping[str, Any], read: list[Mapping[str, Any]]) -> dict[str, int]:
    """Per type, the edges of rank 0 (from a source nobody contradicts) that were not read."""
    total = {kind: 0 for kind in CHANGES}
    for part in row.get("standing") or ():
        if part["type"] in total:
            total[part["type"]] = int(part["n"])
    for e in read:
        if e["rank"] == 0:
            total[e["type"]] -= 1
    return {kind: max(0, n) for kind, n in total.items()}
