"""Episodic memories: dated Event nodes with an embedding and fresh recall statistics."""

from __future__ import annotations

import hashlib
import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem import embcodec, metrics
from graphmem.errors import InvalidInput, NotFound
from graphmem.strings import MAX_SOURCE, MAX_TEXT, checked_id, checked_name, checked_str
from graphmem.timeline.memory import TimelineMemory
from graphmem.timeutil import iso, iso_date, parse_timestamp
from graphmem.vectors import vector_id
from graphmem.vectors.deletion import delete_nodes, new_epoch

LABEL = "Event"
MAX_BATCH = 1000  # events per call: one statement, so it lands whole
_KEYS = frozenset({"text", "date", "source"})


@dataclass(frozen=True)
class Event:
    """An episodic memory: what happened, and when."""

    id: str
    text: str
    date: str  # YYYY-MM-DD (UTC) of ts
    ts: int  # epoch seconds; also where decay starts until the first recall
    source: str | None = None


def clean_text(text: str) -> str:
    """The text as stored: NFKC-normalised, whitespace collapsed, trimmed."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def event_id(text: str, ts: int) -> str:
    """'ev_' + sha1 of the cleaned text and the time: the same event at the same time."""
    digest = hashlib.sha1(f"{clean_text(text)}\x1f{iso(ts)}".encode()).hexdigest()
    return f"ev_{digest}"


def make_event(text: Any, date: Any, source: Any = None, field: str = "event") -> Event:
    """A validated Event; `date` is an ISO date/datetime, a date object or epoch seconds."""
    clean = clean_text(checked_str(text, f"{field}.text", MAX_TEXT))
    if not clean:
        raise InvalidInput(f"{field}.text", "is empty")
    if date is None:
        raise InvalidInput(f"{field}.date", "is required")
    ts = math.floor(parse_timestamp(date, f"{field}.date"))
    src = checked_name(source, f"{field}.source", MAX_SOURCE)
    return Event(event_id(clean, ts), clean, iso_date(ts), ts, src)


def add_event(
    ctx: TimelineMemory,
    text: str,
    date: Any,
    source: str | None = None,
    embedding: Sequence[float] | np.ndarray | None = None,
) -> Event:
    """Store one event (a no-op if the same text at the same time is stored); returns it."""
    item = {"text": text, "date": date, "source": source}
    vectors = None if embedding is None else [embedding]
    return add_events(ctx, [item], vectors, field="event")[0]


def add_events(
    ctx: TimelineMemory,
    items: Sequence[Mapping[str, Any]],
    embeddings: Sequence[Sequence[float] | np.ndarray] | np.ndarray | None = None,
    *,
    field: str = "items",
) -> list[Event]:
    """Store events {text, date, source?} in one statement; stored ones are left unchanged.

    `embeddings` (one row per item) replaces the embedding model, e.g. for vectors computed
    elsewhere. Everything is checked before anything is written. Returns the events in input
    order, each id once.
    """
    events = _checked_items(items, field)
    vecs = None if embeddings is None else _checked_vectors(embeddings, len(events), ctx)
    first = {e.id: i for i, e in reversed(list(enumerate(events)))}
    existing = {r["id"] for r in ctx.store.read("timeline.existing_events", ids=list(first))}
    new = [i for i in sorted(first.values()) if events[i].id not in existing]
    if new:
        texts = [events[i].text for i in new]
        fresh = ctx.embedder.encode(texts) if vecs is None else vecs[new]
        # what the graph stores, so an index rebuilt from the graph holds the same vectors
        fresh = np.ascontiguousarray(fresh, dtype=np.float32)
        rows: list[dict[str, Any]] = [
            {
                "id": events[i].id,
                "text": events[i].text,
                "date": events[i].date,
                "ts": events[i].ts,
                "source": events[i].source,
                "vid": vector_id(events[i].id),
                "embedding": emb,
            }
            for i, emb in zip(new, embcodec.encode(fresh), strict=True)
        ]
        ctx.store.write_batch("timeline.add_events", rows, epoch=new_epoch())
        metrics.count(metrics.EVENTS, len(rows))
        ctx.vectors.add(
            LABEL,
            [r["id"] for r in rows],
            [r["vid"] for r in rows],
            [r["ts"] for r in rows],
            fresh,
        )
    return [events[i] for i in sorted(first.values())]


def delete_event(ctx: TimelineMemory, event_id: Any) -> Event:
    """Delete an event from the graph and from every process's vector index; what it was.

    NotFound if it is not stored.
    """
    eid = checked_id(event_id)
    stored = ctx.store.read("timeline.existing_events", ids=[eid])
    rows = delete_nodes(ctx.vectors, LABEL, [eid]) if stored else []
    if not rows:
        raise NotFound(f"id: no event with id {eid!r}")
    row = rows[0]
    return Event(row["id"], row["text"], row["date"], int(row["ts"]), row["source"])


def _checked_items(items: Any, field: str) -> list[Event]:
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Sequence):
        raise InvalidInput(field, "must be a list of {text, date, source?} objects")
    if not 1 <= len(items) <= MAX_BATCH:
        raise InvalidInput(field, f"must hold 1 to {MAX_BATCH} events")
    events = []
    for i, item in enumerate(items):
        where = field if field == "event" else f"{field}[{i}]"
        if not isinstance(item, Mapping):
            raise InvalidInput(where, "must be an object with text, date and optional source")
        unknown = set(item) - _KEYS
        if unknown:
            raise InvalidInput(where, f"unknown keys {sorted(unknown)}")
        events.append(make_event(item.get("text"), item.get("date"), item.get("source"), where))
    return events


def _checked_vectors(embeddings: Any, n: int, ctx: TimelineMemory) -> np.ndarray:
    dim = ctx.vectors.dim
    try:
        vecs = np.asarray(embeddings, dtype=np.float64).reshape(n, dim)
    except (TypeError, ValueError):
        raise InvalidInput("embeddings", f"must be {n} vectors of size {dim}") from None
    if not np.all(np.isfinite(vecs)):
        raise InvalidInput("embeddings", "contains NaN or infinite values")
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise InvalidInput("embeddings", "contains an all-zero vector")
    return vecs / norms  # cosine relevance needs unit vectors
