"""The embedded store heals: a killed server is restarted, loads are waited for, files private."""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
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
from graphmem.series.detect.ingest import append
from graphmem.series.detect.synthetic import sales_series
from graphmem.store import Store, embedded, falkordb_engine, open_store
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


@pytest.fixture(autouse=True)
def patient_health(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loaded CI machine may need longer than the production bound to restart a server."""
    monkeypatch.setattr(falkordb_engine, "HEALTH_WAIT", 60.0)


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


def blocked(observer: redis.Redis, name: str, count: int) -> None:
    """Until `count` clients named `name` wait on FalkorDB (queued or running a query)."""
    deadline = time.monotonic() + 60
    while sum(c["name"] == name and "b" in c["flags"] for c in observer.client_list()) < count:
        assert time.monotonic() < deadline, f"{count} {name} statements never started"
        time.sleep(0.01)


def killed_while_queued(data_dir: Path, store: Store, run: Callable[[], object]) -> Future:
    """Run `run` (one statement) in a thread and kill the server while it waits to be run.

    FalkorDB's worker threads are first kept busy with endless reads from other clients, so
    the statement is read by the server and queued: delivered, and not run, when it dies.
    """
    observer = control(data_dir)
    threads = observer.execute_command("GRAPH.CONFIG", "GET", "THREAD_COUNT")[1]
    endless = f"CYPHER n=100000 {Q['healing_test.slow_read'].text}"
    pool = ThreadPoolExecutor(threads + 1)
    try:
        for _ in range(threads):  # no retries: they end with the server
            hog = proc.control(data_dir / proc.SOCKET, None)
            pool.submit(hog.execute_command, "GRAPH.RO_QUERY", store.graph_name, endless)
        blocked(observer, proc.CONTROL_NAME, threads)
        running = pool.submit(run)
        blocked(observer, "graphmem", 1)
    finally:
        kill_server(data_dir)
        pool.shutdown(wait=False)  # a statement that hangs fails below, not here
    return running


def test_write_delivered_when_the_server_dies_is_reported_not_resent(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    pid = server_pid(data_dir)
    running = killed_while_queued(data_dir, store, lambda: create_series(store, "maybe"))
    with pytest.raises(StoreUnavailable, match="may or may not have been applied"):
        running.result(timeout=60)
    assert server_pid(data_dir) not in (None, pid), "restarted for the next statement"
    assert names(store) == [], "not sent again (it had not run)"
    store.close()


def test_read_delivered_when_the_server_dies_is_sent_again(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    create_series(store, "read twice")
    pid = server_pid(data_dir)
    running = killed_while_queued(data_dir, store, lambda: names(store))
    assert running.result(timeout=60) == ["read twice"]
    assert server_pid(data_dir) not in (None, pid)
    store.close()


def test_close_while_a_statement_runs_shuts_the_server_down(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    pid = server_pid(data_dir)
    pool = ThreadPoolExecutor(1)
    try:
        running = pool.submit(store.read, Q["healing_test.slow_read"], n=100_000)
        blocked(control(data_dir), "graphmem", 1)
        store.close()
        with pytest.raises(StoreUnavailable, match="the store is closed"):
            running.result(timeout=60)
    finally:
        pool.shutdown(wait=False)
    assert wait_gone(pid), "shut down by its last user"
    assert server_pid(data_dir) is None, "and not restarted by the statement that lost it"


def rewriting(data_dir: Path) -> int:
    """Start a compaction that takes minutes (the child sleeps after each key); its pid."""
    observer = control(data_dir)
    wait_compacted(data_dir)
    observer.config_set("rdb-key-save-delay", 120_000_000)  # microseconds per key
    observer.bgrewriteaof()
    deadline = time.monotonic() + 60
    while not (temps := list(data_dir.glob("temp-rewriteaof-*.aof"))):
        assert time.monotonic() < deadline, "the rewrite never started"
        time.sleep(0.01)
    return int(temps[0].stem.rsplit("-", 1)[1])


def test_kill_during_compaction_heals_and_leaves_no_rewrite_behind(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    create_series(store, "compacted")
    child = rewriting(data_dir)
    pool = ThreadPoolExecutor(1)
    try:
        kill_server(data_dir)  # its rewrite's child lives on, holding the old connections
        assert pool.submit(names, store).result(timeout=60) == ["compacted"]
    finally:
        pool.shutdown(wait=False)
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)  # a regression must not leave it sleeping
    assert wait_gone(child), "the orphaned rewrite was stopped"
    wait_compacted(data_dir)  # the restarted server's own compaction
    assert not list(data_dir.glob("temp-rewriteaof-*")), "its half-written file removed"
    assert store.health().reachable
    store.close()


def test_health_restarts_a_killed_server(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    dead = kill_server(data_dir)
    health = store.health()
    assert health.reachable and health.version.startswith("FalkorDB")
    assert server_pid(data_dir) not in (None, dead)
    store.close()


def test_health_answers_within_its_limit_while_another_process_holds_the_lock(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(falkordb_engine, "HEALTH_WAIT", 0.5)
    store = open_store(url(data_dir), Settings())
    dead = kill_server(data_dir)
    pool = ThreadPoolExecutor(1)
    with open(data_dir / proc.LOCKFILE, "w") as lock:  # another process starting the server
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            health = pool.submit(store.health).result(timeout=60)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            pool.shutdown(wait=False)
    assert not health.reachable and "being started or stopped by another process" in health.detail
    assert server_pid(data_dir) is None, "not started meanwhile"
    assert store.health().reachable, "the next check restarts it"
    assert server_pid(data_dir) not in (None, dead)
    store.close()


def test_health_reports_a_load_in_progress_and_waits_for_nothing(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    store.write(Q["healing_test.filler"], n=FILLER)
    kill_server(data_dir)
    server = loading(data_dir)  # restarted by another process, frozen while it loads
    pool = ThreadPoolExecutor(1)
    try:
        health = pool.submit(store.health).result(timeout=60)
    finally:
        os.kill(server.pid, signal.SIGCONT)
        pool.shutdown(wait=False)
    assert not health.reachable and "is loading (replaying its append-only file" in health.detail
    assert store.read(Q["healing_test.count_filler"])[0]["n"] == FILLER
    assert server_pid(data_dir) == server.pid, "the loading server was used, not replaced"
    store.close()
    assert server.wait(timeout=60) == 0


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
        body = client.post("/graphql", json={"query": "{ series { items { name } } }"}).json()
        assert "errors" not in body and body["data"]["series"]["items"] == [{"name": "kept"}]
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
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
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


def loading(data_dir: Path) -> subprocess.Popen[bytes]:
    """A server started as another opener would, frozen (SIGSTOP) while it loads the log."""
    server = proc.start(data_dir, "always")
    deadline = time.monotonic() + 60
    while (state := proc.status(data_dir, 0.05).state) != proc.LOADING:
        assert state != proc.READY, "loaded before it was seen loading: make FILLER larger"
        assert time.monotonic() < deadline, "never started loading"
        time.sleep(0.005)
    os.kill(server.pid, signal.SIGSTOP)
    return server


def test_open_waits_for_a_loading_server_and_never_kills_it(
    data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = open_store(url(data_dir), Settings())
    store.write(Q["healing_test.filler"], n=FILLER)
    store.close()  # the log's tail now holds the statement: the next start replays it
    server = loading(data_dir)
    try:
        limit = Settings(store_load_timeout=0.05)
        with (
            caplog.at_level(logging.WARNING, logger="graphmem.store.embedded"),
            pytest.raises(StoreUnavailable, match="GRAPHMEM_STORE_LOAD_TIMEOUT") as raised,
        ):
            open_store(url(data_dir), limit)
        assert "still loading" in str(raised.value) and "not restarted" in str(raised.value)
        assert "is loading: replaying its append-only file" in caplog.text, "progress logged"
        assert server_pid(data_dir) == server.pid, "a server too slow to load is left running"
        other = subprocess.Popen(
            [sys.executable, "-c", OPEN_AND_COUNT, url(data_dir), str(data_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        os.kill(server.pid, signal.SIGCONT)
        store = open_store(url(data_dir), Settings())  # waits for the same load
        assert server_pid(data_dir) == server.pid
        assert store.read(Q["healing_test.count_filler"])[0]["n"] == FILLER
        out, err = other.communicate(timeout=120)
        assert other.returncode == 0, err
        assert out.split() == [str(FILLER), str(server.pid)]
        store.close()
        assert server.wait(timeout=60) == 0, "shut down by its last user"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(server.pid, signal.SIGCONT)
        if server.poll() is None:
            server.kill()
            server.wait()


def test_the_last_user_leaves_the_server_to_a_process_waiting_for_it(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    pid = server_pid(data_dir)
    with embedded._waiting(data_dir):  # as an opener waiting for a load to end holds it
        store.close()
        assert server_pid(data_dir) == pid and proc.alive(pid), "left to the waiting one"
    reopened = open_store(url(data_dir), Settings())
    assert server_pid(data_dir) == pid, "the same server"
    reopened.close()
    assert wait_gone(pid), "shut down by its last user, nobody waiting"


def test_a_slow_load_is_followed_by_a_compaction(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(url(data_dir), Settings())
    store.write(Q["healing_test.filler"], n=FILLER)
    control(data_dir).bgrewriteaof()
    wait_compacted(data_dir)
    store.write(Q["healing_test.filler"], n=10)  # a tail far below half the snapshot
    store.close()
    tail = aof_tail_bytes(data_dir)
    monkeypatch.setattr(embedded, "SLOW_LOAD", 1e9)  # no load counts as slow
    reopened = open_store(url(data_dir), Settings())
    wait_compacted(data_dir)
    assert aof_tail_bytes(data_dir) == tail, "a quick load with a small tail: left as it is"
    kill_server(data_dir)
    monkeypatch.setattr(embedded, "SLOW_LOAD", 0.0)  # every load counts as slow,
    monkeypatch.setattr(embedded, "SLOW_TAIL", 1)  # and this tail as long enough to matter
    assert reopened.read(Q["healing_test.count_filler"])[0]["n"] == FILLER + 10
    wait_compacted(data_dir)
    assert aof_tail_bytes(data_dir) == 0, "compacted after the restart that took a while"
    reopened.close()


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
    return {
        name: stats.get(f"cmdstat_{name}", {}).get("calls", 0)
        for name in ("graph.QUERY", "graph.CONSTRAINT")
    }


def test_reopen_sends_no_ddl_and_does_not_grow_the_log(data_dir: Path) -> None:
    first = open_store(url(data_dir), Settings())
    before = commands(data_dir)
    second = open_store(url(data_dir), Settings())  # same server, schema complete
    assert commands(data_dir) == before
    assert second.apply_schema() == 0
    second.close()
    first.close()
    tail = aof_tail_bytes(data_dir)
    reopened = open_store(url(data_dir), Settings())  # a fresh server, loaded from the log
    assert commands(data_dir) == {"graph.QUERY": 0, "graph.CONSTRAINT": 0}, "no DDL sent"
    wait_compacted(data_dir)
    assert aof_tail_bytes(data_dir) == tail, "nothing appended: no DDL, no re-logged constraint"
    reopened.close()


def graph_dump(store: Store) -> tuple[list, list]:
    def key(row: dict) -> str:
        return repr(sorted(row.items()))

    return (
        sorted(store.read(Q["healing_test.nodes"]), key=key),
        sorted(store.read(Q["healing_test.edges"]), key=key),
    )


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
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(folder),
            "--appendonly",
            "yes",
            "--save",
            "",
            "--loadmodule",
            module,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
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
