"""Series tools: valid JSON schemas, results, provenance, and every bad-argument case."""

from __future__ import annotations

import json
import time

import pytest

from graphmem.errors import GraphmemError
from graphmem.series.meta.tools import TOOLS, call_tool, run_tool, tool_schemas

Y = "create_meta_segment_by_datetime_range"


def rows_of(result: dict) -> list[dict]:
    """A tool's table result as one dict per row."""
    cols = result["cols"].split(",")
    return [dict(zip(cols, row, strict=True)) for row in result["rows"]]


def result_ids(result) -> list[str]:
    return [r["id"] for r in rows_of(json.loads(result.content))]


def test_schemas_are_valid_function_descriptions() -> None:
    schemas = tool_schemas()
    assert {s["function"]["name"] for s in schemas} == set(TOOLS) and len(TOOLS) == 10
    for s in schemas:
        params = s["function"]["parameters"]
        assert s["type"] == "function" and s["function"]["description"]
        assert params["type"] == "object"
        assert set(params.get("required", [])) <= set(params["properties"])
        for prop in params["properties"].values():
            assert prop["type"] in ("string", "number", "integer", "array", "boolean")
            assert "default" not in prop, "defaults live in the handlers, not in every prompt"
        json.dumps(s)


def test_paper_sequence_with_provenance(sales_store) -> None:
    store, series, _ = sales_store
    started = int(time.time())
    bounds = json.loads(run_tool(store, "time_bounds", {"series": series.name}, "s1").content)
    assert (bounds["start"], bounds["end"], bounds["n_points"]) == (
        "2010-01-01",
        "2020-12-31",
        4018,
    )
    args = {"series": series.id, "start": bounds["start"], "end": bounds["end"], "freq": "year"}
    years = run_tool(store, Y, json.dumps(args), "s1")
    views = rows_of(json.loads(years.content))
    assert years.ok and [v["label"] for v in views] == [str(y) for y in range(2010, 2021)]
    assert len(years.content) < 1500, "compact: ids, labels, rounded numbers, never raw points"
    assert views[6]["n"] == 366 and views[0]["pct_prev"] is None and views[6]["pct_prev"] > 0
    feats = json.loads(
        run_tool(store, "get_meta_features", {"meta_segment_id": views[6]["id"]}, "s1").content
    )
    assert feats["label"] == "2016" and feats["n"] == 366 and feats["pct_prev"] > 0
    assert "start" not in feats and "r2" not in feats, "compact by default"
    full = json.loads(
        run_tool(
            store, "get_meta_features", {"meta_segment_id": views[6]["id"], "full": True}
        ).content
    )
    assert full["start"] == "2016-01-01" and full["prev"] == "2015" and "r2" in full
    calls = store.read("toolcalls.by_session", session="s1")
    assert [c["t"]["tool"] for c in calls] == ["time_bounds", Y, "get_meta_features"]
    assert result_ids(years) == [v["id"] for v in views]
    assert set(calls[1]["targets"]) == {v["id"] for v in views}, "BUILT links to what it built"
    assert calls[2]["targets"] == [views[6]["id"]], "READ links to what it read"
    assert all(c["t"]["ok"] and len(c["t"]["digest"]) == 40 for c in calls)
    # reading a meta-segment through a tool is a recall of it (timeline memory statistics):
    # three calls saw it (built, read, read in full), each (id, second) counting once
    ended = int(time.time())
    [stats] = store.read("timeline.locate", ids=[views[6]["id"]])
    assert 1 <= stats["recall_count"] <= min(3, ended - started + 1)
    assert started <= stats["last_recalled_at"] <= ended


