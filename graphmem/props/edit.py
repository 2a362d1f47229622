"""Correcting the propositions memory: deleting documents and propositions, editing one.

Deleting a document removes it with the propositions no other document states (a proposition
is one node however many documents state it), with their relation edges. Deleting a
proposition removes it with its relation edges, so those it updated or contradicted are current
again (a status is read from the edges); the documents stating it stay.

Editing a proposition's text or date makes it another statement, with another id: the new
text is embedded and related as ingestion would, then one statement stores it, hands it the
old one's documents and recall statistics, and deletes the old one with its edges. An edit
to a statement already stored merges into it. A change that keeps the id (case, spacing, a
final full stop, or only the source) is made in place: embedding and edges stand.

Each of these moves the Proposition vector clock in the statement that deletes, so every
process's vector index drops what was deleted at its next refresh; this process's at once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from graphmem.errors import InvalidInput, NotFound
from graphmem.props.ingest import newest_after, prop_rows, stored_ids, write_batch
from graphmem.props.memory import PropsMemory
from graphmem.props.model import (
    Proposition,
    checked_date,
    checked_source,
    checked_text,
    proposition_id,
)
from graphmem.props.relate import LABEL, Pairing, judge, pairings, relation_rows
from graphmem.strings import checked_id
from graphmem.vectors import vector_id
from graphmem.vectors.deletion import delete_nodes, new_epoch


@dataclass(frozen=True)
class DeletedDocument:
    """A deleted document and the propositions deleted with it (those only it stated)."""

    id: str
    proposition_ids: tuple[str, ...]


def delete_document(ctx: PropsMemory, doc_id: Any) -> DeletedDocument:
    """Delete a document with the propositions no other document states; NotFound if absent."""
    did = checked_id(doc_id)
    rows = ctx.store.write("props.delete_document", id=did, epoch=new_epoch())
    if not rows:
        raise NotFound(f"id: no document with id {did!r}")
    gone = rows[0]["gone"]
    _forget(ctx, [g["id"] for g in gone], [g["vid"] for g in gone])
    return DeletedDocument(did, tuple(sorted(g["id"] for g in gone)))


def delete_proposition(ctx: PropsMemory, prop_id: Any) -> Proposition:
    """Delete a proposition with its relation edges; what it was. NotFound if absent."""
    old = _stored(ctx, prop_id)
    rows = delete_nodes(ctx.vectors, LABEL, [old.id])  # drops it from this process's index
    _forget(ctx, [row["id"] for row in rows], [row["vid"] for row in rows])
    return old


def update_proposition(
    ctx: PropsMemory,
    prop_id: Any,
    text: Any = None,
    date: Any = None,
    source: Any = None,
    *,
    relate: bool = True,
) -> Proposition:
    """Correct a proposition's text, date or source (None: unchanged); the proposition as
    stored now, under its new id when the text or date changed it."""
    if text is None and date is None and source is None:
        raise InvalidInput("text", "nothing to change: give a text, a date or a source")
    old = _stored(ctx, prop_id)
    new = _edited(old, text, date, source)
    if new.id == old.id:
        if (new.text, new.source) != (old.text, old.source):
            ctx.store.write("props.set_wording", id=old.id, text=new.text, source=new.source)
            _forget(ctx, [old.id], [])
        return new
    vecs = np.ascontiguousarray(ctx.embedder.encode([new.text]), dtype=np.float32)
    merged = bool(stored_ids(ctx, [new.id]))  # the statement is stored already: merge into it
    found = [] if merged or not relate else _relations(ctx, new, vecs, old.id)
    retire = [{"old": old.id, "new": new.id, "epoch": new_epoch()}]
    rows = [] if merged else prop_rows([new], vecs)
    created, _ = write_batch(ctx, [], [], rows, relation_rows(found), retire)
    _forget(ctx, [old.id], [vector_id(old.id)])
    if new.id in created:
        ctx.vectors.add(LABEL, [new.id], [rows[0]["vid"]], [new.ts], vecs)
        ctx.keywords.add(LABEL, [new.id], [rows[0]["vid"]], [new.ts], [new.searched_text])
        return new
    return _stored(ctx, new.id)  # merged: as the other writer stored it


def _stored(ctx: PropsMemory, prop_id: Any) -> Proposition:
    pid = checked_id(prop_id)
    rows = ctx.store.read("props.fetch", ids=[pid])
    if not rows:
        raise NotFound(f"id: no proposition with id {pid!r}")
    return Proposition.from_row(rows[0])


def _edited(old: Proposition, text: Any, date: Any, source: Any) -> Proposition:
    """`old` with the changes given (None: unchanged), checked; its id follows text and date."""
    clean = old.text if text is None else checked_text(text, "text")
    day, ts = (old.date, old.ts) if date is None else checked_date(date, "date")
    src = old.source if source is None else checked_source(source, "source")
    return replace(old, id=proposition_id(clean, day), text=clean, date=day, ts=ts, source=src)


def _relations(ctx: PropsMemory, new: Proposition, vecs: np.ndarray, old_id: str) -> list:
    """The relation edges of the edited proposition, judged as ingestion would, never with
    the proposition it replaces."""
    floor = getattr(ctx.classifier, "min_similarity", -1.0)
    todo = pairings(ctx, [new], vecs, newest_after(ctx, new.ts), floor)
    kept = []
    for pairing in todo:
        if pairing.newer.id == old_id:
            continue
        candidates = tuple(c for c in pairing.candidates if c.prop.id != old_id)
        if candidates:
            kept.append(Pairing(pairing.newer, candidates))
    return judge(ctx.classifier, kept, ctx.now())


def _forget(ctx: PropsMemory, ids: list[str], vids: list[int]) -> None:
    """Drop deleted propositions from this process's vector and keyword indexes (those gone
    from one already are skipped) and recent cache."""
    if vids:
        ctx.vectors.remove(LABEL, vids)
        ctx.keywords.remove(LABEL, vids)
    ctx.recent.forget(ids)
