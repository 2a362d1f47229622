"""A generated news-like corpus with as-of questions whose answer sentence is known.

Fictional companies, towns, football clubs and central banks whose attributes change over three
years (chief executives, headcounts, revenue, mayors, populations, unemployment, coaches, league
positions, interest rates, governors). Each change is reported in a short dated article: the fact
sentence (a third of the time only with "the company", "the town", ... so that sentence
splitting loses the name, as in real news), a few sentences of background, quotes and market
colour about the same entity, and now and then a restatement by another outlet. Articles with no
new fact fill the gaps. Many entities share the same sentence patterns, so an embedding of "who
runs X" is close to every company's chief executive sentence: the name is what tells them apart.

A question asks for an attribute of one entity as of a date (paraphrased several ways, never
naming the date); its answer is the value in force then, a string that appears in the sentence
that reported it. Entities are split in two halves by a hash of their name: `tuning` questions
are about one half, `held_back` questions about the other.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

import numpy as np

START = np.datetime64("2019-01-01")


def words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


DAYS = 3 * 365

SYL = words(
    "ka vel mor dun bre sta lin ora quil tes har ven dal fir gos ul rik san tor mel bar "
    "cor ash wyn eld fen hol kir lum nor pel rav sol tam thal vor wen"
)
FIRST = words(
    "Marta Idris Sana Tomas Anika Pella Orrin Lena Jonas Mira Oskar Ida Ravi Noor Elif "
    "Bruno Greta Hamid Inez Kofi Lotte Mateo Nadia Piet Rosa Selim Tove Umar Vera Yusuf "
    "Zofia Aldo Bea Cyril Dagny Emil Farah Gil Hana"
)
COMPANY_KIND = words(
    "Foods Logistics Motors Pharma Energy Telecom Bank Airlines Steel Software Textiles Shipping"
)
TOWN_END = ("", "", "", " Falls", " Harbour", "ford", "by", "ton", "wick")
OUTLETS = ("the Herald", "the Ledger", "the Courier", "Metro Wire", "the Gazette")
ORDINAL = words(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth"
)


def _name(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(SYL) for _ in range(parts)).capitalize()


@dataclass(frozen=True)
class Attribute:
    """How one attribute of a kind of entity is reported and asked about."""

    key: str
    facts: tuple[str, ...]  # with {e} (entity), {v} (value); the first names the entity
    anaphoric: tuple[str, ...]  # the same fact without the name
    questions: tuple[str, ...]  # with {e}


KINDS: dict[str, tuple[Attribute, ...]] = {
    "company": (
        Attribute(
            "ceo",
            (
                "{e} named {v} as its chief executive.",
                "{v} took over as chief executive of {e}.",
                "{e}'s board appointed {v} to lead the company.",
            ),
            (
                "The company named {v} as its new chief executive.",
                "{v} will lead the company from next month.",
            ),
            ("Who is the chief executive of {e}?", "Who runs {e}?", "Who leads {e}?"),
        ),
        Attribute(
            "staff",
            (
                "{e} now employs {v} people.",
                "{e} said its workforce stood at {v}.",
                "{e} cut its workforce to {v} employees.",
            ),
            ("The company now employs {v} people.", "Its workforce stood at {v}."),
            (
                "How many people does {e} employ?",
                "How large is {e}'s workforce?",
                "How many employees does {e} have?",
            ),
        ),
        Attribute(
            "revenue",
            (
                "{e} reported quarterly revenue of ${v} million.",
                "{e}'s quarterly sales came to ${v} million.",
            ),
            ("Quarterly revenue came to ${v} million.",),
            ("What was {e}'s latest quarterly revenue?", "How much did {e} sell last quarter?"),
        ),
    ),
    "town": (
        Attribute(
            "mayor",
            ("{v} was elected mayor of {e}.", "{e} chose {v} as its new mayor."),
            ("The town's new mayor is {v}.",),
            ("Who is the mayor of {e}?", "Who runs the town council of {e}?"),
        ),
        Attribute(
            "population",
            (
                "The population of {e} reached {v}, the census office said.",
                "{e} now has {v} residents.",
            ),
            ("The town now has {v} residents.",),
            ("What is the population of {e}?", "How many people live in {e}?"),
        ),
        Attribute(
            "jobless",
            (
                "Unemployment in {e} stood at {v} percent last month.",
                "{e}'s jobless rate moved to {v} percent.",
            ),
            ("The local jobless rate moved to {v} percent.",),
            ("What is the unemployment rate in {e}?", "How high is joblessness in {e}?"),
        ),
    ),
    "club": (
        Attribute(
            "coach",
            ("{e} appointed {v} as head coach.", "{v} is the new manager of {e}."),
            ("The club appointed {v} as head coach.",),
            ("Who coaches {e}?", "Who is the manager of {e}?"),
        ),
        Attribute(
            "position",
            (
                "{e} climbed to {v} place in the league table.",
                "{e} are {v} in the league after the weekend.",
            ),
            ("The side are now {v} in the table.",),
            ("Where do {e} stand in the league?", "What is {e}'s league position?"),
        ),
    ),
    "bank": (
        Attribute(
            "rate",
            (
                "The {e} set its key interest rate at {v} percent.",
                "The {e} moved its benchmark rate to {v} percent.",
            ),
            ("The central bank moved its benchmark rate to {v} percent.",),
            (
                "What is the {e}'s key interest rate?",
                "At what level does the {e} set interest rates?",
            ),
        ),
        Attribute(
            "governor",
            ("{v} was appointed governor of the {e}.", "The {e} has a new governor, {v}."),
            ("The central bank's new governor is {v}.",),
            ("Who is the governor of the {e}?", "Who heads the {e}?"),
        ),
    ),
}

FILLER = {
    "company": (
        "Shares of {e} rose {n} percent in early trading.",
        "{e} did not respond to a request for comment.",
        "Analysts had expected the announcement from {e}.",
        "{e} is based in {t} and sells in {n} countries.",
        "A spokesperson for {e} said the company remained focused on its customers.",
        "{e} faces growing competition from {o}.",
        "The company has been under pressure from investors this year.",
        "{e}'s chief executive will speak at an industry conference next month.",
        "The board of {e} meets again in {n} weeks.",
        "{e} plans to hire more engineers in {t}.",
        "Staff at {e}'s plant in {t} held a meeting about pay.",
        "{o} and {e} are the two largest employers in {t}.",
        "{e} said revenue would be hit by higher energy costs.",
        "Unions said jobs at {e} were at risk.",
        "The chief executive of {o} said the market was recovering.",
        "{e} opened a new office in {t} with {n}0 desks.",
    ),
    "town": (
        "The council of {e} met on Tuesday to discuss the budget.",
        "Residents of {e} complained about road works on the high street.",
        "{e} is known for its market and its old stone bridge.",
        "A new bus line will connect {e} with {t}.",
        "Local officials said more housing was needed.",
        "The mayor of {e} will attend the opening of the new library.",
        "{e} and {t} compete for a new factory with {n}00 jobs.",
        "The population of {t} has grown faster than that of {e}.",
        "Jobs in {e} depend on the port and on tourism.",
        "The council of {e} raised parking fees by {n} percent.",
    ),
    "club": (
        "{e} drew {n}-{n} with {o} on Saturday.",
        "Fans of {e} filled the stadium.",
        "{e} signed a young striker from {o}.",
        "The club's academy is one of the best.",
        "The head coach of {o} praised {e} after the match.",
        "{e} have won {n} of their last ten games.",
        "{e} play {o} next weekend.",
        "The manager of {e} rested several players.",
    ),
    "bank": (
        "Economists said the {e} was likely to keep an eye on inflation.",
        "Markets had priced in the decision by the {e}.",
        "The {e} publishes its next report in {n} weeks.",
        "The governor of the {e} spoke to lawmakers on Thursday.",
        "Inflation stayed above the {e}'s target of {n} percent.",
        "Banks said the {e}'s decisions on interest rates weighed on lending.",
    ),
}


@dataclass
class Entity:
    kind: str
    name: str
    half: str  # "tuning" or "held_back"
    history: dict[str, list[tuple[int, str]]] = field(default_factory=dict)  # key → (day, value)
    named: set[str] = field(default_factory=set)  # values stated beside the entity's name


@dataclass(frozen=True)
class Question:
    question: str
    as_of: str
    answer: str  # the value in force on as_of
    half: str
    kind: str
    attribute: str
    form: str = "attribute"  # "attribute": what is X's value; "reverse": whose value is v


@dataclass(frozen=True)
class Corpus:
    documents: list[dict[str, str]]  # text, date, source
    questions: list[Question]


def _half(name: str) -> str:
    return "tuning" if hashlib.sha1(name.encode()).digest()[0] % 2 == 0 else "held_back"


def _entities(rng: random.Random) -> list[Entity]:
    out: list[Entity] = []
    used: set[str] = set()
    counts = {"company": 44, "town": 28, "club": 14, "bank": 6}
    for kind, count in counts.items():
        while sum(e.kind == kind for e in out) < count:
            if kind == "company":
                name = f"{_name(rng, 2)} {rng.choice(COMPANY_KIND)}"
            elif kind == "town":
                name = _name(rng, 2) + rng.choice(TOWN_END)
            elif kind == "club":
                name = f"{_name(rng, 2)} {rng.choice(['United', 'Rovers', 'City', 'Athletic'])}"
            else:
                name = f"Bank of {_name(rng, 3)}"
            if name not in used:
                used.add(name)
                out.append(Entity(kind, name, _half(name)))
    return out


class _Values:
    """Fresh values: a person or number used once in the whole corpus."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def _fresh(self, make) -> str:
        while True:
            value = make()
            if value not in self.used:
                self.used.add(value)
                return value

    def of(self, key: str) -> str:
        rng = self.rng
        if key in ("ceo", "mayor", "coach", "governor"):
            return self._fresh(lambda: f"{rng.choice(FIRST)} {_name(rng, 3)}")
        if key == "staff":
            return self._fresh(lambda: f"{rng.randrange(120, 60000):,}")
        if key == "revenue":
            return self._fresh(lambda: f"{rng.randrange(20, 9000) / 10:.1f}")
        if key == "population":
            return self._fresh(lambda: f"{rng.randrange(4000, 900000):,}")
        if key in ("jobless", "rate"):
            return self._fresh(lambda: f"{rng.randrange(5, 140) / 10:.1f}")
        return ORDINAL[rng.randrange(len(ORDINAL))]  # league positions repeat by nature


