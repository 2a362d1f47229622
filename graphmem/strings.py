"""What strings graphmem accepts: the checks every entry point and the store share.

Every user string is checked here before anything is derived from it (ids, hashes), so a bad
one is refused as InvalidInput naming its field, never met later as an encoding error.
"""

from __future__ import annotations

import re
from typing import Any, Literal, overload

from graphmem.errors import InvalidInput

# NUL ends a string inside FalkorDB (C strings). U+0001 is FalkorDB's index separator: a value
# holding it is indexed as several entries, so a unique check cannot find the node it has just
# written and the server crashes (and a non-unique index silently misses the node). Lone
# surrogates are not Unicode and cannot be encoded as UTF-8.
_UNSTORABLE = re.compile("[\x00\x01\ud800-\udfff]")
# C0 controls, DEL, C1 controls and the Unicode line and paragraph separators: no name a
# person types holds one, and a name is shown on one line of rendered context
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")

MAX_SOURCE = 500
MAX_ABOUT = 500  # characters of the headings a proposition sits under
MAX_LABEL = 200
MAX_QUERY = 10_000  # a question or search text: embedded, never this long in earnest
MAX_TEXT = 10_000  # one proposition or event: a statement, not a document


def describe(char: str) -> str:
    """A character as people look it up: U+0001, with a name for the notorious ones."""
    code = f"U+{ord(char):04X}"
    if char == "\x00":
        return f"NUL ({code})"
    if "\ud800" <= char <= "\udfff":
        return f"a lone surrogate ({code}, not valid Unicode)"
    if char == "\x01":
        return f"{code} (a control character the graph store cannot index)"
    if char in "\u2028\u2029":
        return f"a {'line' if char == chr(0x2028) else 'paragraph'} separator ({code})"
    return f"the control character {code}"


def storable(value: str, field: str) -> str:
    """`value` unchanged if the store can hold it; else InvalidInput naming the character."""
    bad = _UNSTORABLE.search(value)
    if bad is not None:
        where = f"at index {bad.start()}"
        raise InvalidInput(field, f"holds {describe(bad.group())} {where}; it cannot be stored")
    return value


def checked_str(value: Any, field: str, max_len: int) -> str:
    """A string the store can hold, at most `max_len` characters; nothing else is changed."""
    return storable(_within(_string(value, field), field, max_len), field)


@overload
def checked_name(value: Any, field: str, max_len: int, *, required: Literal[True]) -> str: ...
@overload
def checked_name(value: Any, field: str, max_len: int, *, required: bool = False) -> str | None: ...
def checked_name(value: Any, field: str, max_len: int, *, required: bool = False) -> str | None:
    """A name a person types (series name, unit, source, label): trimmed, no control characters.

    None (or an empty name, when not required) is None.
    """
    if value is None:
        if required:
            raise InvalidInput(field, "is required")
        return None
    bad = _CONTROL.search(_string(value, field))
    if bad is not None:
        where = f"at index {bad.start()}"
        raise InvalidInput(
            field,
            f"holds {describe(bad.group())} {where}; names must not hold control characters or "
            "line breaks",
        )
    value = value.strip()
    if required and not value:
        raise InvalidInput(field, "must not be empty")
    return _within(value, field, max_len) or None


def checked_id(value: Any, field: str = "id") -> str:
    """A non-empty id string the store can hold (ids are looked up, never trimmed)."""
    node_id = checked_str(value, field, MAX_TEXT)
    if not node_id.strip():
        raise InvalidInput(field, "is empty")
    return node_id


def _string(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(field, f"must be a string, not {type(value).__name__}")
    return value


def _within(value: str, field: str, max_len: int) -> str:
    if len(value) > max_len:
        raise InvalidInput(field, f"is {len(value)} characters long; the limit is {max_len}")
    return value
