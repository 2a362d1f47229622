"""FalkorDB adapter: connect, run, translate errors, return plain values."""

from __future__ import annotations

import time
from typing import Any, Protocol

import redis.exceptions
from falkordb import Edge, FalkorDB, Node, Path

from graphmem import deadline
from graphmem.errors import (
    AlreadyExists,
    InvalidInput,
    ReadOnlyViolation,
    StoreError,
    StoreUnavailable,
)
from graphmem.store.base import Floats, GraphTypes, Health, Row, Store
from graphmem.store.schema import SchemaItem

CLIENT_NAME = "graphmem"
HEALTH_WAIT = 5.0  # seconds a health check may spend on the embedded server, restart included


class Supervisor(Protocol):
    """The embedded server's keeper (graphmem/store/embedded.py); None for external servers."""

    def check(self, client: FalkorDB, wait: float | None = None) -> None: ...

    def recover(self, client: FalkorDB, error: Exception, what: str, write: bool) -> None: ...

    def alive(self, client: FalkorDB, wait: float) -> None: ...

    def compact(self, force: bool = False) -> None: ...

    def release(self) -> None: ...


def literal(value: Any) -> str:
    """A parameter value as a Cypher literal for FalkorDB's `CYPHER k=v` header."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return quoted(value)
    if type(value) is Floats:  # raw points: all floats, no per-item dispatch
        return "[" + ",".join(map(float.__repr__, value)) + "]"
    if isinstance(value, list):
        return "[" + ",".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_key(k)}:{literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot send {type(value).__name__} to FalkorDB")


def quoted(text: str) -> str:
    r"""A string literal FalkorDB reads back verbatim.

    Its parser decodes \\ and \" (and \n, \t) inside double quotes but not \uXXXX, which
    would stay literal text, so characters are sent raw (control characters included) with
    only the backslash and the quote escaped. NUL cannot travel at all: plain() refuses it.
    """
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _key(key: str) -> str:
    # backticks quote any key, but FalkorDB has no escape for a backtick inside one
    if "`" in key or "\x00" in key:
        raise InvalidInput(f"map key {key!r}", "must not contain a backtick or NUL")
    return f"`{key}`"


def translate(error: Exception, what: str) -> Exception:
    """One place where FalkorDB/redis errors become graphmem errors."""
    msg = str(error)
    if isinstance(error, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError):
        return StoreUnavailable(f"FalkorDB is not reachable: {msg}")
    if "Query timed out" in msg:  # the server undid the statement (a write too: TIMEOUT_MAX)
        return deadline.timed_out(what)
    if "unique constraint violation" in msg:
        return AlreadyExists(f"{what}: an item with the same id already exists ({msg})")
    if "read-only" in msg:
        return ReadOnlyViolation(f"{what}: refused, the read-only path cannot write ({msg})")
    return StoreError(f"{what}: {msg}")


class FalkorDBStore(Store):
    """A graph in a FalkorDB server (embedded child process or external).

    When the embedded server is lost, its supervisor starts it again and a statement that
    never reached it is sent once more; one that was running when it died is not (it may
    have been applied, or be what stopped the server) and fails with StoreUnavailable.
    """

    engine = "falkordb"
    graph_types = GraphTypes((Node, Edge), lambda e: e.properties, Path, lambda p: p.nodes())

    def __init__(
        self, client: FalkorDB, graph: str, server: Supervisor | None = None, where: str = ""
    ) -> None:
        self._client = client
        self._graph = client.select_graph(graph)
        self._server = server
        self._where = where or "the FalkorDB server"
        self._closed = False
        self._timeout_max: int | None = None  # the server's TIMEOUT_MAX, read when first needed
        self.graph_name = graph

    def _run(
        self, text: str, params: dict[str, Any], *, write: bool, what: str = "query"
    ) -> list[Row]:
        if params:  # names were checked to be identifiers by Store.params_of()
            header = " ".join(f"{k}={literal(v)}" for k, v in params.items())
            text = f"CYPHER {header} {text}"
        deadline.check(what)
        server = self._supervisor()
        if server is not None:
            server.check(self._client)  # restarts a server that died since the last statement
        timeout = deadline.statement_ms(what)  # what is left after any restart
        if timeout is not None:
            timeout = self._capped(timeout)
        for attempt in (1, 2):
            try:
                return self._execute(text, write, timeout)
            except redis.exceptions.RedisError as error:
                if attempt == 2 or not isinstance(error, redis.exceptions.ConnectionError):
                    raise translate(error, what) from error
                self._lost(error, what, write)
        raise AssertionError("unreachable")

    def _supervisor(self) -> Supervisor | None:
        """The embedded server's keeper while the store is open (None: external server)."""
        return None if self._closed else self._server

    def _capped(self, timeout: int) -> int:
        """A statement's TIMEOUT within the server's TIMEOUT_MAX, which it may not exceed.

        The embedded server sets one (graphmem/store/server_process.py); a server without
        one applies a TIMEOUT to reads only, and lets writes run to the end.
        """
        if self._timeout_max is None:
            try:
                reply = self._client.connection.execute_command(
                    "GRAPH.CONFIG", "GET", "TIMEOUT_MAX"
                )
                self._timeout_max = int(reply[1])
            except redis.exceptions.ResponseError:  # an older server, or one that forbids it
                self._timeout_max = 0
            except redis.exceptions.RedisError:  # unreachable: the statement finds out, and says
                return timeout
        return min(timeout, self._timeout_max) if self._timeout_max > 0 else timeout

    def _execute(self, text: str, write: bool, timeout: int | None = None) -> list[Row]:
        try:
            run = self._graph.query if write else self._graph.ro_query
            result = run(text, timeout=timeout)
        except redis.exceptions.ResponseError as error:
            if not write and "empty key" in str(error):
                return []  # the graph does not exist until its first write: nothing to read
            raise
        names = [col[1] for col in result.header]
        return [self._row(zip(names, row, strict=True)) for row in result.result_set]

    def _lost(self, error: redis.exceptions.ConnectionError, what: str, write: bool) -> None:
        """Raise, unless the embedded server was restarted and `what` may be sent again."""
        if self._closed:
            raise StoreUnavailable(f"{what}: the store is closed") from error
        if self._server is None:
            raise StoreUnavailable(
                f"{self._where} is not reachable ({error}); graphmem does not run that server, "
                f"it reconnects on the next statement once the server is back"
            ) from error
        self._server.recover(self._client, error, what, write)

    def _create_unique(self, label: str, props: tuple[str, ...]) -> None:
        self._constraint("CREATE", label, props)

    def _drop_unique(self, item: SchemaItem) -> None:
        self._constraint("DROP", item.label, item.props)

    def _constraint(self, verb: str, label: str, props: tuple[str, ...]) -> None:
        try:
            self._client.connection.execute_command(
                "GRAPH.CONSTRAINT",
                verb,
                self.graph_name,
                "UNIQUE",
                "NODE",
                label,
                "PROPERTIES",
                len(props),
                *props,
            )
        except redis.exceptions.RedisError as error:
            raise translate(error, f"unique constraint on {label}{props}") from error

    def _await_schema(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rows = self._list_uniques()
            failed = [r for r in rows if r["status"] == "FAILED"]
            if failed:
                raise StoreError(f"constraints could not be built (duplicates stored?): {failed}")
            if all(r["status"] == "OPERATIONAL" for r in rows):
                return
            time.sleep(0.05)
        raise StoreError("constraints still pending after 30 s")

    def apply_schema(self) -> int:
        created = super().apply_schema()
        if self._server is not None:
            # after the constraints are built: FalkorDB logs a constraint again when it
            # rebuilds one from the log. New DDL goes into the snapshot at once, since DDL
            # replayed from the log's tail leaves the rest of the replay without indexes.
            self._server.compact(force=created > 0)
        return created

    def health(self) -> Health:
        server = self._supervisor()
        try:
            if server is not None:  # restarted here too, so /healthz recovers without traffic
                server.alive(self._client, HEALTH_WAIT)
            return self._health()
        except (StoreUnavailable, redis.exceptions.RedisError) as error:
            where = "" if server is not None else f"{self._where}: "
            return Health(self.engine, False, None, f"{where}{error}")

    def _health(self) -> Health:
        info = self._client.connection.info("server")
        modules = self._client.connection.execute_command("MODULE", "LIST")
        code = next((int(m[3]) for m in modules if m[1] in ("graph", b"graph")), 0)
        version = f"{code // 10000}.{code // 100 % 100}.{code % 100}"
        return Health(self.engine, True, f"FalkorDB {version} (redis {info['redis_version']})")

    def close(self) -> None:
        # closed first: a statement failing as its connection closes must not restart the server
        closed, self._closed = self._closed, True
        try:
            self._client.connection.close()
            self._client.connection.connection_pool.disconnect()
        except redis.exceptions.RedisError:
            pass
        if self._server is not None and not closed:
            self._server.release()