def _article(
    rng: random.Random, e: Entity, others: list[Entity], towns: list[str], fact: str | None
) -> str:
    fill = [
        f.format(
            e=e.name,
            n=rng.randrange(2, 9),
            t=rng.choice(towns),
            o=rng.choice([o.name for o in others if o.kind == e.kind and o is not e]),
        )
        for f in rng.sample(FILLER[e.kind], min(len(FILLER[e.kind]), rng.randrange(4, 9)))
    ]
    return " ".join([*([fact] if fact else []), *fill])


# what a wire or a site appends to an article: no statement about anything the questions ask
BOILERPLATE = (
    "Reporting by {p}; editing by {q}.",
    "Copyright {y} {o}. All rights reserved.",
    "Click here to subscribe to our daily newsletter.",
    "Follow {o} on social media for the latest updates.",
    "This article was updated to add comment from analysts.",
    "Additional reporting by {p}.",
)


def _boilerplate(rng: random.Random, day: int) -> str:
    """Half the articles end with a paragraph of one or two lines of a site's boilerplate."""
    if rng.random() < 0.5:
        return ""
    lines = rng.sample(BOILERPLATE, rng.randrange(1, 3))
    person = lambda: f"{rng.choice(FIRST)} {_name(rng, 2)}"  # noqa: E731
    filled = [
        line.format(p=person(), q=person(), y=2019 + day // 365, o=rng.choice(OUTLETS).title())
        for line in lines
    ]
    return "\n\n" + " ".join(filled)


def _restated(outlet: str, template: str, fact: str) -> str:
    """Another outlet's report of a fact: a name it opens with ({e}, {v}) keeps its capital,
    a word does not."""
    if not template.startswith("{"):
        fact = fact[0].lower() + fact[1:]
    return f"According to {outlet}, {fact}"


def generate(seed: int = 11, documents: int = 1100, questions: int = 240) -> Corpus:
    """The corpus: about `documents` articles in date order and `questions` as-of questions."""
    rng = random.Random(seed)
    tails = random.Random(f"{seed}-boilerplate")  # its own draws: the articles stay the same
    ents = _entities(rng)
    towns = [e.name for e in ents if e.kind == "town"]
    values = _Values(rng)
    docs: list[tuple[int, str, str]] = []
    fact_docs = int(documents * 0.7)
    series = [(e, a) for e in ents for a in KINDS[e.kind]]
    for i in range(fact_docs):
        e, attr = series[i % len(series)] if i < len(series) else rng.choice(series)
        day = rng.randrange(0, 60) if i < len(series) else rng.randrange(0, DAYS)
        value = values.of(attr.key)
        e.history.setdefault(attr.key, []).append((day, value))
        if rng.random() < 0.33:
            fact = rng.choice(attr.anaphoric).format(v=value)
            # the name is in the article's first sentence only
            fact = f"{rng.choice(FILLER[e.kind]).split('.')[0]}. {fact}".format(
                e=e.name,
                n=rng.randrange(2, 9),
                t=rng.choice(towns),
                o=rng.choice([o.name for o in ents if o.kind == e.kind and o is not e]),
            )
        else:
            fact = rng.choice(attr.facts).format(e=e.name, v=value)
            e.named.add(value)
        docs.append((day, _article(rng, e, ents, towns, fact), rng.choice(OUTLETS)))
        if rng.random() < 0.15:  # another outlet restates it a few days later
            template = rng.choice(attr.facts)
            restated = template.format(e=e.name, v=value)
            docs.append(
                (
                    day + rng.randrange(1, 6),
                    _restated(rng.choice(OUTLETS), template, restated),
                    rng.choice(OUTLETS),
                )
            )
    while len(docs) < documents:
        e = rng.choice(ents)
        docs.append(
            (rng.randrange(0, DAYS), _article(rng, e, ents, towns, None), rng.choice(OUTLETS))
        )
    docs.sort(key=lambda d: d[0])
    out_docs = [
        {
            "text": text + _boilerplate(tails, day),
            "date": str(START + np.timedelta64(day, "D")),
            "source": src,
        }
        for day, text, src in docs
    ]
    reverse = questions // 4
    return Corpus(
        out_docs, _questions(rng, ents, questions - reverse) + _reverse(rng, ents, reverse)
    )


def _questions(rng: random.Random, ents: list[Entity], count: int) -> list[Question]:
    out: list[Question] = []
    tries = 0
    while len(out) < count and tries < 100 * count:
        tries += 1
        e = rng.choice(ents)
        attr = rng.choice(KINDS[e.kind])
        history = sorted(e.history.get(attr.key, []))
        if len(history) < 2:
            continue
        as_of = rng.randrange(history[0][0], DAYS)
        current = [v for d, v in history if d <= as_of][-1]
        if attr.key == "position" and sum(v == current for _, v in history) > 1:
            continue  # a repeated position: the answer would not tell versions apart
        text = rng.choice(attr.questions).format(e=e.name).replace("s's ", "s' ")
        out.append(
            Question(
                text, str(START + np.timedelta64(as_of, "D")), current, e.half, e.kind, attr.key
            )
        )
    return out


# "reverse" questions: a name or number from a fact, asking whose it is; the answer is the entity
REVERSE = {
    "ceo": "Which company named {v} as chief executive?",
    "mayor": "Where is {v} the mayor?",
    "coach": "Which club does {v} coach?",
    "governor": "Which central bank does {v} head?",
    "staff": "Which company employs {v} people?",
    "population": "Which town has {v} residents?",
    "revenue": "Which company reported quarterly revenue of ${v} million?",
}


def _reverse(rng: random.Random, ents: list[Entity], count: int) -> list[Question]:
    """Questions about a value stated beside an entity's name, as of a date on or after it."""
    facts = [
        (e, key, day, v)
        for e in ents
        for key, hist in e.history.items()
        for day, v in hist
        if key in REVERSE and v in e.named
    ]
    out = []
    for e, key, day, value in rng.sample(facts, min(count, len(facts))):
        as_of = rng.randrange(day, DAYS)
        out.append(
            Question(
                REVERSE[key].format(v=value),
                str(START + np.timedelta64(as_of, "D")),
                e.name,
                e.half,
                e.kind,
                key,
                "reverse",
            )
        )
    return out
