"""The embedded store heals: a killed server is restarted, loads are waited for, files private."""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import redis
from starlette.testclient import TestClient
from test_embedded_server import server_pid, url, wait_gone

from api.app import create_app
from graphmem.config import Settings
from graphmem.cypher import load_dir
from graphmem.errors import InvalidInput, StoreUnavailable
from graphmem.series.catalog import create_series, list_series
from graphmem.series.ingest import append
from graphmem.series.synthetic import sales_series
from graphmem.store import Store, embedded, open_store
from graphmem.store import server_process as proc

Q = load_dir(Path(__file__).parent / "cypher")


@pytest.fixture
def data_dir(short_tmp: Path, request: pytest.FixtureRequest) -> Path:
    return short_tmp / f"heal-{request.node.name[:20]}"


def kill_server(data_dir: Path) -> int:
    """SIGKILL the embedded server of `data_dir`, as the OOM killer or a crash would."""
    pid = server_pid(data_dir)
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    assert wait_gone(pid)
    return pid


def names(store: Store) -> list[str]:
    return sorted(s.name for s in list_series(store))


def control(data_dir: Path) -> redis.Redis:
    """An observer connection (not counted as a graphmem user)."""
    return redis.Redis(unix_socket_path=str(data_dir / proc.SOCKET), decode_responses=True)


def wait_compacted(data_dir: Path) -> None:
    """Until no rewrite of the append-only file runs or waits to run."""
    observer = control(data_dir)
    while True:
        info = observer.info("persistence")
        if not (info["aof_rewrite_in_progress"] or info["aof_rewrite_scheduled"]):
            return
        time.sleep(0.02)


def aof_tail_bytes(data_dir: Path) -> int:
    return sum(f.stat().st_size for f in (data_dir / proc.AOF_DIR).glob("*.incr.aof"))


