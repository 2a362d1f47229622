"""What the offline relation classifier reads from one statement: who, what, which value, cues.

A statement is split into words, numbers and clause breaks (, ; : "but", "and", and a
sentence's end: a denial never reaches past its sentence), then reduced to
- names: runs of capitalised words ("Quillon Dynamics", "Ayo Kessler"; months left out) and
  identifiers ("route 7", "Aster 400"). A lone capitalised word opening the sentence is kept
  apart as `initial`: a name or an ordinary word ("Bins are collected ...") as the other
  statement of a pair decides; `opening` is the name a statement opens with as its subject
  (a lone word only when the statement names it again or gives it as an owner: "Tortam's
  jobless rate ..."), for the classifier's test of the same news of two subjects;
- anchors: the names that say whose attribute it is (the first name, names after "of"/"for");
  owners: names after "of"/"for" and possessives; speakers: names only in the part that says
  who reports ("the ministry said");
- former: names given as the value being replaced ("succeeded X", "replacing X", "defeating
  X", "after X retired", "moved ... from X"); denied: names after a denial in its clause
  ("denied it will move to X");
- numbers: quantities, normalised ("2.4 million" → 2400000, "two" → 2) and frequencies with
  their unit ("weekly" and "every week" → "every 1 week", "once a month" → "every 1 month",
  "every 30 minutes"); `denied_numbers` are those in a clause that denies ("not 8 million");
- periods: years and seasons ("2017", "2016-17"), which are not quantities;
- frame: the other content words, stemmed, with synonyms merged (residents → population), units,
  cue words and the speaker of a report ("Glaciologists said ...", "A science blog claims
  ...") left out; "@office" stands for a change of office (elected, resigned) and "@status"
  for a change of state (opened, closed, suspended, cancelled);
- cues: `hedged` (the statement only relays a rumour, a blog, a forum post, an unnamed source,
  "reportedly"; a hedged source name counts too, while "the claim that ... is false" and
  "retracted the study claiming ..." refer to a claim without making it), `denial` (not,
  never, no, denied, false, wrong, retracted, withdrew ...), `polarity` (+1 for opened,
  reopened, resumed, elected, appointed, joined, revived; -1 for closed, suspended, cancelled,
  resigned, retired, left: the first such word, turned over when its clause is negated),
  `change` (moved, raised, cut, switched, rose, fell ...), `trend` (+1 for rose / grew /
  upgraded, -1 for fell / shrank / downgraded; "by 1.3 km" after one is a difference, not a
  value) and `future` (will, plans to).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from graphmem.props.hearsay import Words, is_hearsay
from graphmem.props.wordlist import word_set

_TOKEN = re.compile(
    r"(?P<season>\b\d{4}[-\u2013/]\d{2}\b)|(?P<num>\d+(?:[.,]\d+)*)"
    r"|(?P<word>[A-Za-z][A-Za-z']*)|(?P<brk>[;:,()]|\s[-\u2013]\s)"
)
NEGATION = word_set("not no never none nothing neither nor cannot")
DENIAL = word_set(
    """
    deny denied denies denying refute refuted refutes debunk debunked retract retracted
    retracts false untrue wrong incorrect inaccurate unfounded baseless myth hoax
    """
)
HEDGE_ADVERBS = word_set("reportedly allegedly supposedly purportedly rumoured rumored unconfirmed")
HEDGE_NOUNS = word_set(
    """
    rumour rumor rumours rumors blog blogs blogger forum forums gossip tabloid leaflet
    speculation unnamed anonymous hearsay sources unverified tweet tweeted
    """
)
HEDGE_VERBS = word_set("claims claimed claiming alleges alleged alleging")
HEDGED_SOURCES = (
    "blog",
    "forum",
    "rumo",
    "gossip",
    "tabloid",
    "leaflet",
    "unnamed",
    "anonymous",
    "social",
    "twitter",
    "reddit",
)
# "dismissed reports that ...", "rejected claims that ...": a denial, not a dismissal
DISMISS = word_set("dismiss dismissed dismisses reject rejected rejects")
DISMISSED = word_set(
    "report reports claim claims rumour rumours rumor rumors suggestion suggestions "
    "speculation allegation allegations story stories"
)
DATE_WORDS = word_set(
    "in as of by on since during at until early late mid the end start beginning spring "
    "summer autumn fall winter"
)
OFFICE_ON = word_set(
    "elect elected appoint appointed appoints named become became becomes hire hired join "
    "joined joins sign signed reinstated"
)
OFFICE_OFF = word_set(
    "resign resigns resigned retire retires retired sack sacked fire fired dismiss dismissed "
    "quit quits leave leaves leaving left depart departed ousted"
)
STATUS_ON = word_set(
    """
    open opens opened reopen reopens reopened resume resumes resumed restart restarted launch
    launched relaunch relaunched start started revive revives revived restore restored approve
    approves approved authorised authorized licensed impose imposes imposed reimpose reimposed
    introduce introduces introduced commission commissioned activate activated reactivate
    reactivated enable enabled operational
    """
)
STATUS_OFF = word_set(
    """
    close closes closed shut shuts suspend suspends suspended halt halts halted cancel cancels
    cancelled canceled scrap scraps scrapped abandon abandoned discontinue discontinued extinct
    collapse collapses collapsed
    demolish demolished lifted ended abolish abolished axed terminate terminated cease ceased
    stopped paused shelve shelved grounded decommission decommissioned mothball mothballed
    deactivate deactivated disable disabled disband disbanded dissolve dissolved
    """
)  # past forms only for words that are also common nouns (end, stop, lift, ground)
# two- and three-word on/off phrases: (words) → sign
STATUS_PHRASES = {
    ("bring", "back"): 1,
    ("brings", "back"): 1,
    ("brought", "back"): 1,
    ("in", "force"): 1,
    ("into", "force"): 1,
    ("in", "service"): 1,
    ("into", "service"): 1,
    ("in", "operation"): 1,
    ("into", "operation"): 1,
    ("out", "of", "service"): -1,
    ("out", "of", "operation"): -1,
    ("called", "off"): -1,
    ("call", "off"): -1,
    ("on", "hold"): -1,
    ("fell", "through"): -1,
    ("fall", "through"): -1,
    ("falls", "through"): -1,
}
STEP = word_set("step steps stepped stepping stand stands stood standing bow bows bowed")
# "withdrew its statement" retracts; "withdrew the drug from sale" switches something off
WITHDRAW = word_set("withdraw withdraws withdrew withdrawn")
# "lost the election to ...", "lost her seat": a departure from the office
LOSE = word_set("lose loses lost losing")
CONTESTS = word_set("election elections vote ballot seat race contest runoff re-election")
# said in error: what follows is denied ("we wrongly reported that ...", "misstated the fee")
ERRED = word_set("wrongly incorrectly mistakenly erroneously falsely misstated misreported")
# what an earlier version of a text said ("An earlier version of this article said ...")
SAID = word_set("said says stated states reported gave gives listed named described put")
EDITIONS = word_set("version versions edition editions draft")
# calling a report a rumour dismisses it ("called reports of its removal speculation")
CALLS = word_set("called calling calls branded labelled labeled described dismissed dismissing")
STATEMENTS = word_set(
    "statement statements claim claims report reports figure figures remark remarks comment "
    "comments allegation allegations announcement study studies paper papers article articles "
    "finding findings result results"
)
# adjectives whose "un-" / "in-" form negates them
ANTONYMS = {
    "unsafe": "safe",
    "unfit": "fit",
    "unable": "able",
    "unavailable": "available",
    "unprofitable": "profitable",
    "unlawful": "lawful",
    "illegal": "legal",
    "invalid": "valid",
    "inactive": "active",
    "incomplete": "complete",
    "insolvent": "solvent",
    "unstable": "stable",
    "unhealthy": "healthy",
    "unsuccessful": "successful",
    "unpaid": "paid",
    "ineligible": "eligible",
    "unsound": "sound",
}
LOCATIVE = word_set("in at to from into near towards via between and outside inside across")
TAKE = word_set("take takes took taking")
# aspect verbs say how far along something is, not what it is about
ASPECT = word_set(
    "agree agreed agrees complete completed completes finalise finalised finalize finalized "
    "finish finished begin began begun"
)
OFFICES = word_set(
    "mayor director chief ceo president chair chairman chairwoman coach manager captain "
    "minister governor leader head secretary principal editor chancellor"
)
CHANGE = word_set(
    """
    move moves moved relocate relocated transfer transferred switch switched shift shifted
    raise raises raised rise rises rose increase increased grow grew grown cut cuts drop
    dropped fall falls fell decrease decreased reduce reduced lower lowered shrink shrank
    shrunk recover recovered revise revised change changed replace replaced replacing succeed
    succeeded sold sell return returned now
    """
)
# which way a quantity went: "rose" / "fell", "is growing" / "has shrunk"
UP = word_set(
    """
    rise rises rose risen rising grow grows grew grown growing increase increases increased
    increasing expand expands expanded expanding raise raises raised climb climbs climbed gain
    gains gained boost boosted double doubled doubles jump jumped soar soared upgrade upgraded
    """
)
DOWN = word_set(
    """
    fall falls fell fallen falling drop drops dropped decrease decreases decreased decreasing
    decline declines declined declining shrink shrinks shrank shrunk shrinking cut cuts reduce
    reduces reduced lower lowered halve halved slash slashed plunge plunged sink sank downgrade
    downgraded
    """
)
# cue words the learned model weighs (offline.pair_features): the new statement confirms,
# turns something back, keeps a value, corrects a statement
CONFIRMS = word_set("confirm confirmed confirms verified proved official")
AGAIN = word_set("again back restored reinstated reopened resumed returned revived")
REMAINS = word_set("remains remain still stays stay kept keeps froze frozen unchanged")
CORRECTS = word_set(
    "corrected correction withdrew retracted error mistake revised wrongly incorrectly "
    "mistakenly erroneously misstated misreported"
)
FORMER_BEFORE = word_set(
    "succeeded succeeds succeeding replaced replaces replacing defeating defeated ousting"
)
MOVE_VERBS = word_set("move moves moved relocate relocated transfer transferred switch switched")
RETURN = word_set("return returns returned returning")  # a move when followed by "to"
REPORTING = word_set(
    """
    said say says told stated announce announced announces report reported reports according
    confirm confirmed confirms found show shows showed new latest
    """
)
SPEECH = REPORTING | HEDGE_VERBS | word_set("deny denied denies claim")
CLAUSE_START = word_set("that the a an it its he she they there this these")
WILL = word_set("will shall")
# future only before "to": "plans to build", not "revived the plan"
FUTURE = WILL | word_set(
    "plan plans planned planning intend intends expected propose proposes proposed"
)
UNITS = word_set(
    """
    pound pounds dollar dollars euro euros crown crowns yen franc francs mark marks florin
    florins shilling shillings rupee rupees peso pesos dinar dinars lira krona kronor ducat
    ducats percent cent per metre metres meter meters kilometre kilometres kilometer
    kilometers mile miles km kg tonne tonnes ton tons litre litres liter liters hectare
    hectares acre acres megawatt megawatts mw gigawatt gigawatts kilowatt kilowatts million
    millions billion billions thousand thousands hundred
    """
)
STOP = word_set(
    """
    a an the of in on at to for from by with and or but as is are was were be been being has
    have had it its this that these those there their his her they he she we i you which who
    whom whose what when where why how would can could should may might must do does did than
    then also into about after before over under since until while during per each every all
    any some more most such only very s both itself them him one ones other another again
    back still remains remain remained stays stay stayed down up because due owing despite
    although though whether if so just yet already across towards toward via between near
    outside inside within around along through beyond behind against among
    """
)
CALENDAR = word_set(
    "january february march april may june july august september october november december"
)
WEEKDAYS = word_set("monday tuesday wednesday thursday friday saturday sunday")
MONTHS = CALENDAR | WEEKDAYS
IDENT_KINDS = word_set(
    """
    route routes line lines flight flights platform gate terminal runway ward district highway
    channel stand block unit phase zone grade level division tier model series version mark
    number no
    """
)
NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "once": 1,
    "twice": 2,
    "first": "1st",
    "second": "2nd",
    "third": "3rd",
    "fourth": "4th",
    "fifth": "5th",
}
FREQUENCY = {
    "hourly": "hour",
    "daily": "day",
    "nightly": "night",
    "weekly": "week",
    "fortnightly": "fortnight",
    "monthly": "month",
    "yearly": "year",
    "annually": "year",
}
TIME_UNITS = {
    "minute": "minute",
    "minutes": "minute",
    "hour": "hour",
    "hours": "hour",
    "day": "day",
    "days": "day",
    "night": "night",
    "nights": "night",
    "week": "week",
    "weeks": "week",
    "fortnight": "fortnight",
    "month": "month",
    "months": "month",
    "year": "year",
    "years": "year",
}
SCALE = {
    "thousand": 1e3,
    "k": 1e3,
    "million": 1e6,
    "millions": 1e6,
    "m": 1e6,
    "mn": 1e6,
    "billion": 1e9,
    "billions": 1e9,
    "bn": 1e9,
}
# words for one attribute, merged to one stem
SYNONYMS = {
    "resident": "population",
    "inhabitant": "population",
    "population": "population",
    "headquarter": "place",
    "hq": "place",
    "based": "place",
    "held": "place",
    "located": "place",
    "employ": "staff",
    "employee": "staff",
    "workforce": "staff",
    "job": "staff",
    "worker": "staff",
    "researcher": "staff",
    "price": "price",
    "cost": "price",
    "fare": "price",
    "capacity": "capacity",
    "spectator": "capacity",
    "seat": "capacity",
    "sale": "sell",
    "sell": "sell",
    "sold": "sell",
    "acquir": "acquire",
    "acquisition": "acquire",
    "takeover": "acquire",
    "buy": "acquire",
    "bought": "acquire",
    "purchas": "acquire",
    "deal": "acquire",
    "fleet": "fleet",
    "aircraft": "fleet",
    "plane": "fleet",
    "vessel": "fleet",
    "ship": "fleet",
    "funding": "fund",
    "fund": "fund",
    "grant": "fund",
    "mayoral": "mayor",
    "presidential": "president",
    "ceo": "chief",
    "executive": "chief",
    "executiv": "chief",
    "manager": "coach",
    "wide": "size",
    "width": "size",
    "long": "size",
    "length": "size",
}
_SUFFIXES = ("ations", "ation", "ions", "ion", "ings", "ing", "ies", "ied", "es", "ed", "s")
CUES = (
    NEGATION
    | DENIAL
    | HEDGE_ADVERBS
    | HEDGE_NOUNS
    | HEDGE_VERBS
    | OFFICE_ON
    | OFFICE_OFF
    | STATUS_ON
    | STATUS_OFF
    | STEP
    | WITHDRAW
    | CHANGE
    | REPORTING
    | FUTURE
    | UNITS
    | ASPECT
    | frozenset(NUMBER_WORDS)
    | frozenset(FREQUENCY)
)


@dataclass(frozen=True)
class Reading:
    """The parts of one statement the relation rules compare (see the module docstring)."""

    names: frozenset[str]
    anchors: frozenset[str]
    owners: frozenset[str]  # names after "of" / "for" and possessives: who holds the attribute
    subject: str  # the first name, "" if none
    speakers: frozenset[str]  # names only in the speaker's part ("the ministry said ...")
    places: frozenset[str]  # names only after in / at / to / from ...: where, not who
    former: frozenset[str]
    denied: frozenset[str]
    numbers: frozenset[str]
    denied_numbers: frozenset[str]
    periods: frozenset[str]
    frame: frozenset[str]
    initial: str
    initial_speaks: bool  # the opening word is the speaker's ("Glaciologists said ...")
    # the name or capitalised word the statement opens with when a word of its sentence
    # follows ("Tesdal Rovers climbed ...", "Tortam's jobless rate ..."), else "" (a heading
    # such as "Fleet Change Log: ..." or "Minute 24/05. ..." opens with no subject)
    opening: str
    speaker: frozenset[str]  # words of the speaker of a report ("the ministry said ...")
    denied_words: frozenset[str]  # words of the clauses that deny
    hedged: bool
    denial: bool
    polarity: int
    status_object: str  # what an on/off word acts on: its object, or "" for the subject
    change: bool
    trend: int  # +1 for rose / grew / raised, -1 for fell / shrank / cut, 0 for neither
    future: bool
    words: frozenset[str]  # every word, lower case: cues the learned model weighs
    # (role, figure) of each figure: the content words around it ("24 tankers", "Quillpad
    # 3.0"), so two statements can be seen to give one role different figures, whatever verb
    slots: frozenset[tuple[str, str]] = frozenset()
    # the readings of its clauses when it joins two facts or more (clauses()), else ()
    parts: tuple[Reading, ...] = ()
    # the years given as a schedule's value ("expected to finish in 2023"): the value is among
    # `numbers` (or `denied_numbers`) as "in 2023", the year not among `periods`
    when: frozenset[str] = frozenset()
    # figures given as the value replaced ("raised from 2.10 to 2.40", "up from 9,500"): not
    # among `numbers`, but a sign the two statements give one figure
    was: frozenset[str] = frozenset()


@lru_cache(maxsize=65536)  # the same few thousand words come back in every statement
def stem(word: str) -> str:
    """A light stem with synonyms merged: 'residents' → 'population', 'closed' → 'clos'."""
    if word in SYNONYMS:
        return SYNONYMS[word]
    base = word
    for suffix in _SUFFIXES:
        if base.endswith(suffix) and len(base) - len(suffix) >= 3:
            base = base[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            break
    base = base[:-1] if base.endswith("e") and len(base) > 3 else base
    return SYNONYMS.get(base, base)


@dataclass
class _Token:
    kind: str  # word, num (always a number()), season, brk, code (digits of no amount)
    text: str
    lower: str
    clause: int
    sentence: bool = False  # the first token of a sentence (after . ! ? or the start)


_SENTENCE_END = re.compile(r"(?:^|[.!?])\W*$")


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    clause, end = 0, 0
    text = text.replace("\u2019", "'")
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "brk"
        raw = m.group().strip()
        lower = raw.lower()
        # only a capitalised word can open a sentence: the gap before it is read for no other
        sentence = (
            kind == "word"
            and raw[0].isupper()
            and bool(_SENTENCE_END.search(text, end if out else 0, m.start()))
        )
        end = m.end()
        if kind == "word" and lower in ("but", "and"):
            kind = "brk"  # "has not resigned and remains coach": the denial stops at "and"
        elif kind == "num" and number(raw) is None:
            kind = "code"  # "08.01.2018", "v2.3.1": digits that are no amount
        clause += kind == "brk" or sentence
        out.append(_Token(kind, raw, lower, clause, sentence))
    return out


def number(text: str) -> float | None:
    """The value of a digit run: "1,250" and "1.234.567" (two dots or more: thousands marks),
    "3.5" and "1.234" (one dot: a decimal point); None for runs that are no number
    ("08.01.2018")."""
    head, *groups = text.replace(",", "").split(".")
    if len(groups) > 1:
        if any(len(g) != 3 for g in groups):
            return None
        return float(head + "".join(groups))
    return float(text.replace(",", ""))


def _is_year(text: str) -> bool:
    return len(text) == 4 and text.isdigit() and 1800 <= int(text) <= 2200


def _count(tok: _Token) -> float | None:
    """The count a token stands for: a digit run or a small number word."""
    if tok.kind == "num" and not _is_year(tok.text):
        return number(tok.text)
    value = NUMBER_WORDS.get(tok.lower)
    return float(value) if isinstance(value, int) else None


def _frequencies(tokens: list[_Token]) -> tuple[dict[int, str], set[int]]:
    """Frequencies by the index of their first token, and every token index they use."""
    found: dict[int, str] = {}
    used: set[int] = set()
    for i, tok in enumerate(tokens):
        if tok.lower in FREQUENCY:
            found[i] = f"every 1 {FREQUENCY[tok.lower]}"
            used.add(i)
        elif tok.lower == "every":
            n = _count(tokens[i + 1]) if i + 1 < len(tokens) else None
            j = i + 2 if n is not None else i + 1
            if j < len(tokens) and tokens[j].lower in TIME_UNITS:
                found[i] = f"every {n or 1:g} {TIME_UNITS[tokens[j].lower]}"
                used.update(range(i, j + 1))
        elif tok.lower in ("a", "an", "per") and i + 1 < len(tokens):
            unit = TIME_UNITS.get(tokens[i + 1].lower)
            back = [k for k in (i - 1, i - 2) if k >= 0 and _count(tokens[k]) is not None]
            if unit and back and back[0] not in used:
                n = _count(tokens[back[0]])
                found[back[0]] = f"every 1 {unit}" if n == 1 else f"{n:g} per {unit}"
                used.update({back[0], i, i + 1})
    return found, used


def _dates(tokens: list[_Token]) -> set[int]:
    """Indices of calendar dates: days next to a month, and an opening "In March 2021," whose
    year dates the statement rather than naming a period ("sales in 2017")."""
    out = {
        i
        for i, t in enumerate(tokens)
        if t.kind == "num"
        and not _is_year(t.text)
        and any(0 <= j < len(tokens) and tokens[j].lower in MONTHS for j in (i - 1, i + 1))
    }
    first = next((i for i, t in enumerate(tokens) if t.kind == "brk"), 0)
    opening = tokens[:first]
    if (
        opening
        and all(t.lower in DATE_WORDS or t.lower in MONTHS or t.kind == "num" for t in opening)
        and any(t.kind == "num" for t in opening)
    ):
        out.update(range(first))
    return out


# a date that is the value of a schedule, not the period of a figure: the word before its
# preposition looks ahead ("expected to finish in 2023", "pushed back to 2026", "due in
# 2025", "should be open in spring 2024", "postponed until March", "will take place on 12
# October"); past forms ("opened in 2019") date an event
SCHEDULE = word_set(
    """
    finish complete open reopen launch start begin deliver close due ready done delayed
    postponed deferred slated scheduled planned slip slips slipped slipping completion
    handover delivery deadline target extended extend runs valid expire expires ends lasts
    """
)
SCHEDULE_DONE = word_set("finished completed opened reopened launched delivered built held")
UNDENIED = -1  # the clause of a value no negation reaches
DELAY_VERBS = word_set("pushed put moved brought pulled pushing putting")
SCHEDULE_TO = word_set("in on by to until till for before")
SCHEDULE_FOR = word_set("scheduled slated planned due set")
NOT_UNTIL = word_set("until till before")
PAST = word_set("was were had")  # "was open to traffic in 2019" dates an event
DETERMINERS = word_set("the its their this next our his her")
ORDINAL_ENDS = word_set("st nd rd th")
SCHEDULE_SKIP = word_set(
    "early late mid the end start beginning of spring summer autumn fall winter"
)


@dataclass(frozen=True)
class _When:
    """A date read as a schedule's value."""

    value: str  # "in September 2025", "in 2023", "in 12 October"
    not_until: bool  # "won't open till 2026" says it opens in 2026: no negation denies it
    years: tuple[int, ...]  # the token indices of its year, if it gives one
    at: tuple[int, ...]  # the token indices of its day, month and year


