"""The `graphmem` command: cypher inspection, demo, serve."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np
import pytest

from graphmem.cli import main
from graphmem.series.catalog import create_series
from graphmem.store import Store


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, store_url: str, store: Store) -> Store:
    monkeypatch.setenv("GRAPHMEM_STORE", store_url)
    return store


def test_cypher_prints_a_table(cli_env: Store, capsys: pytest.CaptureFixture[str]) -> None:
    create_series(cli_env, "alpha", unit="kg")
    assert main(["cypher", "MATCH (s:Series) RETURN s.name AS name, s.unit AS unit"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["name", "unit"] and out[2].split() == ["alpha", "kg"]


def test_cypher_refuses_writes(cli_env: Store, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cypher", "CREATE (n:Series {id: 'x', name: 'x'})"]) == 2
    assert "read-only" in capsys.readouterr().err
    assert cli_env.read("series.list", limit=10, offset=0) == []


def test_cypher_syntax_error_is_reported(
    cli_env: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cypher", "MATCH (n RETURN n"]) == 1
    assert capsys.readouterr().err.startswith("error:")


def test_serve_answers_graphql_on_the_embedded_store(short_tmp: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "GRAPHMEM_HOME": str(short_tmp / "serve-home")}
    env.pop("GRAPHMEM_STORE", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphmem.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/healthz").json()
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.2)
        assert health["reachable"] and health["engine"] == "falkordb"
        body = httpx.post(
            f"http://127.0.0.1:{port}/graphql",
            json={"query": 'mutation { createSeries(name: "served") { name } }'},
        ).json()
        assert body["data"] == {"createSeries": {"name": "served"}}
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert not (short_tmp / "serve-home" / "falkordb.pid").exists(), "server stopped on exit"


def test_ingest_series_csv_then_segments_and_plot(
    cli_env: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from graphmem.series.detect.synthetic import sales_series

    data = sales_series(seed=1, start="2015-01-01", end="2017-12-31")
    lines = ["timestamp,value"] + [
        f"{np.datetime64(int(t), 's').astype('datetime64[D]')},{x}"
        for t, x in zip(data.ts, data.xs, strict=True)
    ]
    lines[40] = lines[40].split(",")[0] + ",nan"
    csv = tmp_path / "sales.csv"
    csv.write_text("\n".join(lines) + "\n")
    assert main(["ingest-series", str(csv), "--series", "shop", "--unit", "EUR"]) == 0
    out = capsys.readouterr().out
    assert f"{len(data.ts) - 1} points stored, 1 missing value skipped" in out
    assert "2015-01-01T00:00:00Z to 2017-12-31T00:00:00Z" in out
    # the same file again: every batch is recognised, nothing changes
    assert main(["ingest-series", str(csv), "--series", "shop"]) == 0
    assert "0 points stored" in capsys.readouterr().out
    assert main(["segments", "shop"]) == 0
    table = capsys.readouterr().out
    assert "EUR" in table and "open" in table
    png = tmp_path / "shop.png"
    assert main(["plot", "shop", "-o", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000


def test_ingest_series_bad_csv_names_the_line(
    cli_env: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "bad.csv"
    csv.write_text("timestamp,value\n2020-01-01,1\n2020-01-02,abc\n")
    assert main(["ingest-series", str(csv), "--series", "bad"]) == 1
    assert "line 3" in capsys.readouterr().err
    assert cli_env.read("series.list", limit=10, offset=0) == []


def test_ask_prints_the_trace_and_the_answer(
    cli_env: Store, llm_server, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from llm_server import tool_call

    from graphmem.series.detect.ingest import append
    from graphmem.series.detect.synthetic import sales_series

    data = sales_series(seed=0)
    series = create_series(cli_env, data.name, data.unit)
    append(cli_env, series.id, data.ts, data.xs)
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.url)
    llm_server.script(
        {"tool_calls": [tool_call("time_bounds", {"series": data.name})]},
        {"content": "It covers 2010-01-01 to 2020-12-31."},
    )
    assert main(["ask", "What period does it cover?", "--series", data.name]) == 0
    out = capsys.readouterr().out
    assert out.startswith('[Step 1/10] tool: time_bounds {"series": "synthetic-sales"}')
    assert "It covers 2010-01-01 to 2020-12-31." in out and "evidence (ask_" not in out
    assert data.name in llm_server.requests[0]["messages"][0]["content"]


def test_ask_without_an_llm_says_so(
    cli_env: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["ask", "Anything?"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: no LLM is configured: set OPENAI_BASE_URL")


def test_demo_yearly_trend_table_shows_the_2016_slowdown(sales_store) -> None:
    import io

    from graphmem.config import Settings
    from graphmem.demo import yearly_trend

    store, series, _ = sales_store
    out = io.StringIO()
    rows = yearly_trend(store, Settings(), series, out)
    assert [r["year"] for r in rows] == [str(y) for y in range(2010, 2021)]
    assert min(rows, key=lambda r: r["slope/day"])["year"] == "2016"
    assert rows[0]["mean vs prev %"] is None, "2009 holds no points to compare with"
    text = out.getvalue()
    assert "[Step 3/3] tool: get_meta_features x11" in text
    assert "Weakest trend within a year: 2016" in text
    assert "2016" in text.split("Year-over-year growth dips in")[1]


def test_demo_with_an_llm_prints_the_agents_trace_then_the_table(
    sales_store, llm_server, llm_settings
) -> None:
    import io

    from llm_server import tool_call

    from graphmem.demo import yearly_trend

    store, series, _ = sales_store
    llm_server.script(
        {"tool_calls": [tool_call("time_bounds", {"series": series.name})]},
        {"content": "Sales grew every year but slowed in 2016."},
    )
    out = io.StringIO()
    rows = yearly_trend(store, llm_settings, series, out)
    text = out.getvalue()
    assert "[Step 1/10] tool: time_bounds" in text
    assert "Answer: Sales grew every year but slowed in 2016." in text
    assert "Per-year features" in text and "Weakest trend within a year: 2016" in text
    assert len(rows) == 11 and "[Step 1/3]" not in text


def test_demo_falls_back_to_direct_tool_calls_when_the_llm_fails(
    sales_store, llm_server, llm_settings
) -> None:
    import io

    from graphmem.demo import yearly_trend

    store, series, _ = sales_store
    llm_server.script({"status": 500}, {"status": 500})
    out = io.StringIO()
    rows = yearly_trend(store, llm_settings, series, out)
    text = out.getvalue()
    assert "The LLM failed (" in text and "answered 500" in text
    assert "[Step 3/3] tool: get_meta_features x11" in text
    assert min(rows, key=lambda r: r["slope/day"])["year"] == "2016"


def test_demo_prints_the_stored_segments(
    monkeypatch: pytest.MonkeyPatch,
    store_url: str,
    store: Store,
    short_tmp: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from graphmem.series.detect.segments import list_segments

    monkeypatch.setenv("GRAPHMEM_STORE", store_url)
    monkeypatch.setenv("GRAPHMEM_HOME", str(short_tmp / "cli-demo"))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    stored = list_segments(store, "synthetic-sales", limit=10_000)
    assert len(stored) > 20 and sum(s.n for s in stored) == 4018
    intro = f"4018 daily points 2010-01-01 to 2020-12-31, cut online by BOCPD into {len(stored)} "
    assert intro in out
    assert "The data is in" not in out  # a store URL was given: there is no data dir to name
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[:4] == ["#", "start", "end", "n"])
    assert set(lines[head + 1]) <= {"-", " "}
    table = [line.split(None, 4) for line in lines[head + 2 : head + 2 + len(stored)]]
    want = [
        [str(s.idx), s.start_iso[:10], s.end_iso[:10], str(s.n), s.summary + " (open)" * s.open]
        for s in stored
    ]
    assert table == want
    assert lines[head + 2 + len(stored)].strip() == "", "the table ends after the last segment"


NOW = ["--now", "2024-01-01"]
BAD_NUMBERS = [
    (["ingest-series", "{csv}", "--series", "s", "--batch-size", "0"], "--batch-size"),
    (["ingest-series", "{csv}", "--series", "s", "--batch-size", "-5"], "--batch-size"),
    (["ingest-series", "{csv}", "--series", "s", "--batch-size", "ten"], "--batch-size"),
    (["ingest-series", "{csv}", "--series", "s", "--batch-size", "1000001"], "--batch-size"),
    (["query", "q", "--max-tokens", "0"], "--max-tokens"),
    (["query", "q", "--max-tokens", "-1"], "--max-tokens"),
    (["query", "q", "-k", "0"], "-k"),
    (["query", "q", "-k", "201"], "-k"),
    (["recall", "q", *NOW, "-k", "0"], "-k"),
    (["recall", "q", *NOW, "-k", "1001"], "-k"),
    (["recall", "q", *NOW, "--threshold", "0"], "--threshold"),
    (["recall", "q", *NOW, "--threshold", "1.5"], "--threshold"),
    (["recall", "q", *NOW, "--threshold", "nan"], "--threshold"),
    (["segments", "s", "--limit", "0"], "--limit"),
    (["segments", "s", "--limit", "10001"], "--limit"),
    (["ask", "q", "--max-steps", "0"], "--max-steps"),
    (["ask", "q", "--max-steps", "51"], "--max-steps"),
    (["serve", "--port", "0"], "--port"),
    (["serve", "--port", "65536"], "--port"),
]


@pytest.mark.parametrize(("argv", "flag"), BAD_NUMBERS)
def test_a_bad_number_is_refused_before_anything_runs(
    cli_env: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list, flag: str
) -> None:
    csv = tmp_path / "ok.csv"
    csv.write_text("timestamp,value\n2020-01-01,1\n2020-01-02,2\n")
    with pytest.raises(SystemExit) as exited:
        main([str(csv) if a == "{csv}" else a for a in argv])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"error: argument {flag}: must be " in err and "Traceback" not in err
    assert cli_env.read("series.list", limit=10, offset=0) == []


def test_ingest_series_checks_every_point_before_creating_the_series(
    cli_env: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "huge.csv"
    csv.write_text("timestamp,value\n2020-01-01,1\n2020-01-02,1e200\n")
    assert main(["ingest-series", str(csv), "--series", "huge"]) == 1
    assert "values[1]: 1e+200 is too large" in capsys.readouterr().err
    assert cli_env.read("series.list", limit=10, offset=0) == []
    csv.write_text("timestamp,value\n" + "".join(f"2020-01-{d:02},{d}\n" for d in range(1, 21)))
    assert main(["ingest-series", str(csv), "--series", "small", "--batch-size", "7"]) == 0
    assert "20 points stored" in capsys.readouterr().out


def test_ingest_series_closes_the_stream_unless_told_not_to(
    cli_env: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from graphmem.series.detect.segments import list_segments

    # a 3-sigma step 15 days before the end: only closing the stream confirms it
    rng = np.random.default_rng(8)
    xs = 50.0 + rng.standard_normal(400) + np.where(np.arange(400) >= 385, 3.0, 0.0)
    days = np.datetime64("2020-01-01") + np.arange(400)
    csv = tmp_path / "finite.csv"
    csv.write_text(
        "timestamp,value\n" + "".join(f"{d},{x}\n" for d, x in zip(days, xs, strict=True))
    )
    assert main(["ingest-series", str(csv), "--series", "finite"]) == 0
    assert (
        capsys.readouterr()
        .out.rstrip()
        .endswith("2 segments, 2020-01-01T00:00:00Z to 2021-02-03T00:00:00Z; closed")
    )
    segs = list_segments(cli_env, "finite", limit=10)
    assert [(s.n, s.open) for s in segs] == [(385, False), (15, False)]
    assert main(["ingest-series", str(csv), "--series", "open", "--no-close"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("; open (--no-close)")
    assert [(s.n, s.open) for s in list_segments(cli_env, "open", limit=10)] == [(400, True)]


def _daily_csv(path: Path, values: list[str]) -> Path:
    days = np.datetime64("2021-03-01") + np.arange(len(values))
    path.write_text(
        "timestamp,value\n" + "".join(f"{d},{v}\n" for d, v in zip(days, values, strict=True))
    )
    return path


def test_ingest_series_appends_the_rows_a_grown_file_added(
    cli_env: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from graphmem.series.catalog import get_series
    from graphmem.series.detect.archive import read_index_range

    values = [f"{v:.3f}" for v in 10.0 + np.random.default_rng(3).standard_normal(60)]
    values[7] = ""  # a missing value is no stored point, and no difference
    first = _daily_csv(tmp_path / "export.csv", values[:40])
    assert main(["ingest-series", str(first), "--series", "export", "--description", " x "]) == 0
    printed = capsys.readouterr()
    assert "39 points stored, 1 missing value skipped; 1 segment," in printed.out
    assert "note:" not in printed.err  # the description given is the one stored
    grown = _daily_csv(tmp_path / "export.csv", values)
    assert main(["ingest-series", str(grown), "--series", "export"]) == 0
    assert "20 points stored, 0 missing values skipped, 40 rows already stored" in (
        capsys.readouterr().out
    )
    # unchanged: nothing stored; a unit given for the existing series is not taken silently
    assert main(["ingest-series", str(grown), "--series", "export", "--unit", "kg"]) == 0
    printed = capsys.readouterr()
    assert "0 points stored, 0 missing values skipped, 60 rows already stored" in printed.out
    assert "note: series export keeps no unit (--unit applies when a series is created)" in (
        printed.err
    )
    sid = get_series(cli_env, "export").id
    stored = read_index_range(cli_env, sid, 0, 100)
    assert list(stored.xs) == [float(v) for v in values if v]

    corrected = list(values) + ["11.0"]
    corrected[30] = "99.0"  # a stored value changed: refused, nothing stored
    assert (
        main(
            ["ingest-series", str(_daily_csv(tmp_path / "c.csv", corrected)), "--series", "export"]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert "the value at 2021-03-31T00:00:00Z is 99, stored as" in err and "Traceback" not in err
    blanked = list(values) + ["11.0"]
    blanked[12] = ""  # a stored value left out
    assert (
        main(["ingest-series", str(_daily_csv(tmp_path / "b.csv", blanked)), "--series", "export"])
        == 1
    )
    assert "the input's row at 2021-03-13T00:00:00Z has no value, stored as" in (
        capsys.readouterr().err
    )
    assert len(read_index_range(cli_env, sid, 0, 100).xs) == 59


def test_ingest_series_refuses_a_file_of_missing_values(
    cli_env: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = _daily_csv(tmp_path / "missing.csv", ["", "nan", ""])
    assert main(["ingest-series", str(csv), "--series", "missing"]) == 1
    assert "holds no values (all 3 missing)" in capsys.readouterr().err
    assert cli_env.read("series.list", limit=10, offset=0) == []


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["query", "q", "--as-of", "31/12/2021"], "'31/12/2021' is not a date in the form"),
        (["query", "q", "--as-of", "2021-02-30"], "'2021-02-30' is not a valid calendar date"),
        (["proposition", "update", "prop_x", "--date", "soon"], "'soon' is not a date in the"),
    ],
)
def test_a_bad_date_flag_is_named_before_anything_runs(
    capsys: pytest.CaptureFixture[str], argv: list, problem: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"error: argument {argv[-2]}: {problem}" in err and "Traceback" not in err


def test_a_series_not_found_names_the_data_dir_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GRAPHMEM_STORE", raising=False)
    home = tmp_path / "home"
    monkeypatch.setenv("GRAPHMEM_HOME", str(home))
    # run where nothing was stored, a reading command makes no empty data dir
    assert main(["segments", "nowhere"]) == 1
    assert f"error: no data dir at {home}: nothing is stored there" in capsys.readouterr().err
    assert not home.exists()
    csv = _daily_csv(tmp_path / "some.csv", ["1", "2", "3"])
    assert main(["ingest-series", str(csv), "--series", "some"]) == 0  # creates it
    assert main(["segments", "nowhere"]) == 1
    err = capsys.readouterr().err
    assert f"no series with id or name 'nowhere' (in the data dir {home};" in err
