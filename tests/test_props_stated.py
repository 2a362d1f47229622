"""What a statement states as of its date (graphmem/props/stated.py), on entities of no world."""

from __future__ import annotations

import numpy as np
import pytest

from bench.props_worlds import states
from graphmem.props.model import Proposition
from graphmem.props.reading import stem
from graphmem.props.stated import STATE, stated, takes_effect


def test_a_change_asserts_its_new_value_and_denies_the_old_one() -> None:
    said = stated("Velmor Transit raised the day fare from 3 to 4 crowns.")
    assert said.sign("4") == 1
    assert said.sign("3") == -1
    assert "crown" in said.roles["4"]
    assert said.sign("velmor") == 1


def test_a_figure_keeps_its_roles() -> None:
    said = stated("The Orrin estate has 19 hectares of orchards and 40 staff.")
    assert "hectar" in said.roles["19"]
    assert "staff" in said.roles["40"]
    assert "hectar" not in said.roles["40"]


def test_figures_in_words_and_scales_are_read_as_values() -> None:
    said = stated("Fenna Quay welcomed 1.4 million visitors and runs four boats.")
    assert said.sign("1400000") == 1
    assert said.sign("4") == 1


@pytest.mark.parametrize(
    ("text", "gone", "holds"),
    [
        ("Pemberly Foods bought the Osk creamery from the Dallow family.", "dallow", "pemberly"),
        ("Vessa Grain named Odile Marr chair in place of Bram Tolle.", "bram", "odile"),
        ("Odile Marr handed the chair of Vessa Grain to Pia Sund.", "odile", "pia"),
        ("Corra Lund took over from Ivo Penn as warden.", "ivo", "corra"),
        ("Ilsa Varn retired as director of the Quorrow Trust.", "ilsa", "quorrow"),
    ],
)
def test_who_or_what_a_transfer_or_an_ending_replaces_is_denied(
    text: str, gone: str, holds: str
) -> None:
    said = stated(text)
    assert said.sign(stem(gone)) == -1  # terms are stemmed, names too
    assert said.sign(stem(holds)) == 1


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("The Brisk Hall gallery reopened after repairs.", 1),
        ("The Brisk Hall gallery closed for good.", -1),
        ("The Brisk Hall gallery no longer opens on Mondays.", -1),
        ("The Tavish ferry is out of service.", -1),
        ("The Tavish ferry is back in service.", 1),
        ("The Canby branch is lending books again.", 1),
        ("There is no toll on the Harlow causeway.", -1),
        ("The Tavish ferry did not sail this week.", -1),
    ],
)
def test_on_off_words_and_denials_give_the_state(text: str, state: int) -> None:
    assert stated(text).sign(STATE) == state


def test_a_denied_switch_states_the_opposite_and_keeps_what_it_is_about() -> None:
    said = stated("Orlan Mills denied that it will close the Kelbrook plant.")
    assert said.sign(STATE) == 1
    assert said.negated
    assert said.future
    assert said.sign("kelbrook") == 1


def test_a_denied_value_is_turned_over_not_the_state() -> None:
    said = stated("The agency revised its count: 4,200 members, not 5,100.")
    assert said.sign("4200") == 1
    assert said.sign("5100") == -1
    assert said.sign(STATE) == 0
    said = stated("Experts found the map was drawn by Ada Quell and not by Bo Rainer.")
    assert said.sign("ada") == 1
    assert said.sign("bo") == -1


def test_the_speaker_of_a_report_is_not_stated_but_who_denies_is() -> None:
    said = stated("The Dunlow council said the Marsh Lane pool reopened.")
    assert said.sign("council") == 0
    assert said.sign("marsh") == 1
    assert stated("Hollis Vane denied that she resigned as warden.").sign("holli") == 1
    assert stated("Hollis Vane denied that she resigned as warden.").sign(STATE) == 1


