"""Translate graphmem errors into GraphQL errors carrying a code (and the bad field)."""

from __future__ import annotations

from collections.abc import Iterator

from graphql import GraphQLError
from strawberry.extensions import SchemaExtension

from graphmem.errors import GraphmemError, InvalidInput


def error_extensions(error: GraphQLError) -> dict[str, object]:
    """The `extensions` of a GraphQL error: a code, and the field for bad input."""
    original = error.original_error
    if original is None:
        return {"code": "GRAPHQL_VALIDATION"}
    if isinstance(original, InvalidInput):
        return {"code": original.code, "field": original.field}
    if isinstance(original, GraphmemError):
        return {"code": original.code}
    return {"code": "INTERNAL"}


class GraphmemErrors(SchemaExtension):
    """Adds a code to every error; hides the text of unexpected ones.

    Those are logged with their traceback by GraphmemSchema.process_errors (api/execution.py),
    which sees them before this extension rewrites them.
    """

    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        if not result or not result.errors:
            return
        cleaned = []
        for error in result.errors:
            extensions = error_extensions(error)
            message = error.message
            if extensions["code"] == "INTERNAL":
                message = f"internal error: {type(error.original_error).__name__}"
            cleaned.append(
                GraphQLError(message, error.nodes, path=error.path, extensions=extensions)
            )
        result.errors = cleaned
