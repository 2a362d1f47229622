"""A document's layout read offline: Markdown, lists, tables, minutes, chat and e-mail.

An LLM reads layout; the sentence splitter does not. Before this module a bulleted list ran
on as one statement, a table row lost its column names, and a reply's quoted message was
stored again under the reply's date, where it passed for new. Lines are read for what they
are:

- in a message (mail.py says which documents are), what its author did not write: headers,
  greeting, a closing sign-off and signature; an earlier message it quotes or forwards is
  read as a message of its own, dated by its attribution or "Sent:" line (left out if it
  cannot be dated); in a page's messages (tickets, letters, forum posts), greetings, closing
  sign-offs and signatures (letters.py);
- in a page, a quoted block ("> Note: ...") is its own text, unless its other lines already
  say it (a reply in a thread quoting what it answers);
- a confidentiality notice, a page's edit line ("Updated: 3 March 2025", "Last edited ... by
  Anna Bell": a date or a name, nothing else) and a meeting's attendance ("Present: ...",
  "Apologies: ...") are no statements: dropped;
- a heading (Markdown "#", a line underlined with === or ---, a line in bold or in capitals,
  a short title-case line standing alone, a numbered agenda item with lines under it, an
  e-mail's subject, a document's title line) is no statement either: with the heading above
  it, it is the context of what follows, and a heading that is only a date or a version and
  a date ("## [2.4.0] - 2023-08-02") dates it; a paragraph read as a heading with nothing
  under it at the end is a statement after all;
- a reply's header ("Leon Marsh - 6 Mar 2023, 10:17", "**marg** · 2 Oct 2023, 19:02")
  names who writes what follows and dates it;
- each list item, field line ("Price: £29", "Action: JS to ...") and chat message is a block
  of its own, led by its context: the line that introduces the list ("The Pro plan
  includes:") or the headings above it; a table row is read with its column names (a table
  with no rule under its first row has none).

Context is short (MAX_HEADING characters), so it is never copied into every item at length.
Everything else is prose: a paragraph, as before (blank lines end one).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from graphmem.props import letters, mail


@dataclass(frozen=True)
class Block:
    """A paragraph, list item or table row; `context` is the headings or lead-in it sits under.
    `led`: the text reads only with its context (a list item, a table row). `date`: the
    YYYY-MM-DD of a dated heading it sits under, if any."""

    text: str
    context: str = ""
    led: bool = False
    date: str | None = None
    about: tuple[str, ...] = ()  # the headings above it, outermost first: what it is about
    part: str = "0.0"  # which message of the document, and which post or chat line in it


_NOTICE = re.compile(
    r"\bconfidential\b.*\b(intended|addressee|recipient|received this)"
    r"|\bconsider the environment before printing",
    re.IGNORECASE,
)

# a copyright with its year, or a registration with its number ("Registered in England No.
# 04418825", "VAT No. GB 318 4472 09"): "All images © Getty" or "your charity registration
# number" are no footer
_COPYRIGHT = re.compile(r"(\u00a9|\(c\)|\bcopyright\b)\s?(\u00a9\s?)?\d{4}", re.IGNORECASE)
_REGISTERED = re.compile(
    r"\b(registered in (england|scotland|wales|northern ireland|ireland)[\w& ]{0,12}?"
    r"|(company|registration|registered|charity|society|vat)( reg\.?)?) (no\.?|number):?\s?"
    r"(?-i:[A-Z]{0,3})\s?\d",
    re.IGNORECASE,
)
_FRAGMENTS = re.compile(r"\s[\u00b7|\u2022]\s")  # "Acme Ltd · Company no. 09876543 · Privacy"
MAX_FRAGMENT = 12  # words of a fragment of a footer: more make a sentence
MAX_FOOTER_LINE = 12  # words of a footer with no separators: "© 2024 Acme Ltd."
_RESERVED = re.compile(r"all rights reserved\.?", re.IGNORECASE)
# Markdown's "[1.4.1]: https://example.org/..." (a footnote "[^1]: ..." or "[Decision]: ..." is
# text)
_LINK_DEFINITION = re.compile(
    r"^\s{0,3}\[[^\]^][^\]]*\]:\s+<?(\w+://|/|#|www\.)\S*>?(\s+(\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*$"
)
_FIRST_PERSON = re.compile(r"(I|I'm|I'll|I've|I'd|I’m|I’ll|I’ve|I’d|My)\b(?!/)")  # not "I/O"
_FENCE = re.compile(r"^\s{0,3}(`{3,}+|~{3,}+)\s*([^`\s~][^`]*)?$")  # "```bash", "~~~"
_HEADING = re.compile(r"^\s*(#{1,6})\s+(.+?)\s*#*\s*$")
_BOLD_LINE = re.compile(r"^\s*(\*\*|__)([^*_]+?)\1\s*:?\s*$")
_UNDERLINE = re.compile(r"^\s*(=+|-+|~{3,})\s*$")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_ITEM = re.compile(
    r"^\s*(?:[-*+\u2022\u25aa\u25e6\u2013]|\(?\d{1,3}[.)]|\(?[a-z][.)]|(\d{1,2}(?:\.\d{1,2})+)\.?"
    r"(?=\s+[A-Z]))\s+(.+)$"
)
# "Price: £29", "Action: JS to send the quote": a field line is a statement of its own
_FIELD = re.compile(r"^\s*[A-Z][\w'()/&-]*( [\w'()/&-]+){0,3}:\s+\S")
# a page's "Updated: 3 March 2025", "Last edited 23 November 2024 by Anna" (with a date or a
# name, nothing else: see _metadata) and a meeting's attendance
_EDITED = re.compile(
    r"^\W*(last )?(updated|edited|modified|reviewed)\b\s*(on\b|:|by\b)?", re.IGNORECASE
)
_ATTENDANCE = re.compile(
    r"^\W*(present|attendees|attendance|in attendance|apologies( for absence)?|absent)\s*:"
    r"|^\W*apologies\s*[\u2014\u2013-]\s*(none|nil)\b",
    re.IGNORECASE,
)
# "[09:14] Priya: ..." or "09:14 Priya Shah: ...": a chat message
# (or WhatsApp's "08/11/2023, 18:02 - Liz Barton: ..." and "[08/11/2023, 18:02:13] Liz: ...")
_CHAT = re.compile(
    r"^\s*\[?(?:\d{1,2}/\d{1,2}/\d{2,4},?\s+)?\d{1,2}:\d{2}(?::\d{2})?\s*([AaPp][Mm])?\]?"
    r"(?:\s+[-\u2013])?\s+([A-Z][\w'-]*(?: [A-Z][\w'-]*){0,2}:\s.*)$"
)
# what a chat export writes in place of a message, or a reaction alone: no statement
_PLACEHOLDER = re.compile(
    r"^[^:]{1,60}:\s*(<media omitted>|<attached:[^>]*>|this message was deleted"
    r"|you deleted this message|(image|video|audio|sticker|gif|document) omitted"
    r"|\+1|[^\w]*)\s*$",  # or a reaction: "+1", "\U0001f44d"
    re.IGNORECASE,
)
# "Priya Shah  9:14 AM", "Leon Marsh (Support) - 6 Mar 2023, 10:17": who writes what follows
# (also "Tom Bright | 20 Nov 2023 16:22", "[Ruth Hargreaves, 2024-01-09 17:50]" and a
# ticket's "-- Dev Kapoor, 2 Jun 2023 07:55 --")
_SPEAKER = re.compile(
    r"^\s*(?:-{2,}\s*|\[)?([A-Za-z@][^.!?:,|\u00b7\d\]]{0,60}?)\s*"
    r"((?:\s[-\u2013\u2014]|[,|\u00b7])\s[^:]{0,30}\d{4}(?:-\d\d-\d\d)?,?)?\s+\d{1,2}:\d{2}"
    r"\s*([AaPp][Mm])?\s*(?:-{2,}\s*|\])?$"
)
_HANDLE = re.compile(r"@?[a-z][\w.-]{2,30}")  # a forum's user name, in bold: "**marg_allotments**"
_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_ROW_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_EMPHASIS = re.compile(r"\*\*|__|`")
_STRUCK = re.compile(r"~~[^~\n]{1,300}?~~|<(del|s|strike)>[^<\n]{1,300}?</\1>", re.IGNORECASE)


@dataclass(frozen=True)
class _Heading:
    level: int
    text: str
    date: str | None  # a heading that is mostly a date dates what is under it
    dateline: bool  # a date alone: no context


BOLD, CAPITALS, AGENDA, SPEAKER = 7, 3, 8, 9  # heading levels below Markdown's 1-6
MAX_TITLE_WORDS = 20
MAX_FIELD_VALUE = 8  # words of a field's value read under the document's title
REPEATED = 0.8  # share of a quoted line's words found elsewhere in the page: a repeat
MAX_HEADING = 300  # characters of a line read as a heading
MAX_NOTICE = 1500  # characters of a paragraph read as a notice


def _notice(text: str) -> bool:
    """A confidentiality or print notice: a short paragraph (a long one is prose)."""
    return len(text) <= MAX_NOTICE and _NOTICE.search(text) is not None


def _footer(text: str) -> bool:
    """A company's footer: "Acme Ltd · Registered in England No. 04418825 · Privacy" (parts
    of a few words between separators, a copyright or a registration number among them), or a
    short line that is a copyright ("© 2024 Acme Ltd. All rights reserved.") or opens with a
    registration ("VAT No. GB 318 4472 09")."""
    if len(text) > MAX_NOTICE:
        return False
    claimed, registered = _COPYRIGHT.search(text), _REGISTERED.search(text)
    if not (claimed or registered):
        return False
    parts = _FRAGMENTS.split(text)
    if len(parts) > 1:
        return all(_words_in(part) <= MAX_FRAGMENT for part in parts)
    if _words_in(text) > MAX_FOOTER_LINE:
        return False
    if claimed is not None and _words_in(text[: claimed.start()]) <= 1:
        # "© 2024 Acme Ltd. All rights reserved.", not "Copyright 2019 belongs to the estate"
        rest = _RESERVED.sub("", text[claimed.end() :])
        return sum(w[:1].islower() for w in rest.split()) <= 1
    # "VAT No. GB 318 4472 09", not "Company No. 04418825 changed its name to ..."
    return (
        registered is not None
        and registered.start() == 0
        and not _words_in(text[registered.end() :])
    )


def _words_in(text: str) -> int:
    """Words with a letter in them: a telephone number or a postcode's digits are none."""
    return sum(any(c.isalpha() for c in word) for word in text.split())


