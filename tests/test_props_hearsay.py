"""Hearsay is a hedge: a statement relaying what is going round never updates a plain fact."""

from __future__ import annotations

import pytest
from test_props_world import ctx  # noqa: F401 - fixtures

from bench.props_worlds import offline_classifier
from graphmem.props import PropsMemory
from graphmem.props.classify import Candidate
from graphmem.props.model import make_proposition
from graphmem.props.reading import read

HEARSAY = (
    "apparently the Corn Street bakery is shutting after Christmas",
    "Someone at the bus stop said the number 9 is being cut to hourly.",
    "my brother-in-law's mate says the pool is closing for a year",
    "I'm hearing on the grapevine that the head teacher is off to a bigger school.",
    "heard the market's moving to Tuesdays from spring",
    "Word is the depot manager has handed in his notice.",
    "The council is understood to be weighing a sale of the old library.",
    "Dunmore Rovers' kit man reckons the captain has been dropped.",
    "anyone know if the surgery is stopping Saturday mornings? my neighbour says so",
    "The festival is moving to August. Is that true?",
    "One caller says the ferry fare is going up to 30 pounds.",
    "my mate Dave says the pool is closing",
    "We are hearing that the depot will close in June.",
    "My neighbour, who is on the council, says the library is closing.",
    "The pool is shut and word is it won't reopen.",
    # round 13 (a staff-review site): where the word goes round, the writer told
    "Cons: nobody tells us anything. Word on the shop floor is the closures are back on.",
    "Word in the corridors is that the chief executive will go.",
    "Cons: I'm told the helpline is being shut down next year.",
    "The hall opened in 1921, so I am told.",
    "I was told by a friend that the pool is closing.",
    # round 14 (gossip columns, trade newsletters, a curator's notes)
    "A little bird tells me the director is eyeing the exit.",
    "One hears that the lute-player is about to be demoted to a later copy.",
    "The museum is said to have sounded out Marcus Hale for the directorship.",
    "It is said that the mill will close before Easter.",
    "The gift looks clean enough on paper, or so they say in St James's.",
    "The smart money is on Sam Okoro for chief executive.",
    "The trade's money is on the panel sending the heirs away empty-handed.",
    "I am inclined to see a second hand in the drapery, perhaps the studio.",
    "My working assumption is that he bought the copper on the London market.",
    # round 15: a denial in an earlier sentence leaves the writer's hedge standing
    "New Lanternfish is thinner than it used to be, not a fan. Barman at the Crown reckons "
    "they're cutting it to 4.2 by the autumn.",
    "The new signs aren't up yet. They're sat bagged up on the verge apparently.",
    "No rooms left at all, she says. Apparently you have nothing booked.",
    # round 15: newsletters, a union bulletin, a beer column, a regional paper
    "The towpath will be open again for Easter. Not confirmed, so don't hold us to it.",
    "my guy at the league says Finals are getting pushed to October. not official yet",
    "According to our information, the board has approached Anne Brel to run the resort.",
    "It has been suggested to us that the managing director is about to move on.",
    "One to watch: we are told the electric buses may slip again.",
    "I'm reliably told that the original 5.4% pale is coming back next spring.",
    "The word on the garage floor is that the depot is for the chop.",
    "The word is that the depot is for the chop.",
)
PLAIN = (
    "The pool reopens on Monday - whatever you may have heard, it was never closing.",
    "Sorry you heard it on the grapevine first: I have sold the building to Mrs Shah.",
    "The director gave evidence at an employment tribunal hearing in Dunmore.",
    "Someone else is doing the school run this week.",
    "For anyone who missed it, the library is open nine till six.",
    "The chair's word is final on the agenda.",
    "The word on the agenda is final.",
    "Ministers were told the plant would close.",
    "The committee was told the figures were provisional.",
    "I was told by the finance director that the budget is 5 million pounds.",
    "I was told to leave the building.",
    "I have been told to reapply in May.",
    "Microsoft Word on the office computers is out of date.",
    "The terms are understood by both sides, the union said.",
    "The mayor said the bridge will reopen in May.",
    # official prose: a hearing that is no rumour, a teller named or in another clause
    "The court sat for two days and heard evidence from 14 witnesses.",
    "The case, heard by the High Court in May, was dismissed.",
    "Councillors are hearing evidence on the plan this week.",
    "Senior nurse Jane Okafor said the ward would reopen in May.",
    "The pharmacist, Raj Patel, said supplies had returned to normal.",
    "Residents can contact the helpline for advice, the council said.",
    "The reservoir, the main water source, will close for repairs, the utility said.",
    "The neighbour dispute was settled, the court said.",
    "Anyone else wishing to apply should contact the parish office.",
    "No one heard the alarm go off.",
    "On behalf of the trustees it was said that the director would remain.",
    "The minister said to reporters that rates would rise.",
    "The money is spent on roads and bridges.",
    "The planning assumption is 3 per cent growth a year.",
    "The committee was inclined towards the second bid.",
    # round 15: a cheer is no hearsay; a denial before "apparently" in its sentence denies it
    "The Bill is passed. Hon. Members: Hear, hear!",
    "The pool is not closing, apparently or otherwise: it opens on Monday.",
    "The council dismissed the rumours. The depot stays open.",
    "The date has not been confirmed by the council.",
    "It was suggested by the chair that the meeting move to May.",
    "According to our records, the invoice was paid in March.",
    "We are told to wait for the next bus.",
    "The word on the sign is CLOSED.",
    "A new route has been suggested for the ferry.",
    "Come to our information evening on Monday.",
    "The depot is not apparently closing.",
    "Not sure. The pool isn't closing, apparently.",
)


@pytest.mark.parametrize("text", HEARSAY)
def test_hearsay_reads_as_a_hedge(text: str) -> None:
    assert read(text).hedged


@pytest.mark.parametrize("text", PLAIN)
def test_plain_statements_that_mention_hearing_or_saying_are_no_hedge(text: str) -> None:
    assert not read(text).hedged


@pytest.mark.parametrize(
    ("fact", "claim"),
    [
        (
            "A single ferry ticket to Ellay costs 22 pounds.",
            "The single ferry ticket to Ellay goes up to 30 pounds in May, {teller}.",
        ),
        (
            "Marta Quill chairs the Corby allotment society.",
            "Marta Quill has stepped down as chair of the Corby allotment society, {teller}.",
        ),
    ],
)
def test_hearsay_of_a_new_value_never_updates_the_fact(
    fact: str,
    claim: str,
    ctx: PropsMemory,  # noqa: F811
) -> None:
    older = make_proposition(fact, "2021-01-01")
    labels = {}
    for teller in ("the owner said", "someone in the queue said", "my neighbour says"):
        text = claim.format(teller=teller)
        vecs = ctx.embedder.encode([text, fact])
        judged = offline_classifier().classify(
            make_proposition(text, "2021-05-01"), [Candidate(older, float(vecs[0] @ vecs[1]))]
        )
        labels[teller] = judged[0].label
    assert labels == {
        "the owner said": "updates",
        "someone in the queue said": "norel",
        "my neighbour says": "norel",
    }
