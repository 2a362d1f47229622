"""Neo4j errors as graphmem errors, with the driver's own exception classes (no server needed).

The driver builds a server error from the FAILURE message's code and text with
Neo4jError._hydrate_neo4j, which picks the subclass (AuthError, NotALeader, ...) from the code;
the tests build theirs the same way, so they get exactly what the driver would raise.
"""

from __future__ import annotations

import neo4j
import neo4j.exceptions as ne
import pytest

from graphmem.errors import (
    AlreadyExists,
    ReadOnlyViolation,
    StoreAuthError,
    StoreError,
    StoreUnavailable,
)
from graphmem.store.neo4j_engine import Neo4jStore, translate


def server_error(code: str, message: str = "the server's text") -> ne.Neo4jError:
    return ne.Neo4jError._hydrate_neo4j(code=code, message=message)


@pytest.mark.parametrize(
    ("error", "mapped", "says"),
    [
        (
            server_error("Neo.ClientError.Security.Unauthorized"),
            StoreAuthError,
            "authentication failed",
        ),
        (
            server_error("Neo.ClientError.Security.TokenExpired"),
            StoreAuthError,
            "authentication failed",
        ),
        (server_error("Neo.ClientError.Security.Forbidden"), StoreAuthError, "privilege"),
        (
            server_error("Neo.ClientError.Database.DatabaseNotFound"),
            StoreUnavailable,
            "database does not exist",
        ),
        (
            server_error("Neo.ClientError.Cluster.NotALeader"),
            StoreUnavailable,
            "no Neo4j member would take the write",
        ),
        (
            server_error("Neo.ClientError.General.ForbiddenOnReadOnlyDatabase"),
            StoreUnavailable,
            "no Neo4j member would take the write",
        ),
        (
            server_error("Neo.TransientError.Transaction.DeadlockDetected"),
            StoreUnavailable,
            "kept failing when retried",
        ),
        (
            server_error("Neo.TransientError.General.DatabaseUnavailable"),
            StoreUnavailable,
            "kept failing when retried",
        ),
        (
            ne.ServiceUnavailable("Couldn't connect to 127.0.0.1:1"),
            StoreUnavailable,
            "Neo4j is not reachable",
        ),
        (
            ne.SessionExpired("the cluster member went away"),
            StoreUnavailable,
            "Neo4j is not reachable",
        ),
        (
            server_error("Neo.ClientError.Schema.ConstraintValidationFailed"),
            AlreadyExists,
            "same id already exists",
        ),
        (
            server_error("Neo.ClientError.Statement.AccessMode"),
            ReadOnlyViolation,
            "read-only path cannot write",
        ),
        (
            ne.ConfigurationError(
                "Notification filtering is not supported for the Bolt Protocol 5.1"
            ),
            StoreUnavailable,
            "needs Neo4j 5.7 or newer",
        ),
        (
            server_error("Neo.ClientError.Statement.SyntaxError"),
            StoreError,
            "Neo.ClientError.Statement.SyntaxError",
        ),
    ],
)
def test_driver_errors_map_to_clear_graphmem_errors(
    error: Exception, mapped: type, says: str
) -> None:
    got = translate(error, "series.create")
    assert type(got) is mapped
    assert says in str(got)
    assert str(got).startswith(("series.create", "Neo4j is not reachable"))


def test_auth_failure_is_not_reported_as_unreachable() -> None:
    got = translate(server_error("Neo.ClientError.Security.Unauthorized"), "connecting")
    assert got.code == "STORE_AUTH" and "not reachable" not in str(got)
    assert "NEO4J_PASSWORD" in str(got), "says where the credentials come from"


def test_the_server_code_is_kept_for_the_schema_race() -> None:
    # two processes creating the same index at once: the loser's error counts as success
    store = Neo4jStore("bolt://127.0.0.1:1", None, None)  # the driver connects lazily
    try:
        for code in (
            "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
            "Neo.ClientError.Schema.IndexAlreadyExists",
            "Neo.ClientError.Schema.ConstraintAlreadyExists",
        ):
            assert store._tolerate_exists(raising(server_error(code))) == 0
        with pytest.raises(StoreError, match="SyntaxError"):
            store._tolerate_exists(raising(server_error("Neo.ClientError.Statement.SyntaxError")))
    finally:
        store.close()


def raising(error: ne.Neo4jError):
    def create() -> None:
        raise translate(error, "creating the index on Chunk.series_id")

    return create


def test_deprecation_notifications_are_off() -> None:
    store = Neo4jStore("bolt://127.0.0.1:1", None, None)
    try:
        config = store._driver._pool.pool_config  # where the driver keeps connection settings
        assert config.notifications_disabled_classifications == [
            neo4j.NotificationDisabledClassification.DEPRECATION
        ]
    finally:
        store.close()