def test_names_are_told_from_words() -> None:
    said = stated("Quorrow Trust opened a new wing at Elm Rise.")
    assert {"quorrow", "trust", "elm", "ris"} <= said.names
    assert "wing" not in said.names


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("The Harlow pump house is out of action.", -1),
        ("Harlow pump house down after a boiler fault.", -1),
        ("Harlow pump house back on line with a new boiler.", 1),
        ("Velmor Transit dropped the night surcharge.", -1),
        ("Deputy warden Ivo Penn promoted to warden.", 1),
        ("The Tavish ferry ramp has been taken out for repairs.", -1),
        ("Velmor Transit pulled the plug on its night buses.", -1),
        ("Ivo Penn steps in as warden.", 1),
    ],
)
def test_more_on_off_forms_give_the_state(text: str, state: int) -> None:
    assert stated(text).sign(STATE) == state


@pytest.mark.parametrize(
    "text",
    [
        "Tavish fares dropped to 40 crowns.",  # a trend, not a switch
        "Tavish membership down to 51 boats.",
        "The crew moved into the old fire station at Elm Rise.",  # a noun's modifier
        "Quorrow Trust held an open day at Elm Rise.",
        "Quorrow Trust took out a loan of 3 million crowns.",
    ],
)
def test_words_that_only_look_like_on_off_words_give_no_state(text: str) -> None:
    assert stated(text).sign(STATE) == 0


@pytest.mark.parametrize(
    ("text", "gone", "holds"),
    [
        ("Pemberly Foods has sold the Osk creamery to Vessa Grain.", "pemberly", "vessa"),
        (
            "Ada Quell has moved to the harbour office, and Bo Rainer now runs the Osk depot.",
            "ada",
            "bo",
        ),
        ("Ada Quell withdrew from the Osk jury, and Bo Rainer steps in as chair.", "ada", "bo"),
        ("Ada Quell has pulled out of the Osk race.", "ada", "osk"),
    ],
)
def test_who_sells_or_moves_on_for_a_successor_is_denied(text: str, gone: str, holds: str) -> None:
    said = stated(text)
    assert said.sign(stem(gone)) == -1
    assert said.sign(stem(holds)) == 1


def test_a_trade_or_a_move_with_its_origin_keeps_its_subject() -> None:
    assert stated("Orlan Mills sells flour to bakers in Kelbrook.").sign("orlan") == 1
    said = stated("Corra Lund moves from Elm Rise to head the Osk depot; Ivo Penn is at Elm Rise.")
    assert said.sign("corra") == 1
    assert said.left == {"elm", stem("rise")}


def test_a_figure_keeps_the_word_before_a_verb_of_being() -> None:
    assert "toll" in stated("The Harlow toll is 3% of the fare.").roles["3"]


def _reads_as_first(question: str, options: list[str], text: str) -> None:
    """The reader takes `text` for the first option, and for no other as much."""
    read_as = _reads(question, options, [text])
    assert read_as[0] > 0
    assert read_as[0] > max(read_as[1:])


def _reads(question: str, options: list[str], texts: list[str]) -> list[float]:
    """What the benches' reader (v2) reads the statements as, summed per option."""
    props = [Proposition(f"s{i}", t, f"2020-01-0{i + 1}", 0, "") for i, t in enumerate(texts)]
    return list(states(options, props, np.ones(len(props)), question).sum(axis=0))


