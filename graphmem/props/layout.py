"""A document's layout read offline: Markdown, lists, tables and e-mail turned into blocks.

An LLM reads layout; the sentence splitter does not, and before this module a bulleted list
ran on as one statement, a table row lost its column names and a reply's quoted message was
stored again under the reply's date. Lines are read for what they are:

- an earlier message inside a reply (quoted "> ..." lines, the "On <date>, Anna wrote:" line,
  everything after "-----Original Message-----") is dropped: its facts were stated on its own
  date, and stored with the reply's they would pass for new;
- e-mail headers, greetings ("Hi all,"), sign-offs ("Thanks, Anna") with the lines under them,
  a signature after "-- " and a confidentiality notice are not statements: dropped;
- a heading (Markdown "#", a line underlined with === or ---, a line in bold) and an e-mail's
  subject are no statements either: they are the context of what follows;
- each list item is a block of its own, led by its context: the line that introduces the list
  ("The Pro plan includes:") or else the heading above it;
- a table row is read with its header: "Plan: Pro; Price: £29", led by its context.

Everything else is prose: a paragraph, as before (blank lines end one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphmem.props.wordlist import word_set


@dataclass(frozen=True)
class Block:
    """A paragraph, list item or table row; `context` is the heading or lead-in it sits under.
    `led`: the text reads only with its context (a list item, a table row)."""

    text: str
    context: str = ""
    led: bool = False


_QUOTED = re.compile(r"^\s*>")
_WROTE = re.compile(r"\bwrote:\s*$", re.IGNORECASE)
_EARLIER = re.compile(r"^\s*-{2,}\s*original message\s*-{2,}\s*$", re.IGNORECASE)
_FORWARDED = re.compile(r"^\s*-{2,}\s*forwarded message\s*-{2,}\s*$", re.IGNORECASE)
_HEADER = re.compile(r"^\s*(from|to|cc|bcc|sent|date|reply-to)\s*:\s", re.IGNORECASE)
_SUBJECT = re.compile(r"^\s*subject\s*:\s*(?:(?:re|fwd?|aw|sv)\s*:\s*)*(.*)$", re.IGNORECASE)
_SIGNATURE = re.compile(r"^--\s*$")
_HEADING = re.compile(r"^\s*#{1,6}\s+(.+?)\s*#*\s*$")
_BOLD_LINE = re.compile(r"^\s*(\*\*|__)(.+?)\1\s*:?\s*$")
_UNDERLINE = re.compile(r"^\s*(=+|-+)\s*$")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_ITEM = re.compile(r"^\s*(?:[-*+\u2022\u25aa\u25e6\u2013]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s+(.+)$")
# "Price: £29", "Action: JS to send the quote": a field line is a statement of its own
_FIELD = re.compile(r"^\s*[A-Z][\w'()/&-]*( [\w'()/&-]+){0,3}:\s+\S")
_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_ROW_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
# "Hi all,", "Dear Committee members,", "Morning!": a greeting ends with , or ! or is short
_GREETING = re.compile(
    r"^\s*(hi|hello|hey|dear|morning|good (morning|afternoon|evening))\b"
    r"([^.!?,]{0,40}[,!]|(\s+\S+){0,2}\s*)\s*$",
    re.IGNORECASE,
)
_SIGN_OFF = word_set(
    """
    thanks thank cheers best regards kind warm sincerely yours cordially ta speak talk
    """
)
_PHONE_SENT = re.compile(r"^\s*sent from my\b", re.IGNORECASE)
_NOTICE = re.compile(r"\bconfidential\b.*\b(intended recipient|received this)", re.IGNORECASE)


def lead(context: str, text: str) -> str:
    """`text` read with its context: "Pricing: Pro: £29", "The plans cost: Pro: £29"."""
    if not context:
        return text
    return f"{context} {text}" if context.endswith(":") else f"{context}: {text}"


def blocks(text: str) -> list[Block]:
    """The blocks of a document, in order: prose paragraphs, list items, table rows."""
    reader = _Reader()
    for line in _own_lines(text.splitlines()):
        reader.read(line)
    reader.end_paragraph()
    return [b for b in reader.out if not _NOTICE.search(b.text)]


def _own_lines(lines: list[str]) -> list[str]:
    """The lines the document's author wrote: an earlier message it quotes, its headers,
    greeting, sign-off and signature left out."""
    lines = _before_earlier(lines)
    out: list[str] = []
    signed = False
    for i, line in enumerate(lines):
        if _FORWARDED.match(line):
            signed = False  # a forwarded message follows the sender's signature: its own
            continue
        if _SIGNATURE.match(line) or _PHONE_SENT.match(line):
            signed = True
        if signed or _QUOTED.match(line) or _HEADER.match(line) or _GREETING.match(line):
            continue
        if _WROTE.search(line) and _attribution(lines, i):
            continue
        if _signs_off(line):
            signed = _only_short_lines_after(lines, i)
            continue
        out.append(line)
    return out


def _before_earlier(lines: list[str]) -> list[str]:
    for i, line in enumerate(lines):
        if _EARLIER.match(line):
            return lines[:i]
    return lines


def _attribution(lines: list[str], i: int) -> bool:
    """Whether line i ends a reply's "On <date>, <name> wrote:" (which may wrap a line)."""
    return lines[i].lstrip().startswith("On ") or (
        i > 0 and lines[i - 1].lstrip().startswith("On ")
    )


