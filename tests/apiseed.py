"""A small seeded graph on the app under test, and valid arguments for every root field.

Shared by tests/test_api_fuzz.py (so that fuzzed requests get past their first lookup and
the success paths run) and tests/test_api_fields.py (which breaks one argument at a time).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import graphql
import httpx

from graphmem.props.model import document_id, proposition_id
from graphmem.series.detect.synthetic import sales_series
from graphmem.timeline import make_event
from graphmem.timeutil import iso

HTTP = httpx.Client()  # one client: making one per request costs ~40 ms
SEEDED_SERIES = "sales"


def post(url: str, body: dict[str, Any]) -> httpx.Response:
    """POST a GraphQL request as JSON (NaN and lone surrogates as Python's json writes them)."""
    content = json.dumps(body)  # httpx's own encoder refuses both
    headers = {"content-type": "application/json"}
    return HTTP.post(f"{url}/graphql", content=content, headers=headers, timeout=120)


@dataclass(frozen=True)
class Seeded:
    """Ids of the seeded graph."""

    series: str
    segments: list[str]
    metas: list[str]
    propositions: list[str]
    event: str

    @property
    def ids(self) -> list[str]:
        return [self.series, *self.segments, *self.metas, *self.propositions, self.event]


def call(url: str, query: str, **variables: object) -> dict:
    """One request that must succeed; its data."""
    body = post(url, {"query": query, "variables": variables}).json()
    assert "errors" not in body, body
    return body["data"]


def seed_series(url: str) -> tuple[str, list[str], list[str]]:
    """The series with its points, segments and monthly meta-segments (ids are deterministic,
    so seeding again after the series was deleted gives the same ones)."""
    data = sales_series(seed=0, start="2015-12-01", end="2016-04-30")
    sid = call(url, f'mutation {{ createSeries(name: "{SEEDED_SERIES}", unit: "units") {{ id }} }}')
    sid = sid["createSeries"]["id"]
    pairs = zip(data.ts, data.xs, strict=True)
    points = [{"timestamp": iso(t), "value": float(x)} for t, x in pairs]
    appended = call(
        url,
        "mutation($s: ID!, $p: [PointInput!]!) { appendPoints(seriesId: $s, points: $p) "
        "{ segments { id } } }",
        s=sid,
        p=points,
    )["appendPoints"]
    metas = call(
        url,
        "mutation($s: ID!) { buildMetaSegments(spec: {seriesId: $s, kind: RANGE, "
        'start: "2016-01-01", end: "2016-03-31", frequency: MONTH}) { id } }',
        s=sid,
    )["buildMetaSegments"]
    return sid, [s["id"] for s in appended["segments"]], [m["id"] for m in metas]


def seed(url: str) -> Seeded:
    """A series with segments and meta-segments, propositions, an event (early 2016)."""
    sid, segments, metas = seed_series(url)
    props = call(
        url,
        "mutation($p: [PropositionInput!]!) { addPropositions(propositions: $p) "
        "{ propositionIds } }",
        p=[
            {"text": "Sales rose in February 2016.", "date": "2016-02-29", "source": "report"},
            {"text": "Sales fell in March 2016.", "date": "2016-03-31"},
        ],
    )["addPropositions"]["propositionIds"]
    event = call(url, 'mutation { addEvent(text: "Quarterly review", date: "2016-04-01") { id } }')
    return Seeded(sid, segments, metas, props, event["addEvent"]["id"])


def declared(arg: graphql.GraphQLArgument) -> graphql.GraphQLInputType:
    """The variable type a client declares: nullable where the argument has a default."""
    if graphql.is_required_argument(arg) or not graphql.is_non_null_type(arg.type):
        return arg.type
    return arg.type.of_type


def document(kind: str, name: str, field: graphql.GraphQLField) -> str:
    """`kind` operation calling root field `name` with every argument as a variable."""
    defs = ", ".join(f"${a}: {declared(arg)}" for a, arg in field.args.items())
    uses = ", ".join(f"{a}: ${a}" for a in field.args)
    leaf = graphql.is_leaf_type(graphql.get_named_type(field.type))
    return (
        f"{kind}{f'({defs})' if defs else ''} {{ {name}{f'({uses})' if uses else ''}"
        f"{'' if leaf else ' { __typename }'} }}"
    )


def valid_arguments(known: Seeded) -> dict[str, list[dict[str, Any]]]:
    """Arguments each root field succeeds with on the seeded graph (several for some).

    Mutations that store something store new things (a new series, later points, new texts),
    and nothing deletes or edits the seeded graph: deletions and edits aim at what those store.
    """
    sid, seg, meta = known.series, known.segments, known.metas[0]
    memo = {"text": "Sales rose.", "date": "2016-05-01", "source": "memo"}
    held = {"text": "Sales held in April 2016.", "date": "2016-04-30", "source": "report"}
    meeting = {"text": "Planning meeting", "date": "2016-05-02", "source": "calendar"}
    return {
        "health": [{}],
        "series": [{"limit": 10, "offset": 0}],
        "seriesById": [{"id": sid}, {"id": SEEDED_SERIES}],
        "segments": [
            {"seriesId": sid, "start": "2016-01-01", "end": "2016-03-01", "limit": 10, "offset": 0}
        ],
        "segment": [{"id": seg[0]}],
        "timeBounds": [{"seriesId": sid}],
        "metaSegments": [
            {"seriesId": sid, "kind": "RANGE", "frequency": "MONTH", "limit": 10, "offset": 0}
        ],
        "metaSegment": [{"id": meta}],
        "propositions": [
            {
                "filter": {
                    "source": "report",
                    "start": "2016-01-01",
                    "end": "2016-12-31",
                    "contains": "Sales",
                },
                "limit": 10,
                "offset": 0,
            }
        ],
        "relations": [
            {
                "propositionId": known.propositions[0],
                "asOf": "2016-12-31",
                "direction": "BOTH",
                "limit": 10,
                "offset": 0,
            }
        ],
        "subgraph": [
            {
                "question": "How did sales change?",
                "asOf": "2016-04-01",
                "k": 3,
                "expand": True,
                "refine": False,
                "rankBy": "SIMILARITY",
            },
            {"question": "sales", "rankBy": "RECALL", "now": "2016-05-01"},
        ],
        "recall": [
            {
                "query": "sales in spring",
                "now": "2016-05-01",
                "k": 3,
                "threshold": 0.1,
                "labels": ["PROPOSITION", "EVENT"],
                "reinforce": False,
            }
        ],
        "timeline": [
            {
                "start": "2016-01-01",
                "end": "2016-12-31",
                "now": "2016-05-01",
                "labels": ["EVENT"],
                "limit": 10,
                "offset": 0,
            }
        ],
        "createSeries": [{"name": "another", "unit": "kg", "description": "made by a test"}],
        "deleteSeries": [{"id": "another"}],
        "appendPoints": [
            {
                "seriesId": sid,
                "points": [
                    {"timestamp": "2017-01-01", "value": 1.5},
                    {"timestamp": "2017-01-02", "value": None},
                ],
            }
        ],
        "closeSeries": [{"seriesId": sid}],
        "buildMetaSegments": [
            {
                "spec": {
                    "kind": "RANGE",
                    "seriesId": sid,
                    "start": "2016-01-01",
                    "end": "2016-02-28",
                    "frequency": "WEEK",
                }
            },
            {
                "spec": {
                    "kind": "FILTER",
                    "seriesId": sid,
                    "start": "2016-01-01",
                    "end": "2016-04-30",
                    "slopeMin": -1e6,
                    "slopeMax": 1e6,
                    "stdMin": 0.0,
                    "stdMax": 1e9,
                    "meanMin": -1e9,
                    "meanMax": 1e9,
                    "durationMin": 0.0,
                    "durationMax": 1e4,
                    "minBelow": 1e9,
                    "maxAbove": -1e9,
                }
            },
            {"spec": {"kind": "FILTER", "seriesId": sid, "text": "rising sales", "k": 2}},
            {"spec": {"kind": "MEMBERS", "memberIds": seg[:2], "label": "first two"}},
        ],
        "ask": [{"question": "How did sales change?", "seriesId": sid, "maxSteps": 3}],
        "ingestDocument": [memo],
        "ingestDocuments": [
            {
                "documents": [
                    {"text": "Sales rose again.", "date": "2016-05-03", "source": "memo"}
                ],
                "replace": False,
            }
        ],
        "deleteDocument": [{"id": document_id(memo["text"], memo["date"], memo["source"])}],
        "addPropositions": [{"propositions": [{**held, "about": "Sales report › April"}]}],
        "updateProposition": [
            {
                "id": proposition_id(held["text"], held["date"]),
                "text": "Sales held in April.",
                "date": "2016-04-29",
                "source": "memo",
            }
        ],
        "deleteProposition": [{"id": proposition_id(held["text"], held["date"])}],
        "addEvent": [meeting],
        "deleteEvent": [{"id": make_event(meeting["text"], meeting["date"]).id}],
        "reinforce": [{"ids": [known.propositions[0], known.event], "now": "2016-05-01"}],
        "space": [{}],
        "spaces": [{}],
        "deleteSpace": [{"name": "scratch"}],  # a space nothing was written in
    }


def leaves(
    path: str, t: graphql.GraphQLInputType, given: Any
) -> Iterator[tuple[str, graphql.GraphQLScalarType]]:
    """(path, scalar type) of every scalar place inside `given`, a value of type `t` (None:
    of any value of that type)."""
    t = graphql.get_nullable_type(t)
    if isinstance(t, graphql.GraphQLList):
        yield from leaves(f"{path}[0]", t.of_type, given[0] if given else None)
    elif isinstance(t, graphql.GraphQLInputObjectType):
        for name, sub in t.fields.items():
            if given is None or name in given:
                yield from leaves(f"{path}.{name}", sub.type, (given or {}).get(name))
    else:
        yield path, t


_STEP = re.compile(r"\.?([A-Za-z_]\w*)|\[(\d+)\]")


def steps(path: str) -> list[str | int]:
    return [name or int(index) for name, index in _STEP.findall(path)]


def value_at(variables: dict[str, Any], path: str) -> Any:
    here: Any = variables
    for step in steps(path):
        here = here[step]
    return here


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
