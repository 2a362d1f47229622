"""A document's layout read offline: Markdown, lists, tables, minutes, chat and e-mail.

An LLM reads layout; the sentence splitter does not. Before this module a bulleted list ran
on as one statement, a table row lost its column names, and a reply's quoted message was
stored again under the reply's date, where it passed for new. Lines are read for what they
are:

- an earlier message inside a reply (quoted "> ..." lines, the "On <date>, Anna wrote:"
  line, everything after "-----Original Message-----" or after a header block that starts
  below the reply) is dropped: its facts were stated on its own date;
- e-mail headers, greetings ("Hi all,", "Ben,"), sign-offs ("Thanks, Anna"), the short
  lines that end a message (a signature), confidentiality notices, a document's "Updated:"
  line and a meeting's attendance ("Present:", "Apologies:") are not statements: dropped;
- a heading (Markdown "#", a line underlined with === or ---, a line in bold or in capitals,
  a short line standing alone, a numbered agenda item with lines under it, an e-mail's
  subject, a document's title line) is no statement either: with the heading above it, it is
  the context of what follows, and a heading that is mostly a date ("## [2.4.0] -
  2023-08-02") dates it;
- each list item, field line ("Price: £29", "Action: JS to ...") and chat message is a block
  of its own, led by its context: the line that introduces the list ("The Pro plan
  includes:") or the headings above it; a table row is read with its column names.

Everything else is prose: a paragraph, as before (blank lines end one).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from graphmem.props.wordlist import word_set


@dataclass(frozen=True)
class Block:
    """A paragraph, list item or table row; `context` is the headings or lead-in it sits under.
    `led`: the text reads only with its context (a list item, a table row). `date`: the
    YYYY-MM-DD of a dated heading it sits under, if any."""

    text: str
    context: str = ""
    led: bool = False
    date: str | None = None


_QUOTED = re.compile(r"^\s*>")
_WROTE = re.compile(r"\bwrote:\s*$", re.IGNORECASE)
_EARLIER = re.compile(r"^\s*-{2,}\s*original message\s*-{2,}\s*$", re.IGNORECASE)
_FORWARDED = re.compile(r"^\s*-{2,}\s*forwarded message\s*-{2,}\s*$", re.IGNORECASE)
_HEADER = re.compile(r"^\s*(from|to|cc|bcc|sent|date|reply-to)\s*:\s", re.IGNORECASE)
_SUBJECT = re.compile(r"^\s*subject\s*:\s*(?:(?:re|fwd?|fw|aw|sv)\s*:\s*)*(.*)$", re.IGNORECASE)
_SIGNATURE = re.compile(r"^--\s*$")
_SENT_FROM = re.compile(r"^\s*sent from (my|outlook|mail|yahoo)\b", re.IGNORECASE)
_NOTICE = re.compile(
    r"\bconfidential\b.*\b(intended|addressee|recipient|received this)"
    r"|\bconsider the environment before printing",
    re.IGNORECASE,
)
# "Hi all,", "Dear Committee members,", "Morning!", "Ben,": a greeting ends with , or ! or
# is short
_GREETING = re.compile(
    r"^\s*((hi|hello|hey|dear|morning|good (morning|afternoon|evening))\b"
    r"([^.!?,]{0,40}[,!]|(\s+\S+){0,2}\s*)|[A-Z][\w'-]*( [A-Z][\w'-]*){0,2},)\s*$",
    re.IGNORECASE,
)
_SIGN_OFF = word_set("thanks thank cheers best regards kind warm sincerely yours cordially ta")

_HEADING = re.compile(r"^\s*(#{1,6})\s+(.+?)\s*#*\s*$")
_BOLD_LINE = re.compile(r"^\s*(\*\*|__)([^*_]+?)\1\s*:?\s*$")
_UNDERLINE = re.compile(r"^\s*(=+|-+)\s*$")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_ITEM = re.compile(
    r"^\s*(?:[-*+\u2022\u25aa\u25e6\u2013]|\(?\d{1,3}[.)]|\(?[a-z][.)]|(\d{1,2}(?:\.\d{1,2})+)\.?"
    r"(?=\s+[A-Z]))\s+(.+)$"
)
# "Price: £29", "Action: JS to send the quote": a field line is a statement of its own
_FIELD = re.compile(r"^\s*[A-Z][\w'()/&-]*( [\w'()/&-]+){0,3}:\s+\S")
_METADATA = re.compile(
    r"^\W*((last )?(updated|edited|modified|reviewed)\b\s*(on\b|:|\d)|last (updated|edited|"
    r"modified|reviewed) by\b|(edited|modified) by\b)"
    r"|^\s*(present|attendees|attendance|in attendance|apologies|apologies for absence|absent)"
    r"\s*[:\u2014\u2013-]",
    re.IGNORECASE,
)
# "[09:14] Priya: ..." or "09:14 Priya Shah: ...": a chat message
_CHAT = re.compile(
    r"^\s*\[?\d{1,2}:\d{2}(?::\d{2})?\s*([AaPp][Mm])?\]?\s+"
    r"([A-Z][\w'-]*(?: [A-Z][\w'-]*){0,2}:\s.*)$"
)
# "Priya Shah  9:14 AM": who writes the chat message under it
# "Priya Shah  9:14 AM", "Leon Marsh (Support) - 6 Mar 2023, 10:17": who writes what follows
_SPEAKER = re.compile(
    r"^\s*([A-Z][^.!?:]{0,80}?)\s*(\s[-\u2013\u2014,]\s.*)?\s\d{1,2}:\d{2}\s*([AaPp][Mm])?\s*$"
)
_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_ROW_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_EMPHASIS = re.compile(r"\*\*|__|`")

BOLD, CAPITALS, AGENDA, SPEAKER = 7, 3, 8, 9  # heading levels below Markdown's 1-6
MAX_TITLE_WORDS = 20
MAX_HEADING = 300  # characters of a line read as a heading
MAX_NOTICE = 1500  # characters of a paragraph read as a notice


def _notice(text: str) -> bool:
    """A confidentiality or print notice: a short paragraph (a long one is prose)."""
    return len(text) <= MAX_NOTICE and _NOTICE.search(text) is not None


def lead(context: str, text: str) -> str:
    """`text` read with its context: "Pricing: Pro: £29", "The plans cost: Pro: £29"."""
    if not context:
        return text
    return f"{context} {text}" if context.endswith(":") else f"{context}: {text}"


def blocks(text: str) -> list[Block]:
    """The blocks of a document, in order: prose paragraphs, list items, table rows."""
    lines = text.splitlines()
    mail = any(_HEADER.match(x) or _SUBJECT.match(x) or _WROTE.search(x) for x in lines)
    reader = _Reader()
    for line in _own_lines(lines, mail):
        reader.read(line)
    reader.end_paragraph()
    return [b for b in reader.out if not _notice(b.text)]


def _own_lines(lines: list[str], mail: bool) -> list[str]:
    """The lines the document's author wrote: an earlier message it quotes, its headers,
    greeting, sign-off, signature and metadata left out."""
    lines = _before_earlier(lines)
    out: list[str] = []
    signed = False
    for i, line in enumerate(lines):
        if _FORWARDED.match(line):
            signed = False  # a forwarded message follows the sender's signature: its own
            continue
        signed = signed or bool(_SIGNATURE.match(line) or _SENT_FROM.match(line))
        if signed or _attribution(lines, i):
            continue
        if _signs_off(line):
            signed = _only_short_lines_after(lines, i)
        elif not _dropped(line):
            out.append(line)
    return _without_signature(out) if mail else out


def _dropped(line: str) -> bool:
    return any(p.match(line) for p in (_QUOTED, _HEADER, _GREETING, _METADATA))


def _before_earlier(lines: list[str]) -> list[str]:
    """The lines above an earlier message: an "Original Message" line, or a header block
    (From: then Sent: or Date:) that starts below what the author wrote."""
    wrote = False
    for i, line in enumerate(lines):
        if _EARLIER.match(line):
            return lines[:i]
        header = _HEADER.match(line) is not None or _SUBJECT.match(line) is not None
        if header and wrote and _header_block(lines, i):
            return lines[:i]
        # after a forwarded-message line, the header block below is that message's own
        forwarded = _FORWARDED.match(line) is not None
        wrote = not forwarded and (wrote or (bool(line.strip()) and not header))
    return lines


def _header_block(lines: list[str], i: int) -> bool:
    """Whether line i opens a header block: From: with Sent: or Date: under it."""
    below = lines[i + 1 : i + 4]
    return lines[i].lstrip().lower().startswith("from") and any(
        re.match(r"^\s*(sent|date)\s*:", x, re.IGNORECASE) for x in below
    )


def _attribution(lines: list[str], i: int) -> bool:
    """Whether line i is a reply's "On <date>, <name> wrote:" or a part of it (it may wrap)."""
    if i >= len(lines):
        return False
    here, after = lines[i], lines[i + 1] if i + 1 < len(lines) else ""
    before = lines[i - 1] if i > 0 else ""
    if _WROTE.search(here):
        return here.lstrip().startswith("On ") or before.lstrip().startswith("On ")
    return here.lstrip().startswith("On ") and bool(_WROTE.search(after))


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
        if _QUOTED.match(line) or _attribution(lines, j):
            return True
        if line.strip():
            paragraph.append(line)
            continue
        if not _notice(" ".join(paragraph)) and any(len(p.split()) > 8 for p in paragraph):
            return False
        paragraph = []
    return True


