"""The lines of an e-mail its author wrote: layout.py's reading of messages.

A document is a message when headers open it (its first line and another of its first
six), or when it holds a
reply's attribution ("On <date>, Anna wrote:"), an earlier message's marker ("-----Original
Message-----", "Forwarded message") or an earlier message's header block (From:, Sent: and
Subject: lines). Only then are these left out, since in a page or a report
the same lines are facts ("From: London", "> Note: ...", "Best Picture"):

- an earlier message (quoted "> ..." lines under an attribution, or below an "Original
  Message" or "Forwarded message" line or a header block: an Outlook reply): its facts
  were stated on its own date, and stored with the reply's they would pass for new. It is a
  message of its own (`messages`), read with the attribution's or its "Sent:" or "Date:"
  header's date; one that has none is left out (quoted lines with no attribution too), but
  for a forwarded one, which its sender vouches for on the document's date;
- the headers, a greeting ("Hi all,", "Ben,"), a sign-off that closes the message ("Thanks,"
  with only a signature after it), a signature after "-- " or "Sent from my ...", and the
  paragraphs of a signature that end it (names, roles, addresses, numbers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphmem.props.wordlist import word_set

QUOTED = re.compile(r"^\s*>")
_SENT = re.compile(r"^\s*(?:sent|date)\s*:\s*(.+)$", re.IGNORECASE)
_FROM = re.compile(r"^\s*from\s*:\s*(.+)$", re.IGNORECASE)
_ADDRESS = re.compile(r"<[^>]*>|\S+@\S+|\[mailto:[^\]]*\]", re.IGNORECASE)
MAX_NAME_WORDS = 4
MAX_FROM = 200  # characters of a From: header's value read for a name
# words of a sender that is no person: "Acme Support", "Leeds City Council", "BBC News"
_NOT_A_PERSON = word_set(
    """
    team support news council office service services department admin info help desk
    helpdesk ltd limited inc plc llc group club society hotel school surgery bank newsletter
    notifications noreply no-reply mailer daemon via
    """
)
MAX_HEADERS = 8  # lines at the top of an earlier message its headers may take
HEADER = re.compile(r"^\s*(from|to|cc|bcc|sent|date|reply-to)\s*:\s", re.IGNORECASE)
# headers that only a message's header block holds: in its body "X-ray: no fracture" or
# "Content-Type: application/json must be sent" are what its author wrote
_ANY_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9-]{1,40}:\s")  # a header's form, any name
_BLOCK_HEADER = re.compile(
    r"^\s*(message-id|in-reply-to|references|list-[a-z]+|return-path|mime-version"
    r"|content-[a-z-]+|x-[\w-]+|delivered-to|received|thread-[a-z]+)\s*:\s",
    re.IGNORECASE,
)
SUBJECT = re.compile(r"^\s*subject\s*:\s*(?:(?:re|fwd?|fw|aw|sv)\s*:\s*)*(.*)$", re.IGNORECASE)
_WROTE = re.compile(r"\bwrote:\s*$", re.IGNORECASE)
_EARLIER = re.compile(r"^\s*-{2,}\s*original message\s*-{2,}\s*$", re.IGNORECASE)
FORWARDED = re.compile(r"^\s*-{2,}\s*forwarded message\s*-{2,}\s*$", re.IGNORECASE)
_SIGNATURE = re.compile(r"^--\s*$")
_UNDERSCORES = re.compile(r"^\s*_{10,}\s*$")
_LIST_FOOTER = re.compile(r"mailing list|listinfo|mailman|unsubscribe", re.IGNORECASE)
_SENT_FROM = re.compile(r"^\s*sent from (my|outlook|mail|yahoo)\b", re.IGNORECASE)
_GREETING = re.compile(
    r"^\s*(hi|hello|hey|dear|morning|good (morning|afternoon|evening))\b"
    r"([^.!?,]{0,40}[,!]|(\s+\S+){0,2}\s*)\s*$",
    re.IGNORECASE,
)
_NAME_GREETING = re.compile(r"^\s*[A-Z][a-z'-]+( [A-Z][a-z'-]+){0,2},\s*$")  # "Ben,"
_SIGN_OFF = word_set("thanks thank cheers best regards kind warm sincerely yours cordially ta")
# words a signature's role or address line may have in lower case: "Head of Product"
_SMALL = word_set("of and the for at in on de la le du van von & - |")
# a letter's "Enc." and "cc: Ms F. Wren" under the signature
_TRAILER = re.compile(r"^\s*(enc|encl|encs|enclosures?|cc|bcc)\b\.?(:|\s*$)", re.IGNORECASE)
_WEB = re.compile(r"www\.|https?:|\b[\w-]+\.(com|org|net|io|co|uk|gov|edu|info|app|dev)\b")
MAX_SIGNATURE_WORDS = 10
MAX_SIGNATURE_LINES = 6


def is_mail(lines: list[str]) -> bool:
    """Whether the document is a message (see the module docstring)."""
    top = [bool(HEADER.match(x) or SUBJECT.match(x)) for x in lines if x.strip()][:6]
    if top and top[0] and sum(top) >= 2:  # headers open it
        return True
    return any(
        _EARLIER.match(x) or FORWARDED.match(x) or attribution(lines, i) or _header_block(lines, i)
        for i, x in enumerate(lines)
    )


@dataclass(frozen=True)
class Message:
    """One message of a thread: its lines, and its "Sent:" or "Date:" header's value (None
    for the newest, which the document's date dates, or an earlier one without the header).
    `forwarded`: sent on by the newest message's author, who vouches for it."""

    lines: list[str]
    sent: str | None = None
    forwarded: bool = False


