"""Statements read from a form's layout: which slot of a form a statement fills.

The layout reading (layout.py) turns a table row into "Plans: plan: Pro; price: £29" and a
field line into "Leadership: CTO: Daniel Osei". Such statements share most of their words
with their neighbours, so similarity and changed-value signals take the CTO line for an
update of the CEO line, and one row for an update of the next. A statement's slot is the row
it is (its table's first column and first cell; a cell may hold "; ") or the field it fills
("CTO"): two fields, or two rows of tables with one first column, filling other slots never
relate, nor do the items of one list stated the same day. (A chat message led by a heading,
"Incident: Priya: the server is down", reads as a field whose label is its speaker: two
speakers' messages under one heading are apart.)
"""

from __future__ import annotations

import re

from graphmem.props.model import Proposition

MAX_LABEL_WORDS = 4
MAX_VALUE_WORDS = 12
MAX_FIELD_WORDS = 25
MAX_ROW_WORDS = 80
PATH = "\u203a"  # layout's separator between a heading and the one inside it


def slot(text: str) -> str | None:
    """The slot a statement fills: "plan = pro" for a table row, "cto" for a field; None for
    a statement that is no form's ("The CEO is Rosa Whitfield.")."""
    cells = _cells(text)
    if len(cells) >= 2 and len(text.split()) <= MAX_ROW_WORDS:
        # a row of a table with this first column: another row of it has another first cell
        first, value = cells[0].rsplit(": ", 1)
        return f"row of {_label(first)}: {value.strip().casefold()}"
    if len(text.split()) > MAX_FIELD_WORDS or ". " in text:
        return None  # a field is a line, not sentences
    parts = text.split(": ")
    if len(parts) < 2 or len(parts) < 3 and PATH not in text:
        return None  # a field under a heading: "Free trial: Length: 14 days"
    label, value = _label(parts[-2]), parts[-1]
    short = len(label.split()) <= MAX_LABEL_WORDS and len(value.split()) <= MAX_VALUE_WORDS
    # a label with a figure in it ("Members (January 2018)") is one attribute at a time
    plain = label and not any(c in label for c in ".!?") and not any(c.isdigit() for c in label)
    return f"field: {label}" if short and plain else None


def _cells(text: str) -> list[str]:
    """A table row's cells as layout.py writes them, "Time: 09:12; Event: ...; ...": a piece
    with no column name of its own ("; status page updated") is the cell before's."""
    cells: list[str] = []
    for piece in text.split("; "):
        if cells and ": " not in piece:
            cells[-1] += f"; {piece}"
        else:
            cells.append(piece)
    return cells if all(": " in cell for cell in cells) else []


def _label(text: str) -> str:
    """The last label of "Team directory › Leadership: CTO" style text, case-folded, without
    what qualifies it in brackets ("CEO (acting)" is the CEO's slot)."""
    label = text.rsplit(": ", 1)[-1].rsplit(PATH, 1)[-1]
    return re.sub(r"\s*\([^)]*\)", "", label).strip().casefold()


def _form(slot: str) -> str:
    """ "field", or the columns of a row's table."""
    return slot.split(": ", 1)[0]


def _lead(text: str) -> str | None:
    """What an item is led by: the text before its last ": " (None when there is none)."""
    return text.rsplit(": ", 1)[0] if ": " in text else None


def apart(new: Proposition, old: Proposition) -> bool:
    """Whether two statements fill different slots of forms, are items of one list stated the
    same day (one document's list says all its items at once), or are read from one message
    or post of one document on one date (it says its statements at once; a message it quotes,
    a reply in its thread or a chat line is another part, which may update it)."""
    if _said_at_once(new, old):
        return True
    a, b = slot(new.text), slot(old.text)
    if a is not None and b is not None and a != b and _form(a) == _form(b):
        return True  # two fields, or two rows of one table: a row and a field may relate
    lead = _lead(new.text)
    return new.ts == old.ts and lead is not None and PATH in lead and lead == _lead(old.text)


def _said_at_once(new: Proposition, old: Proposition) -> bool:
    """Both read from one part (message, post) of one document, on one date."""
    same_part = new.part is not None and new.part == old.part
    return same_part and new.doc_id is not None and new.doc_id == old.doc_id and new.ts == old.ts
