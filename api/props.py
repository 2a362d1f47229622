"""GraphQL: propositions (ingestion, listing) and dated subgraphs with rendered context."""

from __future__ import annotations

from typing import Annotated

import strawberry

from api.context import Info
from api.errors import request_names
from graphmem import props
from graphmem.errors import InvalidInput
from graphmem.props.model import checked_date
from graphmem.props.retrieve import anchor_ranker
from graphmem.strings import MAX_QUERY, MAX_SOURCE, checked_str

MAX_LIST = 1000


@strawberry.type
class Proposition:
    id: strawberry.ID
    text: str
    date: str
    source: str | None


@strawberry.type
class IngestResult:
    document_id: str | None
    proposition_ids: list[str]
    added: int
    existing: int = strawberry.field(description="Already stored before: left untouched")
    relations: int = strawberry.field(description="Relation edges created")


@strawberry.type
class SubgraphNode:
    id: strawberry.ID
    text: str
    date: str
    source: str | None
    is_anchor: bool
    score: float | None = strawberry.field(description="Cosine similarity to the question")
    status: str = strawberry.field(description="current | updated | contradicted, as of the date")
    updated_by: list[str]
    contradicted_by: list[str]


@strawberry.type
class SubgraphEdge:
    id: strawberry.ID
    src: str = strawberry.field(description="The newer proposition")
    dst: str = strawberry.field(description="The older proposition")
    kind: str = strawberry.field(description="updates | contradicts | supports")
    confidence: float
    model: str
    refined: bool


@strawberry.type
class Subgraph:
    question: str
    as_of: str | None
    nodes: list[SubgraphNode]
    edges: list[SubgraphEdge]
    graph: strawberry.Private[props.Subgraph]

    @strawberry.field(description="The subgraph rendered as prompt context, within a budget")
    def context(self, max_tokens: int | None = None) -> str:
        if max_tokens is not None and max_tokens < 1:
            raise InvalidInput("maxTokens", "must be at least 1")
        return props.render(self.graph, max_tokens)


@strawberry.input
class PropositionInput:
    text: str
    date: str = strawberry.field(description="YYYY-MM-DD")
    source: str | None = None


@strawberry.input
class DocumentInput:
    text: str
    date: str = strawberry.field(description="YYYY-MM-DD")
    source: str | None = None


@strawberry.type
class IngestDocumentsResult:
    document_ids: list[str] = strawberry.field(description="Input order, each document once")
    skipped: int = strawberry.field(description="Documents already stored: left untouched")
    added: int = strawberry.field(description="Propositions stored by this call")
    existing: int = strawberry.field(description="Their propositions already stored before")
    relations: int = strawberry.field(description="Relation edges created")


@strawberry.type
class DeletedDocument:
    id: strawberry.ID
    proposition_ids: list[str] = strawberry.field(
        description="The propositions deleted with it: those no other document states"
    )


@strawberry.input
class PropositionFilter:
    source: str | None = None
    start: str | None = strawberry.field(default=None, description="YYYY-MM-DD, inclusive")
    end: str | None = strawberry.field(default=None, description="YYYY-MM-DD, inclusive")
    contains: str | None = strawberry.field(default=None, description="text contains (any case)")
    limit: int = 100
    offset: int = 0


def _report(r: props.IngestReport) -> IngestResult:
    return IngestResult(
        document_id=r.document_id, proposition_ids=list(r.proposition_ids), added=r.added,
        existing=r.existing, relations=r.relations,
    )  # fmt: skip


def _proposition(p: props.Proposition) -> Proposition:
    return Proposition(id=strawberry.ID(p.id), text=p.text, date=p.date, source=p.source)


def _subgraph(graph: props.Subgraph, as_of: str | None) -> Subgraph:
    nodes = [
        SubgraphNode(
            id=strawberry.ID(n.prop.id),
            text=n.prop.text,
            date=n.prop.date,
            source=n.prop.source,
            is_anchor=n.is_anchor,
            score=n.score,
            status=n.status.state,
            updated_by=list(n.status.updated_by),
            contradicted_by=list(n.status.contradicted_by),
        )  # fmt: skip
        for n in graph.nodes
    ]
    edges = [
        SubgraphEdge(
            id=strawberry.ID(e.id),
            src=e.src,
            dst=e.dst,
            kind=e.kind,
            confidence=e.confidence,
            model=e.model,
            refined=e.refined,
        )  # fmt: skip
        for e in graph.edges
    ]
    return Subgraph(question=graph.question, as_of=as_of, nodes=nodes, edges=edges, graph=graph)


