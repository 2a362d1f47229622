"""How much a GraphQL operation asks for, read from its document before anything runs.

Its depth, aliases and estimated cost, and the sizes of its argument values (lists, strings,
`k`, `limit`) whether written in the document or sent as variables: so a million-item list is
refused before graphql-core coerces each item. Each fragment is measured once (per list size
it inherits), which keeps the measuring itself linear in the document: strawberry's
QueryDepthLimiter and MaxAliasesLimiter walk a fragment again at every spread, and a 1 KB
document of nested spreads keeps them busy for seconds.

The cost estimates how many objects the operation returns: an object field counts 1, a list
field counts its size times (1 + what each item selects). The size is the field's `k` or
`limit` argument (sent or default, also inside an input object such as `spec.k`); an object
field's `k` or `limit` sizes the lists under it (`subgraph(k).nodes`, a page's `items`); any
other list counts LIST_GUESS. Scalar fields and introspection (`__schema`, `__typename`)
count nothing.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLField,
    GraphQLSchema,
    InlineFragmentNode,
    Node,
    OperationDefinitionNode,
    SelectionSetNode,
    Undefined,
    ValueNode,
    get_named_type,
    get_nullable_type,
    is_input_object_type,
    is_list_type,
    value_from_ast_untyped,
)

from graphmem.errors import LimitExceeded
from graphmem.limits import ENV, Limits

LIST_GUESS = 10  # items assumed for a list without a k or limit of its own
SIZE_ARGUMENTS = {"k": "k", "limit": "page"}  # argument name -> the Limits attribute bounding it
# (root field, argument) -> the Limits attribute bounding that argument's own list or string;
# other lists and strings, and items inside these, get list_items and text
SPECIFIC = {
    ("appendPoints", "points"): "points",
    ("addPropositions", "propositions"): "propositions",
    ("ingestDocument", "text"): "document",
    ("ingestDocuments", "documents"): "documents",
}
# (root field, argument) -> the Limits attribute bounding the strings inside its value
SPECIFIC_TEXTS = {("ingestDocuments", "documents"): "document"}


@dataclass(frozen=True)
class Size:
    """Depth, aliases and estimated cost of a selection."""

    depth: int = 0
    aliases: int = 0
    cost: int = 0

    def beside(self, other: Size) -> Size:
        """Two selections of the same object: the deeper one's depth, both aliases and costs."""
        return Size(
            max(self.depth, other.depth), self.aliases + other.aliases, self.cost + other.cost
        )


NOTHING = Size()


@dataclass(frozen=True)
class PageSize:
    """The value that sizes a field's list: its argument path, the value, whether it was sent."""

    path: str
    name: str  # k or limit
    value: int
    sent: bool