def lead(context: str, text: str) -> str:
    """`text` read with its context: "Pricing: Pro: £29", "The plans cost: Pro: £29"."""
    if not context:
        return text
    return f"{context} {text}" if context.endswith(":") else f"{context}: {text}"


def blocks(text: str) -> list[Block]:
    """The blocks of a document, in order: prose paragraphs, list items, table rows."""
    lines = [_squeezed(line) for line in text.splitlines()]
    if not mail.is_mail(lines):
        # a page's quoted block ("> Note: ...") is its own text, unless it repeats it
        return _read(letters.without_greetings(_unquoted(lines)))
    out: list[Block] = []
    said: set[str] = set()  # the newest message's words
    subject: list[str] = []  # the thread's Subject: line, for a quoted message with none
    for i, message in enumerate(mail.messages(lines)):
        sent = _sent_date(message.sent)
        if i > 0 and sent is None and not message.forwarded:
            continue  # an earlier message with no date: when was it said?
        own = mail.own_lines(message.lines, _NOTICE)
        if i == 0:
            said = _words(own)
            subject = [x for x in message.lines if mail.SUBJECT.match(x)][:1]
        else:  # a thread's page quoting a post it shows already: said once
            own = _unrepeated(own, said)
            if not any(mail.SUBJECT.match(x) for x in own):
                own = subject + own
        author = mail.sender(message.lines)
        out += _read(letters.without_greetings(own, message=True), sent, author, i)
    return out


