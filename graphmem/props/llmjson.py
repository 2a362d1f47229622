"""Ask the LLM for JSON of a given shape, retrying once when the answer is malformed."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from graphmem.errors import LLMError
from graphmem.llm import LLM

T = TypeVar("T")


class Malformed(Exception):
    """An LLM answer that is not JSON or not of the expected shape; says what is wrong."""


def parse_json(text: str | None) -> Any:
    """The JSON in an answer (a ```json fence tolerated); Malformed if there is none."""
    body = (text or "").strip()
    if body.startswith("```"):  # some models fence JSON despite json mode
        body = body.strip("`").removeprefix("json").strip()
    try:
        return json.loads(body)
    except json.JSONDecodeError as error:
        raise Malformed(f"the answer is not valid JSON ({error.msg})") from None


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
