"""The agent: an OpenAI-compatible tool-calling loop over the series tools."""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphmem.errors import GraphmemError, InvalidInput, LLMError
from graphmem.llm import LLM
from graphmem.series import catalog
from graphmem.series.detect.archive import read_index_range
from graphmem.series.detect.segments import time_bounds
from graphmem.series.meta.tools import TOOLS, ToolEnv, ToolResult, run_tool, tool_schemas
from graphmem.store import Store
from graphmem.strings import MAX_QUERY, checked_str
from graphmem.timeutil import iso, iso_date

SHORT_RESULT = 300

DESCRIPTION_CHARS = 120  # of a series' own description, in the system prompt

DESCRIBED = 20  # series the system prompt describes when no series is given; list_series pages
MAX_STEPS = 50  # tool-call rounds one question may take

# Says only what the tool schemas do not: the series, the approach, the form of the answer.
SYSTEM = """Answer with the tools about the series below; raw points are never shown. Segments \
are stable stretches; meta-segments group them by period, filter or members. Compare their \
features, drill into segments for evidence, answer in plain words with the numbers used. \
Dates YYYY-MM-DD; a series' name is its id.
{series}"""


@dataclass(frozen=True)
class Step:
    """One tool call the agent made."""

    number: int
    tool: str
    arguments: str
    ok: bool
    result: str  # shortened
    call_id: str = ""  # the ToolCall node


@dataclass
class Answer:
    """The agent's final answer, what it did, and the evidence it read.

    `evidence`: the segments and meta-segments the tool results showed the model, in the order
    first shown (not every node a build made). `session` is also the id of the stored Ask node;
    `tokens` adds up the usage the endpoint reported over all requests.
    """

    question: str
    answer: str | None
    complete: bool
    steps: list[Step] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    session: str = ""
    tokens: int = 0
    model: str = ""
    series_id: str | None = None  # the series asked about, if one was
    at: float = 0.0  # when the answer was stored (epoch seconds)

    @property
    def at_iso(self) -> str:
        return iso(round(self.at, 3))


class AskFailed(LLMError):
    """The LLM failed part-way through an answer.

    Every tool call made until then is stored whole (a ToolCall is written in one statement
    once the call has run), and so is the Ask, with the error; `answer` holds the session id
    (the Ask's id) and those steps.
    """

    def __init__(self, cause: LLMError, answer: Answer) -> None:
        done = ", ".join(s.tool for s in answer.steps) or "none"
        super().__init__(f"{cause} (session {answer.session}; tool calls stored: {done})")
        self.answer = answer


def _spacing(store: Store, series_id: str) -> str:
    """'daily points', 'hourly points', ... or 'points about N s apart'."""
    points = read_index_range(store, series_id, 0, 200)
    if len(points) < 2:
        return "points"
    gap = float(np.median(np.diff(points.ts)))
    for seconds, word in (
        (86400 * 7, "weekly"),
        (86400, "daily"),
        (3600, "hourly"),
        (60, "minutely"),
    ):
        if abs(gap - seconds) < 0.01 * seconds:
            return f"{word} points"
    return f"points about {gap:.0f} s apart"


def describe_series(store: Store, series_ref: str | None) -> str:
    """What the system prompt says about the series: name, unit, bounds, spacing.

    Without a series named, the first DESCRIBED by name, and how many more list_series has.
    """
    more = 0
    if series_ref:
        chosen = [catalog.get_series(store, series_ref)]
    else:
        chosen = catalog.list_series(store, limit=DESCRIBED + 1)
        if len(chosen) > DESCRIBED:  # only then is the total worth counting
            chosen, more = chosen[:DESCRIBED], catalog.count_series(store) - DESCRIBED
    if not chosen:
        return "No series are stored yet."
    lines = [_describe(store, s) for s in chosen]
    if more:
        lines.append(f"...and {more} more series (list_series).")
    return "\n".join(lines)


def _describe(store: Store, s: catalog.SeriesInfo) -> str:
    b = time_bounds(store, s.id)
    span = (
        f"{iso_date(b.start)} to {iso_date(b.end)}, {b.n_points} {_spacing(store, s.id)}, "
        f"{b.n_segments} segments"
        if b.n_points and b.start is not None and b.end is not None
        else "no points yet"
    )
    unit = f" ({s.unit})" if s.unit else ""
    desc = ""
    if s.description:
        cut = s.description[:DESCRIPTION_CHARS]
        desc = ". " + (cut if cut == s.description else cut.rsplit(" ", 1)[0] + "...")
    return f"Series {s.name}{unit}: {span}{desc}"


def _tool_message(call_id: str, result: ToolResult) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": result.content}