def _without_signature(lines: list[str]) -> list[str]:
    """A message's lines without the paragraphs of short lines that end it (a name, a title,
    a phone number); a paragraph with a list item or a sentence ends the search."""
    keep = len(lines)
    for start, end in reversed(_runs(lines)):
        if not all(_signature_line(x) for x in lines[start:end]):
            break
        keep = start
    return lines[:keep]


def _runs(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) of each run of non-blank lines."""
    runs: list[tuple[int, int]] = []
    start = None
    for i, line in enumerate([*lines, ""]):
        if line.strip() and start is None:
            start = i
        elif not line.strip() and start is not None:
            runs.append((start, i))
            start = None
    return runs


def _signature_line(line: str) -> bool:
    if _notice(line):
        return True
    short = len(line.split()) <= 10 and line.rstrip()[-1:] not in ".!?:"
    return short and _ITEM.match(line) is None and _ROW.match(line) is None


class _Reader:
    """Lines in, blocks out: keeps the headings, the list's lead-in and the table's header."""

    def __init__(self) -> None:
        self.out: list[Block] = []
        self.paragraph: list[str] = []
        self.item: list[str] = []  # the list item being read, with its continuation lines
        self.field = False  # the item is a field line ("Price: £29"), never a heading
        self.headings: list[tuple[int, str]] = []  # (level, text), outermost first
        self.lead_in = ""
        self.header: list[str] = []
        self.seen = False  # anything read yet (a first line standing alone is a title)

    def read(self, line: str) -> None:
        heading = _heading(line)
        if heading is not None:
            self.end_paragraph()
            self._head(*heading)
        elif _UNDERLINE.match(line) and len(self.paragraph) == 1 and not self.item:
            self._head(1 if "=" in line else 2, self.paragraph.pop().strip())
        elif not line.strip() or _RULE.match(line):
            self.end_paragraph()
            self.header = []
        elif _ROW.match(line) or _ROW_RULE.match(line):
            self._row(line)
        else:
            self._text(line)

    def _text(self, line: str) -> None:
        item = _ITEM.match(line) or _CHAT.match(line)
        if item is not None and _METADATA.match(item.group(2)):
            self._end_item()  # "1. Apologies — none."
        elif item is not None:
            self._item(item.group(2), sub=item.re is _ITEM and item.group(1) is not None)
        elif _FIELD.match(line) and not self.paragraph:
            self._item(line, field=True)
        elif self.item:
            self._after_item(line)
        else:
            self.paragraph.append(line)

    def context(self, led: bool) -> str:
        """The two innermost headings; a title or subject only for prose under no other
        (a title shared by every row and item would make them all alike)."""
        inner = [text for level, text in self.headings if level > 0 and not _dateline(text)]
        if not inner and not led:
            inner = [text for _, text in self.headings]
        return " \u203a ".join(inner[-2:])

    @property
    def date(self) -> str | None:
        dated = [d for _, text in self.headings if (d := _heading_date(text)) is not None]
        return dated[-1] if dated else None

    def _head(self, level: int, text: str) -> None:
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, text))
        self.lead_in, self.header, self.seen = "", [], True

    def _block(self, text: str, led: bool) -> None:
        context = self.lead_in if led and self.lead_in else self.context(led)
        self.out.append(Block(_EMPHASIS.sub("", text), context, led, self.date))
        self.seen = True

    def end_paragraph(self) -> None:
        self._end_item()
        if self.paragraph:
            text = _flat(self.paragraph)
            if _stands_as_heading(self.paragraph, first=not self.seen):
                self._head(0 if not self.seen else BOLD, text)
            else:
                self._block(text, led=False)
            self.paragraph = []
        self.lead_in = ""

    def _item(self, text: str, field: bool = False, sub: bool = False) -> None:
        # "2. Matters arising" above "2.1 ..." or above "Decision: ..." heads them
        if (sub or field) and self.item and not self.field and _heading_like(self.item):
            self._head(AGENDA, _flat(self.item))
            self.item = []
        self._end_item()
        if self.paragraph and self.paragraph[-1].rstrip().endswith(":"):
            lead_in = self.paragraph.pop()
            self.end_paragraph()
            self.lead_in = _flat([lead_in])
        elif self.paragraph:
            self.end_paragraph()
        while not (sub or field) and self.headings and self.headings[-1][0] >= AGENDA:
            self.headings.pop()  # a sibling item is not under the one that headed lines
        self.item, self.field = [text], field

    def _after_item(self, line: str) -> None:
        """An indented line continues the item; an unindented one after a short item with no
        full stop ("3. Finance") shows the item was a heading."""
        if line[:1].isspace() or self.field or not _heading_like(self.item):
            self.item.append(line)
            return
        text, self.item = _flat(self.item), []
        self._head(AGENDA, text)
        self.paragraph.append(line)

    def _end_item(self) -> None:
        if self.item:
            self._block(_flat(self.item), led=True)
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
        self._block("; ".join(f"{h}: {c}" if h else c for h, c in pairs if c), led=True)


def _flat(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


def _heading_like(lines: list[str]) -> bool:
    text = _flat(lines)
    return len(text.split()) <= 6 and text[-1:] not in ".!?;:,"


def _stands_as_heading(lines: list[str], first: bool) -> bool:
    """A paragraph that is a heading: a dateline, a document's title line (its first, no full
    stop), a short line standing alone ("Summary")."""
    text = _flat(lines)
    words = text.split()
    if len(text) > MAX_HEADING:
        return False
    if _dateline(text):
        return True
    if text[-1:] in ".!?;:," or any(c.isdigit() for c in text) and not first:
        return False
    if first:
        return len(lines) <= 2 and len(words) <= MAX_TITLE_WORDS
    return len(lines) == 1 and (len(words) <= 3 or text.isupper())


_WEEKDAY = re.compile(r"\b(mon|tues|wednes|thurs|fri|satur|sun)day\b", re.IGNORECASE)


def _dateline(text: str) -> bool:
    """A date standing alone: "17 May 2023", "Tuesday, 2 May 2023"."""
    rest = _WEEKDAY.sub("", text)
    for pattern in (_ISO_DATE, _DAY_MONTH, _MONTH_DAY):
        rest = pattern.sub("", rest)
    return rest != text and not re.search(r"\w", rest)


def _heading(line: str) -> tuple[int, str] | None:
    """(level, text) of a heading line: Markdown's, a line in bold or capitals, a subject."""
    if len(line) > MAX_HEADING:
        return None  # a heading is short; and a long line is not backtracked over
    if (match := _HEADING.match(line)) is not None:
        return len(match.group(1)), _clean(match.group(2))
    if (match := _BOLD_LINE.match(line)) is not None:
        return BOLD, _clean(match.group(2))
    if (match := _SUBJECT.match(line)) is not None:
        return 0, _clean(match.group(1))
    if (match := _SPEAKER.match(line)) is not None and _named(match.group(1)):
        return SPEAKER, match.group(1).strip()
    stripped = line.strip()
    capitals = stripped.isupper() and sum(c.isalpha() for c in stripped) >= 4
    if capitals and len(stripped.split()) <= 8 and stripped[-1:] not in ".!?,;":
        return (CAPITALS, stripped) if _ITEM.match(line) is None else None
    return None