def propositions(info: Info, filter: PropositionFilter | None = None) -> list[Proposition]:  # noqa: A002
    f = filter or PropositionFilter()
    if not 1 <= f.limit <= MAX_LIST:
        raise InvalidInput("filter.limit", f"must be between 1 and {MAX_LIST}")
    if f.offset < 0:
        raise InvalidInput("filter.offset", "must not be negative")
    start = None if f.start is None else checked_date(f.start, "filter.start")[1]
    end = None if f.end is None else checked_date(f.end, "filter.end")[1]
    source = None if f.source is None else checked_str(f.source, "filter.source", MAX_SOURCE)
    contains = None if f.contains is None else checked_str(f.contains, "filter.contains", MAX_QUERY)
    rows = info.context.store.read(
        "props.filtered", source=source, start=start, end=end, contains=contains,
        offset=f.offset, limit=f.limit,
    )  # fmt: skip
    return [_proposition(props.Proposition.from_row(row)) for row in rows]


def subgraph(
    info: Info,
    question: str,
    as_of: str | None = None,
    k: int = 10,
    expand: bool = True,
    refine: bool = False,
    rank_by: Annotated[
        str, strawberry.argument(description="similarity | recall (recall probability at now)")
    ] = "similarity",
    now: Annotated[
        str | None, strawberry.argument(description="For rankBy recall (default: asOf or now)")
    ] = None,
) -> Subgraph:
    ctx = info.context.services.props()
    ranker = anchor_ranker(ctx, rank_by, now, as_of, ("rankBy", "now"))
    with request_names():
        graph = props.subgraph(ctx, question, as_of, k, expand, refine, ranker)
    return _subgraph(graph, as_of)


@strawberry.type
class PropsQuery:
    propositions: list[Proposition] = strawberry.field(resolver=propositions)
    subgraph: Subgraph = strawberry.field(
        resolver=subgraph, description="Anchors, neighbours and relations as of a date"
    )


@strawberry.type
class PropsMutation:
    @strawberry.mutation(description="Store a document and the dated propositions it states")
    def ingest_document(
        self, info: Info, text: str, date: str, source: str | None = None
    ) -> IngestResult:
        return _report(props.add_document(info.context.services.props(), text, date, source))

    @strawberry.mutation(
        description="Store many documents at once; those already stored are skipped, so "
        "sending them again resumes an interrupted import"
    )
    def ingest_documents(self, info: Info, documents: list[DocumentInput]) -> IngestDocumentsResult:
        report = info.context.services.props().ingest_documents(_items(documents))
        return IngestDocumentsResult(
            document_ids=list(report.document_ids), skipped=report.skipped,
            added=report.added, existing=report.existing, relations=report.relations,
        )  # fmt: skip

    @strawberry.mutation(description="Store already-extracted propositions")
    def add_propositions(self, info: Info, propositions: list[PropositionInput]) -> IngestResult:
        return _report(props.add_propositions(info.context.services.props(), _items(propositions)))

    @strawberry.mutation(
        description="Delete a document with the propositions no other document states"
    )
    def delete_document(self, info: Info, id: strawberry.ID) -> DeletedDocument:  # noqa: A002
        deleted = info.context.services.props().delete_document(str(id))
        return DeletedDocument(id=strawberry.ID(deleted.id),
                               proposition_ids=list(deleted.proposition_ids))  # fmt: skip

    @strawberry.mutation(description="Delete a proposition with its relation edges")
    def delete_proposition(self, info: Info, id: strawberry.ID) -> Proposition:  # noqa: A002
        return _proposition(info.context.services.props().delete_proposition(str(id)))

    @strawberry.mutation(
        description="Correct a proposition (omitted: unchanged). A new text or date makes it "
        "another statement: re-embedded, re-related, returned under its new id"
    )
    def update_proposition(
        self, info: Info, id: strawberry.ID, text: str | None = None,  # noqa: A002
        date: str | None = None, source: str | None = None,
    ) -> Proposition:  # fmt: skip
        memory = info.context.services.props()
        return _proposition(memory.update_proposition(str(id), text, date, source))


def _items(inputs: list[DocumentInput] | list[PropositionInput]) -> list[dict[str, str]]:
    """Input objects as the library's {text, date, source?} items."""
    items = [{"text": i.text, "date": i.date, "source": i.source} for i in inputs]
    return [{k: v for k, v in item.items() if v is not None} for item in items]
