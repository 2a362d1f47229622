"""Fuzzing the GraphQL API over HTTP: no input is an internal error, stops the store, or leaves
anything behind when it is refused.

Documents come from hypothesis-graphql over the real schema (valid ones, and ones with one schema
violation); variables from a strategy typed by the schema that also sends what does not fit
(wrong types, NaN, integers past 32 bits, missing variables), and arguments that succeed on a
small seeded graph (tests/apiseed.py) as they are or with one value changed, so that the success
paths run too. Strings are biased towards what has broken things: control characters, lone
surrogates, empty and long strings, and the ids and dates of the seeded graph.

After each request the embedded server must be the same process: /healthz restarts a server
that died, so only its pid shows that a request crashed it.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from dataclasses import field as default
from pathlib import Path
from typing import Any

import graphql
import pytest
from apiseed import (
    HTTP,
    SEEDED_SERIES,
    Seeded,
    declared,
    document,
    leaves,
    post,
    put,
    seed,
    seed_series,
    valid_arguments,
    value_at,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_graphql import Mode, mutations, queries

from api.schema import schema
from graphmem.config import Settings
from graphmem.cypher import load_dir
from graphmem.props.model import document_id, proposition_id
from graphmem.store import Store, data_dir_of, open_store
from graphmem.store import server_process as proc
from graphmem.timeline import make_event

Q = load_dir(Path(__file__).parent / "cypher")
SCHEMA = graphql.build_schema(schema.as_str())
CODES = {
    "BAD_INPUT",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "GRAPHQL_VALIDATION",
    "LLM_NOT_CONFIGURED",
    "QUERY_TOO_COMPLEX",
    "LIMIT_EXCEEDED",
}
# GRAPHMEM_FUZZ_RANDOM=1 explores new examples (and GRAPHMEM_FUZZ_SCALE=10 ten times as many);
# by default the same examples run every time, so a failure here is a regression
SCALE = int(os.environ.get("GRAPHMEM_FUZZ_SCALE", "1"))
FUZZ = settings(
    max_examples=200 * SCALE,
    deadline=None,
    derandomize=not os.environ.get("GRAPHMEM_FUZZ_RANDOM"),
    database=None,
    suppress_health_check=list(HealthCheck),
)

CONTROL = [chr(c) for c in (*range(1, 32), 0x7F, *range(0x80, 0xA0))]
HOSTILE = [
    "",
    " ",
    "\t",
    "\n ",
    "\x00",
    "\x01",
    "a\x01b",
    "\x01a",
    "a\x01",
    "a\udc00b",
    "\ud800",
    "x" * 5000,
    "é" * 2049,
    "\u2028",
    "\ufeff",
    "a`b",
    "\\",
    '"}) MATCH (n) DETACH DELETE n //',
]
WORDS = [
    "2016-01-15",
    "2016-02-29",
    "2016-13-01",
    "2016-02-01T12:00:00",
    "1450000000",
    "-1e300",
    "nan",
    "1e999",
    "RANGE",
    "FILTER",
    "MEMBERS",
    "MONTH",
    "WEEK",
    "DAY",
    "YEAR",
    "QUARTER",
    "SIMILARITY",
    "RECALL",
    "EVENT",
    "PROPOSITION",
    "META_SEGMENT",
    "SEGMENT",
    "sales",
    "2016-02-01T12:00:00Z",
    "0001-01-01",
    "9999-12-31T23:59:59+14:00",
]
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers()),
)
SMALL = st.integers(0, 20)  # limits, offsets, k: mostly in range, so resolvers run
INTS = st.one_of(
    SMALL,
    SMALL,
    st.integers(-(2**31), 2**31 - 1),
    st.sampled_from([-1, 2**31, -(2**31) - 1, 2**63]),
)


def snapshot(store: Store) -> tuple[list[str], list[str]]:
    """Every node and edge with its properties, in a comparable form."""
    dump = lambda rows: sorted(json.dumps(r, sort_keys=True) for r in rows)  # noqa: E731
    return dump(store.read(Q["fuzz_test.nodes"])), dump(store.read(Q["fuzz_test.edges"]))


@dataclass
class Fuzzed:
    """The app under test, its store and seeded graph, and what the requests achieved."""

    url: str
    store: Store
    data_dir: Path
    known: Seeded
    server: int  # pid of the embedded server: a request that crashes it changes this
    succeeded: Counter[str] = default(default_factory=Counter)  # root field -> successes
    graph: tuple[list[str], list[str]] | None = None  # snapshot() as it is now, when known


@pytest.fixture(scope="module")
def fuzzed(own_api_url: str, own_store_url: str) -> Iterator[Fuzzed]:
    store = open_store(own_store_url, Settings())
    store.write("admin.wipe")
    data_dir = data_dir_of(own_store_url)
    assert data_dir is not None
    try:
        known = seed(own_api_url)
        yield Fuzzed(own_api_url, store, data_dir, known, server_pid(data_dir))
    finally:
        store.write("admin.wipe")
        store.close()


def server_pid(data_dir: Path) -> int:
    pid = proc.read_pid(data_dir)
    assert pid is not None and proc.alive(pid), "the embedded server runs"
    return pid


def strings(known: list[str]) -> st.SearchStrategy[str]:
    """Known ids and meaningful words (so resolvers get somewhere), any text (lone surrogates
    included), hostile strings and control characters."""
    meaningful, hostile = st.sampled_from(WORDS + known), st.sampled_from(HOSTILE)
    return st.one_of(
        meaningful,
        meaningful,
        hostile,
        hostile,
        st.text(st.characters(exclude_categories=()), max_size=12),
        st.sampled_from(CONTROL).map(lambda c: f"a{c}b"),
    )


def check(run: Fuzzed, body: dict[str, Any]) -> None:
    """Send one request; assert it is answered with coded errors only, a refusal is clean, and
    the embedded server is the one that ran before."""
    before = run.graph or snapshot(run.store)
    response = post(run.url, body)
    assert response.status_code == 200, response.text
    answer = response.json()
    errors = answer.get("errors") or []
    for error in errors:
        code = error.get("extensions", {}).get("code")
        assert code in CODES, (body, error)
        named = code not in ("BAD_INPUT", "LIMIT_EXCEEDED") or error["extensions"].get("field")
        assert named, (body, error)
    run.graph = None  # the request may have written
    if refused(body["query"], errors):
        assert snapshot(run.store) == before, f"a refused request changed the graph: {body}"
        run.graph = before  # as it was: the next request starts from it
    assert HTTP.get(f"{run.url}/healthz", timeout=30).status_code == 200, body
    assert server_pid(run.data_dir) == run.server, f"the server was restarted: {body}"
    failed = {e["path"][0] for e in errors if e.get("path")}
    data = answer.get("data") or {}
    run.succeeded.update(k for k, v in data.items() if k not in failed and v is not None)
    if not run.store.read("series.get", id=run.known.series):  # deleted by the request
        seed_series(run.url)
        run.graph = None


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
    if isinstance(t, graphql.GraphQLEnumType):
        return st.one_of(st.sampled_from(list(t.values)), text)
    scalars = {
        "Int": INTS,
        "Float": st.floats(),
        "String": text,
        "ID": st.one_of(text, INTS),
        "Boolean": st.booleans(),
        "Date": st.one_of(st.sampled_from(DAYS), text),
        "DateTime": st.one_of(st.sampled_from(DAYS), text),
    }
    return scalars[t.name]


def _value(t: graphql.GraphQLInputType, text: st.SearchStrategy[str]) -> st.SearchStrategy:
    """Mostly values of the type, sometimes anything JSON holds."""
    typed = _typed(t, text)
    return st.one_of(*[typed] * 7, JUNK)


def with_variables(known: Seeded) -> st.SearchStrategy[dict[str, Any]]:
    """Requests calling one root field with its arguments as variables: arguments that succeed
    (tests/apiseed.py), the same with one value changed, and anything typed by the schema
    (some missing)."""
    text = strings(known.ids)
    examples = valid_arguments(known)
    requests = []
    for kind, root in (("query", SCHEMA.query_type), ("mutation", SCHEMA.mutation_type)):
        for name, field in root.fields.items():
            doc = document(kind, name, field)
            bases = st.sampled_from(examples[name])
            valid = bases.flatmap(lambda base, field=field: _alike(base, field, known))
            changed = bases.flatmap(lambda base, field=field: _one_changed(base, field, text))
            variables = st.one_of(valid, valid, changed, changed, _any_arguments(field, text))
            requests.append(variables.map(lambda v, doc=doc: {"query": doc, "variables": v}))
    fresh, memories = _fresh_series(), _fresh_memories()
    return st.one_of(*requests, fresh, fresh, fresh, memories, memories)


DAYS = [f"2016-{month:02d}-{day:02d}" for month in range(1, 7) for day in (1, 10, 20)]
# values whose argument takes only a few: kept as they are
KEEP = {SEEDED_SERIES} | {
    value
    for t in SCHEMA.type_map.values()
    if isinstance(t, graphql.GraphQLEnumType)
    for value in t.values
}
WORDY = st.text("abcdefghij klmnop", min_size=1, max_size=20).map(str.strip).filter(bool)


def _alike(
    base: dict[str, Any], field: graphql.GraphQLField, known: Seeded
) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments like `base`, which succeed: at each of its places a value of the same kind
    (other seeded ids, dates, small counts, texts), so that each request is a new one."""
    places = [path for arg in base for path, _ in leaves(arg, field.args[arg].type, base[arg])]

    def fill(values: tuple[Any, ...]) -> dict[str, Any]:
        out = base
        for path, value in zip(places, values, strict=True):
            out = put(out, path, value)
        return out

    return st.tuples(*(_similar(value_at(base, path), known) for path in places)).map(fill)


