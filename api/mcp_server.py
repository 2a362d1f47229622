"""graphmem as an MCP server (the official `mcp` SDK): `graphmem mcp` over stdio, `/mcp` over HTTP.

Tools are api/mcp_tools.py's; a resource describes the stored series and a prompt gives the
built-in agent's instructions, so an outside agent starts where `ask` does. Calls run on the
app's worker thread (as GraphQL operations do) under the same time limits; over HTTP the
caller's bearer token decides what it may call (docs/mcp.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import uuid
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import unquote

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError
from starlette.datastructures import Headers
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

import graphmem
from api.auth import GRANT, bearer_token, chosen_space, grant_of, space_of, unauthenticated
from api.credentials import OPEN, READ, Grant, Tokens
from api.mcp_tools import CATALOG, McpTool, Reply, call, error_reply, over_limit
from api.state import AppState
from graphmem import agent, deadline
from graphmem.config import Settings
from graphmem.errors import GraphmemError
from graphmem.limits import ENV
from graphmem.services import Lease, Services
from graphmem.spaces import DEFAULT_SPACE

PATH = "/mcp"
SERIES_URI = "graphmem://series"  # all series; SERIES_URI/<name or id>: one
PROMPT = "series_question"
TOOL_CALL_META = "graphmem/toolCallId"
INSTRUCTIONS = (
    "Temporal graph memory. Numeric series are cut into segments, grouped on demand into "
    "meta-segments (the series tools; read graphmem://series first); dated propositions answer "
    "questions as of a date (subgraph); memories rank by recall probability (recall)."
)


class McpServer:
    """The MCP request handlers over an AppState; `local` is the grant of a stdio caller."""

    def __init__(
        self, state: AppState, local: Grant | None, session: str, space: str = DEFAULT_SPACE
    ) -> None:
        self.state = state
        self.local = local
        self.local_space = space  # a stdio caller's (`graphmem mcp --space`)
        self.session = session  # the ToolCall nodes' session
        self.server: Server[Any] = Server(
            "graphmem",
            version=graphmem.__version__,
            instructions=INSTRUCTIONS,
            get_tool_input_schema=lambda name: CATALOG[name].schema if name in CATALOG else None,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_list_resources=self.list_resources,
            on_list_resource_templates=self.list_resource_templates,
            on_read_resource=self.read_resource,
            on_list_prompts=self.list_prompts,
            on_get_prompt=self.get_prompt,
        )

    def _can_write(self, ctx: ServerRequestContext[Any]) -> bool:
        """Over HTTP the request's token decides; over stdio, how the server was started."""
        grant = grant_of(ctx.request) if ctx.request is not None else self.local
        return grant is not None and grant.can_write

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        """Every tool the caller may call: a read-only token is not offered the writing ones."""
        writer = self._can_write(ctx)
        return types.ListToolsResult(
            tools=[_describe(t) for t in CATALOG.values() if writer or not t.writes]
        )

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool, args = CATALOG.get(params.name), params.arguments or {}
        if tool is None:
            reply = error_reply(f"name: unknown tool {params.name!r}; tools: {', '.join(CATALOG)}")
        elif tool.writes_with(args) and not self._can_write(ctx):
            reply = error_reply(_forbidden(tool, args))
        elif (problem := over_limit(tool.name, args, self.state.settings.limits)) is not None:
            reply = error_reply(str(problem))
        else:
            kind = "mutation" if tool.writes_with(args) else "query"
            work = functools.partial(self._call, tool, args, self._space(ctx))
            reply = await self.state.run(work, kind)
        meta = {TOOL_CALL_META: reply.call_id} if reply.call_id else None
        return types.CallToolResult(
            content=[types.TextContent(text=reply.text)],
            structured_content=reply.data,
            is_error=not reply.ok,
            _meta=meta,
        )

    def _space(self, ctx: ServerRequestContext[Any]) -> str:
        """Over HTTP the request's X-Graphmem-Space; over stdio, how the server was started."""
        return space_of(ctx.request) if ctx.request is not None else self.local_space

    def _services(self, space: str) -> Services:
        """The services of `space` (the request's X-Graphmem-Space; stdio: `default`)."""
        return self.state.services().in_space(space)

    def _call(self, tool: McpTool, args: dict[str, Any], space: str) -> Reply:
        """On the worker, within the operation time limit (the LLM one if it may call it)."""
        settings = self.state.settings
        slow = tool.uses_llm and settings.llm_configured
        limit = "llm_operation_timeout" if slow else "operation_timeout"
        with (
            deadline.limited(getattr(settings.limits, limit), ENV[limit]),
            Lease(self.state.services, space) as services,  # held until the call ends
        ):
            return call(services, tool, args, self.session)

    async def list_resources(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        series = types.Resource(
            uri=SERIES_URI,
            name="series",
            mime_type="text/plain",
            description="The stored series: name, unit, span, spacing, number of segments",
        )
        return types.ListResourcesResult(resources=[series])

    async def list_resource_templates(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        one = types.ResourceTemplate(
            uri_template=SERIES_URI + "/{series}",
            name="one series",
            mime_type="text/plain",
            description="One series (by name or id): unit, span, spacing, segments",
        )
        return types.ListResourceTemplatesResult(resource_templates=[one])

    async def read_resource(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri != SERIES_URI and not uri.startswith(SERIES_URI + "/"):
            raise MCPError(types.INVALID_PARAMS, f"uri: no resource {uri!r}; see {SERIES_URI}")
        ref = unquote(uri[len(SERIES_URI) + 1 :]) or None
        text = await self._described(ref, "uri", self._space(ctx))
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type="text/plain", text=text)]
        )

    async def list_prompts(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        prompt = types.Prompt(
            name=PROMPT,
            description="The built-in agent's instructions and the series described, "
            "for a question answered with the series tools",
            arguments=[
                types.PromptArgument(name="question", required=True),
                types.PromptArgument(name="series", description="name or id (default: all)"),
            ],
        )
        return types.ListPromptsResult(prompts=[prompt])

    async def get_prompt(
        self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        if params.name != PROMPT:
            raise MCPError(types.INVALID_PARAMS, f"name: no prompt {params.name!r}; see {PROMPT}")
        args = params.arguments or {}
        question = args.get("question", "")
        try:
            agent.check_question(question, 1)
        except GraphmemError as error:
            raise MCPError(types.INVALID_PARAMS, str(error)) from None
        described = await self._described(args.get("series"), "series", self._space(ctx))
        system = agent.SYSTEM.format(series=described)
        text = f"{system}\n\nQuestion: {question.strip()}"
        return types.GetPromptResult(
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))]
        )

    async def _described(self, ref: str | None, field: str, space: str) -> str:
        """The series' description (agent.describe_series); INVALID_PARAMS naming `field`."""

        def describe() -> str:
            with deadline.limited(
                self.state.settings.limits.operation_timeout, ENV["operation_timeout"]
            ):
                return agent.describe_series(self._services(space).store, ref)

        try:
            return await self.state.run(describe)
        except GraphmemError as error:
            raise MCPError(types.INVALID_PARAMS, f"{field}: {error}") from None