def messages(lines: list[str]) -> list[Message]:
    """The messages of a document that is a message, newest first: what its author wrote,
    the messages it quotes, then each earlier message below an "Original Message" or
    "Forwarded message" line or a header block."""
    out: list[Message] = []
    start, sent, forwarded = 0, None, False
    while True:
        end = _earlier_at(lines, start)
        own = lines[start:end]
        out += [Message(own, sent, forwarded), *_quoted(own)]
        if end >= len(lines):
            return out
        forwarded = FORWARDED.match(lines[end]) is not None
        start = end + 1 if forwarded or _EARLIER.match(lines[end]) else end
        sent = _sent(lines, start)


def _sent(lines: list[str], start: int) -> str | None:
    """The value of the "Sent:" or "Date:" header in the header block opening a message at
    `start` (None if it has none: a body line below is no header)."""
    return _header(lines, start, _SENT)


def _header(lines: list[str], start: int, header: re.Pattern[str]) -> str | None:
    """The value of a header in the header block opening a message at `start`."""
    for line in lines[start : start + MAX_HEADERS + 6]:  # and a few the block may add
        if (match := header.match(line)) is not None:
            return match.group(1)
        if line.strip() and not _any_header(line):
            return None
    return None


def _any_header(line: str) -> bool:
    return bool(HEADER.match(line) or SUBJECT.match(line) or _BLOCK_HEADER.match(line))


def sender(lines: list[str]) -> str | None:
    """The person named in the "From:" header of the header block opening a message ("Tom
    Ridley <tom@example.org>", '"Ridley, Tom" <...>' read as "Tom Ridley", "Jane Smith, MD" as
    "Jane Smith"); None for an address alone, a team or an organisation ("BBC News", "Acme
    Support"), a single name, or a long value."""
    start = _blank_lines(lines)
    block = lines[start : _header_lines(lines)]
    values = [m.group(1) for m in map(_FROM.match, block) if m is not None]
    if not values or len(values[0]) > MAX_FROM:
        return None
    name = _ADDRESS.sub(" ", values[0])
    parts = [p.strip(" \"'") for p in name.split(",")]
    if len(parts) == 2 and all(len(p.split()) == 1 for p in parts):  # Outlook's "Last, First"
        parts = [f"{parts[1]} {parts[0]}"]
    words = parts[0].split()
    person = 2 <= len(words) <= MAX_NAME_WORDS and all(
        w[:1].isupper() and any(c.islower() for c in w) and w.lower() not in _NOT_A_PERSON
        for w in words
    )
    return " ".join(words) if person else None


def _quoted(lines: list[str]) -> list[Message]:
    """The messages quoted under an attribution ("On 3 Mar 2025, Ben wrote:" then "> ..."
    lines), a level of quoting taken off, "sent" the attribution."""
    out: list[Message] = []
    i = 0
    while i < len(lines):
        if not attribution(lines, i):
            i += 1
            continue
        said = []
        while i < len(lines) and attribution(lines, i):
            said.append(lines[i])
            i += 1
        quoted = []
        while i < len(lines) and (QUOTED.match(lines[i]) or not lines[i].strip()):
            quoted.append(re.sub(r"^\s*>\s?", "", lines[i]))
            i += 1
        out.append(Message(quoted, " ".join(said)))
    return out


def own_lines(lines: list[str], notice: re.Pattern[str]) -> list[str]:
    """The lines of a message its author wrote (see the module docstring); `notice` finds a
    confidentiality notice, which a signature may carry."""
    lines = lines[: _earlier_at(lines, 0)]
    top = _header_lines(lines)
    body = [  # the header block's Subject: stays: it heads the message
        "" if i < top and not SUBJECT.match(x) or QUOTED.match(x) or attribution(lines, i) else x
        for i, x in enumerate(lines)
    ]
    closes = _closes(body, notice)
    out: list[str] = []
    signed = False
    for i, line in enumerate(body):
        signed = signed or bool(
            _SIGNATURE.match(line) or _SENT_FROM.match(line) or _list_footer(body, i)
        )
        if signed or not line.strip() and lines[i].strip():
            continue  # signed, or quoted
        if _signs_off(line) and closes[i]:
            signed = True
        elif not (HEADER.match(line) or _GREETING.match(line) or _NAME_GREETING.match(line)):
            out.append(line)
    return _without_signature(out, notice)


