"""Bulk import of documents: many in one call, resumable.

Every document is checked before anything is stored, and documents already stored completely
are skipped without extraction (one read for all of them). The rest are extracted (the LLM, or
sentence splitting offline) and stored in groups of about GROUP propositions: each group goes
through store_propositions, which embeds, relates and writes it in batches, a document landing
with the batch that stores the last of its new propositions. So a load cut short (an error,
a time limit, Ctrl-C) leaves whole documents stored, and running it again skips them and
carries on from the first document missing. A stored document with the source and date of a
new one but other text (an edited page sent again) is reported as an earlier version, and
deleted after the new ones are stored when the caller asks to replace them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.errors import NotFound
from graphmem.props.edit import delete_document
from graphmem.props.extract import checked_document, extracted
from graphmem.props.ingest import (
    DocumentRow,
    Progress,
    store_propositions,
    stored_ids,
    text_date_source,
)
from graphmem.props.memory import PropsMemory
from graphmem.props.model import Proposition

GROUP = 8192  # propositions extracted before they are stored: bounds memory, not speed
# propositions per write: larger than a single call's (ingest.BATCH), so fewer statements and
# FAISS searches (bench/bench_bulk.py)
BATCH = 1024
VERSION_OVERLAP = 0.5  # shared words of an earlier version and the new one (Jaccard)


@dataclass(frozen=True)
class DocumentsReport:
    """What a bulk import stored."""

    document_ids: tuple[str, ...]  # every input document, input order, duplicates merged
    skipped: int  # documents already stored completely: not extracted again
    added: int  # propositions this call stored
    existing: int  # propositions of the documents already stored (by another document too)
    relations: int  # relation edges this call created
    # stored documents with the source and date of one of these but other text (earlier
    # versions), and how many of them were deleted (replace=True)
    earlier_versions: tuple[str, ...] = ()
    replaced: int = 0


def add_documents(
    ctx: PropsMemory,
    documents: Sequence[Mapping[str, Any]],
    *,
    relate: bool = True,
    progress: Progress | None = None,
    batch_size: int = BATCH,
    replace: bool = False,
) -> DocumentsReport:
    """Store documents [{text, date: 'YYYY-MM-DD', source?}] and the propositions they state.

    `progress(stage, done, total)` hears "documents" (stored, skipped included, of all) and
    "store" (new propositions stored, of those extracted so far). A stored document with the
    source and date of one of these but other text is an earlier version: reported, and with
    `replace` deleted (with the propositions only it states) once the new ones are stored.
    """
    docs = checked_documents(documents)
    where: dict[str, int] = {}  # document id → its first index in the input, for error messages
    for i, doc in enumerate(docs):
        where.setdefault(doc.id, i)
    unique = [docs[i] for i in where.values()]
    earlier = _earlier_versions(ctx, unique)
    stored = stored_ids(ctx, list(where), "props.complete_documents")
    todo = [doc for doc in unique if doc.id not in stored]
    total, before = len(unique), len(unique) - len(todo)
    if progress is not None:
        progress("documents", before, total)
    added = relations = 0
    seen: set[str] = set()
    for group, props in _groups(ctx, todo, where):
        counted = _counted_after(progress, before, total, added)
        report = store_propositions(ctx, props, group, relate, counted, None, batch_size)
        before += len(group)
        added, relations = added + report.added, relations + report.relations
        seen.update(report.proposition_ids)
    replaced = sum(_deleted(ctx, doc_id) for doc_id in earlier) if replace else 0
    return DocumentsReport(
        tuple(where), total - len(todo), added, len(seen) - added, relations, earlier, replaced
    )


def _earlier_versions(ctx: PropsMemory, docs: list[DocumentRow]) -> tuple[str, ...]:
    """Stored documents with the source and date of one of `docs` and mostly its wording
    (VERSION_OVERLAP of their words), other text: an edited page or message sent again, not
    another article of the same newspaper that day. Never one of `docs` (a call may hold two
    versions, and be sent again to resume)."""
    ids = {doc.id for doc in docs}
    text = {doc.id: doc.text for doc in docs}
    keyed = [{"id": d.id, "source": d.source, "date": d.date} for d in docs if d.source]
    rows = ctx.store.read("props.other_versions", docs=keyed) if keyed else []
    return tuple(
        sorted(
            {row["earlier"] for row in rows if _overlap(text[row["id"]], row["text"] or "")} - ids
        )
    )


def _overlap(new: str, old: str) -> bool:
    """Whether two texts share most of their words (Jaccard of their word sets)."""
    a, b = set(new.casefold().split()), set(old.casefold().split())
    return bool(a | b) and len(a & b) / len(a | b) >= VERSION_OVERLAP


def _deleted(ctx: PropsMemory, doc_id: str) -> bool:
    """Delete a document; False when another writer deleted it first."""
    try:
        delete_document(ctx, doc_id)
    except NotFound:
        return False
    return True


def checked_documents(documents: Any, field: str = "documents") -> list[DocumentRow]:
    """Every document checked; the first bad one raises InvalidInput naming it."""
    return [
        checked_document(item.get("text"), item.get("date"), item.get("source"), name)
        for name, item in text_date_source(documents, field)
    ]


def _groups(
    ctx: PropsMemory, docs: list[DocumentRow], where: dict[str, int]
) -> Iterator[tuple[list[DocumentRow], list[Proposition]]]:
    """The documents in groups of about GROUP propositions, each with its propositions."""
    group: list[DocumentRow] = []
    props: list[Proposition] = []
    for doc in docs:
        group.append(doc)
        props += extracted(ctx, doc, field=f"documents[{where[doc.id]}].text")
        if len(props) >= GROUP:
            yield group, props
            group, props = [], []
    if group:
        yield group, props


def _counted_after(
    progress: Progress | None, docs_before: int, docs_total: int, props_before: int
) -> Progress | None:
    """store_propositions' progress for one group, counted after the groups before it."""
    if progress is None:
        return None

    def report(stage: str, done: int, total: int) -> None:
        if stage == "documents":
            progress(stage, docs_before + done, docs_total)
        else:
            progress(stage, props_before + done, props_before + total)

    return report
