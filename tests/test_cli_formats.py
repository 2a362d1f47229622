"""`graphmem cypher --format table|json|csv`: full values, ISO times, positional numbers."""

from __future__ import annotations

import csv
import io
import json

import pytest

from graphmem.cli import main
from graphmem.series.catalog import create_series
from graphmem.series.detect.ingest import append
from graphmem.series.detect.segments import list_segments
from graphmem.store import Store
from graphmem.tables import formatted, is_epoch_name, number_text, with_times
from graphmem.timeutil import iso

T0 = 1_454_284_800  # 2016-02-01T00:00:00Z
LONG = 'a description longer than sixty characters, with a comma, a "quote" and more words'
QUERY = (
    "MATCH (s:Series)-[:HAS_SEGMENT]->(g:Segment) RETURN s.description AS description, "
    "g.start, g.end AS end, g.n AS n, g.mean AS mean, g.idx AS idx ORDER BY g.idx"
)


@pytest.fixture
def cli_store(monkeypatch: pytest.MonkeyPatch, store_url: str, store: Store) -> Store:
    monkeypatch.setenv("GRAPHMEM_STORE", store_url)
    series = create_series(store, "long", description=LONG)
    # a step at day 60: two segments, the first from 2016-02-01
    values = [10.0 + (5.0 if i >= 60 else 0.0) + 0.1 * (i % 3) for i in range(120)]
    append(store, series.id, [T0 + 86_400 * i for i in range(120)], values)
    return store


def _cypher(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["cypher", *args]) == 0
    return capsys.readouterr().out


def test_json_is_one_array_of_full_rows_with_iso_times(
    cli_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    segs = list_segments(cli_store, "long", limit=10)
    rows = json.loads(_cypher(capsys, QUERY, "--format", "json"))
    assert isinstance(rows, list) and len(rows) == len(segs) >= 2
    assert rows[0]["description"] == LONG, "not cut at 60 characters"
    assert rows[0]["g.start"] == "2016-02-01T00:00:00Z"
    assert [(r["g.start"], r["end"]) for r in rows] == [(iso(g.start), iso(g.end)) for g in segs]
    assert [r["n"] for r in rows] == [g.n for g in segs] and rows[0]["idx"] == 0
    assert rows[0]["mean"] == pytest.approx(segs[0].features.mean, rel=1e-12)


def test_csv_has_a_header_and_a_line_per_row(
    cli_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _cypher(capsys, QUERY, "--format", "csv")
    assert out.endswith("\r\n"), "RFC 4180 line ends"
    header, *rows = list(csv.reader(io.StringIO(out)))
    assert header == ["description", "g.start", "end", "n", "mean", "idx"]
    assert rows[0][:2] == [LONG, "2016-02-01T00:00:00Z"]
    assert int(rows[0][3]) + int(rows[1][3]) == 120
    assert "e+" not in out and "e-" not in out.replace("description", "")


def test_table_shows_full_values_unless_a_width_is_given(
    cli_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    table = _cypher(capsys, QUERY)
    assert LONG in table and "2016-02-01T00:00:00Z" in table and "e+09" not in table
    cut = _cypher(capsys, QUERY, "--width", "20")
    assert LONG not in cut and LONG[:19] + "…" in cut


def test_raw_times_keeps_epoch_seconds_as_positional_numbers(
    cli_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _cypher(capsys, QUERY, "--format", "csv", "--raw-times")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert float(rows[0]["g.start"]) == T0 and "e+" not in rows[0]["g.start"]
    table = _cypher(capsys, "MATCH (g:Segment) RETURN g.start AS start LIMIT 1", "--raw-times")
    assert table.splitlines()[2].strip() in (str(T0), f"{T0}.0")


def test_nodes_and_lists_get_iso_times_by_property_name(
    cli_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    [row] = json.loads(_cypher(capsys, "MATCH (g:Segment {idx: 0}) RETURN g", "--format", "json"))
    node = row["g"]
    assert node["start"] == node["t_first"] == "2016-02-01T00:00:00Z"
    assert node["start_iso"] == "2016-02-01T00:00:00Z" and isinstance(node["n"], int)
    query = "MATCH (c:Chunk) RETURN c.t0 AS t0, c.ts AS ts, c.xs AS xs LIMIT 1"
    [chunk] = json.loads(_cypher(capsys, query, "--format", "json"))
    assert chunk["t0"] == "2016-02-01T00:00:00Z" and chunk["ts"][1] == "2016-02-02T00:00:00Z"
    assert chunk["xs"][0] == 10.0, "values are not times"


def test_an_empty_result_in_each_format(
    cli_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    query = "MATCH (n:Nothing) RETURN n"
    assert json.loads(_cypher(capsys, query, "--format", "json")) == []
    assert _cypher(capsys, query, "--format", "csv") == ""
    assert _cypher(capsys, query).strip() == "(no rows)"


def test_a_bad_format_is_refused_before_anything_runs(
    cli_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["cypher", "RETURN 1", "--format", "xml"])
    assert exited.value.code == 2
    assert "argument --format: invalid choice: 'xml'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (1454284800.0, "1454284800.0"),
        (1e-07, "0.0000001"),
        (1e20, "100000000000000000000"),
        (0.1, "0.1"),
        (-2.5e-3, "-0.0025"),
        (float("inf"), "inf"),
    ],
)
def test_numbers_are_never_in_exponent_form(value: float, shown: str) -> None:
    assert number_text(value) == shown


def test_which_names_are_times() -> None:
    times = ["start", "g.end", "t_first", "created_at", "last_recalled_at", "first_ts", "at"]
    assert all(is_epoch_name(name) for name in times)
    assert not any(is_epoch_name(name) for name in ["epoch", "t", "date", "n", "start_iso"])
    row = {"start": T0, "flag": True, "end": 10**15, "at": "2016-01-01", "mean": 1.5}
    assert with_times(row) == {
        "start": "2016-02-01T00:00:00Z",
        "flag": True,
        "end": 10**15,
        "at": "2016-01-01",
        "mean": 1.5,
    }
    assert formatted([{"x": float("nan")}], "json") == '[\n{"x":null}\n]'
