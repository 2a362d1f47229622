"""The MCP server through the SDK's own client: `graphmem mcp` over stdio, /mcp over HTTP.

Every tool is listed and called on both transports against the sales series, and its calls are
checked in the graph (ToolCall provenance, as the agent's); bad input comes back as tool errors
naming the argument; tokens decide what an HTTP caller may call.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from appserver import served
from conftest import Q
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from test_tools import rows_of

from graphmem.config import Settings
from graphmem.limits import Limits
from graphmem.series.meta import list_metas
from graphmem.series.meta.tools import TOOLS
from graphmem.store import Store

WRITER, READER = "mcp-writer-token-0123456789", "mcp-reader-token-0123456789"
Y = "create_meta_segment_by_datetime_range"
OWN = ["subgraph", "recall", "add_propositions", "add_document", "add_event"]
WRITING = {
    Y,
    "create_meta_segment_by_filter",
    "create_meta_segment_from_members",
    "add_propositions",
    "add_document",
    "add_event",
}
TIMEOUT = httpx2.Timeout(120)  # the first call opens the model and the indexes


def run(scenario: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(scenario())


@contextlib.asynccontextmanager
async def over_http(url: str, token: str | None, mode: str = "auto") -> AsyncIterator[Client]:
    """The SDK's client on /mcp, sending `token` as a bearer token."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=TIMEOUT) as http:
        transport = streamable_http_client(f"{url}/mcp", http_client=http)
        async with Client(transport, mode=mode) as client:
            yield client


def over_stdio(store_url: str, home: Path, *flags: str, mode: str = "auto") -> Client:
    """The SDK's client starting `graphmem mcp` as a child process on the store under test."""
    env = {**os.environ, "GRAPHMEM_STORE": store_url, "GRAPHMEM_HOME": str(home)}
    command = StdioServerParameters(
        command=sys.executable, args=["-m", "graphmem.cli", "mcp", *flags], env=env
    )
    return Client(command, mode=mode)


async def call(client: Client, tool: str, **args: Any) -> dict:
    """A call that must succeed: its structured result, which is its text as JSON."""
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.content[0].text
    if tool != "subgraph":  # whose text is the rendered context
        assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


async def refused(client: Client, tool: str, **args: Any) -> str:
    """A call that must fail as a tool error: its message."""
    result = await client.call_tool(tool, args)
    assert result.is_error and result.structured_content is None
    return json.loads(result.content[0].text)["error"]


async def every_tool(client: Client, series: Any) -> list[str]:
    """Lists and calls every tool once, checking each result; returns the ToolCall ids."""
    listed = (await client.list_tools()).tools
    assert [t.name for t in listed] == [*TOOLS, *OWN]
    schemas = {t.name: t.input_schema for t in listed}
    assert all(schemas[name] == tool.parameters for name, tool in TOOLS.items())  # the agent's
    assert {t.name for t in listed if not t.annotations.read_only_hint} == WRITING | {"recall"}

    ids = []

    async def series_tool(name: str, **args: Any) -> dict:
        result = await client.call_tool(name, args)
        assert not result.is_error, result.content[0].text
        ids.append(result.meta["graphmem/toolCallId"])
        return result.structured_content

    listed = rows_of(await series_tool("list_series"))
    assert [r["name"] for r in listed] == [series.name]
    bounds = await series_tool("time_bounds", series=series.name)
    assert bounds["start"] == "2010-01-01" and bounds["n_points"] == 4018
    rising = rows_of(
        await series_tool("search_segments", series=series.name, where="slope>0", limit=3)
    )
    assert len(rising) == 3 and all(r["slope"] > 0 for r in rising)
    segment = await series_tool("get_segment", segment_id=rising[0]["id"])
    assert segment["summary"]
    years = rows_of(
        await series_tool(Y, series=series.id, start="2015-01-01", end="2016-12-31", freq="year")
    )
    assert [y["label"] for y in years] == ["2015", "2016"]
    steep = await series_tool(
        "create_meta_segment_by_filter", series=series.name, where="slope>0.05"
    )
    assert steep["id"].startswith("meta_")
    both = await series_tool(
        "create_meta_segment_from_members", member_ids=[y["id"] for y in years], label="2015-16"
    )
    assert both["label"] == "2015-16" and both["n"] == 365 + 366
    features = await series_tool("get_meta_features", meta_segment_id=years[1]["id"])
    assert features["n"] == 366
    members = await series_tool("get_members", meta_segment_id=both["id"])
    assert [m["id"] for m in rows_of(members)] == [y["id"] for y in years]
    metas = rows_of(await series_tool("list_meta_segments", series=series.name))
    assert {y["id"] for y in years} | {steep["id"], both["id"]} <= {m["id"] for m in metas}

    report = await call(
        client,
        "add_propositions",
        propositions=[
            {"text": "The Harbour line runs every 10 minutes.", "date": "2024-01-10"},
            {
                "text": "The Harbour line runs every 20 minutes.",
                "date": "2024-06-01",
                "about": "Harbour line timetable",
            },
        ],
    )
    assert report["added"] == 2 and report["relations"] >= 1
    document = await call(
        client,
        "add_document",
        date="2024-07-01",
        source="bulletin",
        text="The Harbour line closes in August. Kelby Coaches will run a replacement bus.",
    )
    assert document["added"] == 2 and document["document_id"]
    event = await call(client, "add_event", text="Rode the Harbour line to work", date="2024-03-04")
    graph = await client.call_tool(
        "subgraph", {"question": "How often does the Harbour line run?", "as_of": "2024-06-30"}
    )
    assert not graph.is_error
    context = graph.content[0].text
    assert "every 20 minutes" in context and "every 10 minutes" in context
    assert "August" not in context  # stated after the as-of date
    nodes = {n["text"]: n for n in graph.structured_content["nodes"]}
    old = nodes["The Harbour line runs every 10 minutes."]
    assert old["status"] == "updated"
    assert old["updated_by_count"] == len(old["updated_by"]) == 1
    assert nodes["The Harbour line runs every 20 minutes."]["about"] == "Harbour line timetable"
    assert graph.structured_content["context"] == context
    found = (
        await call(
            client, "recall", query="Harbour line commute", now="2024-03-05", labels=["Event"]
        )
    )["memories"]
    assert found[0]["id"] == event["id"] and 0 < found[0]["p"] <= 1 and found[0]["n"] == 0
    return ids


