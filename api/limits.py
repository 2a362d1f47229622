"""The service's limits at the GraphQL edge: checked before any resolver runs, and the time limit.

Per app, from its Settings (tests serve apps with small limits beside ones with the defaults),
so the limits are read from the request's context rather than fixed in the schema. What is
limited, the defaults and why: docs/limits.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from graphql import GraphQLError, OperationDefinitionNode, get_operation_ast
from strawberry.extensions import SchemaExtension

from api.complexity import Measure, Size
from api.context import Context
from graphmem import deadline
from graphmem.config import Settings
from graphmem.limits import ENV, Limits

# root fields that may call the LLM when one is configured: agent steps, extraction, relating
LLM_FIELDS = frozenset(
    {"ask", "ingestDocument", "ingestDocuments", "addPropositions", "updateProposition", "subgraph"}
)
COMPLEXITY = (  # (Size attribute, Limits attribute, what the number counts)
    ("depth", "depth", "fields nested {found:,} deep"),
    ("aliases", "aliases", "{found:,} aliases"),
    ("cost", "cost", "an estimated {found:,} objects to return"),
)
# graphql-core's errors for a document over the parser's limits
_PARSER_LIMITS = {
    "query_length": re.compile(r"^Syntax Error: Source contains more than (\d+) code points"),
    "tokens": re.compile(r"^Syntax Error: Document contains more than (\d+) tokens"),
}


class RequestLimits(SchemaExtension):
    """Refuses what is over the app's Limits before validation; runs operations under a deadline."""

    def on_operation(self) -> Iterator[None]:
        limits = self._limits()
        options: dict[str, Any] = self.execution_context.parse_options  # type: ignore[assignment]
        options["max_source_length"] = limits.query_length
        options["max_tokens"] = limits.tokens  # as strawberry's MaxTokensLimiter, per app
        yield

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        operation = (
            None if document is None else get_operation_ast(document, context.operation_name)
        )
        if operation is not None:
            errors = refusals(context.schema._schema, context, operation, self._limits())
            if errors:  # strawberry then skips validation: refused in the time it took to see
                context.pre_execution_errors = errors
        yield

    def on_execute(self) -> Iterator[None]:
        settings = _settings(self.execution_context)
        document = self.execution_context.graphql_document
        operation = (
            None
            if document is None
            else get_operation_ast(document, self.execution_context.operation_name)
        )
        if settings is None or operation is None:  # not served by api.app: no time limit
            yield
            return
        with deadline.limited(*time_limit(settings, operation)):
            yield

    def _limits(self) -> Limits:
        settings = _settings(self.execution_context)
        return Limits() if settings is None else settings.limits


def _settings(execution_context: Any) -> Settings | None:
    context = execution_context.context
    return context.state.settings if isinstance(context, Context) else None


def refusals(
    schema: Any, context: Any, operation: OperationDefinitionNode, limits: Limits
) -> list[GraphQLError]:
    """The errors for what in the operation is over a limit: complexity, then argument sizes."""
    measure = Measure(schema, context.graphql_document, context.variables or {}, limits)
    size = measure.operation(operation)
    errors = complexity_errors(size, limits, operation)
    errors += [
        GraphQLError(str(problem), node, original_error=problem)
        for node, problem in measure.oversized
    ]
    return errors


def complexity_errors(
    size: Size, limits: Limits, operation: OperationDefinitionNode
) -> list[GraphQLError]:
    """QUERY_TOO_COMPLEX for each of depth, aliases and cost over its limit."""
    errors = []
    for measured, limit, counts in COMPLEXITY:
        found, most = getattr(size, measured), getattr(limits, limit)
        if found > most:
            what = counts.format(found=found)
            errors.append(
                GraphQLError(
                    f"the operation is too complex: {what}, more than the {most:,} allowed "
                    f"({ENV[limit]})",
                    operation,
                    extensions={
                        "code": "QUERY_TOO_COMPLEX",
                        "limit": measured,
                        "max": most,
                        "found": found,
                    },
                )
            )
    return errors


def time_limit(settings: Settings, operation: OperationDefinitionNode) -> tuple[float, str]:
    """Seconds the operation may run, and the variable that sets them."""
    roots = {getattr(node, "name", None) for node in operation.selection_set.selections}
    names = {name.value for name in roots if name is not None}
    if settings.llm_configured and names & LLM_FIELDS:
        return settings.limits.llm_operation_timeout, ENV["llm_operation_timeout"]
    return settings.limits.operation_timeout, ENV["operation_timeout"]


def parser_limit_extensions(message: str) -> dict[str, object] | None:
    """The extensions of graphql-core's error for a document over a parser limit, if it is one."""
    for limit, pattern in _PARSER_LIMITS.items():
        match = pattern.match(message)
        if match:
            return {"code": "QUERY_TOO_COMPLEX", "limit": limit, "max": int(match[1])}
    return None
