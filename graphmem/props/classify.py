"""The relation classifier interface and its LLM implementation.

A classifier judges pairs (new → older): for one new proposition and its candidate older
propositions it answers, per candidate, `updates`, `contradicts`, `supports` or `norel` with a
confidence in [0, 1]. Only the first three become edges. The offline classifier is in
graphmem/props/offline.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from graphmem.llm import LLM
from graphmem.props.llmjson import Malformed, ask_json
from graphmem.props.model import LABELS, Proposition


@dataclass(frozen=True)
class Candidate:
    """An older proposition considered for a relation, with its cosine to the new one."""

    prop: Proposition
    similarity: float
    # its embedding, when the caller has it at hand (a classifier that reads embeddings
    # computes the missing ones)
    vector: np.ndarray | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Judgement:
    """The label of the pair (new → candidates[index])."""

    index: int
    label: str  # one of LABELS
    confidence: float


class Classifier(Protocol):
    """Labels pairs (new → older); `name` is recorded on the edges it creates.

    A classifier may also have `min_similarity`: candidates less similar than that are norel
    by its own rules, so ingestion leaves them out instead of reading and judging them;
    `classify_many(pairings, vectors=None)`: classify() of each (new, candidates) pair at
    once, `vectors` the new propositions' embeddings (None where not at hand); `wants_vectors`:
    True when it reads embeddings, so callers pass them and fill `Candidate.vector`; and
    `warm_up()`: what its first call would do (load, compile), done now.
    """

    name: str

    def classify(self, new: Proposition, candidates: Sequence[Candidate]) -> list[Judgement]:
        """One judgement per candidate, in candidate order."""
        ...


SYSTEM_PROMPT = """\
You compare a NEW statement with OLDER statements from a knowledge base. Each statement has \
the date on which it was made and, when known, its source. For each older statement, decide \
how the new one relates to it:
- "updates": both are about the same attribute of the same subject and the new statement \
gives a newer value or state, so the older one is no longer current: a new chief executive, \
a departure from a post, a new price or count, a revised figure, a move. Reversals are \
updates too: "closed the route" after "opened the route", "reopened" after "closed", \
"resumed" after "suspended", "moved back to A" after "moved from A to B", "cancelled" after \
"plans to".
- "contradicts": the new statement says the older one is false, did not happen or will not \
happen (a denial, refutation, retraction or correction: "denied that ...", "the claim is \
false", "the figure was wrong"), or a confirmed value shows a rumoured one false.
- "supports": the new statement restates, confirms or agrees with the older one, including \
denying its opposite: "has not resigned" supports "was elected"; "the site will stay open" \
supports "denied it will close the site"; "moved back to A" supports "is based in A".
- "norel": anything else: a different subject, a different attribute ("agreed to be \
acquired" says nothing about revenue), a different period (2017 sales vs 2018 sales), \
separate events, or only a related topic.
Hedged statements only relay a claim: a rumour, a blog, a forum post, an unnamed source, \
"reportedly", "allegedly". A hedged NEW statement never updates or contradicts an older \
statement that is not hedged: answer "supports" if it agrees, else "norel". A later \
confirmed statement that denies a hedged claim contradicts it.
Answer with JSON only, in this form:
{"judgements": [{"index": 1, "label": "updates", "confidence": 0.9}]}
"index" is the number of the older statement, "label" one of updates, contradicts, supports, \
norel, and "confidence" a number from 0 to 1. You may leave out older statements that are \
norel; list each older statement at most once."""


def _line(prop: Proposition) -> str:
    """'(2021-09-01, source: gazette) text' as the prompt shows a statement."""
    source = f", source: {prop.source}" if prop.source else ""
    return f"({prop.date}{source}) {prop.text}"


def classify_messages(new: Proposition, candidates: Sequence[Candidate]) -> list[dict[str, str]]:
    """The chat messages asking for the judgements of one new proposition."""
    older = "\n".join(f"[{i}] {_line(c.prop)}" for i, c in enumerate(candidates, start=1))
    user = f"NEW {_line(new)}\n\nOLDER:\n{older}"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def parse_judgements(answer: Any, n: int) -> list[Judgement]:
    """Validated judgements for n candidates (numbered 1..n), missing ones as norel."""
    if not isinstance(answer, dict) or not isinstance(answer.get("judgements"), list):
        raise Malformed('expected an object with a "judgements" list')
    labels: dict[int, Judgement] = {}
    for pos, item in enumerate(answer["judgements"]):
        where = f"judgements[{pos}]"
        if not isinstance(item, dict):
            raise Malformed(f"{where} is not an object")
        index, label, confidence = item.get("index"), item.get("label"), item.get("confidence")
        if isinstance(index, bool) or not isinstance(index, int) or not 1 <= index <= n:
            raise Malformed(f"{where}.index must be an integer from 1 to {n}, not {index!r}")
        if index in labels:
            raise Malformed(f"{where}: statement {index} is judged twice")
        if label not in LABELS:
            raise Malformed(f"{where}.label must be one of {', '.join(LABELS)}, not {label!r}")
        if (
            isinstance(confidence, bool)
            or not isinstance(confidence, int | float)
            or not math.isfinite(confidence)
            or not 0 <= confidence <= 1
        ):
            raise Malformed(f"{where}.confidence must be a number from 0 to 1, not {confidence!r}")
        labels[index] = Judgement(index - 1, label, float(confidence))
    return [labels.get(i + 1, Judgement(i, "norel", 1.0)) for i in range(n)]


class LLMClassifier:
    """One LLM call per new proposition, with all its candidates in the prompt."""

    def __init__(self, llm: LLM, model: str | None = None) -> None:
        self.llm = llm
        self.model = model or llm.model
        self.name = self.model

    def classify(self, new: Proposition, candidates: Sequence[Candidate]) -> list[Judgement]:
        """Judge every candidate; LLMError (naming the proposition) after two bad answers."""
        if not candidates:
            return []
        return ask_json(
            self.llm,
            classify_messages(new, candidates),
            lambda answer: parse_judgements(answer, len(candidates)),
            what=f"classifying relations of proposition {new.id} ({new.text[:60]!r})",
            model=self.model,
        )