@pytest.mark.parametrize(
    ("question", "options", "text"),
    [
        (  # two facts joined: the on/off word speaks to the one it names
            "Who is head of Osk High?",
            ["Bo Rainer is head of Osk High.", "Ada Quell is head of Osk High."],
            "Ada Quell retires from Osk High; deputy Bo Rainer promoted to head from May.",
        ),
        (  # the mover leaves what the name after takes over
            "Who runs the Osk depot?",
            ["Bo Rainer runs the Osk depot.", "Ada Quell runs the Osk depot."],
            "Ada Quell has moved to the harbour office, and Bo Rainer now runs the Osk depot.",
        ),
        (  # moved from the subject to elsewhere: no longer the subject's
            "Who is head of Elm Rise?",
            ["Ivo Penn is head of Elm Rise.", "Corra Lund is head of Elm Rise."],
            "Corra Lund moves from Elm Rise to head the Osk depot; Ivo Penn named head there.",
        ),
        (  # a sale: the buyer holds it now
            "Who owns the Osk creamery?",
            ["Vessa Grain owns the Osk creamery.", "Pemberly Foods owns the Osk creamery."],
            "Pemberly Foods has sold the Osk creamery to Vessa Grain.",
        ),
        (  # "A - not B": the figures need no role in common with the option
            "How many came to the 2019 Velmor fair?",
            ["The 2019 Velmor fair drew 8,200 people.", "The 2019 Velmor fair drew 12,000 people."],
            "Turnout at the 2019 Velmor fair was 8,200 - not the 12,000 a blog claimed.",
        ),
        (  # the option's figure has its unit and verb, the statement only the figure
            "What was the Velmor 2020 budget?",
            ["The Velmor 2020 budget was £3.2m.", "The Velmor 2020 budget was £3.4m."],
            "Velmor board adopts 2020 budget: £3.2m.",
        ),
        (  # the levy named before a verb of being, in one clause of two
            "What toll does Harlow charge?",
            ["The Harlow toll is 3% of the fare.", "The Harlow toll is 4% of the fare."],
            "Harlow lifts its toll to 3% from 1 May; the pass is held at 40 crowns.",
        ),
        (
            "Is the Harlow pump house working?",
            ["The Harlow pump house is pumping water.", "The Harlow pump house is out of action."],
            "Harlow pump house back on line with a new boiler.",
        ),
        (
            "Is the Harlow pump house working?",
            ["The Harlow pump house is out of action.", "The Harlow pump house is pumping water."],
            "Harlow pump house down after a boiler fault; water brought in by tanker.",
        ),
    ],
)
def test_the_reader_takes_the_statement_for_the_first_option(
    question: str, options: list[str], text: str
) -> None:
    _reads_as_first(question, options, text)


@pytest.mark.parametrize(
    ("text", "future"),
    [
        ("Osk Transit will close the Velmor depot in May.", True),
        ("Osk Transit plans to close the Velmor depot.", True),
        ("Osk Transit opened a depot in Velmor, where 30 drivers will be based.", False),
        ("Osk Transit raised the fare to 4 crowns, saying the money will go on new buses.", False),
    ],
)
def test_only_a_future_word_of_the_statement_s_own_clause_makes_a_plan(
    text: str, future: bool
) -> None:
    assert stated(text).future is future


def test_a_speaker_after_the_content_or_a_capitalised_word_is_not_the_report_s_speaker() -> None:
    said = stated("The Ord Path reopened this week, said Pia Sund, who manages the paths.")
    assert said.sign(STATE) == 1
    assert said.sign("ord") == 1
    assert said.sign("pia") == 0  # who reports is not what is stated
    assert stated("Osk Transit has opened a depot in New Velmor.").sign("osk") == 1


@pytest.mark.parametrize(
    ("text", "new", "old"),
    [
        ("We're stretching the Velmor fair from five days to eight this year.", "8", "5"),
        ("The Velmor ferry goes from 3 to 4 crowns in May.", "4", "3"),
        ("The Velmor depot will open at 6 am rather than 7 am.", "6", "7"),
        ("Osk counted 2,650 riders instead of 3,100.", "2650", "3100"),
    ],
)
def test_a_value_replaced_needs_no_verb_of_change(text: str, new: str, old: str) -> None:
    said = stated(text)
    assert said.sign(new) == 1
    assert said.sign(old) == -1