def _named(text: str) -> bool:
    """Whether `text` is a name (and a role in brackets): every word capitalised, few."""
    words = text.replace("(", " ").split()
    return 0 < len(words) <= 6 and all(w[:1].isupper() for w in words)


def _clean(text: str) -> str:
    return " ".join(_EMPHASIS.sub("", text).split())


_MONTH = (
    "jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    "|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)? ({_MONTH})\.? (\d{{4}})\b", re.I)
_MONTH_DAY = re.compile(rf"\b({_MONTH})\.? (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})\b", re.I)
_VERSION_OR_DATE = re.compile(rf"\b(v?\d[\w.]*|{_MONTH}|released|release|version)\b", re.I)


def _heading_date(text: str) -> str | None:
    """The date of a heading that is mostly a date ("[2.4.0] - 2023-08-02", "v3.2.0
    (1 February 2024)", "5 October 2023"); None for one that says more."""
    if len(re.findall(r"[A-Za-z]{2,}", _VERSION_OR_DATE.sub(" ", text))) > 1:
        return None
    for pattern, order in ((_ISO_DATE, "ymd"), (_DAY_MONTH, "dmy"), (_MONTH_DAY, "mdy")):
        if (match := pattern.search(text)) is not None:
            return _day(dict(zip(order, match.groups(), strict=True)))
    return None


def _day(parts: dict[str, str]) -> str | None:
    month = parts["m"]
    number = int(month) if month.isdigit() else _month_number(month)
    try:
        return dt.date(int(parts["y"]), number, int(parts["d"])).isoformat()
    except ValueError:
        return None


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _month_number(name: str) -> int:
    return _MONTHS.index(name[:3].lower()) + 1