def _schedules(tokens: list[_Token]) -> dict[int, _When]:
    """A schedule's date after each preposition that follows a schedule's word (SCHEDULE
    above), by the preposition's index: a year, a month, a day and month, or those joined
    ("until March", "on 12 October", "in the autumn of 2021")."""
    out = {}
    for j, tok in enumerate(tokens):
        if j < 1 or tok.lower not in SCHEDULE_TO or not _scheduled(tokens, j):
            continue
        at = _date_after(tokens, j + 1)
        if at:
            years = tuple(k for k in at if _is_year(tokens[k].text))
            prefix = "before" if tok.lower == "before" else "in"
            value = _date_value(tokens, at, prefix)
            out[j] = _When(value, tok.lower in NOT_UNTIL, years, tuple(at))
    return out


def _date_value(tokens: list[_Token], at: list[int], prefix: str) -> str:
    """A date's value in one order, whatever order it was written in: "in 12 October 2025"
    for "October 12, 2025" too; weekdays left out."""
    day = [tokens[k].text for k in at if tokens[k].kind == "num" and not _is_year(tokens[k].text)]
    month = [tokens[k].lower.capitalize() for k in at if tokens[k].lower in CALENDAR]
    year = [tokens[k].text for k in at if _is_year(tokens[k].text)]
    return " ".join([prefix, *day[:1], *month[:1], *year[:1]])