@pytest.mark.parametrize(
    "text", ["The Velmor baths open from 7 am to 9 pm.", "The Osk office opens from 9 to 5."]
)
def test_a_range_is_no_change(text: str) -> None:
    said = stated(text)
    figures = {term: sign for term, sign in said.terms.items() if term[:1].isdigit()}
    assert len(figures) == 2
    assert set(figures.values()) == {1}


def test_the_giver_of_a_passive_transfer_and_who_is_dropped_from_a_role_are_denied() -> None:
    said = stated("The Osk mill was transferred by Velmor Council to the Osk Mill Trust.")
    assert said.sign("velmor") == -1
    assert said.sign("trust") == 1
    said = stated("The Velmor fair has dropped Osk Transit as sponsor and signed Pia Bank.")
    assert said.sign("osk") == -1
    assert said.sign("pia") == 1
    assert stated("The Osk mill was bought by Velmor Council.").sign("velmor") == 1


def test_a_denial_in_a_relative_clause_does_not_deny_the_statement_s_state() -> None:
    said = stated("Riders who do not pay can still use the Osk free tier.")
    assert said.sign(STATE) == 0
    said = stated("The Velmor palm, of which no other is known, is shown in the Osk house.")
    assert said.sign(STATE) == 0
    assert stated("There is no ferry to Velmor.").sign(STATE) == -1
    said = stated("Riders who do not pay now pay 30 crowns at Osk.")  # nor its figures
    assert said.sign("30") == 1
    assert said.sign(STATE) == 0


def test_a_closure_as_a_measure_does_not_drop_its_subject() -> None:
    said = stated("The council closed Fennick Library as a cost-saving measure.")
    assert said.sign("fennick") == 1


@pytest.mark.parametrize(
    ("question", "options", "text"),
    [
        (  # a clause about another named thing says nothing of the subject
            "What does Osk Gold cost?",
            ["Osk Gold costs 10.99 crowns a month.", "Osk Gold costs 14.99 crowns a month."],
            "Osk Gold goes up to 10.99 crowns a month, while the Velmor plan stays at 14.99.",
        ),
        (  # options of one on/off state differ in their value: a question of which value
            "When does the Osk library close in summer?",
            ["The Osk library closes at 5 pm.", "The Osk library closes at 6 pm."],
            "The Osk library board resolved that it would close at 5 pm rather than 6 pm.",
        ),
        (  # names only the options' names, not the subject's: still about the subject
            "Who is chief executive of the Osk Trust?",
            [
                "Pia Sund is chief executive of the Osk Trust.",
                "Ivo Penn is chief executive of the Osk Trust.",
            ],
            "Ivo Penn was replaced as chief executive by Pia Sund.",
        ),
        (  # names nothing: may be about the subject
            "What is the Osk Herald's print run?",
            [
                "The Osk Herald's print run is 44,000 copies.",
                "The Osk Herald's print run is 52,000 copies.",
            ],
            "The board resolved that the print run be reduced to 44,000 copies.",
        ),
        (  # the new sponsor in the dropped one's place
            "Who sponsors the Velmor fair?",
            ["Pia Bank sponsors the Velmor fair.", "Osk Transit sponsors the Velmor fair."],
            "The Velmor fair has dropped Osk Transit as sponsor and signed Pia Bank in its place.",
        ),
    ],
)
def test_the_reader_reads_clauses_of_other_things_and_values_apart(
    question: str, options: list[str], text: str
) -> None:
    _reads_as_first(question, options, text)


@pytest.mark.parametrize(
    ("text", "date", "when"),
    [
        ("From 1 April the Osk ferry fare rises from 3 to 4 crowns.", "2020-03-02", "2020-04-01"),
        ("From 30 April the Osk ferry fare rises to 4 crowns.", "2020-04-29", "2020-04-30"),
        ("The Velmor fare goes up to 4 crowns from March.", "2020-11-20", "2021-03-01"),
        ("Osk Transit will open a depot in Velmor in spring 2022.", "2021-06-01", "2022-03-01"),
        ("The Velmor depot opens in spring 2022.", "", "2022-03-01"),  # an option
        ("From April to September the Osk baths are open.", "2020-05-01", ""),  # a range
        ("The Osk baths opened on 1 March.", "2020-05-01", ""),  # a past event
        ("Osk Transit may raise the fare.", "2020-05-01", ""),  # "may" is no month
    ],
)
def test_when_a_change_or_a_plan_takes_effect(text: str, date: str, when: str) -> None:
    assert takes_effect(text, date) == when


