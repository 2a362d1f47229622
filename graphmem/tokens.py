"""A deterministic token estimate shared by budgets and benchmarks (no tokenizer download)."""

from __future__ import annotations

import re

# Roughly how BPE tokenizers of the GPT-4 family split text: a word is a token, numbers
# split into groups of up to three digits, and every other symbol is a token of its own.
# Counting characters / 4 would undercount number-heavy text such as a CSV by half.
_TOKEN = re.compile(r"[A-Za-z]+|\d{1,3}|[^\sA-Za-z\d]")


def estimate_tokens(text: str) -> int:
    """About how many tokens an LLM sees for `text`."""
    return len(_TOKEN.findall(text))
