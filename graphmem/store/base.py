"""The store contract shared by every engine: named statements in, plain values out."""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.cypher import Statement, statement
from graphmem.errors import InvalidInput, StoreError
from graphmem.store.dialect import DIALECTS, Dialect
from graphmem.store.schema import INDEXES, UNIQUE, ddl

Row = dict[str, Any]


@dataclass(frozen=True)
class Health:
    """Whether the store answers, and what it is."""

    engine: str
    reachable: bool
    version: str | None = None
    detail: str | None = None


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# NUL ends a string inside FalkorDB (C strings); lone surrogates are not encodable as UTF-8
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_UNSAFE_KEY = re.compile("[\x00\ud800-\udfff`]")
_PARAM_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def plain(value: Any, path: str = "$") -> Any:
    """Convert numpy and tuple values to plain JSON-like Python; reject what cannot be stored.

    Refused, so that nothing is silently changed on the way in: NaN and infinity, integers
    outside int64, bytes, strings holding NUL or lone surrogates, map keys holding a backtick.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, str):
        return _checked_str(value, path)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput(path, f"{value} is not a finite number and cannot be stored")
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
    if isinstance(value, Mapping):
        return {_checked_key(k, path): plain(v, f"{path}.{k}") for k, v in value.items()}
    if isinstance(value, Sequence):
        return [plain(v, f"{path}[{i}]") for i, v in enumerate(value)]
    raise InvalidInput(path, f"values of type {type(value).__name__} cannot be stored")


def _checked_str(value: str, path: str) -> str:
    bad = _UNSTORABLE.search(value)
    if bad is not None:
        char = f"U+{ord(bad.group()):04X}"
        what = "NUL" if char == "U+0000" else "a lone surrogate (not valid Unicode)"
        where = f"at index {bad.start()}"
        raise InvalidInput(path, f"holds {what} ({char}) {where}; it cannot be stored")
    return value


def _checked_key(key: object, path: str) -> str:
    key = key if isinstance(key, str) else str(key)
    if _UNSAFE_KEY.search(key) is None:
        return key
    _checked_str(key, f"{path} key {key!r}")
    # FalkorDB quotes map keys in backticks and has no escape for one inside
    raise InvalidInput(f"{path} key {key!r}", "map keys must not contain a backtick (`)")


def params_of(params: Mapping[str, Any]) -> dict[str, Any]:
    """Statement parameters checked and made plain; names must be identifiers."""
    for name in params:
        if not isinstance(name, str) or not _PARAM_NAME.match(name):
            raise InvalidInput(str(name), "is not a valid parameter name (letters, digits, _)")
    return {name: plain(value, name) for name, value in params.items()}


class Floats(list):
    """A list of finite Python floats, checked by its maker: passed to engines unexamined."""


def _resolve(name: str | Statement) -> Statement:
    return name if isinstance(name, Statement) else statement(name)


class Store(ABC):
    """A graph store: run named statements from cypher/ with parameters."""

    engine: str = "abstract"

    @property
    def dialect(self) -> Dialect:
        return DIALECTS[self.engine]

    def read(self, name: str | Statement, /, **params: Any) -> list[Row]:
        """Run a named statement on the read-only path."""
        stmt = _resolve(name)
        return self._run(stmt.text, params_of(params), write=False, what=stmt.name)

    def write(self, name: str | Statement, /, **params: Any) -> list[Row]:
        """Run a named statement on the write path; it lands whole or not at all."""
        stmt = _resolve(name)
        return self._run(stmt.text, params_of(params), write=True, what=stmt.name)

    def write_batch(
        self, name: str | Statement, rows: Sequence[Mapping[str, Any]], /, **params: Any
    ) -> list[Row]:
        """Run a named `UNWIND $rows` statement once over all rows: the batch lands whole."""
        return self.write(name, rows=list(rows), **params)

    def inspect(self, text: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        """Run caller-written Cypher read-only (for `graphmem cypher`); writes are refused."""
        return self._run(text, params_of(dict(params or {})), write=False)

    @abstractmethod
    def _run(
        self, text: str, params: dict[str, Any], *, write: bool, what: str = "query"
    ) -> list[Row]:
        """Execute one statement and return its rows as plain dicts."""

    def apply_schema(self) -> int:
        """Create the unique constraints and indexes of graphmem.store.schema; idempotent.

        Returns how many DDL statements took effect: on FalkorDB only missing ones are sent
        (none when the schema is complete); Neo4j's are IF NOT EXISTS and always sent.
        """
        dialect = self.dialect
        have_index, have_unique = (
            (set(), set()) if dialect.if_not_exists else self._existing_schema()
        )
        created = 0
        wanted = INDEXES + (UNIQUE if dialect.unique_needs_index else ())
        for label, prop in wanted:
            if (label, prop) not in have_index:
                text = ddl(dialect.index_ddl, label, prop)
                created += self._tolerate_exists(self._run, text, {}, write=True)
        for label, prop in UNIQUE:
            if (label, prop) not in have_unique:
                if dialect.unique_ddl is None:
                    created += self._tolerate_exists(self._create_unique, label, prop)
                else:
                    text = ddl(dialect.unique_ddl, label, prop)
                    created += self._tolerate_exists(self._run, text, {}, write=True)
        self._await_schema()
        return created

    def _tolerate_exists(self, create: Callable[..., object], *args: Any, **kwargs: Any) -> int:
        """Run one DDL step; "already exists" (a concurrent opener won the race) is success.

        1 when this call created it, else 0.
        """
        try:
            create(*args, **kwargs)
        except StoreError as error:
            if not any(text in str(error) for text in self.dialect.exists_errors):
                raise
            return 0
        return 1

    def _existing_schema(self) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
        """(indexed, unique) (label, property) pairs already in place."""
        raise NotImplementedError(f"{self.engine} must list its schema")

    def _create_unique(self, label: str, prop: str) -> None:
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