def test_a_change_from_a_later_date_does_not_answer_for_an_earlier_one() -> None:
    options = ["The Osk ferry fare is 3 crowns.", "The Osk ferry fare is 4 crowns."]
    props = [
        Proposition("s0", "The Osk ferry fare is 3 crowns.", "2019-05-01", 0, ""),
        Proposition(
            "s1", "From 1 April the Osk ferry fare rises to 4 crowns.", "2020-03-02", 0, ""
        ),
    ]
    question = "What is the Osk ferry fare?"
    before = states(options, props, np.ones(2), question, "2020-03-15").sum(axis=0)
    after = states(options, props, np.ones(2), question, "2020-05-01").sum(axis=0)
    assert before[0] > before[1]
    assert after[1] > after[0]


def test_a_plan_speaks_to_an_option_dated_after_the_as_of_date() -> None:
    options = ["The Velmor depot opens in spring 2022.", "The Velmor depot opens in 2023."]
    plan = "Osk Transit will open its Velmor depot in spring 2022."
    props = [Proposition("s0", plan, "2021-06-01", 0, "")]
    read_as = states(options, props, np.ones(1), "When does the Velmor depot open?", "2021-09-01")
    assert read_as.sum(axis=0)[0] > read_as.sum(axis=0)[1]


@pytest.mark.parametrize(
    ("text", "guess"),
    [
        ("Analysts at Velmor Research reckon Osk has passed 4 million riders.", True),
        ("A rail blog expects Osk Transit to raise the fare to 5 crowns.", True),
        ("Osk Transit has 3.9 million riders.", False),
        ("Osk Transit reached 5,000 riders, beating analyst estimates.", False),
        ("The Osk club believes in youth and appointed Ann Velmor.", False),
    ],
)
def test_a_forecast_or_an_estimate_is_a_guess(text: str, guess: bool) -> None:
    assert stated(text).guess is guess


def test_a_rumour_or_a_forecast_beside_a_plain_statement_does_not_answer() -> None:
    options = ["Osk Transit has 2.6 million riders.", "Osk Transit has 4 million riders."]
    texts = [
        "Osk Transit has 2.6 million riders, its annual report shows.",
        "Analysts at Velmor Research reckon Osk Transit has passed 4 million riders.",
    ]
    read_as = _reads("How many riders does Osk Transit have?", options, texts)
    assert read_as[0] > read_as[1]
    alone = _reads("How many riders does Osk Transit have?", options, texts[1:])
    assert alone[1] > alone[0]  # with nothing plain beside it, the forecast speaks


def test_a_statement_of_another_named_thing_or_of_nothing_named_does_not_say_whether() -> None:
    options = ["The Osk pool is open.", "The Osk pool is closed."]
    for text in ("The Velmor gym has closed for good.", "The milk price was left unchanged."):
        assert not any(_reads("Is the Osk pool open?", options, [text]))
    options = ["Osk Rovers play at Millfield.", "Osk Rovers play at Ashgrove."]
    read_as = _reads("Where do Osk Rovers play?", options, ["Velmor Town play at Ashgrove."])
    assert not any(read_as)  # another club's ground


def test_who_reports_in_the_passive_is_not_stated() -> None:
    said = stated("The Osk mill, it was announced by the Velmor Trust, has reopened.")
    assert said.sign("velmor") == 0
    assert said.sign("osk") == 1
    assert said.sign(STATE) == 1
    said = stated("The board was informed by Pia Sund that the Osk mill has 40 staff.")
    assert said.sign("pia") == 0
    assert said.sign("40") == 1


