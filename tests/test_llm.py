"""The LLM client through the real openai package against the scripted local server."""

from __future__ import annotations

import pytest
from llm_server import tool_call

from graphmem.config import Settings
from graphmem.errors import LLMError, LLMNotConfigured
from graphmem.llm import LLM, llm_or_none


def test_chat_text_and_tool_calls(llm_server, llm_settings) -> None:
    llm_server.script(
        {"content": "hello"}, {"tool_calls": [tool_call("time_bounds", {"series": "x"})]}
    )
    llm = LLM(llm_settings)
    assert llm.chat([{"role": "user", "content": "hi"}]).content == "hello"
    reply = llm.chat(
        [{"role": "user", "content": "go"}],
        tools=[
            {
                "type": "function",
                "function": {"name": "time_bounds", "parameters": {"type": "object"}},
            }
        ],
    )
    assert reply.tool_calls[0].name == "time_bounds" and '"series"' in reply.tool_calls[0].arguments
    assert llm_server.requests[1]["tools"][0]["function"]["name"] == "time_bounds"
    assert llm_server.requests[0]["model"] == llm_settings.llm_model


def test_json_answers_are_parsed_and_bad_json_reported(llm_server, llm_settings) -> None:
    llm_server.script({"content": '```json\n{"a": 1}\n```'}, {"content": "not json"})
    llm = LLM(llm_settings)
    assert llm.json([{"role": "user", "content": "x"}]) == {"a": 1}
    assert llm_server.requests[0]["response_format"] == {"type": "json_object"}
    with pytest.raises(LLMError, match="valid JSON"):
        llm.json([{"role": "user", "content": "x"}])


def test_server_error_is_an_llm_error(llm_server, llm_settings) -> None:
    llm_server.script({"status": 500}, {"status": 500})  # the client retries once
    with pytest.raises(LLMError, match="answered 500"):
        LLM(llm_settings).chat([{"role": "user", "content": "x"}])


def test_timeout_is_an_llm_error(llm_server) -> None:
    settings = Settings(llm_base_url=llm_server.url, llm_timeout=0.3)
    llm_server.script({"delay": 1.0, "content": "late"}, {"delay": 1.0, "content": "late"})
    with pytest.raises(LLMError, match=r"did not answer within 0.3 s \(2 tries\)"):
        LLM(settings).chat([{"role": "user", "content": "x"}])
    assert len(llm_server.requests) == 2, "one retry, each waiting the whole time-out"


def test_no_llm_configured_is_said_plainly() -> None:
    assert llm_or_none(Settings()) is None
    with pytest.raises(LLMNotConfigured, match="no LLM is configured"):
        LLM(Settings())
