"""A small seeded graph on the app under test, and valid arguments for every root field.

Shared by tests/test_api_fuzz.py (so that fuzzed requests get past their first lookup and
the success paths run) and tests/test_api_fields.py (which breaks one argument at a time).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx

from graphmem.series.synthetic import sales_series
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


def seed(url: str) -> Seeded:
    """A series with segments and meta-segments, propositions, an event (early 2016)."""
    data = sales_series(seed=0, start="2015-12-01", end="2016-04-30")

    def call(query: str, **variables: object) -> dict:
        body = post(url, {"query": query, "variables": variables}).json()
        assert "errors" not in body, body
        return body["data"]

    sid = call(f'mutation {{ createSeries(name: "{SEEDED_SERIES}", unit: "units") {{ id }} }}')
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
    return Seeded(
        sid, [s["id"] for s in appended["segments"]], [m["id"] for m in metas], props,
        event["addEvent"]["id"],
    )  # fmt: skip


def valid_arguments(known: Seeded) -> dict[str, list[dict[str, Any]]]:
    """Arguments each root field succeeds with on the seeded graph (several for some).

    Mutations that store something store new things (a new series, later points, new texts),
    and nothing deletes the seeded graph.
    """
    sid, seg, meta = known.series, known.segments, known.metas[0]
    return {
        "health": [{}],
        "series": [{"limit": 10, "offset": 0}],
        "seriesById": [{"id": sid}, {"id": SEEDED_SERIES}],
        "segments": [{"seriesId": sid, "start": "2016-01-01", "end": "2016-03-01",
                      "limit": 10, "offset": 0}],
        "segment": [{"id": seg[0]}],
        "timeBounds": [{"seriesId": sid}],
        "metaSegments": [{"seriesId": sid, "limit": 10, "offset": 0}],
        "metaSegment": [{"id": meta}],
        "propositions": [{"filter": {"source": "report", "start": "2016-01-01",
                                     "end": "2016-12-31", "contains": "Sales", "limit": 10,
                                     "offset": 0}}],
        "subgraph": [
            {"question": "How did sales change?", "asOf": "2016-04-01", "k": 3, "expand": True,
             "refine": False, "rankBy": "similarity"},
            {"question": "sales", "rankBy": "recall", "now": "2016-05-01"},
        ],
        "recall": [{"query": "sales in spring", "now": "2016-05-01", "k": 3, "threshold": 0.1,
                    "labels": ["Proposition", "Event"], "reinforce": False}],
        "timeline": [{"start": "2016-01-01", "end": "2016-12-31", "now": "2016-05-01"}],
        "createSeries": [{"name": "another", "unit": "kg", "description": "made by a test"}],
        "deleteSeries": [{"id": "another"}],
        "appendPoints": [{"seriesId": sid,
                          "points": [{"timestamp": "2017-01-01", "value": 1.5},
                                     {"timestamp": "2017-01-02", "value": None}]}],
        "buildMetaSegments": [
            {"spec": {"kind": "range", "seriesId": sid, "start": "2016-01-01",
                      "end": "2016-02-28", "freq": "week"}},
            {"spec": {"kind": "filter", "seriesId": sid, "start": "2016-01-01",
                      "end": "2016-04-30", "slopeMin": -1e6, "slopeMax": 1e6, "stdMin": 0.0,
                      "stdMax": 1e9, "meanMin": -1e9, "meanMax": 1e9, "durationMin": 0.0,
                      "durationMax": 1e4, "minBelow": 1e9, "maxAbove": -1e9}},
            {"spec": {"kind": "filter", "seriesId": sid, "text": "rising sales", "k": 2}},
            {"spec": {"kind": "members", "memberIds": seg[:2], "label": "first two"}},
        ],
        "ask": [{"question": "How did sales change?", "seriesId": sid, "maxSteps": 3}],
        "ingestDocument": [{"text": "Sales rose.", "date": "2016-05-01", "source": "memo"}],
        "addPropositions": [{"propositions": [
            {"text": "Sales held in April 2016.", "date": "2016-04-30", "source": "report"}]}],
        "addEvent": [{"text": "Planning meeting", "date": "2016-05-02", "source": "calendar"}],
        "reinforce": [{"ids": [known.propositions[0], known.event], "now": "2016-05-01"}],
    }  # fmt: skip