def test_a_seller_leaves_only_a_sale_to_a_buyer_and_a_name_keeps_its_head_noun() -> None:
    said = stated("The Dallow family had sold the Osk Herald, a daily paper, to Velmor Media.")
    assert said.sign("dallow") == -1
    assert said.sign("velmor") == 1
    assert stated("The Osk Herald sold an average of 39,800 copies a day.").sign("osk") == 1


def test_the_new_before_a_name_is_no_report() -> None:
    said = stated("The Osk library moved from the Mill Street site to the new Velmor Hall.")
    assert said.sign("osk") == 1
    assert said.sign("mill") == -1
    assert said.sign("velmor") == 1


@pytest.mark.parametrize(
    ("text", "level", "change"),
    [
        ("Riders at Osk fell 12% to 3,400 in 2019.", "3400", "12"),
        ("Osk Transit counts 4.4 million riders, up 8% on a year earlier.", "4400000", "8"),
        ("Osk put the Velmor day fare up by 25% to 5 crowns.", "5", "25"),
        ("Riders at Osk fell by 12% to 3,400.", "3400", "12"),
    ],
)
def test_a_figure_of_change_is_not_a_level(text: str, level: str, change: str) -> None:
    said = stated(text)
    assert said.sign(level) == 1
    assert said.sign(change) == 0


def test_a_figure_of_change_without_a_level_and_a_compound_number_are_read() -> None:
    assert stated("The Osk levy rose to 3%.").sign("3") == 1
    assert stated("Osk overfished its quota by 8%.").sign("8") == 1
    assert stated("Thirty-eight volunteers serve the Osk team.").sign("38") == 1


@pytest.mark.parametrize(
    ("text", "new", "old"),
    [
        ("Fleet log: tugs in service 12 -> 9 (3 sold).", "9", "12"),
        ("Osk Radio frequency change - 101.4 FM -> 96.8 FM. Please retune!", "96.8", "101.4"),
        ("Rota change: Late Show Ann Velmor -> Pia Sund.", "pia", "ann"),
        ("Permit extended: expiry 30/06/2021 -> 30/06/2026.", "2026", "2021"),
        ("Ferry crews: 85 on the rota now (was approx. 60).", "85", "60"),
        ("Fares 60 -> 70 -> 80", "80", "70"),  # each arrow replaces what stands before it
    ],
)
def test_a_change_log_s_arrow_or_a_was_in_brackets_gives_the_value_replaced(
    text: str, new: str, old: str
) -> None:
    said = stated(text)
    assert said.sign(stem(new)) == 1
    assert said.sign(stem(old)) == -1


def test_an_arrow_replaces_a_value_of_its_own_kind_only() -> None:
    assert stated("Fleet 32 -> 29").sign("fleet") == 1  # the label is no value replaced
    assert stated("Version 2 -> 3").sign("2") == -1


def test_a_version_number_or_no_calendar_day_is_no_date() -> None:
    assert "march" not in stated("Osk Release 2.3.10 is out.").terms
    assert "february" not in stated("Osk fees due 31/02/2020.").terms


