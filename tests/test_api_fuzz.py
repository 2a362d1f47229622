"""Fuzzing the GraphQL API over HTTP: no input is an internal error, stops the store, or leaves
anything behind when it is refused.

Documents come from hypothesis-graphql over the real schema (valid ones, and ones with one schema
violation); variables from a strategy typed by the schema that also sends what does not fit
(wrong types, NaN, integers past 32 bits, missing variables). Strings are biased towards what has
broken things: control characters, lone surrogates, empty and long strings, and the ids and dates
of a small seeded graph, so that resolvers get past their first lookup.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import graphql
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_graphql import Mode, mutations, queries

from api.schema import schema
from graphmem.config import Settings
from graphmem.cypher import load_dir
from graphmem.series.synthetic import sales_series
from graphmem.store import Store, open_store
from graphmem.timeutil import iso

HTTP = httpx.Client()  # one client: making one per request costs ~40 ms
Q = load_dir(Path(__file__).parent / "cypher")
SCHEMA = graphql.build_schema(schema.as_str())
CODES = {
    "BAD_INPUT", "NOT_FOUND", "ALREADY_EXISTS", "GRAPHQL_VALIDATION", "LLM_NOT_CONFIGURED",
    "QUERY_TOO_COMPLEX", "LIMIT_EXCEEDED",
}  # fmt: skip
# GRAPHMEM_FUZZ_RANDOM=1 explores new examples (and GRAPHMEM_FUZZ_SCALE=10 ten times as many);
# by default the same examples run every time, so a failure here is a regression
SCALE = int(os.environ.get("GRAPHMEM_FUZZ_SCALE", "1"))
FUZZ = settings(
    max_examples=300 * SCALE,
    deadline=None,
    derandomize=not os.environ.get("GRAPHMEM_FUZZ_RANDOM"),
    database=None,
    suppress_health_check=list(HealthCheck),
)

CONTROL = [chr(c) for c in (*range(1, 32), 0x7F, *range(0x80, 0xA0))]
HOSTILE = [
    "", " ", "\t", "\n ", "\x00", "\x01", "a\x01b", "\x01a", "a\x01", "a\udc00b", "\ud800",
    "x" * 5000, "é" * 2049, "\u2028", "\ufeff", "a`b", "\\", '"}) MATCH (n) DETACH DELETE n //',
]  # fmt: skip
WORDS = [
    "2016-01-15", "2016-02-29", "2016-13-01", "2016-02-01T12:00:00", "1450000000", "-1e300",
    "nan", "1e999", "range", "filter", "members", "month", "week", "day", "year", "quarter",
    "similarity", "recall", "Event", "Proposition", "MetaSegment", "Segment", "sales",
]  # fmt: skip
JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers()),
)  # fmt: skip
SMALL = st.integers(0, 20)  # limits, offsets, k: mostly in range, so resolvers run
INTS = st.one_of(
    SMALL, SMALL, st.integers(-(2**31), 2**31 - 1),
    st.sampled_from([-1, 2**31, -(2**31) - 1, 2**63]),
)  # fmt: skip


def post(url: str, body: dict[str, Any]) -> httpx.Response:
    """POST a GraphQL request as JSON (NaN and lone surrogates as Python's json writes them)."""
    content = json.dumps(body)  # httpx's own encoder refuses both
    headers = {"content-type": "application/json"}
    return HTTP.post(f"{url}/graphql", content=content, headers=headers, timeout=120)


def snapshot(store: Store) -> tuple[list[str], list[str]]:
    """Every node and edge with its properties, in a comparable form."""
    dump = lambda rows: sorted(json.dumps(r, sort_keys=True) for r in rows)  # noqa: E731
    return dump(store.read(Q["fuzz_test.nodes"])), dump(store.read(Q["fuzz_test.edges"]))


def seed(url: str) -> list[str]:
    """A small graph (series, segments, a meta-segment, propositions, an event); its ids."""
    data = sales_series(seed=0, start="2015-12-01", end="2016-04-30")

    def call(query: str, **variables: object) -> dict:
        body = post(url, {"query": query, "variables": variables}).json()
        assert "errors" not in body, body
        return body["data"]

    sid = call('mutation { createSeries(name: "sales", unit: "units") { id } }')
    sid = sid["createSeries"]["id"]
    pairs = zip(data.ts, data.xs, strict=True)
    points = [{"timestamp": iso(t), "value": float(x)} for t, x in pairs]
    appended = call(
        "mutation($s: ID!, $p: [PointInput!]!) { appendPoints(seriesId: $s, points: $p) "
        "{ segments { id } } }", s=sid, p=points,
    )["appendPoints"]  # fmt: skip
    metas = call(
        'mutation($s: ID!) { buildMetaSegments(spec: {seriesId: $s, kind: "range", '
        'start: "2016-01-01", end: "2016-03-31", freq: "month"}) { id } }', s=sid,
    )["buildMetaSegments"]  # fmt: skip
    props = call(
        "mutation($p: [PropositionInput!]!) { addPropositions(propositions: $p) "
        "{ propositionIds } }",
        p=[{"text": "Sales rose in February 2016.", "date": "2016-02-29", "source": "report"},
           {"text": "Sales fell in March 2016.", "date": "2016-03-31"}],
    )["addPropositions"]["propositionIds"]  # fmt: skip
    event = call('mutation { addEvent(text: "Quarterly review", date: "2016-04-01") { id } }')
    ids = [s["id"] for s in appended["segments"]] + [m["id"] for m in metas]
    return [sid, *ids, *props, event["addEvent"]["id"]]


@pytest.fixture(scope="module")
def fuzzed(own_api_url: str, own_store_url: str) -> Iterator[tuple[str, Store, list[str]]]:
    store = open_store(own_store_url, Settings())
    store.write("admin.wipe")
    try:
        yield own_api_url, store, seed(own_api_url)
    finally:
        store.write("admin.wipe")
        store.close()


def strings(known: list[str]) -> st.SearchStrategy[str]:
    """Known ids and meaningful words (so resolvers get somewhere), any text (lone surrogates
    included), hostile strings and control characters."""
    meaningful, hostile = st.sampled_from(WORDS + known), st.sampled_from(HOSTILE)
    return st.one_of(
        meaningful, meaningful, hostile, hostile,
        st.text(st.characters(exclude_categories=()), max_size=12),
        st.sampled_from(CONTROL).map(lambda c: f"a{c}b"),
    )  # fmt: skip


def check(url: str, store: Store, body: dict[str, Any]) -> None:
    """Send one request; assert it is answered with coded errors only, and a refusal is clean."""
    before = snapshot(store)
    response = post(url, body)
    assert response.status_code == 200, response.text
    answer = response.json()
    errors = answer.get("errors") or []
    for error in errors:
        code = error.get("extensions", {}).get("code")
        assert code in CODES, (body, error)
        named = code not in ("BAD_INPUT", "LIMIT_EXCEEDED") or error["extensions"].get("field")
        assert named, (body, error)
    if refused(body["query"], errors):
        assert snapshot(store) == before, f"a refused request changed the graph: {body}"
    assert HTTP.get(f"{url}/healthz", timeout=30).status_code == 200, body


def refused(query: str, errors: list[dict[str, Any]]) -> bool:
    """Nothing in the request ran: it was refused whole, or each root field failed itself.

    (A root field that failed in a sub-field, or that ran before a failing one, may have
    stored something: GraphQL then still nulls `data` whole.)
    """
    if any("path" not in e or not e["path"] for e in errors):
        return bool(errors)  # parsing, validation or variables: refused before execution
    try:
        roots = graphql.parse(query).definitions[0].selection_set.selections
    except graphql.GraphQLError:
        return True
    keys = [(f.alias or f.name).value for f in roots if isinstance(f, graphql.FieldNode)]
    failed = {e["path"][0] for e in errors if len(e["path"]) == 1}
    return len(keys) == len(roots) and set(keys) <= failed


def _typed(t: graphql.GraphQLInputType, text: st.SearchStrategy[str]) -> st.SearchStrategy:
    """Values of an input type, null where it is nullable."""
    if isinstance(t, graphql.GraphQLNonNull):
        return _named(t.of_type, text)
    return st.one_of(st.none(), _named(t, text))


def _named(t: graphql.GraphQLInputType, text: st.SearchStrategy[str]) -> st.SearchStrategy:
    if isinstance(t, graphql.GraphQLList):
        return st.lists(_value(t.of_type, text), max_size=4)
    if isinstance(t, graphql.GraphQLInputObjectType):
        required = {n: f for n, f in t.fields.items() if graphql.is_required_input_field(f)}
        return st.fixed_dictionaries(
            {n: _value(f.type, text) for n, f in required.items()},
            optional={n: _value(f.type, text) for n, f in t.fields.items() if n not in required},
        )
    scalars = {
        "Int": INTS, "Float": st.floats(), "String": text, "ID": st.one_of(text, INTS),
        "Boolean": st.booleans(),
    }  # fmt: skip
    return scalars[t.name]


def _value(t: graphql.GraphQLInputType, text: st.SearchStrategy[str]) -> st.SearchStrategy:
    """Mostly values of the type, sometimes anything JSON holds."""
    typed = _typed(t, text)
    return st.one_of(*[typed] * 7, JUNK)


def _declared(arg: graphql.GraphQLArgument) -> graphql.GraphQLInputType:
    """The variable type a client declares: nullable where the argument has a default."""
    if graphql.is_required_argument(arg) or not graphql.is_non_null_type(arg.type):
        return arg.type
    return arg.type.of_type


def _document(kind: str, name: str, field: graphql.GraphQLField) -> str:
    """`kind` operation calling root field `name` with every argument as a variable."""
    defs = ", ".join(f"${a}: {_declared(arg)}" for a, arg in field.args.items())
    uses = ", ".join(f"{a}: ${a}" for a in field.args)
    leaf = graphql.is_leaf_type(graphql.get_named_type(field.type))
    return (
        f"{kind}{f'({defs})' if defs else ''} {{ {name}{f'({uses})' if uses else ''}"
        f"{'' if leaf else ' { __typename }'} }}"
    )


def with_variables(known: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Requests calling one root field with its arguments as variables, some missing."""
    text = strings(known)
    requests = []
    for kind, root in (("query", SCHEMA.query_type), ("mutation", SCHEMA.mutation_type)):
        for name, field in root.fields.items():
            # arguments without a default are sent; the others may be left out (a missing
            # required variable comes from JUNK's None and from test_hostile_input.py)
            args = field.args
            required = {a for a, arg in args.items() if graphql.is_required_argument(arg)}
            variables = st.fixed_dictionaries(
                {a: _value(args[a].type, text) for a in required},
                optional={a: _value(_declared(args[a]), text) for a in args if a not in required},
            )
            doc = _document(kind, name, field)
            requests.append(variables.map(lambda v, doc=doc: {"query": doc, "variables": v}))
    return st.one_of(requests)


def documents(
    make: Callable[..., st.SearchStrategy[str]], root: graphql.GraphQLObjectType, known: list[str]
) -> st.SearchStrategy[dict[str, Any]]:
    """Documents calling one root field each (every field alike), valid or with one schema
    violation, with literal values biased as strings() is."""
    text = strings(known)
    scalars = {
        "String": text.map(lambda s: graphql.StringValueNode(value=s)),
        "ID": text.map(lambda s: graphql.StringValueNode(value=s)),
    }
    return st.one_of(
        make(SCHEMA, fields=[name], custom_scalars=scalars, mode=mode)
        for name, field in root.fields.items()
        for mode in ((Mode.POSITIVE, Mode.NEGATIVE) if _violable(field) else (Mode.POSITIVE,))
    ).map(lambda doc: {"query": doc})


def _violable(field: graphql.GraphQLField) -> bool:
    """hypothesis-graphql can break this field's arguments (a required one, or a scalar)."""
    scalar = lambda arg: graphql.is_scalar_type(graphql.get_named_type(arg.type))  # noqa: E731
    return any(graphql.is_required_argument(a) or scalar(a) for a in field.args.values())


def test_fuzzed_queries(fuzzed: tuple[str, Store, list[str]]) -> None:
    url, store, known = fuzzed

    @FUZZ
    @given(documents(queries, SCHEMA.query_type, known))
    def run(body: dict[str, Any]) -> None:
        check(url, store, body)

    run()


def test_fuzzed_mutations(fuzzed: tuple[str, Store, list[str]]) -> None:
    url, store, known = fuzzed

    @settings(FUZZ, max_examples=1000 * SCALE)
    @given(documents(mutations, SCHEMA.mutation_type, known))
    def run(body: dict[str, Any]) -> None:
        check(url, store, body)

    run()


def test_fuzzed_variables(fuzzed: tuple[str, Store, list[str]]) -> None:
    url, store, known = fuzzed

    @settings(FUZZ, max_examples=600 * SCALE)
    @given(with_variables(known))
    def run(body: dict[str, Any]) -> None:
        check(url, store, body)

    run()
