"""Quality measures: relation labels against gold labels, and a reader for dated questions.

Worlds (tests/fixtures/*.json) are fictional: dated propositions, gold relation labels for
the pairs that matter (every other pair is norel) and dated multiple-choice questions.
tests/fixtures/worlds.json says which worlds the classifier was tuned on and which was held
back. Used by bench/bench_props_quality.py, bench/bench_props.py and the tests.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.props.classify import Candidate, Classifier, Judgement
from graphmem.props.memory import PropsMemory
from graphmem.props.model import KINDS, Proposition, normalised, proposition_id
from graphmem.props.offline import OfflineClassifier, judge_pair
from graphmem.props.reading import CLAUSE_BREAK, read
from graphmem.props.retrieve import Subgraph, subgraph_for_vector
from graphmem.props.stated import STATE, Stated, stated, takes_effect


@cache
def _embedder() -> Embedder:
    # keeps the vectors of the texts it embeds: a classifier called without vectors (the
    # recording wrapper) embeds each candidate once per pair
    return Embedder(precision=Settings.from_env().precision, cached_ones=8192)


def offline_classifier() -> OfflineClassifier:
    """The offline classifier as a service with the default settings builds it (its vectors
    from the default embedding model at the configured precision), one embedder per process."""
    return OfflineClassifier(embedder=_embedder())


@dataclass(frozen=True)
class Question:
    """A multiple-choice question whose answer depends on the date it is asked."""

    date: str
    question: str
    options: tuple[str, ...]
    answer: int
    topic: str


@dataclass(frozen=True)
class World:
    """A test world: dated propositions, gold relation labels (newer → older), questions."""

    propositions: tuple[dict[str, Any], ...]  # {key, date, source, text} in ingestion order
    gold: dict[tuple[str, str], str]  # (newer key, older key) → label; absent pairs are norel
    questions: tuple[Question, ...]

    @classmethod
    def load(cls, path: str | Path) -> World:
        """Read a world file such as tests/fixtures/props_world.json."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        gold = {(r["src"], r["dst"]): r["label"] for r in data["relations"]}
        questions = tuple(
            Question(q["date"], q["question"], tuple(q["options"]), q["answer"], q["topic"])
            for q in data["questions"]
        )
        return cls(tuple(data["propositions"]), gold, questions)

    def items(self) -> list[dict[str, str]]:
        """The propositions as add_propositions input."""
        return [{k: p[k] for k in ("text", "date", "source")} for p in self.propositions]

    @cached_property
    def keys(self) -> dict[str, str]:
        """Proposition id → world key."""
        return {proposition_id(p["text"], p["date"]): p["key"] for p in self.propositions}

    def label(self, newer_id: str, older_id: str) -> str:
        """The gold label of a pair of proposition ids."""
        pair = (self.keys.get(newer_id, ""), self.keys.get(older_id, ""))
        return self.gold.get(pair, "norel")


@dataclass(frozen=True)
class NamedWorld:
    """A world with its file name and role: "tuning" or "held_out"."""

    name: str
    role: str
    world: World


def load_worlds(
    index: str | Path, roles: Sequence[str] = ("tuning", "held_out")
) -> list[NamedWorld]:
    """The worlds an index file (tests/fixtures/worlds.json) lists under `roles`, in order."""
    index = Path(index)
    listed = json.loads(index.read_text(encoding="utf-8"))
    return [
        NamedWorld(name.removesuffix(".json"), role, World.load(index.parent / name))
        for role in roles
        for name in listed[role]
    ]


def judged_pairs(world: World, judged: Iterable[tuple[str, str, str]]) -> list[tuple[str, str]]:
    """(gold, predicted) for every judged (newer id, older id, label), plus gold pairs never
    judged (predicted norel: never becoming a candidate is a miss)."""
    judged = list(judged)
    pairs = [(world.label(new, old), label) for new, old, label in judged]
    seen = {(world.keys[new], world.keys[old]) for new, old, _ in judged}
    pairs += [(label, "norel") for pair, label in world.gold.items() if pair not in seen]
    return pairs