def _read(
    lines: list[str], date: str | None = None, author: str | None = None, message: int = 0
) -> list[Block]:
    """The blocks of lines, dated `date` where no dated heading dates them; a paragraph
    opening in the first person ("I'll be your coordinator") led by the message's `author`.
    A fenced code block and Markdown's link definitions are no statements."""
    reader = _Reader(date, author, message)
    code = _fenced(lines)
    for i, line in enumerate(lines):
        if i in code:
            reader.end_paragraph()
        elif not (_metadata(line) or _LINK_DEFINITION.match(line)):
            reader.read(line)
    reader.finish()
    return [b for b in reader.out if not (_notice(b.text) or not b.led and _footer(b.text))]


def _fenced(lines: list[str]) -> set[int]:
    """The lines of fenced code blocks, fences included. A block opens with a fence of
    backticks, or of tildes with an info string ("~~~yaml") or after a blank line, a line
    ending in ":" or a heading (a line of tildes under a title is an underline), and closes
    with a bare fence of the same character, at least as long; a fence never closed fences
    nothing."""
    out: set[int] = set()
    opened: tuple[int, str] | None = None  # the opening line and its fence
    for i, line in enumerate(lines):
        match = _FENCE.match(line)
        if match is None:
            continue
        fence, info = match.group(1), match.group(2)
        if opened is None:
            before = lines[i - 1].strip() if i > 0 else ""
            under = bool(before) and not before.endswith(":") and _heading(before) is None
            if info or fence[0] == "`" or not under:  # "Fees" over "~~~~" is a heading
                opened = (i, fence)
        elif not info and fence[0] == opened[1][0] and len(fence) >= len(opened[1]):
            out.update(range(opened[0], i + 1))
            opened = None
    return out


