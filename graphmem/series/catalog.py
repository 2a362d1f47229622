"""Series nodes: create, get, list and delete (with everything hanging off them)."""

from __future__ import annotations

import hashlib
import numbers
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmem.errors import AlreadyExists, InvalidInput, NotFound
from graphmem.kinds import labels
from graphmem.store import Store
from graphmem.strings import checked_name, checked_str, storable
from graphmem.timeutil import iso

MAX_NAME = 200
MAX_UNIT = 50
MAX_DESCRIPTION = 4000


@dataclass(frozen=True)
class SeriesInfo:
    """A stored series."""

    id: str
    name: str
    unit: str | None
    description: str | None
    created_at: int
    t0: float | None = None  # epoch seconds of the first point: the origin of segment time sums

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> SeriesInfo:
        return cls(
            id=node["id"],
            name=node["name"],
            unit=node.get("unit"),
            description=node.get("description"),
            created_at=node["created_at"],
            t0=node.get("t0"),
        )


def series_id_for(name: str) -> str:
    """Deterministic id from the name, so re-creating the same series is detected."""
    return "ser_" + hashlib.sha1(name.encode("utf-8")).hexdigest()[:16]


def _description(value: Any) -> str | None:
    if value is None:
        return None
    return checked_str(value, "description", MAX_DESCRIPTION).strip() or None


def create_series(
    store: Store, name: str, unit: str | None = None, description: str | None = None
) -> SeriesInfo:
    """Create a series; a second series with the same name is refused."""
    name = checked_name(name, "name", MAX_NAME, required=True)
    unit = checked_name(unit, "unit", MAX_UNIT)
    description = _description(description)
    now = int(time.time())
    try:
        rows = store.write(
            "series.create",
            id=series_id_for(name),
            name=name,
            unit=unit,
            description=description,
            created_at=now,
            created_at_iso=iso(now),
        )
    except AlreadyExists:
        raise AlreadyExists(f"name: a series named {name!r} already exists") from None
    return SeriesInfo.from_node(rows[0]["s"])


def get_series(store: Store, ref: str, field: str = "series") -> SeriesInfo:
    """The series with this id or, failing that, this name; `field` names `ref` in errors."""
    return SeriesInfo.from_node(_series_node(store, ref, field, "series.info"))


def get_series_node(store: Store, ref: str, field: str = "series") -> dict[str, Any]:
    """get_series' whole node, ingestion state included (one read where both are needed)."""
    return _series_node(store, ref, field, "series.get")


def _series_node(store: Store, ref: str, field: str, statement: str) -> dict[str, Any]:
    if not isinstance(ref, str) or not ref.strip():
        raise InvalidInput(field, "a series id or name is required")
    storable(ref, field)
    rows = store.read(statement, id=ref) or store.read(f"{statement}_by_name", name=ref.strip())
    if not rows:
        raise NotFound(f"series: no series with id or name {ref!r}")
    node: dict[str, Any] = rows[0]["s"]
    return node


def checked_page(limit: Any, offset: Any, most: int = 10_000) -> None:
    """InvalidInput unless `limit` is an integer from 1 to `most` and `offset` one >= 0."""
    if (
        isinstance(limit, bool)
        or not isinstance(limit, numbers.Integral)
        or not 1 <= int(limit) <= most
    ):
        raise InvalidInput("limit", f"must be between 1 and {most}")
    if isinstance(offset, bool) or not isinstance(offset, numbers.Integral) or offset < 0:
        raise InvalidInput("offset", "must not be negative")


def list_series(store: Store, limit: int = 1000, offset: int = 0) -> list[SeriesInfo]:
    """Series ordered by name."""
    checked_page(limit, offset)
    rows = store.read("series.list", limit=limit, offset=offset)
    return [SeriesInfo.from_node(r["s"]) for r in rows]


def count_series(store: Store) -> int:
    return int(store.read("series.count")[0]["n"])


def delete_series(
    store: Store, ref: str, field: str = "series", data_dir: Path | None = None
) -> SeriesInfo:
    """Delete a series with its chunks, segments, meta-segments and tool calls.

    With `data_dir` (the settings' home), the segment and meta-segment indexes of every process
    on it drop the series' items at their next search (graphmem/vectors/changes.py), as after
    any other write; without it, within GRAPHMEM_VECTOR_REFRESH_MS.
    """
    info = get_series(store, ref, field)
    store.write("series.delete", id=info.id)
    if data_dir is not None:
        from graphmem.vectors.store import signal_changed  # FAISS: only when deleting

        # its segments and meta-segments: the kinds re-embedded in place
        signal_changed(data_dir, store.space, labels("reembedded"), "the deletion of a series")
    return info


def ensure_series(
    store: Store, name: str, unit: str | None = None, description: str | None = None
) -> SeriesInfo:
    """The series with this name, created (with unit and description) if it does not exist."""
    try:
        return get_series(store, name)
    except NotFound:
        return create_series(store, name, unit, description)