class GoldClassifier:
    """Answers with a world's gold labels: an oracle, for tests and upper bounds."""

    name = "gold"

    def __init__(self, world: World) -> None:
        texts = {p["key"]: normalised(p["text"]) for p in world.propositions}
        self._gold = {(texts[s], texts[d]): label for (s, d), label in world.gold.items()}

    def classify(self, new: Proposition, candidates: Sequence[Candidate]) -> list[Judgement]:
        """The gold label of each pair; norel when the world lists none."""
        mine = normalised(new.text)
        return [
            Judgement(i, self._gold.get((mine, normalised(c.prop.text)), "norel"), 1.0)
            for i, c in enumerate(candidates)
        ]


@dataclass(frozen=True)
class LabelScore:
    """Precision and recall of one label."""

    label: str
    precision: float
    recall: float
    f1: float
    support: int  # gold pairs with this label
    predicted: int  # pairs predicted with this label


@dataclass(frozen=True)
class LabelReport:
    """Per-label scores over a set of judged pairs."""

    scores: tuple[LabelScore, ...]  # one per relation kind (updates, contradicts, supports)
    accuracy: float  # over all pairs, norel included
    macro_f1: float  # mean F1 of the relation kinds
    pairs: int


def score_labels(pairs: Iterable[tuple[str, str]]) -> LabelReport:
    """Scores of (gold, predicted) label pairs; 'norel' is the negative class."""
    confusion = Counter(pairs)
    total = sum(confusion.values())
    scores = []
    for label in KINDS:
        tp = confusion[(label, label)]
        predicted = sum(v for (_, p), v in confusion.items() if p == label)
        support = sum(v for (g, _), v in confusion.items() if g == label)
        precision = tp / predicted if predicted else 0.0
        recall = tp / support if support else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        scores.append(LabelScore(label, precision, recall, f1, support, predicted))
    accuracy = sum(v for (g, p), v in confusion.items() if g == p) / total if total else 0.0
    macro = float(np.mean([s.f1 for s in scores]))
    return LabelReport(tuple(scores), accuracy, macro, total)