def _sent_date(sent: str | None) -> str | None:
    """The YYYY-MM-DD of a "Sent:" header's value with the month named ("Thursday, May 11,
    2023 2:15 PM", "Tue, 4 Mar 2024 09:12"); an ISO date too. "11/05/2023" is May or
    November: None."""
    return None if sent is None else _first_date(sent)


def _unquoted(lines: list[str]) -> list[str]:
    """A page's lines with its quoted ones ("> ...") as its own text, but for those whose
    words its other lines already hold (a reply in a thread quoting what it answers)."""
    words = _words(lines)
    out = []
    for line in lines:
        if mail.QUOTED.match(line):
            line = line.lstrip().removeprefix(">").lstrip()
            if _repeats(line, words):
                continue
        out.append(line)
    return out


def _unrepeated(lines: list[str], words: set[str]) -> list[str]:
    """The lines with the paragraphs that `words` already say blanked (a subject line stays:
    it heads the message)."""
    out = list(lines)
    for start, end in mail.runs(lines):
        paragraph = lines[start:end]
        if _repeats(" ".join(x for x in paragraph if not mail.SUBJECT.match(x)), words):
            out[start:end] = [x if mail.SUBJECT.match(x) else "" for x in paragraph]
    return out


def _words(lines: list[str]) -> set[str]:
    """The words of the lines that are not quoted ("> ...")."""
    return set(" ".join(x for x in lines if not mail.QUOTED.match(x)).casefold().split())


def _repeats(line: str, words: set[str]) -> bool:
    """Whether a line's words are (REPEATED of them, and every figure) among `words`: "The
    launch is on 12 March" does not repeat "The launch is now on 19 March"."""
    said = line.casefold().split()
    figures = [w for w in said if any(c.isdigit() for c in w)]
    repeated = sum(w in words for w in said) >= REPEATED * len(said)
    return bool(said) and repeated and all(w in words for w in figures)


def _squeezed(line: str) -> str:
    """The line with its runs of spaces made one (an indent is kept, as one space) and its
    struck-through text ("~~9am-1pm~~ closed", "<del>£45</del>") left out: no longer so."""
    words = " ".join(_STRUCK.sub(" ", line).split())
    return f" {words}" if words and line[:1].isspace() else words


def _metadata(line: str) -> bool:
    """A page's edit line ("Updated: 3 March 2025", "Last edited ... by Anna Bell", nothing
    else in it) or a meeting's attendance ("Present: ...", "Apologies: ...")."""
    if _ATTENDANCE.match(line):
        return True
    edited = _EDITED.match(line)
    if edited is None or len(line.split()) > 10:
        return False
    rest = _EMPHASIS.sub("", line[edited.end() :]).strip(" .*_")
    by = re.fullmatch(r"(.*?)\s*\bby\s+(.+)", rest)
    date, name = (by.group(1), by.group(2)) if by else (rest, "")
    return (
        (not date or _dateline(date))
        and (bool(date) or bool(name))
        and (not name or _named(name.split("(")[0]))
    )


