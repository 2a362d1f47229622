"""The store contract shared by every engine: named statements in, plain values out."""

from __future__ import annotations

import contextlib
import json
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from graphmem.cypher import Statement, statement
from graphmem.errors import InvalidInput, StoreError
from graphmem.metrics import counts_store_errors
from graphmem.spaces import DEFAULT_SPACE, checked_space
from graphmem.store.dialect import DELETE_SPACE, DIALECTS, JSON_TWIN, MIGRATE_SPACE, Dialect
from graphmem.store.schema import (
    EDGE_INDEXES,
    INDEXES,
    LABELS,
    LEGACY_UNIQUE,
    UNIQUE,
    SchemaItem,
    ddl,
    ddl_of,
    plan,
)
from graphmem.strings import storable

Row = dict[str, Any]


@dataclass(frozen=True)
class Health:
    """Whether the store answers, and what it is."""

    engine: str
    reachable: bool
    version: str | None = None
    detail: str | None = None


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# FalkorDB answers doubles with 15 significant digits: anything larger reads back as infinity
MAX_FLOAT = 1.79769313486231e308
MAX_DEPTH = 32  # lists and maps nested deeper are no data graphmem writes
# Strings under these names are index entries (graphmem.store.schema). FalkorDB indexes a string
# trimmed of ASCII whitespace and only up to 4096 bytes: a value it cannot find again in its
# index crashes the server's unique check and is missed by lookups, so writes refuse them.
# ("label" is indexed only on VectorClock, whose labels are literals in the statements, while
# other labels, e.g. a meta-segment's, are free text.)
KEY_NAMES = frozenset(
    [p for _, props in UNIQUE for p in props] + [p for _, p in INDEXES + EDGE_INDEXES]
) - {"label"}
MAX_KEY_BYTES = 4096
_ASCII_SPACE = " \t\n\v\f\r"
_UNSAFE_KEY = re.compile("[\x00\x01\ud800-\udfff`]")
_PARAM_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def plain(value: Any, path: str = "$", *, keys: bool = False, depth: int = 0) -> Any:
    """Convert numpy and tuple values to plain JSON-like Python; reject what cannot be stored.

    Refused, so that nothing is silently changed on the way in: NaN, infinity and floats too
    large to read back, integers outside int64, bytes, strings holding NUL, U+0001 or lone
    surrogates, map keys holding a backtick, nesting deeper than MAX_DEPTH. With `keys`
    (writes), strings named like an indexed property must also be valid index entries.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, str):
        storable(value, path)
        if keys and _name_of(path) in KEY_NAMES:
            _checked_key_value(value, path)
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput(path, f"{value} is not a finite number and cannot be stored")
        if abs(value) > MAX_FLOAT:
            raise InvalidInput(path, f"{value!r} is too large to store (limit {MAX_FLOAT:g})")
        return value
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise InvalidInput(path, f"{value} is outside the 64-bit integer range of the store")
        return value
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if type(value) is Floats:  # raw points, validated at ingestion: skip the per-item walk
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        raise InvalidInput(path, "bytes cannot be stored; decode them to text (e.g. base64) first")
    if depth >= MAX_DEPTH and isinstance(value, Mapping | Sequence):
        raise InvalidInput(path, f"is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, Mapping):
        return {
            _checked_key(k, path): plain(v, f"{path}.{k}", keys=keys, depth=depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, Sequence):
        return [plain(v, f"{path}[{i}]", keys=keys, depth=depth + 1) for i, v in enumerate(value)]
    raise InvalidInput(path, f"values of type {type(value).__name__} cannot be stored")


def _name_of(path: str) -> str:
    """The parameter or map key a value is stored under (rows[3].id -> id; list items: none)."""
    last = path.rsplit(".", 1)[-1]
    return "" if last.endswith("]") else last


def _checked_key_value(value: str, path: str) -> None:
    if not value:
        raise InvalidInput(path, "must not be empty: it is an index entry")
    if value[0] in _ASCII_SPACE or value[-1] in _ASCII_SPACE:
        raise InvalidInput(path, "must not start or end with whitespace: it is an index entry")
    # 4 bytes per character at most: short strings need no encoding to be measured
    if len(value) * 4 > MAX_KEY_BYTES and len(value.encode()) > MAX_KEY_BYTES:
        raise InvalidInput(path, f"is longer than {MAX_KEY_BYTES} bytes: it is an index entry")


def _checked_key(key: object, path: str) -> str:
    key = key if isinstance(key, str) else str(key)
    if _UNSAFE_KEY.search(key) is None:
        return key
    storable(key, f"{path} key {key!r}")
    # FalkorDB quotes map keys in backticks and has no escape for one inside
    raise InvalidInput(f"{path} key {key!r}", "map keys must not contain a backtick (`)")


def params_of(params: Mapping[str, Any], *, keys: bool = False) -> dict[str, Any]:
    """Statement parameters checked and made plain; names must be identifiers.

    `keys` (set for writes) also checks strings named like an indexed property (KEY_NAMES).
    """
    for name in params:
        if not isinstance(name, str) or not _PARAM_NAME.match(name):
            raise InvalidInput(str(name), "is not a valid parameter name (letters, digits, _)")
    return {name: plain(value, name, keys=keys) for name, value in params.items()}


class Floats(list):
    """A list of finite Python floats, checked by its maker: passed to engines unexamined."""


def filled(template: str, label: str) -> Statement:
    """A statement of cypher/schema.cypher with its <label> filled (labels are ours)."""
    stmt = statement(template)
    return Statement(f"{stmt.name}[{label}]", ddl(template, label), stmt.source)


def _resolve(name: str | Statement) -> Statement:
    return name if isinstance(name, Statement) else statement(name)


@dataclass(frozen=True)
class GraphTypes:
    """A driver's graph values, which results turn into plain ones: what each adapter maps."""

    entities: tuple[type, ...]  # nodes and relationships: become their property dicts
    properties: Callable[[Any], Mapping[str, Any]]
    path: type  # becomes the list of its nodes
    path_nodes: Callable[[Any], Iterable[Any]]


