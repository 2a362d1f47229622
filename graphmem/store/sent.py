"""Every statement graphmem can send to an engine, as the engine receives it.

Product statements from cypher/ through the loader (per-kind templates expanded), minus the
JSON-list twins on engines without json_lists and the other engines' schema statements, plus
this engine's schema listing and every DDL statement its schema plan holds, filled in. This
is what tools/neo4j-lint checks with Neo4j's own front end and what the golden tests pin.
"""

from __future__ import annotations

from collections.abc import Collection

from graphmem.cypher import all_statements, statement
from graphmem.store.dialect import DELETE_SPACE, DIALECTS, JSON_TWIN, MIGRATE_SPACE
from graphmem.store.schema import LABELS, LEGACY_UNIQUE, ddl, ddl_of, plan


def sent_statements(engine: str) -> dict[str, str]:
    """Name -> text of every statement `engine` may receive (DDL named template[label.prop])."""
    dialect = DIALECTS[engine]
    loaded = all_statements()
    out = {
        name: stmt.text
        for name, stmt in loaded.items()
        if not name.startswith("schema.") and (dialect.json_lists or not is_json_twin(name, loaded))
    }
    for name in (dialect.list_indexes, dialect.list_uniques):
        out[name] = statement(name).text
    for item in plan(dialect):
        text = ddl_of(dialect, item)
        if text is not None:
            out[f"{dialect.template(item.what)}[{item.label}.{item.prop}]"] = text
    for label in LABELS:  # upgrading a store written before spaces; deleting a space
        for name in (MIGRATE_SPACE, DELETE_SPACE):
            out[f"{name}[{label}]"] = ddl(name, label)
    if dialect.drop_unique_ddl is not None:
        for label, props in LEGACY_UNIQUE:
            name = f"{dialect.drop_unique_ddl}[{label}.{'_'.join(props)}]"
            out[name] = ddl(dialect.drop_unique_ddl, label, props)
    return out


def is_json_twin(name: str, names: Collection[str] | None = None) -> bool:
    """Whether `name` is the JSON-list twin of another statement (see Store.read_lists)."""
    names = all_statements() if names is None else names
    return name.endswith(JSON_TWIN) and name.removesuffix(JSON_TWIN) in names