def check_question(question: str, max_steps: int) -> None:
    """InvalidInput unless `question` is a non-empty text and `max_steps` in range."""
    if not checked_str(question, "question", MAX_QUERY).strip():
        raise InvalidInput("question", "must not be empty")
    if isinstance(max_steps, bool) or not isinstance(max_steps, int):
        raise InvalidInput("max_steps", "must be an integer")
    if not 1 <= max_steps <= MAX_STEPS:
        raise InvalidInput("max_steps", f"must be between 1 and {MAX_STEPS}")


def ask(
    store: Store,
    llm: LLM,
    question: str,
    series_ref: str | None = None,
    max_steps: int = 10,
    on_step: Callable[[Step, int], None] | None = None,
    env: ToolEnv | None = None,
) -> Answer:
    """Let the LLM answer `question` with the tools; every call is kept as provenance.

    The question, answer and evidence are stored as an Ask node linked to its ToolCalls, also
    when the LLM fails part-way (with the error). `env`: the tools to run, with text search
    (`Services.tools()`, `services.open_tools`); by default every tool but text search.
    """
    check_question(question, max_steps)
    series_id = catalog.get_series(store, series_ref).id if series_ref else None
    answer = Answer(
        question=question,
        answer=None,
        complete=False,
        model=llm.model,
        session="ask_" + uuid.uuid4().hex[:16],
        series_id=series_id,
    )
    own_env = env is None
    env = env or ToolEnv(store)
    try:
        _loop(store, env, llm, answer, series_ref, max_steps, on_step)
    except GraphmemError as error:
        with contextlib.suppress(GraphmemError):  # the error the caller gets is the first one
            record_ask(store, answer, str(error))
        raise
    finally:
        if own_env:
            env.close()
    record_ask(store, answer)
    return answer


def record_ask(store: Store, answer: Answer, error: str | None = None) -> None:
    """Store `answer` as an Ask node linked to its ToolCalls (CALLED) and evidence (EVIDENCE)."""
    answer.at = time.time()
    store.write(
        "asks.record",
        id=answer.session,
        series_id=answer.series_id,
        question=answer.question,
        answer=answer.answer,
        complete=answer.complete,
        error=error,
        model=answer.model,
        tokens=answer.tokens,
        at=answer.at,
        at_iso=answer.at_iso,
        calls=[{"id": s.call_id, "step": s.number} for s in answer.steps],
        evidence=answer.evidence,
    )


def _loop(
    store: Store,
    env: ToolEnv,
    llm: LLM,
    answer: Answer,
    series_ref: str | None,
    max_steps: int,
    on_step: Callable[[Step, int], None] | None,
) -> None:
    """Fill in `answer`: the tool-call rounds, then the final answer."""
    session = answer.session
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM.format(series=describe_series(store, series_ref))},
        {"role": "user", "content": answer.question.strip()},
    ]
    # asked about one series, which the system prompt describes, list_series has nothing to add
    schemas = tool_schemas(exclude=("list_series",) if series_ref else ())
    while len(answer.steps) < max_steps:
        try:
            reply = llm.chat(messages, tools=schemas)
        except LLMError as error:
            raise AskFailed(error, answer) from None
        answer.tokens += reply.usage_tokens
        if not reply.tool_calls:
            answer.answer, answer.complete = reply.content or "", True
            return
        messages.append(
            {
                "role": "assistant",
                "content": reply.content,
                "tool_calls": [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments},
                    }
                    for c in reply.tool_calls
                ],
            }
        )
        for call in reply.tool_calls:
            if len(answer.steps) >= max_steps:
                skipped = json.dumps({"error": "step limit reached; this call was not run"})
                messages.append({"role": "tool", "tool_call_id": call.id, "content": skipped})
                continue
            result = run_tool(env, call.name, call.arguments, session=session)
            messages.append(_tool_message(call.id, result))
            step = Step(
                len(answer.steps) + 1,
                call.name,
                call.arguments,
                result.ok,
                result.content[:SHORT_RESULT],
                result.call_id,
            )
            answer.steps.append(step)
            answer.evidence.extend(i for i in result.shown if i not in answer.evidence)
            if on_step is not None:
                on_step(step, max_steps)
    answer.answer = f"No final answer within {max_steps} steps; the trace shows what was done."


def format_step(step: Step, max_steps: int) -> str:
    """'[Step 1/10] tool: time_bounds {"series": ...}' for traces."""
    status = "" if step.ok else "  (error)"
    return f"[Step {step.number}/{max_steps}] tool: {step.tool} {step.arguments}{status}"


__all__ = ["TOOLS", "Answer", "AskFailed", "Step", "ask", "describe_series", "format_step"]


def ask_tool_calls(store: Store, ask_id: str) -> list[dict[str, Any]]:
    """The ToolCall nodes an ask made ({t: node}), in the order it made them."""
    return store.read("asks.tool_calls", id=ask_id)
