"""Deleting embedded nodes from the graph and from every process's vector index."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from graphmem.cypher import statement
from graphmem.kinds import kind_of, labels
from graphmem.vectors.store import VectorStore

# kinds never re-embedded: their nodes are written once, and deleted (cypher/vectors.cypher)
DELETABLE = tuple(label for label in labels("vectors") if not kind_of(label).reembedded)
_DELETE = {label: statement(f"vectors.delete_{kind_of(label).key}").name for label in DELETABLE}


def new_epoch() -> str:
    """Names a label's vector clock if the write that moves it creates it."""
    return uuid.uuid4().hex


def delete_nodes(vectors: VectorStore, label: str, ids: Sequence[str]) -> list[dict[str, Any]]:
    """Delete these `label` nodes with their edges; the rows (id, vid, text, date, ts, source)
    of those that were stored.

    One statement deletes them and moves the label's vector clock, so every other process's
    index drops them at its next refresh; this process's index drops them at once.
    """
    rows = vectors.store.write(_DELETE[label], ids=list(ids), epoch=new_epoch())
    vectors.remove(label, [int(row["vid"]) for row in rows if row["vid"] is not None])
    return rows