def to_plain(value: Any, types: GraphTypes) -> Any:
    """A result value as plain Python: nodes and edges as property dicts, paths as node lists."""
    if isinstance(value, dict):
        return {k: to_plain(v, types) for k, v in value.items()}
    if isinstance(value, list):
        return [to_plain(v, types) for v in value]
    if isinstance(value, types.entities):
        return {k: to_plain(v, types) for k, v in types.properties(value).items()}
    if isinstance(value, types.path):
        return [to_plain(n, types) for n in types.path_nodes(value)]
    return value


# toJSON(<expression>) AS <column>, the expression holding at most one level of parentheses
_JSON_COLUMN = re.compile(r"toJSON\((?:[^()]|\([^()]*\))*\)\s+AS\s+(\w+)")


@cache
def json_columns(name: str) -> tuple[str, ...]:
    """The columns the `_json` twin of statement `name` returns as JSON text."""
    return tuple(_JSON_COLUMN.findall(statement(name + JSON_TWIN).text))


class Store(ABC):
    """A graph store: run named statements from cypher/ with parameters.

    Every statement receives `$space`, the space this store object reads and writes (default
    `default`); `in_space(name)` gives a view of the same store on another space.
    """

    engine: str = "abstract"
    graph_types: GraphTypes  # the driver's node, relationship and path types
    space: str = DEFAULT_SPACE

    def in_space(self, space: str) -> Store:
        """This store seen from `space` (checked): the same connection, another $space."""
        space = checked_space(space)
        root = self.root
        return root if space == root.space else SpaceView(root, space)

    @property
    def root(self) -> Store:
        """The store that owns the connection (itself, unless a view)."""
        return self

    def _with_space(self, params: dict[str, Any]) -> dict[str, Any]:
        params.setdefault("space", self.space)
        return params

    @property
    def dialect(self) -> Dialect:
        return DIALECTS[self.engine]

    def _row(self, pairs: Iterable[tuple[str, Any]]) -> Row:
        """One result row as plain values, from (column, driver value) pairs."""
        return {name: to_plain(value, self.graph_types) for name, value in pairs}

    @counts_store_errors
    def read(self, name: str | Statement, /, **params: Any) -> list[Row]:
        """Run a named statement on the read-only path."""
        stmt = _resolve(name)
        params = params_of(self._with_space(params))
        return self._run(stmt.text, params, write=False, what=stmt.name)

    def read_lists(self, name: str, /, **params: Any) -> list[Row]:
        """read() for statements returning long lists; the rows hold lists either way.

        Where the dialect has json_lists, the statement's `_json` twin runs instead and the
        columns it returns as toJSON() text are decoded here (a value that is not JSON is left
        as it is, for the caller's own check to name).
        """
        if not self.dialect.json_lists:
            return self.read(name, **params)
        rows = self.read(name + JSON_TWIN, **params)
        for column in json_columns(name):
            for row in rows:
                if isinstance(row.get(column), str):
                    with contextlib.suppress(ValueError):
                        row[column] = json.loads(row[column])
        return rows

    @counts_store_errors
    def write(self, name: str | Statement, /, **params: Any) -> list[Row]:
        """Run a named statement on the write path; it lands whole or not at all."""
        stmt = _resolve(name)
        params = params_of(self._with_space(params), keys=True)
        return self._run(stmt.text, params, write=True, what=stmt.name)

    def drain(self, stmt: Statement, /, batch: int = 10_000, **params: Any) -> int:
        """Run a write of at most $batch nodes (returning their count as `n`) until it does
        fewer; how many it did in all. No transaction grows with the graph."""
        total = 0
        while True:
            rows = self.write(stmt, batch=batch, **params)
            done = int(rows[0]["n"]) if rows else 0
            total += done
            if done < batch:
                return total

    def write_batch(
        self, name: str | Statement, rows: Sequence[Mapping[str, Any]], /, **params: Any
    ) -> list[Row]:
        """Run a named `UNWIND $rows` statement once over all rows: the batch lands whole."""
        return self.write(name, rows=list(rows), **params)

    @counts_store_errors
    def inspect(self, text: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        """Run caller-written Cypher read-only (for `graphmem cypher`); writes are refused.

        $space is the store's space, so a query can name it."""
        params = params_of(self._with_space(dict(params or {})))
        return self._run(text, params, write=False)

    @abstractmethod
    def _run(
        self, text: str, params: dict[str, Any], *, write: bool, what: str = "query"
    ) -> list[Row]:
        """Execute one statement and return its rows as plain dicts."""

    def apply_schema(self) -> int:
        """Create the indexes and unique constraints of graphmem.store.schema; idempotent.

        Lists what exists first and sends only what is missing (none when the schema is
        complete); one that a concurrent opener created in between counts as done. Returns how
        many DDL statements took effect.
        """
        have = self._existing_schema()
        legacy = [SchemaItem("unique", label, props) for label, props in LEGACY_UNIQUE]
        legacy = [item for item in legacy if item.key in have]
        if legacy:
            self._migrate_to_spaces(legacy)
        created = 0
        for item in plan(self.dialect):
            if item.key not in have:
                created += self._tolerate_exists(self._create, item)
        self._await_schema()
        return created

    def spaces(self) -> list[str]:
        """The spaces holding memories, sorted (the default one only once it has any)."""
        return sorted({row["space"] for row in self.read("admin.spaces") if row["space"]})

    def delete_space_nodes(self, space: str, batch: int = 10_000) -> int:
        """Delete every node of `space` with its edges, label by label, `batch` at a time;
        how many nodes went."""
        space, root = checked_space(space), self.root
        return sum(root.drain(filled(DELETE_SPACE, label), batch, space=space) for label in LABELS)

    def _migrate_to_spaces(self, legacy: list[SchemaItem]) -> None:
        """A store written before spaces: its nodes join `default`, its old constraints go.

        Idempotent, so an open interrupted half way is finished by the next one.
        """
        for label in LABELS:
            self.drain(filled(MIGRATE_SPACE, label), 50_000, space=DEFAULT_SPACE)
        for item in legacy:
            self._drop_unique(item)

    def _drop_unique(self, item: SchemaItem) -> None:
        template = self.dialect.drop_unique_ddl
        if template is None:
            raise NotImplementedError(f"{self.engine} needs a command to drop a constraint")
        self._run(ddl(template, item.label, item.props), {}, write=True, what=f"dropping {item}")

    def _create(self, item: SchemaItem) -> None:
        text = ddl_of(self.dialect, item)
        if text is None:
            self._create_unique(item.label, item.props)
        else:
            self._run(text, {}, write=True, what=f"creating the {item}")

    def _tolerate_exists(self, create: Callable[..., object], *args: Any) -> int:
        """Run one DDL step; "already exists" (a concurrent opener won the race) is success.

        1 when this call created it, else 0.
        """
        try:
            create(*args)
        except StoreError as error:
            if not any(text in str(error) for text in self.dialect.exists_errors):
                raise
            return 0
        return 1

    def _existing_schema(self) -> set[tuple[str, str, tuple[str, ...]]]:
        """The SchemaItem keys (what, label, properties) of every index and constraint in place."""
        dialect = self.dialect
        indexes = self._run(
            statement(dialect.list_indexes).text, {}, write=False, what="listing indexes"
        )
        have = {
            ("edge_index" if row["entity"] == "RELATIONSHIP" else "index", row["label"], (prop,))
            for row in indexes
            for prop in row["properties"]
        }
        uniques = self._list_uniques()
        return have | {("unique", row["label"], tuple(row["properties"])) for row in uniques}

    def _list_uniques(self) -> list[Row]:
        """Unique constraints as (label, properties, status) rows."""
        text = statement(self.dialect.list_uniques).text
        return self._run(text, {}, write=False, what="listing constraints")

    def _create_unique(self, label: str, props: tuple[str, ...]) -> None:
        raise NotImplementedError(f"{self.engine} needs a unique-constraint command")

    def _await_schema(self) -> None:  # noqa: B027 - most engines build constraints at once
        """Wait until new constraints are enforced, on engines that build them in the background."""

    @abstractmethod
    def health(self) -> Health:
        """Engine, reachability and server version; never raises."""

    def close(self) -> None:  # noqa: B027 - engines without resources need nothing
        """Release connections (and the embedded server when this is its last user)."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SpaceView(Store):
    """A store seen from another space: statements go to the root store with that $space.

    Closing a view closes nothing: the root's owner closes the connection.
    """

    def __init__(self, root: Store, space: str) -> None:
        self._root = root
        self.space = space
        self.engine = root.engine
        self.graph_types = root.graph_types

    @property
    def root(self) -> Store:
        return self._root

    def _run(
        self, text: str, params: dict[str, Any], *, write: bool, what: str = "query"
    ) -> list[Row]:
        return self._root._run(text, params, write=write, what=what)

    def apply_schema(self) -> int:
        return self._root.apply_schema()

    def health(self) -> Health:
        return self._root.health()

    def close(self) -> None:
        """Nothing to release: the connection is the root store's."""
