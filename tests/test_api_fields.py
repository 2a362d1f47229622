"""Every BAD_INPUT names a field the request has, the way the request names it.

Walks every argument of every query and mutation (and every field inside input objects and
lists), breaking one at a time in arguments that otherwise succeed (tests/apiseed.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import graphql
import pytest
from apiseed import Seeded, document, leaves, post, put, seed, steps, valid_arguments

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
    "Date": ["0001-01-01", "2016-02-29", "9999-12-31"],
    "DateTime": ["0001-01-01T00:00:00Z", "2016-02-29T12:00:00+05:00", "9999-12-31T23:59:59"],
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


def bad_values(t: graphql.GraphQLNamedType) -> list[Any]:
    """Well-typed values to try in a place of type `t`: every value of an enum."""
    if isinstance(t, graphql.GraphQLEnumType):
        return list(t.values)
    return BAD[t.name]


def cases(known: Seeded) -> Iterator[tuple[str, str, graphql.GraphQLField, dict, str, Any]]:
    examples = valid_arguments(known)
    for kind, root in ROOTS:
        for name, field in root.fields.items():
            for base in examples[name]:
                for arg in base:
                    for path, scalar in leaves(arg, field.args[arg].type, base[arg]):
                        for value in bad_values(scalar):
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