def test_members_and_segments_tools(sales_store) -> None:
    store, series, _ = sales_store
    output, _ = call_tool(
        store,
        Y,
        {"series": series.id, "start": "2016-01-01", "end": "2016-12-31", "freq": "quarter"},
    )
    members = rows_of(
        json.loads(run_tool(store, "get_members", {"meta_segment_id": output.built[0]}).content)
    )
    assert members and all(":seg:" in m["id"] for m in members)
    seg = json.loads(run_tool(store, "get_segment", {"segment_id": members[0]["id"]}).content)
    assert seg["summary"].startswith(seg["start"])
    year = json.loads(
        run_tool(
            store, "create_meta_segment_from_members", {"member_ids": output.built, "label": "2016"}
        ).content
    )
    assert year["n"] == 366 and year["members"] == 4
    drops = rows_of(
        json.loads(
            run_tool(
                store, "search_segments", {"series": series.id, "where": "slope<-0.05", "limit": 5}
            ).content
        )
    )
    assert 0 < len(drops) <= 5 and all(d["slope"] <= -0.05 for d in drops)
    listed = rows_of(
        json.loads(run_tool(store, "list_meta_segments", {"series": series.id}).content)
    )
    assert {m["label"] for m in listed} >= {"2016-Q1", "2016"}
    assert rows_of(json.loads(run_tool(store, "list_series", {}).content))[0]["name"] == series.name
    flt = json.loads(
        run_tool(
            store, "create_meta_segment_by_filter", {"series": series.id, "where": "std>5"}
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
    ("search_segments", {"series": "S", "limit": 61}, "limit: must be at most 60"),
    ("search_segments", {"series": "S", "offset": -1}, "offset: must be at least 0"),
    ("search_segments", {"series": "S", "where": "slope>steep"}, "where: 'steep' after slope>"),
    ("search_segments", {"series": "S", "where": "speed>1"}, "where: unknown statistic 'speed'"),
    ("search_segments", {"series": "S", "where": "slope=1"}, "where: slope=1: use < or >"),
    ("search_segments", {"series": "S", "where": "min>1"}, "where: min takes only <"),
    ("search_segments", {"series": "S", "where": "slope>1 steeply"}, "where: cannot read 'steep"),
    ("search_segments", {"series": "S", "where": 5}, "where: must be a string"),
    ("search_segments", {"series": "S", "start": "soon"}, "start:"),
    ("get_segment", {"segment_id": "nope"}, "no segment with id 'nope'"),
    ("get_meta_features", {"meta_segment_id": ""}, "meta_segment_id: must not be empty"),
    ("get_meta_features", {"meta_segment_id": "meta_x"}, "no meta-segment with id"),
    ("get_members", {"meta_segment_id": "meta_x"}, "no meta-segment with id"),
    ("create_meta_segment_from_members", {"member_ids": []}, "member_ids: needs at least 1"),
    ("create_meta_segment_from_members", {"member_ids": [3]}, r"member_ids[0]: must be a string"),
    ("create_meta_segment_by_filter", {"series": "S", "where": "mean>1e9"}, "no segment of this"),
    ("create_meta_segment_by_filter", {"series": "S", "where": "std>5 std<1"}, "std_max: must not"),
    (
        "create_meta_segment_by_filter",
        {"series": "S", "start": "2017-01-01", "end": "2016-01-01"},
        "end: must not be below start",
    ),
    (
        "create_meta_segment_by_filter",
        {"series": "S", "text": "drop", "k": 0},
        "k: must be at least",
    ),
    ("create_meta_segment_by_filter", {"series": "S", "text": " "}, "text: must not be empty"),
    (
        "create_meta_segment_by_filter",
        {"series": "S", "text": "drop", "k": 201},
        "k: must be at most 200",
    ),
    ("create_meta_segment_by_filter", {"series": "S", "k": 5}, "k: only applies with text"),
    (
        "create_meta_segment_from_members",
        {"member_ids": ["meta_x"]},
        "no segment or meta-segment with id 'meta_x'",
    ),
    ("get_segment", {"segment_id": ""}, "segment_id: must not be empty"),
    ("get_meta_features", {"meta_segment_id": "meta_x", "full": "yes"}, "full: must be a boolean"),
    ("get_members", {"meta_segment_id": "meta_x", "limit": 0}, "limit: must be at least 1"),
    ("list_meta_segments", {"series": "S", "limit": 5000}, "limit: must be at most 60"),
    ("list_meta_segments", {"series": "S", "offset": 1.5}, "offset: must be an integer"),
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
    assert result.call_id == calls[0]["t"]["id"], "the failed call's ToolCall is named"
    with pytest.raises(GraphmemError):
        call_tool(store, tool, args)


def test_long_results_are_capped_with_a_note(sales_store) -> None:
    """Daily meta-segments over 11 years: all built, 60 rows shown, the rest reachable."""
    store, series, _ = sales_store
    args = {"series": series.name, "start": "2010-01-01", "end": "2020-12-31", "freq": "day"}
    result = run_tool(store, Y, args, session="cap")
    page = json.loads(result.content)
    assert len(page["rows"]) == 60 and page["shown"] == "1-60 of 4018"
    assert "coarser freq than day" in page["more"] and len(result.built) == 4018
    later = json.loads(run_tool(store, Y, {**args, "start": "2020-12-01"}).content)
    assert [r[1] for r in later["rows"]][-1] == "2020-12-31" and "more" not in later
    listed = json.loads(
        run_tool(store, "list_meta_segments", {"series": series.name, "offset": 4000}).content
    )
    assert len(listed["rows"]) == 18 and listed["shown"] == "4001-4018"
    first = json.loads(run_tool(store, "list_meta_segments", {"series": series.name}).content)
    assert len(first["rows"]) == 20 and first["more"] == "call again with offset=20"
    everything = json.loads(
        run_tool(store, "create_meta_segment_by_filter", {"series": series.name}).content
    )
    members = json.loads(
        run_tool(store, "get_members", {"meta_segment_id": everything["id"], "limit": 5}).content
    )
    assert len(members["rows"]) == 5 and members["shown"] == f"1-5 of {everything['members']}"


def test_filter_links_its_members_as_read(sales_store) -> None:
    store, series, _ = sales_store
    built = json.loads(
        run_tool(
            store, "create_meta_segment_by_filter", {"series": series.name, "where": "std>5"}, "flt"
        ).content
    )
    [call] = store.read("toolcalls.by_session", session="flt")
    assert len(call["targets"]) == built["members"] + 1  # BUILT the meta, READ each member


def test_tools_work_on_a_series_dated_in_the_future(store) -> None:
    """Reading memories dated after now cannot reinforce them; the call still succeeds."""
    import numpy as np

    from graphmem.series.catalog import create_series
    from graphmem.series.detect.ingest import append
    from graphmem.timeutil import parse_timestamp

    series = create_series(store, "future", unit="kW")
    t0 = float(parse_timestamp("2030-01-01"))
    ts = t0 + 86400.0 * np.arange(400)
    append(store, series.id, ts, 50 + np.sin(np.arange(400) / 9.0) * 5)
    args = {"series": "future", "start": "2030-01-01", "end": "2031-12-31", "freq": "quarter"}
    built = run_tool(store, Y, args, session="fut")
    assert built.ok, built.content
    quarter = rows_of(json.loads(built.content))[0]["id"]
    feats = run_tool(store, "get_meta_features", {"meta_segment_id": quarter}, session="fut")
    assert feats.ok and json.loads(feats.content)["label"] == "2030-Q1"
    calls = store.read("toolcalls.by_session", session="fut")
    assert [c["t"]["ok"] for c in calls] == [True, True]
    assert [c["t"]["id"] for c in calls] == [built.call_id, feats.call_id]
    [stats] = store.read("timeline.locate", ids=[quarter])
    assert stats["recall_count"] == 0, "not recalled before its own time"


def gap_series(store, name: str = "gappy"):
    """Daily points through 2010-01-31, then none for 170 days, then daily again."""
    import numpy as np

    from graphmem.series.catalog import create_series
    from graphmem.series.detect.ingest import append
    from graphmem.timeutil import parse_timestamp

    series = create_series(store, name, unit="kW")
    day = 86400.0
    before = float(parse_timestamp("2010-01-01")) + day * np.arange(31)
    after = before[-1] + day * 170 + day * np.arange(200)
    ts = np.concatenate([before, after])
    append(store, series.id, ts, 50 + np.sin(np.arange(len(ts)) / 9.0) * 5)
    return series


@pytest.mark.parametrize("freq", [None, "month", "week"])
def test_a_range_inside_a_data_gap_is_a_clear_error(store, freq) -> None:
    from graphmem.errors import InvalidInput

    series = gap_series(store)
    args = {"series": "gappy", "start": "2010-03-01", "end": "2010-04-30"}
    if freq:
        args["freq"] = freq
    result = run_tool(store, Y, args, session="gap")
    assert not result.ok
    error = json.loads(result.content)["error"]
    assert error.startswith("start: [2010-03-01, 2010-04-30] holds no points")
    assert "2010-01-31" in error and "2010-07-20" in error, "names the points either side"
    [call] = store.read("toolcalls.by_session", session="gap")
    assert call["t"]["ok"] is False and call["t"]["id"] == result.call_id
    with pytest.raises(InvalidInput) as raised:
        call_tool(store, Y, args)
    assert raised.value.field == "start"
    assert store.read("meta.list", series_id=series.id, offset=0, limit=5) == [], "none stored"


def test_the_agent_hears_about_an_empty_range_and_answers(store, llm_server, llm_settings) -> None:
    from llm_server import tool_call

    from graphmem.agent import ask
    from graphmem.llm import LLM

    gap_series(store)
    args = {"series": "gappy", "start": "2010-03-01", "end": "2010-04-30", "freq": "month"}
    llm_server.script({"tool_calls": [tool_call(Y, args)]}, {"content": "No data in spring."})
    answer = ask(store, LLM(llm_settings), "How was spring 2010?", "gappy")
    assert answer.complete and answer.answer == "No data in spring."
    [step] = answer.steps
    assert not step.ok and "holds no points" in step.result
    fed_back = llm_server.requests[1]["messages"][-1]
    assert "holds no points" in json.loads(fed_back["content"])["error"]


@pytest.mark.parametrize("how", ["environment", "settings"])
def test_tool_reads_reinforce_in_the_configured_time_unit(store, monkeypatch, how) -> None:
    """g grows by tanh(t/2) with t in GRAPHMEM_TIME_UNIT (hours here), not always in days."""
    import math
    import time

    import numpy as np

    from graphmem.config import Settings
    from graphmem.series.catalog import create_series
    from graphmem.series.detect.ingest import append
    from graphmem.series.meta.tools import ToolEnv

    series = create_series(store, "recent", unit="kW")
    ts = time.time() - 3600.0 * np.arange(40, 0, -1)  # hourly, the last 40 hours
    append(store, series.id, ts, 50 + np.sin(np.arange(40) / 3.0))
    if how == "environment":
        monkeypatch.setenv("GRAPHMEM_TIME_UNIT", "hours")
        target = store
    else:
        monkeypatch.setenv("GRAPHMEM_TIME_UNIT", "weeks")  # the given settings win
        target = ToolEnv(store, Settings(time_unit="hours"))
    segment = f"{series.id}:seg:000000"
    assert run_tool(target, "get_segment", {"segment_id": segment}).ok
    [stats] = store.read("timeline.locate", ids=[segment])
    t = (stats["last_recalled_at"] - stats["ts"]) / 3600
    assert stats["recall_count"] == 1 and t > 30
    assert stats["g"] == pytest.approx(1 + math.tanh(t / 2), abs=1e-9), "hours: g near 2"


def test_members_of_mixed_kinds_come_in_time_order(sales_store) -> None:
    from graphmem.series.detect.segments import list_segments
    from graphmem.timeutil import parse_timestamp

    store, series, _ = sales_store
    feb, _ = call_tool(
        store,
        Y,
        {"series": series.name, "start": "2016-02-01", "end": "2016-02-29", "freq": "month"},
    )
    segs = list_segments(store, series.id, limit=1000)
    before = [g for g in segs if g.end < float(parse_timestamp("2016-02-01"))][-1]
    after = next(g for g in segs if g.start > float(parse_timestamp("2016-03-01")))
    mixed = [after.id, feb.built[0], before.id]
    group, _ = call_tool(store, "create_meta_segment_from_members", {"member_ids": mixed})
    page = json.loads(run_tool(store, "get_members", {"meta_segment_id": group.built[0]}).content)
    assert [r[0] for r in page["rows"]] == [before.id, feb.built[0], after.id]


def test_an_unexpected_failure_comes_back_in_words_and_is_recorded(
    sales_store, monkeypatch, caplog
) -> None:
    import dataclasses

    from graphmem.series.meta import tools

    store, series, _ = sales_store

    def boom(env, args):
        raise RuntimeError("a bug")

    monkeypatch.setitem(
        tools.TOOLS, "time_bounds", dataclasses.replace(TOOLS["time_bounds"], handler=boom)
    )
    result = run_tool(store, "time_bounds", {"series": series.name}, "s-bug")
    assert not result.ok
    assert json.loads(result.content) == {
        "error": "internal error in time_bounds (RuntimeError); it is logged"
    }
    assert "a bug" in caplog.text, "the traceback is logged for whoever runs the service"
    [call] = store.read("toolcalls.by_session", session="s-bug")
    assert call["t"]["ok"] is False and "internal error" in call["t"]["error"]
    with pytest.raises(RuntimeError, match="a bug"):
        call_tool(store, "time_bounds", {"series": series.name})


def test_members_that_overlap_or_span_two_series_are_refused(sales_store) -> None:
    from graphmem.series.catalog import create_series
    from graphmem.series.detect.ingest import append

    store, series, data = sales_store
    args = {"series": series.name, "start": "2015-01-01", "end": "2015-12-31"}
    year = result_ids(run_tool(store, Y, {**args, "freq": "year"}))[0]
    march = result_ids(run_tool(store, Y, {**args, "freq": "month"}))[2]
    overlap = run_tool(store, "create_meta_segment_from_members", {"member_ids": [year, march]})
    assert not overlap.ok and "overlap in time" in json.loads(overlap.content)["error"]
    other = create_series(store, "other sales")
    append(store, other.id, data.ts[:400], data.xs[:400])
    theirs = result_ids(
        run_tool(
            store,
            Y,
            {"series": "other sales", "start": "2010-01-01", "end": "2010-12-31", "freq": "year"},
        )
    )
    mixed = run_tool(store, "create_meta_segment_from_members", {"member_ids": [theirs[0], march]})
    assert not mixed.ok
    assert "all members must belong to the same series" in json.loads(mixed.content)["error"]


def test_text_search_without_the_composition_root_fails_in_plain_words(sales_store) -> None:
    """A ToolEnv made on a bare store builds no model: text search says where to get one."""
    store, series, _ = sales_store
    args = {"series": series.id, "text": "a sharp drop", "limit": 3}
    result = run_tool(store, "search_segments", args)
    assert not result.ok
    assert "text search needs the embedding model" in json.loads(result.content)["error"]
    assert run_tool(store, "search_segments", {"series": series.id, "limit": 3}).ok