def check_provenance(store: Store, ids: list[str], session: Callable[[str], bool]) -> None:
    """The series tools' calls are stored as the agent's are: ToolCalls linked to their targets."""
    [row] = store.read(Q["mcp_test.session"], id=ids[0])
    assert session(row["session"])
    calls = store.read("toolcalls.by_session", session=row["session"])
    assert [c["t"]["id"] for c in calls] == ids
    assert [c["t"]["tool"] for c in calls] == list(TOOLS)
    assert len(calls[4]["targets"]) == 2  # the yearly build: BUILT both years


@pytest.fixture
def mcp_url(store_url: str, short_tmp: Path, sales_store):
    """The app on the store under test, with a read-write and a read-only token."""
    settings = Settings(
        store_url=store_url,
        home=short_tmp / "mcp-http",
        api_token=WRITER,
        read_token=READER,
        limits=Limits(propositions=3, text=300),
    )
    with served(settings) as url:
        yield url


def test_every_tool_over_stdio(store_url: str, short_tmp: Path, sales_store) -> None:
    store, series, _ = sales_store

    async def scenario() -> list[str]:
        # the handshake-era protocol, as Claude Desktop speaks it
        async with over_stdio(store_url, short_tmp / "mcp-stdio", mode="legacy") as client:
            assert client.protocol_version.startswith("2025")
            return await every_tool(client, series)

    ids = run(scenario)
    check_provenance(store, ids, lambda session: session.startswith("mcp_"))


def test_every_tool_over_http(mcp_url: str, sales_store) -> None:
    store, series, _ = sales_store

    async def scenario() -> list[str]:
        async with over_http(mcp_url, WRITER) as client:
            assert client.protocol_version >= "2026"  # auto: the newest both speak
            return await every_tool(client, series)

    ids = run(scenario)
    check_provenance(store, ids, lambda session: session == "mcp")


def test_bad_input_is_a_tool_error_naming_the_argument(mcp_url: str, sales_store) -> None:
    store, series, _ = sales_store
    too_many = [{"text": f"Fact {i}.", "date": "2024-01-01"} for i in range(4)]

    async def scenario() -> None:
        async with over_http(mcp_url, WRITER) as client:
            assert await refused(client, "time_bounds") == "series: is required"
            assert (await refused(client, "time_bounds", series="nope")).startswith("series: no ")
            message = await refused(client, "search_segments", series=series.name, limit=0)
            assert message == "limit: must be at least 1"
            message = await refused(client, "get_members", meta_segment_id="m", colour="red")
            assert message.startswith("colour: is not an argument of this tool")
            assert (await refused(client, "subgraph", question="x", k="ten")).startswith("k: ")
            assert (await refused(client, "add_event", text="x", date="soon")).startswith("date: ")
            message = await refused(client, "add_propositions", propositions=[{"text": "x"}])
            assert message.startswith("propositions[0].date")
            assert (await refused(client, "forget_all")).startswith("name: unknown tool")
            # over the service's limits (GRAPHMEM_MAX_*): refused before any work
            message = await refused(client, "add_propositions", propositions=too_many)
            assert message == (
                "propositions: has 4 items, more than the 3 allowed (GRAPHMEM_MAX_PROPOSITIONS)"
            )
            message = await refused(client, "recall", query="q" * 301, now="2024-01-01")
            assert message.startswith("query: is 301 characters long, more than the 300")
            assert "GRAPHMEM_MAX_TEXT" in message
            # and the server goes on serving
            assert (await call(client, "time_bounds", series=series.name))["n_segments"] > 0

    run(scenario)
    stored = store.read(
        "props.filtered", source=None, start=None, end=None, contains=None, offset=0, limit=10
    )
    assert stored == []  # what was refused left nothing behind


