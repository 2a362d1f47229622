"""The one table of DDL differences between engines; queries themselves are shared."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dialect:
    """How an engine creates graphmem's constraints and indexes."""

    index_ddl: str  # statement name of the index template
    unique_ddl: str | None  # statement name, or None when the engine needs a command instead
    unique_needs_index: bool  # FalkorDB builds unique constraints on an existing index
    if_not_exists: bool  # DDL is idempotent by itself; otherwise list what exists first
    # Long float lists travel faster as one toJSON() string than as parsed values
    # (FalkorDB's client decodes each double in Python); Neo4j has no toJSON().
    json_lists: bool
    # Error texts meaning "that index/constraint is there already": another process applying
    # the schema at the same moment created it first, which is success for us.
    exists_errors: tuple[str, ...] = ()


DIALECTS: dict[str, Dialect] = {
    "neo4j": Dialect(
        index_ddl="schema.neo4j_index",
        unique_ddl="schema.neo4j_unique",
        unique_needs_index=False,
        if_not_exists=True,
        json_lists=False,
    ),
    "falkordb": Dialect(
        index_ddl="schema.falkordb_index",
        unique_ddl=None,
        unique_needs_index=True,
        if_not_exists=False,
        json_lists=True,
        exists_errors=("is already indexed", "Constraint already exists"),
    ),
}
