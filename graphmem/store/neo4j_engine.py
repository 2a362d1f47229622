"""Neo4j 5 adapter through the official driver: connect, run, translate errors.

Every session of a store shares one bookmark manager, so on a cluster (or Aura) a read sees
the writes this store made before it (causal consistency). Statements run in managed
transactions, which the driver retries on transient failures (a deadlock, a leader switch);
what still fails after its retries is translated once, here. The driver's deprecation
notifications are switched off: graphmem's statements use `CALL { WITH x ... }`, deprecated
since Neo4j 5.23, because FalkorDB rejects the newer `CALL (x) { ... }` (see
tools/neo4j-lint/lint.mjs).
"""

from __future__ import annotations

from typing import Any

import neo4j
import neo4j.exceptions as ne
from neo4j.graph import Node, Path, Relationship

from graphmem import deadline
from graphmem.errors import (
    AlreadyExists,
    InvalidInput,
    ReadOnlyViolation,
    StoreAuthError,
    StoreError,
    StoreUnavailable,
)
from graphmem.store.base import GraphTypes, Health, Row, Store

DATABASE_NOT_FOUND = "Neo.ClientError.Database.DatabaseNotFound"
ACCESS_MODE = "Neo.ClientError.Statement.AccessMode"
# the transaction ran past the timeout it was given (TimedOutClientConfiguration) or the
# server's db.transaction.timeout (TimedOut); the server rolled it back
TIMED_OUT = "Neo.ClientError.Transaction.TransactionTimedOut"
# a transaction stopped by the server, e.g. at its timeout while it waited for a lock
STOPPED = (
    "Neo.ClientError.Transaction.Terminated",
    "Neo.ClientError.Transaction.LockClientStopped",
)
# writes refused by a member that cannot take them: a follower or read replica, or a read-only
# database (the driver retries both, on a new routing table, before they reach us)
NOT_WRITABLE = (ne.NotALeader, ne.ForbiddenOnReadOnlyDatabase)
QUIET = [neo4j.NotificationDisabledClassification.DEPRECATION]


def translate(error: Exception, what: str) -> Exception:
    """One place where driver errors become graphmem errors."""
    # a server error's own text (str() adds GQL fields); a driver error's is str()
    msg = (error.message if isinstance(error, ne.Neo4jError) else None) or str(error)
    code = getattr(error, "code", None) or ""
    detail = f"{msg} [{code}]" if code else msg
    if code.startswith(TIMED_OUT) or (code in STOPPED and deadline.passed()):
        return deadline.timed_out(what)
    if isinstance(error, ne.AuthError):
        return StoreAuthError(
            f"{what}: Neo4j authentication failed ({detail}); check the user and password "
            f"in the store URL or NEO4J_USER / NEO4J_PASSWORD"
        )
    if isinstance(error, ne.Forbidden):
        return StoreAuthError(f"{what}: the Neo4j user lacks a privilege for this ({detail})")
    if code == DATABASE_NOT_FOUND:
        return StoreUnavailable(
            f"{what}: the Neo4j database does not exist ({detail}); name an existing one in "
            f"the store URL's path or NEO4J_DATABASE"
        )
    if isinstance(error, NOT_WRITABLE):
        return StoreUnavailable(
            f"{what}: no Neo4j member would take the write ({detail}); on a cluster use a "
            f"routing URL (neo4j:// or neo4j+s://) so writes reach the leader"
        )
    if isinstance(error, ne.ServiceUnavailable | ne.SessionExpired):
        return StoreUnavailable(f"Neo4j is not reachable: {detail}")
    if isinstance(error, ne.TransientError):
        return StoreUnavailable(
            f"{what}: Neo4j failed transiently and kept failing when retried ({detail}); try again"
        )
    if isinstance(error, ne.ConfigurationError) and "Notification filtering" in msg:
        return StoreUnavailable(f"{what}: graphmem needs Neo4j 5.7 or newer ({detail})")
    if isinstance(error, ne.ConstraintError) or code.endswith("ConstraintValidationFailed"):
        return AlreadyExists(f"{what}: an item with the same id already exists ({detail})")
    if code == ACCESS_MODE:
        return ReadOnlyViolation(f"{what}: refused, the read-only path cannot write ({detail})")
    return StoreError(f"{what}: {detail}")


class Neo4jStore(Store):
    """A Neo4j 5 database."""

    engine = "neo4j"
    graph_types = GraphTypes((Node, Relationship), dict, Path, lambda p: p.nodes)

    def __init__(
        self,
        uri: str,
        auth: tuple[str, str] | None,
        database: str | None,
        connect_timeout: float = 5.0,
    ) -> None:
        try:
            self._driver = neo4j.GraphDatabase.driver(
                uri,
                auth=auth,
                connection_timeout=connect_timeout,
                notifications_disabled_classifications=QUIET,
            )
        except (ne.ConfigurationError, ValueError) as error:
            raise InvalidInput("store url", f"Neo4j refuses {uri}: {error}") from None
        self._bookmarks = neo4j.GraphDatabase.bookmark_manager()
        self._database = database
        self._uri = uri

    def connect(self) -> None:
        """Check the server answers; fail fast when it is down.

        Without this the first statement (the schema) would be retried by the driver for its
        max_transaction_retry_time (30 s). The driver is closed on failure.
        """
        try:
            self._driver.verify_connectivity()
        except (ne.Neo4jError, ne.DriverError) as error:
            self._driver.close()
            raise translate(error, f"connecting to {self._uri}") from None

    def _run(
        self, text: str, params: dict[str, Any], *, write: bool, what: str = "query"
    ) -> list[Row]:
        def work(tx: neo4j.ManagedTransaction) -> list[Row]:
            return [self._row(record.items()) for record in tx.run(text, params)]

        timeout = deadline.statement_ms(what)
        if timeout is not None:  # the operation's time left: the server rolls back past it
            work = neo4j.unit_of_work(timeout=timeout / 1000)(work)
        try:
            with self._driver.session(
                database=self._database, bookmark_manager=self._bookmarks
            ) as session:
                run = session.execute_write if write else session.execute_read
                return run(work)
        except (ne.Neo4jError, ne.DriverError) as error:
            raise translate(error, what) from error

    def health(self) -> Health:
        try:
            info = self._driver.get_server_info()
        except Exception as error:  # health must report, never raise
            return Health(self.engine, False, None, str(translate(error, "health check")))
        return Health(self.engine, True, f"{info.agent} (protocol {info.protocol_version})")

    def close(self) -> None:
        self._driver.close()
