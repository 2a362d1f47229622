"""GraphQL: propositions (ingestion, listing) and dated subgraphs with rendered context."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Annotated

import strawberry

from api.common import (
    LIMIT,
    MOST,
    Direction,
    Limit,
    Offset,
    Page,
    PropositionStatus,
    RankBy,
    RelationKind,
    day,
    epoch,
)
from api.context import Info
from api.derive import derived
from api.errors import request_names
from graphmem import props
from graphmem.errors import InvalidInput
from graphmem.props import bulk, listing
from graphmem.props.model import checked_date
from graphmem.props.retrieve import INCOMING, anchor_ranker
from graphmem.series.catalog import checked_page
from graphmem.strings import MAX_QUERY, MAX_SOURCE, checked_str

DateArg = Annotated[dt.date, strawberry.argument(description="The date it is dated to")]
PropId = Annotated[strawberry.ID, strawberry.argument(description="The proposition's id")]


if TYPE_CHECKING:  # resolvers return the library's objects; the schema reads the derived types
    from graphmem.props import DeletedDocument, IngestReport, Proposition, Relation
    from graphmem.props.bulk import DocumentsReport
else:
    Proposition = derived(
        props.Proposition,
        "A dated statement, stored once however many documents state it",
        {
            "id": "Its id (from its wording and date)",
            "text": "The statement",
            "date": "The date it holds from",
            "source": "Where it came from, if given",
            "about": "The headings it sits under in its document (title, subject, section) "
            "that its text does not repeat, if any",
        },
        types={"id": strawberry.ID, "date": dt.date},
        # the date as epoch seconds; the stating document and its part, while ingesting
        hidden=("ts", "doc_id", "part"),
    )
    IngestReport = derived(
        props.IngestReport,
        "What an ingestion stored",
        {
            "document_id": "The document stored (ingestDocument), else null",
            "proposition_ids": "The propositions stated, in input order",
            "added": "Propositions stored by this call",
            "existing": "Already stored before: left untouched",
            "relations": "Relation edges created",
        },
        name="IngestResult",
        types={"document_id": strawberry.ID | None, "proposition_ids": list[strawberry.ID]},
    )


@strawberry.type(description="A proposition in a subgraph, with its status as of the date")
class SubgraphNode:
    id: strawberry.ID = strawberry.field(description="The proposition's id")
    text: str = strawberry.field(description="The statement")
    date: dt.date = strawberry.field(description="The date it holds from")
    source: str | None = strawberry.field(description="Where it came from, if given")
    about: str | None = strawberry.field(
        description="The headings it sits under in its document that its text does not repeat"
    )
    is_anchor: bool = strawberry.field(description="Found by the search (else a neighbour)")
    score: float | None = strawberry.field(description="Cosine similarity to the question")
    status: PropositionStatus = strawberry.field(description="Whether it stands as of the date")
    updated_by: list[strawberry.ID] = strawberry.field(
        description="The propositions that update it (those that count as of the date; at most"
        f" {INCOMING} besides those in the subgraph)"
    )
    updated_by_count: int = strawberry.field(
        description="How many propositions update it and count (updatedBy may list fewer;"
        " docs/retrieval.md says when this count is short)"
    )
    contradicted_by: list[strawberry.ID] = strawberry.field(
        description="The propositions that contradict it (those that count as of the date; at"
        f" most {INCOMING} besides those in the subgraph)"
    )
    contradicted_by_count: int = strawberry.field(
        description="How many propositions contradict it and count (contradictedBy may list"
        " fewer; docs/retrieval.md says when this count is short)"
    )


if not TYPE_CHECKING:
    Relation = derived(
        props.Relation,
        "A relation edge from a newer proposition to an older one",
        {
            "id": "The edge's id",
            "src": "The newer proposition",
            "dst": "The older proposition",
            "kind": "How src relates to dst",
            "confidence": "The classifier's confidence (0 to 1)",
            "model": "The model that judged it",
            "refined": "Judged again by the LLM",
        },
        types={
            "id": strawberry.ID,
            "src": strawberry.ID,
            "dst": strawberry.ID,
            "kind": RelationKind,
        },
        hidden=("created_at",),  # when the edge was stored: not part of the API
    )


@strawberry.type(description="Anchors, their neighbours and the relations among them")
class Subgraph:
    question: str = strawberry.field(description="The question asked")
    as_of: dt.date | None = strawberry.field(description="The date it holds as of (null: today)")
    nodes: list[SubgraphNode] = strawberry.field(description="Propositions, oldest first")
    edges: list[Relation] = strawberry.field(description="Relations among the nodes")
    graph: strawberry.Private[props.Subgraph]

    @strawberry.field(description="The subgraph rendered as prompt context, within a budget")
    def context(
        self,
        max_tokens: Annotated[
            int | None, strawberry.argument(description="The most tokens (default: no limit)")
        ] = None,
    ) -> str:
        if max_tokens is not None and max_tokens < 1:
            raise InvalidInput("maxTokens", "must be at least 1")
        return props.render(self.graph, max_tokens)


@strawberry.input(description="A proposition already extracted")
class PropositionInput:
    text: str = strawberry.field(description="The statement")
    date: dt.date = strawberry.field(description="The date it holds from")
    source: str | None = strawberry.field(default=None, description="Where it came from")
    about: str | None = strawberry.field(
        default=None,
        description="The headings it sits under in its document (title, subject, section), "
        "searched with its text and shown with it",
    )


@strawberry.input(description="A document to extract propositions from")
class DocumentInput:
    text: str = strawberry.field(description="The document's text")
    date: dt.date = strawberry.field(description="The date it is dated to")
    source: str | None = strawberry.field(default=None, description="Where it came from")


if not TYPE_CHECKING:
    DocumentsReport = derived(
        bulk.DocumentsReport,
        "What an ingestDocuments call stored",
        {
            "document_ids": "Input order, each document once",
            "skipped": "Documents already stored: left untouched",
            "added": "Propositions stored by this call",
            "existing": "Their propositions already stored before",
            "relations": "Relation edges created",
            "earlier_versions": "Stored documents with the source and date of one of these "
            "but other text (earlier versions): deleted when replace is true, else current",
            "replaced": "Earlier versions deleted",
        },
        name="IngestDocumentsResult",
        types={"document_ids": list[strawberry.ID], "earlier_versions": list[strawberry.ID]},
    )
    DeletedDocument = derived(
        props.DeletedDocument,
        "A deleted document",
        {
            "id": "The document's id",
            "proposition_ids": "The propositions deleted with it: those no other document states",
        },
        types={"id": strawberry.ID, "proposition_ids": list[strawberry.ID]},
    )


@strawberry.input(description="Which propositions to list (all conditions must hold)")
class PropositionFilter:
    source: str | None = strawberry.field(default=None, description="Exactly this source")
    start: dt.date | None = strawberry.field(default=None, description="Dated on or after this")
    end: dt.date | None = strawberry.field(default=None, description="Dated on or before this")
    contains: str | None = strawberry.field(default=None, description="text contains (any case)")


def _date(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def _subgraph(graph: props.Subgraph, as_of: dt.date | None) -> Subgraph:
    nodes = [
        SubgraphNode(
            id=strawberry.ID(n.prop.id),
            text=n.prop.text,
            date=_date(n.prop.date),
            source=n.prop.source,
            about=n.prop.about,
            is_anchor=n.is_anchor,
            score=n.score,
            status=PropositionStatus(n.status.state),
            updated_by=[strawberry.ID(i) for i in n.status.updated_by],
            updated_by_count=n.status.updated_count,
            contradicted_by=[strawberry.ID(i) for i in n.status.contradicted_by],
            contradicted_by_count=n.status.contradicted_count,
        )
        for n in graph.nodes
    ]
    edges = list(graph.edges)
    return Subgraph(question=graph.question, as_of=as_of, nodes=nodes, edges=edges, graph=graph)


def propositions(
    info: Info,
    filter: Annotated[  # noqa: A002 - GraphQL name
        PropositionFilter | None, strawberry.argument(description="Which ones (default: all)")
    ] = None,
    limit: Limit = LIMIT,
    offset: Offset = 0,
) -> Page[Proposition]:
    f = filter or PropositionFilter()
    checked_page(limit, offset, MOST)
    source = None if f.source is None else checked_str(f.source, "filter.source", MAX_SOURCE)
    contains = None if f.contains is None else checked_str(f.contains, "filter.contains", MAX_QUERY)
    where = listing.PropositionFilter(
        source, _ts(f.start, "filter.start"), _ts(f.end, "filter.end"), contains
    )
    found = listing.list_propositions(info.context.store, where, limit, offset)
    return Page(items=list(found.items), total=found.total, limit=limit, offset=offset)


def _ts(day: dt.date | None, field: str) -> int | None:
    """A Date argument as the epoch seconds propositions are dated by."""
    return None if day is None else checked_date(day, field)[1]


def relations(
    info: Info,
    proposition_id: PropId,
    as_of: Annotated[
        dt.date | None,
        strawberry.argument(description="Only relations from propositions dated by then"),
    ] = None,
    direction: Annotated[
        Direction, strawberry.argument(description="Incoming, outgoing or both")
    ] = Direction.BOTH,
    limit: Limit = LIMIT,
    offset: Offset = 0,
) -> Page[Relation]:
    checked_page(limit, offset, MOST)
    found = listing.relations_of(
        info.context.store,
        str(proposition_id),
        _ts(as_of, "asOf"),
        str(direction.value),
        limit,
        offset,
    )
    return Page(items=list(found.items), total=found.total, limit=limit, offset=offset)


def subgraph(
    info: Info,
    question: Annotated[str, strawberry.argument(description="What to find propositions for")],
    as_of: Annotated[
        dt.date | None, strawberry.argument(description="Statuses as of this date (default: today)")
    ] = None,
    k: Annotated[int, strawberry.argument(description="How many anchors to find")] = 10,
    expand: Annotated[
        bool, strawberry.argument(description="Add the anchors' related propositions")
    ] = True,
    refine: Annotated[
        bool, strawberry.argument(description="Have the LLM judge the relations again first")
    ] = False,
    rank_by: Annotated[
        RankBy, strawberry.argument(description="How anchors are chosen")
    ] = RankBy.SIMILARITY,
    now: Annotated[
        dt.datetime | None,
        strawberry.argument(description="For rankBy RECALL (default: asOf or now)"),
    ] = None,
) -> Subgraph:
    ctx = info.context.services.props()
    ranker = anchor_ranker(ctx, str(rank_by.value), epoch(now), day(as_of), ("rankBy", "now"))
    with request_names():
        graph = props.subgraph(ctx, question, day(as_of), k, expand, refine, ranker)
    return _subgraph(graph, as_of)


@strawberry.type
class PropsQuery:
    propositions: Page[Proposition] = strawberry.field(
        resolver=propositions, description="Propositions in date order"
    )
    relations: Page[Relation] = strawberry.field(
        resolver=relations,
        description="A proposition's relations, newest source first (as of a date if given)",
    )
    subgraph: Subgraph = strawberry.field(
        resolver=subgraph, description="Anchors, neighbours and relations as of a date"
    )


Text = Annotated[str, strawberry.argument(description="The document's text")]
Source = Annotated[str | None, strawberry.argument(description="Where it came from")]


@strawberry.type
class PropsMutation:
    @strawberry.mutation(description="Store a document and the dated propositions it states")
    def ingest_document(
        self, info: Info, text: Text, date: DateArg, source: Source = None
    ) -> IngestReport:
        memory = info.context.services.props()
        return props.add_document(memory, text, date.isoformat(), source)

    @strawberry.mutation(
        description="Store many documents at once; those already stored are skipped, so "
        "sending them again resumes an interrupted import"
    )
    def ingest_documents(
        self,
        info: Info,
        documents: Annotated[list[DocumentInput], strawberry.argument(description="In order")],
        replace: Annotated[
            bool,
            strawberry.argument(
                description="Delete a stored document with the source and date of one of "
                "these but other text (an earlier version), after these are stored"
            ),
        ] = False,
    ) -> DocumentsReport:
        return info.context.services.props().ingest_documents(_items(documents), replace=replace)

    @strawberry.mutation(description="Store already-extracted propositions")
    def add_propositions(
        self,
        info: Info,
        propositions: Annotated[
            list[PropositionInput], strawberry.argument(description="The propositions")
        ],
    ) -> IngestReport:
        return props.add_propositions(info.context.services.props(), _items(propositions))

    @strawberry.mutation(
        description="Delete a document with the propositions no other document states"
    )
    def delete_document(
        self,
        info: Info,
        id: Annotated[strawberry.ID, strawberry.argument(description="The document's id")],  # noqa: A002
    ) -> DeletedDocument:
        return info.context.services.props().delete_document(str(id))

    @strawberry.mutation(description="Delete a proposition with its relation edges")
    def delete_proposition(self, info: Info, id: PropId) -> Proposition:  # noqa: A002
        return info.context.services.props().delete_proposition(str(id))

    @strawberry.mutation(
        description="Correct a proposition (omitted: unchanged). A new text or date makes it "
        "another statement: re-embedded, re-related, returned under its new id"
    )
    def update_proposition(
        self,
        info: Info,
        id: PropId,  # noqa: A002
        text: Annotated[str | None, strawberry.argument(description="The new statement")] = None,
        date: Annotated[dt.date | None, strawberry.argument(description="The new date")] = None,
        source: Annotated[str | None, strawberry.argument(description="The new source")] = None,
    ) -> Proposition:
        memory = info.context.services.props()
        return memory.update_proposition(str(id), text, day(date), source)


def _items(inputs: list[DocumentInput] | list[PropositionInput]) -> list[dict[str, str]]:
    """Input objects as the library's {text, date, source?, about?} items."""
    items = [
        {
            "text": i.text,
            "date": day(i.date),
            "source": i.source,
            "about": getattr(i, "about", None),
        }
        for i in inputs
    ]
    return [{k: v for k, v in item.items() if v is not None} for item in items]