def _date_after(tokens: list[_Token], k: int) -> list[int]:
    """The token indices of the day, month and year of a date starting at k (words such as
    "the end of", a season and a weekday skipped), [] if none does or its year names
    something ("the 2024 summer season")."""
    at: list[int] = []
    while k < len(tokens):
        tok = tokens[k]
        near = {t.lower for t in tokens[max(k - 1, 0) : k + 4]}  # "3rd of May"
        day = tok.kind == "num" and tok.text.isdigit() and int(tok.text) <= 31
        day = day and not near.isdisjoint(CALENDAR)  # "12 October", "October 12", "3rd of May"
        # "May" the month, not "may" the verb ("due to open in 2025 may face delays")
        month = tok.lower in CALENDAR and (tok.lower != "may" or tok.text == "May")
        comma = tok.text == "," and k + 1 < len(tokens) and _is_year(tokens[k + 1].text)
        if month or day or (tok.kind == "num" and _is_year(tok.text)):
            at.append(k)
        elif comma and at:  # "October 12, 2025"
            pass
        elif not any(tok.lower in words for words in (SCHEDULE_SKIP, ORDINAL_ENDS, WEEKDAYS)):
            break
        k += 1
    if not at:
        return []
    first = tokens[at[0] - 1].lower if at[0] else ""
    names = k < len(tokens) and tokens[k].kind == "word" and tokens[k].lower not in STOP
    if names and first in DETERMINERS and _is_year(tokens[at[-1]].text):
        return []  # "for the 2024 summer season"
    dated = any(tokens[i].lower in CALENDAR or _is_year(tokens[i].text) for i in at)
    return at if dated else []