def _describe(tool: McpTool) -> types.Tool:
    """The MCP description of a tool, with hints of what it changes."""
    changes = tool.writes or tool.write_flag is not None
    hints = types.ToolAnnotations(
        read_only_hint=not changes,
        destructive_hint=False if changes else None,
        idempotent_hint=True if changes else None,
        open_world_hint=False,
    )
    return types.Tool(
        name=tool.name, description=tool.description, input_schema=tool.schema, annotations=hints
    )


def _forbidden(tool: McpTool, args: dict[str, Any]) -> str:
    if not tool.writes and tool.write_flag is not None:
        return f"{tool.write_flag}: writes, and needs a read-write token; this one is read-only"
    return f"{tool.name} writes, and needs a read-write token; this one is read-only"


class McpHttp:
    """`/mcp`: streamable HTTP (stateless, JSON responses) behind the API's bearer tokens.

    The token is checked before the SDK reads the request, as for /graphql (401 otherwise);
    hosts, CORS, body size, request ids wrap it like every route. Stateless: each request
    carries its token, so what it may call is decided per request, and no session outlives it.
    """

    def __init__(self, state: AppState, tokens: Tokens) -> None:
        self.tokens = tokens
        handlers = McpServer(state, None, session="mcp")
        self.manager = StreamableHTTPSessionManager(
            handlers.server,
            json_response=True,
            stateless=True,
            max_request_body_size=state.settings.limits.body_bytes,
        )

    def route(self) -> Route:
        return Route(PATH, self)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        header = Headers(scope=scope).get("authorization")
        grant = self.tokens.grant_for(bearer_token(header))
        if grant is None:
            await unauthenticated(header)(scope, receive, send)
            return
        scope[GRANT] = grant
        chosen = chosen_space(scope, grant)
        if not isinstance(chosen, str):
            await chosen(scope, receive, send)
            return
        await self.manager.handle_request(scope, receive, send)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """For the app's lifespan: the SDK's task group for the requests."""
        async with self.manager.run():
            yield


def serve_stdio(settings: Settings, read_only: bool = False, space: str = DEFAULT_SPACE) -> None:
    """`graphmem mcp`: serve one client over stdin/stdout until it closes them."""
    state = AppState(settings)
    grant = Grant(READ, "graphmem mcp --read-only") if read_only else OPEN
    handlers = McpServer(state, grant, session="mcp_" + uuid.uuid4().hex[:12], space=space)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            options = handlers.server.create_initialization_options()
            await handlers.server.run(read, write, options)

    try:
        asyncio.run(serve())
    finally:
        state.close()
