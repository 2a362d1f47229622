"""Measuring an operation before it runs: the cost examples of docs/limits.md, and values nested
deeper than any recursion would go."""

from __future__ import annotations

from typing import Any

import graphql
import pytest

from api.complexity import Measure, Size, oversized
from api.schema import schema
from graphmem.limits import Limits

BOMB = (
    "{"
    + " ".join(
        f'a{i}: subgraph(question: "q", k: 200) {{ nodes {{ id text }} }}' for i in range(1000)
    )
    + "}"
)


def measure(query: str, **variables: Any) -> Size:
    document = graphql.parse(query)
    operation = graphql.get_operation_ast(document)
    return Measure(schema._schema, document, variables, Limits()).operation(operation)


@pytest.mark.parametrize(
    ("query", "cost"),
    [
        ("{ series { items { id name } total } }", 101),
        ('{ segments(seriesId: "s", limit: 10000) { items { mean std } } }', 10_001),
        (
            '{ metaSegments(seriesId: "s") '
            "{ items { id members { items { id } } metaMembers { items { id } } } } }",
            20_301,
        ),
        ('{ subgraph(question: "q", k: 200) { nodes { id } edges { id } } }', 401),
        (BOMB, 201_000),
        ("query($f: PropositionFilter) { propositions(filter: $f) { items { id } } }", 101),
        (
            '{ timeline(limit: 7) { items { id } } toolCalls: metaSegment(id: "m") '
            "{ toolCalls(limit: 3) { items { id } } } }",
            8 + 1 + 4,
        ),
    ],
)
def test_the_cost_of_the_documented_examples(query: str, cost: int) -> None:
    assert measure(query).cost == cost


def test_depth_counts_every_field_level_and_aliases_every_alias() -> None:
    size = measure('{ a: metaSegment(id: "m") { b: metaMembers { total } } series { total } }')
    assert (size.depth, size.aliases) == (3, 2)


def test_a_k_sent_as_a_variable_or_its_default_sizes_the_list() -> None:
    query = 'query($k: Int = 50) { recall(query: "q", now: "2024-01-01", k: $k) { id } }'
    assert measure(query).cost == 50
    assert measure(query, k=7).cost == 7


def test_values_nested_deeper_than_recursion_allows_are_walked() -> None:
    nested: list = ["x" * 10_001]
    for _ in range(100_000):
        nested = [nested]
    problem = oversized("labels", nested, Limits(), None)
    assert problem is not None and problem.field == "labels" + "[0]" * 100_001