class _Reader:
    """Lines in, blocks out: keeps the headings, the list's lead-in and the table's header."""

    def __init__(
        self, date: str | None = None, author: str | None = None, message: int = 0
    ) -> None:
        self.dated = date  # the date of what no dated heading dates (None: the document's)
        self.author = author  # who wrote the message: who "I" is
        self.message = message  # which message of the document
        self.post = 0  # which post (a speaker's header) or chat line of the message
        self.out: list[Block] = []
        self.paragraph: list[str] = []
        self.item: list[str] = []  # the list item being read, with its continuation lines
        self.field = False  # the item is a field line ("Price: £29"), never a heading
        self.headings: list[_Heading] = []  # outermost first
        self.lead_in = ""
        self.lead_kind: str | None = None  # "item" or "field": what the lead-in leads
        self.header: list[str] = []
        self.first_row: list[str] = []  # a table's first row: its header if a rule follows
        self.headerless = False  # a table whose second row came with no rule above it
        self.seen = False  # anything read yet (a first line standing alone is a title)
        self.standing: str | None = None  # a paragraph read as a heading, nothing under it yet

    def read(self, line: str) -> None:
        heading = _heading(line)
        if heading is not None:
            self.end_paragraph()
            # a reply's "Leon Marsh - 6 Mar 2023, 10:17" dates what he wrote
            self._head(*heading, _first_date(line) if heading[0] == SPEAKER else None)
        elif _UNDERLINE.match(line) and len(self.paragraph) == 1 and not self.item:
            self._head({"=": 1, "-": 2}.get(line.strip()[0], 3), self.paragraph.pop().strip())
        elif not line.strip() or _RULE.match(line):
            self.end_paragraph()
            self._end_table()
        elif _ROW.match(line) or _ROW_RULE.match(line):
            self._row(line)
        else:
            self._end_table()
            self._text(line)

    def finish(self) -> None:
        """The end of the document: what is pending is a block; a paragraph read as a
        heading with nothing under it was a statement after all ("Acme moved to Leeds")."""
        self.end_paragraph()
        self._end_table()
        if self.standing is not None:
            self.headings.pop()
            self._block(self.standing, led=False)

    def _text(self, line: str) -> None:
        item = _ITEM.match(line) or _CHAT.match(line)
        chat = item is not None and item.re is _CHAT
        if item is not None and (
            _metadata(item.group(2)) or chat and _PLACEHOLDER.match(item.group(2))
        ):
            self._end_item()  # "1. Apologies — none."
        elif item is not None:
            if chat:  # each chat line is a message of its own: what came before is the last's
                self._end_item()
                if self.paragraph:
                    self._block(_flat(self.paragraph), led=False)
                    self.paragraph = []
                self.post += 1
            self._item(item.group(2), sub=item.re is _ITEM and item.group(1) is not None)
        elif _FIELD.match(line) and (not self.paragraph or self._title_only()):
            self._item(line, field=True)
        elif self.item:
            self._after_item(line)
        else:
            self.paragraph.append(line)

    def _title_only(self) -> bool:
        """The paragraph is the document's title line ("Ticket #57002" above its fields)."""
        return (
            len(self.paragraph) == 1 and not self.seen and _stands_as_heading(self.paragraph, True)
        )

    def context(self, led: bool, field: bool = False) -> str:
        """The two innermost headings; a title or subject only for prose or a field under no
        other (a title shared by every row and item would make them all alike; a ticket's
        "Status: Open" says nothing without it)."""
        inner = [h.text for h in self.headings if h.level > 0 and not h.dateline]
        if not inner and not led:
            inner = [h.text for h in self.headings]
        elif not inner and field:
            inner = [h.text for h in self.headings if not h.dateline]
        return " \u203a ".join(inner[-2:])

    @property
    def date(self) -> str | None:
        dated = [h.date for h in self.headings if h.date is not None]
        return dated[-1] if dated else self.dated

    def _head(self, level: int, text: str, date: str | None = None) -> None:
        while self.headings and self.headings[-1].level >= level:
            self.headings.pop()
        dated = date or _heading_date(text)
        self.post += level == SPEAKER  # a reply: another post
        self.headings.append(_Heading(level, text, dated, _dateline(text)))
        self.lead_in, self.header, self.seen, self.standing = "", [], True, None

    def _block(self, text: str, led: bool, field: bool = False) -> None:
        context = self.lead_in if led and self.lead_in else self.context(led, field)
        if self.author and not self.post and not led and _FIRST_PERSON.match(text):
            context, led = self.author, True
        about = tuple(h.text for h in self.headings if not h.dateline and h.level != SPEAKER)
        part = f"{self.message}.{self.post}"
        self.out.append(Block(_EMPHASIS.sub("", text), context, led, self.date, about, part))
        self.seen, self.standing = True, None

    def end_paragraph(self) -> None:
        """A blank line (or what else ends a paragraph): the paragraph is a block or a
        heading. A list's lead-in outlasts blank lines: "... our prices change:", a blank
        line, then the list; items with a blank line between them."""
        self._end_item()
        if self.paragraph:
            text = _flat(self.paragraph)
            if _stands_as_heading(self.paragraph, first=not self.seen):
                self._head(0 if not self.seen else BOLD, text)
                self.standing = text
            else:
                self._block(text, led=False)
                last = re.split(r"(?<=[.!?])\s+", text)[-1]
                colon = last.endswith(":") and len(last) <= MAX_HEADING
                self.lead_in, self.lead_kind = (last, None) if colon else ("", None)
            self.paragraph = []

    def _item(self, text: str, field: bool = False, sub: bool = False) -> None:
        # "2. Matters arising" above "2.1 ..." or above "Decision: ..." heads them
        if (sub or field) and self.item and not self.field and _heading_like(self.item):
            self._head(AGENDA, _flat(self.item))
            self.item = []
        self._end_item()
        lead = self.paragraph[-1] if self.paragraph else ""
        if lead.rstrip().endswith(":") and len(lead) <= MAX_HEADING:
            lead_in = self.paragraph.pop()
            self.end_paragraph()
            self.lead_in, self.lead_kind = _flat([lead_in]), None
        elif self.paragraph:
            self.end_paragraph()
        kind = "field" if field else "item"
        if self.lead_kind not in (None, kind):
            self.lead_in = ""  # "Decision: ..." after a list's items is no item of it
        self.lead_kind = kind
        while not (sub or field) and self.headings and self.headings[-1].level == AGENDA:
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
            text = _flat(self.item)
            # "Status: Open", not "Good news: we can offer ...": a field's value is short
            value = text.split(": ", 1)[-1]
            field = self.field and len(value.split()) <= MAX_FIELD_VALUE and value[-1:] not in ".!?"
            self._block(text, led=True, field=field)
            self.item = []

    def _row(self, line: str) -> None:
        """A table row: the first is the header if a rule line follows it (Markdown's)."""
        self.end_paragraph()
        if _ROW_RULE.match(line):
            short = len(" ".join(self.first_row)) <= MAX_HEADING
            self.header, self.first_row = (self.first_row if short else []), []
            return
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not (self.header or self.headerless or self.first_row):
            self.lead_in = ""  # a table is led by its headings, not a list's lead-in
        if self.header or self.headerless:
            self._cells(cells)
        elif not self.first_row:
            self.first_row = cells
        else:  # no rule under the first row: a table with no header
            self.headerless = True
            self._cells(self.first_row)
            self._cells(cells)
            self.first_row = []

    def _cells(self, cells: list[str]) -> None:
        pairs = zip(self.header, cells, strict=False) if self.header else ((None, c) for c in cells)
        text = "; ".join(f"{h}: {c}" if h else c for h, c in pairs if c)
        if text:
            self._block(text, led=bool(self.header))

    def _end_table(self) -> None:
        if self.first_row:
            self._cells(self.first_row)
        self.header, self.first_row, self.headerless = [], [], False


