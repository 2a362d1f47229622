"""`graphmem meta period|filter|group|list|show` and `graphmem plot --start/--end`."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

from graphmem.cli import STD_NOTE, main
from graphmem.series.detect.segments import list_segments
from graphmem.timeutil import parse_timestamp


@pytest.fixture
def sales(monkeypatch: pytest.MonkeyPatch, store_url: str, sales_store):
    monkeypatch.setenv("GRAPHMEM_STORE", store_url)
    return sales_store


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict]:
    assert main(["meta", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _year(data, year: int) -> np.ndarray:
    start, end = parse_timestamp(f"{year}-01-01"), parse_timestamp(f"{year + 1}-01-01")
    return data.xs[(data.ts >= start) & (data.ts < end)]


def test_period_builds_one_per_year_with_population_std(
    sales, capsys: pytest.CaptureFixture[str]
) -> None:
    store, series, data = sales
    rows = _json(
        capsys,
        "period",
        series.name,
        "--start",
        "2015-03-01",
        "--end",
        "2017-06-30",
        "--freq",
        "year",
    )
    assert [r["label"] for r in rows] == ["2015", "2016", "2017"]
    assert {(r["kind"], r["freq"]) for r in rows} == {("range", "year")}, "a range cut by year"
    first = rows[1]
    assert (first["start"], first["end"]) == ("2016-01-01T00:00:00Z", "2016-12-31T00:00:00Z")
    xs = _year(data, 2016)
    assert first["n"] == len(xs) == 366
    assert first["mean"] == pytest.approx(xs.mean(), rel=1e-9)
    assert first["std"] == pytest.approx(xs.std(ddof=0), rel=1e-9), "population std"
    assert first["std"] != pytest.approx(xs.std(ddof=1), rel=1e-6)
    found = store.inspect("MATCH (t:ToolCall) RETURN t.session AS session, t.tool AS tool")
    assert found == [{"session": "cli", "tool": "create_meta_segment_by_datetime_range"}]


def test_list_and_show_read_what_was_built(sales, capsys: pytest.CaptureFixture[str]) -> None:
    store, series, data = sales
    built = _json(
        capsys,
        "period",
        series.name,
        "--start",
        "2016-01-01",
        "--end",
        "2016-12-31",
        "--freq",
        "quarter",
    )
    assert main(["meta", "list", series.name, "--format", "csv"]) == 0
    listed = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["id"] for r in listed] == [r["id"] for r in built]
    assert listed[0]["start"] == "2016-01-01T00:00:00Z" and listed[0]["label"] == "2016-Q1"

    [shown] = _json(capsys, "show", built[0]["id"])
    assert shown["id"] == built[0]["id"] and shown["summary"].startswith("2016-Q1")
    assert shown["prev_label"] == "2015-Q4" and shown["spec"]["freq"] == "quarter"
    assert main(["meta", "show", built[0]["id"]]) == 0
    table = capsys.readouterr().out
    lines = table.splitlines()
    assert lines[0].split() == ["field", "value"] and "label            2016-Q1" in table
    assert lines[-1] == STD_NOTE

    members = _json(capsys, "show", built[0]["id"], "--members")
    assert len(members) == shown["members"] and {m["kind"] for m in members} == {"segment"}
    segs = {g.id: g for g in list_segments(store, series.id, limit=1000)}
    assert all(segs[m["id"]].n == m["n"] for m in members)


def test_filter_and_group(sales, capsys: pytest.CaptureFixture[str]) -> None:
    store, series, data = sales
    segs = list_segments(store, series.id, limit=1000)
    rising = [g for g in segs if g.features.slope_per_day > 0.05]
    [filtered] = _json(capsys, "filter", series.name, "--where", "slope>0.05")
    assert filtered["kind"] == "filter" and filtered["members"] == len(rising) > 0
    assert filtered["n"] == sum(g.n for g in rising)

    years = _json(
        capsys,
        "period",
        series.name,
        "--start",
        "2011-01-01",
        "--end",
        "2012-12-31",
        "--freq",
        "year",
    )
    [group] = _json(capsys, "group", *(y["id"] for y in years), "--label", "2011-2012")
    assert group["label"] == "2011-2012" and group["kind"] == "members"
    assert group["n"] == years[0]["n"] + years[1]["n"] == 731
    assert (group["start"], group["end"]) == ("2011-01-01T00:00:00Z", "2012-12-31T00:00:00Z")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "meta_nope"], "no meta-segment with id 'meta_nope'"),
        (
            ["period", "sales", "--start", "2016-01-01", "--end", "2016-12-31", "--freq", "decade"],
            "freq: must be one of year, quarter, month, week, day",
        ),
        (
            ["period", "sales", "--start", "2016-12-31", "--end", "2016-01-01"],
            "end: must not be before start",
        ),
        (
            ["period", "nope", "--start", "2016-01-01", "--end", "2016-12-31"],
            "no series with id or name 'nope'",
        ),
        (["filter", "sales", "--where", "colour>3"], "where"),
        (["group", "seg_nope"], "no segment or meta-segment with id 'seg_nope'"),
    ],
)
def test_meta_errors_are_one_line_and_build_nothing(
    sales, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    store, series, data = sales
    argv = [series.name if a == "sales" else a for a in args]
    assert main(["meta", *argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert store.inspect("MATCH (m:MetaSegment) RETURN count(m) AS n") == [{"n": 0}]


def test_plot_a_window(sales, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store, series, data = sales
    png = tmp_path / "window.png"
    args = ["plot", series.name, "-o", str(png)]
    assert main([*args, "--start", "2016-01-01", "--end", "2016-12-31T12:00"]) == 0
    overlapping = list_segments(
        store,
        series.id,
        parse_timestamp("2016-01-01"),
        parse_timestamp("2016-12-31T12:00"),
        limit=1000,
    )
    assert capsys.readouterr().out.strip() == f"wrote {png} ({len(overlapping)} segments)"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert 0 < len(overlapping) < len(list_segments(store, series.id, limit=1000))


@pytest.mark.parametrize(
    ("window", "message"),
    [
        (
            ["--start", "2016-06-01", "--end", "2016-01-01"],
            "start: 2016-06-01T00:00:00Z is after end 2016-01-01T00:00:00Z",
        ),
        (["--start", "2030-01-01"], "holds no points; the series covers 2010-01-01T00:00:00Z"),
        (["--end", "1999-12-31"], "end: 2010-01-01T00:00:00Z to 1999-12-31T00:00:00Z holds no"),
        (["--start", "June"], "--start: 'June' is not an ISO date/datetime"),
    ],
)
def test_plot_a_bad_window_is_a_clear_error(
    sales, tmp_path: Path, capsys: pytest.CaptureFixture[str], window: list[str], message: str
) -> None:
    store, series, data = sales
    png = tmp_path / "none.png"
    assert main(["plot", series.name, "-o", str(png), *window]) == 1
    assert message in capsys.readouterr().err
    assert not png.exists()


def test_list_before_anything_is_built(sales, capsys: pytest.CaptureFixture[str]) -> None:
    store, series, data = sales
    assert _json(capsys, "list", series.name) == []
    assert main(["meta", "list", series.name]) == 0
    assert capsys.readouterr().out == "(no rows)\n", "no std note under an empty table"
