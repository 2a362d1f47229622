"""What a statement states as of its date (graphmem/props/stated.py), on entities of no world."""

from __future__ import annotations

import pytest

from graphmem.props.reading import stem
from graphmem.props.stated import STATE, stated


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
