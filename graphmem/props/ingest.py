"""Storing propositions: validate the whole input, embed, relate, then one write per batch.

Ids are deterministic, so propositions already stored are skipped: not re-embedded, not
re-classified, and no edge is duplicated. New propositions are processed in date order (then
input order) in batches; each batch is one statement (documents, propositions, STATES edges,
relation edges) and lands whole or not at all, then enters the vector index. If a batch fails
(say the LLM classifier gives up), the batches before it stay stored and re-sending the same
input completes the rest. If the index add fails after the graph write, re-sending skips those
propositions as stored, but the index marks itself stale and the next search fetches them from
the graph (graphmem/vectors/); after a crash in between, the next open does.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextvars import copy_context
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem import deadline, embcodec, metrics
from graphmem.errors import InvalidInput
from graphmem.props.memory import PropsMemory
from graphmem.props.model import Proposition, make_proposition, searched_text
from graphmem.props.relate import LABEL, judge, pairings, relation_rows
from graphmem.vectors import vector_id
from graphmem.vectors.deletion import new_epoch

BATCH = 256
AHEAD = 2  # batches the model embeds ahead of the one being related and written
LOOKUP_BATCH = 5000

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass(frozen=True)
class DocumentRow:
    """A Document node to store with the propositions it states."""

    id: str
    text: str
    date: str
    ts: int
    source: str | None


@dataclass(frozen=True)
class IngestReport:
    """What an ingestion call stored."""

    document_id: str | None
    proposition_ids: tuple[str, ...]  # every input proposition, input order, duplicates merged
    # counted by the write statements themselves, so two callers storing the same propositions
    # at once split them: one reports each as added, the other as existing
    added: int  # propositions this call stored
    existing: int  # propositions already stored, before or meanwhile by another writer (untouched)
    relations: int  # relation edges this call created


def validate_items(items: Any, doc_id: str | None = None) -> list[Proposition]:
    """Every item as a Proposition; the first bad one raises InvalidInput naming its field."""
    return [
        make_proposition(
            item.get("text"), item.get("date"), item.get("source"), doc_id, field, item.get("about")
        )
        for field, item in text_date_source(items, "propositions", about=True)
    ]


def text_date_source(
    items: Any, field: str, about: bool = False
) -> list[tuple[str, Mapping[str, Any]]]:
    """(field[i], item) of a list of {text, date, source?} objects (Propositions too; with
    `about`, propositions' {..., about?}); the first that is not one raises InvalidInput naming
    it. The values are not checked here."""
    keys = {"text", "date", "source", "about"} if about else {"text", "date", "source"}
    optional = "source?, about?" if about else "source?"
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Sequence):
        raise InvalidInput(field, f"must be a list of {{text, date, {optional}}} objects")
    out = []
    for i, item in enumerate(items):
        name = f"{field}[{i}]"
        if isinstance(item, Proposition):
            prop = item
            item = {"text": prop.text, "date": prop.date, "source": prop.source}
            if about:
                item["about"] = prop.about
        if not isinstance(item, Mapping):
            raise InvalidInput(name, f"must be an object with text, date and optional {optional}")
        unknown = set(item) - keys
        if unknown:
            raise InvalidInput(name, f"unknown keys {sorted(unknown)}")
        out.append((name, item))
    return out


def add_propositions(
    ctx: PropsMemory,
    items: Sequence[Mapping[str, Any]],
    *,
    relate: bool = True,
    progress: Progress | None = None,
    embeddings: np.ndarray | None = None,
    batch_size: int = BATCH,
) -> IngestReport:
    """Store already-extracted propositions [{text, date: 'YYYY-MM-DD', source?, about?}].

    `embeddings` (one row per item, from ctx.embedder's model) skips embedding, for bulk
    loads that embed elsewhere. `relate=False` stores without classifying relations.
    """
    props = validate_items(items)
    return store_propositions(ctx, props, (), relate, progress, embeddings, batch_size)


def store_propositions(
    ctx: PropsMemory,
    props: list[Proposition],
    docs: Sequence[DocumentRow] = (),
    relate: bool = True,
    progress: Progress | None = None,
    embeddings: np.ndarray | None = None,
    batch_size: int = BATCH,
) -> IngestReport:
    """Store validated propositions and the documents stating them (each proposition's
    doc_id names its document), batch by batch.

    A document and its STATES edges go with the batch that stores the last of its new
    propositions: a stored Document means all of them landed, so adding it again can stop at
    once (see extract.add_document), and a bulk load cut short resumes where it stopped.
    """
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise InvalidInput("batch_size", "must be a positive integer")
    vectors = _checked_embeddings(embeddings, len(props), ctx)
    first_seen: dict[str, int] = {}
    for i, prop in enumerate(props):
        first_seen.setdefault(prop.id, i)
    ids = list(first_seen)
    existing = stored_ids(ctx, ids)
    order = sorted(
        (i for pid, i in first_seen.items() if pid not in existing), key=lambda i: (props[i].ts, i)
    )
    backfill = newest_after(ctx, props[order[0]].ts) if relate and order else None
    position = {props[i].id: n for n, i in enumerate(order)}
    plan = _document_writes(docs, props, position, batch_size)
    added = relations = 0
    if not order and docs:  # every proposition is stored: the documents alone
        write_batch(ctx, *plan[0])
        metrics.count(metrics.DOCUMENTS, len(docs))
        if progress is not None:
            progress("documents", len(docs), len(docs))
    # Pipelining: a background worker writes batch i to the graph and then adds it to the
    # vector index while this thread relates batch i+1, and the model embeds batches ahead in
    # a thread of its own (see _embedded). At most one batch is in the writer's hands; its
    # failure surfaces before the next is submitted, so nothing later is written. Relating
    # waits for the writer, since its candidates come from the index.
    batches = [order[start : start + batch_size] for start in range(0, len(order), batch_size)]
    done = docs_done = 0
    # one batch (an API call's few propositions) has nothing to overlap: no threads for it
    with _writer(len(batches)) as worker:
        pending: Future | None = None

        def settle() -> None:
            nonlocal pending, done, docs_done, added, relations
            if pending is not None:
                stored = pending.result()  # re-raises what went wrong in the worker
                pending = None
                done += stored.rows
                docs_done += stored.documents
                added, relations = added + stored.created, relations + stored.relations
                metrics.count(metrics.PROPOSITIONS, stored.created)
                metrics.count(metrics.DOCUMENTS, stored.documents)
                if progress is not None:
                    progress("store", done, len(order))
                    if stored.documents:
                        progress("documents", docs_done, len(docs))

        for number, (chunk, vecs) in enumerate(
            zip(batches, _embedded(ctx, props, batches, vectors), strict=True)
        ):
            deadline.check("adding propositions")  # batches stored so far stay: see docs/limits.md
            batch = [props[i] for i in chunk]
            found = []
            if relate:
                settle()
                floor = getattr(ctx.classifier, "min_similarity", -1.0)
                todo = pairings(ctx, batch, vecs, backfill, floor)
                found = judge(ctx.classifier, todo, ctx.now())
            rows = prop_rows(batch, vecs)
            doc_rows, states = plan.get(number, ([], []))
            settle()
            # in this context: the worker's statements keep the operation's deadline
            pending = worker.submit(
                copy_context().run,
                _store_batch,
                ctx,
                doc_rows,
                rows,
                states,
                relation_rows(found),
                vecs,
            )
            ctx.recent.add(batch)  # candidates of later batches and calls, without a read
            if getattr(ctx.classifier, "wants_vectors", False):
                ctx.recent.add_vectors({p.id: vecs[j] for j, p in enumerate(batch)})
        settle()
    return IngestReport(None, tuple(ids), added, len(ids) - added, relations)


def _embedded(
    ctx: PropsMemory, props: list[Proposition], batches: list[list[int]], given: np.ndarray | None
) -> Iterator[np.ndarray]:
    """Each batch's vectors (float32, exactly what the graph holds), in batch order.

    Given vectors are sliced. Otherwise, when there are several batches, the model embeds up to
    AHEAD batches ahead in a thread of its own: it releases the GIL and keeps every core busy
    while the caller relates and the store worker writes, so a bulk load runs at nearly the
    model's own rate.
    """
    if given is not None:
        for chunk in batches:
            yield np.ascontiguousarray(given[chunk], dtype=np.float32)
        return
    if len(batches) == 1:  # nothing to embed ahead: here, without a thread
        vecs = ctx.embedder.encode([props[i].text for i in batches[0]])
        yield np.ascontiguousarray(vecs, dtype=np.float32)
        return
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="props-embed")
    try:
        ahead: deque[Future] = deque()
        for chunk in batches:
            ahead.append(pool.submit(ctx.embedder.encode, [props[i].text for i in chunk]))
            if len(ahead) > AHEAD:
                yield np.ascontiguousarray(ahead.popleft().result(), dtype=np.float32)
        while ahead:
            yield np.ascontiguousarray(ahead.popleft().result(), dtype=np.float32)
    finally:  # stopped early (an error, a time limit): drop what was not started
        pool.shutdown(wait=False, cancel_futures=True)


class _Here:
    """An executor that runs what it is given at once, in the caller's thread."""

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future:
        done: Future = Future()
        try:
            done.set_result(fn(*args))
        except BaseException as error:  # noqa: BLE001 - handed on as a worker's would be
            done.set_exception(error)
        return done

    def __enter__(self) -> _Here:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def _writer(batches: int) -> ThreadPoolExecutor | _Here:
    """Where batches are written: a thread of its own when there are several to overlap."""
    if batches <= 1:
        return _Here()
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="props-store")


def _document_writes(
    docs: Sequence[DocumentRow],
    props: list[Proposition],
    position: dict[str, int],
    batch_size: int,
) -> dict[int, tuple[list[dict[str, Any]], list[dict[str, str]]]]:
    """Batch number → (Document rows, STATES rows) written with it: each document with the
    batch holding the last of its new propositions (`position`: a new one's place in the
    storing order), with the first batch if it has none."""
    stated: dict[str, dict[str, None]] = defaultdict(dict)  # doc id → its proposition ids
    for prop in props:
        if prop.doc_id is not None:
            stated[prop.doc_id][prop.id] = None
    plan: dict[int, tuple[list[dict[str, Any]], list[dict[str, str]]]] = {}
    for doc in docs:
        pids = list(stated[doc.id])
        last = max((position[pid] // batch_size for pid in pids if pid in position), default=0)
        rows, states = plan.setdefault(last, ([], []))
        rows.append(_doc_row(doc))
        states += [{"doc": doc.id, "prop": pid} for pid in pids]
    return plan


@dataclass(frozen=True)
class _Stored:
    """What writing one batch did: rows sent, propositions and relation edges it created."""

    rows: int
    created: int
    relations: int
    documents: int


def _store_batch(
    ctx: PropsMemory, docs: list, rows: list, states: list, rels: list, vecs: np.ndarray
) -> _Stored:
    """Write one batch to the graph, then add what it created to the vector and keyword indexes.

    Propositions another writer stored first are left to it: their vectors in the graph are
    that writer's, and this index fetches them from the graph on its next refresh.
    """
    created, relations = write_batch(ctx, docs, states, rows, rels)
    mine = [i for i, row in enumerate(rows) if row["id"] in created]
    ids, vids, ts = ([rows[i][key] for i in mine] for key in ("id", "vid", "ts"))
    ctx.vectors.add(LABEL, ids, vids, ts, vecs[mine])
    searched = [searched_text(rows[i]["text"], rows[i]["about"]) for i in mine]
    ctx.keywords.add(LABEL, ids, vids, ts, searched)
    return _Stored(len(rows), len(mine), relations, len(docs))


def write_batch(
    ctx: PropsMemory,
    docs: list,
    states: list,
    props: list | None = None,
    rels: list | None = None,
    retire: list | None = None,
) -> tuple[set[str], int]:
    """Run one batch's statement; the ids of the propositions and the count of relation edges
    it created (not those another writer stored first)."""
    rows = ctx.store.write(
        "props.write_batch",
        docs=docs,
        props=props or [],
        states=states,
        rels=rels or [],
        retire=retire or [],
        now=ctx.now(),
        epoch=new_epoch(),  # names the Proposition vector clock if this write creates it
    )
    return set(rows[0]["created"]), int(rows[0]["relations"])


def stored_ids(ctx: PropsMemory, ids: list[str], lookup: str = "props.existing") -> set[str]:
    """Those of these ids that `lookup` (a statement taking $ids) finds: by default, the
    propositions stored."""
    found: set[str] = set()
    for start in range(0, len(ids), LOOKUP_BATCH):
        rows = ctx.store.read(lookup, ids=ids[start : start + LOOKUP_BATCH])
        found.update(row["id"] for row in rows)
    return found


def newest_after(ctx: PropsMemory, ts: int) -> int | None:
    """The newest stored date after `ts`, if any: new propositions before it need back-fill."""
    rows = ctx.store.read("props.newest_after", ts=ts)
    return rows[0]["ts"] if rows and rows[0]["ts"] is not None else None


def _checked_embeddings(embeddings: Any, n: int, ctx: PropsMemory) -> np.ndarray | None:
    if embeddings is None:
        return None
    try:
        arr = np.asarray(embeddings, dtype=np.float32)
    except (TypeError, ValueError):
        raise InvalidInput("embeddings", "must be a numeric matrix") from None
    if arr.shape != (n, ctx.vectors.dim):
        raise InvalidInput("embeddings", f"must have shape ({n}, {ctx.vectors.dim})")
    if not np.all(np.isfinite(arr)):
        raise InvalidInput("embeddings", "contains NaN or infinite values")
    return arr


def prop_rows(batch: list[Proposition], vecs: np.ndarray) -> list[dict[str, Any]]:
    """Rows for props.write_batch's $props."""
    return [
        {
            "id": p.id,
            "text": p.text,
            "date": p.date,
            "ts": p.ts,
            "source": p.source,
            "about": p.about,
            "vid": vector_id(p.id),
            "embedding": emb,
        }
        for p, emb in zip(batch, embcodec.encode(vecs), strict=True)
    ]


def _doc_row(doc: DocumentRow) -> dict[str, Any]:
    return {"id": doc.id, "text": doc.text, "date": doc.date, "ts": doc.ts, "source": doc.source}