def test_statement_after_kill_restarts_the_server_with_the_data(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    create_series(store, "before")
    dead = kill_server(data_dir)
    assert names(store) == ["before"], "the read after the kill ran on a restarted server"
    assert server_pid(data_dir) not in (None, dead)
    create_series(store, "after")
    assert names(store) == ["after", "before"]
    store.close()


def test_write_after_a_kill_lands_once(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    kill_server(data_dir)
    create_series(store, "written once")
    assert names(store) == ["written once"]
    store.close()


def test_write_refused_by_a_dead_server_is_sent_again_after_the_restart(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(url(data_dir), Settings())
    # as when the server dies between the check before a statement and its sending
    monkeypatch.setattr(embedded.EmbeddedServer, "check", lambda self, client, wait=None: None)
    dead = kill_server(data_dir)
    create_series(store, "refused, then sent again")
    assert server_pid(data_dir) not in (None, dead)
    assert names(store) == ["refused, then sent again"]
    store.close()


def test_statement_running_when_the_server_dies_is_reported_not_rerun(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    pid = server_pid(data_dir)
    observer = control(data_dir)
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(store.read, Q["healing_test.slow_read"], n=100_000)
        try:
            deadline = time.monotonic() + 60
            while not any(
                c["name"] == "graphmem" and "b" in c["flags"] for c in observer.client_list()
            ):  # FalkorDB blocks the client while a worker thread runs its query
                assert time.monotonic() < deadline, "the slow read never started"
                time.sleep(0.01)
        finally:
            kill_server(data_dir)
        with pytest.raises(StoreUnavailable, match="stopped while the statement ran"):
            running.result(timeout=60)
    assert server_pid(data_dir) not in (None, pid), "restarted for the next statement"
    assert names(store) == []
    store.close()


def test_health_restarts_a_killed_server(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    dead = kill_server(data_dir)
    health = store.health()
    assert health.reachable and health.version.startswith("FalkorDB")
    assert server_pid(data_dir) not in (None, dead)
    store.close()


def test_api_heals_without_a_restart_of_the_app(data_dir: Path) -> None:
    app = create_app(Settings(store_url=url(data_dir)))
    with TestClient(app, base_url="http://localhost") as client:
        create = 'mutation { createSeries(name: "kept") { id } }'
        assert client.post("/graphql", json={"query": create}).json()["data"]["createSeries"]
        assert client.get("/healthz").json()["reachable"] is True
        kill_server(data_dir)
        healthz = client.get("/healthz")
        assert healthz.status_code == 200 and healthz.json()["reachable"] is True
        kill_server(data_dir)
        body = client.post("/graphql", json={"query": "{ series { name } }"}).json()
        assert "errors" not in body and body["data"]["series"] == [{"name": "kept"}]
        assert client.get("/healthz").status_code == 200


SHARE_AFTER_KILL = """
import sys
from graphmem.series.catalog import list_series
from graphmem.store import open_store
store = open_store(sys.argv[1])
print("open", flush=True)
sys.stdin.readline()
print(len(list_series(store)), flush=True)
sys.stdin.readline()
store.close()
"""


def servers_of(data_dir: Path) -> list[int]:
    """Live redis-server processes serving this data dir (found in /proc)."""
    mark = str(data_dir / proc.SOCKET).encode()
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if entry.name.isdigit() and b"redis-server" in cmdline and mark in cmdline:
            found.append(int(entry.name))
    return [pid for pid in found if proc.alive(pid)]


def test_processes_sharing_a_dir_agree_on_one_server_after_a_kill(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    create_series(store, "shared")
    child = subprocess.Popen(
        [sys.executable, "-c", SHARE_AFTER_KILL, url(data_dir)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert child.stdin is not None and child.stdout is not None
    assert child.stdout.readline().strip() == "open"
    kill_server(data_dir)
    child.stdin.write("go\n")
    child.stdin.flush()  # both processes find the server gone at the same moment
    assert names(store) == ["shared"]
    assert child.stdout.readline().strip() == "1"
    (pid,) = servers_of(data_dir)
    assert server_pid(data_dir) == pid
    users = [c for c in control(data_dir).client_list() if c["name"] == "graphmem"]
    assert len(users) >= 2, "both processes use the one server"
    child.stdin.write("done\n")
    child.stdin.flush()
    assert child.wait(timeout=60) == 0, child.stderr.read()
    store.close()
    assert wait_gone(pid)


OPEN_AND_COUNT = """
import sys
from pathlib import Path
from graphmem.store import open_store, server_process
store = open_store(sys.argv[1])
pid = (Path(sys.argv[2]) / server_process.PIDFILE).read_text()
print(store.read("admin.count_nodes")[0]["n"], pid)
store.close()
"""

FILLER = 1_000_000  # nodes: the server takes about half a second to replay them


def test_open_waits_for_a_loading_server_and_never_kills_it(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    store.write(Q["healing_test.filler"], n=FILLER)
    store.close()  # the log's tail now holds the statement: the next start replays it
    with pytest.raises(StoreUnavailable, match="GRAPHMEM_STORE_LOAD_TIMEOUT") as raised:
        open_store(url(data_dir), Settings(store_load_timeout=0.05))
    assert "not restarted" in str(raised.value)
    loading = server_pid(data_dir)
    assert loading is not None, "a server that is too slow to load is left running"
    other = subprocess.Popen(
        [sys.executable, "-c", OPEN_AND_COUNT, url(data_dir), str(data_dir)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    store = open_store(url(data_dir), Settings())  # waits for the same load
    assert server_pid(data_dir) == loading
    assert store.read(Q["healing_test.count_filler"])[0]["n"] == FILLER
    out, err = other.communicate(timeout=120)
    assert other.returncode == 0, err
    assert out.split() == [str(FILLER), str(loading)]
    store.close()


def test_load_timeout_comes_from_the_environment() -> None:
    assert Settings.from_env({"GRAPHMEM_STORE_LOAD_TIMEOUT": "42"}).store_load_timeout == 42.0
    assert Settings.from_env({}).store_load_timeout == 600.0
    for bad in ("soon", "0", "-1", "nan"):
        with pytest.raises(InvalidInput, match="GRAPHMEM_STORE_LOAD_TIMEOUT"):
            Settings.from_env({"GRAPHMEM_STORE_LOAD_TIMEOUT": bad})


def test_data_dir_and_its_files_are_private(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    create_series(store, "secret")
    wait_compacted(data_dir)
    assert data_dir.stat().st_mode & 0o777 == 0o700
    paths = list(data_dir.rglob("*"))
    assert {p.name for p in paths} >= {proc.LOCKFILE, proc.PIDFILE, proc.LOGFILE}
    assert any(p.suffix == ".aof" for p in paths)
    for path in paths:
        if path.is_dir():
            assert path.stat().st_mode & 0o777 == 0o700, path
        elif path.is_file():
            assert path.stat().st_mode & 0o777 == 0o600, path
    store.close()


def test_shared_data_dir_gets_a_warning_naming_the_fix(
    data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data_dir.mkdir(mode=0o755)
    data_dir.chmod(0o755)
    with caplog.at_level(logging.WARNING, logger="graphmem.store.embedded"):
        open_store(url(data_dir), Settings()).close()
    assert f"chmod 700 {data_dir}" in caplog.text and "0755" in caplog.text


def commands(data_dir: Path) -> dict[str, int]:
    stats = control(data_dir).info("commandstats")
    return {name: stats.get(f"cmdstat_{name}", {}).get("calls", 0)
            for name in ("graph.QUERY", "graph.CONSTRAINT")}  # fmt: skip


def test_reopen_sends_no_ddl_and_does_not_grow_the_log(data_dir: Path) -> None:
    first = open_store(url(data_dir), Settings())
    before = commands(data_dir)
    second = open_store(url(data_dir), Settings())  # same server, schema complete
    assert commands(data_dir) == before
    assert second.apply_schema() == 0
    second.close()
    first.close()
    tail = aof_tail_bytes(data_dir)
    reopened = open_store(url(data_dir), Settings())  # a fresh server replays the log
    wait_compacted(data_dir)
    assert aof_tail_bytes(data_dir) == tail, "nothing appended: no DDL, no re-logged constraint"
    reopened.close()


def graph_dump(store: Store) -> tuple[list, list]:
    def key(row: dict) -> str:
        return repr(sorted(row.items()))

    return (sorted(store.read(Q["healing_test.nodes"]), key=key),
            sorted(store.read(Q["healing_test.edges"]), key=key))  # fmt: skip


def test_graph_is_identical_after_compaction_and_restart(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    data = sales_series(seed=0, end="2012-12-31")
    series = create_series(store, data.name, data.unit, data.description)
    append(store, series.id, data.ts, data.xs)  # chunks of floats, segments, NEXT edges
    store.write(Q["contract.create"], id="odd", text='quote " \\ and ✓', n=-(2**63), xs=[0.1])
    before = graph_dump(store)
    assert len(before[0]) > 10 and before[1]
    wait_compacted(data_dir)
    control(data_dir).bgrewriteaof()
    wait_compacted(data_dir)
    assert aof_tail_bytes(data_dir) == 0, "the whole graph is in the RDB snapshot"
    store.close()
    store = open_store(url(data_dir), Settings())
    assert graph_dump(store) == before
    store.close()


@pytest.fixture
def external_server(short_tmp: Path) -> Iterator[tuple[int, Path, list[subprocess.Popen]]]:
    """A FalkorDB server graphmem does not run, on a local TCP port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    folder = short_tmp / f"external-{port}"
    folder.mkdir()
    servers: list[subprocess.Popen] = []
    yield port, folder, servers
    for server in servers:
        server.kill()
        server.wait()


def run_external(port: int, folder: Path) -> subprocess.Popen:
    binary, module = proc.binaries()
    server = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
         "--appendonly", "yes", "--save", "", "--loadmodule", module],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    probe = redis.Redis(port=port)
    while True:
        try:
            probe.ping()
            return server
        except redis.exceptions.RedisError:
            time.sleep(0.02)


def test_external_server_is_reconnected_not_restarted(external_server) -> None:
    port, folder, servers = external_server
    servers.append(run_external(port, folder))
    store = open_store(f"falkordb://127.0.0.1:{port}", Settings())
    create_series(store, "remote")
    servers[0].kill()
    servers[0].wait()
    with pytest.raises(StoreUnavailable, match="graphmem does not run that server"):
        list_series(store)
    assert not store.health().reachable
    servers.append(run_external(port, folder))  # its operator brings it back
    assert names(store) == ["remote"]
    store.close()