@dataclass
class Measure:
    """One walk over an operation: its Size, and the argument values over their limits."""

    schema: GraphQLSchema
    document: DocumentNode
    variables: Mapping[str, Any]
    limits: Limits
    oversized: list[tuple[Node, LimitExceeded]] = field(default_factory=list)
    _fragments: dict[str, FragmentDefinitionNode] = field(default_factory=dict)
    _memo: dict[tuple[str, int | None], Size] = field(default_factory=dict)
    _checked: set[int] = field(default_factory=set)  # field nodes whose arguments were checked

    def operation(self, operation: OperationDefinitionNode) -> Size:
        """The operation's Size; fills `oversized` on the way."""
        self._fragments = {
            d.name.value: d
            for d in self.document.definitions
            if isinstance(d, FragmentDefinitionNode)
        }
        self.variables = _with_defaults(operation, self.variables)
        root = self.schema.get_root_type(operation.operation)
        if root is None:
            return NOTHING
        return self._selections(operation.selection_set, root, None, frozenset())

    def _selections(
        self,
        selections: SelectionSetNode,
        parent: Any,
        inherited: int | None,
        seen: frozenset[str],
    ) -> Size:
        total = NOTHING
        for node in selections.selections:
            if isinstance(node, FieldNode):
                size = self._field(node, parent, inherited, seen)
            elif isinstance(node, InlineFragmentNode):
                condition = node.type_condition
                typ = self.schema.get_type(condition.name.value) if condition else parent
                size = self._selections(node.selection_set, typ, inherited, seen)
            elif isinstance(node, FragmentSpreadNode):
                size = self._spread(node.name.value, inherited, seen)
            else:
                continue
            total = total.beside(size)
        return total

    def _spread(self, name: str, inherited: int | None, seen: frozenset[str]) -> Size:
        fragment = self._fragments.get(name)
        if fragment is None or name in seen:  # unknown or cyclic: validation says so
            return NOTHING
        key = (name, inherited)
        if key not in self._memo:
            typ = self.schema.get_type(fragment.type_condition.name.value)
            self._memo[key] = self._selections(
                fragment.selection_set, typ, inherited, seen | {name}
            )
        return self._memo[key]

    def _field(
        self, node: FieldNode, parent: Any, inherited: int | None, seen: frozenset[str]
    ) -> Size:
        name = node.name.value
        if name.startswith("__"):  # introspection: bounded by the schema itself
            return NOTHING
        alias = 1 if node.alias else 0
        definition = (getattr(parent, "fields", None) or {}).get(name)
        if definition is None:  # unknown: validation names it
            return Size(1, alias, 0)
        values = self._values(node)
        page = page_size(definition, values)
        if id(node) not in self._checked:
            self._checked.add(id(node))
            self._check(node, name, values, page)
        if node.selection_set is None:
            return Size(1, alias, 0)
        listed = is_list_type(get_nullable_type(definition.type))
        # a size over its limit is refused as such (_check), not also as a cost
        own = None if page is None else max(0, min(page.value, self._most(page)))
        count = ((inherited or LIST_GUESS) if own is None else own) if listed else 1
        inner = self._selections(
            node.selection_set, get_named_type(definition.type), None if listed else own, seen
        )
        return Size(inner.depth + 1, alias + inner.aliases, count * (1 + inner.cost))

    def _values(self, node: FieldNode) -> dict[str, Any]:
        """The field's arguments as plain values, variables filled in (Undefined: not known)."""
        return {a.name.value: _untyped(a.value, self.variables) for a in node.arguments or ()}

    def _check(
        self, node: FieldNode, name: str, values: dict[str, Any], page: PageSize | None
    ) -> None:
        """Record the first value over its limit in each argument of `node`."""
        for argument in node.arguments or ():
            arg = argument.name.value
            problem = oversized(
                arg,
                values.get(arg),
                self.limits,
                SPECIFIC.get((name, arg)),
                SPECIFIC_TEXTS.get((name, arg)),
            )
            if problem is not None:
                self.oversized.append((argument, problem))
        if page is not None and page.value > self._most(page):
            most, setting = self._most(page), ENV[SIZE_ARGUMENTS[page.name]]
            given = f"is {page.value:,}" if page.sent else f"defaults to {page.value:,}"
            text = f"{given}, more than the {most:,} allowed ({setting})"
            self.oversized.append((node, LimitExceeded(page.path, text, most, page.value)))

    def _most(self, page: PageSize) -> int:
        return getattr(self.limits, SIZE_ARGUMENTS[page.name])


def page_size(definition: GraphQLField, values: Mapping[str, Any]) -> PageSize | None:
    """The `k` or `limit` of a field, sent or default; also one inside an input object."""
    for arg_name, arg in definition.args.items():
        if arg_name in SIZE_ARGUMENTS:
            return _page(arg_name, arg_name, values.get(arg_name, Undefined), arg.default_value)
        typ = get_named_type(arg.type)
        if is_input_object_type(typ):
            for name in SIZE_ARGUMENTS.keys() & typ.fields.keys():
                given = values.get(arg_name)
                value = given.get(name, Undefined) if isinstance(given, dict) else Undefined
                return _page(f"{arg_name}.{name}", name, value, typ.fields[name].default_value)
    return None


