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
import errno
import fcntl
import logging
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import redis
from falkordb import FalkorDB

from graphmem.errors import StoreUnavailable
from graphmem.store import server_process as proc
from graphmem.store.falkordb_engine import CLIENT_NAME

log = logging.getLogger(__name__)

MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes on Linux
START_TIMEOUT = 20.0  # for the socket to accept connections; it does before loading begins
PROGRESS_EVERY = 10.0  # seconds between log lines while waiting for a load
REWRITE_WAIT = 60.0  # the last user lets a running compaction finish before shutting down
# a load this long (seconds) is followed by a compaction when the tail holds SLOW_TAIL bytes
# or more, whatever its share of the snapshot: a tail of small statements replays far slower
# per byte than one of large batches (docs/operations.md). A shorter tail cannot be what made
# the load slow, and rewriting a large snapshot for it at every start would cost more.
SLOW_LOAD = 3.0
SLOW_TAIL = 1_000_000
LOCK_POLL = 0.02  # seconds between tries of the lock when a wait is bounded
PRIVATE_DIR = 0o700


@dataclass(frozen=True)
class ServerOptions:
    """How graphmem runs the embedded server (from Settings)."""

    appendfsync: str = "always"
    load_timeout: float = 600.0  # GRAPHMEM_STORE_LOAD_TIMEOUT


