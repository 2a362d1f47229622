"""The offline relation classifier: rules over what two statements say, weighed by a small
learned model, no LLM.

OfflineClassifier reads both statements, computes the pair's signals (pair_features: the
rules' verdict below, similarity, shared and changed names and numbers, negation, hedges,
on/off and change words, plans, periods, cue words such as confirmed / back / still /
corrected) and lets a learned model (graphmem/props/pairmodel.py: boosted trees since round
11, a multinomial logistic regression before; stored in pairmodel.json, trained by
bench/train_props_model.py on the tuning worlds) choose the label. A hedged statement never
updates or contradicts a plain one, whatever the model says; nor do statements that fill
other slots of forms (graphmem/props/forms.py: another field, another table row, or items of
one list stated the same day), nor, since round 30, the same news of two subjects
(other_subjects: "Dalven Steel said its workforce stood at 47,899" / "Stamel Telecom said its
workforce stood at 9,808"). RuleClassifier is the rules alone.

The model also weighs what each statement is about (attribute_words: its words without
names, numbers and cue words), and sees the rules' verdict checked against it (_checked): no
relation when the new one switches on or off a thing the old one never mentions, a
correction with a new figure contradicts, keeping the old figure supports. Two signals of a
change need no word list of change verbs (round 4): a role both statements give a figure in
holds a different figure in each ("24 tankers" / "18 tankers", "shipped Quillpad 3.0" /
"Quillpad 2.0 is ..."; Reading.slots), and the rules' verdict with their subject and topic
tests skipped (what they would say if the two were about the same thing), which the model
weighs against the attribute words and similarity. A statement that joins two facts ("lifts
the levy to 3%; fee held at 400") is also read by its clause closest to the other statement
(round 7: the clause_* signals), and the model weighs how long apart the two were made
(DATE_SIGNALS). Every signal comes from the pair alone, so a pair gets one label whichever
other statements it is judged with.

Each statement is read by graphmem/props/reading.py (names, anchors, former values, numbers,
periods, frame words, hedge / denial / polarity / change / future cues). A pair (new → old)
with cosine `cos` is then judged in this order:

0. contradicts, before anything else, for a plain denial restating all of a hedged claim's
   content, a retraction of the old one's study or report ("the journal withdrew the study"),
   or a correction naming the old value beside a new one ("painted by Y, not by X").
1. norel when cos < MIN_COSINE, when the two share no name (unless one names nobody and
   their content words overlap), when the names they share are not
   the subject of either (only a place in common: two firms moving to the same town), when they
   name different items of one kind (route 7, route 12), or when both are dated to periods
   that do not meet (the 2017 and 2018 sales; a schedule's year counts as a period against a
   statement that is no schedule, two schedules' dates are values; a later switch the other
   way, "reopened in 2024" / "closed in 2021", is no other period's fact).
2. A hedged new statement (a rumour, a blog, a forum post, an unnamed source, "reportedly")
   never updates or contradicts one that is not hedged: it supports it when it agrees (same
   topic, same values, same polarity), else norel.
3. The topic must match: frame words overlapping by ≥ TOPIC_FRAME (|A ∩ B| / min(|A|, |B|)),
   or the same identifier, or cos ≥ TOPIC_COSINE. Otherwise norel.
4. Different names and different numbers at once mean different subjects: norel; so do
   different holders of the attribute ("director of X" / "director of Y"). A plan ("will
   retire") never updates a fact.
5. A denial against a plain statement: contradicts when it denies the old value ("not 8
   million", "the figure of 61,000 was wrong"); a denial that also states a new value is an
   update; one that denies another value is norel; otherwise it contradicts, unless denying
   the opposite agrees with the old ("denied it will close" vs "will stay open", "has not
   resigned" vs "was elected"): supports. A plain statement after a denial: contradicts if it
   asserts what was denied, updates if the value or the polarity changed, supports if it
   agrees.
6. A changed value (each side has a name or number the other lacks, or the new one names the
   old value as former: "succeeded X", "moved from X", "moved back to X" against "moved to Y"):
   contradicts a hedged claim; a plan ("will move") does not update a fact (norel), but a new
   schedule's date updates an old one ("now expected in 2023" / "expected in 2021"); otherwise
   updates.
7. Opposite polarity (opened / closed, elected / resigned, suspended / resumed): updates, or
   contradicts a hedged claim.
8. A change verb adding a value (sold X to Y after signed X): updates.
9. Otherwise, same topic and nothing changed: supports when the new one restates the old
   one's figures, or turns the same thing the same way whatever else it says ("reopened
   with a new roof" / "reopened after repairs"); a plain statement of something else on a
   hedged claim's topic contradicts the claim.
Confidence is a prior per rule scaled by the cosine (the model's: the label's probability).
Rules, thresholds and model were developed on the tuning worlds (tests/fixtures/worlds.json
"tuning") only; bench/bench_props_quality.py reports them next to the held-back worlds and
docs/quality.md gives the figures.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from graphmem.embed import Embedder
from graphmem.errors import GraphmemError
from graphmem.props.classify import Candidate, Judgement
from graphmem.props.forms import apart
from graphmem.props.model import Proposition
from graphmem.props.pairmodel import RelationModel, load_model
from graphmem.props.reading import (
    AGAIN,
    CONFIRMS,
    CORRECTS,
    CUES,
    FAMILIES,
    OFFICES,
    REMAINS,
    STATEMENTS,
    STOP,
    TIME_UNITS,
    Reading,
    plain_noun,
    read,
    stem,
)


@dataclass(frozen=True)
class OfflineRules:
    """The thresholds of the offline classifier (see the module docstring)."""

    min_cosine: float = 0.35
    topic_frame: float = 0.5
    topic_dice: float = 0.35
    topic_cosine: float = 0.7
    support_cosine: float = 0.5


DEFAULT_RULES = OfflineRules()
STOP_WORDS = STOP | {"said", "say", "says"}
# other_subjects: how much two statements opening with different names must say alike (the
# Dice of their content words). Of the 128 worlds' 48,179 candidate pairs, 23 qualify at 0.5,
# one of them a gold update ("Owen Fitt succeeds Ellie Marchbanks as club captain" / "Rhiannon
# Bale was elected club captain"); at 0.4 25 (2), at 0.6 19 (1).
OTHER_SUBJECT_DICE = 0.5


@dataclass(frozen=True)
class _Pair:
    """Two readings with the sentence-initial words resolved against each other."""

    new: Reading
    old: Reading
    new_names: frozenset[str]
    old_names: frozenset[str]
    new_frame: frozenset[str]
    old_frame: frozenset[str]
    cosine: float


def _resolve(mine: Reading, other: Reading) -> tuple[frozenset[str], frozenset[str]]:
    """(names, frame) with the opening word an ordinary word if the other uses it as one."""
    word = mine.initial
    if not word:
        return mine.names, mine.frame
    other_names = {w for name in other.names for w in name.split()} | {other.initial}
    if word in other_names:
        return mine.names | {word}, mine.frame
    if mine.initial_speaks:
        return mine.names, mine.frame  # the speaker's word says nothing of the topic
    if stem(word) in other.frame or plain_noun(word):
        return mine.names, mine.frame | {stem(word)}
    return mine.names | {word}, mine.frame


@lru_cache(maxsize=65536)  # the same few names are compared again for every signal
def _same(a: str, b: str) -> bool:
    """One name is the other or a part of it ("Kessler" / "Ayo Kessler")."""
    wa, wb = set(a.split()), set(b.split())
    return a == b or wa <= wb or wb <= wa


@lru_cache(maxsize=65536)
def _matched(name: str, names: frozenset[str]) -> bool:
    return any(_same(name, other) for other in names)


def _ident(name: str) -> tuple[str, str] | None:
    kind, _, last = name.rpartition(" ")
    return (kind, last) if kind and last.isdigit() else None


def _idents_clash(a: frozenset[str], b: frozenset[str]) -> bool:
    """Both name an item of the same kind, and not the same item (route 7 / route 12)."""
    ia = {i for i in map(_ident, a) if i}
    ib = {i for i in map(_ident, b) if i}
    kinds = {k for k, _ in ia} & {k for k, _ in ib}
    return any({i for i in ia if i[0] == k}.isdisjoint({i for i in ib if i[0] == k}) for k in kinds)


def _overlaps(a: frozenset[str], b: frozenset[str]) -> tuple[float, float]:
    """(|A ∩ B| / min(|A|, |B|), Dice) of two frames.

    Content words decide; only when one side has none do the families count ("has no plans
    to resign" against "is the chief executive": a change of office meets an office).
    """
    if a - FAMILIES and b - FAMILIES:
        a, b = a - FAMILIES, b - FAMILIES
    elif "@office" in a and not b.isdisjoint(OFFICES):
        b = b | {"@office"}
    elif "@office" in b and not a.isdisjoint(OFFICES):
        a = a | {"@office"}
    if not a or not b:
        return 0.0, 0.0
    shared = len(a & b)
    return shared / min(len(a), len(b)), 2 * shared / (len(a) + len(b))


def _names_changed(p: _Pair) -> bool:
    """Each side holds a value the other lacks, former values set aside."""
    if _replaces(p):
        return True  # "succeeded X" / "moved from X" against "X is ..."
    new_values, old_values = _values(p.new, p.new_names), _values(p.old, p.old_names)
    new_extra = [n for n in new_values if not _matched(n, old_values)]
    old_extra = [
        n for n in old_values if not _matched(n, new_values | p.new.speakers | p.new.denied)
    ]
    return bool(new_extra) and bool(old_extra)


def _owners_differ(p: _Pair) -> bool:
    """Each names a holder of the attribute ("of X", "X's") that the other does not name."""
    new = [n for n in p.new.owners if not _matched(n, p.old_names)]
    old = [n for n in p.old.owners if not _matched(n, p.new_names)]
    return bool(new) and bool(old)


def other_subjects(new: Reading, old: Reading, cosine: float) -> bool:
    """The same news of two subjects: both open with a name, not the same one, neither names
    the other's, and their content words overlap by a Dice of OTHER_SUBJECT_DICE or more
    ("Tesdal Rovers climbed to fourteenth place" / "Velgos United climbed to tenth place";
    "Tortam's jobless rate moved to 1.7 percent" / "Holdun's jobless rate ..."). Neither
    updates nor contradicts the other, whatever the model says: a corpus of many companies,
    towns or clubs reported in the same words would otherwise supersede one subject's facts
    by another's."""
    if not new.opening or not old.opening:
        return False  # most statements: no pair to read
    p = _pair(new, old, cosine)
    mine, theirs = _opening(p.new, p.new_names), _opening(p.old, p.old_names)
    if not mine or not theirs or _same(mine, theirs) or _akin(mine, theirs):
        return False
    named_old = p.old_names | {old.initial} - {""}
    if any(_matched(name, named_old) for name in p.new_names | {new.initial} - {""}):
        return False  # a name in common: "X is the chief executive of Y" / "Z is ... of Y"
    return _overlaps(p.new_frame, p.old_frame)[1] >= OTHER_SUBJECT_DICE


def _akin(a: str, b: str) -> bool:
    """Two names of one subject, or of its versions: the same first word ("Quillpad 4.0" /
    "Quillpad 2.0") or two words in common ("Mayor Ann Bell" / "Councillor Ann Bell"); one
    word of kind in common is not enough ("Melsta Athletic" / "Orarik Athletic")."""
    wa, wb = a.split(), b.split()
    return wa[0] == wb[0] or len(set(wa) & set(wb)) >= 2


def _opening(reading: Reading, names: frozenset[str]) -> str:
    """The name a statement opens with as its subject (Reading.opening), "" if none: a lone
    opening word only where the pair reads it as a name (_resolve)."""
    if reading.opening == reading.initial and reading.initial not in names:
        return ""
    return reading.opening


def _adds(p: _Pair) -> bool:
    """The new one states a value the old one lacks (a name or a number)."""
    new_values = _values(p.new, p.new_names)
    return bool(p.new.numbers - p.old.numbers) or any(
        not _matched(n, p.old_names) for n in new_values
    )


def _replaces(p: _Pair) -> bool:
    """The new one names a value of the old one as the former one ("succeeded X")."""
    old_values = _values(p.old, p.old_names)
    return any(_matched(f, old_values) for f in p.new.former)


def _leaver_held(p: _Pair) -> bool:
    """The one leaving a post is a value of the old statement: named as the former holder
    ("succeeded X"), or the new one's subject ("X lost the election to Y" against "X was
    elected")."""
    subject = p.new.subject
    held = (
        subject and subject not in p.new.denied and _matched(subject, _values(p.old, p.old_names))
    )
    return _replaces(p) or bool(held)


def _values(reading: Reading, names: frozenset[str]) -> frozenset[str]:
    """The names a statement asserts as values: not former, not denied, not the speaker's."""
    return names - reading.former - reading.denied - reading.speakers


def _numbers_changed(p: _Pair) -> bool:
    """Each gives a figure the other does not, of one kind: quantities, or schedules' dates
    (a date to open in is no new value of a statement that gives only a price)."""
    new_when, old_when = _schedule_values(p.new), _schedule_values(p.old)
    new_rest, old_rest = p.new.numbers - new_when, p.old.numbers - old_when
    return bool(new_rest - old_rest and old_rest - new_rest) or bool(
        new_when - old_when and old_when - new_when
    )


def _schedule_values(reading: Reading) -> frozenset[str]:
    """The schedules' dates among a statement's figures ("in September 2025")."""
    return frozenset(n for n in reading.numbers if n.startswith(("in ", "before ")))


def _polarities(p: _Pair) -> tuple[int, int]:
    """Both polarities: a denial without an on/off word counts as off ("has no jets on
    order") unless it denies a number, any other statement without one as on."""
    new = p.new.polarity or _denial_polarity(p.new)
    old = p.old.polarity or _denial_polarity(p.old)
    if not new and not old:
        return 0, 0
    return new or 1, old or 1


def _denial_polarity(reading: Reading) -> int:
    return -1 if reading.denial and not reading.denied_numbers else 0


def _subject_shared(p: _Pair, rules: OfflineRules) -> bool:
    """They share a name that is not only a place in both ("moved to X" / "is based in X"),
    or one names nobody and their content words overlap ("the walk-in centre ...")."""
    if not p.new.names - p.new.speakers or not p.old.names - p.old.speakers:
        return _overlaps(p.new_frame, p.old_frame)[0] >= rules.topic_frame
    shared = {n for n in p.new_names if _matched(n, p.old_names)}
    places = p.new.places & p.old.places
    return any(not _matched(n, places) for n in shared)


def _topic(p: _Pair, rules: OfflineRules) -> bool:
    same_ident = any(_ident(n) for n in p.new_names & p.old_names)
    least, dice = _overlaps(p.new_frame, p.old_frame)
    # on/off words acting on the same thing: "the bridge reopened" / "the bridge was closed"
    same_object = (
        bool(p.new.polarity and p.old.polarity)
        and "@status" in p.new.frame
        and "@status" in p.old.frame
        and p.new.status_object == p.old.status_object
    )
    both_offices = "@office" in p.new.frame and "@office" in p.old.frame  # taking or leaving posts
    # one says nothing but names and cue words ("is about to sell X"): the names decide
    bare = not p.new_frame or not p.old_frame
    same_names = bool(p.new_names) and p.new_names == p.old_names
    return (
        (bare and same_names)
        or same_ident
        or same_object
        or both_offices
        or (least >= rules.topic_frame and dice >= rules.topic_dice)
        or p.cosine >= rules.topic_cosine
    )


def _pair(new: Reading, old: Reading, cosine: float) -> _Pair:
    new_names, new_frame = _resolve(new, old)
    old_names, old_frame = _resolve(old, new)
    return _Pair(new, old, new_names, old_names, new_frame, old_frame, cosine)


def judge_pair(
    new: Reading, old: Reading, cosine: float, rules: OfflineRules = DEFAULT_RULES
) -> tuple[str, float]:
    """The label and confidence of (new → old) under `rules`."""
    p = _pair(new, old, cosine)
    label, prior = _label(p, rules)
    if label == "norel":
        return label, _norel_confidence(cosine)
    return label, round(min(1.0, prior + 0.4 * cosine), 3)


def _norel_confidence(cosine: float) -> float:
    """How sure "no relation" is: less the more alike the two statements are."""
    return round(1.0 - 0.5 * max(cosine, 0.0), 3)


def _label(p: _Pair, rules: OfflineRules, gated: bool = True) -> tuple[str, float]:
    """The rules' label and prior; `gated=False` skips the topic test (rule 3), for the model
    to weigh against the attribute signals: what the rules would say if the two statements
    about one subject were about the same attribute of it."""
    new, old = p.new, p.old
    if _denies_claim(p, rules) or _retracts(p, rules) or _corrects(p, rules):
        return "contradicts", 0.5
    if (
        _idents_clash(p.new_names, p.old_names)
        or _other_period(p)
        or not _on_topic(p, rules, gated)
    ):
        return "norel", 0.0
    names, numbers = _names_changed(p), _numbers_changed(p)
    if names and _owners_differ(p):
        return "norel", 0.0  # the same post or figure of another holder ("director of X / Y")
    if names and numbers:
        return "norel", 0.0  # different subjects: another firm's figure, another town's tax
    if names and new.polarity < 0 and "@office" in new.frame and not _leaver_held(p):
        return "norel", 0.0  # someone else leaving says nothing new of the old holder
    changed = names or numbers
    pol_new, pol_old = _polarities(p)
    if new.hedged and not old.hedged:
        same_sense = pol_new == pol_old if pol_new else new.denial == old.denial
        agrees = same_sense and not changed and not _adds(p)
        if agrees and (_same_switch(p) or not _frame_replaced(p)):
            return "supports", 0.4
        return "norel", 0.0
    if new.denial and not old.denial:
        if new.denied_numbers & old.numbers or _refutes_speaker(new, old):
            return "contradicts", 0.55
        if changed:
            return _changed(p)
        old_values = _values(old, p.old_names)
        if new.denied_numbers or (
            new.denied
            and not any(_matched(n, old_values) for n in new.denied)
            and any(not _matched(n, p.new_names) for n in old_values)
        ):
            # denies another value than the old one states: agrees if it restates the old one
            return ("supports", 0.45) if new.numbers & old.numbers else ("norel", 0.0)
        if pol_new and pol_new == pol_old:
            return "supports", 0.45  # denying the opposite
        return "contradicts", 0.5
    if old.denial and not new.denial:
        if new.numbers & old.denied_numbers:
            return "contradicts", 0.5
        if new.trend and new.trend == old.trend and not changed:
            return "supports", 0.45  # "has shrunk" / "the claim that it is growing is false"
        if changed or (pol_new and pol_new != pol_old):
            return _changed(p)
        return ("supports", 0.45) if pol_new else ("norel", 0.0)
    if changed or (new.trend and old.trend and new.trend != old.trend):
        return _changed(p)  # a new value, or the other way ("has shrunk" / "is growing")
    if pol_new != pol_old:
        if old.hedged and not new.hedged:
            return "contradicts", 0.5
        return ("norel", 0.0) if new.future and not old.future else ("updates", 0.5)
    added = (new_names := p.new_names - p.old_names) or (new.numbers - old.numbers)
    restated = bool(old.numbers) and old.numbers <= new.numbers  # "raised it to 99" / "costs 99"
    elsewhere = p.old_frame - p.new_frame - FAMILIES  # the old one is about something else too
    if new.change and added and new_names != p.new.former and not restated and not elsewhere:
        return "updates", 0.4
    switch = _same_switch(p)
    if switch or not _frame_replaced(p):
        restates = switch or not (old.numbers - new.numbers)  # a figure left out: no support
        agrees = p.cosine >= rules.support_cosine and restates
        return ("supports", 0.4) if agrees else ("norel", 0.0)
    if old.hedged and not new.hedged:
        return "contradicts", 0.4  # a plain statement of something else on the claim's topic
    return "norel", 0.0


def _other_period(p: _Pair) -> bool:
    """Both are dated to periods, none shared ("sold 410,000 in 2018" / "300,000 in 2017"),
    unless the new one dates a later switch the other way and neither gives a figure
    ("reopened in 2024" / "closed in 2021": the state changed when it happened)."""
    new, old = p.new, p.old
    if not _periods_apart(p):
        return False
    switched = new.polarity * old.polarity < 0 and not (new.numbers or old.numbers)
    return not (switched and min(_years(new)) > max(_years(old)))


def _years(reading: Reading) -> list[int]:
    """The years a statement is dated to, as periods ("2016-17": 2016) or schedules' dates."""
    return [int(y[:4]) for y in reading.periods | reading.when]


def _periods_apart(p: _Pair) -> bool:
    """Both are dated and share no year, as a period or as a schedule's value ("reopen the
    rink in September 2024" / "winter programme 2023-24"; but "begin in June 2025" / "confirmed
    March 2025 for the first services" share one), unless both are schedules."""
    new, old = p.new, p.old
    if new.when and old.when:
        return False  # two schedules: their dates are values to compare, not periods
    years_new, years_old = new.periods | new.when, old.periods | old.when
    return bool(years_new and years_old and years_new.isdisjoint(years_old))


def _on_topic(p: _Pair, rules: OfflineRules, gated: bool) -> bool:
    return (
        p.cosine >= rules.min_cosine
        and _subject_shared(p, rules)
        and (_topic(p, rules) or not gated)
    )


def _same_switch(p: _Pair) -> bool:
    """Both turn the same thing the same way ("reopened with a new roof" / "reopened after
    repairs"): whatever else each says, the state agrees."""
    new, old = p.new, p.old
    families = new.frame & old.frame & FAMILIES
    objects = {new.status_object, old.status_object}
    return (
        new.polarity != 0
        and new.polarity == old.polarity
        and bool(families)
        and (
            "" in objects
            or len(objects) == 1
            or not objects.isdisjoint(p.new_frame | p.old_frame | p.new_names | p.old_names)
        )
    )


def _frame_replaced(p: _Pair) -> bool:
    """Each side has a content word the other lacks: a comet found, then an asteroid."""
    if p.new.denial or p.old.denial:
        return False  # two denials word what they deny differently ("no effect" / "cures")
    new, old = p.new_frame - FAMILIES, p.old_frame - FAMILIES
    return bool(new - old) and bool(old - new) and not (p.new.numbers & p.old.numbers)


def _denies_claim(p: _Pair, rules: OfflineRules) -> bool:
    """A plain denial restating all of a hedged claim's content, whatever names each uses
    ("no evidence that the mayoral election was rigged" / "a blog alleges Brady's election
    was rigged")."""
    claim = p.old_frame - FAMILIES
    return (
        p.new.denial
        and not p.new.hedged
        and p.old.hedged
        and not p.old.denial
        and len(claim) >= 2
        and claim <= p.new_frame
        and p.cosine >= rules.min_cosine
    )


_STATEMENT_STEMS = frozenset(stem(w) for w in STATEMENTS)


def _corrects(p: _Pair, rules: OfflineRules) -> bool:
    """A plain statement of a new value that denies the old one's value ("painted by Y, not
    by X" against "the work of X"): a correction, whatever words each uses for the topic."""
    old_values = _values(p.old, p.old_names)
    corrected = [n for n in p.new.denied if _matched(n, old_values) and n != p.old.subject]
    return (
        bool(corrected)
        and not p.new.hedged
        and p.cosine >= rules.min_cosine
        and _subject_shared(p, rules)
        and any(not _matched(n, p.old_names) for n in _values(p.new, p.new_names))
    )


def _retracts(p: _Pair, rules: OfflineRules) -> bool:
    """A plain denial of the old one's source ("withdrew the study") on its subject: whatever
    the study said, it is withdrawn."""
    return (
        p.new.denial
        and not p.new.hedged
        and p.cosine >= rules.min_cosine
        and not (p.old.speaker & p.new.denied_words).isdisjoint(_STATEMENT_STEMS)
        and _subject_shared(p, rules)
    )


def _refutes_speaker(new: Reading, old: Reading) -> bool:
    """The new one says the old one's source was wrong ("the ministry's figure was wrong")."""
    speaker = old.speaker - STOP_WORDS
    return bool(speaker) and not speaker.isdisjoint(new.denied_words - new.speaker)


def _changed(p: _Pair) -> tuple[str, float]:
    """A new value against an old one."""
    if p.old.hedged and not p.new.hedged:
        if any(_matched(f, p.old_names) for f in p.new.former):
            return "norel", 0.0  # the claim's value was the former one: no refutation
        return "contradicts", 0.5  # a confirmed value shows the claim false
    if p.new.future and not (p.old.future or p.old.when):
        return "norel", 0.0  # a plan does not change the current value, only a schedule's
    return "updates", 0.5


# signals repeated for the pairs the rules call norel (FEATURES' open_*)
OPEN = (
    "cosine",
    "frame_least",
    "frame_shared",
    "frame_dice",
    "attribute_overlap",
    "topic",
    "same_subject",
    "slot_changed",
    "ungated_updates",
    "ungated_supports",
    "ungated_contradicts",
    "names_shared",
    "subject_shared",
)
# the signals of one pair of statements (or of clauses: pair_features), in vector order
SIGNALS = (
    "cosine",
    "rule_updates",
    "rule_contradicts",
    "rule_supports",
    "subject_shared",
    "topic",
    "frame_least",
    "frame_dice",
    "names_changed",
    "numbers_changed",
    "numbers_shared",
    "owners_differ",
    "adds",
    "replaces",
    "former",
    "new_hedged",
    "old_hedged",
    "hedged_new_only",
    "hedged_old_only",
    "new_denial",
    "old_denial",
    "denies_old_number",
    "same_polarity",
    "opposite_polarity",
    "both_office",
    "both_status",
    "new_change",
    "new_future",
    "old_future",
    "same_trend",
    "opposite_trend",
    "periods_disjoint",
    "idents_clash",
    "same_switch",
    "frame_replaced",
    "denies_claim",
    "retracts",
    "corrects",
    "refutes_speaker",
    "frame_shared",
    "frame_new_only",
    "frame_old_only",
    "names_shared",
    "names_new_only",
    "names_old_only",
    "same_subject",
    "new_confirms",
    "new_again",
    "new_remains",
    "new_corrects",
    "old_hedged_changed",
    "old_hedged_confirmed",
    "old_hedged_denied",
    "plan_after_fact",
    "cos_rule_updates",
    "cos_rule_supports",
    "cos_rule_contradicts",
    "attribute_overlap",
    "attribute_new_only",
    "attribute_old_only",
    "object_absent",
    "corrects_figure",
    "keeps_figure",
    "slot_changed",
    "slot_kept",
    "ungated_updates",
    "ungated_contradicts",
    "ungated_supports",
    # round 6: the same signals again when the rules decide nothing (their verdict is norel),
    # so the model can weigh closeness apart where no rule knew the wording of the change
    *(f"open_{name}" for name in OPEN),
)
# how long before the new statement the old one was made: log(1 + months), within a month,
# more than three years (round 7; all 0 when a date is unknown)
DATE_SIGNALS = ("months_apart", "within_month", "years_apart")
# what the learned model weighs (graphmem/props/pairmodel.py): the statements' signals, then
# (round 7) those of their closest clauses when either joins two facts, whether one does, and
# the dates' signals
FEATURES = (*SIGNALS, *(f"clause_{name}" for name in SIGNALS), "split", *DATE_SIGNALS)


@lru_cache(maxsize=65536)  # a statement meets up to 20 newer ones
def attribute_words(reading: Reading) -> frozenset[str]:
    """What a statement says about its subject, in stems: its words without the names,
    numbers, the speaker's part, stop words and cue words (on/off, change, hedge, report)."""
    named = {w for name in reading.names for w in name.split()}
    words = reading.words - named - STOP_WORDS - CUES
    return frozenset(stem(w) for w in words if len(w) > 1 and not w[0].isdigit()) - reading.speaker


def _attribute(p: _Pair) -> tuple[float, float, float]:
    """(shared, new only, old only) attribute words as shares of the union: whether the two
    are about the same attribute of their subject ("withdrew Sunday trains" / "ordered 24
    electric trains": only "trains" in common). From the pair alone, so a pair gets the same
    signals whichever other statements it is judged with (a bulk import or one by one)."""
    new, old = attribute_words(p.new), attribute_words(p.old)
    union = len(new | old)
    if not union:
        return 0.0, 0.0, 0.0
    return len(new & old) / union, len(new - old) / union, len(old - new) / union


def _object_absent(p: _Pair) -> bool:
    """The new one switches something on or off that the old one never mentions
    ("closed the ticket office" / "has its head office in X")."""
    thing = p.new.status_object
    if not thing or thing in TIME_UNITS:
        return False  # "remains open seven days a week": how long, not what
    old_words = p.old.words | {stem(w) for w in p.old.words} | attribute_words(p.old)
    return thing not in old_words and not any(thing in name.split() for name in p.old.names)


def pair_features(
    new: Reading,
    old: Reading,
    cosine: float,
    rules: OfflineRules = DEFAULT_RULES,
    days: float | None = None,
) -> list[float]:
    """The signals of (new → old), in FEATURES order: the rules' verdict among them; `days`:
    how long before the new statement the old one was made. A statement joining two facts is
    also read by the clause closest to the other statement ("lifts the levy to 3%; fee held
    at 400" against "levy 2.5%"), with the statements' cosine: embedding clauses would cost
    a model run each and scored no better."""
    whole = _signals(new, old, cosine, rules)
    dated = _dated(days)
    if not (new.parts or old.parts):
        return [*whole, *whole, 0.0, *dated]
    return [*whole, *_signals(*_focus(new, old), cosine, rules), 1.0, *dated]


def _dated(days: float | None) -> list[float]:
    """DATE_SIGNALS of a gap in days."""
    if days is None:
        return [0.0, 0.0, 0.0]
    return [math.log1p(max(days, 0.0) / 30.0), float(days <= 31), float(days > 3 * 365)]


def _focus(new: Reading, old: Reading) -> tuple[Reading, Reading]:
    """The clause of each (the statement itself when it is one) most about the same thing."""
    pairs = [(a, b) for a in new.parts or (new,) for b in old.parts or (old,)]
    return max(pairs, key=lambda ab: _closeness(*ab))


def _closeness(a: Reading, b: Reading) -> float:
    """Shared frame words (overlap coefficient), then shared figures and names."""
    shared = len(a.frame & b.frame) / max(1, min(len(a.frame), len(b.frame)))
    return shared + 0.5 * _share_figures(a, b) + 0.3 * len(a.names & b.names)


def _share_figures(a: Reading, b: Reading) -> bool:
    """They give a figure in common, as a value or as the value replaced ("from 420 to 300"
    / "420")."""
    return bool((a.numbers | a.was) & (b.numbers | b.was))


def _signals(new: Reading, old: Reading, cosine: float, rules: OfflineRules) -> list[float]:
    """The signals of one pair, in SIGNALS order."""
    p = _pair(new, old, cosine)
    label = _checked(p, _label(p, rules)[0])
    pol_new, pol_old = _polarities(p)
    least, dice = _overlaps(p.new_frame, p.old_frame)
    names, numbers = _names_changed(p), _numbers_changed(p)
    values = (
        cosine,
        label == "updates",
        label == "contradicts",
        label == "supports",
        _subject_shared(p, rules),
        _topic(p, rules),
        least,
        dice,
        names,
        numbers,
        _share_figures(new, old),
        _owners_differ(p),
        _adds(p),
        _replaces(p),
        bool(new.former),
        new.hedged,
        old.hedged,
        new.hedged and not old.hedged,
        old.hedged and not new.hedged,
        new.denial,
        old.denial,
        bool(new.denied_numbers & old.numbers),
        bool(pol_new) and pol_new == pol_old,
        pol_new * pol_old < 0,
        "@office" in new.frame and "@office" in old.frame,
        "@status" in new.frame and "@status" in old.frame,
        new.change,
        new.future,
        old.future,
        new.trend * old.trend > 0,
        new.trend * old.trend < 0,
        _periods_apart(p),
        _idents_clash(p.new_names, p.old_names),
        _same_switch(p),
        _frame_replaced(p),
        _denies_claim(p, rules),
        _retracts(p, rules),
        _corrects(p, rules),
        _refutes_speaker(new, old),
    )
    new_content, old_content = p.new_frame - FAMILIES, p.old_frame - FAMILIES
    shared = [n for n in p.new_names if _matched(n, p.old_names)]
    changed = names or numbers
    old_claim = old.hedged and not new.hedged
    confirms = not CONFIRMS.isdisjoint(new.words)
    same_subject = bool(new.subject and old.subject) and _same(new.subject, old.subject)
    extra = (
        _count(new_content & old_content),
        _count(new_content - old_content),
        _count(old_content - new_content),
        _count(shared),
        _count(set(p.new_names) - set(shared)),
        _count([n for n in p.old_names if not _matched(n, p.new_names)]),
        same_subject,
        confirms,
        not AGAIN.isdisjoint(new.words),
        not REMAINS.isdisjoint(new.words),
        not CORRECTS.isdisjoint(new.words),
        old_claim and changed,
        old_claim and confirms,
        old_claim and new.denial,
        new.future and not old.future,
        cosine * (label == "updates"),
        cosine * (label == "supports"),
        cosine * (label == "contradicts"),
    )
    attribute = (
        *_attribute(p),
        _object_absent(p),
        _corrects_figure(p),
        _keeps_figure(p),
    )
    ungated = _checked(p, _label(p, rules, gated=False)[0])
    change = (
        *_slot_changes(new, old),
        ungated == "updates",
        ungated == "contradicts",
        ungated == "supports",
    )
    row = [float(v) for v in (*values, *extra, *attribute, *change)]
    return row + _open(row, label == "norel")


def _open(row: list[float], norel: bool) -> list[float]:
    """The OPEN signals of a row when the rules' verdict is norel, zeros otherwise."""
    return [row[_OPEN_AT[name]] if norel else 0.0 for name in OPEN]


def _slot_changes(new: Reading, old: Reading) -> tuple[bool, bool]:
    """(a role both give a figure has a different figure in each, a role keeps its figure):
    "24 tankers" after "18 tankers", "shipped Quillpad 3.0" after "Quillpad 2.0 is ...",
    whichever verb says it."""
    roles: dict[str, tuple[set[str], set[str]]] = {}
    for role, figure in new.slots:
        roles.setdefault(role, (set(), set()))[0].add(figure)
    for role, figure in old.slots:
        if role in roles:
            roles[role][1].add(figure)
    both = [(a, b) for a, b in roles.values() if a and b]
    return any(a.isdisjoint(b) for a, b in both), any(a & b for a, b in both)


def _checked(p: _Pair, label: str) -> str:
    """The rules' verdict checked against what the two are about: no relation when the new
    one switches something on or off that the old one never mentions; a correction with a
    new figure contradicts the old figure; keeping a figure the old one gave supports it.
    Only the model sees this (judge_pair, which the QA reader uses too, keeps the rules')."""
    if _object_absent(p):
        return "norel"
    if label == "updates" and _corrects_figure(p):
        return "contradicts"
    if label == "updates" and _keeps_figure(p):
        return "supports"
    return label


def _corrects_figure(p: _Pair) -> bool:
    """A plain correction stating a new figure: "corrected its figure: 84 percent" / "87"."""
    return (
        not CORRECTS.isdisjoint(p.new.words)
        and _numbers_changed(p)
        and not p.new.hedged
        and not p.new.future
    )


def _keeps_figure(p: _Pair) -> bool:
    """The new one keeps the figure the old one gave: "froze it at 155" / "rose to 155"."""
    return (
        bool(p.old.numbers)
        and p.old.numbers <= p.new.numbers
        and not REMAINS.isdisjoint(p.new.words)
    )


_OPEN_AT = {name: SIGNALS.index(name) for name in OPEN}


# an older statement's reading, its cosine to the new one and how many days before it it
# was made (None: unknown)
Older = tuple[Reading, float, float | None]


def batch_features(
    new: Reading, olders: Sequence[Older], rules: OfflineRules = DEFAULT_RULES
) -> list[list[float]]:
    """The signals of (new → each older): each pair's from the pair alone."""
    return [pair_features(new, old, cosine, rules, days) for old, cosine, days in olders]


# a new statement's reading and its candidates'
ReadPairing = tuple[Reading, list[Older]]
# new propositions with their candidates, and the new ones' embeddings where at hand
Pairings = Sequence[tuple[Proposition, Sequence[Candidate]]]
NewVectors = Sequence[np.ndarray | None] | None


def _older(new: Proposition, candidate: Candidate) -> Older:
    old = candidate.prop
    return read(old.text, old.source), candidate.similarity, days_between(new, old)


def days_between(new: Proposition, old: Proposition) -> float:
    """How many days before `new` `old` was made."""
    return (new.ts - old.ts) / 86400.0


def _count(items: Collection[object]) -> float:
    """A count on a log scale: the first shared word matters more than the fifth."""
    return math.log1p(len(items))


class RuleClassifier:
    """Rules over what two statements say (see the module docstring); deterministic."""

    name = "offline-v2"

    def __init__(self, rules: OfflineRules = DEFAULT_RULES) -> None:
        self.rules = rules
        # below this every pair is norel (rule 1): such candidates need not be read or judged
        self.min_similarity = rules.min_cosine

    def classify(self, new: Proposition, candidates: Sequence[Candidate]) -> list[Judgement]:
        """One judgement per candidate, in candidate order."""
        return self.classify_many([(new, candidates)])[0]

    def classify_many(
        self, pairings: Pairings, vectors: NewVectors = None
    ) -> list[list[Judgement]]:
        """classify() of each (new, candidates), in one go (the model runs once for all);
        `vectors`: the new propositions' embeddings, where at hand (see Classifier)."""
        read_pairings: list[ReadPairing] = [
            (read(new.text, new.source), [_older(new, c) for c in candidates])
            for new, candidates in pairings
        ]
        return [
            [
                Judgement(i, label, min(max(confidence, 0.0), 1.0))
                for i, (label, confidence) in enumerate(judged)
            ]
            for judged in self._judge_many(read_pairings, pairings, vectors)
        ]

    def _judge_many(
        self, read_pairings: list[ReadPairing], pairings: Pairings, vectors: NewVectors
    ) -> list[list[tuple[str, float]]]:
        return [
            [self._judged(new, old, cosine) for old, cosine, _ in olders]
            for new, olders in read_pairings
        ]

    def _judged(self, new: Reading, old: Reading, cosine: float) -> tuple[str, float]:
        label, confidence = judge_pair(new, old, cosine, self.rules)
        if label in ("updates", "contradicts") and other_subjects(new, old, cosine):
            return "norel", _norel_confidence(cosine)
        return label, confidence


class OfflineClassifier(RuleClassifier):
    """The rules' signals (their verdict among them) and, since round 19, a few directions of
    the two statements' embeddings (graphmem/props/pairembed.py), weighed by a model learned on
    the tuning worlds (graphmem/props/pairmodel.py); deterministic, no LLM.

    The embeddings must come from the model the relation model was fitted with: vectors
    passed in are used when `embedder` is that model (as the service's default is), and
    anything missing is embedded by `embedder`, or by `fitted` (that model) when `embedder` is
    another; `graphmem.services.offline_classifier` builds the one a service needs.
    """

    # round 19: embedding signals; round 20: refitted on 116 worlds; round 23: schedules' dates
    # and replaced figures read as such (round 20's trees); round 24: a denial stops at its
    # sentence's end, corrections of what was said in error, refitted on 124 worlds
    name = "offline-v22"

    def __init__(
        self,
        rules: OfflineRules = DEFAULT_RULES,
        model: RelationModel | None = None,
        embedder: Embedder | None = None,
        fitted: Embedder | None = None,
    ) -> None:
        super().__init__(rules)
        self.model = model or load_model()
        names = self.model.embedding.names if self.model.embedding else ()
        if self.model.features != (*FEATURES, *names):
            raise GraphmemError(
                "the relation model was trained on other signals than this version computes: "
                "refit it with bench/train_props_model.py"
            )
        fitted_with = self.model.embedding.model if self.model.embedding else None
        self.wants_vectors = fitted_with is not None and same_model(embedder, fitted_with)
        self._embedder = embedder if self.wants_vectors else fitted
        if fitted_with is not None and not same_model(self._embedder, fitted_with):
            raise GraphmemError(
                f"the relation model reads the statements' embeddings by {fitted_with}: pass "
                "that embedder (OfflineClassifier(embedder=...) or fitted=...; "
                "graphmem.services.offline_classifier builds it)"
            )

    def warm_up(self) -> None:
        """Run the model once: the first run compiles the trees' walk (seconds, or a read of
        numba's cache), which a first ingestion would otherwise wait for; and load the
        embedding model the trees were fitted with, when it is not the service's own."""
        self.model.predict(np.zeros((1, len(self.model.features))))
        if self.model.embedding is not None and not self.wants_vectors:
            self._encode(["warm up"])

    def _judge_many(
        self, read_pairings: list[ReadPairing], pairings: Pairings, vectors: NewVectors
    ) -> list[list[tuple[str, float]]]:
        out = [
            [("norel", _norel_confidence(cosine)) for _, cosine, _ in olders]
            for _, olders in read_pairings
        ]
        similar: list[tuple[int, int]] = []
        rows: list[list[float]] = []
        others: list[bool] = []  # other_subjects of each similar pair
        for p, (new, olders) in enumerate(read_pairings):
            prop, candidates = pairings[p]
            mine = [
                i
                for i, (_, cosine, _) in enumerate(olders)
                if cosine >= self.rules.min_cosine and not apart(prop, candidates[i].prop)
            ]
            rows += batch_features(new, [olders[i] for i in mine], self.rules)
            similar += [(p, i) for i in mine]
            others += [other_subjects(new, olders[i][0], olders[i][1]) for i in mine]
        if similar:  # one model run for every pair of the call
            x = np.asarray(rows)
            if self.model.embedding is not None:
                x = self.model.rows(x, *self._pair_vectors(pairings, vectors, similar))
            predicted = self.model.predict(x, np.asarray(others, dtype=bool))
            for (p, i), (label, probability) in zip(similar, predicted, strict=True):
                out[p][i] = (label, round(probability, 3))
        return out

    def _pair_vectors(
        self, pairings: Pairings, vectors: NewVectors, similar: list[tuple[int, int]]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The (newer, older) embeddings of the pairs judged: those given (when they are of
        the fitted model), the rest embedded here, each distinct text once."""
        given = self.wants_vectors
        news: list[np.ndarray | str] = []
        olds: list[np.ndarray | str] = []
        for p, i in similar:
            new, candidates = pairings[p]
            mine = vectors[p] if given and vectors is not None else None
            theirs = candidates[i].vector if given else None
            news.append(new.text if mine is None else mine)
            olds.append(candidates[i].prop.text if theirs is None else theirs)
        texts = sorted({t for t in (*news, *olds) if isinstance(t, str)})
        embedded = dict(zip(texts, self._encode(texts), strict=True)) if texts else {}

        def matrix(items: list[np.ndarray | str]) -> np.ndarray:
            return np.vstack([embedded[t] if isinstance(t, str) else t for t in items])

        return matrix(news), matrix(olds)

    def _encode(self, texts: list[str]) -> np.ndarray:
        """One text at a time: int8 vectors shift a little with the batch they are embedded in,
        and a pair's label must not depend on which other pairs share the call."""
        assert self._embedder is not None  # checked when built, for a model that reads them
        return np.vstack([self._embedder.encode_one(text) for text in texts])


def same_model(embedder: Embedder | None, fitted_with: str) -> bool:
    """Whether `embedder` makes the vectors the relation model was fitted on (its precision
    aside: int8 vectors sit at cosine ~0.99 to fp32's)."""
    return embedder is not None and _base(embedder.name) == _base(fitted_with)


def _base(name: str) -> str:
    return name.split("@", 1)[0]
