"""The one table of differences between engines; the queries themselves are shared.

Everything that differs between FalkorDB and Neo4j is here, in graphmem/store/schema.py or in
a Store method of graphmem/store/ (e.g. Store.read_lists for the JSON-list fast path): no module
outside graphmem/store/ names an engine (tests/test_dialect_seam.py checks it).
"""

from __future__ import annotations

from dataclasses import dataclass

JSON_TWIN = "_json"  # suffix of a statement's JSON-list twin (see Dialect.json_lists)
# shared by every engine, filled per label: upgrading a store written before spaces, deleting one
MIGRATE_SPACE = "schema.migrate_space"
DELETE_SPACE = "schema.delete_space"


@dataclass(frozen=True)
class Dialect:
    """How an engine creates and lists graphmem's schema, and which fast paths it takes."""

    index_ddl: str  # statement name of the node property index template
    edge_index_ddl: str  # statement name of the relationship property index template
    unique_ddl: str | None  # statement name, or None when the engine needs a command instead
    drop_unique_ddl: str | None  # the same for dropping one (stores written before spaces)
    unique_needs_index: bool  # FalkorDB builds unique constraints on an existing index
    list_indexes: str  # statement listing indexes as (entity, label, properties)
    list_uniques: str  # statement listing unique constraints as (label, properties, status)
    # Long lists travel faster as one toJSON() string than as parsed values (FalkorDB's
    # client decodes each double in Python): Store.read_lists runs a statement's `_json` twin
    # instead, on engines with this flag. Neo4j has no toJSON() and never receives a twin.
    json_lists: bool
    # Error texts meaning "that index/constraint is there already": another process applying
    # the schema at the same moment created it first, which is success for us.
    exists_errors: tuple[str, ...] = ()

    def template(self, what: str) -> str | None:
        """The DDL template for a schema item kind ('index', 'edge_index', 'unique')."""
        return {
            "index": self.index_ddl,
            "edge_index": self.edge_index_ddl,
            "unique": self.unique_ddl,
        }[what]

    def schema_statements(self) -> tuple[str, ...]:
        """The statements of cypher/schema.cypher this engine is sent (templates and lists)."""
        names = (
            self.index_ddl,
            self.edge_index_ddl,
            self.unique_ddl,
            self.drop_unique_ddl,
            self.list_indexes,
            self.list_uniques,
            MIGRATE_SPACE,
        )
        return tuple(n for n in names if n is not None)


DIALECTS: dict[str, Dialect] = {
    "neo4j": Dialect(
        index_ddl="schema.neo4j_index",
        edge_index_ddl="schema.neo4j_edge_index",
        unique_ddl="schema.neo4j_unique",
        drop_unique_ddl="schema.neo4j_drop_unique",
        unique_needs_index=False,
        list_indexes="schema.neo4j_list_indexes",
        list_uniques="schema.neo4j_list_constraints",
        json_lists=False,
        # IF NOT EXISTS makes a repeat a no-op, but two openers creating the same index at once
        # may still meet one of these (the server's status codes, kept in our error messages)
        exists_errors=(
            "EquivalentSchemaRuleAlreadyExists",
            "ConstraintAlreadyExists",
            "IndexAlreadyExists",
        ),
    ),
    "falkordb": Dialect(
        index_ddl="schema.falkordb_index",
        edge_index_ddl="schema.falkordb_edge_index",
        unique_ddl=None,
        drop_unique_ddl=None,
        unique_needs_index=True,
        list_indexes="schema.falkordb_list_indexes",
        list_uniques="schema.falkordb_list_constraints",
        json_lists=True,
        exists_errors=("is already indexed", "Constraint already exists"),
    ),
}