def test_a_notice_s_dates_times_and_abbreviations_are_read() -> None:
    said = stated(
        "Osk Pool notice: open 06:30-22:00 from 01/04/2021; 8 min walk, approx. 60 lanes."
    )
    assert {"6.3", "22"} <= said.terms.keys()  # a time is one figure, not "22" and "0"
    assert said.sign("april") == 1 and "1" in said.terms  # "01/04/2021" is 1 April
    assert "minut" in said.roles["8"]
    assert takes_effect("Tolls rise w.e.f. 01/04/2021.", "2021-03-01") == "2021-04-01"
    assert stated("Velmor bus live until midnight.").terms.keys() >= {"0"}


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("Osk Radio: off DAB from 31/03/2021, the fee is too high.", -1),
        ("This weekend's closure of the Velmor road is off.", -1),
        ("The Osk library van has been taken off the road.", -1),
        ("Lorries have to stay off the Velmor bridge until May.", -1),
        ("Lorries are banned from the Velmor bridge.", -1),
        ("Lorries are allowed back on the Velmor bridge.", 1),
        ("The Osk fire station stays open.", 1),  # "fire" is a noun
        ("Osk Care is run by Velmor Trust, a not-for-profit company.", 0),  # no denial
        ("The Velmor shop has no sponsor since Osk Mills ended its deal.", -1),
        ("The Velmor ferry port won't now open until the spring of 2024.", 1),  # put back
        ("Once the new Osk bridge is open, the old one will be knocked down.", -1),
    ],
)
def test_off_a_noun_fire_negated_compounds_since_until_and_conditions(
    text: str, state: int
) -> None:
    assert stated(text).sign(STATE) == state


def test_off_before_a_name_replaces_it_and_a_drop_off_is_no_switch() -> None:
    assert stated("Osk Radio: off DAB from March.").sign("dab") == -1
    assert stated("The wholesaler drops them off by six.").sign(STATE) == 0
    assert stated("Osk sales took off in May.").sign(STATE) == 0  # they rose


@pytest.mark.parametrize(
    ("text", "gone", "holds"),
    [
        ("Ann Velmor shall cease to be warden of the Osk Trust on 28 May.", "ann", "osk"),
        ("Pia Sund took charge this week, so the locum Ann Velmor moves on.", "ann", "pia"),
        (
            "Staff moves: Ann Velmor transferred Osk Quay -> Tarn; Pia Sund takes over.",
            "quay",
            "tarn",
        ),
    ],
)
def test_who_ceases_moves_on_or_is_moved_from_leaves(text: str, gone: str, holds: str) -> None:
    said = stated(text)
    assert said.sign(stem(gone)) == -1
    assert said.sign(stem(holds)) == 1


def test_the_legal_shall_states_what_holds_and_going_to_is_a_plan() -> None:
    assert not stated("The Osk pool shall be open to the public until 22:00.").future
    assert stated("The old Velmor mill is going to be knocked down.").future
    assert not stated("The Velmor team is going to the Osk final.").future
    assert stated("The Osk bridge is now due to open in the autumn of 2021.").future
    assert not stated("The Osk bridge is shut due to repairs.").future
    # a "shall" with its date is a plan until that date
    shall = "Ann Velmor shall cease to be warden on 28 February 2019."
    assert takes_effect(shall, "2019-02-04") == "2019-02-28"


@pytest.mark.parametrize(
    ("text", "date", "when"),
    [
        ("From next Monday the Osk shop will open till eight.", "2016-04-04", "2016-04-11"),
        ("From next Monday the Osk shop will open till eight.", "2020-03-07", "2020-03-09"),
        ("From next month Velmor Post charges 2 crowns a parcel.", "2018-09-03", "2018-10-01"),
        ("From next month Velmor Post charges 2 crowns a parcel.", "2018-12-31", "2019-01-01"),
        ("The Osk ferry runs again from tomorrow.", "9999-12-31", ""),  # no day after it
        ("The Osk ferry runs again from tomorrow.", "2020-02-30", ""),  # no such day
        ("The Osk baths are open again from today.", "2021-09-06", "2021-09-06"),
    ],
)
def test_a_change_from_a_day_near_the_statement_takes_effect_then(
    text: str, date: str, when: str
) -> None:
    assert takes_effect(text, date) == when


def test_a_change_from_next_monday_is_a_fact_once_the_day_has_come() -> None:
    options = ["The Osk shop closes at six.", "The Osk shop closes at eight."]
    text = "From next Monday the Osk shop will stay open till eight on weekdays."
    props = [Proposition("s0", text, "2016-04-04", 0, "")]
    question = "When does the Osk shop close?"
    after = states(options, props, np.ones(1), question, "2017-01-01").sum(axis=0)
    assert after[1] > after[0]