@dataclass
class EmbeddedServer:
    """A running embedded server and this process's share of it."""

    data_dir: Path
    options: ServerOptions = ServerOptions()
    pid: int | None = None  # of the server last seen answering
    slow_load: bool = False  # the last load waited for took SLOW_LOAD s or more: compact
    _healing: threading.Lock = field(default_factory=threading.Lock)  # one thread restarts
    _watch: proc.Watch | None = field(default=None, repr=False)  # on `pid`

    @property
    def socket_path(self) -> Path:
        return self.data_dir / proc.SOCKET

    def check(self, client: FalkorDB, wait: float | None = None) -> None:
        """Before a statement: restart the server if its process has died (no round trip)."""
        if self.pid is not None and not self._alive(self.pid):
            self.revive(client, wait)

    def _alive(self, pid: int) -> bool:
        watch = self._watch
        if watch is None or watch.pid != pid:  # the first check, or a restarted server
            # the old watch stays open: another thread may be reading it (one fd per restart)
            self._watch = watch = proc.watch(pid)
        return watch.alive()

    def recover(self, client: FalkorDB, error: Exception, what: str, write: bool) -> None:
        """After a lost connection: restart the server; raise unless `what` may be sent again.

        A read may (the adapter sends a statement at most twice); a write only if it certainly
        did not run.
        """
        self.revive(client)
        if write and not _undelivered(error):
            raise StoreUnavailable(
                f"{what}: FalkorDB stopped while the statement ran; the server has been "
                f"restarted, and the statement may or may not have been applied (it may be "
                f"what stopped the server). Send it again if it should run"
            ) from error

    def alive(self, client: FalkorDB, wait: float) -> None:
        """For a health check: within `wait` seconds, restart the server if it is gone.

        Raises StoreUnavailable (saying how far a load has got) unless it answers by then.
        """
        deadline = time.monotonic() + wait
        status = proc.status(self.data_dir, _probe_timeout(deadline))
        if status.state == proc.READY and proc.read_pid(self.data_dir) == self.pid:
            return
        if status.state in (proc.READY, proc.DOWN):  # gone, or restarted by another process
            self.revive(client, deadline - time.monotonic())
        else:
            raise StoreUnavailable(f"FalkorDB for {self.data_dir} is {_state(status)}")

    def connect(self) -> FalkorDB:
        """A client connection counted as a user of the server."""
        return FalkorDB(unix_socket_path=str(self.socket_path), client_name=CLIENT_NAME)

    def revive(self, client: FalkorDB, wait: float | None = None) -> None:
        """After a lost connection: start the server again unless it answers, then register.

        Waits up to `wait` seconds (default: the load timeout) in all for it to answer; raises
        StoreUnavailable when it cannot be started or is still loading by then.
        """
        if not self.data_dir.is_dir():
            raise StoreUnavailable(f"data dir {self.data_dir} was removed; not restarting")
        began = time.monotonic()
        if not self._healing.acquire(timeout=-1 if wait is None else max(wait, 0)):
            raise StoreUnavailable("FalkorDB is being restarted; try again shortly")
        try:
            left = None if wait is None else wait - (time.monotonic() - began)
            if _ensure(self, lambda: self._register(client), left):
                log.warning(
                    "FalkorDB for %s restarted in %.1f s", self.data_dir, time.monotonic() - began
                )
                self.compact()
        finally:
            self._healing.release()

    def _register(self, client: FalkorDB) -> None:
        """Count `client` as a user of the server that answers now."""
        if proc.read_pid(self.data_dir) != self.pid:
            # never send on a connection to the server that died: a rewrite's child it left
            # may hold it open, and a statement sent there waits for the child to exit
            client.connection.connection_pool.disconnect()
        client.connection.ping()

    def compact(self, force: bool = False) -> None:
        """Rewrite the append-only file in the background if its tail exceeds COMPACT_AT.

        Redis applies the same rule while it runs, but not to what it loaded at start-up.

        `force`: whatever the sizes (after schema changes: replayed DDL slows every later
        statement of the replay, and FalkorDB logs replayed constraints again at each load).
        A load that took SLOW_LOAD s or more forces it too, unless the tail is short.
        """
        with contextlib.suppress(redis.exceptions.RedisError), _control(self) as control:
            info = control.info("persistence")
            busy = info.get("aof_rewrite_in_progress") or info.get("aof_rewrite_scheduled")
            tail = info["aof_current_size"] - info["aof_base_size"]
            slow = self.slow_load and tail >= SLOW_TAIL
            force = force or slow or tail > proc.COMPACT_AT * info["aof_base_size"]
            if not busy and tail > 0 and force:
                control.bgrewriteaof()
            self.slow_load = False

    def release(self) -> None:
        """Shut the server down if no graphmem connection is left (call after closing ours)."""
        if not self.data_dir.is_dir():
            return  # the data dir was removed under us: nothing left to stop
        # errors: already gone, or too busy loading to ask: left to its next user
        with contextlib.suppress(redis.exceptions.RedisError), _control(self) as control:
            if not _users(control):
                _await_rewrite(control)  # outside the lock: others may open meanwhile
                with _locked(self.data_dir):
                    # one waiting for a load to end is about to be a user: not shut down
                    if not _users(control) and not _others_waiting(self.data_dir):
                        proc.shutdown(self.socket_path)
                        proc.cleanup(self.data_dir)
        child = proc.children.get(self.data_dir)
        if child is not None and not (self.data_dir / proc.PIDFILE).exists():
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout=10)  # our child has been told to exit: reap it
            proc.children.pop(self.data_dir, None)


def _control(server: EmbeddedServer) -> contextlib.closing[redis.Redis]:
    """An observer connection to the server (not counted as a user), closed after use."""
    return contextlib.closing(proc.control(server.socket_path, proc.PROBE_TIMEOUT))


