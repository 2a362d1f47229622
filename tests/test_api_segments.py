"""GraphQL: appendPoints, segments, segment, timeBounds over HTTP."""

from __future__ import annotations

import numpy as np

from graphmem.series.detect.synthetic import piecewise_gaussian
from graphmem.timeutil import iso

APPEND = """
mutation($id: ID!, $points: [PointInput!]!) {
  appendPoints(seriesId: $id, points: $points) {
    accepted skipped duplicate segments { id index open pointCount mean summary start }
  }
}"""


def make_series(gql) -> str:
    return gql('mutation { createSeries(name: "api-series", unit: "kW") { id } }')["data"][
        "createSeries"
    ]["id"]


def points(n: int = 600, offset: int = 0) -> list[dict]:
    xs = piecewise_gaussian(seed=4, n_segments=3, min_len=150, max_len=250).xs[:n]
    t0 = 1_700_000_000 + offset * 3600
    return [{"timestamp": iso(t0 + i * 3600), "value": float(x)} for i, x in enumerate(xs)]


def test_append_points_then_query_segments(gql) -> None:
    sid = make_series(gql)
    pts = points()
    pts[10]["value"] = None
    body = gql(APPEND, id=sid, points=pts)["data"]["appendPoints"]
    assert body["accepted"] == len(pts) - 1 and body["skipped"] == 1 and not body["duplicate"]
    assert body["segments"][-1]["open"] and "kW" in body["segments"][0]["summary"]
    again = gql(APPEND, id=sid, points=pts)["data"]["appendPoints"]
    assert again["duplicate"] and again["accepted"] == 0

    listed = gql(
        "query($id: ID!) { segments(seriesId: $id, limit: 100) "
        "{ items { id index pointCount open } total } }",
        id=sid,
    )["data"]["segments"]
    assert listed["total"] == len(listed["items"])
    listed = listed["items"]
    assert [s["index"] for s in listed] == list(range(len(listed)))
    assert sum(s["pointCount"] for s in listed) == len(pts) - 1
    one = gql("query($id: ID!) { segment(id: $id) { id pointCount } }", id=listed[0]["id"])
    assert one["data"]["segment"] == {"id": listed[0]["id"], "pointCount": listed[0]["pointCount"]}
    fields = "start end pointCount skippedCount segmentCount"
    bounds = gql(f"query($id: ID!) {{ timeBounds(seriesId: $id) {{ {fields} }} }}", id=sid)
    bounds = bounds["data"]["timeBounds"]
    assert bounds["start"] == pts[0]["timestamp"]
    assert bounds["end"] == pts[-1]["timestamp"]
    assert (bounds["pointCount"], bounds["skippedCount"], bounds["segmentCount"]) == (
        len(pts) - 1,
        1,
        len(listed),
    )
    window = gql(
        "query($id: ID!, $s: DateTime, $e: DateTime) "
        "{ segments(seriesId: $id, start: $s, end: $e) { items { index } total } }",
        id=sid,
        s=pts[300]["timestamp"],
        e=pts[301]["timestamp"],
    )["data"]["segments"]
    assert len(window["items"]) == 1 and window["total"] == 1


def test_bad_points_name_the_input_and_store_nothing(gql) -> None:
    sid = make_series(gql)
    pts = points(50)
    pts[7]["timestamp"] = "not a date"
    error = gql(APPEND, id=sid, points=pts)["errors"][0]
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "points[7].timestamp"}
    pts = points(50)
    pts[3]["timestamp"] = pts[2]["timestamp"]
    error = gql(APPEND, id=sid, points=pts)["errors"][0]
    assert error["extensions"]["field"] == "points[3].timestamp"
    assert "not after the previous" in error["message"]
    pts = points(50)
    pts[2]["value"] = None
    pts[5]["value"] = 1e150
    error = gql(APPEND, id=sid, points=pts)["errors"][0]
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "points[5].value"}
    assert "too large" in error["message"]
    empty = gql(APPEND, id=sid, points=[])["errors"][0]
    assert empty["extensions"]["field"] == "points" and "empty" in empty["message"]
    bounds = gql("query($id: ID!) { timeBounds(seriesId: $id) { pointCount } }", id=sid)
    assert bounds["data"]["timeBounds"]["pointCount"] == 0


def test_unknown_series_or_segment(gql) -> None:
    error = gql(APPEND, id="nope", points=points(3))["errors"][0]
    assert error["extensions"]["code"] == "NOT_FOUND"
    assert gql('{ segment(id: "nope") { id } }')["data"]["segment"] is None


def test_segments_pages_with_limit_and_offset(gql) -> None:
    sid = make_series(gql)
    gql(APPEND, id=sid, points=points())
    query = (
        "query($id: ID!, $limit: Int!, $offset: Int!) "
        "{ segments(seriesId: $id, limit: $limit, offset: $offset) { items { id index } } }"
    )
    every = gql(query, id=sid, limit=100, offset=0)["data"]["segments"]["items"]
    assert len(every) >= 3
    pages = [
        gql(query, id=sid, limit=2, offset=off)["data"]["segments"]["items"]
        for off in range(0, len(every), 2)
    ]
    assert all(len(page) <= 2 for page in pages)
    assert [s for page in pages for s in page] == every
    assert gql(query, id=sid, limit=1, offset=1)["data"]["segments"]["items"] == every[1:2]
    assert gql(query, id=sid, limit=5, offset=len(every))["data"]["segments"]["items"] == []
    for limit, offset, field in [(0, 0, "limit"), (2, -1, "offset")]:
        error = gql(query, id=sid, limit=limit, offset=offset)["errors"][0]
        assert error["extensions"] == {"code": "BAD_INPUT", "field": field}


CLOSE = """
mutation($id: ID!) {
  closeSeries(seriesId: $id) {
    seriesId boundaries alreadyClosed segments { index open pointCount } }
}"""


def test_close_series_confirms_the_tail_and_closes_its_segments(gql) -> None:
    sid = make_series(gql)
    # a 3-sigma step 15 points before the end: not confirmed while more points may come
    rng = np.random.default_rng(8)
    xs = 50.0 + rng.standard_normal(400) + np.where(np.arange(400) >= 385, 3.0, 0.0)
    pts = [
        {"timestamp": iso(1_700_000_000 + 3600 * i), "value": float(x)} for i, x in enumerate(xs)
    ]
    appended = gql(APPEND, id=sid, points=pts)["data"]["appendPoints"]
    assert [s["open"] for s in appended["segments"]] == [True]
    closed = gql(CLOSE, id=sid)["data"]["closeSeries"]
    assert (closed["seriesId"], closed["boundaries"], closed["alreadyClosed"]) == (sid, 1, False)
    assert [(s["open"], s["pointCount"]) for s in closed["segments"]] == [(False, 385), (False, 15)]
    listed = gql(
        "query($id: ID!) { segments(seriesId: $id, limit: 100) { items { pointCount open } } }",
        id=sid,
    )
    segments = listed["data"]["segments"]["items"]
    assert not any(s["open"] for s in segments) and sum(s["pointCount"] for s in segments) == 400
    again = gql(CLOSE, id=sid)["data"]["closeSeries"]
    assert again == {"seriesId": sid, "boundaries": 0, "alreadyClosed": True, "segments": []}


def test_close_series_of_an_unknown_series_is_not_found(gql) -> None:
    error = gql(CLOSE, id="nope")["errors"][0]
    assert error["extensions"]["code"] == "NOT_FOUND"
