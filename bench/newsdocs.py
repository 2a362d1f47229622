"""A generated corpus of news-like articles for bulk-import benchmarks.

Short dated articles from a handful of outlets about fictional companies, towns, clubs and
agencies: each states a few facts in sentences of real news length (15-40 words, ~170
characters on average), with quotes, reasons and figures, so almost every sentence is distinct.
About one article in twelve is another outlet's report of an earlier story (same facts, same
date, other wording around them), so a bulk load meets propositions it already holds.
"""

from __future__ import annotations

import random

import numpy as np

START = np.datetime64("2018-01-01")
DAYS = 5 * 365
OUTLETS = ("Northern Ledger", "Harbour Courier", "Valley Gazette", "Metro Wire", "Daily Signal")
SYL = (
    "ka",
    "vel",
    "mor",
    "dun",
    "bre",
    "sta",
    "lin",
    "ora",
    "quil",
    "tes",
    "har",
    "ven",
    "dal",
    "fir",
    "gos",
    "ul",
    "rik",
    "san",
    "tor",
    "mel",
)
PEOPLE = (
    "Marta",
    "Idris",
    "Sana",
    "Tomas",
    "Anika",
    "Orrin",
    "Lena",
    "Jonas",
    "Mira",
    "Oskar",
    "Ravi",
    "Noor",
    "Elif",
    "Bruno",
    "Greta",
    "Hamid",
    "Inez",
    "Kofi",
)
KINDS = ("Foods", "Logistics", "Motors", "Pharma", "Energy", "Telecom", "Steel", "Software")
MONTHS = ("January", "March", "April", "June", "September", "October", "November")

FACTS = (
    "{co} said its revenue rose {p} percent to {m} million dollars in the quarter, helped by "
    "strong demand from customers in {town} and lower prices for raw materials.",
    "{co} will cut {n} jobs at its plant near {town} by the end of {month}, the company told "
    "staff on {day}, citing falling orders and higher energy costs.",
    "{person} was named chief executive of {co} on {day}, replacing a predecessor who left "
    "after {k} years in which the share price fell by almost half.",
    "The council of {town} voted {k} to {j} to build a new bridge over the river, at a cost "
    "of {m} million dollars, despite objections from residents of the old quarter.",
    "Unemployment in {town} fell to {k}.{j} percent in {month}, the lowest level in a decade, "
    "as new warehouses and a hospital extension hired several hundred people.",
    "The {town} Rovers beat the {town2} Wanderers {k}-{j} on {day}, lifting the club to "
    "{pos} place in the league with {n} points from their first games.",
    "{person}, who coached the {town} Rovers for {k} seasons, resigned on {day} after a run "
    "of defeats that left the team close to the relegation places.",
    "The {town} water utility warned that its reservoirs stood at {p} percent of capacity "
    "after a dry {month} and asked households to limit their use of garden hoses.",
    "Regulators fined {co} {m} million dollars for misleading customers about the fees on "
    "its contracts, the largest penalty the agency has imposed this year.",
    "{co} opened a research centre in {town} that will employ {n} engineers working on "
    "batteries, with support of {m} million dollars from the regional government.",
)
COLOUR = (
    '"We expect a difficult year, but our customers are staying with us," {person} said in '
    "a statement to the {outlet}.",
    "Shares of {co} closed {p} percent {updown} in {town} trading on {day}, while the wider "
    "market was little changed.",
    "Local business leaders in {town} said the decision would shape investment in the area "
    "for years, and several called for a public consultation.",
    "Analysts at {co} said they had expected the figures and kept their forecasts for the "
    "rest of the year unchanged.",
    "The announcement came {k} weeks after a report by independent auditors criticised the "
    "way the project had been managed since {month}.",
)


def _name(rng: random.Random, parts: int = 3) -> str:
    return "".join(rng.choice(SYL) for _ in range(parts)).capitalize()


def _slots(rng: random.Random) -> dict[str, str]:
    return {
        "co": f"{_name(rng)} {rng.choice(KINDS)}",
        "town": _name(rng, 2),
        "town2": _name(rng, 2),
        "person": f"{rng.choice(PEOPLE)} {_name(rng)}",
        "outlet": rng.choice(OUTLETS),
        "p": str(rng.randrange(2, 60)),
        "m": str(rng.randrange(3, 900)),
        "n": str(rng.randrange(20, 2000)),
        "k": str(rng.randrange(2, 12)),
        "j": str(rng.randrange(1, 9)),
        "pos": f"{rng.randrange(2, 20)}th",
        "month": rng.choice(MONTHS),
        "day": rng.choice(("Monday", "Tuesday", "Thursday")),
        "updown": rng.choice(("higher", "lower")),
    }


def documents(sentences: int, seed: int = 7) -> list[dict[str, str]]:
    """Articles {text, date, source} holding about `sentences` sentences in all, by date."""
    rng = random.Random(seed)
    docs: list[tuple[int, list[str], str]] = []
    total = 0
    while total < sentences:
        if docs and rng.random() < 1 / 12:  # another outlet reports an earlier story
            day, facts, _ = rng.choice(docs)
            slots = _slots(rng)
            body = [*facts[:2], rng.choice(COLOUR).format(**slots)]
        else:
            day, slots = rng.randrange(DAYS), _slots(rng)
            picked = rng.sample(FACTS, rng.randrange(1, 4))
            body = [t.format(**_slots(rng) | {"co": slots["co"]}) for t in picked]
            body += [t.format(**slots) for t in rng.sample(COLOUR, rng.randrange(1, 3))]
        docs.append((day, body, rng.choice(OUTLETS)))
        total += len(body)
    docs.sort(key=lambda d: d[0])
    return [
        {"text": " ".join(body), "date": str(START + np.timedelta64(day, "D")), "source": outlet}
        for day, body, outlet in docs
    ]
