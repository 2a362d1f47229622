"""Relation classifiers: the LLM classifier's output handling, and the offline rules."""

from __future__ import annotations

import json

import pytest
from test_props_world import ctx, llm_ctx  # noqa: F401 - fixtures

from bench.props_worlds import offline_classifier
from graphmem.errors import InvalidInput, LLMError
from graphmem.props import PropsMemory, add_propositions, counts, list_relations
from graphmem.props.classify import Candidate, Judgement, parse_judgements
from graphmem.props.llmjson import Malformed
from graphmem.props.model import make_proposition
from graphmem.props.offline import RuleClassifier, other_subjects
from graphmem.props.reading import read

OLD = {"text": "Marta Velkova is the chief executive of Quillon Dynamics.", "date": "2015-03-02"}
NEW = {"text": "Idris Okonjo is the chief executive of Quillon Dynamics.", "date": "2019-03-18"}


def good(label: str = "updates", confidence: float = 0.8) -> dict:
    return {
        "content": json.dumps(
            {"judgements": [{"index": 1, "label": label, "confidence": confidence}]}
        )
    }


def test_malformed_output_is_retried_once(llm_server, llm_ctx: PropsMemory) -> None:  # noqa: F811
    add_propositions(llm_ctx, [OLD])  # nothing to compare with: no LLM call
    assert llm_server.requests == []
    llm_server.script({"content": "{not json"}, good())
    report = add_propositions(llm_ctx, [NEW])
    assert report.relations == 1
    first, retry = llm_server.requests
    assert first["model"] == llm_ctx.llm.model
    assert retry["messages"][-2] == {"role": "assistant", "content": "{not json"}
    assert "not valid JSON" in retry["messages"][-1]["content"]
    (edge,) = list_relations(llm_ctx)
    assert (edge.kind, edge.confidence) == ("updates", 0.8)


@pytest.mark.parametrize(
    "bad",
    [
        {"judgements": [{"index": 2, "label": "updates", "confidence": 0.5}]},  # out of range
        {"judgements": [{"index": 1, "label": "replaces", "confidence": 0.5}]},
        {"judgements": [{"index": 1, "label": "updates", "confidence": 1.5}]},
        {"judgements": [{"index": True, "label": "updates", "confidence": 0.5}]},
        {"judgements": "updates"},
        [],
    ],
)
def test_invalid_judgements_are_retried(
    llm_server,
    llm_ctx: PropsMemory,  # noqa: F811
    bad: object,
) -> None:
    add_propositions(llm_ctx, [OLD])
    llm_server.script({"content": json.dumps(bad)}, good("supports", 0.6))
    assert add_propositions(llm_ctx, [NEW]).relations == 1
    assert "invalid" in llm_server.requests[1]["messages"][-1]["content"]
    assert list_relations(llm_ctx)[0].kind == "supports"


def test_bad_twice_is_an_llm_error_and_nothing_is_half_written(
    llm_server,
    llm_ctx: PropsMemory,  # noqa: F811
) -> None:
    add_propositions(llm_ctx, [OLD])
    llm_server.script({"content": "nope"}, {"content": '{"judgements": [{"index": 9}]}'})
    new = make_proposition(NEW["text"], NEW["date"])
    with pytest.raises(LLMError, match=f"proposition {new.id}.*malformed output twice"):
        add_propositions(llm_ctx, [NEW, {"text": "Another statement.", "date": "2019-03-19"}])
    assert counts(llm_ctx) == {"propositions": 1, "documents": 0, "states": 0, "relations": 0}
    vec = llm_ctx.embedder.encode_one(NEW["text"])
    assert len(llm_ctx.vectors.search("Proposition", vec, 5)) == 1  # nor in the index


def test_parse_judgements_fills_norel_and_rejects_duplicates() -> None:
    out = parse_judgements({"judgements": [{"index": 2, "label": "supports", "confidence": 1}]}, 3)
    assert out == [
        Judgement(0, "norel", 1.0),
        Judgement(1, "supports", 1.0),
        Judgement(2, "norel", 1.0),
    ]
    twice = {"judgements": [{"index": 1, "label": "norel", "confidence": 0.1}] * 2}
    with pytest.raises(Malformed, match="judged twice"):
        parse_judgements(twice, 2)


