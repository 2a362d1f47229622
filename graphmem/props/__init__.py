"""Propositions memory: extraction, relation classification, as-of retrieval and rendering."""

from graphmem.props.bulk import DocumentsReport, add_documents
from graphmem.props.classify import Candidate, Classifier, Judgement, LLMClassifier
from graphmem.props.edit import (
    DeletedDocument,
    delete_document,
    delete_proposition,
    update_proposition,
)
from graphmem.props.extract import add_document, add_propositions
from graphmem.props.ingest import IngestReport
from graphmem.props.memory import PropsMemory
from graphmem.props.model import Proposition, Relation
from graphmem.props.offline import OfflineClassifier, OfflineRules
from graphmem.props.relate import RefineReport, refine
from graphmem.props.render import Rendered, render, render_detail
from graphmem.props.retrieve import (
    Node,
    Status,
    Subgraph,
    counts,
    get_propositions,
    list_relations,
    subgraph,
)
from graphmem.tokens import estimate_tokens

__all__ = [
    "Candidate",
    "Classifier",
    "DeletedDocument",
    "DocumentsReport",
    "IngestReport",
    "Judgement",
    "LLMClassifier",
    "Node",
    "OfflineClassifier",
    "OfflineRules",
    "Proposition",
    "PropsMemory",
    "RefineReport",
    "Relation",
    "Rendered",
    "Status",
    "Subgraph",
    "add_document",
    "add_documents",
    "add_propositions",
    "counts",
    "delete_document",
    "delete_proposition",
    "estimate_tokens",
    "get_propositions",
    "list_relations",
    "refine",
    "render",
    "render_detail",
    "subgraph",
    "update_proposition",
]
