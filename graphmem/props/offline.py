"""The offline relation classifier: cosine similarity plus lexical cues, no LLM.

Each statement is reduced to
- names: runs of capitalised words, e.g. "quillon dynamic", "idris okonjo" (a single
  capitalised word opening the sentence counts as a name only if the other side agrees);
- numbers: numeric tokens without thousands separators (2,050 → 2050), years included;
- frame: the other content words, lower-cased and lightly stemmed (price, chief, elect);
- negated: a negation or refutation cue (not, never, no evidence, denied, false, myth, ...);
- claimed: a claim or hedge cue (rumour, claimed, alleged, reportedly, ...). A claim is not a
  denial: "A rumour claims that X" asserts X, however weakly, so a later "Y denied X"
  contradicts it (an earlier version counted rumour as negation, so the claim and its denial
  both looked negated and the pair came out as `supports`);
- changing: a change verb (moved, raised, rose, fell, replaced, succeeded, revised, ...).

A pair (new → old) with cosine `cos` is labelled by the first rule that fires:
1. norel if cos < MIN_COSINE or the two share no name (different subjects).
2. contradicts if exactly one side is negated, cos ≥ CONTRADICT_COSINE and their frames
   overlap by ≥ CONTRADICT_FRAME (the denied claim and the claim are about the same thing).
   A denial of a claimed (hedged) statement is the clearest case and gets a higher confidence.
3. updates if the values differ, i.e. each side has a name or number the other lacks (or the
   new side is `changing` and adds a value), and either the frames overlap by ≥ UPDATE_FRAME
   or cos ≥ UPDATE_COSINE (the same attribute phrased differently).
4. supports if cos ≥ SUPPORT_COSINE, no value differs and the frames overlap by ≥ SUPPORT_FRAME
   or share a number; when exactly one side is a claim, its whole frame must be shared.
5. norel otherwise.
Frame overlap is |A ∩ B| / min(|A|, |B|) (1.0 when one frame is empty and names are shared).
Confidence is a fixed prior per rule scaled by the cosine, so stronger matches rank higher.
The thresholds are tuned on tests/fixtures/props_world.json; bench/bench_props_quality.py
reports precision and recall per label against its gold labels.

Known blind spots: it cannot tell a subject from a value, so two statements sharing one name
and differing in another look like an update ("A moved to Port Kelvary" vs "B is based in Port
Kelvary"), as does "A succeeded B as chief" restating "A is chief"; state changes without a
changed value ("the ferry was suspended") are missed; negations are matched by cue words only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from graphmem.props.classify import Candidate, Judgement
from graphmem.props.model import Proposition


@dataclass(frozen=True)
class OfflineRules:
    """The thresholds of the offline classifier (see the module docstring)."""

    min_cosine: float = 0.45
    contradict_cosine: float = 0.6
    contradict_frame: float = 0.5
    update_frame: float = 0.5
    update_cosine: float = 0.7
    support_cosine: float = 0.7
    support_frame: float = 0.5


DEFAULT_RULES = OfflineRules()


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*|\d[\d,.]*\d|\d")
_NEGATION = _words(
    """
    not no never none nothing neither nor false untrue incorrect denied deny denies refuted
    refute refutes debunked myth hoax unfounded wrong n't cannot
    """
)
# claim and hedge words: the statement asserts something, unconfirmed; never a denial
_CLAIM = _words(
    """
    rumour rumor rumours rumors rumoured rumored claim claims claimed alleged allegedly allege
    alleges reportedly speculation speculated unconfirmed supposedly
    """
)
_CHANGE = _words(
    """
    moved move moves raised raises rose rise rises fell fall falls dropped increased decreased
    cut replaced replaces succeeded succeeds revised revises changed changes became becomes now
    new renamed resumed suspended closed reopened appointed
    """
)
_STOP = _words(
    """
    a an the of in on at to for from by with and or but as is are was were be been being has
    have had it its this that these those there their his her they he she we i you which who
    whom whose what when where why how will would can could should may might must shall do does
    did than then also into about after before over under since until while during per each
    every all any some more most such only very said says according s
    """
)
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "s")


@dataclass(frozen=True)
class _Features:
    names: frozenset[str]
    numbers: frozenset[str]
    years: frozenset[str]
    frame: frozenset[str]
    initial: str  # the first word when capitalised only because it opens the sentence
    negated: bool
    changing: bool
    claimed: bool = False


@lru_cache(maxsize=65536)  # the same few thousand words come back in every statement
def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            break
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


@lru_cache(maxsize=65536)  # a statement is judged against up to 20 newer ones
def features(text: str) -> _Features:
    """The names, numbers, frame words and cues of a statement."""
    names: set[str] = set()
    numbers: set[str] = set()
    frame: set[str] = set()
    initial = ""
    negated = changing = claimed = False
    phrase: list[str] = []  # stems of the capitalised words in a row
    phrase_start = -1
    last_end = -1

    def close() -> None:
        nonlocal initial
        if phrase and phrase_start == 0 and len(phrase) == 1:
            initial = phrase[0]  # one capitalised opening word: name or not, decided later
        elif phrase:
            names.add(" ".join(phrase))
        phrase.clear()

    for i, match in enumerate(_TOKEN.finditer(text)):
        token = match.group()
        if text[last_end : match.start()] != " ":
            close()  # punctuation or more than a space breaks a name
        last_end = match.end()
        if token[0].isdigit():
            close()
            numbers.add(token.replace(",", "").rstrip("."))
            continue
        lower = token.lower().replace("\u2019", "'").rstrip("'")
        base = lower.removesuffix("'s")
        if lower in _NEGATION or lower.endswith("n't"):
            negated = True
        if base in _CHANGE:
            changing = True
        if base in _CLAIM:
            claimed = True
        if base in _STOP or base in _NEGATION or base in _CLAIM or len(base) < 2:
            close()
            continue
        if token[0].isupper():
            if not phrase:
                phrase_start = i
            phrase.append(_stem(base))
        else:
            close()
            frame.add(_stem(base))
    close()
    years = frozenset(n for n in numbers if len(n) == 4 and n.isdigit() and 1800 <= int(n) <= 2200)
    words = frozenset(names), frozenset(numbers), years, frozenset(frame), initial
    return _Features(*words, negated, changing, claimed)


def _resolved(mine: _Features, other: _Features) -> tuple[frozenset[str], frozenset[str]]:
    """(names, frame) with a sentence-initial word counted as the other side counts it."""
    if not mine.initial:
        return mine.names, mine.frame
    if mine.initial in other.frame and mine.initial not in other.names:
        return mine.names, mine.frame | {mine.initial}
    return mine.names | {mine.initial}, mine.frame


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 1.0
    return len(a & b) / min(len(a), len(b))


def _replaced(new: frozenset[str], old: frozenset[str]) -> bool:
    """Each side has a value of this kind the other lacks: one value stands for another."""
    return bool(new - old) and bool(old - new)


def judge_pair(
    new: _Features, old: _Features, cosine: float, rules: OfflineRules = DEFAULT_RULES
) -> tuple[str, float]:
    """The label and confidence of (new → old) under `rules`."""
    if cosine < rules.min_cosine:
        return "norel", round(1.0 - 0.5 * max(cosine, 0.0), 3)
    new_names, new_frame = _resolved(new, old)
    old_names, old_frame = _resolved(old, new)
    if not (new_names & old_names):
        return "norel", round(1.0 - 0.5 * max(cosine, 0.0), 3)
    if new.years and old.years and not (new.years & old.years):
        return "norel", 0.6  # about different periods: neither replaces the other
    frame = _overlap(new_frame, old_frame)
    differ = (
        _replaced(new_names, old_names)
        or _replaced(new.numbers, old.numbers)
        or (new.changing and bool((new_names | new.numbers) - (old_names | old.numbers)))
    )
    if new.negated != old.negated:
        if not differ and cosine >= rules.contradict_cosine and frame >= rules.contradict_frame:
            denied_claim = (new.claimed and old.negated) or (old.claimed and new.negated)
            return "contradicts", round(0.6 * cosine + (0.3 if denied_claim else 0.2), 3)
        return "norel", round(1.0 - 0.5 * cosine, 3)
    if differ and (frame >= rules.update_frame or cosine >= rules.update_cosine):
        return "updates", round(0.6 * cosine + 0.2, 3)
    shared_number = bool(new.numbers & old.numbers)
    # confirming a claim takes the whole claim: "X said the site stays open" shares only
    # "site" with "a rumour claims the site will close", which is no confirmation
    support_frame = 1.0 if new.claimed != old.claimed else rules.support_frame
    if not differ and cosine >= rules.support_cosine and (frame >= support_frame or shared_number):
        return "supports", round(0.5 * cosine + 0.2, 3)
    return "norel", round(1.0 - 0.5 * cosine, 3)


class OfflineClassifier:
    """Cosine similarity plus lexical cues (see the module docstring); deterministic."""

    name = "offline-v1"

    def __init__(self, rules: OfflineRules = DEFAULT_RULES) -> None:
        self.rules = rules
        # below this every pair is norel (rule 1): such candidates need not be read or judged
        self.min_similarity = rules.min_cosine

    def classify(self, new: Proposition, candidates: Sequence[Candidate]) -> list[Judgement]:
        """One judgement per candidate, in candidate order."""
        mine = features(new.text)
        out = []
        for i, candidate in enumerate(candidates):
            label, confidence = judge_pair(
                mine, features(candidate.prop.text), candidate.similarity, self.rules
            )
            out.append(Judgement(i, label, min(max(confidence, 0.0), 1.0)))
        return out
