"""Re-embedding a space's stored vectors with the configured embedder, and the record of which
embedder made them (docs/embeddings.md, "Changing the model or precision").

Every embedded node keeps its vector in the graph, and the vector indexes are rebuilt from
those: a change of model or precision would otherwise leave old nodes with the old embedder's
vectors and give new ones the new embedder's. Each label's vector clock records the embedder
that made its vectors (`model`); `check_embedder` warns, when the indexes open, if that is not
the configured one; `reembed` re-embeds every node's text batch by batch (resumable: see
cypher/reembed.cypher), records the new embedder and rebuilds the indexes.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from graphmem import embcodec
from graphmem.cypher import statement
from graphmem.embed import Embedder
from graphmem.errors import InvalidInput
from graphmem.kinds import kind_of
from graphmem.store import Store
from graphmem.vectors.persist import saved_model
from graphmem.vectors.store import LABELS, VectorStore

log = logging.getLogger(__name__)

BATCH = 256  # nodes per embedding call and per write statement
MAX_BATCH = 10_000  # one write's rows: bounds a statement's size
COMMAND = "graphmem reembed"

# statement names per embedded kind (graphmem/kinds.py), resolved at import
_PENDING, _TEXTS, _WRITE = (
    {label: statement(f"reembed.{what}_{kind_of(label).key}").name for label in LABELS}
    for what in ("pending", "texts", "write")
)
_COUNT = {label: statement(f"vectors.count_{kind_of(label).key}").name for label in LABELS}

Progress = Callable[[str, int, int], object]  # (label, nodes done, nodes to do)


@dataclass(frozen=True)
class Recorded:
    """What a label's vector clock records: the embedder of its vectors, an unfinished run."""

    label: str
    model: str | None  # None: not recorded (no clock yet, or written before the record)
    reembedding: str | None  # the embedder of a run not finished, if any


@dataclass(frozen=True)
class Reembedded:
    """What `reembed` did to one label of a space."""

    space: str
    label: str
    model: str  # the embedder asked for
    previous: str | None  # the embedder recorded before the run
    reembedded: int  # nodes given a new vector by this run
    changed: int  # nodes whose text changed while being re-embedded: left for the next run
    indexed: int  # items in the rebuilt vector index
    up_to_date: bool = False  # skipped: recorded as the embedder's already, no run unfinished

    @property
    def done(self) -> bool:
        """Whether every vector of the label is now the embedder's."""
        return self.changed == 0


def recorded(store: Store) -> dict[str, Recorded]:
    """What the vector clocks of the store's space record, by label."""
    rows = store.read("reembed.models")
    return {
        r["label"]: Recorded(r["label"], r["model"], r["reembedding"])
        for r in rows
        if r["label"] in LABELS
    }


def check_embedder(store: Store, vectors: VectorStore) -> list[str]:
    """Record the embedder of labels recording none; warn about labels whose stored vectors
    another embedder made (or a re-embedding left unfinished). Returns those labels.

    One small read when every label holding vectors records the configured embedder (the
    usual case), plus a count per label holding none.
    """
    name, found = vectors.embedder_name, record_unrecorded(store, vectors)
    stale = [r for r in found.values() if r.model != name or r.reembedding is not None]
    stale = [r for r in stale if not _adopted_if_empty(store, r, name)]
    if stale:
        log.warning("%s", mismatch_message(store.space, name, stale))
    return [r.label for r in stale]


def record_unrecorded(store: Store, vectors: VectorStore) -> dict[str, Recorded]:
    """Record the embedder of the labels holding vectors and recording none; what the vector
    clocks record now, by label.

    A saved index says which model it was built for: the best witness of vectors written before
    the record was kept (or before the space was opened with vectors in it); without one, the
    configured embedder. A label holding no vectors yet records nothing, so opening a new space
    writes nothing.
    """
    found = recorded(store)
    unknown = [
        label
        for label in LABELS
        if (label not in found or found[label].model is None) and _holds_vectors(store, label)
    ]
    if not unknown:
        return found
    rows = [
        {"label": label, "model": saved_model(vectors.directory, label) or vectors.embedder_name}
        for label in unknown
    ]
    store.write("reembed.adopt", rows=rows, epoch=uuid.uuid4().hex)
    return recorded(store)


def _holds_vectors(store: Store, label: str) -> bool:
    rows = store.read(_COUNT[label])
    return bool(rows) and int(rows[0]["n"]) > 0


def _adopted_if_empty(store: Store, found: Recorded, name: str) -> bool:
    """A label holding no vectors is the configured embedder's: recorded so, True."""
    if found.reembedding is not None or _holds_vectors(store, found.label):
        return False
    store.write("reembed.set_model", label=found.label, model=name)
    return True


