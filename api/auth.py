"""Who may call /graphql: a known bearer token (else 401), write access for mutations.

The token is checked before the request body is read; what it may do is checked while the
document is validated, so a refused operation never starts. A read-only token is refused any
document with a mutation in it: graphql-core validates every operation, whichever one
operationName picks, so no mutation slips through behind a query.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graphql import GraphQLError, OperationDefinitionNode, OperationType, ValidationRule
from graphql.validation import NoSchemaIntrospectionCustomRule
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from strawberry.extensions import SchemaExtension
from strawberry.types.unset import UNSET

from api.credentials import OPEN, Grant, Tokens
from api.requestid import current_request_id
from api.security import introspection_enabled
from graphmem.errors import Forbidden, GraphmemError, InvalidInput, Unauthenticated
from graphmem.spaces import DEFAULT_SPACE, checked_space

GRANT = "graphmem.grant"  # where a request's grant is kept in its ASGI scope
SPACE = "graphmem.space"  # and the space it chose
SPACE_HEADER = "X-Graphmem-Space"
REALM = 'Bearer realm="graphmem"'


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    scheme, _, token = (authorization or "").strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def unauthenticated(authorization: str | None) -> JSONResponse:
    """401 with a GraphQL-style body (code UNAUTHENTICATED) and a WWW-Authenticate challenge."""
    if authorization is None:
        message, challenge = "this API needs a token: send Authorization: Bearer <token>", REALM
    else:  # RFC 6750: say the token was wrong, never echo it
        message = "the Authorization header does not hold a known bearer token"
        challenge = f'{REALM}, error="invalid_token"'
    code = Unauthenticated.code
    body = {
        "data": None,
        "errors": [{"message": message, "extensions": {"code": code}}],
        "extensions": {"requestId": current_request_id()},
    }
    return JSONResponse(body, status_code=401, headers={"WWW-Authenticate": challenge})


def refused(error: GraphmemError, status: int) -> JSONResponse:
    """A GraphQL-style error body for a request refused before it runs."""
    extensions = {"code": error.code, **error.details()}
    body = {
        "data": None,
        "errors": [{"message": str(error), "extensions": extensions}],
        "extensions": {"requestId": current_request_id()},
    }
    return JSONResponse(body, status_code=status)


def chosen_space(scope: Any, grant: Grant) -> str | JSONResponse:
    """The space a request names in X-Graphmem-Space (none: `default`), kept in its scope; or
    the response refusing it: 400 for a bad name, 403 when the token is not bound to it."""
    header = Headers(scope=scope).get(SPACE_HEADER)
    try:
        space = checked_space(DEFAULT_SPACE if header is None else header, SPACE_HEADER)
    except InvalidInput as error:
        return refused(error, 400)
    if not grant.allows(space):
        message = f"{SPACE_HEADER}: the token {grant.name!r} is not bound to the space {space!r}"
        return refused(Forbidden(message), 403)
    scope[SPACE] = space
    return space


def space_of(request: Any) -> str:
    """The space chosen_space kept for a request (`default` when none was chosen)."""
    return request.scope.get(SPACE, DEFAULT_SPACE) if request is not None else DEFAULT_SPACE


class TokenAuth:
    """A mixin for strawberry's ASGI view: requests need a known token when tokens are set.

    The GraphiQL page needs none: it is static, and the operations it sends do.
    """

    tokens: Tokens

    async def run(self, request: Any, context: Any = UNSET, root_value: Any = UNSET) -> Response:
        if isinstance(request, Request):
            header = request.headers.get("authorization")
            grant = self.tokens.grant_for(bearer_token(header))
            adapter = self.request_adapter_class(request)  # type: ignore[attr-defined]
            if grant is not None:
                request.scope[GRANT] = grant
                chosen = chosen_space(request.scope, grant)
                if isinstance(chosen, Response):
                    return chosen
            elif not self.should_render_graphql_ide(adapter):  # type: ignore[attr-defined]
                return unauthenticated(header)
        return await super().run(request, context, root_value)  # type: ignore[misc]


def grant_of(request: Request) -> Grant | None:
    """The grant TokenAuth found for a request; None (read-only) if it found none."""
    return request.scope.get(GRANT)


class WriteAccessRule(ValidationRule):
    """Refuses every mutation (and subscription) in the document: FORBIDDEN."""

    def enter_operation_definition(self, node: OperationDefinitionNode, *_: Any) -> None:
        if node.operation != OperationType.QUERY:
            kind = node.operation.value
            name = f" {node.name.value}" if node.name else ""
            message = f"{kind}{name} needs a read-write token; this one is read-only"
            self.report_error(GraphQLError(message, node, original_error=Forbidden(message)))


class AccessRules(SchemaExtension):
    """Adds the validation rules the caller's grant and the settings call for."""

    def on_operation(self) -> Iterator[None]:
        context = self.execution_context.context
        grant = getattr(context, "grant", OPEN)  # a bare schema.execute: no HTTP, no tokens
        rules: list[type[ValidationRule]] = []
        if grant is None or not grant.can_write:
            rules.append(WriteAccessRule)
        state = getattr(context, "state", None)
        if state is not None and not introspection_enabled(state.settings):
            rules.append(NoSchemaIntrospectionCustomRule)
        if rules:
            self.execution_context.validation_rules = (
                *self.execution_context.validation_rules,
                *rules,
            )
        yield