def _similar(value: Any, known: Seeded) -> st.SearchStrategy[Any]:
    if isinstance(value, bool):
        return st.booleans()
    if isinstance(value, int):
        return st.integers(1, 10)  # limits, offsets, k, steps
    if not isinstance(value, str) or value in KEEP or value == known.series:
        return st.just(value)
    for group in (known.segments, known.metas, [*known.propositions, known.event]):
        if value in group:
            return st.sampled_from(group)
    return st.sampled_from(DAYS) if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) else WORDY


def _one_changed(
    base: dict[str, Any], field: graphql.GraphQLField, text: st.SearchStrategy[str]
) -> st.SearchStrategy[dict[str, Any]]:
    """`base` with the value at one of its places replaced by anything of its type (or not)."""
    places = [place for arg in base for place in leaves(arg, field.args[arg].type, base[arg])]
    if not places:
        return st.just(base)
    return st.sampled_from(places).flatmap(
        lambda place: _value(place[1], text).map(lambda value: put(base, place[0], value))
    )


def _any_arguments(field: graphql.GraphQLField, text: st.SearchStrategy[str]) -> st.SearchStrategy:
    """Arguments without a default are sent; the others may be left out (a missing required
    variable comes from JUNK's None and from test_hostile_input.py)."""
    args = field.args
    required = {a for a, arg in args.items() if graphql.is_required_argument(arg)}
    return st.fixed_dictionaries(
        {a: _value(args[a].type, text) for a in required},
        optional={a: _value(declared(args[a]), text) for a in args if a not in required},
    )