def _signs_off(line: str) -> bool:
    """A short closing line: "Thanks,", "Best regards, Anna", "Many thanks!"."""
    words = re.findall(r"[a-z]+", line.lower())
    if not words or len(words) > 5 or (len(words) > 2 and line.rstrip()[-1:] not in ",!"):
        return False
    return words[0] in _SIGN_OFF or words[:2] in (["many", "thanks"], ["all", "the"])


def _only_short_lines_after(lines: list[str], i: int) -> bool:
    """Whether only a signature (short lines: a name, a title, a number) and notices follow
    line i, up to the end or to a quoted message: then line i closes the message."""
    paragraph: list[str] = []
    for j, line in enumerate([*lines[i + 1 :], ""], start=i + 1):
        if _QUOTED.match(line) or (_WROTE.search(line) and _attribution(lines, j)):
            return True
        if line.strip():
            paragraph.append(line)
            continue
        text = " ".join(paragraph)
        if not _NOTICE.search(text) and any(len(p.split()) > 8 for p in paragraph):
            return False
        paragraph = []
    return True


class _Reader:
    """Lines in, blocks out: keeps the heading, the list's lead-in and the table's header."""

    def __init__(self) -> None:
        self.out: list[Block] = []
        self.paragraph: list[str] = []
        self.item: list[str] = []  # the list item being read, with its continuation lines
        self.field = False  # the item is a field line ("Price: £29"), never a heading
        self.heading = ""
        self.section = ""  # the heading above a numbered agenda, while an item heads lines
        self.lead_in = ""
        self.header: list[str] = []

    def read(self, line: str) -> None:
        heading = _heading(line)
        item = _ITEM.match(line)
        if heading is not None:
            self.end_paragraph()
            self.heading = self.section = heading
            self.header = []
        elif _UNDERLINE.match(line) and len(self.paragraph) == 1 and not self.item:
            self.heading = self.section = self.paragraph[0].strip()
            self.lead_in, self.paragraph = "", []
        elif not line.strip() or _RULE.match(line):
            self.end_paragraph()
            self.header = []
        elif _ROW.match(line) or _ROW_RULE.match(line):
            self._row(line)
        elif item is not None:
            self._item(item.group(1))
        elif _FIELD.match(line) and not self.paragraph and (self.field or not self.item):
            self._item(line, field=True)
        elif self.item:
            self._after_item(line)
        else:
            self.paragraph.append(line)

    def end_paragraph(self) -> None:
        self._end_item()
        if self.paragraph:
            self.out.append(Block(_flat(self.paragraph), self.heading))
            self.paragraph = []
        self.lead_in = ""

    def _item(self, text: str, field: bool = False) -> None:
        self._end_item()
        if self.paragraph and self.paragraph[-1].rstrip().endswith(":"):
            lead = self.paragraph.pop()
            self.end_paragraph()
            self.lead_in = _flat([lead])
        elif self.paragraph:
            self.end_paragraph()
        self.heading = self.section  # a sibling item is not under the one that headed lines
        self.item, self.field = [text], field

    def _after_item(self, line: str) -> None:
        """An indented line continues the item; an unindented one after a short item with no
        full stop ("3. Finance") shows the item was a heading."""
        if line[:1].isspace() or self.field or not _heading_like(self.item):
            self.item.append(line)
            return
        self.heading, self.lead_in, self.item = _flat(self.item), "", []
        self.paragraph.append(line)

    def _end_item(self) -> None:
        if self.item:
            self.out.append(Block(_flat(self.item), self.lead_in or self.heading, led=True))
            self.item = []

    def _row(self, line: str) -> None:
        self.end_paragraph()
        if _ROW_RULE.match(line):
            return
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not self.header:
            self.header = cells
            return
        pairs = zip(self.header, cells, strict=False)
        text = "; ".join(f"{h}: {c}" if h else c for h, c in pairs if c)
        self.out.append(Block(text, self.heading, led=True))


def _flat(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


def _heading_like(lines: list[str]) -> bool:
    text = _flat(lines)
    return len(text.split()) <= 6 and text[-1:] not in ".!?;:,"


def _heading(line: str) -> str | None:
    for pattern, group in ((_HEADING, 1), (_BOLD_LINE, 2)):
        match = pattern.match(line)
        if match is not None:
            return " ".join(match.group(group).split())
    subject = _SUBJECT.match(line)
    return " ".join(subject.group(1).split()) if subject is not None else None
