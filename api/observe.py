"""Request ids, metrics and readiness wired into the app (docs/observability.md).

Per HTTP request, ObserveMiddleware sets a request id and a RequestScope in context variables
and sends the library's counts to the app's Metrics; those reach the GraphQL worker threads
because api/execution.py runs each operation in a copy of the request's context. There,
OperationObserver notes each operation's label and outcome; when the response is sent the
middleware counts the request and its operations with the time it took.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
)
from graphql.utilities import get_operation_ast
from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionContext

from api.errors import error_extensions
from api.metrics import OTHER, Metrics, Operation
from api.readiness import WarmUp
from api.requestid import (
    HEADER,
    REQUEST_ID,
    current_request_id,
    install_log_records,
    request_id_for,
)
from api.state import AppState
from graphmem import metrics as lib

INVALID = "invalid"  # the operation label of a document that does not parse or validate
MAX_NAME = 64  # characters of an operation name kept in its label


@dataclass
class RequestScope:
    """What the middleware learns about one request while it is served."""

    request_id: str
    operations: list[Operation] = field(default_factory=list)


CURRENT: ContextVar[RequestScope | None] = ContextVar("graphmem_request", default=None)


class ObserveMiddleware:
    """Request id in, X-Request-Id out, library counts to the app's metrics, request counted."""

    def __init__(self, app: ASGIApp, metrics: Metrics, routes: frozenset[str]) -> None:
        self.app = app
        self.metrics = metrics
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = RequestScope(request_id_for(Headers(scope=scope).get(HEADER)))
        status = 500  # what the client gets if the app raises before it answers
        counted = False
        started = time.perf_counter()

        def count() -> None:
            nonlocal counted
            if not counted:
                counted = True
                route = scope["path"] if scope["path"] in self.routes else OTHER
                elapsed = time.perf_counter() - started
                self.metrics.observe(route, status, request.operations, elapsed)

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                MutableHeaders(scope=message)[HEADER] = request.request_id
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                count()  # before the last byte leaves: a client that has its answer sees it counted
            await send(message)

        try:
            with _in_request(request), lib.reporting_to(self.metrics.sink):
                await self.app(scope, receive, send_with_id)
        finally:
            count()  # an app that raised, or never finished its body


@contextlib.contextmanager
def _in_request(request: RequestScope) -> Iterator[None]:
    id_token, scope_token = REQUEST_ID.set(request.request_id), CURRENT.set(request)
    try:
        yield
    finally:
        CURRENT.reset(scope_token)
        REQUEST_ID.reset(id_token)


class OperationObserver(SchemaExtension):
    """Notes each operation's label, type and outcome in the request's scope."""

    def on_operation(self) -> Iterator[None]:
        yield
        request = CURRENT.get()
        if request is not None and self.execution_context.result is not None:
            request.operations.append(describe(self.execution_context))


def describe(context: ExecutionContext) -> Operation:
    """The operation's label (its name, else its root fields), type and outcome."""
    result = context.result
    errors = result.errors if result is not None else None
    outcome = code_of(errors[0]) if errors else "ok"
    document = context.graphql_document
    op = _operation(document, context)
    if document is None or op is None or outcome == "GRAPHQL_VALIDATION":
        # root field names of an invalid document could be anything the caller wrote
        return Operation(INVALID, op.operation.value if op else "unknown", outcome)
    name = op.name.value[:MAX_NAME] if op.name else ",".join(sorted(root_fields(op, document)))
    return Operation(name, op.operation.value, outcome)


def code_of(error: GraphQLError) -> str:
    """An error's code, whether GraphmemErrors has rewritten it yet or not."""
    code = (error.extensions or {}).get("code")
    return str(code) if code else str(error_extensions(error)["code"])


def _operation(
    document: DocumentNode | None, context: ExecutionContext
) -> OperationDefinitionNode | None:
    if document is None:
        return None
    try:
        return get_operation_ast(document, context.operation_name)
    except GraphQLError:
        return None


def root_fields(op: OperationDefinitionNode, document: DocumentNode) -> set[str]:
    """The names (not aliases) of the fields an operation selects at its root."""
    fragments = {
        d.name.value: d.selection_set
        for d in document.definitions
        if isinstance(d, FragmentDefinitionNode)
    }
    names: set[str] = set()

    def walk(selections: SelectionSetNode, seen: frozenset[str]) -> None:
        for node in selections.selections:
            if isinstance(node, FieldNode):
                names.add(node.name.value)
            elif isinstance(node, InlineFragmentNode):
                walk(node.selection_set, seen)
            elif isinstance(node, FragmentSpreadNode):
                spread = node.name.value
                if spread in fragments and spread not in seen:  # a cycle fails validation
                    walk(fragments[spread], seen | {spread})

    walk(op.selection_set, frozenset())
    return names


class RequestIdInResults:
    """Mixin for strawberry's ASGI view: extensions.requestId in every GraphQL response."""

    async def process_result(self, request: Any, result: Any) -> Any:
        data = await super().process_result(request, result)  # type: ignore[misc]
        request_id = current_request_id()
        if request_id is not None:
            data["extensions"] = {**(data.get("extensions") or {}), "requestId": request_id}
        return data


class Observability:
    """An app's metrics, request ids, warm-up and readiness: its routes, middleware, lifespan."""

    def __init__(self, state: AppState) -> None:
        install_log_records()
        self.metrics = Metrics(state)
        self.warmup = WarmUp(state, self.metrics.warmup, self.metrics.sink)

    def routes(self) -> list[Route]:
        return [
            Route("/readyz", self.warmup.endpoint),
            Route("/metrics", self.metrics.endpoint),
        ]

    def middleware(self, routes: Sequence[BaseRoute]) -> Middleware:
        """Outermost: requests refused by other middleware get an id and are counted too."""
        paths = frozenset(r.path for r in routes if isinstance(r, Route | Mount))
        return Middleware(ObserveMiddleware, metrics=self.metrics, routes=paths)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """For the app's lifespan: warm up (per GRAPHMEM_WARMUP), and wait for it at shutdown."""
        await self.warmup.start()
        try:
            yield
        finally:
            await self.warmup.stop()
