"""Neo4j 5 adapter through the official driver: connect, run, translate errors."""

from __future__ import annotations

from typing import Any

import neo4j
import neo4j.exceptions
from neo4j.graph import Node, Path, Relationship

from graphmem.errors import (
    AlreadyExists,
    InvalidInput,
    ReadOnlyViolation,
    StoreError,
    StoreUnavailable,
)
from graphmem.store.base import Health, Row, Store


def to_plain(value: Any) -> Any:
    """Driver values as plain Python: nodes and relationships become property dicts."""
    if isinstance(value, Node | Relationship):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, Path):
        return [to_plain(n) for n in value.nodes]
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    return value


def translate(error: Exception, what: str) -> Exception:
    """One place where driver errors become graphmem errors."""
    msg = getattr(error, "message", None) or str(error)
    if isinstance(error, neo4j.exceptions.ServiceUnavailable | neo4j.exceptions.AuthError):
        return StoreUnavailable(f"Neo4j is not reachable: {msg}")
    code = getattr(error, "code", "") or ""
    if code.endswith("ConstraintValidationFailed"):
        return AlreadyExists(f"{what}: an item with the same id already exists ({msg})")
    if "AccessMode" in code or "read access mode" in msg.lower():
        return ReadOnlyViolation(f"{what}: refused, the read-only path cannot write ({msg})")
    return StoreError(f"{what}: {msg}")


class Neo4jStore(Store):
    """A Neo4j 5 database."""

    engine = "neo4j"

    def __init__(
        self,
        uri: str,
        auth: tuple[str, str] | None,
        database: str | None,
        connect_timeout: float = 5.0,
    ) -> None:
        try:
            self._driver = neo4j.GraphDatabase.driver(
                uri, auth=auth, connection_timeout=connect_timeout
            )
        except (neo4j.exceptions.ConfigurationError, ValueError) as error:
            raise InvalidInput("store url", f"Neo4j refuses {uri}: {error}") from None
        self._database = database
        self._uri = uri

    def connect(self) -> None:
        """Check the server answers; fail fast when it is down.

        Without this the first statement (the schema) would be retried by the driver for its
        max_transaction_retry_time (30 s). The driver is closed on failure.
        """
        try:
            self._driver.verify_connectivity()
        except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError) as error:
            self._driver.close()
            raise translate(error, f"connecting to {self._uri}") from None

    def _run(
        self, text: str, params: dict[str, Any], *, write: bool, what: str = "query"
    ) -> list[Row]:
        def work(tx: neo4j.ManagedTransaction) -> list[Row]:
            result = tx.run(text, params)
            return [{k: to_plain(v) for k, v in record.items()} for record in result]

        try:
            with self._driver.session(database=self._database) as session:
                run = session.execute_write if write else session.execute_read
                return run(work)
        except neo4j.exceptions.Neo4jError as error:
            raise translate(error, what) from error
        except neo4j.exceptions.DriverError as error:
            raise translate(error, what) from error

    def health(self) -> Health:
        try:
            info = self._driver.get_server_info()
        except Exception as error:  # health must report, never raise
            return Health(self.engine, False, None, str(error))
        return Health(self.engine, True, f"{info.agent} (protocol {info.protocol_version})")

    def close(self) -> None:
        self._driver.close()
