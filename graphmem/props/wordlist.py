"""Word lists written as one string: the readers' cue words."""

from __future__ import annotations


def word_set(text: str) -> frozenset[str]:
    """The words of `text`, split on whitespace."""
    return frozenset(text.split())
