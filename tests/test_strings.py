"""The string checks every entry point shares (graphmem/strings.py)."""

from __future__ import annotations

import pytest

from graphmem.errors import InvalidInput
from graphmem.strings import checked_name, checked_str, storable


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("a\x00b", "holds NUL (U+0000) at index 1"),
        ("ab\x01", "holds U+0001 (a control character the graph store cannot index) at index 2"),
        ("\udc00", "holds a lone surrogate (U+DC00, not valid Unicode) at index 0"),
    ],
)
def test_unstorable_characters_are_named_with_their_place(value: str, words: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        storable(value, "text")
    assert caught.value.field == "text" and words in caught.value.problem


def test_texts_keep_every_other_character() -> None:
    text = "tab\t new\nline \x02\x1b\x7f\x85\x9f \u2028 \ufeff 😀 \U0010ffff"
    assert checked_str(text, "text", 100) == text
    with pytest.raises(InvalidInput, match="is 101 characters long; the limit is 100"):
        checked_str("x" * 101, "text", 100)
    with pytest.raises(InvalidInput, match="must be a string, not int"):
        checked_str(5, "text", 100)


@pytest.mark.parametrize("char", ["\x00", "\x01", "\t", "\n", "\x1f", "\x7f", "\x80", "\x9f"])
def test_names_refuse_every_control_character(char: str) -> None:
    with pytest.raises(InvalidInput, match=f"U\\+{ord(char):04X}.*names must not hold control"):
        checked_name(f"a{char}b", "unit", 50)


def test_names_are_trimmed_and_empty_optional_names_are_none() -> None:
    assert checked_name("  kW\u00a0", "unit", 50) == "kW"
    assert checked_name("   ", "unit", 50) is None and checked_name(None, "unit", 50) is None
    with pytest.raises(InvalidInput, match="must not be empty"):
        checked_name(" ", "name", 50, required=True)
    with pytest.raises(InvalidInput, match="is required"):
        checked_name(None, "name", 50, required=True)
    with pytest.raises(InvalidInput, match="the limit is 3"):
        checked_name(" abcd ", "name", 3)
    assert checked_name(" abc ", "name", 3) == "abc", "the limit counts what is kept"
