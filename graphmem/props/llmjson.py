"""Ask the LLM for JSON of a given shape, retrying once when the answer is malformed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from graphmem.errors import LLMError
from graphmem.llm import LLM, Malformed, parse_json

__all__ = ["Malformed", "ask_json", "parse_json"]

T = TypeVar("T")


def ask_json(
    llm: LLM,
    messages: Sequence[dict[str, Any]],
    validate: Callable[[Any], T],
    what: str,
    model: str | None = None,
) -> T:
    """`validate(json answer)`; one retry that tells the model what was wrong, then LLMError.

    Endpoint failures (LLMError from the client) are not retried here: the client already
    retries once. Only malformed answers get a second chance.
    """
    history = list(messages)
    problem = ""
    for attempt in range(2):
        reply = llm.chat(history, model=model, json_mode=True)
        try:
            return validate(parse_json(reply.content))
        except Malformed as error:
            problem = str(error)
        if attempt == 0:
            history += [
                {"role": "assistant", "content": reply.content or ""},
                {
                    "role": "user",
                    "content": f"That answer was invalid: {problem}. "
                    "Answer again with JSON only, in exactly the required form.",
                },
            ]
    raise LLMError(f"{what}: the LLM answered malformed output twice ({problem})")