def _page(path: str, name: str, value: Any, default: Any) -> PageSize | None:
    if _is_int(value):
        return PageSize(path, name, value, sent=True)
    return PageSize(path, name, default, sent=False) if _is_int(default) else None


def _is_int(value: Any) -> bool:
    """A GraphQL Int: one outside 32 bits is refused as such when the variables are coerced."""
    return isinstance(value, int) and not isinstance(value, bool) and -(2**31) <= value < 2**31


def oversized(
    argument: str, value: Any, limits: Limits, specific: str | None, texts: str | None = None
) -> LimitExceeded | None:
    """The first list or string in an argument's value longer than allowed, if any.

    `specific` names the Limits attribute for the argument's own value (points, document...);
    lists inside it, and in other arguments, get list_items, and strings `texts` (the
    documents of ingestDocuments) or else text. Walked without recursion, so no nesting is too
    deep for it, and with strings checked where they are met.
    """
    if isinstance(value, str | list):
        problem = _too_long((argument,), value, specific, limits)
        if problem is not None or isinstance(value, str):
            return problem
    elif not isinstance(value, dict):
        return None
    text, items = getattr(limits, texts or "text"), limits.list_items
    queue: deque[tuple[tuple, Any]] = deque([((argument,), value)])
    while queue:  # breadth first: the first item over its limit is the one named
        path, container = queue.popleft()
        pairs = enumerate(container) if type(container) is list else container.items()
        for key, item in pairs:
            kind = type(item)  # values decoded from JSON or a document: exact types
            if kind is str:
                if len(item) > text:
                    return _too_long((path, key), item, texts, limits)
            elif kind is dict or (kind is list and len(item) <= items):
                queue.append(((path, key), item))
            elif kind is list:
                return _too_long((path, key), item, None, limits)
    return None


def _too_long(
    path: tuple, value: str | list, attribute: str | None, limits: Limits
) -> LimitExceeded | None:
    """LimitExceeded if the string or list at `path` is longer than its limit allows."""
    if isinstance(value, str):
        attribute, unit, verb = attribute or "text", "characters long", "is"
    else:
        attribute, unit, verb = attribute or "list_items", "items", "has"
    most = getattr(limits, attribute)
    if len(value) <= most:
        return None
    problem = f"{verb} {len(value):,} {unit}, more than the {most:,} allowed ({ENV[attribute]})"
    return LimitExceeded(_path_text(path), problem, most, len(value))


def _path_text(path: tuple) -> str:
    """('points',) -> points; ((('points',), 3), 'text') -> points[3].text."""
    parts = list(_unwind(path))
    steps = (f"[{p}]" if isinstance(p, int) else f".{p}" for p in reversed(parts[:-1]))
    return parts[-1] + "".join(steps)


def _unwind(path: tuple) -> Iterator[Any]:
    """The parts of a nested (parent, key) path, innermost key first."""
    while len(path) == 2:
        path, key = path
        yield key
    yield path[0]


def _with_defaults(
    operation: OperationDefinitionNode, variables: Mapping[str, Any]
) -> dict[str, Any]:
    """The variables sent, and the operation's defaults for those not sent."""
    values = {}
    for definition in operation.variable_definitions or ():
        name = definition.variable.name.value
        if name in variables:
            values[name] = variables[name]
        elif definition.default_value is not None:
            values[name] = _untyped(definition.default_value, {})
    return values


def _untyped(node: ValueNode, variables: Mapping[str, Any]) -> Any:
    """A literal as a plain value, variables filled in; Undefined if it cannot be one."""
    try:
        return value_from_ast_untyped(node, dict(variables))
    except ValueError:  # e.g. an integer literal too long to convert: validation says so
        return Undefined