def _flat(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


def _heading_like(lines: list[str]) -> bool:
    text = _flat(lines)
    return len(text.split()) <= 6 and len(text) <= MAX_HEADING and text[-1:] not in ".!?;:,"


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
    # "Summary", "Best Picture", "CLUB NEWS"; not "Alice resigned", a sentence with no stop
    titled = all(w[:1].isupper() for w in words if w[:1].isalpha())
    return len(lines) == 1 and (len(words) <= 3 and titled or text.isupper())


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
    if (match := mail.SUBJECT.match(line)) is not None:
        return 0, _clean(match.group(1))
    plain = _EMPHASIS.sub("", line)  # "**Rafiq Ahmed (Treasurer)** · 2 Oct 2023, 10:15"
    if (match := _SPEAKER.match(plain)) is not None and (
        _named(match.group(1)) or plain != line and _HANDLE.fullmatch(match.group(1).strip())
    ):
        return SPEAKER, match.group(1).strip()
    stripped = line.strip()
    # "CLUB NEWS", not a postcode ("KL3 7RB") or a reference
    capitals = (
        stripped.isupper()
        and sum(c.isalpha() for c in stripped) >= 4
        and re.search(r"[A-Z]{3}", stripped) is not None
    )
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
    if re.search(r"[A-Za-z]{2,}", _WEEKDAY.sub(" ", _VERSION_OR_DATE.sub(" ", text))):
        return None  # "Deadline 1 March 2023" says more than a date
    return _first_date(text)


def _first_date(text: str) -> str | None:
    """The YYYY-MM-DD of the first date in `text` written as ISO or with its month named."""
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
