"""`graphmem ingest-series` with --time-col, --value-col and --delimiter, and bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.cli import main
from graphmem.series.catalog import get_series
from graphmem.series.detect.archive import read_time_range
from graphmem.store import Store
from graphmem.timeutil import parse_timestamp

DAYS = [f"2024-01-{d:02}" for d in range(1, 29)]


@pytest.fixture
def cli_store(monkeypatch: pytest.MonkeyPatch, store_url: str, store: Store) -> Store:
    monkeypatch.setenv("GRAPHMEM_STORE", store_url)
    return store


def _write(tmp_path: Path, header: list[str], rows: list[list[str]], delimiter: str) -> Path:
    path = tmp_path / "series.csv"
    path.write_text("\n".join(delimiter.join(r) for r in [header, *rows]) + "\n")
    return path


def _stored(store: Store, name: str) -> tuple[list[float], list[float]]:
    series = get_series(store, name)
    points = read_time_range(store, series.id, 0.0, 2e9)
    return points.ts.tolist(), points.xs.tolist()


@pytest.mark.parametrize(
    ("delimiter", "given"),
    [(";", None), ("\t", None), (",", None), (";", ";"), ("\t", "tab"), ("|", "|")],
)
def test_columns_by_name_or_index_with_any_delimiter(
    cli_store: Store,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    delimiter: str,
    given: str | None,
) -> None:
    rows = [[str(i), day, f"{i * 1.5}", "x"] for i, day in enumerate(DAYS)]
    path = _write(tmp_path, ["id", "Day", "kg", "note"], rows, delimiter)
    options = ["--delimiter", given] if given else []
    args = ["ingest-series", str(path), "--series", "w", "--time-col", "day", "--value-col", "2"]
    assert main([*args, *options]) == 0
    assert "28 points stored" in capsys.readouterr().out
    ts, xs = _stored(cli_store, "w")
    assert ts == [parse_timestamp(day) for day in DAYS]
    assert xs == [i * 1.5 for i in range(28)]


def test_the_default_columns_are_timestamp_and_value(
    cli_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [[f"{i}", day] for i, day in enumerate(DAYS)]
    path = _write(tmp_path, ["value", "timestamp"], rows, ";")
    assert main(["ingest-series", str(path), "--series", "d"]) == 0
    assert _stored(cli_store, "d")[1] == [float(i) for i in range(28)]


@pytest.mark.parametrize(
    ("rows", "options", "message"),
    [
        (
            [["2024-01-01", "1"], ["2024-01-02", "one"]],
            [],
            "line 3: value 'one' is not a number in column 2 (kg)",
        ),
        (
            [["2024-01-01", "1"], ["soon", "2"]],
            [],
            "line 3: timestamp 'soon' is not an ISO date/datetime or epoch seconds"
            " in column 1 (day)",
        ),
        ([["2024-01-01", "1"], ["2024-01-02"]], [], "line 3: expected 2 columns (day,kg), got 1"),
        (
            [["2024-01-01", "1"]],
            ["--time-col", "2"],
            "line 1: time column 2 does not exist: the header 'day,kg' has 2 columns",
        ),
        (
            [["2024-01-01", "1"]],
            ["--value-col", "price"],
            "line 1: header 'day,kg' has no value column 'price'",
        ),
        ([["2024-01-01", "1"]], ["--delimiter", ","], "line 1: header 'day;kg' has no time column"),
        ([["2024-01-01", "1"]], ["--delimiter", "::"], "delimiter: must be one character"),
    ],
)
def test_a_bad_file_names_the_line_and_column_and_stores_nothing(
    cli_store: Store,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    rows: list[list[str]],
    options: list[str],
    message: str,
) -> None:
    path = _write(tmp_path, ["day", "kg"], rows, ";")
    args = ["ingest-series", str(path), "--series", "bad", "--time-col", "day", "--value-col"]
    assert main([*args, "kg", *options]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert cli_store.read("series.list", limit=10, offset=0) == [], "no series created"