FRESH = (
    "mutation($n: String!, $i: ID!, $p: [PointInput!]!) { createSeries(name: $n) { id } "
    "appendPoints(seriesId: $i, points: $p) { accepted } closeSeries(seriesId: $i) { boundaries } "
    "deleteSeries(id: $i) { id } }"
)


def _fresh_series() -> st.SearchStrategy[dict[str, Any]]:
    """A new series, well-formed points for it, its close and its deletion: the write paths
    succeed, whatever examples Hypothesis draws for the seeded series."""
    days = st.lists(st.integers(0, 3000), min_size=1, max_size=30, unique=True).map(sorted)
    values = st.one_of(st.none(), st.floats(-1e6, 1e6))
    points = days.flatmap(
        lambda ds: st.lists(values, min_size=len(ds), max_size=len(ds)).map(
            lambda xs: [
                {"timestamp": str(1_450_000_000 + 86_400 * d), "value": x}
                for d, x in zip(ds, xs, strict=True)
            ]
        )
    )
    name = st.text("abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=12).map(lambda n: f"f-{n}")
    return st.builds(
        lambda n, p: {"query": FRESH, "variables": {"n": n, "i": n, "p": p}}, name, points
    )


FRESH_MEMORIES = """mutation($docs: [DocumentInput!]!, $doc: ID!, $props: [PropositionInput!]!,
  $old: ID!, $text: String!, $new: ID!, $event: String!, $date: Date!, $ev: ID!) {
  ingestDocuments(documents: $docs) { added } deleteDocument(id: $doc) { id }
  addPropositions(propositions: $props) { added } updateProposition(id: $old, text: $text) { id }
  deleteProposition(id: $new) { id }
  addEvent(text: $event, date: $date) { id } deleteEvent(id: $ev) { id } }"""


def _fresh_memories() -> st.SearchStrategy[dict[str, Any]]:
    """A new document, proposition and event, an edit, and their deletion: every request that
    deletes or edits them succeeds, whatever the requests before did to the seeded graph."""

    def request(words: list[str], date: str) -> dict[str, Any]:
        doc, prop, fixed, event = (f"{w.capitalize()} {i}." for i, w in enumerate(words))
        return {
            "query": FRESH_MEMORIES,
            "variables": {
                "docs": [{"text": doc, "date": date}],
                "doc": document_id(doc, date, None),
                "props": [{"text": prop, "date": date}],
                "old": proposition_id(prop, date),
                "text": fixed,
                "new": proposition_id(fixed, date),
                "event": event,
                "date": date,
                "ev": make_event(event, date).id,
            },
        }

    return st.builds(request, st.lists(WORDY, min_size=4, max_size=4), st.sampled_from(DAYS))


def documents(
    make: Callable[..., st.SearchStrategy[str]], root: graphql.GraphQLObjectType, known: list[str]
) -> st.SearchStrategy[dict[str, Any]]:
    """Documents calling one root field each (every field alike), valid or with one schema
    violation, with literal values biased as strings() is."""
    text = strings(known)
    as_string = lambda s: graphql.StringValueNode(value=s)  # noqa: E731
    times = st.one_of(st.sampled_from(DAYS), text).map(as_string)
    scalars = {
        "String": text.map(as_string),
        "ID": text.map(as_string),
        "Date": times,
        "DateTime": times,
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


def test_fuzzed_queries(fuzzed: Fuzzed) -> None:
    @FUZZ
    @given(documents(queries, SCHEMA.query_type, fuzzed.known.ids))
    def run(body: dict[str, Any]) -> None:
        check(fuzzed, body)

    run()


def test_fuzzed_mutations(fuzzed: Fuzzed) -> None:
    @settings(FUZZ, max_examples=400 * SCALE)
    @given(documents(mutations, SCHEMA.mutation_type, fuzzed.known.ids))
    def run(body: dict[str, Any]) -> None:
        check(fuzzed, body)

    run()


def test_fuzzed_variables(fuzzed: Fuzzed) -> None:
    fuzzed.succeeded.clear()

    @settings(FUZZ, max_examples=600 * SCALE)
    @given(with_variables(fuzzed.known))
    def run(body: dict[str, Any]) -> None:
        check(fuzzed, body)

    run()
    # which roots a fixed number of drawn examples reaches with valid arguments depends on the
    # constants Hypothesis draws from the modules loaded; a root none reached must still answer
    # its seeded arguments after all the fuzzing (ask needs an LLM, which the app has not)
    roots = {n for t in (SCHEMA.query_type, SCHEMA.mutation_type) for n in t.fields} - {"ask"}
    examples = valid_arguments(fuzzed.known)
    for kind, root in (("query", SCHEMA.query_type), ("mutation", SCHEMA.mutation_type)):
        for name in sorted(roots & set(root.fields) - set(fuzzed.succeeded)):
            doc = document(kind, name, root.fields[name])
            check(fuzzed, {"query": doc, "variables": examples[name][0]})
    never = roots - set(fuzzed.succeeded)
    assert not never, f"no request succeeded: {never}"