@dataclass
class RecordingClassifier:
    """Wraps a classifier and records every pair it judged: (newer id, older id, label)."""

    inner: Classifier
    judged: list[tuple[str, str, str]] = field(default_factory=list)
    seen: list[tuple[Proposition, Proposition, float]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def min_similarity(self) -> float:
        return getattr(self.inner, "min_similarity", -1.0)

    def classify(self, new: Proposition, candidates: Sequence[Candidate]) -> list[Judgement]:
        """Judge with the wrapped classifier and remember the answers."""
        out = self.inner.classify(new, candidates)
        self.judged += [(new.id, candidates[j.index].prop.id, j.label) for j in out]
        self.seen += [(new, c.prop, c.similarity) for c in candidates]
        return out


READERS = ("v1", "v2")
_SIGN = {"supports": 1.0, "updates": -1.0, "contradicts": -1.0, "norel": 0.0}
RECENCY = 1.0  # v2: the newest statement weighs 1 + RECENCY times the oldest one


@dataclass
class Reader:
    """Answers a dated multiple-choice question from a subgraph, without an LLM.

    Plain (`use_relations=False`): the k anchors as retrieved. With relations: anchors plus
    neighbours, keeping only propositions whose status as of the date is `current` (all of
    them if none is). Each kept statement speaks for or against each option, weighted by its
    similarity to the question and halved for a hedged one (a rumour, a blog); the option
    with the most net support wins. How a statement speaks (`version`):

    - v1 reads it against each option as the offline classifier reads a pair (statement →
      option): one that supports the option counts for it, one that updates or contradicts
      it counts against it, times its similarity to the option. A change *to* the option's
      value ("raised the fee to 7 euros" against "the fee is 7 euros") is an update, so it
      counts against the option.
    - v2 (`states`) reads it as the state it asserts as of its date
      (graphmem.props.stated: "raised the fee from 5 to 7 euros" asserts 7 and denies 5,
      "X retired" denies X, "bought X from Y" denies Y) and compares that with what tells
      each option apart from the others; newer statements weigh more (`RECENCY`), a plan
      half. A statement joining two facts is read clause by clause (reading.clauses); an
      on/off word speaks to an option only in a clause that names the option's own names
      ("X retires; Y promoted to head"); the names the question gives are its subject, not
      what tells options apart. As of the question's date, a change that takes effect
      later is a plan (a future word plans only its own clause); a rumour or a forecast
      speaks only where no plain statement does. In a question of whether, a plain
      statement of all an option with no on/off word states says it still holds.
      It does not use the relation rules.

    When nothing speaks for or against any option, or `judge=False`, the option most
    similar to any kept statement wins (the reader of earlier versions).
    """

    ctx: PropsMemory
    k: int = 10
    judge: bool = True
    version: str = "v2"  # one of READERS
    _vectors: dict[str, np.ndarray] = field(default_factory=dict)
    _graphs: dict[tuple[str, str], Subgraph] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.version not in READERS:
            raise ValueError(f"version: {self.version!r} is not one of {READERS}")

    def warm(self, texts: Sequence[str]) -> None:
        """Embed texts the reader will need in one batch (questions, options, statements)."""
        self._embed(list(texts))

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        todo = sorted({t for t in texts if t not in self._vectors})
        if todo:
            for text, vec in zip(todo, self.ctx.embedder.encode(todo), strict=True):
                self._vectors[text] = vec
        return np.array([self._vectors[t] for t in texts], dtype=np.float32)

    def answer(self, question: str, as_of: str, options: Sequence[str], use_relations: bool) -> int:
        """The index of the option the kept propositions support best."""
        graph = self._subgraph(question, as_of)
        nodes = [n for n in graph.nodes if n.is_anchor or use_relations]
        if use_relations:
            nodes = [n for n in nodes if n.status.state == "current"] or nodes
        if not nodes:
            return 0
        return self.choose(question, options, [n.prop for n in nodes], as_of)

    def choose(
        self, question: str, options: Sequence[str], props: Sequence[Proposition], as_of: str = ""
    ) -> int:
        """The index of the option `props` (the statements kept) support best as of `as_of`."""
        nearest = (self._embed(list(options)) @ self._embed([p.text for p in props]).T).max(1)
        if not self.judge:
            return int(np.argmax(nearest))
        support = self.speaks(question, options, props, as_of).sum(axis=0)
        if not support.any():
            return int(np.argmax(nearest))
        best = support.max()
        return max((j for j in range(len(options)) if support[j] == best), key=nearest.__getitem__)

    def speaks(
        self, question: str, options: Sequence[str], props: Sequence[Proposition], as_of: str = ""
    ) -> np.ndarray:
        """What each statement says for (+) or against (-) each option, weighed as this
        reader weighs it: one row per statement, one column per option."""
        vectors = self._embed([p.text for p in props])
        relevance = np.clip(self._embed([question])[0] @ vectors.T, 0.0, None)
        if self.version == "v2":
            return states(options, props, relevance, question, as_of)
        sims = self._embed(list(options)) @ vectors.T
        return np.array(
            [self.weigh(p, options, sims[:, i]) * relevance[i] for i, p in enumerate(props)]
        ).reshape(len(props), len(options))

    def weigh(self, prop: Proposition, options: Sequence[str], sims: np.ndarray) -> np.ndarray:
        """v1: what one statement says for (+) or against (-) each option, before its
        relevance to the question, judged against each option as a newer statement of a
        pair (offline.judge_pair), times its similarity to the option."""
        mine = read(prop.text, prop.source)
        weight = 0.5 if mine.hedged else 1.0
        out = np.zeros(len(options))
        for j, option in enumerate(options):
            label, _ = judge_pair(mine, read(option), float(sims[j]))
            out[j] = _SIGN[label] * weight * sims[j]
        return out

    def _subgraph(self, question: str, as_of: str) -> Subgraph:
        # plain top-k reads the anchors of the expanded subgraph: they are the same k
        key = (question, as_of)
        if key not in self._graphs:
            vector = self._embed([question])[0]
            self._graphs[key] = subgraph_for_vector(self.ctx, vector, question, as_of, self.k)
        return self._graphs[key]


def states(
    options: Sequence[str],
    props: Sequence[Proposition],
    relevance: np.ndarray,
    question: str = "",
    as_of: str = "",
) -> np.ndarray:
    """The v2 reading, one row per statement: each statement read as the state it asserts
    as of its date (graphmem.props.stated), clause by clause when it joins two facts
    (reading.clauses), against what tells each option apart (not the names the question
    gives: they are its subject). As of `as_of`, a change that takes effect later is a
    plan."""
    mine = [stated(o) for o in options]
    planned = [_planned(o, mine[j].future, "", as_of) for j, o in enumerate(options)]
    # a question of whether (its options differ in their on/off state), not of which value
    whether = len({o.sign(STATE) for o in mine}) > 1
    asked = set(stated(question).names)  # the names the question asks about
    terms = [{(t, s) for t, s in ts if t not in asked} or ts for ts in _telling(mine, whether)]
    common = set.intersection(*(set(o.terms) for o in mine))  # the subject, whatever sign
    names = common & set.union(*(set(o.names) for o in mine))
    owners = _owners(mine, terms, names)
    said = [stated(p.text) for p in props]
    df = Counter(t for s in said for t in s.terms)
    # the subject's terms found in a statement, the rarer among the statements the more
    idf = {t: float(np.log((len(said) + 1) / (df[t] + 0.5))) for t in common}
    total = sum(idf.values())
    dates = sorted({p.date for p in props})
    order = {d: n / max(len(dates) - 1, 1) for n, d in enumerate(dates)}
    told = {t for ts in terms for t, _ in ts}
    owned, option_terms = set().union(*owners), set().union(*(o.terms for o in mine))
    out = np.zeros((len(props), len(options)))
    guess = np.zeros(len(props), dtype=bool)  # hedged, a forecast or an estimate
    for i, (prop, s) in enumerate(zip(props, said, strict=True)):
        if _elsewhere(s, names, owned | common, whether):  # "our new Station Manager"
            continue  # about another subject
        # hedged in its own words ("a blog says", "analysts reckon"), not only by its source
        guess[i] = read(prop.text).hedged or s.guess
        later = _planned(prop.text, False, prop.date, as_of)  # takes effect after as_of
        # "from next Monday X will open till eight": a fact once that day has come
        starts = takes_effect(prop.text, prop.date, plans=False)
        started = bool(as_of) and "" < starts <= as_of
        cover = sum(idf[t] for t in common if t in s.terms) / total if total > 0 else 1.0
        # "23,500 - not the 40,000": one option's value asserted, another's denied
        contrast = told if {1, -1} <= {s.sign(t) for t in told} else set()
        for part in [stated(c) for c in clauses(prop.text)] or [s]:
            if _elsewhere(part, names, option_terms):
                continue  # "X goes up to 10.99, while the Y plan stays at 14.99"
            # a plan in its own clause ("X -> Y; the CIC will be wound up") plans only that
            future = later or (part.future and not started)
            weight = relevance[i] * _weight(prop, guess[i], future, order[prop.date])
            # a clause that moves the subject's name away ("X moves from S to T") says
            # its names are no longer the subject's
            turn = -1 if names & part.left else 1
            implied = whether and _plainly(part, mine)
            if implied:  # implied, not stated: half the weight of an on/off word
                part = replace(part, terms={**part.terms, STATE: 1})
            for j, option in enumerate(mine):
                if future != planned[j] and not all(planned):
                    continue  # a plan speaks to plans, a state to states (and all to plans)
                state = (option.sign(STATE) or 1) if whether else 0
                if owners[j] and owners[j].isdisjoint(part.terms):
                    state = 0  # an on/off word about someone else ("Y retires")
                # a figure's roles may lie in another clause ("X: about 2,500 remain")
                agree = _agrees(part, option, terms[j], state, s.terms.keys(), contrast)
                implication = 0.5 if implied else 1.0
                out[i, j] += implication * weight * cover * agree * (turn if agree > 0 else 1)
    if out[~guess].any():
        out[guess] = 0.0  # a rumour or a forecast speaks only where no plain statement does
    return out


def clauses(text: str) -> tuple[str, ...]:
    """The clauses of a statement that joins two facts or more, as reading.clauses gives
    them, with a piece of under three words kept with the clause before it (a notice's
    value: "pumping appliances in service: 32"); () for a statement of one."""
    pieces: list[str] = []
    for piece in (p.strip(" .") for p in CLAUSE_BREAK.split(text)):
        if pieces and len(piece.split()) < 3 and len(pieces[-1].split()) >= 3:
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    parts = tuple(p for p in pieces if len(p.split()) >= 3)
    return parts if len(parts) > 1 else ()


def _plainly(part: Stated, mine: list[Stated]) -> bool:
    """A plain statement of what a plain option states ("X pays for the programmes" to
    "X pays ..." or "X no longer pays ..."): no on/off word, no denial, every term of an
    option with no on/off word of its own; it says the state is on."""
    if part.sign(STATE) or part.negated:
        return False
    plain = [o for o in mine if not o.sign(STATE)]
    return any(o.terms and all(part.sign(t) == 1 for t in o.terms) for o in plain)


def _weight(prop: Proposition, guess: bool, future: bool, recency: float) -> float:
    """How much a statement counts beside its relevance: half for a guess or a hedged
    source, half for a plan, more the later it was made (`recency` 0 to 1)."""
    hedged = guess or read(prop.text, prop.source).hedged
    return (0.5 if hedged else 1.0) * (0.5 if future else 1.0) * (1.0 + RECENCY * recency)


def _planned(text: str, future: bool, date: str, as_of: str) -> bool:
    """Whether a statement (or an option) is a plan as of `as_of`: a plan ("will open"), or
    a change or an option that takes effect later ("from 1 April" before April; "opens in
    spring 2018" before spring 2018). A plan whose date has come is still no fact."""
    return future or (bool(as_of) and takes_effect(text, date) > as_of)


def _elsewhere(said: Stated, names: set[str], known: set[str], nameless: bool = False) -> bool:
    """A statement, or a clause of one, about another named thing: it states none of the
    subject's names, and a name of its own that is not `known` (for a statement, the
    names that tell the options apart: "Y was replaced by Z" speaks of the subject whose
    options name Y or Z, "W plays at Z" of W; for a clause, any term of an option). One
    that names nothing ("the print run was cut") may be about the subject, unless
    `nameless` says otherwise (in a question of whether, any on/off word would speak)."""
    if not names or not names.isdisjoint(said.terms):
        return False
    own = {t for t in said.names - said.titles if not t[:1].isdigit()}
    return not own <= known if own else nameless


def _owners(mine: list[Stated], terms: list[set[tuple[str, int]]], names: set[str]):
    """The names that tell each option apart (its telling names, or the names no other
    option has): an on/off word speaks to an option only where one of them is stated."""
    out = []
    for j, o in enumerate(mine):
        others = set().union(*(x.names for k, x in enumerate(mine) if k != j))
        own = {t for t, _ in terms[j] if t in o.names} | (set(o.names) - others - names)
        out.append({t for t in own if not t[:1].isdigit()})
    return out


def _telling(mine: list[Stated], whether: bool) -> list[set[tuple[str, int]]]:
    """The terms (with their sign) that tell each option apart from the others: those one
    option asserts and another denies first, else those not in every option; for an option
    with an on/off state of its own, in a question of whether, only the former (the rest
    of it is its subject)."""
    keys = [set(o.terms.items()) for o in mine]
    shared = set.intersection(*keys)
    out = []
    for o, k in zip(mine, keys, strict=True):
        distinct = {(t, s) for t, s in k - shared if t != STATE}
        contrasts = {(t, s) for t, s in distinct if any(x.sign(t) == -s for x in mine)}
        out.append(contrasts if whether and o.sign(STATE) else contrasts or distinct)
    return out


def _agrees(
    said: Stated,
    option: Stated,
    terms: set[tuple[str, int]],
    state: int,
    around: Set[str] = frozenset(),
    free: Set[str] = frozenset(),
) -> float:
    """How far a statement asserts (+) or denies (-) an option: its on/off state against the
    option's (`state`, 0 when the question is of which value), and the option's telling
    terms (a figure only where the statement, or `around` it, has one of the option
    figure's roles; any figure of `free`: one option's value set against another's)."""
    out = float(said.sign(STATE) * state)
    if not terms:
        return out
    # "denied that X was appointed": X is what the denied switch was about
    turn = (said.sign(STATE) or 1) if said.negated and not state else 1
    values = [
        said.sign(t) * s * (1 if t in option.roles else turn)
        for t, s in terms
        if t in free
        or not option.roles.get(t)
        or option.roles[t] & (around | said.terms.keys() | said.roles.get(t, set()))
    ]
    return out + sum(values) / len(terms)
