"""GraphQL: buildMetaSegments, metaSegments, metaSegment { members features toolCalls }, ask."""

from __future__ import annotations

from llm_server import tool_call

from graphmem.series.detect.segments import list_segments

BUILD = """
mutation($spec: MetaSpecInput!) {
  buildMetaSegments(spec: $spec) {
    id label summary
    features { pointCount mean slopePerDay slopeMean changeVsPrev memberCount coverage }
    kind frequency start end
    members { items { id start } total }
    toolCalls { items { tool how ok } }
  }
}"""


def test_build_and_read_meta_segments(gql, sales_store) -> None:
    _, series, _ = sales_store
    spec = {
        "seriesId": series.id,
        "kind": "RANGE",
        "start": "2015-01-01",
        "end": "2016-12-31",
        "frequency": "YEAR",
    }
    built = gql(BUILD, spec=spec)["data"]["buildMetaSegments"]
    assert [m["label"] for m in built] == ["2015", "2016"]
    y2016 = built[1]
    assert y2016["features"]["pointCount"] == 366 and y2016["features"]["changeVsPrev"] is not None
    assert (y2016["kind"], y2016["frequency"]) == ("RANGE", "YEAR")
    # both ends inclusive, as a segment's: the year's first and last instants
    assert y2016["start"] == "2016-01-01T00:00:00Z"
    assert y2016["end"] == "2016-12-31T23:59:59.999999Z"
    members = y2016["members"]
    assert members["items"] and y2016["features"]["memberCount"] == members["total"]
    assert y2016["toolCalls"]["items"] == [
        {"tool": "create_meta_segment_by_datetime_range", "how": "BUILT", "ok": True}
    ]
    assert "2016" in y2016["summary"] and "units sold" in y2016["summary"]
    listed = gql("query($id: ID!) { metaSegments(seriesId: $id) { items { id } } }", id=series.id)
    assert {m["id"] for m in listed["data"]["metaSegments"]["items"]} == {m["id"] for m in built}
    year = gql(
        BUILD, spec={"kind": "MEMBERS", "memberIds": [m["id"] for m in built], "label": "2015-16"}
    )["data"]["buildMetaSegments"][0]
    assert year["features"]["pointCount"] == 365 + 366
    nested = gql(
        "query($id: ID!) { metaSegment(id: $id) { metaMembers { items { label } } } }",
        id=year["id"],
    )
    assert [m["label"] for m in nested["data"]["metaSegment"]["metaMembers"]["items"]] == [
        "2015",
        "2016",
    ]
    assert gql('{ metaSegment(id: "nope") { id } }')["data"]["metaSegment"] is None


def test_bad_spec_is_an_error_naming_the_field(gql, sales_store) -> None:
    _, series, _ = sales_store
    error = gql(
        BUILD,
        spec={
            "seriesId": series.id,
            "kind": "RANGE",
            "start": "2015-01-01",
            "end": "2016-12-31",
            "frequency": "NEVER",
        },
    )["errors"][0]
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "$spec.frequency"}
    error = gql(BUILD, spec={"seriesId": series.id, "kind": "CLUSTER"})["errors"][0]
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "$spec.kind"}
    error = gql(
        BUILD,
        spec={"seriesId": series.id, "kind": "RANGE", "start": "2015-01-01", "end": "2014-12-31"},
    )["errors"][0]
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "spec.end"}
    listed = gql("query($id: ID!) { metaSegments(seriesId: $id) { total } }", id=series.id)
    assert listed["data"]["metaSegments"]["total"] == 0


def test_ask_without_llm_says_so(gql, sales_store) -> None:
    _, series, _ = sales_store
    error = gql(
        'mutation($id: ID) { ask(question: "trend?", seriesId: $id) { answer } }', id=series.id
    )["errors"][0]
    assert error["extensions"]["code"] == "LLM_NOT_CONFIGURED"
    assert "no LLM is configured" in error["message"]
    # the caller's own mistakes are named first, LLM or not
    ask = "mutation($q: String!, $n: Int!) { ask(question: $q, maxSteps: $n) { answer } }"
    error = gql(ask, q="  ", n=3)["errors"][0]
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "question"}
    error = gql(ask, q="trend?", n=0)["errors"][0]
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "maxSteps"}


