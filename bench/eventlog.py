"""A generated personal event log: six months of appointments, notes, errands, news and chatter,
with questions whose right memory is known.

Each "key" memory (an appointment booked, a code written down, a refund pending, a decision in
the news, a birthday, a deadline) is asked about later in ordinary words, once or several times,
a few days, weeks or months after it was written: the right answer is that memory. Around it:
daily chatter (groceries, runs, dinners, films) that is recent but irrelevant, and near misses
(the same kind of memory about another place or person) that are relevant-looking but wrong.
Key memories are split in two halves by a hash of their text: questions about `tuning` memories
are for choosing settings, `held_back` ones only for reporting.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

import numpy as np

START = np.datetime64("2024-01-01")
DAYS = 182


def words(text: str) -> tuple[str, ...]:
    return tuple(text.split("|"))


PEOPLE = words("Anna|Ben|Carla|Dmitri|Eva|Farid|Grace|Hugo|Ines|Jonas|Kim|Lars|Maya|Nils")
PLACES = words(
    "the cabin|the office|Mum's flat|the library|the studio|the beach house|"
    "the co-working space|Aunt Rosa's house|the club house|the hotel in Lyon"
)
SHOPS = words("Hartmann's|the outdoor shop|the electronics store|Bloom & Co|the bookshop")
ITEMS = words("rain jacket|headphones|blender|running shoes|desk lamp|winter boots|kettle")
DISTRICTS = words("Northgate|Riverside|Old Town|Eastfield|the harbour|Westbrook")
PROJECTS = words("Atlas|Beacon|Cobalt|Delta|Ember|Falcon")
LIKES = words(
    "orchids|jazz records|dark chocolate|board games|Japanese tea|vintage maps|"
    "crime novels|climbing gear"
)

# kind → (memory template, question templates); fields filled from one dict of details
KEYS: dict[str, tuple[str, tuple[str, ...]]] = {
    "dentist": (
        "Booked a dentist appointment with Dr. {person} for {when} at {hour}.",
        ("When is my dentist appointment?", "What time do I see the dentist?"),
    ),
    "doctor": (
        "The GP, Dr. {person}, wants to see me again on {when} about the blood test.",
        ("When do I go back to the doctor?", "What did the GP say about the blood test?"),
    ),
    "car": (
        "The car is booked in for its service at the garage on {when}; they quoted {amount}.",
        ("When is the car service?", "How much will the garage charge for the service?"),
    ),
    "vet": (
        "The vet said the dog needs its booster vaccination before {when}.",
        ("When does the dog need the vaccination?", "What did the vet say about the dog?"),
    ),
    "wifi": (
        "The wifi password at {place} is {code}.",
        ("What's the wifi password at {place}?", "How do I get online at {place}?"),
    ),
    "key": (
        "Left the spare key to {place} with {person}.",
        ("Who has the spare key to {place}?", "Where is the spare key for {place}?"),
    ),
    "locker": ("My gym locker code is {code}.", ("What's my locker code at the gym?",)),
    "parking": (
        "Parked the car at the airport, level {level}, row {row}.",
        ("Where did I park at the airport?",),
    ),
    "refund": (
        "Returned the {item} to {shop}; the refund of {amount} should arrive in ten days.",
        ("Did I get my money back for the {item}?", "How much is the refund for the {item}?"),
    ),
    "library": (
        "Borrowed 'The {title}' from the library; it is due back on {when}.",
        ("When is the library book due?", "Which book did I borrow from the library?"),
    ),
    "tram": (
        "The city council approved a tram line to {district}, to open in {year}.",
        (
            "What did the council decide about the tram to {district}?",
            "When will the tram to {district} open?",
        ),
    ),
    "birthday": (
        "{person}'s birthday is on {when}; she loves {like}.",
        ("What could I give {person} for her birthday?", "When is {person}'s birthday?"),
    ),
    "deadline": (
        "The {project} project deadline moved to {when}.",
        ("When is the {project} deadline?", "Did the {project} deadline change?"),
    ),
    "passport": (
        "Put the passports in the blue folder in the {place_in_home}.",
        ("Where are the passports?",),
    ),
}
NEAR_MISS = {  # the same kind of memory, wrong for the question
    "dentist": "Booked {person2}'s dentist check-up for {when2}.",
    "wifi": "The wifi password at {place2} is {code2}.",
    "key": "Left the spare key to {place2} with {person2}.",
    "car": "{person2}'s car failed its inspection on Tuesday.",
    "library": "Returned 'The {title2}' to the library.",
    "birthday": "{person2}'s birthday party was great; we played {like2} all night.",
    "deadline": "The {project2} project kicked off with a long meeting.",
    "tram": "The council is still debating bus lanes in {district2}.",
    "refund": "Bought a new {item2} at {shop2}.",
}
CHATTER = words(
    "Bought milk, eggs and bread at the corner shop.|Went for a 5 km run along the river.|"
    "Cooked pasta with mushrooms for dinner.|Watched a documentary about whales.|"
    "Cleaned the kitchen and took out the recycling.|Walked the dog in the park for an hour.|"
    "Called {person} to catch up; she is busy with work.|Tried the new bakery on Main Street.|"
    "Read an article about electric cars.|Had a long video call with the team.|"
    "It rained all day, stayed in and read.|Fixed the squeaky door in the hallway.|"
    "Ordered new printer ink online.|Had coffee with {person} near the station.|"
    "Paid the electricity bill.|Did the laundry and ironed shirts.|"
    "Watched the football match with {person}.|Went to a yoga class after work.|"
    "The train was 20 minutes late this morning.|Planted tomatoes on the balcony."
)
TITLES = words("Silent Orchard|Glass Harbour|Winter Ledger|Northern Lights|Paper Fox|Iron Garden")
HOMES = words("hall cupboard|desk drawer|bedroom wardrobe|filing cabinet")


@dataclass(frozen=True)
class Memory:
    key: str  # stable name: questions point at it
    text: str
    date: str
    half: str | None  # None: chatter or a near miss, never asked about


@dataclass(frozen=True)
class Question:
    text: str
    now: str
    answer: str  # Memory.key
    half: str
    delay_days: int


@dataclass(frozen=True)
class EventLog:
    memories: list[Memory]
    questions: list[Question]


def _half(text: str) -> str:
    return "tuning" if hashlib.sha1(text.encode()).digest()[0] % 2 == 0 else "held_back"


def _details(rng: random.Random) -> dict[str, str]:
    day = START + np.timedelta64(rng.randrange(DAYS, DAYS + 60), "D")
    pick = {
        "person": rng.choice(PEOPLE),
        "place": rng.choice(PLACES),
        "shop": rng.choice(SHOPS),
        "item": rng.choice(ITEMS),
        "district": rng.choice(DISTRICTS),
        "project": rng.choice(PROJECTS),
        "like": rng.choice(LIKES),
        "title": rng.choice(TITLES),
        "place_in_home": rng.choice(HOMES),
    }
    extra = {
        f"{name}2": rng.choice([v for v in pool if v != pick[name]])
        for name, pool in (
            ("person", PEOPLE),
            ("place", PLACES),
            ("shop", SHOPS),
            ("item", ITEMS),
            ("district", DISTRICTS),
            ("project", PROJECTS),
            ("like", LIKES),
            ("title", TITLES),
        )
    }
    return {
        **pick,
        **extra,
        "when": str(day),
        "when2": str(day + np.timedelta64(9, "D")),
        "hour": f"{rng.randrange(8, 18)}:{rng.choice(['00', '15', '30', '45'])}",
        "amount": f"{rng.randrange(30, 400)} euros",
        "code": f"{rng.randrange(10**5, 10**6)}",
        "code2": f"{rng.randrange(10**5, 10**6)}",
        "level": str(rng.randrange(1, 6)),
        "row": rng.choice("ABCDEFGH"),
        "year": str(rng.randrange(2026, 2030)),
    }


DELAYS = ((1, 7), (8, 35), (36, 150))  # days: soon after, weeks later, months later


def generate(seed: int = 3, keys: int = 70) -> EventLog:
    """About `keys` key memories with their questions, near misses and daily chatter."""
    rng = random.Random(seed)
    memories: list[Memory] = []
    questions: list[Question] = []
    kinds = list(KEYS)
    for i in range(keys):
        kind = kinds[i % len(kinds)]
        template, asks = KEYS[kind]
        details = _details(rng)
        day = rng.randrange(0, DAYS - 20)
        text = template.format(**details)
        key = f"{kind}-{i}"
        half = _half(text)
        memories.append(Memory(key, text, str(START + np.timedelta64(day, "D")), half))
        if kind in NEAR_MISS:
            miss_day = min(DAYS - 1, day + rng.randrange(-20, 40))
            memories.append(
                Memory(
                    f"{key}-miss",
                    NEAR_MISS[kind].format(**details),
                    str(START + np.timedelta64(max(miss_day, 0), "D")),
                    None,
                )
            )
        for _ in range(rng.choice((1, 1, 2, 3))):  # some things are asked about again and again
            low, high = rng.choice(DELAYS)
            delay = rng.randrange(low, high + 1)
            if day + delay >= DAYS + 30:
                continue
            now = str(START + np.timedelta64(day + delay, "D"))
            questions.append(Question(rng.choice(asks).format(**details), now, key, half, delay))
    for day in range(DAYS + 30):
        for _ in range(rng.randrange(1, 4)):
            text = rng.choice(CHATTER).format(person=rng.choice(PEOPLE))
            memories.append(
                Memory(
                    f"chatter-{len(memories)}", text, str(START + np.timedelta64(day, "D")), None
                )
            )
    memories.sort(key=lambda m: (m.date, m.key))
    questions.sort(key=lambda q: (q.now, q.answer))
    return EventLog(memories, questions)