def _scheduled(tokens: list[_Token], j: int) -> bool:
    """Whether the preposition at j follows a schedule's word: "pushed back to", "to be
    completed in", "closed until", or up to four words after one ("open to ferry traffic
    in"), not in a name ("the Veldmoor Open in 2021") nor after "was" ("was open in 2019")."""
    prep, verb = tokens[j].lower, tokens[j - 1].lower
    before = tokens[j - 2].lower if j >= 2 else ""
    if verb in ("back", "forward"):  # "pushed back to 2026", not "back in 2019"
        return before in DELAY_VERBS and prep != "in"
    if verb in SCHEDULE_DONE:  # "to be completed in 2022", not "completed in 2018"
        return before == "be"
    if verb == "place":  # "will take place on 12 October", not "first place in 2019"
        return before in TAKE
    if prep in NOT_UNTIL and verb in STATUS_OFF:
        return True  # "closed until March 2026"
    if prep == "for":  # "scheduled for 2026", not "its target for 2025"
        return verb in SCHEDULE_FOR
    for k in range(j - 1, max(j - 5, -1), -1):
        tok = tokens[k]
        if tok.kind != "word":
            return False
        if tok.lower in SCHEDULE and not (k and tok.text[0].isupper()):
            past = k and tokens[k - 1].lower in PAST and prep not in NOT_UNTIL
            return not past and not _due_to_cause(tokens, k)
    return False