def test_ask_with_scripted_llm(sales_store, llm_server, llm_settings, store_url) -> None:
    """The ask mutation through a second app instance configured with the scripted LLM."""
    import dataclasses

    from starlette.testclient import TestClient

    from api.app import create_app

    _, series, _ = sales_store
    llm_server.script(
        {"tool_calls": [tool_call("time_bounds", {"series": series.name})]},
        {"content": "It covers 2010 to 2020."},
    )
    settings = dataclasses.replace(llm_settings, store_url=store_url)
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        body = client.post(
            "/graphql",
            json={
                "query": (
                    'mutation { ask(question: "What span?") { id question answer complete model at '
                    "steps { number tool ok toolCallId } evidence session "
                    "toolCalls { items { id tool how ok session } } } }"
                )
            },
        ).json()
    result = body["data"]["ask"]
    assert result["answer"] == "It covers 2010 to 2020." and result["complete"]
    assert result["question"] == "What span?" and result["model"] == settings.llm_model
    assert result["id"] == result["session"] and result["at"].startswith("20")
    [step] = result["steps"]
    assert step["number"] == 1 and step["tool"] == "time_bounds" and step["ok"]
    # the Ask as stored: linked to the ToolCall the step made
    assert result["toolCalls"]["items"] == [
        {
            "id": step["toolCallId"],
            "tool": "time_bounds",
            "how": "CALLED",
            "ok": True,
            "session": result["id"],
        }
    ]
    assert result["evidence"] == []  # time_bounds reads no segment


def test_a_range_inside_a_data_gap_is_bad_input(gql, store) -> None:
    from test_tools import gap_series

    series = gap_series(store)
    spec = {
        "seriesId": series.id,
        "kind": "RANGE",
        "start": "2010-03-01",
        "end": "2010-04-30",
        "frequency": "MONTH",
    }
    body = gql(BUILD, spec=spec)
    [error] = body["errors"]
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "spec.start"}
    assert "holds no points" in error["message"] and "2010-07-20" in error["message"]


def test_filter_spec_builds_the_segment_filter_from_typed_fields(gql, sales_store) -> None:
    import json

    store, series, _ = sales_store
    spec = {
        "seriesId": series.id,
        "kind": "FILTER",
        "slopeMin": 0.02,
        "durationMin": 10.0,
        "start": "2012-01-01",
    }
    query = BUILD.replace("members { items { id start } total }", "members { items { id end } }")
    [built] = gql(query, spec=spec)["data"]["buildMetaSegments"]
    members = built["members"]["items"]
    assert members and all(m["end"] >= "2012-01-01" for m in members)
    assert "slope_min=0.02" in built["label"] and "duration_min=10" in built["label"]
    bad = gql(BUILD, spec={**spec, "stdMin": 5.0, "stdMax": 1.0})["errors"][0]
    assert bad["extensions"] == {"code": "BAD_INPUT", "field": "spec.stdMax"}
    assert "must not be below std_min" in bad["message"]
    calls = [c["t"] for c in store.read("toolcalls.by_session", session="graphql")]
    assert [c["ok"] for c in calls] == [True, False], "the failed call is recorded too"
    assert json.loads(calls[0]["args"]) == {
        "series": series.id,
        "start": "2012-01-01T00:00:00Z",
        "slope_min": 0.02,
        "duration_min": 10.0,
    }


def test_filter_spec_takes_lowest_and_highest_value_conditions(gql, sales_store) -> None:
    store, series, _ = sales_store
    query = BUILD.replace("members { items { id start } total }", "members { items { id } }")
    spec = {"seriesId": series.id, "kind": "FILTER", "minBelow": 95.0}
    [low] = gql(query, spec=spec)["data"]["buildMetaSegments"]
    [high] = gql(query, spec={**spec, "minBelow": None, "maxAbove": 300.0})["data"][
        "buildMetaSegments"
    ]
    segments = {g.id: g for g in list_segments(store, series.id, limit=10_000)}
    lows = {m["id"] for m in low["members"]["items"]}
    highs = {m["id"] for m in high["members"]["items"]}
    assert lows == {i for i, g in segments.items() if g.features.min <= 95.0} != set()
    assert highs == {i for i, g in segments.items() if g.features.max >= 300.0} != set()