def mismatch_message(space: str, name: str, stale: Sequence[Recorded]) -> str:
    """The warning for labels whose stored vectors are not (all) the configured embedder's."""
    parts = []
    for r in stale:
        made = f"were made by the embedder {r.model!r}"
        if r.reembedding is not None:
            made += f" (a re-embedding with {r.reembedding!r} was not finished)"
        parts.append(f"{r.label} vectors {made}")
    return (
        f"space {space!r}: the stored {'; '.join(parts)}; the configured embedder is {name!r}: "
        f"similarities between old and new vectors mean little until you run "
        f"`{COMMAND} --space {space}`"
    )


def reembed(
    store: Store,
    embedder: Embedder,
    vectors: VectorStore,
    labels: Sequence[str] | None = None,
    batch: int = BATCH,
    force: bool = False,
    progress: Progress | None = None,
) -> list[Reembedded]:
    """Re-embed every stored vector of `labels` (None: every embedded label) in the store's
    space with `embedder`, `batch` nodes per statement; then rebuild their vector indexes.

    A label whose clock records `embedder` already, with no run left unfinished, is skipped
    unless `force`. Interrupted, it loses nothing: running it again goes on where it stopped.
    `progress(label, done, total)` hears each batch.
    """
    chosen = checked_labels(labels)
    batch = checked_batch(batch)
    if vectors.embedder_name != embedder.name:
        raise InvalidInput(
            "vectors",
            f"are keyed for the model {vectors.embedder_name!r}, not {embedder.name!r}",
        )
    found = record_unrecorded(store, vectors)
    reports = []
    for label in chosen:
        had = found.get(label, Recorded(label, None, None))
        if had.model == embedder.name and had.reembedding is None and not force:
            reports.append(
                Reembedded(store.space, label, embedder.name, had.model, 0, 0, 0, up_to_date=True)
            )
            continue
        reports.append(_label(store, embedder, vectors, label, had.model, batch, progress))
    return reports


def checked_labels(labels: Sequence[str] | None) -> tuple[str, ...]:
    """The embedded labels asked for, each once; InvalidInput naming `labels` otherwise."""
    if labels is None:
        return LABELS
    if isinstance(labels, str) or not isinstance(labels, Sequence) or not labels:
        raise InvalidInput("labels", f"must be a non-empty list of {', '.join(LABELS)}")
    for label in labels:
        if label not in LABELS:
            raise InvalidInput("labels", f"{label!r} is not one of {', '.join(LABELS)}")
    return tuple(dict.fromkeys(labels))


def checked_batch(batch: object) -> int:
    """`batch` if it is an integer from 1 to MAX_BATCH; InvalidInput naming `batch` otherwise."""
    if not isinstance(batch, int) or isinstance(batch, bool) or not 1 <= batch <= MAX_BATCH:
        raise InvalidInput("batch", f"must be an integer from 1 to {MAX_BATCH:,}, not {batch!r}")
    return batch


def _label(
    store: Store,
    embedder: Embedder,
    vectors: VectorStore,
    label: str,
    previous: str | None,
    batch: int,
    progress: Progress | None,
) -> Reembedded:
    """Re-embed one label's pending nodes, then record the embedder and rebuild the index."""
    fresh = uuid.uuid4().hex  # the run's id unless one is resumed; names a clock it creates
    [row] = store.write("reembed.start", label=label, model=embedder.name, run=fresh, epoch=fresh)
    run = row["run"]
    attempted: set[str] = set()
    done = changed = 0
    # nodes written meanwhile (by a process still on the old embedder) are pending too: look
    # again until a pass finds none this run has not tried
    while todo := [i for i in _pending(store, label, run) if i not in attempted]:
        total = len(attempted) + len(todo)
        for start in range(0, len(todo), batch):
            ids = todo[start : start + batch]
            found, wrote = _batch(store, embedder, label, ids, run, fresh)
            attempted.update(ids)
            done, changed = done + wrote, changed + found - wrote
            if progress is not None:
                progress(label, len(attempted), total)
    if changed == 0:
        store.write("reembed.finish", label=label, run=run)
    indexed = vectors.rebuild(label)
    return Reembedded(store.space, label, embedder.name, previous, done, changed, indexed)


def _pending(store: Store, label: str, run: str) -> list[str]:
    """Ids of the `label` nodes holding a vector `run` has not made."""
    return [r["id"] for r in store.read(_PENDING[label], run=run)]


def _batch(
    store: Store, embedder: Embedder, label: str, ids: list[str], run: str, epoch: str
) -> tuple[int, int]:
    """Embed these nodes' texts and write the vectors in one statement; (nodes still there,
    nodes that took their new vector)."""
    rows = store.read(_TEXTS[label], ids=ids)
    if not rows:  # deleted meanwhile
        return 0, 0
    vecs = embedder.encode([r["text"] for r in rows])
    payload = [
        {"id": r["id"], "text": r["text"], "embedding": e}
        for r, e in zip(rows, embcodec.encode(vecs), strict=True)
    ]
    written = store.write_batch(_WRITE[label], payload, run=run, epoch=epoch)
    return len(rows), int(written[0]["n"]) if written else 0
