"""The `graphmem` command: cypher inspection, demo, serve."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
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