@pytest.mark.parametrize(
    ("question", "options", "text"),
    [
        (  # a value after a colon belongs to the clause before it
            "How many tugs does Osk Harbour have?",
            ["Osk Harbour has 12 tugs.", "Osk Harbour has 9 tugs."],
            "Osk Harbour fleet register 03/09/2012 - tugs in service: 12.",
        ),
        (  # a heading is no name of another subject
            "How many adults listen to Velmor FM each week?",
            ["Velmor FM reaches 18,000 adults a week.", "Velmor FM reaches 21,500 adults a week."],
            "Listener Survey May 2014: weekly reach 18,000 adults.",
        ),
        (  # a defined term ("the Operator", "the Premises") is the subject, not another
            "Who is manager of the Osk Baths?",
            ["Ann Velmor is manager of the Osk Baths.", "Pia Sund is manager of the Osk Baths."],
            "The Operator has appointed Ann Velmor as manager of the Premises.",
        ),
        (  # a plan in another clause does not make the change a plan
            "Who owns Velmor FM?",
            ["Velmor FM is owned by Osk Media.", "Velmor FM is owned by Tarn Trust."],
            "Velmor FM ownership: Osk Media -> Tarn Trust; Osk Media will be wound up.",
        ),
    ],
)
def test_the_reader_reads_notices_headings_defined_terms_and_clauses(
    question: str, options: list[str], text: str
) -> None:
    _reads_as_first(question, options[::-1] if "->" in text else options, text)


def test_a_question_of_plans_hears_a_plain_statement_of_the_value() -> None:
    options = [
        "The Osk bridge is expected to cost 410 million pounds.",
        "The Osk bridge is expected to cost 455 million pounds.",
    ]
    text = "The bill for the Osk bridge has gone up again, to 455 million pounds."
    assert _reads("What is the Osk bridge expected to cost?", options, [text])[1] > 0


def test_a_from_that_opens_a_time_gives_no_value_replaced() -> None:
    said = stated("From Monday the Osk shop closes at 5 instead of 6, as shifts are short.")
    assert said.sign("5") == 1
    assert said.sign("6") == -1
    assert stated("From 1 April Osk Ferries moves its fares from 3 to 4 crowns.").sign("osk") == 1


def test_a_denial_after_a_relative_that_denies_nothing_of_the_statement() -> None:
    said = stated("The Osk shop moved back into the forge, under a roof that doesn't leak.")
    assert not said.negated
    assert stated("Osk Mills said that it does not plan to close.").negated


def test_a_plain_statement_of_a_plain_option_says_it_still_holds() -> None:
    options = [
        "Osk Mills pay for the Velmor programmes.",
        "Osk Mills no longer pay for the Velmor programmes.",
    ]
    text = "Osk Mills the bakers pay for the printing of the Velmor programmes."
    _reads_as_first("Do Osk Mills pay for the Velmor programmes?", options, text)
    # not when it says something the plain option does not ("went automatic")
    options = ["Keepers live at the Osk lighthouse.", "The Osk lighthouse has no keepers."]
    text = "The Osk lighthouse went fully automatic and its keepers were sent ashore."
    assert _reads("Is the Osk lighthouse manned?", options, [text])[0] <= 0


def test_a_weekday_is_no_name_and_a_name_the_options_share_is_the_subject() -> None:
    text = "Intro: Ann Velmor is our new Station Manager from Mon 5 November; welcome!"
    assert "mon" not in stated(text).names
    options = [
        "Pia Sund is station manager of Osk Radio.",
        "Ann Velmor is station manager of Osk Radio.",
    ]
    assert _reads("Who is station manager of Osk Radio?", options, [text])[1] > 0