OFFLINE_CASES = [
    (NEW["text"], OLD["text"], "updates"),
    ("The Lumen Kettle costs 99 dollars.", "The Lumen Kettle costs 89 dollars.", "updates"),
    (
        "Quillon Dynamics did not acquire Brenmoor Labs.",
        "Quillon Dynamics acquired Brenmoor Labs.",
        "contradicts",
    ),
    ("Port Kelvary has 47,300 residents.", "The population of Port Kelvary is 47,300.", "supports"),
    (
        "Farrowbright sold 410,000 kettles in 2018.",
        "Farrowbright sold 300,000 kettles in 2017.",
        "norel",
    ),  # different periods
    (
        "Halvek has a population of 176,500.",
        "The population of Port Kelvary is 41,200.",
        "norel",
    ),  # different subjects
    # reversal verbs (issue 15): a move back, a closed route, a reopened one
    (
        "Pellam Logistics moved its headquarters back to Avonport.",
        "Pellam Logistics moved its headquarters from Avonport to Kestrel Bay.",
        "updates",
    ),
    (
        "Pellam Logistics moved its headquarters back to Avonport.",
        "Pellam Logistics has its headquarters in Avonport.",
        "supports",
    ),
    (
        "Ferrow Air closed the route between Linmouth and Sarby.",
        "Ferrow Air opened the route between Linmouth and Sarby.",
        "updates",
    ),
    (
        "Ferrow Air reopened the route between Linmouth and Sarby.",
        "Ferrow Air closed the route between Linmouth and Sarby.",
        "updates",
    ),
    (
        "The Linmouth ferry service was suspended because of storms.",
        "The Linmouth ferry now runs every two hours.",
        "updates",
    ),
    (
        "The Linmouth ferry service resumed with sailings every hour.",
        "The Linmouth ferry service was suspended because of storms.",
        "updates",
    ),
    # an acquisition says nothing about revenue
    (
        "Dalvik Foods agreed to be acquired by Omberg Group.",
        "Dalvik Foods reported revenue of 480 million euros for 2021.",
        "norel",
    ),
    # denying a resignation supports the election; the demo's pair: staying open supports
    # the denial that the site will close, and the denial contradicts the rumour
    (
        "Ines Albre denied reports that she has resigned as mayor.",
        "Ines Albre was elected mayor of Corby Vale.",
        "supports",
    ),
    (
        "Tomas Rilke, chief executive of Quillmere Foundry, said the Brackwater site will "
        "stay open.",
        "Quillmere Foundry denied that it will close its Brackwater site.",
        "supports",
    ),
    (
        "Quillmere Foundry denied that it will close its Brackwater site.",
        "A rumour claims that Quillmere Foundry will close its Brackwater site.",
        "contradicts",
    ),
    # a confirmed statement against a rumour of the opposite: the rumour is shown false
    (
        "Tomas Rilke, chief executive of Quillmere Foundry, said the Brackwater site will "
        "stay open.",
        "A rumour claims that Quillmere Foundry will close its Brackwater site.",
        "contradicts",
    ),
    # hedged claims (a blog, a forum post) never update or contradict a plain statement
    (
        "A travel blog claimed that the Serrin Glacier is growing.",
        "Glaciologists said that the Serrin Glacier is not growing.",
        "norel",
    ),
    (
        "A forum post says the Linmouth ferry now costs 40 euros.",
        "The Linmouth ferry costs 25 euros.",
        "norel",
    ),
    # an official false claim updates; its correction contradicts it
    (
        "The ministry said the Linmouth ferry costs 40 euros.",
        "The Linmouth ferry costs 25 euros.",
        "updates",
    ),
    (
        "The ferry operator said the ministry's figure was wrong and the Linmouth ferry costs "
        "25 euros.",
        "The ministry said the Linmouth ferry costs 40 euros.",
        "contradicts",
    ),
    # other words for switching something on and off; the same switch agrees whatever the reason
    (
        "Orla Water lifted the hosepipe ban in Kessing.",
        "Orla Water imposed a hosepipe ban in Kessing.",
        "updates",
    ),
    (
        "Dunfield Energy brought the Arlow power station back into service.",
        "Dunfield Energy decommissioned the Arlow power station.",
        "updates",
    ),
    (
        "The Corran Playhouse reopened with a new roof.",
        "The Corran Playhouse reopened after two years of repairs.",
        "supports",
    ),
    # leaving a post, a successor, the same post elsewhere
    (
        "Ravi Onden stood down as director of the Corran Museum.",
        "Ravi Onden was appointed director of the Corran Museum.",
        "updates",
    ),
    (
        "Mia Holt took over from Ravi Onden as director of the Corran Museum.",
        "Ravi Onden was appointed director of the Corran Museum.",
        "updates",
    ),
    (
        "Ravi Onden was named director of the Ashby Gallery.",
        "Ravi Onden was appointed director of the Corran Museum.",
        "norel",
    ),
    # a correction naming the old value; a retracted study
    (
        "Experts found that the Corran Triptych was painted by Ilse Varn, not by Otto Brell.",
        "The Corran Triptych is the work of Otto Brell.",
        "contradicts",
    ),
    (
        "The journal withdrew the Kessing study on Dralex after errors were found.",
        "A study at Kessing Hospital found that Dralex halves recovery time.",
        "contradicts",
    ),
    # a plan does not change the current value; a sale is not a new size
    (
        "Ravi Onden will retire as director of the Corran Museum in June.",
        "Ravi Onden is the director of the Corran Museum.",
        "norel",
    ),
    (
        "Dunfield Energy sold the Arlow wind farm to Vantage Power.",
        "Dunfield Energy's Arlow wind farm has 40 turbines.",
        "norel",
    ),
    # another attribute of the same subject: switching off a thing the old one never mentions
    (
        "Pellam Ferries withdrew evening sailings between Arbury and Tosk.",
        "Pellam Ferries bought two catamarans from the Crane yard.",
        "norel",
    ),
    (
        "Pellam Ferries withdrew evening sailings between Arbury and Tosk.",
        "Pellam Ferries runs evening sailings between Arbury and Tosk.",
        "updates",
    ),
    # a correction with a new figure; keeping a figure; a successor named with "succeeding"
    (
        "The statistics board corrected its figure: Velda Port handled 4.1 million tonnes of "
        "cargo in 2019.",
        "Velda Port handled 4.6 million tonnes of cargo in 2019.",
        "contradicts",
    ),
    (
        "Kessing Council froze the hourly parking charge at 3.50 pounds.",
        "Kessing Council raised the hourly parking charge to 3.50 pounds.",
        "supports",
    ),
    (
        "The Corran Museum appointed Lise Amon as its director, succeeding Ravi Onden.",
        "Ravi Onden is the director of the Corran Museum.",
        "updates",
    ),
    # round 23: a year that is a schedule's value is a value, not a period; a year dating a
    # switch the other way does not make it another period's fact
    (
        "The Veldmoor bridge project is now expected to finish in 2023.",
        "The Veldmoor bridge project is expected to finish in 2021.",
        "updates",
    ),
    (
        "Completion of the Harlow bypass has been pushed back to 2024.",
        "The Harlow bypass is expected to be completed in 2022.",
        "updates",
    ),
    (
        "The Kessing library will not reopen until 2025.",
        "The Kessing library will reopen in 2024.",
        "updates",
    ),
    (
        "The Kessing library reopened in 2024.",
        "The Kessing library closed in 2021.",
        "updates",
    ),
    (
        "The council's contract with Vossen Waste was extended until 2030.",
        "The council's contract with Vossen Waste runs until 2027.",
        "updates",
    ),
    (
        "The launch of the Vela satellite was postponed until March.",
        "The Vela satellite will launch in January.",
        "updates",
    ),
    (
        "The Tolvern marathon will now take place on 12 October.",
        "The Tolvern marathon will take place on 5 October.",
        "updates",
    ),
    # the figure replaced is not the new one's; a deal that fell apart
    (
        "Tessla Bakery raised the price of a loaf from 2.10 to 2.40 euros.",
        "A loaf at Tessla Bakery costs 2.10 euros.",
        "updates",
    ),
    (
        "The purchase of Dunmoor Springs by Pell Water collapsed.",
        "Pell Water agreed to buy Dunmoor Springs.",
        "updates",
    ),
    # round 24: what an earlier version said, or what was reported in error, is denied; losing
    # an election leaves the office; "is to close" is a plan; calling reports speculation
    # dismisses them
    (
        "An earlier version of this article said the Orrin Trust has 400 members.",
        "The Orrin Trust has 400 members.",
        "contradicts",
    ),
    (
        "We wrongly reported that the Calder Street pool had closed.",
        "The Calder Street pool has closed.",
        "contradicts",
    ),
    (
        "Ana Ruiz lost the mayoral election to Ben Okafor.",
        "Ana Ruiz was elected mayor of Tolvern.",
        "updates",
    ),
    (
        "Kessel Foods is to close its Marrow Lane bakery next year.",
        "The Marrow Lane bakery of Kessel Foods is open.",
        "norel",
    ),
    (
        "The council called reports that Brightwell Civils will be removed from the tram "
        "project speculation.",
        "Brightwell Civils will be removed from the tram project, according to council insiders.",
        "contradicts",
    ),
    # round 4: figures of another role of the same subject are no change
    ("Halvick Bakery runs 12 delivery vans.", "Halvick Bakery employs 40 bakers.", "norel"),
    # a denied closure says nothing of the site's size or its new buildings
    (
        "Velmar Mills denied that it will close its Dunholt site.",
        "Velmar Mills employs 800 people in the town of Dunholt.",
        "norel",
    ),
    (
        "Velmar Mills denied that it will close its Dunholt site.",
        "Velmar Mills opened a second weaving shed in Dunholt.",
        "norel",
    ),
    # round 6: back in its usual service, in words no rule knows, it restates that service
    (
        "With a new cable fitted, the Brann Point cable car is carrying visitors to the top again.",
        "The Brann Point cable car carries visitors from the harbour to the top of Brann Point.",
        "supports",
    ),
]


