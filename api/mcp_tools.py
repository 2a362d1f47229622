"""The MCP tools: the ten series tools (the agent's schemas; each call stored as a ToolCall), the
proposition subgraph with its rendered context, timeline recall, and adding memories.

`call` never raises: bad input, a limit, a failure come back as a Reply with ok False and
the problem in plain words, naming the argument (docs/mcp.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from api.complexity import SIZE_ARGUMENTS, oversized
from graphmem import props
from graphmem import timeline as tl
from graphmem.errors import InvalidInput, LimitExceeded
from graphmem.jsonargs import validate
from graphmem.kinds import labels
from graphmem.limits import ENV, Limits
from graphmem.props.retrieve import MAX_K as SUBGRAPH_K
from graphmem.props.retrieve import RANK_BY, anchor_ranker
from graphmem.series.meta.tools import TOOLS, failure_words, run_tool
from graphmem.services import Services
from graphmem.timeline.recall import MAX_K as RECALL_K

# (tool, argument) -> the Limits attribute bounding that argument's own list or string;
# every other list and string gets list_items and text (as api/complexity.py's SPECIFIC)
SPECIFIC = {
    ("add_propositions", "propositions"): "propositions",
    ("add_document", "text"): "document",
}


@dataclass(frozen=True)
class Reply:
    """A tool's answer: `text` for the model; `data`, the same as JSON, when it succeeded."""

    ok: bool
    text: str
    data: dict[str, Any] | None = None
    call_id: str | None = None  # the ToolCall node a series tool's call was stored as


Handler = Callable[[Services, dict[str, Any], str], Reply]


@dataclass(frozen=True)
class McpTool:
    """One tool: its JSON schema, what runs it, and what it needs of the caller's token."""

    name: str
    description: str
    schema: dict[str, Any]
    handler: Handler  # (services, arguments as sent, ToolCall session) -> Reply
    writes: bool = False  # only a read-write token may call it
    write_flag: str | None = None  # a boolean argument that, when true, makes the call write
    uses_llm: bool = False  # may call the LLM: runs under the LLM operations' time limit

    def writes_with(self, args: dict[str, Any]) -> bool:
        """Whether a call with `args` changes stored data (beyond its own provenance)."""
        return self.writes or (self.write_flag is not None and args.get(self.write_flag) is True)


def _json(data: dict[str, Any]) -> Reply:
    return Reply(True, json.dumps(data, separators=(",", ":"), ensure_ascii=False), data)


def _series_tool(name: str) -> McpTool:
    """A series tool as the agent calls it: run_tool validates, runs and records the call."""
    tool = TOOLS[name]

    def handler(services: Services, args: dict[str, Any], session: str) -> Reply:
        result = run_tool(services.tools(), name, args, session=session)
        data = json.loads(result.content) if result.ok else None
        return Reply(
            result.ok, result.content, data if isinstance(data, dict) else None, result.call_id
        )

    return McpTool(
        name, tool.description, tool.parameters, handler, writes=name.startswith("create_")
    )


def _own(
    name: str,
    description: str,
    schema: dict[str, Any],
    run: Callable[[Services, dict[str, Any]], Reply],
    **needs: Any,
) -> McpTool:
    """A tool whose arguments are checked against `schema` first (defaults filled in)."""

    def handler(services: Services, args: dict[str, Any], session: str) -> Reply:
        return run(services, validate(args, schema))

    return McpTool(name, description, schema, handler, **needs)


def _subgraph(services: Services, a: dict[str, Any]) -> Reply:
    ctx = services.props()
    ranker = anchor_ranker(ctx, a["rank_by"], a["now"], a["as_of"])
    graph = props.subgraph(ctx, a["question"], a["as_of"], a["k"], a["expand"], ranker=ranker)
    context = props.render(graph, a["max_tokens"])
    nodes = [
        {
            "id": n.prop.id,
            "date": n.prop.date,
            "text": n.prop.text,
            "source": n.prop.source,
            "about": n.prop.about,
            "anchor": n.is_anchor,
            "score": n.score,
            "status": n.status.state,
            "updated_by": list(n.status.updated_by),
            "updated_by_count": n.status.updated_count,
            "contradicted_by": list(n.status.contradicted_by),
            "contradicted_by_count": n.status.contradicted_count,
        }
        for n in graph.nodes
    ]
    edges = [
        {"id": e.id, "src": e.src, "dst": e.dst, "kind": e.kind, "confidence": e.confidence}
        for e in graph.edges
    ]
    data = {"as_of": a["as_of"], "context": context, "nodes": nodes, "edges": edges}
    return Reply(True, context, data)  # the model reads the rendered context


def _recall(services: Services, a: dict[str, Any]) -> Reply:
    kinds = tuple(a["labels"] or tl.DEFAULT_LABELS)
    found = tl.recall(
        services.timeline(),
        a["query"],
        a["now"],
        a["k"],
        a["threshold"],
        kinds,
        reinforce=a["reinforce"],
    )
    memories = [
        {
            "label": m.label,
            "id": m.id,
            "text": m.text,
            "date": m.date,
            "p": m.p,
            "r": m.r,
            "n": m.n,
            "recalled": m.recalled,
        }
        for m in found
    ]
    return _json({"memories": memories})


def _report(report: props.IngestReport) -> Reply:
    return _json(
        {
            "document_id": report.document_id,
            "proposition_ids": list(report.proposition_ids),
            "added": report.added,
            "existing": report.existing,
            "relations": report.relations,
        }
    )