def _due_to_cause(tokens: list[_Token], k: int) -> bool:
    """ "due to flooding" gives a cause; "due to open" a schedule."""
    after = [t.lower for t in tokens[k + 1 : k + 3]]
    return (
        tokens[k].lower == "due"
        and after[:1] == ["to"]
        and not (after[1:] and (after[1] in SCHEDULE or after[1] == "be"))
    )


SCALES = word_set("thousand million billion trillion percent")


def _slots(tokens: list[_Token], dates: set[int]) -> frozenset[tuple[str, str]]:
    """(role, figure) of each figure that is not a year or a date: the role is each of the
    two content words after it and the one before it, stemmed ("412 member farms" → member,
    farm; "Quillpad 3.0" → quillpad). No word list of verbs or topics: only stop words."""
    out: set[tuple[str, str]] = set()
    for i, tok in enumerate(tokens):
        if tok.kind != "num" or i in dates or _is_year(tok.text):
            continue
        figure, j = tok.text.replace(",", ""), i + 1
        if j < len(tokens) and tokens[j].lower in SCALES:
            figure, j = f"{figure} {tokens[j].lower}", j + 1
        after = [t for t in tokens[j : j + 3] if t.kind == "word" and t.lower not in STOP][:2]
        roles = [stem(t.lower) for t in after]
        if i and tokens[i - 1].kind == "word" and tokens[i - 1].lower not in STOP:
            roles.append(stem(tokens[i - 1].lower))
        out.update((role, figure) for role in roles)
    return frozenset(out)


def _speaker_end(tokens: list[_Token]) -> int:
    """The index where a report's content starts ("X said [that] ..."), else 0."""
    if tokens and tokens[0].lower == "according":
        return next((i for i, t in enumerate(tokens) if t.kind == "brk"), 0)
    for i, tok in enumerate(tokens[:-1]):
        nxt = tokens[i + 1]
        if tok.lower in SPEECH and (
            nxt.lower in CLAUSE_START or nxt.text[0].isupper() or nxt.kind == "num"
        ):
            return i + 1
    return 0


@dataclass
class _Parse:
    """The state of one pass over a statement's tokens."""

    tokens: list[_Token]
    speaker_end: int
    names: list[tuple[int, str]] = field(default_factory=list)  # (first token index, name)
    # (clause, value); the clause UNDENIED for a "not until" date no negation reaches
    numbers: list[tuple[int, str]] = field(default_factory=list)
    periods: set[str] = field(default_factory=set)
    was: set[str] = field(default_factory=set)  # figures replaced: _was
    frame: set[str] = field(default_factory=set)
    negated: dict[int, int] = field(default_factory=dict)  # clause → index of its denial
    denials: list[int] = field(default_factory=list)  # the index of every denial word
    initial: str = ""
    phrase: list[str] | None = None
    start: int = -1
    polarity: tuple[int, int] | None = None  # (sign, clause) of the first on/off word
    status_object: str = ""
    hedged: bool = False
    change: bool = False
    future: bool = False
    office: bool = False  # the first on/off word is a change of office
    trend: tuple[int, int] | None = None  # (sign, clause) of the first up/down word
    cues: set[int] = field(default_factory=set)  # indices of the later words of on/off phrases
    words: Words = field(default_factory=Words)  # the words alone, for hearsay
    word_at: dict[int, int] = field(default_factory=dict)  # token index → index in words

    def close(self) -> None:
        if self.phrase:
            if self.start == 0 and len(self.phrase) == 1:
                self.initial = self.phrase[0]
            else:
                self.names.append((self.start, " ".join(self.phrase)))
        self.phrase = None

    def extend(self, i: int, word: str) -> None:
        if self.phrase is None:
            self.phrase, self.start = [], i
        self.phrase.append(word)


# where a statement joins two facts: "lifts the levy to 3%; fee held at 400", "Board
# statement: Hale remains chair", "... while a ride still costs 2.50", ", and its data
# allowance is ...", " - "
CLAUSE_BREAK = re.compile(
    r";\s+|:\s+|,?\s+while\s+|,\s+and\s+(?=(?:its|the|their|it|he|she|they|a|an)\b)|\s+[-–—]\s+"
)