# when each case's statements were made: the older on the first date, the newer on the second
CASE_DATES = ("2015-01-01", "2020-01-01")
# round 19: a figure for 2019 cannot have been given in 2015; the relation model reads how far
# apart two statements were made, and corrections come months, not years, after the figure
DATED_CASES = {
    new: ("2020-03-02", "2020-06-01")
    for new, _, _ in OFFLINE_CASES
    if new.startswith(
        ("The statistics board corrected its figure", "An earlier version", "We wrongly")
    )
}


@pytest.mark.parametrize(("new", "old", "label"), OFFLINE_CASES)
def test_offline_rules(new: str, old: str, label: str, ctx: PropsMemory) -> None:  # noqa: F811
    vecs = ctx.embedder.encode([new, old])
    made, said = DATED_CASES.get(new, CASE_DATES)
    older = make_proposition(old, made)
    judged = offline_classifier().classify(
        make_proposition(new, said), [Candidate(older, float(vecs[0] @ vecs[1]))]
    )
    assert [j.label for j in judged] == [label]
    assert 0 <= judged[0].confidence <= 1


# round 7: not among OFFLINE_CASES, so not a training row of the relation model
TWO_FACTS = (
    "Kelby marina raises its mooring fee to 40 euros a night; the slipway charge stays at 15 euros."
)