def _add_propositions(services: Services, a: dict[str, Any]) -> Reply:
    return _report(props.add_propositions(services.props(), a["propositions"]))


def _add_document(services: Services, a: dict[str, Any]) -> Reply:
    return _report(props.add_document(services.props(), a["text"], a["date"], a["source"]))


def _add_event(services: Services, a: dict[str, Any]) -> Reply:
    try:
        event = tl.add_event(services.timeline(), a["text"], a["date"], a["source"])
    except InvalidInput as error:  # the library names the event; here its arguments
        raise InvalidInput(error.field.removeprefix("event."), error.problem) from None
    return _json({"id": event.id, "text": event.text, "date": event.date})


def _schema(required: list[str], **properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


STR = {"type": "string"}
DAY = {"type": "string", "description": "YYYY-MM-DD"}
WHEN = {"type": "string", "description": "ISO date or datetime"}
SOURCE = {"type": "string", "description": "where it came from"}
ABOUT = {
    "type": "string",
    "description": "the headings it sits under in its document (title, subject, section)",
}
LABELS = list(labels("vectors"))  # what recall can rank: the kinds with embeddings
PROPOSITION = _schema(["text", "date"], text=STR, date=DAY, source=SOURCE, about=ABOUT)

OWN_TOOLS = [
    _own(
        "subgraph",
        "Propositions answering a question as of a date: anchors, their related neighbours "
        "and what updated or contradicted them, rendered as prompt context.",
        _schema(
            ["question"],
            question=STR,
            as_of={"type": "string", "description": "YYYY-MM-DD: only what was known by then"},
            k={
                "type": "integer",
                "minimum": 1,
                "maximum": SUBGRAPH_K,
                "default": 10,
                "description": "anchor propositions",
            },
            expand={
                "type": "boolean",
                "default": True,
                "description": "add the neighbours related to the anchors",
            },
            rank_by={
                "type": "string",
                "enum": list(RANK_BY),
                "default": "similarity",
                "description": "recall: anchors by recall probability at now",
            },
            now={"type": "string", "description": "for rank_by recall (default: as_of)"},
            max_tokens={
                "type": "integer",
                "minimum": 1,
                "description": "budget of the rendered context",
            },
        ),
        _subgraph,
    ),
    _own(
        "recall",
        "Memories (events, propositions, ...) ranked by recall probability at now: relevance "
        "to the query, time since last recalled, times recalled.",
        _schema(
            ["query", "now"],
            query=STR,
            now=WHEN,
            k={"type": "integer", "minimum": 1, "maximum": RECALL_K, "default": 10},
            threshold={
                "type": "number",
                "description": "recalled when p >= it (default: the configured one)",
            },
            labels={
                "type": "array",
                "items": {"type": "string", "enum": LABELS},
                "description": "default Event, Proposition",
            },
            reinforce={
                "type": "boolean",
                "default": False,
                "description": "record the recall of those recalled (writes)",
            },
        ),
        _recall,
        write_flag="reinforce",
    ),
    _own(
        "add_propositions",
        "Store already-extracted dated propositions; related to earlier ones "
        "(updates / contradicts / supports). Re-sending them changes nothing.",
        _schema(
            ["propositions"], propositions={"type": "array", "items": PROPOSITION, "minItems": 1}
        ),
        _add_propositions,
        writes=True,
        uses_llm=True,
    ),
    _own(
        "add_document",
        "Store a document and the dated propositions it states (extracted by the LLM, or one "
        "per sentence without one).",
        _schema(["text", "date"], text=STR, date=DAY, source=SOURCE),
        _add_document,
        writes=True,
        uses_llm=True,
    ),
    _own(
        "add_event",
        "Store an episodic memory (the same text and date again: nothing new).",
        _schema(["text", "date"], text=STR, date=WHEN, source=SOURCE),
        _add_event,
        writes=True,
    ),
]

CATALOG: dict[str, McpTool] = {t.name: t for t in [*map(_series_tool, TOOLS), *OWN_TOOLS]}


def over_limit(tool: str, args: dict[str, Any], limits: Limits) -> LimitExceeded | None:
    """The first argument over the service's limits (GRAPHMEM_MAX_*), if any."""
    for name, value in args.items():
        problem = oversized(name, value, limits, SPECIFIC.get((tool, name)))
        if problem is not None:
            return problem
        if name in SIZE_ARGUMENTS and type(value) is int:
            most = getattr(limits, SIZE_ARGUMENTS[name])
            if value > most:
                setting = ENV[SIZE_ARGUMENTS[name]]
                text = f"is {value:,}, more than the {most:,} allowed ({setting})"
                return LimitExceeded(name, text, most, value)
    return None


def error_reply(words: str) -> Reply:
    """A failed call, in the series tools' form: {"error": "<field>: <problem>"}."""
    return Reply(False, json.dumps({"error": words}, ensure_ascii=False))


def call(
    services: Callable[[], Services], tool: McpTool, args: dict[str, Any], session: str
) -> Reply:
    """Open the services, run one tool; every failure comes back as an error Reply (a bug is
    logged as well), a store that cannot be opened too."""
    try:
        return tool.handler(services(), args, session)
    except Exception as exc:  # noqa: BLE001 - one tool's failure must not end the session
        return error_reply(failure_words(tool.name, exc))
