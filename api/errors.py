"""Translate graphmem errors into GraphQL errors carrying a code (and the bad field)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping

from graphql import (
    ArgumentNode,
    DocumentNode,
    GraphQLError,
    ListValueNode,
    ObjectValueNode,
    ValueNode,
    Visitor,
    parse,
    visit,
)
from strawberry.extensions import SchemaExtension
from strawberry.utils.str_converters import to_camel_case

from api.limits import parser_limit_extensions
from graphmem.errors import GraphmemError, InvalidInput, clipped

# graphql-core's messages for a value that does not fit its type: "Variable '$p' has invalid
# value at [0].text: ..." (3.3; 3.2: "got invalid value", "of required type") and "Argument
# 'limit' has invalid value: ..."
_BAD_VALUE = re.compile(
    r"^(?:Variable '(?P<var>\$\w+)'|Argument '(?P<arg>\w+)') "
    r"(?:(?:has|got) invalid (?:default )?value|of (?:required|non-null) type)"
    r"(?: at (?P<at>[^:']+):)?"
)
# graphql-core's validation of a value written in the document (not a variable)
_BAD_LITERAL = re.compile(
    r"^(?:Expected value of type '|Value '[^']*' does not exist in '\w+' enum"
    r"|Enum '\w+' cannot represent non-enum value)"
)
_BAD_VARIABLES = ("Variable values are nested too deeply", "Too many errors processing variables")


def error_extensions(error: GraphQLError) -> dict[str, object]:
    """The `extensions` of a GraphQL error: a code, and the field for bad input.

    BAD_INPUT: a value the caller sent is wrong, whether graphmem or graphql-core (a variable
    that does not fit its type) found it; `field` names it ($variable or argument, with the
    path inside it). GRAPHQL_VALIDATION: the document itself cannot be parsed or does not fit
    the schema. QUERY_TOO_COMPLEX, LIMIT_EXCEEDED: over a limit (api/limits.py). INTERNAL: a bug.
    """
    original = error.original_error
    literal = _literal_field(error)
    if literal is not None:
        return {"code": "BAD_INPUT", "field": literal}
    if isinstance(original, GraphmemError):
        details = original.details()
        field = details.get("field")
        if isinstance(field, str):
            details["field"] = camel_path(field)
        return {"code": original.code, **details}
    if original is None and error.extensions and "code" in error.extensions:
        return dict(error.extensions)  # coded where it was raised (api/limits.py)
    if original is None or isinstance(original, GraphQLError):  # graphql-core's own errors
        limit = parser_limit_extensions(error.message)
        if limit is not None:
            return limit
        field = _bad_value_field(error.message)
        if field is not None:
            return {"code": "BAD_INPUT", "field": field}
        if original is None:
            return {"code": "GRAPHQL_VALIDATION"}
    return {"code": "INTERNAL"}


def _literal_field(error: GraphQLError) -> str | None:
    """The argument path of a value written in the document that does not fit its type.

    graphql-core's validation names the value's type, not its place (`asOf: "yesterday"`,
    `kind: CLUSTER`); the place is found again in the document by the value's position.
    """
    if not _BAD_LITERAL.match(error.message) or not error.nodes or error.source is None:
        return None
    loc = error.nodes[0].loc
    if loc is None:
        return None
    for argument in _arguments(parse(error.source)):
        path = _path_to(argument.value, loc.start, argument.name.value)
        if path is not None:
            return path
    return None


def _arguments(document: DocumentNode) -> list[ArgumentNode]:
    found: list[ArgumentNode] = []

    class Collect(Visitor):
        def enter_argument(self, node: ArgumentNode, *_: object) -> None:
            found.append(node)

    visit(document, Collect())
    return found


def _path_to(value: ValueNode, start: int, path: str) -> str | None:
    """`path` extended to the value inside `value` that starts at `start`, if there is one."""
    if value.loc is not None and value.loc.start == start:
        return path
    if isinstance(value, ObjectValueNode):
        inner = ((f.value, f"{path}.{f.name.value}") for f in value.fields)
    elif isinstance(value, ListValueNode):
        inner = ((v, f"{path}[{i}]") for i, v in enumerate(value.values))
    else:
        return None
    for node, sub in inner:
        found = _path_to(node, start, sub)
        if found is not None:
            return found
    return None


def _bad_value_field(message: str) -> str | None:
    """The variable or argument a graphql-core coercion message is about, if it is one."""
    match = _BAD_VALUE.match(message)
    if match:
        return (match["var"] or match["arg"]) + (match["at"] or "")
    return "variables" if message.startswith(_BAD_VARIABLES) else None


_HEAD = re.compile(r"^([A-Za-z_]\w*)(.*)$", re.DOTALL)
_NAME = re.compile(r"(?<![\w$])[A-Za-z]\w*")


def camel_path(field: str) -> str:
    """A field path in the request's spelling: every name in camelCase (as_of -> asOf).

    The one place every error's field passes: a library parameter (snake_case) that reached
    the client unnamed by request_names still comes out as the GraphQL argument. Variables
    ($name) are the client's own names and stay as written.
    """
    return _NAME.sub(lambda m: to_camel_case(m[0]), field)


@contextlib.contextmanager
def request_names(names: Mapping[str, str] | None = None, prefix: str = "") -> Iterator[None]:
    """Make InvalidInput raised inside name the field the way the GraphQL request does.

    The library names its own parameters (`series`, `member_ids[0]`, `as_of`); the request
    has arguments and input fields (`seriesId`, `spec.memberIds[0]`, `asOf`). A field is
    looked up whole in `names`, then by its first name (keeping what follows, e.g. an index);
    any other first name is written in camelCase. `prefix` places it in an input object.
    """
    try:
        yield
    except InvalidInput as error:
        field = request_path(error.field, names or {}, prefix)
        raise InvalidInput(field, error.problem) from None


def request_path(field: str, names: Mapping[str, str], prefix: str = "") -> str:
    """The request's name for the library's `field` (see request_names)."""
    if field in names:
        return prefix + names[field]
    match = _HEAD.match(field)
    if match is None:
        return prefix + field
    head, rest = match.groups()
    first, *others = head.split("_")
    return prefix + names.get(head, first + "".join(w.title() for w in others)) + rest


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
            else:  # graphql-core's own messages quote the value, however long
                message = clipped(message)
            cleaned.append(
                GraphQLError(message, error.nodes, path=error.path, extensions=extensions)
            )
        result.errors = cleaned
