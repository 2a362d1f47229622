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
def cli_env(monkeypatch: pytest.MonkeyPatch, embedded_url: str, store: Store) -> Store:
    monkeypatch.setenv("GRAPHMEM_STORE", embedded_url)
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
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
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
        assert body == {"data": {"createSeries": {"name": "served"}}}
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert not (short_tmp / "serve-home" / "falkordb.pid").exists(), "server stopped on exit"


def test_ingest_series_csv_then_segments_and_plot(
    cli_env: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from graphmem.series.synthetic import sales_series

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
    assert f"{len(data.ts) - 1} points stored, 1 missing values skipped" in out
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
