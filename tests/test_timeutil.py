"""Timestamp parsing and ISO rendering."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from graphmem.errors import InvalidInput
from graphmem.timeutil import iso, iso_date, parse_timestamp

T_2016 = 1451606400  # 2016-01-01T00:00:00Z


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2016-01-01", T_2016),
        (" 2016-01-01 ", T_2016),
        ("2016-01-01T00:00:00", T_2016),
        ("2016-01-01T00:00:00Z", T_2016),
        ("2016-01-01 00:00:00", T_2016),
        ("2016-01-01T01:00:00+01:00", T_2016),
        ("2015-12-31T19:00:00-05:00", T_2016),
        ("2016-01-01T00:00:00.5Z", T_2016 + 0.5),
        ("2016-01-01T12:30", T_2016 + 45000),
        ("1451606400", T_2016),
        ("1451606400.25", T_2016 + 0.25),
        ("-86400", -86400),
        ("1.4516064e9", T_2016),
        (T_2016, T_2016),
        (float(T_2016), T_2016),
        (np.int64(T_2016), T_2016),
        (dt.date(2016, 1, 1), T_2016),
        (dt.datetime(2016, 1, 1), T_2016),
        (dt.datetime(2016, 1, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=1))), T_2016),
    ],
)
def test_parse_timestamp(value: object, expected: float) -> None:
    assert parse_timestamp(value) == expected  # type: ignore[arg-type]


def test_whole_seconds_are_ints() -> None:
    assert isinstance(parse_timestamp("2016-01-01"), int)
    assert isinstance(parse_timestamp("2016-01-01T00:00:00+02:00"), int)
    assert isinstance(parse_timestamp("1451606400"), int)
    assert isinstance(parse_timestamp("2016-01-01T00:00:00.5"), float)


@pytest.mark.parametrize(
    "value",
    ["abc", "", "2016-13-01", "2016-02-30", "01/02/2016", "nan", "inf", True, None, [1], 1e300],
)
def test_parse_timestamp_rejects(value: object) -> None:
    with pytest.raises(InvalidInput) as info:
        parse_timestamp(value, field="at")  # type: ignore[arg-type]
    assert info.value.field == "at"
    assert str(info.value).startswith("at: ")


def test_parse_timestamp_rejects_out_of_range_and_non_finite() -> None:
    with pytest.raises(InvalidInput, match="years 1-9999"):
        parse_timestamp(1451606400000)  # milliseconds by mistake
    with pytest.raises(InvalidInput, match="finite"):
        parse_timestamp(float("nan"))


def test_iso() -> None:
    assert iso(T_2016) == "2016-01-01T00:00:00Z"
    assert iso(float(T_2016)) == "2016-01-01T00:00:00Z"
    assert iso(np.int64(T_2016)) == "2016-01-01T00:00:00Z"
    assert iso(T_2016 + 0.5) == "2016-01-01T00:00:00.500000Z"
    assert iso(0) == "1970-01-01T00:00:00Z"
    assert iso_date(T_2016 + 86399) == "2016-01-01"
    assert iso_date(-1) == "1969-12-31"


def test_round_trip() -> None:
    for ts in (0, T_2016, 1600000000, -1000000):
        assert parse_timestamp(iso(ts)) == ts
        assert parse_timestamp(iso_date(ts)) == ts - ts % 86400


def test_iso_rejects_bad_values() -> None:
    for bad in (float("nan"), float("inf"), 1e20, "2016", None):
        with pytest.raises(InvalidInput, match="timestamp"):
            iso(bad)  # type: ignore[arg-type]