def test_a_spec_field_its_kind_does_not_read_is_refused(gql, sales_store) -> None:
    _, series, _ = sales_store
    cases = [
        ({"kind": "MEMBERS", "memberIds": ["x"], "frequency": "YEAR"}, "spec.frequency"),
        (
            {"kind": "RANGE", "seriesId": series.id, "frequency": "YEAR", "text": "rising"},
            "spec.text",
        ),
        ({"kind": "FILTER", "seriesId": series.id, "memberIds": ["x"]}, "spec.memberIds"),
    ]
    for spec, field in cases:
        answer = gql(BUILD, spec=spec)
        assert answer["data"] is None, spec
        assert answer["errors"][0]["extensions"] == {"code": "BAD_INPUT", "field": field}
        assert "is not used by kind" in answer["errors"][0]["message"]
    listed = gql("query($id: ID!) { metaSegments(seriesId: $id) { total } }", id=series.id)
    assert listed["data"]["metaSegments"]["total"] == 0


META_LIST = """query($id: ID!, $kind: MetaSegmentKind, $freq: Frequency, $limit: Int!,
                   $offset: Int!) {
  metaSegments(seriesId: $id, kind: $kind, frequency: $freq, limit: $limit, offset: $offset) {
    items { label kind frequency } total limit offset
  }
}"""


def test_meta_segments_are_filtered_by_kind_and_frequency_and_paged(gql, sales_store) -> None:
    _, series, _ = sales_store
    for freq in ("YEAR", "QUARTER"):
        gql(
            BUILD,
            spec={
                "seriesId": series.id,
                "kind": "RANGE",
                "start": "2015-01-01",
                "end": "2015-12-31",
                "frequency": freq,
            },
        )
    gql(BUILD, spec={"seriesId": series.id, "kind": "FILTER", "minBelow": 95.0})

    def listed(kind: str | None, freq: str | None, limit: int = 100, offset: int = 0) -> dict:
        answer = gql(META_LIST, id=series.id, kind=kind, freq=freq, limit=limit, offset=offset)
        return answer["data"]["metaSegments"]

    quarters = listed("RANGE", "QUARTER")
    assert [m["label"] for m in quarters["items"]] == ["2015-Q1", "2015-Q2", "2015-Q3", "2015-Q4"]
    assert {(m["kind"], m["frequency"]) for m in quarters["items"]} == {("RANGE", "QUARTER")}
    assert listed("RANGE", None)["total"] == 5 and listed(None, None)["total"] == 6
    [kept] = listed("FILTER", None)["items"]
    assert (kept["kind"], kept["frequency"]) == ("FILTER", None)
    page = listed("RANGE", "QUARTER", limit=2, offset=1)
    assert [m["label"] for m in page["items"]] == ["2015-Q2", "2015-Q3"]
    assert (page["total"], page["limit"], page["offset"]) == (4, 2, 1)


def test_members_and_tool_calls_are_paged(gql, sales_store) -> None:
    _, series, _ = sales_store
    spec = {"seriesId": series.id, "kind": "RANGE", "start": "2015-01-01", "end": "2016-12-31"}
    [whole] = gql(BUILD, spec=spec)["data"]["buildMetaSegments"]
    gql(BUILD, spec=spec)  # read again: a second tool call on it
    query = """query($id: ID!) { metaSegment(id: $id) {
      all: members(limit: 1000) { items { id } total }
      page: members(limit: 2, offset: 1) { items { id } total limit offset }
      toolCalls(limit: 1, offset: 1) { items { how arguments } total } } }"""
    found = gql(query, id=whole["id"])["data"]["metaSegment"]
    every = found["all"]["items"]
    assert len(every) == found["all"]["total"] > 3
    assert found["page"] == {"items": every[1:3], "total": len(every), "limit": 2, "offset": 1}
    calls = found["toolCalls"]
    assert calls["total"] == 2 and calls["items"][0]["how"] in ("BUILT", "READ")
    assert calls["items"][0]["arguments"] == {
        "series": series.id,
        "start": "2015-01-01T00:00:00Z",
        "end": "2016-12-31T00:00:00Z",
    }