@pytest.mark.parametrize(
    ("old", "label"),
    [
        ("Mooring at Kelby marina costs 32 euros a night.", "updates"),
        ("The slipway charge at Kelby marina is 15 euros.", "supports"),
    ],
)
def test_a_two_fact_statement_updates_one_attribute_and_supports_the_other(
    old: str,
    label: str,
    ctx: PropsMemory,  # noqa: F811
) -> None:
    vecs = ctx.embedder.encode([TWO_FACTS, old])
    judged = offline_classifier().classify(
        make_proposition(TWO_FACTS, "2020-01-01"),
        [Candidate(make_proposition(old, "2015-01-01"), float(vecs[0] @ vecs[1]))],
    )
    assert [j.label for j in judged] == [label]


def test_a_hedged_source_name_is_a_hedge(ctx: PropsMemory) -> None:  # noqa: F811
    fact, claim = "Pella Danvers is the head coach.", "Pella Danvers resigned as head coach."
    vecs = ctx.embedder.encode([claim, fact])
    older = make_proposition(fact, "2019-01-01", source="ravens-club")
    labels = [
        offline_classifier()
        .classify(
            make_proposition(claim, "2019-10-10", source=source),
            [Candidate(older, float(vecs[0] @ vecs[1]))],
        )[0]
        .label
        for source in ("halvek-herald", "kelvary-forum", "sports-blog")
    ]
    assert labels == ["updates", "norel", "norel"]


