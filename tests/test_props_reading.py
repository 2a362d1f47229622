"""Reading any text: digit runs that are no amount, and no text that raises."""

from hypothesis import given, reject, settings
from hypothesis import strategies as st

from bench.props_worlds import offline_classifier
from graphmem.errors import InvalidInput
from graphmem.props.classify import Candidate
from graphmem.props.model import make_proposition
from graphmem.props.reading import number, read
from graphmem.props.stated import stated, takes_effect

TEXT = st.lists(
    st.one_of(
        st.from_regex(r"\d{1,4}([.,]\d{1,4}){0,3}", fullmatch=True),
        st.sampled_from(
            ["was", "cut", "to", "from", "million", "%", "-", ";", "not", "April", "May"]
        ),
        st.from_regex(r"(twenty|sixty|ninety)-(one|five|nine)", fullmatch=True),
        st.text(max_size=8),
    ),
    max_size=12,
).map(" ".join)


def test_digit_runs_are_read_as_amounts_or_not_at_all() -> None:
    assert number("1,250") == 1250
    assert number("1.234.567") == 1234567  # thousands marks
    assert number("3.5") == 3.5
    assert number("08.01.2018") is None  # a date
    assert number("2.3.1") is None  # a version


def test_a_dotted_date_in_a_statement_is_no_figure() -> None:
    reading = read("Station reopened w.e.f. 08.01.2018 with 12 crew", "notice")
    assert reading.numbers == {"12"}


def test_a_schedules_year_is_its_value_and_a_figures_year_its_period() -> None:
    revised = read("The Veldmoor bridge is now expected to finish in 2023.")
    assert (revised.numbers, revised.periods) == ({"in 2023"}, set())
    assert read("The bypass has been pushed back to 2024.").numbers == {"in 2024"}
    late = read("The pier won't be open till 2026.")  # it opens in 2026: not denied
    assert (late.numbers, late.denied_numbers) == ({"in 2026"}, set())
    sold = read("Arden Mills sold 410,000 kettles in 2018.")
    assert (sold.numbers, sold.periods) == ({"410000"}, {"2018"})
    for dated in (
        "The mill opened back in 1988.",
        "The library closed in 2021.",
        "The bridge was open to traffic in 2021.",  # a past event, not a schedule
        "Tessa Hale won the Veldmoor Open in 2021.",  # a name, not a schedule's word
        "The match was cancelled due to flooding in 2019.",  # a cause
    ):
        assert read(dated).periods == {dated[-5:-1]} and not read(dated).numbers, dated
    # one date, written either way, is one value; a weekday is left out
    days = ("on 12 October 2025", "on October 12, 2025", "on Sunday 12th October 2025")
    values = {read(f"The fair will take place {day}.").numbers for day in days}
    assert values == {frozenset({"in 12 October 2025"})}


def test_a_figure_replaced_is_not_the_statements_own() -> None:
    raised = read("The fee was raised from 2.10 to 2.40 pounds.")
    assert (raised.numbers, raised.was) == ({"2.4"}, {"2.1"})
    assert read("Sales reached 12,000, up from 9,500.").was == {"9500"}
    hours = read("The library is open from 9 to 5.")  # a range: both figures are its own
    assert (hours.numbers, hours.was) == ({"9", "5"}, set())


def test_a_figure_replaced_may_follow_the_new_one() -> None:
    cut = read("It cut its 2022 revenue guidance to 440 million from 470 million.")
    assert (cut.numbers, cut.was) == ({"4.4e+08"}, {"4.7e+08"})
    dated = read("The fee rises to 4 pounds from 1 September.")  # a date, not a figure
    assert (dated.numbers, dated.was) == ({"4"}, set())


def test_a_denial_stops_at_the_end_of_its_sentence() -> None:
    refunds = read("Refunds have NOT been switched off. So far 214 backers were refunded.")
    assert (refunds.numbers, refunds.denied_numbers) == ({"214"}, set())


def test_what_was_said_in_error_is_denied() -> None:
    version = read("An earlier version of this article said the trust has 400 members; it has 340.")
    assert (version.numbers, version.denied_numbers) == ({"340"}, {"400"})
    assert read("We wrongly reported that the pool had closed.").denial
    assert not read("A version of the song was released in 2019.").denial


def test_calling_a_report_speculation_dismisses_it() -> None:
    called = read("The council called reports of the contractor's removal speculation.")
    assert called.denial and not called.hedged
    assert read("Speculation is growing that the contractor will be removed.").hedged


def test_is_to_is_a_plan() -> None:
    assert read("Dr Helen Marsh is to step down as chief executive.").future
    assert read("The two schools are to be merged.").future
    assert not read("The aim is to the north of the town.").future


def test_losing_an_election_leaves_the_office() -> None:
    lost = read("Ana Ruiz lost the mayoral election to Ben Okafor.")
    assert lost.polarity < 0 and "@office" in lost.frame
    assert read("Harbin Steel lost 200 jobs.").polarity == 0


def test_a_version_number_stays_part_of_its_name() -> None:
    assert read("Quillpad 2.3.1 was released").names == {"quillpad 2.3.1"}


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_no_text_makes_reading_raise(text: str) -> None:
    read(text, "anyone")
    stated(text)
    takes_effect(text, "2020-01-31")


def test_a_long_digit_run_before_a_month_is_no_date() -> None:
    assert takes_effect("from " + "9" * 400 + " April", "2020-01-01") == ""
    assert takes_effect("joined from May Bank", "2021-01-01") == ""
    assert stated("Sixty-two staff work at the Osk depot.").sign("62") == 1


@settings(max_examples=100, deadline=None)
@given(TEXT, TEXT, st.floats(-1.0, 1.0))
def test_the_offline_classifier_judges_any_pair_of_texts(new: str, old: str, cosine: float) -> None:
    try:
        newer = make_proposition(new, "2021-03-04", source="anyone")
        older = make_proposition(old, "2019-12-31", source="a blog")
    except InvalidInput:
        reject()  # refused at the door with a named field: never reaches the classifier
    [judgement] = CLASSIFIER.classify(newer, [Candidate(older, cosine)])
    assert judgement.label in ("updates", "contradicts", "supports", "norel")
    assert 0.0 <= judgement.confidence <= 1.0


CLASSIFIER = offline_classifier()
