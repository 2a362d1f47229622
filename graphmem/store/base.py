"""The store contract shared by every engine: named statements in, plain values out."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.cypher import Statement, statement
from graphmem.errors import InvalidInput
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


def plain(value: Any, path: str = "$") -> Any:
    """Convert numpy and tuple values to plain JSON-like Python; reject NaN and infinity."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput(path, f"{value} is not a finite number and cannot be stored")
        return value
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if type(value) is Floats:  # raw points, validated at ingestion: skip the per-item walk
        return value
    if isinstance(value, Mapping):
        return {str(k): plain(v, f"{path}.{k}") for k, v in value.items()}
    if isinstance(value, Sequence):
        return [plain(v, f"{path}[{i}]") for i, v in enumerate(value)]
    raise InvalidInput(path, f"values of type {type(value).__name__} cannot be stored")


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
        return self._run(stmt.text, plain(params), write=False, what=stmt.name)

    def write(self, name: str | Statement, /, **params: Any) -> list[Row]:
        """Run a named statement on the write path; it lands whole or not at all."""
        stmt = _resolve(name)
        return self._run(stmt.text, plain(params), write=True, what=stmt.name)

    def write_batch(
        self, name: str | Statement, rows: Sequence[Mapping[str, Any]], /, **params: Any
    ) -> list[Row]:
        """Run a named `UNWIND $rows` statement once over all rows: the batch lands whole."""
        return self.write(name, rows=list(rows), **params)

    def inspect(self, text: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        """Run caller-written Cypher read-only (for `graphmem cypher`); writes are refused."""
        return self._run(text, plain(dict(params or {})), write=False)

    @abstractmethod
    def _run(
        self, text: str, params: dict[str, Any], *, write: bool, what: str = "query"
    ) -> list[Row]:
        """Execute one statement and return its rows as plain dicts."""

    def apply_schema(self) -> None:
        """Create the unique constraints and indexes of graphmem.store.schema; idempotent."""
        dialect = self.dialect
        have_index, have_unique = (
            (set(), set()) if dialect.if_not_exists else self._existing_schema()
        )
        wanted = INDEXES + (UNIQUE if dialect.unique_needs_index else ())
        for label, prop in wanted:
            if (label, prop) not in have_index:
                self._run(ddl(dialect.index_ddl, label, prop), {}, write=True)
        for label, prop in UNIQUE:
            if (label, prop) not in have_unique:
                if dialect.unique_ddl is None:
                    self._create_unique(label, prop)
                else:
                    self._run(ddl(dialect.unique_ddl, label, prop), {}, write=True)
        self._await_schema()

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
