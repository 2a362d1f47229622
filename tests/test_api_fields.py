"""Every BAD_INPUT names a field the request has, the way the request names it.

Walks every argument of every query and mutation (and every field inside input objects and
lists), breaking one at a time in arguments that otherwise succeed (tests/apiseed.py).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

import graphql
import pytest
from apiseed import Seeded, post, seed, valid_arguments

from api.schema import schema
from graphmem.config import Settings
from graphmem.store import open_store

SCHEMA = graphql.build_schema(schema.as_str())
ROOTS = [("query", SCHEMA.query_type), ("mutation", SCHEMA.mutation_type)]
# well-typed values that are wrong for many arguments
BAD: dict[str, list[Any]] = {
    "String": ["a\x01b", "", "   ", "x" * 20_001, "-1", "2016-13-45"],
    "ID": ["a\x01b", "", "x" * 20_001, "no such id"],
    "Int": [-1, 0, 2**31 - 1],
    "Float": [-1e308, -1.0, 0.0, 1e308],
    "Boolean": [True, False],
}
UNSTORABLE = "a\x01b"  # refused in every string, so the error must name exactly its place


@pytest.fixture(scope="module")
def seeded(own_api_url: str, own_store_url: str) -> Iterator[tuple[str, Seeded]]:
    store = open_store(own_store_url, Settings())
    store.write("admin.wipe")
    try:
        yield own_api_url, seed(own_api_url)
    finally:
        store.write("admin.wipe")
        store.close()


def document(kind: str, name: str, field: graphql.GraphQLField) -> str:
    """`kind` operation calling `name` with every argument as a variable of its own type."""
    defs = ", ".join(f"${a}: {declared(arg)}" for a, arg in field.args.items())
    uses = ", ".join(f"{a}: ${a}" for a in field.args)
    leaf = graphql.is_leaf_type(graphql.get_named_type(field.type))
    return (
        f"{kind}{f'({defs})' if defs else ''} {{ {name}{f'({uses})' if uses else ''}"
        f"{'' if leaf else ' { __typename }'} }}"
    )


def declared(arg: graphql.GraphQLArgument) -> graphql.GraphQLInputType:
    """The variable type a client declares: nullable where the argument has a default."""
    if graphql.is_required_argument(arg) or not graphql.is_non_null_type(arg.type):
        return arg.type
    return arg.type.of_type


def leaves(path: str, t: graphql.GraphQLInputType, given: Any) -> Iterator[tuple[str, str]]:
    """(path, scalar type name) of every scalar place inside `given`, a value of type `t`."""
    t = graphql.get_nullable_type(t)
    if isinstance(t, graphql.GraphQLList):
        yield from leaves(f"{path}[0]", t.of_type, given[0] if given else None)
    elif isinstance(t, graphql.GraphQLInputObjectType):
        for name, sub in t.fields.items():
            if given is None or name in given:
                yield from leaves(f"{path}.{name}", sub.type, (given or {}).get(name))
    else:
        yield path, t.name


_STEP = re.compile(r"\.?([A-Za-z_]\w*)|\[(\d+)\]")


def steps(path: str) -> list[str | int]:
    return [name or int(index) for name, index in _STEP.findall(path)]


def put(variables: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of `variables` with `value` at `path` (lists and objects made as needed)."""
    out = copy.deepcopy(variables)
    *parents, last = steps(path)
    here: Any = out
    for step, after in zip(parents, [*parents[1:], last], strict=False):
        empty: Any = [] if isinstance(after, int) else {}
        if isinstance(step, int):
            if len(here) <= step:
                here.append(empty)
        elif here.get(step) is None:
            here[step] = empty
        here = here[step]
    if isinstance(last, int) and len(here) <= last:
        here.append(value)
    else:
        here[last] = value
    return out


def names_a_place(field: graphql.GraphQLField, path: str) -> bool:
    """`path` (e.g. spec.memberIds[0]) is an argument of `field`, or a place inside one."""
    first, *rest = steps(path) or [""]
    if first not in field.args:
        return False
    t: Any = field.args[first].type
    for step in rest:
        t = graphql.get_nullable_type(t)
        if isinstance(step, int):
            if not isinstance(t, graphql.GraphQLList):
                return False
            t = t.of_type
        elif isinstance(t, graphql.GraphQLInputObjectType) and step in t.fields:
            t = t.fields[step].type
        else:
            return False
    return True


def cases(known: Seeded) -> Iterator[tuple[str, str, graphql.GraphQLField, dict, str, Any]]:
    examples = valid_arguments(known)
    for kind, root in ROOTS:
        for name, field in root.fields.items():
            for base in examples[name]:
                for arg in base:
                    for path, scalar in leaves(arg, field.args[arg].type, base[arg]):
                        for value in BAD[scalar]:
                            yield kind, name, field, put(base, path, value), path, value


def test_every_bad_input_names_a_field_of_the_request(seeded: tuple[str, Seeded]) -> None:
    url, known = seeded
    every = {
        (name, path)
        for _, root in ROOTS
        for name, field in root.fields.items()
        for arg, spec in field.args.items()
        for path, _ in leaves(arg, spec.type, None)
    }
    walked = {(name, path) for _, name, _, _, path, _ in cases(known)}
    assert walked == every, f"tests/apiseed.py gives no valid value for {every - walked}"
    wrong, unnamed = [], []
    for kind, name, field, variables, path, value in cases(known):
        answer = post(url, {"query": document(kind, name, field), "variables": variables}).json()
        named = [e["extensions"] for e in answer.get("errors") or []]
        named = [e["field"] for e in named if e["code"] == "BAD_INPUT"]
        assert not any(f.startswith("$") for f in named), (name, path, answer)  # well-typed
        for field_name in named:
            if not names_a_place(field, field_name):
                wrong.append((name, path, repr(value)[:30], field_name))
        if value == UNSTORABLE and named and path not in named:
            unnamed.append((name, path, named))
    assert not wrong, "\n".join(map(str, wrong))
    assert not unnamed, "\n".join(map(str, unnamed))