def _users(control: redis.Redis) -> list[dict]:
    return [c for c in control.client_list() if c.get("name") == CLIENT_NAME]


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
    before anyone else can decide to shut the server down. Everything happens within `wait`
    seconds (default: the load timeout).
    """
    data_dir = server.data_dir
    limit = server.options.load_timeout if wait is None else wait
    deadline = time.monotonic() + limit
    with _waiting(data_dir):  # until registered: the last user does not shut it down meanwhile
        return _answer(server, register, deadline, limit)


def _answer(
    server: EmbeddedServer, register: Callable[[], object], deadline: float, limit: float
) -> bool:
    """_ensure's work, while this process is counted as waiting for the server."""
    data_dir = server.data_dir
    child, starts = None, 0
    while True:
        with _locked(data_dir, deadline):
            _reap(data_dir)
            status = proc.status(data_dir, _probe_timeout(deadline))
            if status.state == proc.READY:
                try:
                    register()
                except redis.exceptions.RedisError as error:
                    raise StoreUnavailable(f"FalkorDB for {data_dir}: {error}") from None
                server.pid = proc.read_pid(data_dir)
                return child is not None
            if status.state == proc.DOWN:
                if starts == 3:  # shut down by its last user each time we waited for it
                    raise StoreUnavailable(f"FalkorDB for {data_dir} stopped each time it started")
                proc.cleanup(data_dir)  # stale pid file or socket left by a killed server
                child = proc.children[data_dir] = proc.start(data_dir, server.options.appendfsync)
                starts += 1
        began = time.monotonic()
        _await_ready(data_dir, deadline, limit, child)
        server.slow_load = server.slow_load or time.monotonic() - began >= SLOW_LOAD


def _probe_timeout(deadline: float) -> float:
    """How long a look at the server may wait for an answer, given the caller's deadline."""
    return min(proc.PROBE_TIMEOUT, max(deadline - time.monotonic(), 0.01))


def _reap(data_dir: Path) -> None:
    """Forget (and reap) a server this process started that has exited since."""
    child = proc.children.get(data_dir)
    if child is not None and child.poll() is not None:
        proc.children.pop(data_dir)


def _prepare_dir(data_dir: Path) -> Path:
    data_dir = data_dir.expanduser().resolve()
    try:
        data_dir.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    except OSError as error:
        raise StoreUnavailable(f"cannot create data dir {data_dir}: {error.strerror}") from None
    try:  # a real write, not os.access: root passes access checks on read-only file systems
        os.close(proc.private(data_dir / proc.LOCKFILE, os.O_WRONLY))
    except OSError as error:
        raise StoreUnavailable(f"data dir {data_dir} is not writable: {error.strerror}") from None
    if len(str(data_dir / proc.SOCKET)) > MAX_SOCKET_PATH:
        raise StoreUnavailable(
            f"data dir path {data_dir} is too long for a unix socket "
            f"(max {MAX_SOCKET_PATH - len(proc.SOCKET) - 1} characters); "
            f"use a shorter GRAPHMEM_HOME"
        )
    _warn_if_shared(data_dir)
    return data_dir


def _warn_if_shared(data_dir: Path) -> None:
    """The graph is in plain files: a dir others may enter exposes all of it."""
    mode = data_dir.stat().st_mode & 0o777
    if mode & 0o077:
        log.warning(
            "data dir %s has mode %04o: other local users can read the whole graph; "
            "run `chmod 700 %s`",
            data_dir,
            mode,
            data_dir,
        )


@contextlib.contextmanager
def _locked(data_dir: Path, deadline: float | None = None) -> Iterator[None]:
    """Hold the lock on the data dir; raise StoreUnavailable if `deadline` passes first."""
    with os.fdopen(proc.private(data_dir / proc.LOCKFILE, os.O_WRONLY), "w") as handle:
        if deadline is None:
            fcntl.flock(handle, fcntl.LOCK_EX)
        else:
            while not _try_lock(handle):
                if time.monotonic() >= deadline:
                    raise StoreUnavailable(
                        f"FalkorDB for {data_dir} is being started or stopped by another "
                        f"process; try again shortly"
                    )
                time.sleep(LOCK_POLL)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def _waiting(data_dir: Path) -> Iterator[None]:
    """Hold the waiters' lock shared: this process waits for the server (or starts it)."""
    with os.fdopen(proc.private(data_dir / proc.WAITFILE, os.O_WRONLY), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_SH)
        yield  # closing the file lets go of the lock


