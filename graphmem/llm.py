"""OpenAI-compatible LLM client: chat, JSON answers and tool calls, with errors translated."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import openai

from graphmem import deadline
from graphmem.config import Settings
from graphmem.errors import LLMError, LLMNotConfigured


@dataclass(frozen=True)
class ToolCallRequest:
    """One tool call the model asked for; `arguments` is the raw JSON text it sent."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ChatReply:
    """The model's answer: text, tool calls, or both."""

    content: str | None
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    usage_tokens: int = 0


RETRIES = 1  # one retry of a failed or timed-out request: a time-out takes up to twice as long


class LLM:
    """A chat model behind any OpenAI-compatible endpoint."""

    def __init__(self, settings: Settings) -> None:
        if not settings.llm_configured:
            raise LLMNotConfigured(
                "no LLM is configured: set OPENAI_BASE_URL (and OPENAI_API_KEY if it needs one)"
            )
        self.model = settings.llm_model
        self.strong_model = settings.llm_strong_model or settings.llm_model
        self.timeout = settings.llm_timeout
        self._client = openai.OpenAI(
            base_url=settings.llm_base_url or None,
            api_key=settings.llm_api_key or "not-needed",
            timeout=settings.llm_timeout,
            max_retries=RETRIES,
        )

    def chat(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] | None = None,
        model: str | None = None,
        json_mode: bool = False,
    ) -> ChatReply:
        """One chat completion; every client or server failure becomes an LLMError."""
        kwargs: dict[str, Any] = {"model": model or self.model, "messages": list(messages)}
        if tools:
            kwargs["tools"] = list(tools)
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        try:
            response = self._client_within_deadline().chat.completions.create(
                temperature=0, **kwargs
            )
        except openai.APITimeoutError:
            if deadline.passed():
                raise deadline.timed_out("waiting for the LLM") from None
            raise LLMError(
                f"the LLM did not answer within {self.timeout:g} s ({RETRIES + 1} tries)"
            ) from None
        except openai.APIConnectionError as error:
            raise LLMError(f"cannot reach the LLM endpoint: {error}") from None
        except openai.APIStatusError as error:
            raise LLMError(
                f"the LLM endpoint answered {error.status_code}: {error.message}"
            ) from None
        except openai.OpenAIError as error:
            raise LLMError(f"LLM call failed: {error}") from None
        if not response.choices:
            raise LLMError("the LLM answered with no choices")
        message = response.choices[0].message
        calls = [
            ToolCallRequest(c.id, c.function.name, c.function.arguments or "")
            for c in (message.tool_calls or [])
            if getattr(c, "function", None) is not None
        ]
        tokens = response.usage.total_tokens if response.usage else 0
        return ChatReply(message.content, calls, tokens)

    def _client_within_deadline(self) -> openai.OpenAI:
        """The client, with one try cut at the operation's deadline when less time is left
        than its tries may take; OperationTimeout once the deadline has passed."""
        deadline.check("calling the LLM")
        left = deadline.remaining()
        if left is None or left >= self.timeout * (RETRIES + 1):
            return self._client
        return self._client.with_options(timeout=min(self.timeout, left), max_retries=0)

    def json(self, messages: Sequence[dict[str, Any]], model: str | None = None) -> Any:
        """A chat completion whose answer must be JSON; raises LLMError if it is not."""
        reply = self.chat(messages, model=model, json_mode=True)
        try:
            return parse_json(reply.content)
        except Malformed as error:
            raise LLMError(f"the LLM did not answer with valid JSON: {error}") from None


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


def llm_or_none(settings: Settings) -> LLM | None:
    """The configured LLM, or None when none is configured."""
    return LLM(settings) if settings.llm_configured else None