def clauses(text: str) -> tuple[str, ...]:
    """The clauses of three words or more of a statement that joins two facts or more;
    () for a statement of one."""
    parts = tuple(p.strip(" .") for p in CLAUSE_BREAK.split(text) if len(p.split()) >= 3)
    return parts if len(parts) > 1 else ()


@lru_cache(maxsize=65536)  # a statement is compared with up to 20 newer ones
def read(text: str, source: str | None = None) -> Reading:
    """The Reading of a statement (and of its source's name, for hedges)."""
    tokens = _tokens(text)
    schedules = _schedules(tokens)
    parse = _Parse(tokens, _speaker_end(tokens))
    _hearsay_words(parse)
    frequencies, used = _frequencies(tokens)
    # a schedule's date is its value (added below), not a period nor figures of its own
    used |= _dates(tokens) | {k for when in schedules.values() for k in when.at}
    for i, tok in enumerate(tokens):
        if i in frequencies:
            parse.numbers.append((tok.clause, frequencies[i]))
        if tok.kind == "word":
            _word(parse, i, tok, i in used)
        else:
            _other(parse, i, tok, i in used)
    parse.close()
    for j, when in schedules.items():  # a schedule's date is its value: "in March 2025"
        parse.numbers.append((UNDENIED if when.not_until else tokens[j].clause, when.value))
    if source and any(mark in source.lower() for mark in HEDGED_SOURCES):
        parse.hedged = True
    polarity = 0
    if parse.polarity is not None:
        sign, clause = parse.polarity
        polarity = -sign if clause in parse.negated else sign
    trend = 0
    if parse.trend is not None:
        sign, clause = parse.trend
        trend = -sign if clause in parse.negated else sign
    ordered = [name for _, name in sorted(parse.names)]
    roles = _roles(parse)
    if polarity < 0 and parse.office and ordered and ordered[0] in roles.former:
        # "X retired and handed over to Y", "X resigned and was replaced by Y": Y now holds it
        successors = set(ordered) - roles.former - roles.owners
        polarity = 1 if successors else polarity
    return Reading(
        names=frozenset(ordered),
        anchors=frozenset(ordered[:1]) | roles.anchors,
        owners=roles.owners,
        subject=ordered[0] if ordered else "",
        speakers=_speakers(parse),
        places=roles.places - roles.anchors - frozenset(ordered[:1]),
        former=roles.former,
        denied=roles.denied,
        numbers=frozenset(v for c, v in parse.numbers if c not in parse.negated),
        denied_numbers=frozenset(v for c, v in parse.numbers if c in parse.negated),
        periods=frozenset(parse.periods),
        frame=frozenset(parse.frame),
        initial=parse.initial,
        initial_speaks=parse.speaker_end > 0,
        opening=_opening(parse),
        speaker=frozenset(_plain(t) for t in tokens[: parse.speaker_end] if t.kind == "word"),
        denied_words=frozenset(
            _plain(t) for t in tokens if t.kind == "word" and t.clause in parse.negated
        ),
        hedged=parse.hedged,
        denial=bool(parse.negated),
        polarity=polarity,
        status_object=parse.status_object,
        change=parse.change,
        trend=trend,
        future=parse.future,
        words=frozenset(t.lower for t in tokens if t.kind == "word"),
        slots=_slots(tokens, used),
        parts=tuple(read(part, source) for part in clauses(text)),
        when=frozenset(tokens[k].text for when in schedules.values() for k in when.years),
        was=frozenset(parse.was),
    )


# possessives that open a statement without naming anyone ("Today's meeting ...")
NOT_OWNERS = word_set("today yesterday tomorrow tonight everyone everybody nobody someone one")


def _opening(parse: _Parse) -> str:
    """Reading.opening: the name the statement opens with as its subject, else "": a name of
    two words or more, or a lone opening word the statement names again or gives as an owner
    ("Tortam's jobless rate ..."; a lone capitalised word may be any word: "Today", "Our"),
    followed by a word of its sentence; not a heading in capitals ("NOTICE OF TOLL CHANGES"),
    nor one who reports something not its own ("Met Office forecasters said the reservoir
    ..."; "Dalven Steel said its workforce ..." is about Dalven Steel)."""
    tokens = parse.tokens
    name = next((name for pos, name in parse.names if pos == 0), "")
    if not name and parse.initial:
        first = tokens[0].text
        owner = first.endswith(("'s", "’s")) and parse.initial not in NOT_OWNERS | STOP
        named = any(n == parse.initial for _, n in parse.names)
        name = parse.initial if owner or named else ""
    width = len(name.split())
    if not name or width >= len(tokens) or all(t.text.isupper() for t in tokens[:2]):
        return ""  # none, all of it, or a heading in capitals ("VAL FERRINE. Bargain ...")
    after = tokens[width]
    if after.kind != "word" or after.sentence:
        return ""
    end = parse.speaker_end
    if end and width <= end and (end >= len(tokens) or tokens[end].lower not in ("its", "their")):
        return ""
    return name


def _speakers(parse: _Parse) -> frozenset[str]:
    """Names only in the part that says who reports ("the ministry said"); not those who
    deny or claim, who are often the subject too ("Hana Kirsch denied that she ...")."""
    end = parse.speaker_end
    if not end or parse.tokens[end - 1].lower not in REPORTING:
        return frozenset()
    return frozenset(n for pos, n in parse.names if pos + len(n.split()) <= end)


def _hearsay_words(parse: _Parse) -> None:
    """The words alone, the break that opens each clause and the capitals, for hearsay."""
    words = parse.words
    opener: str | None = ""  # the statement's start opens a clause
    for i, tok in enumerate(parse.tokens):
        if tok.kind == "brk":
            opener = tok.lower
        elif tok.kind == "word":
            n = parse.word_at[i] = len(words.text)
            if opener is not None:
                words.opens[n] = opener
            if tok.text[0].isupper():
                words.capital.add(n)
            if tok.sentence:
                words.starts.add(n)
            opener = None
            words.text.append(tok.lower.removesuffix("'s"))


def _deny(parse: _Parse, tok: _Token, i: int) -> None:
    """Word i denies: its clause is negated (from its first denial on)."""
    parse.negated.setdefault(tok.clause, i)
    parse.denials.append(i)


