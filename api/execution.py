"""graphmem's strawberry Schema: operations run in parallel off the event loop.

Queries and mutations run on separate thread pools (api/state.py), so a query never waits
for a thread held by a mutation (a long append, an LLM call); a glance at the top level of
the text tells which pool. Each distinct query text is parsed and validated once: most
clients send the same few texts with different variables.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterator, Mapping
from typing import Any

import strawberry
from graphql import DocumentNode, GraphQLError, parse
from strawberry.extensions import SchemaExtension
from strawberry.schema.schema import validate_document
from strawberry.types import ExecutionContext, ExecutionResult

from api.errors import error_extensions

CACHED_TEXTS = 512  # distinct query texts kept parsed (and validated); least recently used go
CACHED_TEXT_MOST = 20_000  # characters: longer texts (values written inline) are not kept
# seconds a thread holding the GIL may keep others waiting for it (Python's default: 5 ms); a
# CPU-bound operation (decoding and checking a 150k-point append) would otherwise make a read
# wait that long each time it comes back from the store or the model
SWITCH_INTERVAL = 0.001


@functools.lru_cache(maxsize=CACHED_TEXTS)
def _parsed(query: str, options: tuple[tuple[str, Any], ...]) -> DocumentNode | GraphQLError:
    try:
        return parse(query, **dict(options))
    except GraphQLError as error:  # kept too, so a bad text is not parsed here again
        return error


def parsed(query: str, options: Mapping[str, Any] | None = None) -> DocumentNode | GraphQLError:
    """The document of `query` (or its syntax error), parsed once per text and options.

    Texts over CACHED_TEXT_MOST characters are parsed each time: a few hundred of them kept
    could fill the memory.
    """
    key = tuple(sorted((options or {}).items()))
    return (_parsed if len(query) <= CACHED_TEXT_MOST else _parsed.__wrapped__)(query, key)


def share_the_gil() -> None:
    """Sets the process's GIL switch interval for serving: reads beside CPU-bound writes."""
    sys.setswitchinterval(SWITCH_INTERVAL)


class _Identity:
    """Hashes and compares by identity: the schema and documents are shared, never copied."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Identity) and other.value is self.value


@functools.lru_cache(maxsize=CACHED_TEXTS)
def _valid(schema: _Identity, document: _Identity, rules: tuple[type, ...]) -> bool:
    # keyed by the document object, which `parsed` hands out once per text: identity, not the
    # dataclass hash over the whole tree
    return not validate_document(schema.value, document.value, rules)


class PreparedOnce(SchemaExtension):
    """Parses and validates each query text once; only valid documents are remembered.

    Errors are not: strawberry and other extensions may rewrite them per request.
    """

    def on_parse(self) -> Iterator[None]:
        context = self.execution_context
        if context.query is not None:
            document = parsed(context.query, context.parse_options)
            if isinstance(document, DocumentNode):
                context.graphql_document = document
        yield  # a text that does not parse is parsed again by strawberry, which reports it

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document, rules = context.graphql_document, tuple(context.validation_rules)
        kept = len(context.query or "") <= CACHED_TEXT_MOST  # else a new document each time
        if (
            document is not None
            and kept
            and _valid(_Identity(context.schema._schema), _Identity(document), rules)
        ):
            context.pre_execution_errors = []  # strawberry skips its own validation
        yield


# what decides an operation's type at the top level of a document: names, brackets; strings
# and comments are matched whole so that nothing inside them counts
_TOKEN = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n]|\\.)*"|#[^\n\r]*|[{}()]|[_A-Za-z]\w*'
)
_KEYWORDS = ("query", "mutation", "subscription")


def operation_kind(query: str | None, operation_name: str | None) -> str:
    """'mutation' when the operation to run is one, else 'query' (also for bad documents).

    Reads only the top level of the text up to the operation, without parsing: a new text
    is routed without the cost (and the limits) of parsing it, which its pool then does.
    A wrong guess for a malformed text only picks the pool it fails on.
    """
    depth, pending = 0, None  # the top-level keyword just read ("fragment" too)
    for match in _TOKEN.finditer(query or ""):
        token = match.group()
        if token in ("{", "("):
            if depth == 0:
                if operation_name is None and pending != "fragment" and (pending or token == "{"):
                    return _kind(pending)  # the first operation, or an anonymous one
                if token == "{":
                    pending = None  # the body of a fragment or of another operation
            depth += 1
        elif token in ("}", ")"):
            depth = max(0, depth - 1)
        elif depth == 0 and token[0] not in '"#':
            if pending in _KEYWORDS:  # the operation's name
                if operation_name is None or token == operation_name:
                    return _kind(pending)
                pending = None
            elif pending is None and token in (*_KEYWORDS, "fragment"):
                pending = token
    return "query"


def _kind(keyword: str | None) -> str:
    return "mutation" if keyword == "mutation" else "query"


class GraphmemSchema(strawberry.Schema):
    """A strawberry Schema whose resolvers (all synchronous) run on the app's worker pools."""

    async def execute(
        self,
        query: str | None,
        variable_values: Any = None,
        context_value: Any = None,
        root_value: Any = None,
        operation_name: str | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> ExecutionResult:
        state = getattr(context_value, "state", None)
        if state is None:  # not served by api.app (e.g. a bare schema.execute in a script)
            return await super().execute(
                query, variable_values, context_value, root_value, operation_name, *args, **kwargs
            )
        # store and model calls block: run the whole operation where they cannot stall the
        # event loop, so /healthz and other requests are answered meanwhile
        execute = functools.partial(
            self.execute_sync,
            query,
            variable_values,
            context_value,
            root_value,
            operation_name,
            *args,
            **kwargs,
        )

        def run() -> ExecutionResult:
            with context_value.lease:  # its space stays open until the operation is done
                return execute()

        # a text over the length limit is refused when parsed: not worth scanning to route it
        short = len(query or "") <= state.settings.limits.query_length
        kind = operation_kind(query, operation_name) if short else "query"
        return await state.run(run, kind)

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        """Log only unexpected errors: bad input, not found and the like are the caller's."""
        unexpected = [e for e in errors if error_extensions(e)["code"] == "INTERNAL"]
        super().process_errors(unexpected, execution_context)