def test_llm_prompt_carries_the_guidance_and_the_sources(
    llm_server,
    llm_ctx: PropsMemory,  # noqa: F811
) -> None:
    add_propositions(llm_ctx, [{**OLD, "source": "halvek-herald"}])
    llm_server.script(good("updates"))
    add_propositions(llm_ctx, [{**NEW, "source": "kelvary-forum"}])
    system, user = llm_server.requests[-1]["messages"]
    for guidance in (
        "moved back to A",
        "closed the route",
        "has not resigned",
        "A hedged NEW statement never updates",
        "denies a hedged claim",
    ):
        assert guidance in system["content"]
    assert "NEW (2019-03-18, source: kelvary-forum)" in user["content"]
    assert "[1] (2015-03-02, source: halvek-herald)" in user["content"]


def test_a_classifier_answering_out_of_range_is_reported(ctx: PropsMemory) -> None:  # noqa: F811
    class Broken:
        name = "broken"

        def classify(self, new, candidates):
            return [Judgement(len(candidates), "updates", 1.0)]

    add_propositions(ctx, [OLD])
    ctx.classifier = Broken()
    with pytest.raises(InvalidInput, match="broken returned an invalid"):
        add_propositions(ctx, [NEW])
    assert counts(ctx)["propositions"] == 1


# round 30: a news corpus reports many companies, towns and clubs in the same words; not among
# OFFLINE_CASES, so not training rows of the relation model
SAME_NEWS = [
    (
        "Pellagra Mining said its workforce stood at 12,400.",
        "Thessaly Foods said its workforce stood at 3,150.",
    ),
    (
        "Corvane Rovers climbed to ninth place in the league table.",
        "Ostery Athletic climbed to twelfth place in the league table.",
    ),
    (
        "Quenby's jobless rate moved to 4.1 percent.",
        "Sallowmere's jobless rate moved to 6.3 percent.",
    ),
]
# the same subject, or a name in common: changes as before
ONE_SUBJECT = [
    (
        "Kestlow Freight cut its workforce to 9,100.",
        "Kestlow Freight said its workforce stood at 11,300.",
    ),
    (NEW["text"], OLD["text"]),  # two chief executives of one company
]


def _judged(ctx: PropsMemory, new: str, old: str, classifier) -> str:  # noqa: F811
    vecs = ctx.embedder.encode([new, old])
    older = Candidate(make_proposition(old, "2019-06-01"), float(vecs[0] @ vecs[1]))
    return classifier.classify(make_proposition(new, "2020-01-01"), [older])[0].label


@pytest.mark.parametrize(("new", "old"), SAME_NEWS)
def test_the_same_news_of_two_subjects_changes_neither(
    new: str,
    old: str,
    ctx: PropsMemory,  # noqa: F811
) -> None:
    assert other_subjects(read(new), read(old), 0.5)
    for classifier in (offline_classifier(), RuleClassifier()):
        assert _judged(ctx, new, old, classifier) not in ("updates", "contradicts")


@pytest.mark.parametrize(("new", "old"), ONE_SUBJECT)
def test_news_of_one_subject_still_updates(new: str, old: str, ctx: PropsMemory) -> None:  # noqa: F811
    assert not other_subjects(read(new), read(old), 0.5)
    assert _judged(ctx, new, old, offline_classifier()) == "updates"


def test_a_heading_is_no_subject() -> None:
    new, old = (
        "Council Notice: parking costs 2 pounds an hour.",
        "Harbour Bulletin: parking costs 3 pounds an hour.",
    )
    assert read(new).opening == "" and not other_subjects(read(new), read(old), 0.5)


@pytest.mark.parametrize(
    ("new", "old"),
    [
        (
            "Yesterday the library cut its opening hours to 30 a week.",
            "Today the library set its opening hours at 40 a week.",
        ),
        ("Good news: the bridge reopened to traffic.", "Bad news: the bridge closed to traffic."),
        (
            "UPDATE the bridge reopened to traffic on Friday.",
            "BREAKING the bridge closed to traffic on Monday.",
        ),
        (
            "Yorkshire Water said the reservoir level fell to 40 percent.",
            "Met Office forecasters said the reservoir level fell to 45 percent.",
        ),
        (
            "Mayor Ann Bell said the library now opens at 9am.",
            "Councillor Ann Bell said the library opens at 10am.",
        ),
    ],
)
def test_an_ordinary_opening_word_or_a_speaker_is_no_subject(new: str, old: str) -> None:
    # a review found each of these read as two subjects by the guard's first version
    assert not other_subjects(read(new), read(old), 0.8)
