"""What one request to the service may ask for: sizes and time, each set by a GRAPHMEM_ variable.

These are the service's limits, checked at the GraphQL edge before any work starts (see
api/limits.py and docs/limits.md). The library's own bounds (MAX_BATCH, MAX_K, ...) still apply
beneath them: a service limit set above one of those lets the library refuse instead.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from graphmem.errors import InvalidInput

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Request limits and operation time limits; ENV names the variable of each."""

    body_bytes: int = 32 * MIB  # a 200,000-point appendPoints is 9-12 MB of JSON
    query_length: int = 1_000_000  # characters of a GraphQL document
    tokens: int = 5_000  # lexical tokens of a GraphQL document (large inputs go in variables)
    depth: int = 10  # fields nested in one another
    aliases: int = 100
    cost: int = 50_000  # objects an operation may return, estimated from k, limit and lists
    points: int = 200_000  # per appendPoints
    propositions: int = 1_000  # per addPropositions (each is embedded and related)
    documents: int = 50  # per ingestDocuments (each up to `document` characters)
    list_items: int = 10_000  # any other list argument
    document: int = 100_000  # characters of an ingestDocument(s) text
    text: int = 10_000  # characters of any other string argument
    k: int = 1_000  # any `k` argument
    page: int = 10_000  # any `limit` argument
    operation_timeout: float = 30.0  # seconds
    llm_operation_timeout: float = 300.0  # seconds, for operations that may call the LLM

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            kind = int if f.type == "int" else (int, float)
            if isinstance(value, bool) or not isinstance(value, kind) or value <= 0:
                what = "integer" if f.type == "int" else "number"
                raise InvalidInput(ENV[f.name], f"must be a positive {what}, not {value!r}")


ENV = {
    "body_bytes": "GRAPHMEM_MAX_BODY_BYTES",
    "query_length": "GRAPHMEM_MAX_QUERY_LENGTH",
    "tokens": "GRAPHMEM_MAX_TOKENS",
    "depth": "GRAPHMEM_MAX_DEPTH",
    "aliases": "GRAPHMEM_MAX_ALIASES",
    "cost": "GRAPHMEM_MAX_COST",
    "points": "GRAPHMEM_MAX_POINTS",
    "propositions": "GRAPHMEM_MAX_PROPOSITIONS",
    "documents": "GRAPHMEM_MAX_DOCUMENTS",
    "list_items": "GRAPHMEM_MAX_LIST",
    "document": "GRAPHMEM_MAX_DOCUMENT",
    "text": "GRAPHMEM_MAX_TEXT",
    "k": "GRAPHMEM_MAX_K",
    "page": "GRAPHMEM_MAX_PAGE",
    "operation_timeout": "GRAPHMEM_OPERATION_TIMEOUT",
    "llm_operation_timeout": "GRAPHMEM_LLM_OPERATION_TIMEOUT",
}