def _others_waiting(data_dir: Path) -> bool:
    """Whether any process (this one's other threads included) waits for the server now."""
    with os.fdopen(proc.private(data_dir / proc.WAITFILE, os.O_WRONLY), "w") as handle:
        return not _try_lock(handle)  # let go of when the file closes


def _try_lock(handle: IO[str]) -> bool:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _await_ready(
    data_dir: Path, deadline: float, limit: float, child: subprocess.Popen[bytes] | None
) -> None:
    """Wait until the server answers or is gone; a loading server is never killed.

    `child`: the server this call started, whose failure at start-up is reported.
    """
    began = time.monotonic()
    # a wait that ends in failure has logged progress first
    note = min(began + PROGRESS_EVERY / 2, (began + deadline) / 2)
    while True:
        status = proc.status(data_dir, _probe_timeout(deadline))
        now = time.monotonic()
        if status.state in (proc.READY, proc.DOWN):
            _check_exit(data_dir, child)
            return
        if status.state == proc.STARTING and now - began > START_TIMEOUT:
            _abandon_start(data_dir, child)
        if status.state == proc.LOADING and now >= note:
            log.warning(
                "FalkorDB for %s is loading: %s, %.1f s so far (limit %g s)",
                data_dir,
                status.detail,
                now - began,
                limit,
            )
            note = now + PROGRESS_EVERY
        if now >= deadline:
            raise StoreUnavailable(_still_busy(data_dir, status, limit))
        time.sleep(0.02 if now - began < 1 else 0.1)


def _check_exit(data_dir: Path, child: subprocess.Popen[bytes] | None) -> None:
    """Raise if the server we started failed at start-up (rather than being shut down)."""
    if child is not None and child.poll() not in (None, 0):
        proc.children.pop(data_dir, None)
        proc.cleanup(data_dir)
        raise StoreUnavailable(proc.startup_failure(data_dir, child))


def _abandon_start(data_dir: Path, child: subprocess.Popen[bytes] | None) -> None:
    """A server that has not even opened its socket is not loading: stop it if it is ours."""
    if child is None:
        raise StoreUnavailable(
            f"FalkorDB server (pid {proc.read_pid(data_dir)}) for {data_dir} runs but accepts no "
            f"connections after {START_TIMEOUT:.0f} s; see {data_dir / proc.LOGFILE}"
        )
    child.kill()
    child.wait()
    proc.children.pop(data_dir, None)
    proc.cleanup(data_dir)
    raise StoreUnavailable(
        f"FalkorDB did not answer within {START_TIMEOUT:.0f} s; see {proc.LOGFILE}"
    )


def _state(status: proc.Status) -> str:
    return f"loading ({status.detail})" if status.state == proc.LOADING else "starting"


def _still_busy(data_dir: Path, status: proc.Status, limit: float) -> str:
    return (
        f"FalkorDB for {data_dir} is still {_state(status)} after {limit:g} s; it goes on in "
        f"the background and is not restarted. Open the store again later, or allow longer with "
        f"GRAPHMEM_STORE_LOAD_TIMEOUT (seconds)"
    )


def _await_rewrite(control: redis.Redis) -> None:
    """Let a compaction in progress finish: shutting down would throw its work away."""
    deadline = time.monotonic() + REWRITE_WAIT
    while time.monotonic() < deadline:
        if not control.info("persistence").get("aof_rewrite_in_progress"):
            return
        time.sleep(0.05)


def _undelivered(error: Exception) -> bool:
    """The statement certainly did not run: refused while loading, or never read by the server.

    redis-py tells these apart only in its messages: connect and send failures, and a reset
    (a unix socket is reset when its dead peer left data unread; had the server read the
    statement, the socket would just have been closed). Any other connection error is taken
    as "it may have run", which is never retried.
    """
    text = str(error)
    return (
        isinstance(error, redis.exceptions.BusyLoadingError)
        or "connecting to" in text
        or "while writing to socket" in text
        or f"({errno.ECONNRESET}, " in text
    )
