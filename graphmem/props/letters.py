"""Greetings and sign-offs of the messages a page holds: tickets, letters, forum posts.

mail.py reads a document that is a message (headers, an attribution, an earlier message's
marker). A helpdesk ticket's export, a scanned letter or a forum thread is not one, yet each
of its messages may open with "Hi Ruth," and close with "Kind regards, / Leon / Support |
help.example.com": no statements, and stored they pass for facts ("Thanks Ruth"). Only a
page that shows a message (a greeting line ending in a comma, or one and a closing line
below it) is read so, and only the unmistakable forms are left out, since a page's lines
are otherwise its facts ("Hello Fresh raised prices", "Best Overall", "Thank you" above a
list of funders):

- a line that is only a greeting ("Hi Ruth,", "Dear Sir or Madam,", "Hello"), or a greeting
  opening a line ("Hi Ruth, thanks for letting me know ..." keeps what follows it);
- a closing line ("Thanks", "Kind regards,", "Hope that helps, Megan", "Yours faithfully,")
  when only a signature follows it before the message ends: the end of the document, a rule,
  a "-- Dev Kapoor, 2 Jun 2023 --" line, a heading or a line that dates the next message;
- a name alone ("Ruth") after a message's last sentence, where the message ends.
"""

from __future__ import annotations

import re

from graphmem.props import mail

_GREETING_LINE = re.compile(
    r"^\s*(?:(?i:hi|hello|hey|dear|good (?:morning|afternoon|evening))\b[^.!?,:;]{0,40}[,!]"
    r"|(?i:hi|hello|hey)\s*(?:[A-Z][\w'-]*\s*){0,2}|(?i:dear)(?:\s+\S+){1,4})\s*$"
)
# "Hi Ruth, thanks for ...": the greeting and a name at most, then a comma or a dash
_GREETING_OPENS = re.compile(
    r"^(\s*)(?i:hi|hello|hey|dear)(?:\s+(?:all|everyone|team|there|[A-Z][\w'-]*)){0,3}"
    r"\s*(?:,|\s[-\u2013\u2014])\s+(?=\S)"
)
_CLOSING = re.compile(
    r"^\s*(?i:many thanks|thanks(?: again| so much| in advance)?|thank you(?: (?:so|very) much)?"
    r"|cheers|best(?: wishes| regards)?|kind regards|warm regards|regards|all the best"
    r"|(?:yours )?(?:sincerely|faithfully|truly)|hope (?:this|that) helps|speak soon|take care"
    r"|ta)\b[\s.!]*(?:,\s*(?:[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,2})?)?[\s.!]*$"
)  # a name only after a comma: "Thanks, Megan", not "Best Overall" or "Take Care Pharmacy"
# where the next message of a thread starts: a rule, "-- Dev Kapoor, 2 Jun 2023 07:55 --",
# a Markdown heading, or a short line that dates it ("Leon Marsh - 6 Mar 2023, 10:17")
_RULE = re.compile(r"^\s*([-=*_~])(\s*\1){2,}\s*$|^\s*--\s.*\s--\s*$|^\s*#{1,6}\s")
# a time or a year: "Sat 16 Mar - Bag pack" is a list's item, not a message's header
_DATED = re.compile(r"\b\d{1,2}:\d{2}\b|\b(19|20)\d\d\b")
MAX_DATED_WORDS = 12
MAX_NAME_LINES, MAX_NAME_WORDS = 2, 3


def without_greetings(lines: list[str], message: bool = False) -> list[str]:
    """The lines without their messages' greetings and sign-offs (the module docstring):
    in a message, or in a page that shows one (_shows_messages)."""
    if not (message or _shows_messages(lines)):
        return lines  # "Hello Fresh ...", "Best Overall", "Dear Evan Hansen": a page's own
    out: list[str] = []
    skip_to = -1
    for i, line in enumerate(lines):
        if i >= skip_to:
            end = _signed_to(lines, i) if _CLOSING.match(line) else _name_signs(lines, i)
            skip_to = end if end is not None else skip_to
        greeting = _GREETING_LINE.match(line) is not None and _text_follows(lines, i)
        opens = i == 0 or not lines[i - 1].strip()  # a greeting opens a paragraph
        kept = _GREETING_OPENS.sub(r"\1", line, count=1) if opens else line
        # a blank, not nothing: the line above must not be read as underlined
        out.append("" if i < skip_to or greeting else kept)
    return out


def _shows_messages(lines: list[str]) -> bool:
    """Whether a page holds a message: a greeting line ending in a comma ("Hi Tom,", "Dear
    Sir or Madam,"), or one without ("Dear Mr Brannock") and a closing line below it."""
    greeted = False
    for i, line in enumerate(lines):
        if _GREETING_LINE.match(line) is not None and _text_follows(lines, i):
            if line.rstrip().endswith((",", "!")):
                return True
            greeted = True
        if greeted and _CLOSING.match(line):
            return True
    return False


def _text_follows(lines: list[str], i: int) -> bool:
    """A greeting opens a message: text follows it (at most one blank line between)."""
    after = [x for x in lines[i + 1 : i + 3] if x.strip()]
    return bool(after) and not _message_starts(after[0])


def _signed_to(lines: list[str], i: int) -> int | None:
    """Where the message a closing line at i ends, if only a signature follows the line
    (None if anything else does: "Thanks to the volunteers" and a list is no sign-off)."""
    signature = 0
    for j in range(i + 1, len(lines)):
        line = lines[j]
        if _message_starts(line):
            return j
        if not line.strip():
            continue
        signature += 1
        if signature > mail.MAX_SIGNATURE_LINES or not mail.signature_line(line):
            return None
    return len(lines)


def _name_signs(lines: list[str], i: int) -> int | None:
    """Where the message ends if a paragraph of a name alone starts at line i ("Ruth", "J.
    Halloran (Mr)") and closes it: text ending a sentence above it, its end below it."""
    if i == 0 or not lines[i].strip() or lines[i - 1].strip():
        return None
    above = _nearest(lines, i - 1, -1).rstrip()
    if not above or above[-1] not in ".!?)":
        return None
    end = i
    while end < len(lines) and lines[end].strip():
        line = lines[end]
        if end - i >= MAX_NAME_LINES or not _name_line(line):
            return None
        end += 1
    after = _nearest(lines, end, 1)
    return end if not after or _message_starts(after) else None


def _nearest(lines: list[str], i: int, step: int) -> str:
    """The first non-blank line from i on, going by `step` ("" if none)."""
    while 0 <= i < len(lines) and not lines[i].strip():
        i += step
    return lines[i] if 0 <= i < len(lines) else ""


def _name_line(line: str) -> bool:
    """A signature's name ("Ruth", "J. Halloran (Mr)"): no field ("Status: Resolved"), no
    figure, no heading in capitals ("DATES")."""
    words = line.split()
    plain = ":" not in line and not any(c.isdigit() for c in line) and not line.isupper()
    short = 0 < len(words) <= MAX_NAME_WORDS
    return short and plain and line.lstrip()[:1].isalpha() and mail.signature_line(line)


def _message_starts(line: str) -> bool:
    """A line that starts the next message of a thread (see the module docstring)."""
    if _RULE.match(line):
        return True
    words = line.split()
    return (
        0 < len(words) <= MAX_DATED_WORDS
        and (line.lstrip()[:1].isalpha() or line.lstrip()[:1] == "[")
        and _DATED.search(line) is not None
        and line.rstrip()[-1:] not in ".!?,;"
    )
