"""The `graphmem series` command and the CLI's handling of store URLs (errors, no passwords)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from graphmem.cli import main
from graphmem.cypher import load_dir
from graphmem.series.catalog import create_series, list_series
from graphmem.series.detect.ingest import append
from graphmem.store import Store

Q = load_dir(Path(__file__).parent / "cypher")


@pytest.fixture
def cli_store(monkeypatch: pytest.MonkeyPatch, store_url: str, store: Store) -> Store:
    monkeypatch.setenv("GRAPHMEM_STORE", store_url)
    return store


def test_series_list_and_delete(cli_store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["series", "list"]) == 0
    assert capsys.readouterr().out.strip() == "no series stored"
    kept = create_series(cli_store, "kept", unit="kg")
    gone = create_series(cli_store, "gone", description="to delete")
    append(cli_store, gone.id, [1_700_000_000.0 + 86_400 * i for i in range(30)], [1.0] * 30)
    assert main(["series", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["id", "name", "unit", "description"]
    assert [line.split()[:2] for line in lines[2:]] == [[gone.id, "gone"], [kept.id, "kept"]]

    assert main(["series", "delete", "gone"]) == 0
    assert "deleted series gone" in capsys.readouterr().out
    assert [s.name for s in list_series(cli_store)] == ["kept"]
    assert cli_store.read(Q["engines.count_data"])[0]["n"] == 1, "chunks and segments went too"


def test_series_delete_unknown_is_a_clear_error(
    cli_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    create_series(cli_store, "kept")
    assert main(["series", "delete", "nope"]) == 1
    assert "no series with id or name 'nope'" in capsys.readouterr().err
    assert [s.name for s in list_series(cli_store)] == ["kept"]


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("falkordb://u:secret@127.0.0.1:1", "FalkorDB at 127.0.0.1:1 is not reachable"),
        ("bolt://neo4j:secret@127.0.0.1:1", "Neo4j is not reachable"),
        ("bolt://neo4j:secret@", "needs a host"),
        ("ftp://u:secret@host", "unsupported scheme in 'ftp://u:***@host'"),
    ],
)
def test_store_url_errors_are_one_line_without_password(
    url: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--store", url, "cypher", "RETURN 1"]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith("error: ") and message in captured.err
    assert "Traceback" not in captured.err and "secret" not in captured.err + captured.out


def test_serve_prints_the_store_url_without_password(short_tmp: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = "bolt://neo4j:secret@127.0.0.1:1"
    server = subprocess.Popen(
        [sys.executable, "-m", "graphmem.cli", "serve", "--port", str(port), "--store", url],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "GRAPHMEM_HOME": str(short_tmp / "serve-home"), "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
    finally:
        server.send_signal(signal.SIGINT)
        try:
            # what is asserted is the line; the stop may lag on a busy machine (CI once
            # took over 20 s), and a server that outlives the test is killed, not left behind
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    assert "store: bolt://neo4j:***@127.0.0.1:1" in line and "secret" not in line
