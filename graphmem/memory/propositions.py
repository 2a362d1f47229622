"""`Memory.propositions`: dated statements, the relations between them, retrieval as of a date."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphmem import props
from graphmem.memory.part import Part, When, checked_flag
from graphmem.props import (
    DeletedDocument,
    DocumentsReport,
    IngestReport,
    Proposition,
    PropsMemory,
    RefineReport,
    Relation,
    Subgraph,
)
from graphmem.props.ingest import Progress
from graphmem.props.retrieve import anchor_ranker


class Propositions(Part):
    """Timestamped statements linked newer → older by UPDATES, CONTRADICTS and SUPPORTS.

    Extraction and relation labels use the configured LLM (OPENAI_BASE_URL); without one,
    documents are split into sentences and relations come from the offline classifier.
    Dates are 'YYYY-MM-DD'.
    """

    def add_document(
        self,
        text: str,
        date: str,
        source: str | None = None,
        *,
        relate: bool = True,
        progress: Progress | None = None,
    ) -> IngestReport:
        """Store a document and the propositions it states; the same document again is a
        no-op. `relate=False` stores them without relating them to earlier ones."""
        relate = checked_flag(relate, "relate")
        return props.add_document(
            self._props(), text, date, source, relate=relate, progress=progress
        )

    def add(
        self,
        propositions: Sequence[Mapping[str, Any]],
        *,
        relate: bool = True,
        progress: Progress | None = None,
    ) -> IngestReport:
        """Store already-extracted propositions, each {text, date, source?}; stored ones are
        counted as existing."""
        relate = checked_flag(relate, "relate")
        return props.add_propositions(self._props(), propositions, relate=relate, progress=progress)

    def add_documents(
        self,
        documents: Sequence[Mapping[str, Any]],
        *,
        relate: bool = True,
        progress: Progress | None = None,
    ) -> DocumentsReport:
        """Store many documents, each {text, date, source?}, in one go; those stored already
        are skipped, so running it again after an interruption resumes."""
        relate = checked_flag(relate, "relate")
        return self._props().ingest_documents(documents, relate=relate, progress=progress)

    def update(
        self,
        proposition_id: str,
        text: str | None = None,
        date: str | None = None,
        source: str | None = None,
    ) -> Proposition:
        """Correct a proposition (None: unchanged); a new text or date makes it another
        statement, re-embedded and re-related, returned under its new id."""
        return self._props().update_proposition(proposition_id, text, date, source)

    def delete(self, proposition_id: str) -> Proposition:
        """Delete a proposition with its relation edges; what it was."""
        return self._props().delete_proposition(proposition_id)

    def delete_document(self, document_id: str) -> DeletedDocument:
        """Delete a document with the propositions no other document states."""
        return self._props().delete_document(document_id)

    def subgraph(
        self,
        question: str,
        as_of: str | None = None,
        k: int = 10,
        *,
        expand: bool = True,
        refine: bool = False,
        rank_by: str = "similarity",
        now: When | None = None,
    ) -> Subgraph:
        """The k anchors for `question` among propositions dated <= as_of, the neighbours
        related to them, and each one's status as of that date.

        `rank_by="recall"` picks anchors by recall probability at `now` (default: as_of);
        `refine=True` re-judges the returned edges with the strong LLM model first.
        """
        expand, refine = checked_flag(expand, "expand"), checked_flag(refine, "refine")
        memory = self._props()
        ranker = anchor_ranker(memory, rank_by, now, as_of)
        return props.subgraph(memory, question, as_of, k, expand, refine, ranker)

    def context(
        self,
        question: str,
        as_of: str | None = None,
        k: int = 10,
        *,
        max_tokens: int | None = None,
        expand: bool = True,
        rank_by: str = "similarity",
        now: When | None = None,
    ) -> str:
        """The subgraph for `question`, rendered as prompt text within `max_tokens` (the
        least relevant neighbours are dropped first; a proposition is never cut)."""
        graph = self.subgraph(question, as_of, k, expand=expand, rank_by=rank_by, now=now)
        return props.render(graph, max_tokens)

    def get(self, ids: Sequence[str]) -> list[Proposition]:
        """Stored propositions by id, in the order asked; unknown ids are left out."""
        return props.get_propositions(self._props(), ids)

    def relations(self, offset: int = 0, limit: int = 1000) -> list[Relation]:
        """Relation edges ordered by id, a page at a time."""
        return props.list_relations(self._props(), offset, limit)

    def counts(self) -> dict[str, int]:
        """How many propositions, documents, STATES edges and relation edges are stored."""
        return props.counts(self._props())

    def refine(self, edge_ids: Sequence[str], *, force: bool = False) -> RefineReport:
        """Re-judge relation edges with GRAPHMEM_LLM_STRONG_MODEL (needs an LLM)."""
        return props.refine(self._props(), edge_ids, force=checked_flag(force, "force"))

    def _props(self) -> PropsMemory:
        return self._services().props()
