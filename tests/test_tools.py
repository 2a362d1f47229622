"""Series tools: valid JSON schemas, results, provenance, and every bad-argument case."""

from __future__ import annotations

import json

import pytest

from graphmem.errors import GraphmemError
from graphmem.series.tools import TOOLS, call_tool, run_tool, tool_schemas

Y = "create_meta_segment_by_datetime_range"


def test_schemas_are_valid_function_descriptions() -> None:
    schemas = tool_schemas()
    assert {s["function"]["name"] for s in schemas} == set(TOOLS) and len(TOOLS) == 10
    for s in schemas:
        params = s["function"]["parameters"]
        assert s["type"] == "function" and s["function"]["description"]
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"])
        for prop in params["properties"].values():
            assert prop["type"] in ("string", "number", "integer", "array")
        json.dumps(s)


def test_paper_sequence_with_provenance(sales_store) -> None:
    store, series, _ = sales_store
    bounds = json.loads(run_tool(store, "time_bounds", {"series": series.name}, "s1").content)
    assert (bounds["start"], bounds["end"], bounds["n_points"]) == (
        "2010-01-01",
        "2020-12-31",
        4018,
    )
    args = {"series": series.id, "start": bounds["start"], "end": bounds["end"], "freq": "year"}
    years = run_tool(store, Y, json.dumps(args), "s1")
    views = json.loads(years.content)
    assert years.ok and [v["label"] for v in views] == [str(y) for y in range(2010, 2021)]
    assert len(years.content) < 4000, "compact: ids, dates, rounded numbers, never raw points"
    feats = json.loads(
        run_tool(store, "get_meta_features", {"meta_segment_id": views[6]["id"]}, "s1").content
    )
    assert feats["label"] == "2016" and feats["n"] == 366 and "mean_change_vs_prev" in feats
    calls = store.read("toolcalls.by_session", session="s1")
    assert [c["t"]["tool"] for c in calls] == ["time_bounds", Y, "get_meta_features"]
    assert set(calls[1]["targets"]) == {v["id"] for v in views}, "BUILT links to what it built"
    assert calls[2]["targets"] == [views[6]["id"]], "READ links to what it read"
    assert all(c["t"]["ok"] and len(c["t"]["digest"]) == 40 for c in calls)
    # reading a meta-segment through a tool is a recall of it (timeline memory statistics)
    [stats] = store.read("timeline.locate", ids=[views[6]["id"]])
    assert stats["recall_count"] == 1 and stats["last_recalled_at"] is not None


def test_members_and_segments_tools(sales_store) -> None:
    store, series, _ = sales_store
    output, _ = call_tool(
        store,
        Y,
        {"series": series.id, "start": "2016-01-01", "end": "2016-12-31", "freq": "quarter"},
    )
    members = json.loads(
        run_tool(store, "get_members", {"meta_segment_id": output.built[0]}).content
    )
    assert members["segments"] and members["meta_segments"] == []
    seg = json.loads(
        run_tool(store, "get_segment", {"segment_id": members["segments"][0]["id"]}).content
    )
    assert seg["summary"].startswith(seg["start"])
    year = json.loads(
        run_tool(
            store, "create_meta_segment_from_members", {"member_ids": output.built, "label": "2016"}
        ).content
    )
    assert year["n"] == 366 and year["members"] == 4
    drops = json.loads(
        run_tool(
            store, "search_segments", {"series": series.id, "slope_max": -0.05, "limit": 5}
        ).content
    )
    assert 0 < len(drops) <= 5 and all(d["slope_per_day"] <= -0.05 for d in drops)
    listed = json.loads(run_tool(store, "list_meta_segments", {"series": series.id}).content)
    assert {m["label"] for m in listed} >= {"2016-Q1", "2016"}
    assert json.loads(run_tool(store, "list_series", {}).content)[0]["name"] == series.name
    flt = json.loads(
        run_tool(
            store, "create_meta_segment_by_filter", {"series": series.id, "std_min": 5.0}
        ).content
    )
    assert flt["members"] >= 1


BAD = [
    ("time_bounds", {}, "series: is required"),
    ("time_bounds", {"series": "nope"}, "no series with id or name 'nope'"),
    ("time_bounds", {"series": 5}, "series: must be a string"),
    ("time_bounds", {"series": "x", "extra": 1}, "extra: is not an argument of this tool"),
    ("time_bounds", "{not json", "arguments: are not valid JSON"),
    ("time_bounds", "[1, 2]", "arguments: must be a JSON object"),
    (Y, {"series": "S", "start": "2016-01-01"}, "end: is required"),
    (Y, {"series": "S", "start": "yesterday", "end": "2016-01-01"}, "start:"),
    (
        Y,
        {"series": "S", "start": "2016-01-01", "end": "2015-01-01"},
        "end: must not be before start",
    ),
    (
        Y,
        {"series": "S", "start": "2016-01-01", "end": "2017-01-01", "freq": "decade"},
        "freq: must be one of",
    ),
    (Y, {"series": "S", "start": "2030-01-01", "end": "2031-01-01"}, "holds no points"),
    ("search_segments", {"series": "S", "limit": 0}, "limit: must be at least 1"),
    ("search_segments", {"series": "S", "slope_min": "steep"}, "slope_min: must be a number"),
    ("search_segments", {"series": "S", "slope_min": True}, "slope_min: must be a number"),
    ("get_segment", {"segment_id": "nope"}, "no segment with id 'nope'"),
    ("get_meta_features", {"meta_segment_id": ""}, "meta_segment_id: must not be empty"),
    ("get_meta_features", {"meta_segment_id": "meta_x"}, "no meta-segment with id"),
    ("get_members", {"meta_segment_id": "meta_x"}, "no meta-segment with id"),
    ("create_meta_segment_from_members", {"member_ids": []}, "member_ids: needs at least 1"),
    ("create_meta_segment_from_members", {"member_ids": [3]}, r"member_ids[0]: must be a string"),
    (
        "create_meta_segment_by_filter",
        {"series": "S", "mean_min": 1e9},
        "no segment of this series meets",
    ),
    (
        "create_meta_segment_by_filter",
        {"series": "S", "std_min": 5, "std_max": 1},
        "std_max: must not be below std_min",
    ),
    ("list_meta_segments", {"series": "S", "limit": 5000}, "limit: must be at most 1000"),
    ("no_such_tool", {}, "unknown tool 'no_such_tool'"),
]


@pytest.mark.parametrize(("tool", "args", "message"), BAD)
def test_bad_arguments_come_back_in_plain_words(sales_store, tool, args, message) -> None:
    store, series, _ = sales_store
    if isinstance(args, dict) and args.get("series") == "S":
        args = {**args, "series": series.name}
    result = run_tool(store, tool, args, session="bad")
    assert not result.ok
    assert message in json.loads(result.content)["error"]
    calls = store.read("toolcalls.by_session", session="bad")
    assert len(calls) == 1 and calls[0]["t"]["ok"] is False and calls[0]["t"]["error"]
    with pytest.raises(GraphmemError):
        call_tool(store, tool, args)
