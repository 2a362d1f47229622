"""Propositions memory: extraction, relation classification, as-of retrieval and rendering."""

from graphmem.props.classify import Candidate, Classifier, Judgement, LLMClassifier
from graphmem.props.extract import add_document, add_propositions
from graphmem.props.ingest import IngestReport
from graphmem.props.memory import PropsMemory
from graphmem.props.model import Proposition, Relation
from graphmem.props.offline import OfflineClassifier, OfflineRules
from graphmem.props.relate import RefineReport, refine
from graphmem.props.render import Rendered, estimate_tokens, render, render_detail
from graphmem.props.retrieve import (
    Node,
    Status,
    Subgraph,
    counts,
    get_propositions,
    list_relations,
    subgraph,
)

__all__ = [
    "Candidate", "Classifier", "IngestReport", "Judgement", "LLMClassifier", "Node",
    "OfflineClassifier", "OfflineRules", "Proposition", "PropsMemory", "RefineReport",
    "Relation", "Rendered", "Status", "Subgraph", "add_document", "add_propositions", "counts",
    "estimate_tokens", "get_propositions", "list_relations", "refine", "render",
    "render_detail", "subgraph",
]  # fmt: skip
