"""A deterministic token estimate shared by budgets and benchmarks (no tokenizer download)."""

from __future__ import annotations

import re

# Roughly how BPE tokenizers of the GPT-4 family (cl100k_base, o200k_base) split text: a word
# is a token, numbers split into groups of up to three digits, a line break is a token, a
# quote merges with the JSON punctuation around it ('{"', '":', '",', '"}'), and every other
# symbol is a token of its own. Checked against both real tokenizers (bench/bench_meta.py
# prints them when the optional `bpe-openai` package is installed): within ~1 % on a CSV
# series, ~10 % high on JSON tool schemas and results. Counting characters / 4 would
# undercount number-heavy text such as a CSV by half.
_TOKEN = re.compile(r'[A-Za-z]+|\d{1,3}|\n+|[{\[,:]?"[}\],:]?|[^\sA-Za-z\d]')


def estimate_tokens(text: str) -> int:
    """About how many tokens an LLM sees for `text`."""
    return len(_TOKEN.findall(text))
