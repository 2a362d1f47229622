"""A rule-based sentence splitter: the offline stand-in for LLM proposition extraction.

A boundary is sentence-final punctuation (. ! ?), optional closing quotes or brackets,
whitespace, then something that can start a sentence (a capital, a digit, an opening quote or
bracket). It is not a boundary when the full stop ends a known abbreviation (Dr., Inc., e.g.),
a single-letter initial (J. R. Smith) or a dotted acronym (U.S.), unless the next word is a
common sentence opener ("... Acme Inc. The firm ..."). Decimals (3.5) and dotted versions
never have whitespace after the dot, so they are never split. Blank lines always split.

`statements` is the offline stand-in for an LLM's resolving of references: a sentence that
cannot stand alone (it opens with a pronoun, "It has 340 members.", or names nothing, "The
correct figure is 12,400.") stays with the sentence before it in its paragraph, so the
statement keeps the subject its figure belongs to.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from graphmem.props.layout import Block, blocks, lead
from graphmem.props.wordlist import word_set
from graphmem.strings import MAX_ABOUT

_BOUNDARY = re.compile(r"([.!?]+)([\"'\u201d\u2019)\]]*)\s+(?=[\"'\u201c\u2018(\[]?[A-Z0-9])")
_PARAGRAPH = re.compile(r"\n\s*\n")
_LAST_WORD = re.compile(r"(\S+)$")
_HAS_WORD = re.compile(r"\w")
_SPACES = re.compile("[\\s\x00-\x1f\x7f-\x9f\ud800-\udfff]+")  # and control characters


ABBREVIATIONS = word_set(
    """
    mr mrs ms dr prof sr jr st mt ft rev hon gen col capt lt sgt gov pres sen rep inc ltd co
    corp plc llc bros dept univ assn est approx ca cf vs etc al e.g i.e no nos vol fig figs pp p
    ed eds op cit ibid jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat
    sun ave blvd rd
    """
)
# abbreviations that often end a sentence: split after them when a typical opener follows
_SENTENCE_FINAL = frozenset({"inc", "ltd", "co", "corp", "plc", "llc", "bros", "etc", "al"})
_OPENERS = word_set(
    """
    the a an this that these those it its he she they we i in on at after before but however
    meanwhile there his her their our one some
    """
)


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, in order, whitespace collapsed; empty pieces dropped."""
    return [sentence for sentences in _paragraphs(text) for sentence in sentences]


def _paragraphs(text: str) -> list[list[str]]:
    return [_split_paragraph(" ".join(p.split())) for p in _PARAGRAPH.split(text)]


# a sentence opening with one of these refers back to the one before it
_REFERS_BACK = word_set("it its they their them he she his her this these those such there also")
MAX_JOINED = 600  # characters: a statement joined from several sentences stays short


@dataclass(frozen=True)
class Statement:
    """A statement of a document; `date`: a dated heading's it sits under (layout.Block)."""

    text: str
    date: str | None = None
    about: str = ""  # what the document is about where the text does not say (Block.about)
    part: str | None = None  # which message and post of the document (Block.part)


def statements(text: str) -> list[str]:
    """The statements of `text` (dated_statements) without their dates."""
    return [s.text for s in dated_statements(text)]


def dated_statements(text: str) -> list[Statement]:
    """The sentences of `text`'s blocks (layout.blocks), each that cannot stand alone joined
    to the one before it in its block (up to MAX_JOINED characters); a list item's or table
    row's first sentence, or a paragraph's that cannot stand alone or answers a heading's
    question, led by its context."""
    out: list[Statement] = []
    for block in blocks(text):
        start = len(out)
        for sentence in _split_paragraph(block.text):
            joined = f"{out[-1].text} {sentence}" if len(out) > start else ""
            if joined and len(joined) <= MAX_JOINED and _depends(sentence):
                out[-1] = Statement(joined, block.date, _about(block, joined), block.part)
            elif len(out) == start and block.context and _led(block, sentence):
                led = lead(block.context, sentence)
                out.append(Statement(led, block.date, _about(block, led), block.part))
            else:
                out.append(Statement(sentence, block.date, _about(block, sentence), block.part))
    return out


def _about(block: Block, text: str) -> str:
    """The headings above a statement that it does not say, outermost first, whole headings
    within MAX_ABOUT characters (a proposition's `about`)."""
    about = ""
    # as stored (NFKC, which may lengthen it) and with no control characters
    headings = (_SPACES.sub(" ", unicodedata.normalize("NFKC", h)).strip() for h in block.about)
    for heading in headings:
        joined = f"{about} \u203a {heading}" if about else heading
        if heading in text or len(joined) > MAX_ABOUT:
            continue
        about = joined
    return about


def _led(block: Block, sentence: str) -> bool:
    return block.led or block.context.endswith("?") or _depends(sentence)


def _depends(sentence: str) -> bool:
    """Whether a sentence needs the one before it: it opens with a pronoun, or it names
    nothing (no capitalised word after its first)."""
    words = sentence.split()
    first = words[0].strip("\"'(\u201c\u2018[").lower()
    named = any(w.strip("\"'(\u201c\u2018[")[:1].isupper() for w in words[1:])
    return first in _REFERS_BACK or not named


def _split_paragraph(text: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end(2)
        if _is_boundary(text[start : match.start(1)], match.group(1), text[match.end() :]):
            pieces.append(text[start:end].strip())
            start = match.end()
    pieces.append(text[start:].strip())
    return [p for p in pieces if _HAS_WORD.search(p)]


def _is_boundary(before: str, punct: str, after: str) -> bool:
    if punct != ".":
        return True  # ! and ? (and ?!, ...) always end a sentence before a capital
    word_match = _LAST_WORD.search(before)
    if word_match is None:
        return True
    word = word_match.group(1).lstrip("\"'(\u201c\u2018[").lower()
    next_word = after.split(" ", 1)[0].strip("\"'(\u201c\u2018[").lower()
    opener_follows = next_word in _OPENERS
    if word in _SENTENCE_FINAL:
        return opener_follows
    if word in ABBREVIATIONS:
        return False
    if len(word) == 1 and word.isalpha():
        return False  # an initial: "J. Smith"
    if "." in word and all(len(part) <= 2 for part in word.split(".")):
        return opener_follows  # a dotted acronym ("U.S.") rarely ends a sentence
    return True
