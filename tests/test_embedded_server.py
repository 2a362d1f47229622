"""Embedded FalkorDB lifecycle: start, reuse, shutdown by the last user, crash recovery."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from graphmem.config import Settings
from graphmem.errors import StoreUnavailable
from graphmem.series.catalog import create_series, get_series, list_series
from graphmem.store import open_store
from graphmem.store import server_process as proc


def url(path: Path) -> str:
    return f"falkordb+embedded://{path}"


def server_pid(data_dir: Path) -> int | None:
    try:
        pid = int((data_dir / proc.PIDFILE).read_text())
    except OSError:
        return None
    return pid if proc.alive(pid) else None


def wait_gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not proc.alive(pid):
            return True
        time.sleep(0.02)
    return False


@pytest.fixture
def data_dir(short_tmp: Path, request: pytest.FixtureRequest) -> Path:
    return short_tmp / f"life-{request.node.name[:20]}"


def test_start_and_clean_shutdown(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    pid = server_pid(data_dir)
    assert pid is not None and (data_dir / proc.SOCKET).exists()
    assert store.health().reachable
    store.close()
    assert wait_gone(pid)
    assert not (data_dir / proc.PIDFILE).exists()


def test_second_store_reuses_server_and_last_close_stops_it(data_dir: Path) -> None:
    first = open_store(url(data_dir), Settings())
    pid = server_pid(data_dir)
    second = open_store(url(data_dir), Settings())
    assert server_pid(data_dir) == pid
    first.close()
    assert server_pid(data_dir) == pid, "a store still connected keeps the server running"
    create_series(second, "still here")
    second.close()
    assert wait_gone(pid)


def test_other_process_reuses_running_server(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    pid = server_pid(data_dir)
    code = (
        "import sys; from graphmem.store import open_store; "
        "from graphmem.series.catalog import create_series; "
        "from graphmem.store import server_process as proc; from pathlib import Path; "
        f"s = open_store({url(data_dir)!r}); create_series(s, 'from child'); "
        f"print((Path({str(data_dir)!r}) / proc.PIDFILE).read_text()); s.close()"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout.strip()) == pid
    assert server_pid(data_dir) == pid, "the child's exit must not stop a server we still use"
    assert get_series(store, "from child").name == "from child"
    store.close()
    assert wait_gone(pid)


def test_data_survives_clean_restart(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    create_series(store, "durable", unit="kg")
    store.close()
    store = open_store(url(data_dir), Settings())
    assert get_series(store, "durable").unit == "kg"
    store.close()


def test_data_survives_kill_9_and_stale_lock_is_cleaned(data_dir: Path) -> None:
    store = open_store(url(data_dir), Settings())
    create_series(store, "before crash")
    pid = server_pid(data_dir)
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    assert wait_gone(pid)
    # the pid file and socket of the dead server are still there: a stale lock
    assert (data_dir / proc.PIDFILE).exists()
    store.close()  # must not hang or raise on a dead server
    reopened = open_store(url(data_dir), Settings())
    assert server_pid(data_dir) not in (None, pid)
    assert [s.name for s in list_series(reopened)] == ["before crash"]
    reopened.close()


def test_pid_file_naming_a_process_that_is_not_the_server_is_stale(data_dir: Path) -> None:
    data_dir.mkdir(mode=0o700)
    # pid 1 lives, and is no server of ours (its working dir is / or, for most users and in
    # containers, cannot be read at all)
    (data_dir / proc.PIDFILE).write_text("1")
    assert proc.status(data_dir).state == proc.DOWN
    store = open_store(url(data_dir), Settings())
    assert server_pid(data_dir) not in (None, 1)
    assert store.health().reachable
    store.close()


def test_killed_client_does_not_keep_server_alive(data_dir: Path) -> None:
    code = (
        f"import time; from graphmem.store import open_store; s = open_store({url(data_dir)!r}); "
        "print('up', flush=True); time.sleep(60)"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "up"
    pid = server_pid(data_dir)
    child.kill()
    child.wait()
    store = open_store(url(data_dir), Settings())
    assert server_pid(data_dir) == pid, "the orphaned server is reused"
    store.close()
    assert wait_gone(pid), "the last live user shuts down a server a killed process left"


def test_unwritable_dir_is_a_clear_error(short_tmp: Path) -> None:
    if os.geteuid() == 0:
        target = Path("/proc/self")  # exists, and not even root can create files there
    else:
        target = short_tmp / "locked"
        target.mkdir()
        target.chmod(0o500)
    with pytest.raises(StoreUnavailable, match="not writable"):
        open_store(url(target), Settings())


def test_data_dir_under_a_file_is_a_clear_error(short_tmp: Path) -> None:
    blocker = short_tmp / "a-file"
    blocker.write_text("x")
    with pytest.raises(StoreUnavailable, match="cannot create data dir"):
        open_store(url(blocker / "db"), Settings())


def test_binary_that_cannot_run_is_a_clear_error(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, short_tmp: Path
) -> None:
    fake = short_tmp / "not-a-server"
    fake.write_text("not an executable")
    monkeypatch.setattr(proc, "binaries", lambda: (str(fake), "/nonexistent.so"))
    with pytest.raises(StoreUnavailable, match="cannot run FalkorDB server"):
        open_store(url(data_dir), Settings())


def test_server_failing_at_start_reports_its_log(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, _ = proc.binaries()
    monkeypatch.setattr(proc, "binaries", lambda: (server, "/nonexistent/falkordb.so"))
    with pytest.raises(StoreUnavailable, match="exited with code"):
        open_store(url(data_dir), Settings())
    assert not (data_dir / proc.PIDFILE).exists()


OPEN_WHEN_TOLD = """
import sys, time
from pathlib import Path
from graphmem.store import open_store
go = Path(sys.argv[2])
print("ready", flush=True)
while not go.exists():
    time.sleep(0.005)
store = open_store(sys.argv[1])
print(store.health().reachable, flush=True)
store.close()
"""


@pytest.mark.parametrize("attempt", range(3))
def test_processes_opening_a_fresh_dir_at_once_all_succeed(short_tmp: Path, attempt: int) -> None:
    data_dir = short_tmp / f"race-{attempt}"
    go = short_tmp / f"go-{attempt}"
    children = [
        subprocess.Popen(
            [sys.executable, "-c", OPEN_WHEN_TOLD, url(data_dir), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    for child in children:  # every child has imported graphmem and waits at the starting line
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    go.touch()
    results = [child.communicate(timeout=120) for child in children]
    for child, (out, err) in zip(children, results, strict=True):
        assert child.returncode == 0, err
        assert out.strip() == "True"
    assert server_pid(data_dir) is None, "the last process to close stopped the server"
