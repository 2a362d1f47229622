"""Proposition ids, input validation and the offline sentence splitter."""

from __future__ import annotations

import datetime as dt

import pytest

from graphmem.errors import InvalidInput
from graphmem.props.model import (
    checked_date,
    document_id,
    make_proposition,
    proposition_id,
    relation_id,
)
from graphmem.props.sentences import MAX_JOINED, split_sentences, statements


def test_ids_are_deterministic_and_normalised() -> None:
    a = proposition_id("Alpha costs 5 dollars.", "2020-01-02")
    assert a.startswith("prop_") and len(a) == 45
    assert a == proposition_id("  alpha  COSTS 5 dollars ", "2020-01-02")
    assert a != proposition_id("Alpha costs 5 dollars.", "2020-01-03")
    assert document_id("text", "2020-01-02", "x") != document_id("text", "2020-01-02", "y")
    assert document_id("text", "2020-01-02", None).startswith("doc_")
    assert relation_id("a", "b") != relation_id("b", "a")
    assert relation_id("a", "b").startswith("rel_")


def test_make_proposition_validates_and_names_fields() -> None:
    prop = make_proposition(" Alpha\n costs 5. ", dt.date(2020, 1, 2), " wire ")
    assert (prop.text, prop.date, prop.source) == ("Alpha costs 5.", "2020-01-02", "wire")
    assert prop.ts == int(dt.datetime(2020, 1, 2, tzinfo=dt.UTC).timestamp())
    cases = [
        (("", "2020-01-02"), "p.text"),
        ((None, "2020-01-02"), "p.text"),
        (("x", "2020-02-30"), "p.date"),
        (("x", "02/01/2020"), "p.date"),
        (("x", 20200102), "p.date"),
        (("x", "2020-01-02", 5), "p.source"),
    ]
    for args, field in cases:
        with pytest.raises(InvalidInput) as info:
            make_proposition(*args, field="p")
        assert info.value.field == field


def test_checked_date_accepts_dates_and_datetimes() -> None:
    assert checked_date(dt.datetime(2021, 5, 6, 13, 0), "d")[0] == "2021-05-06"
    assert checked_date("2021-05-06", "d") == ("2021-05-06", 1620259200)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'Dr. Smith paid $3.50 for it. The U.S. Army left. He said "Go!" Then it rained.',
            [
                "Dr. Smith paid $3.50 for it.",
                "The U.S. Army left.",
                'He said "Go!"',
                "Then it rained.",
            ],
        ),
        (
            "J. R. Okonjo wrote it in Jan. 2020. Acme Inc. The firm grew 2.5 percent.",
            ["J. R. Okonjo wrote it in Jan. 2020.", "Acme Inc.", "The firm grew 2.5 percent."],
        ),
        (
            "Quillon Dynamics Inc. hired 40 people. Is it? Yes!",
            ["Quillon Dynamics Inc. hired 40 people.", "Is it?", "Yes!"],
        ),
        (
            "e.g. this stays. Prices rose... and fell.",
            ["e.g. this stays.", "Prices rose... and fell."],
        ),
        (
            "First paragraph without a stop\n\n  Second one.\n",
            ["First paragraph without a stop", "Second one."],
        ),
        ("  ...  \n\n", []),
    ],
)
def test_sentence_splitter(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_a_sentence_that_cannot_stand_alone_stays_with_the_one_before() -> None:
    text = (
        "Correction: an earlier version said the Orrin Trust has 400 members. The correct "
        "figure is 340. Mara Quint chairs the Orrin Trust. She took over in 2019.\n\n"
        "It has two offices."  # a new paragraph: nothing before it to refer to
    )
    assert statements(text) == [
        "Correction: an earlier version said the Orrin Trust has 400 members. The correct "
        "figure is 340.",
        "Mara Quint chairs the Orrin Trust. She took over in 2019.",
        "It has two offices.",
    ]
    long = "Mara Quint chairs the Orrin Trust. " + "It grew. " * 200
    assert all(len(s) <= MAX_JOINED for s in statements(long))
    assert " ".join(statements(long)) == " ".join(long.split())