def test_a_read_only_token_reads_but_cannot_write(mcp_url: str, sales_store) -> None:
    store, series, _ = sales_store

    async def scenario() -> None:
        async with over_http(mcp_url, READER, mode="legacy") as client:
            listed = {t.name for t in (await client.list_tools()).tools}
            assert listed == set(TOOLS) - WRITING | {"subgraph", "recall"}
            assert (await call(client, "time_bounds", series=series.name))["n_points"] == 4018
            message = await refused(
                client, Y, series=series.name, start="2015-01-01", end="2015-12-31"
            )
            assert message == f"{Y} writes, and needs a read-write token; this one is read-only"
            message = await refused(client, "add_event", text="x", date="2024-01-01")
            assert "needs a read-write token" in message
            message = await refused(client, "recall", query="x", now="2024-01-01", reinforce=True)
            assert message.startswith("reinforce: writes, and needs a read-write token")
            assert (await call(client, "recall", query="x", now="2024-01-01"))["memories"] == []

    run(scenario)
    assert list_metas(store, series.id) == []


def test_mcp_needs_a_known_token(mcp_url: str) -> None:
    answer = httpx.post(f"{mcp_url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert answer.status_code == 401 and answer.headers["www-authenticate"].startswith("Bearer")
    wrong = httpx.post(f"{mcp_url}/mcp", json={}, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and "invalid_token" in wrong.headers["www-authenticate"]
    assert wrong.headers["x-request-id"]  # the app's middleware wraps /mcp too
    metrics = httpx.get(f"{mcp_url}/metrics").text
    assert 'graphmem_http_requests_total{route="/mcp",status="401"} 2.0' in metrics

    async def scenario() -> None:
        async with over_http(mcp_url, None) as client:
            await client.list_tools()

    with pytest.raises(ExceptionGroup) as caught:  # the SDK's client does not get in either
        run(scenario)
    assert caught.group_contains(MCPError, depth=None)


def test_resources_and_prompt_describe_the_series(mcp_url: str, sales_store) -> None:
    _, series, _ = sales_store

    async def scenario() -> None:
        async with over_http(mcp_url, READER) as client:
            [resource] = (await client.list_resources()).resources
            [template] = (await client.list_resource_templates()).resource_templates
            assert template.uri_template == f"{resource.uri}/{{series}}"
            every = (await client.read_resource(resource.uri)).contents[0].text
            one = (await client.read_resource(f"{resource.uri}/{series.name}")).contents[0].text
            assert every == one and one.startswith(f"Series {series.name} (units sold): 2010-01-01")
            with pytest.raises(MCPError, match="uri: .*no series with id or name 'nope'"):
                await client.read_resource(f"{resource.uri}/nope")
            [prompt] = (await client.list_prompts()).prompts
            got = await client.get_prompt(
                prompt.name, {"question": "Which year grew slowest?", "series": series.name}
            )
            text = got.messages[0].content.text
            assert text.startswith("Answer with the tools about the series below") and one in text
            assert text.endswith("Question: Which year grew slowest?")
            with pytest.raises(MCPError, match="question: must not be empty"):
                await client.get_prompt(prompt.name, {"question": " "})

    run(scenario)


def test_calls_run_under_the_operation_time_limit(
    store_url: str, short_tmp: Path, sales_store
) -> None:
    store, series, _ = sales_store
    settings = Settings(store_url=store_url, home=short_tmp / "mcp-hurried")
    hurried = dataclasses.replace(settings, limits=Limits(operation_timeout=0.001))

    async def scenario(url: str) -> str:
        async with over_http(url, None) as client:
            return await refused(
                client, Y, series=series.id, start="2010-01-01", end="2020-12-31", freq="month"
            )

    with served(hurried) as url:
        message = run(lambda: scenario(url))
    assert "GRAPHMEM_OPERATION_TIMEOUT" in message
    assert list_metas(store, series.id) == []


def test_a_read_only_stdio_server_offers_only_the_reading_tools(
    store_url: str, short_tmp: Path, sales_store
) -> None:
    _, series, _ = sales_store

    async def scenario() -> None:
        async with over_stdio(store_url, short_tmp / "mcp-ro", "--read-only") as client:
            listed = {t.name for t in (await client.list_tools()).tools}
            assert listed == set(TOOLS) - WRITING | {"subgraph", "recall"}
            message = await refused(client, "add_event", text="x", date="2024-01-01")
            assert "needs a read-write token" in message
            assert (await call(client, "time_bounds", series=series.name))["n_points"] == 4018

    run(scenario)