def _hedges(parse: _Parse, i: int, word: str, prev: str) -> bool:
    """Whether word i hedges the statement. A denial anywhere before a rumour or a claim makes
    it what is denied ("dismissed the rumours", "no truth in claims"); "apparently" or hearsay
    is the writer's hedge unless a denial comes earlier in its own sentence ("not a fan.
    Barman at the Crown reckons ..." hedges; round 15). A sentence starts at a capital after a
    full stop, so lower-case chat ("no. we are told ...") reads as one sentence."""
    if (word in HEDGE_NOUNS and prev not in ("the", "that", "this")) or (
        word in HEDGE_VERBS and prev not in ("the", "that", "study")
    ):
        return not parse.negated
    if word in HEDGE_ADVERBS or _hearsay(parse, i):
        tokens = parse.tokens
        # "not confirmed", "nothing official": the denial just before is the cue's own
        own = i - 1 if word in ("confirmed", "official") else -1
        return not any(
            not any(t.sentence for t in tokens[j + 1 : i + 1]) for j in parse.denials if j != own
        )
    return False


def _hearsay(parse: _Parse, i: int) -> bool:
    return is_hearsay(parse.words, parse.word_at[i])


def _plain(tok: _Token) -> str:
    return stem(tok.lower.removesuffix("'s"))


def _other(parse: _Parse, i: int, tok: _Token, used: bool) -> None:
    """Read a number, a season or a clause break."""
    nxt = parse.tokens[i + 1].lower if i + 1 < len(parse.tokens) else ""
    amount = nxt in SCALE or nxt in UNITS  # "fined Tessly Water 6 million florins"
    digits = tok.kind in ("num", "code")
    number_in_name = digits and parse.phrase and not _is_year(tok.text) and not amount
    if number_in_name:
        parse.extend(i, tok.text)  # "Aster 400"
    parse.close()
    if tok.kind == "season" or (tok.kind == "num" and _is_year(tok.text)):
        if not used:  # a year in an opening "In March 2021," dates the statement
            parse.periods.add(tok.text)
    elif tok.kind == "num" and not number_in_name and not used:
        prev = parse.tokens[i - 1].lower if i else ""
        if prev in IDENT_KINDS:
            parse.names.append((i - 1, f"{prev} {tok.text}"))  # "route 7"
        elif prev == "by" and parse.trend is not None:
            pass  # "has shrunk by 1.3 kilometres": a difference, not the value
        else:
            value = f"{(number(tok.text) or 0.0) * SCALE.get(nxt, 1.0):g}"
            if prev == "from" and _was(parse.tokens, i):
                parse.was.add(value)  # "raised from 2.10 to 2.40": the value it had
            else:
                parse.numbers.append((tok.clause, value))


def _was(tokens: list[_Token], i: int) -> bool:
    """Whether the figure at i, after "from", is the one replaced: a word of change comes
    before it in its clause and "to" and a figure follow ("raised the fee from 2.10 to 2.40",
    not "open from 9 to 5") or come just before ("cut it to 440 million from 470 million"),
    or "up" / "down" comes just before ("up from 9,500")."""
    before = tokens[i - 2].lower if i >= 2 else ""
    if before in ("up", "down"):
        return True
    clause = tokens[i].clause
    earlier = [t.lower for t in tokens[:i] if t.clause == clause]
    changes = any(w in UP or w in DOWN or (w in CHANGE and w != "now") for w in earlier)
    after = tokens[i + 1 : i + 5]
    to = next((k for k, t in enumerate(after) if t.lower == "to"), None)
    goes = to is not None and to + 1 < len(after) and after[to + 1].kind == "num"
    dated = i + 1 < len(tokens) and _dated(tokens[i + 1])  # "to 15 from 1 May"
    went = not dated and any(
        t.lower == "to" and tokens[k + 1].kind == "num" and t.clause == clause
        for k, t in enumerate(tokens[max(0, i - 5) : i - 1], start=max(0, i - 5))
    )
    goes = goes and all(t.clause == clause for t in after[: (to or 0) + 2])
    return changes and (goes or went)


_MONTH_HEADS = frozenset(m[:3] for m in CALENDAR)


def _dated(after: _Token) -> bool:
    """Whether the token after a figure makes it a day of a date ("1 Sept", "1st", "01/07")."""
    return (
        after.kind in ("num", "code")
        or after.lower[:3] in _MONTH_HEADS
        or after.lower in ORDINAL_ENDS
    )


def _word(parse: _Parse, i: int, tok: _Token, used: bool) -> None:
    """Read one word: cues, numbers in words, names, frame."""
    tokens = parse.tokens
    word = tok.lower.removesuffix("'s").rstrip("'")
    prev = tokens[i - 1].lower if i else ""
    nxt = tokens[i + 1].lower if i + 1 < len(tokens) else ""
    longer = word == "no" and nxt == "longer"
    after = {t.lower for t in tokens[i + 1 : i + 5]}  # "withdrew the St Aldric study"
    dismisses = (
        (word in DISMISS and not after.isdisjoint(DISMISSED))
        or (word in WITHDRAW and not after.isdisjoint(STATEMENTS))
        or word in ERRED
        or (word in SAID and _earlier_version(tokens, i))
        or (
            word in HEDGE_NOUNS
            and not CALLS.isdisjoint(t.lower for t in tokens[:i] if t.clause == tok.clause)
        )
    )
    if word in ANTONYMS:
        _deny(parse, tok, i)
        word = ANTONYMS[word]
    if (word in NEGATION and not longer) or word in DENIAL or word.endswith("n't") or dismisses:
        _deny(parse, tok, i)
    if not parse.hedged and _hedges(parse, i, word, prev):
        parse.hedged = True
    if word in NUMBER_WORDS and not used and not tok.text[0].isupper():
        parse.numbers.append((tok.clause, str(NUMBER_WORDS[word])))
    if not dismisses:
        _polarity(parse, word, nxt, tok.clause, longer, i)
    parse.change = parse.change or word in CHANGE
    if parse.trend is None and (word in UP or word in DOWN) and i >= parse.speaker_end:
        parse.trend = (1 if word in UP else -1, tok.clause)
    parse.future = (
        parse.future or word in WILL or (word in FUTURE and nxt == "to") or _is_to(tokens, i)
    )
    moves = word in MOVE_VERBS or (word in RETURN and nxt == "to")
    if moves and i >= parse.speaker_end:
        parse.frame.add("place")  # "moved to X" and "is based in X" give the same attribute
    capital = tok.text[0].isupper() and word not in MONTHS
    if capital and not (i == 0 and (word in STOP or word in CUES)):
        parse.extend(i, word)
        if tok.lower.endswith("'s"):
            parse.close()
        return
    parse.close()
    if i < parse.speaker_end or used or word in STOP or word in CUES or len(word) < 2:
        return
    if i in parse.cues:
        return
    if word in MONTHS:
        return
    parse.frame.add(stem(word))