def _header_lines(lines: list[str]) -> int:
    """Where the header block opening a message (after blank lines) ends: at its first blank
    line or line that is no header; a header the block has that graphmem does not name
    ("User-Agent:", "DKIM-Signature:") and a folded header's indented line are in it. 0 when
    no header of a message opens it."""
    start = i = _blank_lines(lines)
    while i < len(lines) and (
        _ANY_NAME.match(lines[i]) or i > start and lines[i][:1].isspace() and lines[i].strip()
    ):
        i += 1
    return i if any(_any_header(x) for x in lines[start:i]) else 0


def _blank_lines(lines: list[str]) -> int:
    """How many blank lines open `lines`."""
    return next((i for i, x in enumerate(lines) if x.strip()), len(lines))


def _list_footer(lines: list[str], i: int) -> bool:
    """Whether line i is the rule of underscores above a mailing list's footer ("dev mailing
    list", a listinfo link), not a rule between two parts of a newsletter."""
    if not _UNDERSCORES.match(lines[i]):
        return False
    below = next((x for x in lines[i + 1 :] if x.strip()), "")
    return _LIST_FOOTER.search(below) is not None


def attribution(lines: list[str], i: int) -> bool:
    """Whether line i is a reply's "On <date>, <name> wrote:" or a part of it (it may wrap)."""
    if i >= len(lines):
        return False
    here, after = lines[i], lines[i + 1] if i + 1 < len(lines) else ""
    before = lines[i - 1] if i > 0 else ""
    if _WROTE.search(here):
        return here.lstrip().startswith("On ") or before.lstrip().startswith("On ")
    return here.lstrip().startswith("On ") and bool(_WROTE.search(after))


def _earlier_at(lines: list[str], start: int) -> int:
    """Where the message starting at `start` ends: at an "Original Message" or "Forwarded
    message" line, or a header block (From: then Sent: or Date:) below what its author
    wrote; len(lines) if nothing follows it."""
    wrote = False
    for i in range(start, len(lines)):
        line = lines[i]
        if _EARLIER.match(line) or FORWARDED.match(line):
            return i
        header = HEADER.match(line) is not None or SUBJECT.match(line) is not None
        if header and wrote and _header_block(lines, i):
            return i
        wrote = wrote or (bool(line.strip()) and not header)
    return len(lines)


def _header_block(lines: list[str], i: int) -> bool:
    """Whether line i opens a header block: From: with Sent: or Date: and Subject: under it."""
    if not re.match(r"^\s*from\s*:", lines[i], re.IGNORECASE):
        return False
    below = lines[i + 1 : i + 5]
    dated = any(re.match(r"^\s*(sent|date)\s*:", x, re.IGNORECASE) for x in below)
    return dated and any(SUBJECT.match(x) for x in below)


def _signs_off(line: str) -> bool:
    """A short closing line: "Thanks,", "Best regards, Anna", "Many thanks!"."""
    words = re.findall(r"[a-z]+", line.lower())
    if not words or len(words) > 5 or (len(words) > 2 and line.rstrip()[-1:] not in ",!"):
        return False
    return words[0] in _SIGN_OFF or words[:2] in (["many", "thanks"], ["all", "the"])


def _closes(body: list[str], notice: re.Pattern[str]) -> list[bool]:
    """For each line, whether only a signature's paragraphs follow it: one pass each way."""
    tail = _tail(body, notice)
    out = [True] * len(body)
    following = len(body)  # the next non-blank line after i
    for i in range(len(body) - 1, -1, -1):
        out[i] = following >= tail
        if body[i].strip():
            following = i
    return out


def _tail(lines: list[str], notice: re.Pattern[str]) -> int:
    """Where the paragraphs of a signature (and notices) that end a message begin."""
    keep = len(lines)
    for start, end in reversed(runs(lines)):
        paragraph = lines[start:end]
        if not (notice.search(" ".join(paragraph)) or _signature(paragraph)):
            break
        keep = start
    return keep


def _without_signature(lines: list[str], notice: re.Pattern[str]) -> list[str]:
    """A message's lines without the paragraphs of a signature that end it."""
    return lines[: _tail(lines, notice)]


def _signature(paragraph: list[str]) -> bool:
    """A signature's paragraph: a few short lines, each a name, a role, an address or a
    number ("Raj Patel | IT Lead", "Tel 01234 567890"), no sentence."""
    return len(paragraph) <= MAX_SIGNATURE_LINES and all(map(signature_line, paragraph))


def signature_line(line: str) -> bool:
    """A line of a signature: a name, a role, an address or a number, no sentence."""
    words = line.split()
    if _TRAILER.match(line):
        return True
    if len(words) > MAX_SIGNATURE_WORDS or line.rstrip()[-1:] in ".!?:":
        return False
    if "@" in line or _WEB.search(line) or len(re.findall(r"\d", line)) >= 6:
        return True
    return all(w[:1].isupper() or not w[:1].isalpha() or w.lower() in _SMALL for w in words)


def runs(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) of each run of non-blank lines: the paragraphs."""
    runs: list[tuple[int, int]] = []
    start = None
    for i, line in enumerate([*lines, ""]):
        if line.strip() and start is None:
            start = i
        elif not line.strip() and start is not None:
            runs.append((start, i))
            start = None
    return runs
