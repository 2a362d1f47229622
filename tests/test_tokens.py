"""The deterministic token estimate used by the agent-token benchmark."""

from __future__ import annotations

from graphmem.tokens import estimate_tokens


def test_words_number_groups_and_line_breaks_count() -> None:
    assert estimate_tokens("sales grew") == 2
    assert estimate_tokens("2010-01-01,123.45\n") == 11  # 201 0 - 01 - 01 , 123 . 45 \n
    assert estimate_tokens("a\n\n\nb") == 3, "a run of line breaks is one token"


def test_quotes_merge_with_adjacent_json_punctuation() -> None:
    assert estimate_tokens('{"type": "string"}') == 6  # {" type ": " string "}
    assert estimate_tokens('["a","b"]') == 6  # [" a ", " b "]
    assert estimate_tokens("") == 0