def _is_to(tokens: list[_Token], i: int) -> bool:
    """ "is to" / "are to" before a verb: a plan ("is to step down", "are to be merged")."""
    if tokens[i].lower not in ("is", "are") or i + 2 >= len(tokens):
        return False
    to, verb = tokens[i + 1], tokens[i + 2]
    plain = verb.kind == "word" and not verb.text[0].isupper()
    return to.lower == "to" and plain and (verb.lower == "be" or verb.lower not in STOP)


def _earlier_version(tokens: list[_Token], i: int) -> bool:
    """Whether the saying word at i has an earlier version of a text for its subject ("An
    earlier version of this article said ...", "the previous edition gave ..."): a correction
    of what that version said."""
    before = [t.lower for t in tokens[max(0, i - 7) : i] if t.clause == tokens[i].clause]
    return any(
        w in EDITIONS and k and before[k - 1] in ("earlier", "previous", "original", "first")
        for k, w in enumerate(before)
    )


def _phrase(tokens: list[_Token], i: int) -> tuple[int, int]:
    """(sign, length) of an on/off phrase starting at token i ("brought back", "out of
    service"), (0, 0) if none starts there."""
    words = tuple(t.lower for t in tokens[i : i + 3])
    for n in (3, 2):
        if words[:n] in STATUS_PHRASES:
            return STATUS_PHRASES[words[:n]], n
    return 0, 0


def _polarity(parse: _Parse, word: str, nxt: str, clause: int, longer: bool, i: int) -> None:
    """Note an on/off word: its family in the frame, the first one's sign."""
    took_over = word in TAKE and nxt == "over"
    lost = word in LOSE and _contest_after(parse.tokens, i)
    phrase, span = _phrase(parse.tokens, i)
    on = word in OFFICE_ON or word in STATUS_ON or took_over or phrase > 0
    off = (
        word in OFFICE_OFF
        or lost
        or word in STATUS_OFF
        or word in WITHDRAW
        or longer
        or (word in STEP and nxt in ("down", "aside", "out"))
        or phrase < 0
    )
    if not (on or off) or nxt[:1].isdigit():  # "leaving 1,800 employees" is no departure
        return
    office = word in OFFICE_ON or word in OFFICE_OFF or word in STEP or longer or took_over or lost
    parse.cues.update(range(i, i + span))
    if lost:
        parse.cues.add(i)  # "lost" names no attribute
    if i >= parse.speaker_end:
        parse.frame.add("@office" if office else "@status")
    if parse.polarity is None:
        parse.polarity = (1 if on else -1, clause)
        parse.office = office
        if not office:
            parse.status_object = _object(parse.tokens, i + max(span - 1, 0))


def _contest_after(tokens: list[_Token], i: int) -> bool:
    """Whether a contest for an office follows word i closely ("lost the mayoral election")."""
    return any(t.lower in CONTESTS for t in tokens[i + 1 : i + 5] if t.clause == tokens[i].clause)


# words after an on/off word that start a circumstance, not an object ("reopened with a new
# roof", "was shut after a fire")
_CIRCUMSTANCE = LOCATIVE | word_set(
    "for after on by with because due following amid until as since again when while"
)


def _object(tokens: list[_Token], i: int) -> str:
    """The first content word after an on/off word, or "" when it has none ("reopened to
    traffic", "was closed for repairs": what is opened or closed is the subject)."""
    for tok in tokens[i + 1 :]:
        if tok.kind != "word" or tok.lower in _CIRCUMSTANCE:
            return ""
        if tok.lower not in STOP and tok.lower not in CUES:
            return tok.lower if tok.text[0].isupper() else stem(tok.lower)
    return ""


@dataclass(frozen=True)
class _Roles:
    """What the names of a statement stand for."""

    anchors: frozenset[str]  # after "of" / "for": whose attribute
    owners: frozenset[str]  # anchors and possessives ("Corvell Air's"): who holds the attribute
    places: frozenset[str]
    former: frozenset[str]
    denied: frozenset[str]


HAND = word_set("hand hands handed handing")


def _roles(parse: _Parse) -> _Roles:
    """The anchors, owners, places, former values and denied values among the names."""
    tokens = parse.tokens
    moves = any(t.lower in MOVE_VERBS for t in tokens)
    anchors, owners, places, former, denied = set(), set(), set(), set(), set()
    first = min(parse.names)[1] if parse.names else ""
    for pos, name in parse.names:
        back = pos - 1
        while back > 0 and tokens[back].lower in ("the", "a", "an"):
            back -= 1
        before = tokens[back].lower if back >= 0 else ""
        two = tokens[back - 1].lower if back > 0 else ""
        end = pos + len(name.split())
        after = tokens[end].lower if end < len(tokens) else ""
        replaced = before == "of" and two in ("place", "instead")  # "in place of X"
        if before in ("of", "for") and not replaced:
            anchors.add(name)
        if tokens[end - 1].lower.endswith("'s"):
            owners.add(name)
        if before in LOCATIVE:
            places.add(name)
        passive = before == "by" and any(
            t.lower in FORMER_BEFORE and t.clause == tokens[back].clause for t in tokens[:back]
        )  # "X was replaced (as chief executive) by Y"
        # "X was replaced by Y", "X handed over to Y": X is the former one
        if (
            passive
            or (before == "to" and two == "over" and back > 1 and tokens[back - 2].lower in HAND)
        ) and first:
            former.add(first)
        elif (
            before in FORMER_BEFORE
            or replaced
            or (before == "from" and (moves or two == "over"))  # "took over from X"
            or (before == "after" and (after in OFFICE_OFF or after in STATUS_OFF))
        ):
            former.add(name)
        denial_at = parse.negated.get(tokens[pos].clause)
        if denial_at is not None and pos > denial_at:
            denied.add(name)
    return _Roles(
        frozenset(anchors),
        frozenset(anchors | owners),
        frozenset(places),
        frozenset(former),
        frozenset(denied),
    )


FAMILIES = frozenset({"@office", "@status"})
_PLAIN_NOUN = ("s", "ment", "tion", "ness", "ity")


def plain_noun(word: str) -> bool:
    """Whether an opening capitalised word looks like an ordinary noun ("Residents")."""
    return word.endswith(_PLAIN_NOUN)
