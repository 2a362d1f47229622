"""CSV loading: accepted formats and line-numbered errors."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np
import pytest

from graphmem.errors import InvalidInput
from graphmem.series.detect.csvload import load_csv, parse_timestamp

T_2016 = 1451606400  # 2016-01-01T00:00:00Z
DAY = 86400


def _write(tmp_path: Path, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / "series.csv"
    path.write_bytes(text.encode(encoding))
    return path


def _error(tmp_path: Path, text: str) -> InvalidInput:
    with pytest.raises(InvalidInput) as info:
        load_csv(_write(tmp_path, text))
    return info.value


def test_iso_dates(tmp_path: Path) -> None:
    data = load_csv(_write(tmp_path, "timestamp,value\n2016-01-01,1.5\n2016-01-02,-2\n"))
    assert data.ts.tolist() == [T_2016, T_2016 + DAY]
    assert data.xs.tolist() == [1.5, -2.0]
    assert data.ts.dtype == data.xs.dtype == np.float64
    assert data.n_missing == 0


def test_iso_datetimes_with_and_without_offset(tmp_path: Path) -> None:
    text = (
        "timestamp,value\n"
        "2016-01-01T00:00:00,1\n"
        "2016-01-01T01:00:00Z,2\n"
        "2016-01-01T03:00:00+01:00,3\n"
        "2016-01-01 03:30:00.5,4\n"
    )
    data = load_csv(_write(tmp_path, text))
    assert data.ts.tolist() == [T_2016, T_2016 + 3600, T_2016 + 7200, T_2016 + 12600.5]


def test_epoch_seconds_int_and_float(tmp_path: Path) -> None:
    data = load_csv(_write(tmp_path, "timestamp,value\n1451606400,1\n1451606400.5,2\n1.4517e9,3\n"))
    assert data.ts.tolist() == [T_2016, T_2016 + 0.5, 1.4517e9]


def test_header_case_spaces_bom_crlf_quotes_and_blank_lines(tmp_path: Path) -> None:
    text = ' TimeStamp , VALUE \r\n\r\n"2016-01-01", 1 \r\n   \r\n2016-01-02,2\r\n\r\n'
    data = load_csv(_write(tmp_path, "\ufeff" + text))
    assert data.xs.tolist() == [1.0, 2.0]


def test_missing_values_are_nan(tmp_path: Path) -> None:
    text = (
        "timestamp,value\n2016-01-01,1\n2016-01-02,\n2016-01-03,nan\n2016-01-04,NaN\n2016-01-05, \n"
    )
    data = load_csv(_write(tmp_path, text))
    assert data.xs[0] == 1.0
    assert all(math.isnan(x) for x in data.xs[1:])
    assert data.ts.size == 5
    assert data.n_missing == 4


def test_header_only_gives_empty_arrays(tmp_path: Path) -> None:
    data = load_csv(_write(tmp_path, "timestamp,value\n"))
    assert data.ts.size == data.xs.size == 0


@pytest.mark.parametrize(
    ("text", "field", "problem"),
    [
        ("", "line 1", "file is empty"),
        ("time,value\n2016-01-01,1\n", "line 1", "has no time column 'timestamp'"),
        ("timestamp\n2016-01-01\n", "line 1", "has no value column 'value'"),
        ("2016-01-01,1\n", "line 1", "the default header is 'timestamp,value'"),
        ("\ntimestamp,value\n", "line 1", "header is empty"),
        ("timestamp,Value,value\n", "line 1", "2 columns named 'value'"),
    ],
)
def test_bad_header(tmp_path: Path, text: str, field: str, problem: str) -> None:
    error = _error(tmp_path, text)
    assert error.field == field
    assert problem in error.problem


@pytest.mark.parametrize(
    ("body", "line", "problem"),
    [
        ("2016-01-01,1\n2016-01-02,2,3\n", 3, "expected 2 columns (timestamp,value), got 3"),
        ("2016-01-01\n", 2, "expected 2 columns (timestamp,value), got 1"),
        (
            "2016-01-01,1\n\n2016-01-03,2\nabc,4\n",
            5,
            "timestamp 'abc' is not an ISO date/datetime or epoch seconds",
        ),
        (",4\n", 2, "timestamp '' is not an ISO date/datetime or epoch seconds"),
        ("2016-02-30,4\n", 2, "timestamp '2016-02-30' is not a valid calendar date"),
        ("2016-01-01,abc\n", 2, "value 'abc' is not a number"),
        ("2016-01-01,1_000\n", 2, "value '1_000' is not a number"),
        ("2016-01-01,inf\n", 2, "value 'inf' is not finite"),
        ("2016-01-01,-Infinity\n", 2, "value '-Infinity' is not finite"),
        ("2016-01-01,1e999\n", 2, "value '1e999' is not finite"),
        ("2016-01-02,1\n2016-01-01,2\n", 3, "timestamp '2016-01-01' is not after the previous"),
        ("2016-01-01,1\n2016-01-01T00:00:00Z,2\n", 3, "timestamps must strictly increase"),
        ("1451606400000,1\n", 2, "outside years 1-9999"),
    ],
)
def test_bad_rows_name_the_line(tmp_path: Path, body: str, line: int, problem: str) -> None:
    error = _error(tmp_path, "timestamp,value\n" + body)
    assert error.field == f"line {line}"
    assert problem in error.problem
    assert str(error).startswith(f"line {line}: ")


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as info:
        load_csv(tmp_path / "missing.csv")
    assert info.value.field == "path"
    path = tmp_path / "latin1.csv"
    path.write_bytes("timestamp,value\n2016-01-01,1\n2016-01-02,\xe9\n".encode("latin-1"))
    with pytest.raises(InvalidInput, match="UTF-8"):
        load_csv(path)


def test_parse_timestamp_is_reexported() -> None:
    assert parse_timestamp("2016-01-01", "from") == T_2016


@pytest.mark.parametrize("delimiter", [";", "\t", ","])
def test_delimiter_is_found_in_the_header(tmp_path: Path, delimiter: str) -> None:
    rows = ["when", "price", "note"], ["2016-01-01", "1.5", "a, b;\tc"], ["2016-01-02", "2", ""]
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter).writerows(rows)  # quotes the note
    text = out.getvalue()
    data = load_csv(_write(tmp_path, "\ufeff" + text), time_col="WHEN", value_col=1)
    assert data.ts.tolist() == [T_2016, T_2016 + DAY]
    assert data.xs.tolist() == [1.5, 2.0]


def test_an_explicit_delimiter_and_columns_by_index(tmp_path: Path) -> None:
    text = "id|value|timestamp\nx|3|2016-01-01\ny|4|2016-01-02\n"
    data = load_csv(_write(tmp_path, text), time_col=2, value_col=1, delimiter="|")
    assert data.ts.tolist() == [T_2016, T_2016 + DAY] and data.xs.tolist() == [3.0, 4.0]
    # read with ',' the header is one column, which has no time column
    with pytest.raises(InvalidInput, match="has no time column 'timestamp'"):
        load_csv(_write(tmp_path, text), delimiter=",")


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"time_col": 3}, "time column 3 does not exist: the header 'day,kg,note' has 3 columns"),
        ({"time_col": "time"}, "has no time column 'time'"),
        ({"time_col": "day", "value_col": 0}, "time and value are the same column 0"),
        ({"time_col": "day", "value_col": "kg", "delimiter": ";;"}, "one character"),
    ],
)
def test_bad_column_options(tmp_path: Path, options: dict, problem: str) -> None:
    with pytest.raises(InvalidInput) as info:
        load_csv(_write(tmp_path, "day;kg;note\n2016-01-01;1;x\n"), **options)
    assert problem in info.value.problem
    assert info.value.field == ("delimiter" if "delimiter" in options else "line 1")


@pytest.mark.parametrize(
    ("body", "line", "problem"),
    [
        ("2016-01-01;x;1\n2016-01-02;y;one\n", 3, "value 'one' is not a number in column 3 (kg)"),
        ("2016-01-01;x;1\nyesterday;y;2\n", 3, "timestamp 'yesterday' is not an ISO"),
        ("2016-01-01;x;1\n2016-01-02;y\n", 3, "expected 3 columns (day,note,kg), got 2"),
    ],
)
def test_bad_rows_name_the_line_and_the_column(
    tmp_path: Path, body: str, line: int, problem: str
) -> None:
    with pytest.raises(InvalidInput) as info:
        load_csv(_write(tmp_path, "day;note;kg\n" + body), time_col="day", value_col="kg")
    assert info.value.field == f"line {line}"
    assert problem in info.value.problem
    if "timestamp" in problem:
        assert info.value.problem.endswith("in column 1 (day)")
