"""The agent through the real openai client against a scripted local server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llm_server import tool_call

from graphmem.agent import AskFailed, ask, format_step
from graphmem.cypher import load_dir
from graphmem.errors import LLMError
from graphmem.llm import LLM
from graphmem.series.meta import meta_id
from graphmem.series.meta.periods import period_of
from graphmem.timeutil import parse_timestamp

Y = "create_meta_segment_by_datetime_range"


def year_id(series_id: str, year: int) -> str:
    start = period_of(float(parse_timestamp(f"{year}-06-01")), "year").start
    return meta_id({"kind": "range", "series_id": series_id, "freq": "year", "start": start})


def test_paper_trace_is_reproduced(sales_store, llm_server, llm_settings) -> None:
    store, series, _ = sales_store
    ids = [year_id(series.id, y) for y in (2015, 2016, 2017)]
    yearly = {"series": series.id, "start": "2010-01-01", "end": "2020-12-31", "freq": "year"}
    features = [tool_call("get_meta_features", {"meta_segment_id": i}, f"c{i}") for i in ids]
    llm_server.script(
        {"tool_calls": [tool_call("time_bounds", {"series": series.name})]},
        {"tool_calls": [tool_call(Y, yearly)]},
        *({"tool_calls": [call]} for call in features),
        {"content": "Sales grew every year; growth slowed markedly in 2016."},
    )
    lines = []
    answer = ask(
        store,
        LLM(llm_settings),
        "How did the yearly trend change?",
        series.name,
        on_step=lambda step, n: lines.append(format_step(step, n)),
    )
    assert answer.complete and answer.answer.startswith("Sales grew every year")
    assert [s.tool for s in answer.steps] == ["time_bounds", Y] + ["get_meta_features"] * 3
    assert all(s.ok for s in answer.steps)
    assert lines[0].startswith("[Step 1/10] tool: time_bounds")
    assert set(ids) <= set(answer.evidence)
    system = llm_server.requests[0]["messages"][0]["content"]
    assert series.name in system and "units sold" in system and "daily points" in system
    assert "2010-01-01 to 2020-12-31" in system
    assert {t["function"]["name"] for t in llm_server.requests[0]["tools"]} >= {"time_bounds", Y}
    fed_back = llm_server.requests[3]["messages"][-1]
    assert fed_back["role"] == "tool" and json.loads(fed_back["content"])["label"] == "2015"
    calls = store.read("toolcalls.by_session", session=answer.session)
    assert len(calls) == 5 and calls[2]["targets"] == [ids[0]]


def test_tool_error_is_fed_back_and_the_model_recovers(
    sales_store, llm_server, llm_settings
) -> None:
    store, series, _ = sales_store
    llm_server.script(
        {"tool_calls": [tool_call("get_meta_features", {"meta_segment_id": "meta_missing"})]},
        {"tool_calls": [tool_call("no_such_tool", {})]},
        {"tool_calls": [tool_call("time_bounds", "{broken json")]},
        {"tool_calls": [tool_call("time_bounds", {"series": series.name})]},
        {"content": "The series covers 2010-2020."},
    )
    answer = ask(store, LLM(llm_settings), "What period does it cover?", series.name)
    assert answer.complete and [s.ok for s in answer.steps] == [False, False, False, True]
    errors = [
        json.loads(llm_server.requests[i]["messages"][-1]["content"])["error"] for i in (1, 2, 3)
    ]
    assert "no meta-segment with id 'meta_missing'" in errors[0]
    assert "unknown tool 'no_such_tool'" in errors[1]
    assert "not valid JSON" in errors[2]


def test_step_limit_stops_the_loop(sales_store, llm_server, llm_settings) -> None:
    store, series, _ = sales_store
    llm_server.script(
        *(
            {"tool_calls": [tool_call("time_bounds", {"series": series.name}, f"c{i}")]}
            for i in range(5)
        )
    )
    answer = ask(store, LLM(llm_settings), "Loop forever", series.name, max_steps=3)
    assert not answer.complete and len(answer.steps) == 3
    assert "No final answer within 3 steps" in answer.answer
    assert len(llm_server.requests) == 3


def test_server_error_is_a_clear_llm_error(sales_store, llm_server, llm_settings) -> None:
    store, series, _ = sales_store
    llm_server.script({"status": 500}, {"status": 500})
    with pytest.raises(LLMError, match="answered 500"):
        ask(store, LLM(llm_settings), "Anything?", series.name)


def test_empty_question_is_refused(sales_store, llm_settings) -> None:
    store, series, _ = sales_store
    with pytest.raises(Exception, match="question: must not be empty"):
        ask(store, LLM(llm_settings), "  ", series.name)


def test_llm_error_mid_answer_leaves_only_whole_tool_calls(
    sales_store, llm_server, llm_settings
) -> None:
    store, series, _ = sales_store
    yearly = {"series": series.name, "start": "2010-01-01", "end": "2020-12-31", "freq": "year"}
    llm_server.script(
        {"tool_calls": [tool_call("time_bounds", {"series": series.name})]},
        {"tool_calls": [tool_call(Y, yearly)]},
        {"status": 500},
        {"status": 500},  # the client retries once
    )
    with pytest.raises(AskFailed, match="answered 500") as caught:
        ask(store, LLM(llm_settings), "How did the yearly trend change?", series.name)
    failed = caught.value
    session = failed.answer.session
    assert f"session {session}" in str(failed) and "time_bounds, " + Y in str(failed)
    assert [s.tool for s in failed.answer.steps] == ["time_bounds", Y]
    calls = store.read("toolcalls.by_session", session=session)
    assert [c["t"]["tool"] for c in calls] == ["time_bounds", Y]
    for c in calls:
        t = c["t"]
        assert t["ok"] and t["result"] and len(t["digest"]) == 40 and t["at_iso"]
    assert len(calls[1]["targets"]) == 11, "the yearly build is linked to all it built"


def test_timeout_through_ask_is_a_clear_error(sales_store, llm_server) -> None:
    from graphmem.config import Settings

    store, series, _ = sales_store
    settings = Settings(llm_base_url=llm_server.url, llm_timeout=0.3)
    llm_server.script(
        {"tool_calls": [tool_call("time_bounds", {"series": series.name})]},
        {"delay": 1.0, "content": "late"},
        {"delay": 1.0, "content": "late"},
    )
    with pytest.raises(LLMError, match="did not answer within") as caught:
        ask(store, LLM(settings), "When does it start?", series.name)
    session = caught.value.answer.session
    [call] = store.read("toolcalls.by_session", session=session)
    assert call["t"]["tool"] == "time_bounds" and call["t"]["ok"]


def test_unscoped_question_describes_the_first_series_and_counts_the_rest(
    store, llm_server, llm_settings, monkeypatch
) -> None:
    from graphmem import agent
    from graphmem.series.catalog import create_series

    monkeypatch.setattr(agent, "DESCRIBED", 2)
    for name in ("delta", "alpha", "charlie", "bravo"):
        create_series(store, name, "kWh")
    llm_server.script({"content": "Four series."}, {"content": "One series."})
    ask(store, LLM(llm_settings), "Which series are there?")
    request = llm_server.requests[0]
    system = request["messages"][0]["content"]
    assert "Series alpha (kWh): no points yet" in system and "Series bravo" in system
    assert "charlie" not in system and "...and 2 more series (list_series)." in system
    assert "list_series" in {t["function"]["name"] for t in request["tools"]}

    ask(store, LLM(llm_settings), "What does delta hold?", "delta")
    scoped = llm_server.requests[1]
    assert "Series delta (kWh)" in scoped["messages"][0]["content"]
    names = {t["function"]["name"] for t in scoped["tools"]}
    assert "list_series" not in names and len(names) == len(agent.TOOLS) - 1


ASKS = load_dir(Path(__file__).parent / "cypher")


def test_an_answer_is_stored_as_an_ask_with_its_calls_and_what_it_read(
    sales_store, llm_server, llm_settings
) -> None:
    store, series, _ = sales_store
    monthly = {"series": series.id, "start": "2010-01-01", "end": "2020-12-31", "freq": "month"}
    y2016 = year_id(series.id, 2016)
    llm_server.script(
        {"tool_calls": [tool_call("time_bounds", {"series": series.name})]},
        {"tool_calls": [tool_call(Y, monthly)]},
        {"tool_calls": [tool_call(Y, {**monthly, "freq": "year"}, "y")]},
        {"tool_calls": [tool_call("get_meta_features", {"meta_segment_id": y2016})]},
        {"content": "2016 grew slowest."},
    )
    answer = ask(store, LLM(llm_settings), "Which year grew slowest?", series.name)
    [row] = store.read(ASKS["asks_test.ask"], id=answer.session)
    node = row["a"]
    assert node["question"] == "Which year grew slowest?" and node["answer"] == "2016 grew slowest."
    assert node["model"] == llm_settings.llm_model == answer.model and node["complete"]
    assert node["series_id"] == series.id and node["at_iso"] == answer.at_iso
    assert node["tokens"] == answer.tokens == 5 * 15 and node.get("error") is None
    calls = store.read("asks.tool_calls", id=answer.session)
    steps = [(s.number, s.call_id) for s in answer.steps]
    assert [(c["step"], c["t"]["id"]) for c in calls] == steps
    assert [c["t"]["tool"] for c in calls] == ["time_bounds", Y, Y, "get_meta_features"]
    # the monthly build made 132 meta-segments but showed the model 60 of them: evidence is
    # what was read (those 60, the 11 years, the year 2016 again), not everything built
    months = store.read("toolcalls.by_session", session=answer.session)[1]["targets"]
    assert len(months) == 132 and len(answer.evidence) == 60 + 11
    assert months[60] not in answer.evidence and y2016 in answer.evidence
    stored = [r["id"] for r in store.read("asks.evidence", id=answer.session)]
    assert stored == sorted(answer.evidence)


def test_an_answer_the_llm_broke_off_is_stored_with_the_error(
    sales_store, llm_server, llm_settings
) -> None:
    store, series, _ = sales_store
    llm_server.script(
        {"tool_calls": [tool_call("time_bounds", {"series": series.name})]},
        {"status": 500},
        {"status": 500},  # the client retries once
    )
    with pytest.raises(AskFailed) as caught:
        ask(store, LLM(llm_settings), "When does it start?")
    session = caught.value.answer.session
    node = store.read(ASKS["asks_test.ask"], id=session)[0]["a"]
    assert node.get("answer") is None and not node["complete"] and "answered 500" in node["error"]
    assert node.get("series_id") is None  # asked about no series in particular
    calls = store.read("asks.tool_calls", id=session)
    assert [c["t"]["tool"] for c in calls] == ["time_bounds"]


def test_a_refused_question_stores_no_ask_and_deleting_a_series_deletes_its_asks(
    sales_store, llm_server, llm_settings
) -> None:
    from graphmem.series.catalog import delete_series

    store, series, _ = sales_store
    with pytest.raises(Exception, match="question: must not be empty"):
        ask(store, LLM(llm_settings), " ", series.name)
    assert store.read(ASKS["asks_test.count"])[0]["n"] == 0
    llm_server.script({"content": "It covers 2010 to 2020."})
    ask(store, LLM(llm_settings), "What span?", series.name)
    assert store.read(ASKS["asks_test.count"])[0]["n"] == 1
    delete_series(store, series.id)
    assert store.read(ASKS["asks_test.count"])[0]["n"] == 0
