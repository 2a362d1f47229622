"""What a statement states as of its date: the terms it asserts and the ones it denies.

A reader of dated statements takes "raised the fee from 5 to 7 euros" as saying that the fee
is 7 euros now, not as a relation to "the fee is 7 euros" (which the relation rules call an
update). `stated(text)` gives each content term of a statement with +1 when the statement
asserts it and -1 when it denies it or gives it as the value replaced:

- terms are stemmed content words (names included, lower case) and figures ("1.4 million" →
  1400000, "four" → 4, "thirty-eight" → 38); the speaker's part ("the ministry said", ",
  said X" after the content, "it was announced by X") is left out, and so is a figure of
  change ("fell 12% to 3,400", "up 8% on a year earlier": the level is what is stated);
- an on/off word ("opened", "closed", "resumed", "halted", "elected", "retired", "no longer",
  "in service", "is back", "back on line", "out of action", "down after", "taken out",
  "pulled the plug", "steps in", "promoted", "dropped", "again") stands as the term STATE,
  +1 for on and -1 for off; the first one in the statement gives it (a plain one before a
  noun after a determiner, "the old fire station", is no switch);
- a denial ("not", "never", "denied", "false", "wrong") acts on the terms after it in its
  clause, or those before it when it closes the clause ("the figure of 61,000 was wrong"). A
  value denied (", not 8 million", "and not by X", only names and figures) turns them all
  over; a state denied ("there is no ban in X", "did not fly to X") turns over the state (-1
  if it has no on/off word) and its figures, not what it is about (`negated` says so); a
  denial in a relative clause ("riders who do not pay") denies no state of the statement;
- values replaced are denied: names and figures after "from" in a statement of a change or a
  transfer ("from 5 to 7", "bought X from Y", "joined X from Y") or of one with no verb of
  change ("from five days to eight"), after "rather than" / "instead of", the giver of a
  passive transfer ("transferred by X to Y"), the names reading.py reads as former
  ("succeeded X", "in place of X", "took over from X"), whoever leaves an office ("X
  retired as chair": X no longer holds it), is dropped from a role ("dropped X as
  sponsor"), withdraws from it or pulls out, sells to a buyer ("X sold Y to Z") or moves
  on for a name that follows ("X moved to ..., and Y now ...");
- each figure keeps its roles, the content words around it (as `Reading.slots`; the one
  before it over a verb of being: "the levy is 3%"), so a reader can tell "19 hectares" from
  "19 staff"; a plan ("will close", in the statement's own clause, not "..., where 30 staff
  will work") is marked `future`, a forecast or an estimate ("analysts reckon") `guess`;
  `takes_effect` gives the date a change or a plan takes effect ("from 1 April", "from
  next Monday");
- notices and change logs are read as prose: an arrow ("32 -> 29", "X -> Y") and "(was
  60)" give the value replaced, "01/10/2015" is a date, "22:00" one figure, "w.e.f.",
  "approx.", "min", "hrs" their words; a heading before the first colon, a weekday and a
  defined term ("the Operator") are no names; the legal "shall" states what holds.

Used by the as-of QA reader of the benchmarks (bench/props_worlds.py, reader v2).
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from graphmem.props.reading import (
    ANTONYMS,
    CHANGE,
    CLAUSE_START,
    DENIAL,
    DISMISS,
    DISMISSED,
    DOWN,
    FUTURE,
    HAND,
    MONTHS,
    MOVE_VERBS,
    NEGATION,
    NUMBER_WORDS,
    OFFICE_OFF,
    OFFICE_ON,
    REPORTING,
    SCALE,
    STATEMENTS,
    STATUS_OFF,
    STATUS_ON,
    STATUS_PHRASES,
    STEP,
    STOP,
    UNITS,
    UP,
    WILL,
    WITHDRAW,
    _dates,
    _is_year,
    _speaker_end,
    _Token,
    _tokens,
    number,
    read,
    stem,
)
from graphmem.props.wordlist import word_set

STATE = "@state"  # the term an on/off word stands for
# verbs of a transfer: what follows "from" is where it was before
TRANSFER = word_set(
    """
    buy buys bought acquire acquires acquired purchase purchased sign signs signed poach
    poached lure lured hire hired take takes took recruit recruited transfer transferred
    """
)
# a sale: who sold no longer holds what was sold ("X sold Y to Z")
SELL = word_set("sold")  # "X sells cheese to Y" is a trade, not a sale of the business
# on/off words reading.py does not list: "promoted to head", "ditched the screenings",
# "dropped the surcharge"
_ON_MORE = word_set("promote promotes promoted allowed permitted")  # "lorries are allowed back"
_OFF_MORE = word_set("ditch ditches ditched drop drops dropped")
_BARRED = word_set("banned barred")  # "lorries are banned from the bridge": they are off it
# "taken out", "pulled out of", "pulled the plug on": off; "steps in as chair": on
_PULL = word_set("pull pulls pulled take takes took taken")
_TAKEN = word_set("pulled taken")  # "taken off the road", not "sales took off"
# "out of action", "out of use": the nouns after "out of" that make it an off state
_OUT_OF = word_set("action use order commission business operation service")
# "is down after a failure", "down since May", "down for repairs": off; "down to 51", "down
# 5%" are a trend
_DOWN_OFF = word_set("after since for until with following")
_ROLE_SKIP = STOP | NEGATION | DENIAL
_AMOUNT = UNITS | SCALE.keys()  # words of a figure ("8 million pounds")
_BE = word_set("is are was were be been")
# "closing", "reopening": the on/off words' other forms
# (not those of words that are nouns too: "the ground", "a start", "the end")
_NOUNS = frozenset(stem(w) for w in ("ground", "start", "commission", "licence", "lift", "end"))
# "fire" is a noun far more often than a verb of leaving ("fire station", "a grass fire")
_LEAVE = OFFICE_OFF - word_set("fire")
_ON_STEMS = frozenset(stem(w) for w in STATUS_ON) - _NOUNS
_OFF_STEMS = frozenset(stem(w) for w in STATUS_OFF) - _NOUNS


@dataclass(frozen=True)
class Stated:
    """The terms a statement asserts (+1) or denies (-1), and the roles of its figures."""

    terms: Mapping[str, int]
    roles: Mapping[str, frozenset[str]]  # figure → content words around it
    names: frozenset[str]  # the terms of names and figures: the values a statement gives
    future: bool  # a plan or a forecast ("will close", "plans to open"), not a state
    negated: bool  # a denial turns over what it states ("denied that X was appointed")
    left: frozenset[str] = frozenset()  # names a move is from ("X moves from S to T"): S
    guess: bool = False  # a forecast or an estimate ("analysts reckon", "a blog expects")
    titles: frozenset[str] = frozenset()  # names only as "the Operator": a defined term

    def sign(self, term: str) -> int:
        """+1 asserted, -1 denied, 0 not stated."""
        return self.terms.get(term, 0)


@lru_cache(maxsize=16384)
def stated(text: str) -> Stated:
    """The terms `text` asserts or denies (see the module docstring)."""
    text = _plain(text)
    tokens = _tokens(text)
    start, attribution = _content_start(tokens)
    dates = _dates(tokens)
    heading, conditional = _heading(tokens), _conditional(tokens)
    denied, denied_state, relative = _denied(tokens)
    # "riders who do not pay now pay 30 euros": a denial in a relative clause denies nothing
    denied, denied_state = denied - relative, denied_state - relative
    replaced, moved = _replaced(text, tokens)
    arrows = _arrowed(tokens, _arrows(text))  # "104.6 FM -> 97.2 FM": a change log's old value
    replaced |= arrows | _was(tokens) | _off(tokens)
    moved |= arrows
    terms: dict[str, int] = {}
    roles: dict[str, frozenset[str]] = {}
    names: set[str] = set()
    titles: set[str] = set()  # "the Operator", "the Premises": a defined term, no name
    named: set[str] = set()
    # "denied that it cancelled its order for 30 trains": the switch is denied, not the 30
    switches = any(_term(tokens, i, dates)[0].lstrip("-") == STATE for i in denied_state)
    switched = False  # an on/off word under a denial
    skip = 0
    for i, tok in enumerate(tokens):
        if i < start or i < skip or tok.kind == "brk" or i in attribution:
            continue
        term, span = _term(tokens, i, dates)
        skip = i + span
        if not term:
            continue
        figure = tok.kind == "num" and i not in dates and not _is_year(tok.text)
        if figure and _change_amount(tokens, i):
            continue  # "fell 12% to 3,400", "up 8% on 2023": a change, not a level
        # a denial turns over figures ("not 3") and the on/off state; names and words stay
        # what the statement is about ("there is no ban in X", "did not fly to X")
        flip = i in denied or (
            i in denied_state and (term.lstrip("-") == STATE or (figure and not switches))
        )
        sign = -1 if flip != (i in replaced) else 1
        if term.startswith("-"):  # an off word, or an antonym ("unsafe")
            term, sign = term[1:], -sign
        switched = switched or (term == STATE and i in denied_state)
        if term == STATE and i in conditional:
            continue  # "once the new bridge is open, the old one ..."
        if term == STATE:  # the first on/off word says it ("no longer opens", "is back ... shut")
            terms.setdefault(term, sign)
        else:
            terms[term] = sign if terms.get(term, sign) == sign else max(terms[term], sign)
        weekday = tok.lower in _WEEKDAY_NAMES  # "from Mon 5 November": no name
        if (tok.kind != "word" or _capital(tokens, i)) and i not in heading and not weekday:
            names.add(term)
            (titles if _title(tokens, i) else named).add(term)
        if figure:
            roles[term] = roles.get(term, frozenset()) | _roles(tokens, i)
    content = [i for i in denied_state if i >= start and tokens[i].lower not in STOP]
    if content and not switched:
        terms[STATE] = -1  # "there is no ban", "did not fly": the state denied
    negated = bool(content) or switched
    left = frozenset(_term(tokens, i, dates)[0] for i in moved) & names
    future = _future(tokens, start)
    guess = _guesses(tokens)
    titles -= named
    return Stated(terms, roles, frozenset(names), future, negated, left, guess, frozenset(titles))


# verbs of a forecast or an estimate: what follows is not yet known to be so
GUESS = word_set(
    """
    expect expects reckon reckons reckoned predict predicts predicted forecast forecasts
    estimate estimates believe believes believed understood hears speculate speculates
    """
)


def _guesses(tokens: list[_Token]) -> bool:
    """A verb of guessing that takes what follows ("analysts reckon the fee will rise", "a
    blog expects 40 staff"); not a noun or another sense ("beat analyst estimates",
    "believes in youth")."""
    for i, tok in enumerate(tokens[:-1]):
        nxt = tokens[i + 1]
        takes = nxt.lower in CLAUSE_START or nxt.kind == "num" or nxt.text[:1].isupper()
        if tok.lower in GUESS and takes:
            return True
    return False


# words that open a clause about something else than the statement's main fact: a relative
# clause ("where 30 staff will work"), a reported aside (", saying the money will go on")
_ASIDE = word_set("where which who whom whose saying adding citing")
_RELATIVE = word_set("who whom which whose")


def _content_start(tokens: list[_Token]) -> tuple[int, set[int]]:
    """Where a report's content starts ("X said that ..."; 0 when the statement is about
    who speaks: "X denied that she resigned"), and the tokens of an attribution that
    follows the content (", said Kofi Mensah, ..."): no term of the statement."""
    agents = _agents(tokens)
    start = _speaker_end(tokens)
    if not start:
        return 0, agents
    verb = start - 1
    if tokens[verb].lower not in REPORTING or _capital(tokens, verb):
        return 0, agents  # "X denied that ...", "an office in New York"
    if verb and tokens[verb - 1].lower in _DETERMINERS:
        return 0, agents  # "moved to the new Fennick campus"
    if verb and tokens[verb - 1].kind == "brk":  # "..., said X, who ...": said after it
        clause = tokens[verb].clause
        return 0, {j for j in range(verb, len(tokens)) if tokens[j].clause == clause} | agents
    return start, agents


def _title(tokens: list[_Token], i: int) -> bool:
    """A lone capitalised word after "the" ("the Operator shall ...", "the Premises"): a
    term the document defines for its subject, not a name of something else."""
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if nxt is None or nxt.kind != "word" or tokens[i].lower.endswith("'s"):
        alone = True
    else:  # a verb follows ("the Operator shall", "the Premises costs"), not a name's noun
        verb = nxt.lower in STOP | WILL or nxt.lower.endswith(("ed", "es", "ts", "ns", "ys"))
        alone = verb and not nxt.text[:1].isupper()
    return tokens[i].kind == "word" and i > 0 and tokens[i - 1].lower == "the" and alone


def _heading(tokens: list[_Token]) -> set[int]:
    """The tokens of a notice's heading, before the statement's first colon, in capitals
    but for stop words and dates ("Listener Survey May 2014: ...", "Sponsor News: ..."): the
    words of a title, not of a name (they stay terms)."""
    end = next((i for i, t in enumerate(tokens) if t.kind == "brk"), 0)
    if not end or tokens[end].text != ":":
        return set()
    words = [t for t in tokens[:end] if t.kind == "word" and t.lower not in STOP]
    if not all(t.text[:1].isupper() or t.lower in MONTHS for t in words):
        return set()
    return set(range(end))


# the participles of a passive report ("it was announced by X that", "was told by X")
_REPORTED = word_set("said stated reported announced told informed noted recorded")


def _agents(tokens: list[_Token]) -> set[int]:
    """The tokens of who reports in a passive report ("the Palm House, it was announced by
    the Heritage Agency, has been ...", "the board was informed by X that ..."): the
    speaker, not what is stated."""
    out: set[int] = set()
    for i, tok in enumerate(tokens[1:-1], 1):
        if tok.lower not in _REPORTED or tokens[i - 1].lower not in _BE:
            continue
        if tokens[i + 1].lower != "by":
            continue
        for j in range(i + 1, len(tokens)):
            if tokens[j].kind == "brk" or tokens[j].lower in ("that", "to"):
                break
            out.add(j)
    return out


def _future(tokens: list[_Token], start: int) -> bool:
    """A plan or a forecast: a future word ("will", "plans to") in the statement's own
    clauses, not in a relative clause or an aside ("opened an office, where 30 staff will
    work"; "raised the fee, saying the money will go on repairs")."""
    for i, tok in enumerate(tokens):
        nxt = tokens[i + 1].lower if i + 1 < len(tokens) else ""
        plan = tok.lower in _WILL or (tok.lower in FUTURE - _SHALL and nxt == "to")
        if i < start or not (plan or _going(tokens, i)):
            continue
        own = [t.lower for t in tokens[:i] if t.clause == tok.clause]
        if _ASIDE.isdisjoint(own):
            return True
    return False


# the legal "shall" states what holds ("the pool shall be open"): a plan only with the date
# it takes effect ("shall cease to be manager on 28 February", `takes_effect`)
_SHALL = word_set("shall")
_WILL = WILL - _SHALL


def _going(tokens: list[_Token], i: int) -> bool:
    """ "is going to be knocked down", "going to close", "due to open": a plan; not "going
    to the shops", "due to the weather", "due to repairs"."""
    if (
        tokens[i].lower not in ("going", "due")
        or i + 2 >= len(tokens)
        or tokens[i + 1].lower != "to"
    ):
        return False
    after = tokens[i + 2]
    verb = after.kind == "word" and after.text[:1].islower() and after.lower not in _DETERMINERS
    return verb and (tokens[i].lower == "going" or not after.lower.endswith(("s", "ing")))


_CALENDAR = "january february march april may june july august september october november december"
_MONTH = {m: n for n, m in enumerate(_CALENDAR.split(), 1)}
_SEASON = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
# "from 1 April", "starting in May", "with effect from ...": when a change takes effect;
# "in", "on" and "by" date a plan ("will open in spring 2018"), not a past event
_TAKES_EFFECT = word_set("from starting effective")
_PLAN_DATE = word_set("in on by")
_BEFORE_DATE = word_set("the this next early late mid")


def takes_effect(text: str, date: str = "", plans: bool = True) -> str:
    """When the change or the plan `text` states takes effect, as YYYY-MM-DD ("from 1
    April", "from March", "will open in spring 2018"), a date without a year read as the
    next one after the statement's `date`; "" when it names none (or a range: "from April
    to September"). Without a `date` (an option: "opens in spring 2018") any date with
    its year counts. `plans=False`: only the date a change is made "from" ("from next
    Monday the shop will open till eight"), not a plan's ("will open in spring")."""
    tokens = _tokens(_plain(text))
    future = plans and (stated(text).future or any(t.lower in _SHALL for t in tokens))
    for i, tok in enumerate(tokens):
        plan = (future or not date) and plans and tok.lower in _PLAN_DATE
        if tok.lower in _TAKES_EFFECT or plan:
            when = _date_at(tokens, i + 1, date)
            if when:
                return when
    return ""


_WEEKDAY_ORDER = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS = frozenset(_WEEKDAY_ORDER)
_WEEKDAY_NAMES = _WEEKDAYS | word_set("mon tue tues wed thu thur thurs fri sat sun")
_DAYS_AHEAD = {"today": 0, "tomorrow": 1}


def _soon(tokens: list[_Token], j: int, date: str) -> str:
    """A date near the statement's `date` at token j: "next Monday" / "this Sunday" (the
    next such day), "next week" (a week on), "next month" (its first day), "tomorrow"; ""
    for none, or for a `date` that is no calendar day."""
    words = [t.lower for t in tokens[j : j + 2]]
    try:
        day = dt.date.fromisoformat(date[:10])
        if words[:1] and words[0] in _DAYS_AHEAD:
            return str(day + dt.timedelta(days=_DAYS_AHEAD[words[0]]))
        if len(words) < 2 or words[0] not in ("next", "this"):
            return ""
        if words[1] in _WEEKDAYS:
            ahead = (_WEEKDAY_ORDER.index(words[1]) - day.weekday()) % 7 or 7
            return str(day + dt.timedelta(days=ahead))
        if words == ["next", "week"]:
            return str(day + dt.timedelta(days=7))
        if words == ["next", "month"]:
            return str((day.replace(day=1) + dt.timedelta(days=32)).replace(day=1))
    except (ValueError, OverflowError):  # no calendar day, or none after 9999-12-31
        return ""
    return ""


def _date_at(tokens: list[_Token], j: int, date: str) -> str:
    """The date that starts at token j ("1 April", "this October", "spring 2018", "next
    Monday" after `date`), or ""."""
    soon = _soon(tokens, j, date)
    if soon:
        return soon
    while j < len(tokens) and tokens[j].lower in _BEFORE_DATE:
        j += 1
    day = 1
    if j + 1 < len(tokens) and tokens[j].text.isdigit() and tokens[j + 1].lower in _MONTH:
        day, j = int(tokens[j].text), j + 1
        if not 1 <= day <= 31:
            return ""
    if j >= len(tokens) or (tokens[j].lower == "may" and tokens[j].text != "May"):
        return ""  # "may" as a verb
    if tokens[j].text == "May" and j + 1 < len(tokens) and tokens[j + 1].text[:1].isupper():
        return ""  # "from May Bank": a name
    month = _MONTH.get(tokens[j].lower) or _SEASON.get(tokens[j].lower)
    after = tokens[j + 1] if j + 1 < len(tokens) else None
    if not month or (after is not None and after.lower in ("to", "until")):
        return ""
    if after is not None and _is_year(after.text):
        year = int(after.text)
    elif len(date) >= 10:
        year = int(date[:4]) + ((month, day) < (int(date[5:7]), int(date[8:10])))
    else:
        return ""
    return f"{year:04d}-{month:02d}-{day:02d}"  # compared as text: "31 February" may stand


_TENS_WORDS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_TENS_VALUES = {word: 10 * (i + 2) for i, word in enumerate(_TENS_WORDS)}
_TENS = "|".join(_TENS_VALUES)
_HYPHENATED = re.compile(
    rf"\b({_TENS})-(one|two|three|four|five|six|seven|eight|nine)\b", re.IGNORECASE
)


# "not-for-profit", "no-fly": a negation joined to a word makes an adjective, not a denial
_NEGATED_COMPOUND = re.compile(r"\b(?:not|no|non)(?:-[A-Za-z]+)+", re.IGNORECASE)
# a sentence's end before a capital ("... FM. Pls retune"), not an abbreviation ("Dr. Vo")
_SENTENCE_END = re.compile(r"(?:(?<=[a-z]{3})|(?<=[A-Z]{2})|(?<=\d\d))\.\s+(?=[A-Z])")
# a change log's arrow: "8 min -> 10 min", "Rowan Quay → Exley"
_ARROW = re.compile(r"\s*(?:->|\u2192|=>)\s*")


# a notice's abbreviations of units and of "about" ("8 min", "11 yrs", "approx. 60")
_ABBREVIATIONS = {"min": "minutes", "mins": "minutes", "hr": "hours", "hrs": "hours"}
_ABBREVIATIONS |= {"yr": "years", "yrs": "years", "approx": "about", "approx.": "about"}
_ABBREVIATIONS |= {"w.e.f.": "with effect from"}
_ABBREVIATED = re.compile(r"(\bapprox\.|\bw\.e\.f\.|\b(?:mins?|hrs?|yrs?|approx)\b)", re.IGNORECASE)
# "01/10/2015", "05.06.2017", "15/02/21": a date, day first
_NUMERIC_DATE = re.compile(r"\b(\d{1,2})([/.])(\d{1,2})\2(\d{4}|\d{2})\b")


# a time of day, "22:00", read as one figure ("22.00": 22), midnight as 00:00
_TIME = re.compile(r"\b(\d{1,2}):(\d{2})\b")
_MIDNIGHT = re.compile(r"\bmidnight\b", re.IGNORECASE)


def _spelled_date(m: re.Match[str]) -> str:
    """ "01/10/2015" → "1 October 2015" (a date as the rest of the reading knows one)."""
    day, month, year = int(m[1]), int(m[3]), m[4]
    if m[2] == "." and len(year) < 4:
        return m[0]  # "2.3.10": a version, not 2 March 2010
    full = int(year if len(year) == 4 else "20" + year)
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(max(full, 1), month)[1]):
        return m[0]  # "31/02/2020": no day
    return f"{day} {_CALENDAR.split()[month - 1].title()} {full}"


def _plain(text: str) -> str:
    """The text as stated() reads it: compound numbers in digits, negated compounds in one
    word, sentences ended as clauses, arrows set off by spaces."""
    text = _HYPHENATED.sub(_compound, text)
    text = _ABBREVIATED.sub(lambda m: _ABBREVIATIONS[m[1].lower()], text)
    text = _NUMERIC_DATE.sub(_spelled_date, text)
    text = _TIME.sub(r"\1.\2", _MIDNIGHT.sub("00:00", text))
    text = _NEGATED_COMPOUND.sub(lambda m: m[0].replace("-", ""), text)
    return _ARROW.sub(" -> ", _SENTENCE_END.sub("; ", text))


def _arrows(text: str) -> list[int]:
    """The token index right after each arrow of `text` (an arrow makes no token, and the
    text between two arrows is tokenised once)."""
    out, start, count = [], 0, 0
    for m in _ARROW.finditer(text):
        count += len(_tokens(text[start : m.start()]))
        out.append(count)
        start = m.end()
    return out


def _arrowed(tokens: list[_Token], arrows: list[int]) -> set[int]:
    """The tokens of the value before each arrow ("32 -> 29", "Drivetime Helen Marsh ->
    Dougie Rees"): names and figures back from the arrow in its clause, over the words the
    new value repeats ("8 min -> 10 min"), no more of them than the new value has (at least
    two: "Rowan Quay -> Exley")."""
    out: set[int] = set()
    for k, a in enumerate(arrows):
        if not 0 < a < len(tokens):
            continue
        before = {t.lower for t in tokens[max(a - 3, 0) : a]}
        new: list[_Token] = []
        for tok in tokens[a : arrows[k + 1] if k + 1 < len(arrows) else len(tokens)]:
            value = _is_value(tok) or tok.kind == "code"
            if tok.kind == "brk" or not (value or tok.lower in before):
                break
            new.append(tok)
        # the value replaced is of the new value's kind: "Fleet 32 -> 29" replaces 32, not
        # the fleet; "Rowan Quay -> Exley" a name (not a sentence's capitalised first word)
        figures = any(_is_figure(new, j) or t.kind == "code" for j, t in enumerate(new))
        same = {t.lower for t in new}
        taken = 0
        for j in range(a - 1, -1, -1):
            tok = tokens[j]
            if tok.kind == "brk" or tok.clause != tokens[a].clause or taken >= max(len(new), 2):
                break
            taken += 1
            if tok.lower in same:
                continue  # the unit or the name both sides share
            figure = _is_figure(tokens, j) or tok.kind == "code"
            kind = figure if figures else _capital(tokens, j)
            if not kind:
                break
            out.add(j)
    return out


# "(was approx. 60)", "(formerly X)": a parenthesis that gives the value before
_FORMER = word_set("was were formerly previously")


def _was(tokens: list[_Token]) -> set[int]:
    """The values of a parenthesis that opens with "was" or "formerly"."""
    out: set[int] = set()
    for i, tok in enumerate(tokens[:-1]):
        if tok.text != "(" or tokens[i + 1].lower not in _FORMER:
            continue
        for j in range(i + 2, len(tokens)):
            if tokens[j].kind == "brk":
                break
            if _is_value(tokens[j]):
                out.add(j)
    return out


def _compound(m: re.Match[str]) -> str:
    """ "thirty-eight" → "38"."""
    tens, units = _TENS_VALUES[m[1].lower()], NUMBER_WORDS.get(m[2].lower())
    return str(tens + units) if isinstance(units, int) else m[0]


_TREND = UP | DOWN | word_set("up down")
_PERCENT = word_set("percent per cent points point")


def _change_amount(tokens: list[_Token], i: int) -> bool:
    """A figure that gives a change's size, not a level: after a word of rising or falling
    ("fell 12% to 3,400 t", "up by 25% to 5 pounds", "up 8% on a year earlier"), with the
    level given after it ("to") or the base it is measured on ("on", "over", "from")."""
    before = [t.lower for t in tokens[max(i - 2, 0) : i]]
    by_trend = len(before) == 2 and before[1] == "by" and before[0] in _TREND
    if not before or not (before[-1] in _TREND or by_trend):  # "fell 12%", "fell by 12%"
        return False
    rest = [t for t in tokens[i + 1 :] if t.clause == tokens[i].clause]
    rest = [t for t in rest if t.lower not in _PERCENT]
    if rest and rest[0].lower in ("on", "over", "from"):
        return True
    return any(
        t.lower == "to" and j + 1 < len(rest) and rest[j + 1].kind == "num"
        for j, t in enumerate(rest)
    )


def _term(tokens: list[_Token], i: int, dates: set[int]) -> tuple[str, int]:
    """The term at token i ("" if none; a leading "-" for an off word) and the tokens it
    spans."""
    tok = tokens[i]
    nxt = tokens[i + 1].lower if i + 1 < len(tokens) else ""
    if tok.kind in ("num", "season"):
        return _figure(tok, nxt, i in dates), 1
    word = tok.lower.removesuffix("'s").rstrip("'")
    state = _state(tokens, i, word, dates)
    if state is not None:
        return state
    if word in ANTONYMS:
        return "-" + stem(ANTONYMS[word]), 1
    if word in NUMBER_WORDS and isinstance(NUMBER_WORDS[word], int) and word != "one":
        return str(NUMBER_WORDS[word]), 1
    if word == "one":  # "one elephant" is a count, "one of" is not
        return ("1", 1) if nxt not in ("of", "") else ("", 1)
    if word in STOP or word in NEGATION or word in DENIAL or len(word) < 2 or word in SCALE:
        return "", 1
    return stem(word), 1


def _state(tokens: list[_Token], i: int, word: str, dates: set[int]) -> tuple[str, int] | None:
    """The on/off state term at token i ("-" leading for off) and the tokens it spans, or None
    when the word there says no state."""
    nxt = tokens[i + 1].lower if i + 1 < len(tokens) else ""
    words = tuple(t.lower for t in tokens[i : i + 3])
    for n in (3, 2):
        if words[:n] in STATUS_PHRASES:
            return ("" if STATUS_PHRASES[words[:n]] > 0 else "-") + STATE, n
    if word == "no" and nxt == "longer":
        return "-" + STATE, 2 + (_term(tokens, i + 2, dates)[0] == STATE)  # "no longer opens"
    if word in STEP and nxt in ("down", "aside", "out"):
        return "-" + STATE, 2
    if word in STEP and nxt == "in":
        return STATE, 2  # "steps in as chair"
    if word in _PULL and words[1:3] == ("the", "plug"):
        return "-" + STATE, 3  # "pulled the plug on"
    if _pulled_out(tokens, i):
        return "-" + STATE, 2  # "has been taken out", "pulled out of", not "took out a loan"
    if _modifier(tokens, i):
        return None  # "the old fire station", "an open day": a noun's modifier, no switch
    if word == "out" and nxt == "of" and words[2:] and words[2] in _OUT_OF:
        return "-" + STATE, 3  # "out of action", "out of use"
    if word in OFFICE_ON or word in STATUS_ON or stem(word) in _ON_STEMS or word in _ON_MORE:
        return STATE, 1
    if word in _LEAVE or word in STATUS_OFF or stem(word) in _OFF_STEMS:
        return "-" + STATE, 1
    if word in _BARRED:
        return "-" + STATE, 1
    if word in _TAKEN and nxt == "off":
        return "-" + STATE, 2  # "taken off the road", "pulled off air"
    if word == "off" and _bare_off(tokens, i):
        return "-" + STATE, 1  # "off air", "the closure is off"; "off DAB": DAB replaced
    phrasal = "off" in words[1:3]  # "drops them off": delivers
    if (
        word in _OFF_MORE
        and nxt not in ("to", "by", "from")
        and not nxt[:1].isdigit()
        and not phrasal
    ):
        return "-" + STATE, 1  # "dropped the surcharge", not "dropped to 40"
    ends = not nxt or tokens[i + 1].kind == "brk"  # "knocked down, the Agency says"
    if word == "down" and (nxt in _DOWN_OFF or ends) and i and tokens[i - 1].kind == "word":
        return "-" + STATE, 1  # "plant down after a failure"
    back = word == "back" and (tokens[i - 1].lower in _BE or nxt in ("on", "in", "online"))
    if back or word == "again":
        return STATE, 1  # "is back in the shops", "plant back on line", "is lending again"
    if word in WITHDRAW and {t.lower for t in tokens[i + 1 : i + 5]}.isdisjoint(STATEMENTS):
        return "-" + STATE, 1
    return None


_STAY = word_set("stay stays stayed keep keeps kept")  # "have to stay off the bridge"


def _bare_off(tokens: list[_Token], i: int) -> bool:
    """ "off" after a verb of being or opening a clause ("is off", "off air", ": off DAB"),
    not a phrasal verb's ("took off", "drops them off")."""
    prev = tokens[i - 1] if i else None
    return prev is None or prev.kind == "brk" or prev.lower in _BE | _STAY


def _off(tokens: list[_Token]) -> set[int]:
    """The name after a bare "off" ("off DAB", "is off Channel 4"): no longer on it."""
    out: set[int] = set()
    for i, tok in enumerate(tokens[:-1]):
        if tok.lower != "off" or not _bare_off(tokens, i):
            continue
        for j in range(i + 1, len(tokens)):
            if not _name_word(tokens[j]):
                break
            out.add(j)
    return out


def _pulled_out(tokens: list[_Token], i: int) -> bool:
    """ "taken out", "pulled out of": taken away, not "took out a loan" (an object follows)."""
    if tokens[i].lower not in _PULL or i + 1 >= len(tokens) or tokens[i + 1].lower != "out":
        return False
    after = tokens[i + 2] if i + 2 < len(tokens) else None
    return (
        after is None
        or after.kind == "brk"
        or after.lower == "of"
        or (after.lower in STOP and after.lower not in _DETERMINERS)
    )


_DETERMINERS = word_set("the a an its their his her our")


def _modifier(tokens: list[_Token], i: int) -> bool:
    """A plain on/off word used before a noun after a determiner ("the old fire station",
    "an open day"), not as a verb or a state."""
    word = tokens[i].lower
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if word.endswith(("ed", "s", "ing")) or nxt is None or nxt.kind != "word":
        return False
    if nxt.lower in STOP or nxt.text[:1].isupper():
        return False
    for tok in reversed(tokens[max(i - 2, 0) : i]):
        if tok.lower in _DETERMINERS:
            return True
        if tok.kind != "word" or tok.text[:1].isupper() or tok.lower in STOP:
            return False
    return False


def _figure(tok: _Token, nxt: str, date: bool) -> str:
    """A figure's term: its value with its scale ("1.4 million" → 1400000); a date's day or a
    year as written."""
    if date or tok.kind == "season" or _is_year(tok.text):
        return tok.text
    value = (number(tok.text) or 0.0) * SCALE.get(nxt, 1.0)
    return f"{value:g}" if value < 1e6 else f"{value:.0f}"


def _roles(tokens: list[_Token], i: int) -> frozenset[str]:
    """The content words around a figure: the two after it and the one before it."""
    after = [t for t in tokens[i + 1 : i + 4] if t.kind == "word" and t.lower not in _ROLE_SKIP]
    out = {stem(t.lower) for t in after[:2] if t.lower not in SCALE}
    for j in range(i - 1, max(i - 3, -1), -1):  # over a verb of being ("the levy is 3%")
        tok = tokens[j]
        if tok.kind != "word" or tok.clause != tokens[i].clause:
            break
        if tok.lower not in _ROLE_SKIP:
            out.add(stem(tok.lower))
            break
        if tok.lower not in _BE:
            break
    return frozenset(out)


def _is_denial(tokens: list[_Token], i: int) -> bool:
    word = tokens[i].lower
    nxt = tokens[i + 1].lower if i + 1 < len(tokens) else ""
    if word == "no" and nxt == "longer":
        return False  # an off word (STATE), not a denial of what follows
    after = {t.lower for t in tokens[i + 1 : i + 5]}
    return (
        word in NEGATION
        or word in DENIAL
        or word.endswith("n't")
        or (word in DISMISS and not after.isdisjoint(DISMISSED))
    )


_UNTIL = word_set("until till")
_SUBORDINATE = word_set("since because although though whereas")
# a clause of a condition: "once the new bridge is open, ...", "if the pool closes, ..."
_CONDITION = word_set("if once unless")


def _conditional(tokens: list[_Token]) -> set[int]:
    """The tokens of a clause that opens with a condition: its on/off words state nothing."""
    opening: dict[int, str] = {}
    for t in tokens:
        if t.kind == "word":
            opening.setdefault(t.clause, t.lower)
    return {i for i, t in enumerate(tokens) if opening.get(t.clause) in _CONDITION}


_SAYING = REPORTING | _REPORTED | DENIAL | GUESS | STATEMENTS


def _relative(tokens: list[_Token], j: int) -> bool:
    """A relative pronoun at token j ("riders who", "a roof that doesn't leak"; not "said
    that")."""
    if tokens[j].lower in _RELATIVE:
        return True
    prev = tokens[j - 1] if j else None
    if tokens[j].lower != "that" or prev is None or prev.kind != "word":
        return False
    return prev.lower not in _SAYING | STOP and not prev.lower.endswith("ed")


def _denied(tokens: list[_Token]) -> tuple[set[int], set[int], set[int]]:
    """Indices of the tokens a denial turns over: after it in its clause, or before it when
    nothing of its clause follows it ("the figure of 61,000 was wrong"). Two kinds: a value
    denied (", not 8 million", "and not by X", "not X": only names and figures, or a clause
    that opens with "not"), whose every term is turned over; and a state denied ("there is
    no ban in X", "did not fly to X"), where only figures and the on/off state are. Third,
    the tokens of a denial in a relative clause ("listeners who do not pay can use ...",
    "of which no other is known"): they turn over only what they say, not the statement's
    state."""
    values: set[int] = set()
    states: set[int] = set()
    relative: set[int] = set()
    for i, tok in enumerate(tokens):
        if tok.kind != "word" or not _is_denial(tokens, i):
            continue
        clause = [j for j, t in enumerate(tokens) if t.clause == tok.clause and t.kind != "brk"]
        later = [j for j in clause if j > i]
        cut = next((n for n, j in enumerate(later) if tokens[j].lower in _SUBORDINATE), None)
        later = later[:cut]  # "no sponsor since X ended its deal": the denial stops there
        if any(tokens[j].lower in _UNTIL for j in later):
            continue  # "won't open until the spring": a date put back, no denial
        content = [j for j in later if tokens[j].lower not in STOP]
        span = later if content else [j for j in clause if j < i]
        words = [j for j in span if tokens[j].kind == "word" and tokens[j].lower not in STOP]
        plain = [j for j in words if not _capital(tokens, j) and tokens[j].lower not in _AMOUNT]
        opens = clause[0] == i and tok.lower in NEGATION and tok.lower != "no"
        (values if opens or not plain else states).update(span)
        if any(
            _relative(tokens, j) and tokens[j].clause == tok.clause for j in range(max(i - 3, 0), i)
        ):
            relative.update(span)
    return values, states, relative


def _replaced(text: str, tokens: list[_Token]) -> tuple[set[int], set[int]]:
    """Indices of the tokens that give a value replaced: after "from" in a change or a
    transfer, the names read as former, whoever leaves an office; and of those after
    "from" in a move (where the mover was)."""
    out: set[int] = set()
    words = {t.lower for t in tokens}
    changes = not words.isdisjoint(CHANGE | MOVE_VERBS | TRANSFER)
    moves = not words.isdisjoint(MOVE_VERBS)
    for i, tok in enumerate(tokens):
        out.update(j for j in _instead(tokens, i) if _is_value(tokens[j]))
        if tok.lower != "from":
            continue
        span = []
        for j in range(i + 1, len(tokens)):
            if tokens[j].kind == "brk" or tokens[j].lower == "to":
                break
            span.append(j)
        if span and _when(tokens, span[0]):
            continue  # "From Monday the shop closes at 5": when, not the value before
        if changes or _elided(tokens, span):
            out.update(j for j in span if _is_value(tokens[j]))
    moved = set(out) if moves else set()
    former = read(text).former | _leaving(tokens) | _dropped(tokens)
    for name in former:
        out.update(_positions(tokens, name))
    return out, moved


def _when(tokens: list[_Token], j: int) -> bool:
    """A time opens at token j: a weekday, a month, "next", "today", a day before a month."""
    word = tokens[j].lower
    if word in _WEEKDAYS or word in MONTHS or word in _DAYS_AHEAD or word in ("next", "this"):
        return True
    nxt = tokens[j + 1].lower if j + 1 < len(tokens) else ""
    return tokens[j].text.isdigit() and nxt in MONTHS


def _capital(tokens: list[_Token], i: int) -> bool:
    """A word of a name: capitalised, and not only because it opens the sentence."""
    if not tokens[i].text[:1].isupper() or tokens[i].lower in MONTHS:
        return False
    return i > 0 or (len(tokens) > 1 and tokens[1].text[:1].isupper())


def _is_value(tok: _Token) -> bool:
    """A name's word or a figure (what a "from" can give as the value before)."""
    return (
        tok.kind == "num"
        or (tok.text[:1].isupper() and tok.lower not in MONTHS)
        or isinstance(NUMBER_WORDS.get(tok.lower), int)
    )


def _is_figure(tokens: list[_Token], j: int) -> bool:
    return j < len(tokens) and (
        tokens[j].kind == "num" or isinstance(NUMBER_WORDS.get(tokens[j].lower), int)
    )


def _elided(tokens: list[_Token], span: list[int]) -> bool:
    """A change with no verb of change: "from five days to eight", "from 5 to 7 euros" (one
    figure's unit left out), not a range ("from 11 am to 3 pm", "from 9 to 5")."""
    if not span or not _is_figure(tokens, span[0]):
        return False
    to = span[-1] + 1
    if to >= len(tokens) or tokens[to].lower != "to" or not _is_figure(tokens, to + 1):
        return False
    return (len(span) > 1) != _unit_after(tokens, to + 1)


def _unit_after(tokens: list[_Token], j: int) -> bool:
    nxt = tokens[j + 1] if j + 1 < len(tokens) else None
    return nxt is not None and nxt.kind == "word" and nxt.lower not in STOP


# "close at 5 pm rather than 6 pm", "265,000 instead of 310,000": the value after is replaced
_INSTEAD = {"than": "rather", "of": "instead"}


def _instead(tokens: list[_Token], i: int) -> list[int]:
    """The tokens after "rather than", "instead of", or after the agent's "by" of a passive
    transfer ("were transferred by X to Y"), up to the clause's end or "to": a value
    replaced."""
    word = tokens[i].lower
    prev = tokens[i - 1].lower if i else ""
    passive = word == "by" and prev in TRANSFER | SELL | HAND | MOVE_VERBS
    if _INSTEAD.get(word) != prev and not passive:
        return []
    span = []
    for j in range(i + 1, len(tokens)):
        if tokens[j].kind == "brk" or tokens[j].lower == "to":
            break
        span.append(j)
    if passive and (len(span) + i + 1 >= len(tokens) or tokens[i + 1 + len(span)].lower != "to"):
        return []  # "was bought by X": X holds it now
    return span


def _denied_before(tokens: list[_Token], before: list[int]) -> bool:
    """A denial among the tokens `before` a verb ("has not stepped down", "did not drop X")."""
    return any(tokens[j].kind == "word" and _is_denial(tokens, j) for j in before)


def _name_word(tok: _Token) -> bool:
    """A word of a name: capitalised, not a month."""
    return tok.kind == "word" and tok.text[:1].isupper() and tok.lower not in MONTHS


def _leaving(tokens: list[_Token]) -> set[str]:
    """Names before an office-off word in its clause, when it is not denied ("X retired as
    chair", "X stood down")."""
    out: set[str] = set()
    for i, tok in enumerate(tokens):
        nxt = tokens[i + 1].lower if i + 1 < len(tokens) else ""
        leaves = (
            tok.lower in _LEAVE
            or tok.lower in HAND  # "X handed the role to Y"
            or (tok.lower in SELL and _buyer(tokens, i))  # "X sold Y to Z", not "sold 900 copies"
            or (tok.lower in STEP and nxt in ("down", "aside"))
            or (tok.lower in MOVE_VERBS and (_followed(tokens, i) or nxt == "on"))  # "moves on"
            or (tok.lower in WITHDRAW and nxt == "from")  # "X withdrew from the jury"
            or (stem(tok.lower) in _OFF_STEMS and nxt in ("to", "as"))  # "X ceased to be chair"
            or _pulled_out(tokens, i)  # "X pulled out of the race"
        )
        if not leaves or nxt[:1].isdigit():
            continue
        before = [j for j in range(i) if tokens[j].clause == tok.clause]
        if _denied_before(tokens, before):
            continue
        run: list[str] = []
        for j in reversed(before):  # the name nearest before it: who leaves
            t = tokens[j]
            if _name_word(t):
                run.insert(0, t.lower.removesuffix("'s"))
            elif run or (t.lower not in STOP and not _headed(tokens, j)):
                break
        if run:
            out.add(" ".join(run))
    return out


_OFF_VERBS = (
    STATUS_OFF | _OFF_MORE | word_set("sack sacked fire fired dismiss dismissed oust ousted")
) - word_set("extinct")


def _dropped(tokens: list[_Token]) -> set[str]:
    """Names a verb switches off in a role, when it is not denied ("has dropped X as
    sponsor", "sacked X as manager"): X no longer holds the role."""
    out: set[str] = set()
    for i, tok in enumerate(tokens):
        if tok.lower not in _OFF_VERBS or not tok.text[:1].islower():
            continue
        before = [j for j in range(i) if tokens[j].clause == tok.clause]
        if _denied_before(tokens, before):
            continue
        run: list[str] = []
        for j in range(i + 1, len(tokens)):
            t = tokens[j]
            if _name_word(t):
                run.append(t.lower.removesuffix("'s"))
            elif run or t.lower not in _DETERMINERS:
                role = j + 1 < len(tokens) and tokens[j + 1].lower not in _DETERMINERS
                if run and t.lower == "as" and role:  # "as sponsor", not "as a precaution"
                    out.add(" ".join(run))
                break
    return out


def _buyer(tokens: list[_Token], i: int) -> bool:
    """A sale at token i names whom it was sold to ("sold Y, its paper, to Z"); "sold an
    average of 900 copies" is trade."""
    return any(t.lower == "to" for t in tokens[i + 1 :]) and not _is_figure(tokens, i + 1)


def _headed(tokens: list[_Token], j: int) -> bool:
    """A plain noun after a name's word, the head of the name's phrase ("the Ashgrove
    family", "the Orrin estate")."""
    return j > 1 and tokens[j].kind == "word" and _capital(tokens, j - 1)


def _followed(tokens: list[_Token], i: int) -> bool:
    """A move at token i whose mover another name follows in a later clause, with no "from"
    after it in its own ("X moved to the parks team, and Y now looks after it"): the
    mover leaves what the later name takes over."""
    later = [t for t in tokens[i + 1 :] if t.clause != tokens[i].clause]
    own = [t for t in tokens[i + 1 :] if t.clause == tokens[i].clause]
    return all(t.lower != "from" for t in own) and any(_name_word(t) for t in later)


def _positions(tokens: list[_Token], name: str) -> list[int]:
    """Indices of the tokens of every occurrence of a (lower-case) name."""
    parts = name.split()
    n = len(parts)
    out: list[int] = []
    for i in range(len(tokens) - n + 1):
        if [t.lower.removesuffix("'s") for t in tokens[i : i + n]] == parts:
            out.extend(range(i, i + n))
    return out
