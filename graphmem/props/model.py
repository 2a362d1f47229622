"""Propositions, relations between them, and their deterministic ids."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.kinds import RELATIONS
from graphmem.strings import MAX_ABOUT, MAX_SOURCE, MAX_TEXT, checked_name, checked_str

KINDS = tuple(rel.key for rel in RELATIONS)  # relation kinds that become edges
LABELS = (*KINDS, "norel")  # what a classifier may answer
EDGE_TYPES = {rel.key: rel.type for rel in RELATIONS}
KIND_OF_TYPE = {v: k for k, v in EDGE_TYPES.items()}

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SPACE = re.compile(r"\s+")
_INVISIBLE = re.compile("[\u200b\u2060\ufeff]")  # zero-width spaces (joiners stay: they spell)


@dataclass(frozen=True)
class Proposition:
    """A self-contained statement that was true (or claimed) on a date."""

    id: str
    text: str
    date: str  # YYYY-MM-DD
    ts: int  # epoch seconds of the date at 00:00 UTC
    source: str | None = None
    doc_id: str | None = None
    # the headings it sits under in its document that the text does not repeat (the page's
    # title, an e-mail's subject, the section): searched by the keyword channel, shown
    about: str | None = None
    # which message and post of its document, while ingesting offline (layout.Block.part): one
    # document's statements of one part and date are never related (forms.apart)
    part: str | None = dataclasses.field(default=None, compare=False)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Proposition:
        """Build from a graph row with id, text, date, ts and optionally source and about."""
        return cls(
            row["id"],
            row["text"],
            row["date"],
            int(row["ts"]),
            row.get("source"),
            row.get("doc_id"),
            row.get("about"),
        )

    @property
    def searched_text(self) -> str:
        """What the keyword channel indexes: the text and what it is about."""
        return searched_text(self.text, self.about)


def searched_text(text: str, about: str | None) -> str:
    """A proposition's text and what it is about, as the keyword channel indexes them (the
    graph's copy: cypher/keywords.cypher)."""
    return f"{text} {about}" if about else text


@dataclass(frozen=True)
class Relation:
    """An edge src → dst where src is the newer proposition (or the later stored, same date)."""

    id: str
    src: str
    dst: str
    kind: str  # one of KINDS
    confidence: float
    model: str
    refined: bool = False
    created_at: int = 0

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Relation:
        """Build from a graph row (id, src, dst, type, confidence, model, refined, created_at)."""
        return cls(
            row["id"],
            row["src"],
            row["dst"],
            KIND_OF_TYPE[row["type"]],
            float(row["confidence"]),
            row.get("model") or "",
            bool(row.get("refined")),
            int(row.get("created_at") or 0),
        )


def clean_text(text: str) -> str:
    """The text as stored: NFKC-normalised, whitespace collapsed, trimmed."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip()


_BLANKS = re.compile(r"\n{3,}")


def clean_lines(text: str) -> str:
    """A document's text as stored: NFKC-normalised, spaces within each line collapsed and
    trimmed, runs of blank lines made one; its lines (the layout: lists, tables, quoted
    replies, paragraphs) kept."""
    lines = unicodedata.normalize("NFKC", text).replace("\r\n", "\n").split("\n")
    return _BLANKS.sub("\n\n", "\n".join(" ".join(line.split()) for line in lines)).strip()


def normalised(text: str) -> str:
    """The identity of a statement's wording: case, spacing and a final full stop ignored."""
    return _wording(clean_text(text))


def _wording(clean: str) -> str:
    """normalised() of a text already through clean_text."""
    return clean.casefold().rstrip(".").rstrip()


def _sha1(*parts: str) -> str:
    # the unit separator cannot occur in user text after clean_text, so parts cannot blur
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()


def proposition_id(text: str, date: str) -> str:
    """'prop_' + sha1 of the normalised text and the date: the same statement on the same day."""
    return _id_of_clean(clean_text(text), date)


def _id_of_clean(clean: str, date: str) -> str:
    """proposition_id of a text already through clean_text (cleaning it again changes nothing)."""
    return "prop_" + _sha1(_wording(clean), date)


def document_id(text: str, date: str, source: str | None) -> str:
    """'doc_' + sha1 of the text, date and source."""
    return "doc_" + _sha1(clean_text(text), date, source or "")


def relation_id(src: str, dst: str) -> str:
    """'rel_' + sha1(src, dst): one edge per ordered pair, whatever its kind."""
    return "rel_" + _sha1(src, dst)


def checked_date(value: Any, field: str) -> tuple[str, int]:
    """A 'YYYY-MM-DD' date (or datetime.date) as (date string, epoch seconds); else InvalidInput."""
    if isinstance(value, dt.datetime):
        value = value.date()
    if isinstance(value, dt.date):
        value = value.isoformat()
    if value is None:
        raise InvalidInput(field, "is missing: a date in the form YYYY-MM-DD is needed")
    if not isinstance(value, str):
        raise InvalidInput(field, f"{value!r} is not a date in the form YYYY-MM-DD")
    day = _day(value.strip())
    if isinstance(day, str):
        raise InvalidInput(field, day)
    return day


@lru_cache(maxsize=4096)  # bulk loads repeat the same few thousand dates
def _day(value: str) -> tuple[str, int] | str:
    """(date, epoch seconds) of a stripped 'YYYY-MM-DD', or what is wrong with it."""
    if not _DATE.match(value):
        return f"{value!r} is not a date in the form YYYY-MM-DD"
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        return f"{value!r} is not a valid calendar date"
    return value, int(dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp())


def checked_text(value: Any, field: str, max_len: int = MAX_TEXT) -> str:
    """A non-empty statement text, cleaned; else InvalidInput."""
    text = clean_text(checked_str(value, field, max_len))
    if not text:
        raise InvalidInput(field, "is empty")
    return text


def checked_source(value: Any, field: str) -> str | None:
    """An optional source name: trimmed, no control characters."""
    return checked_name(value, field, MAX_SOURCE)


def checked_about(value: Any, field: str) -> str | None:
    """Optional headings a statement sits under: trimmed, spaces squeezed (it is searched and
    shown with the text), no control characters."""
    if isinstance(value, str):  # normalised first: NFKC may lengthen it past the limit
        value = _SPACE.sub(" ", _INVISIBLE.sub("", unicodedata.normalize("NFKC", value)))
    return checked_name(value, field, MAX_ABOUT) or None


def make_proposition(
    text: Any,
    date: Any,
    source: Any = None,
    doc_id: str | None = None,
    field: str = "proposition",
    about: Any = None,
) -> Proposition:
    """A validated Proposition with its deterministic id (from text and date: `about` and
    `source` are not part of it); errors name `field`.text / .date / .source / .about."""
    clean = checked_text(text, f"{field}.text")
    day, ts = checked_date(date, f"{field}.date")
    src = checked_source(source, f"{field}.source")
    heads = checked_about(about, f"{field}.about")
    return Proposition(_id_of_clean(clean, day), clean, day, ts, src, doc_id, heads)
