"""`graphmem serve --workers 2`, a real server with its own embedded store: what a client writes
through one worker, it reads at once through the other; /metrics sums the workers; a killed
worker is replaced; Ctrl-C and SIGTERM stop the workers and the store server."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from appserver import free_port
from test_api_concurrency import (
    ADD_EVENT,
    ADD_PROPS,
    APPEND,
    BY_SOURCE,
    CREATE,
    SEGMENTS,
    SUBGRAPH,
    points,
)
from test_observe import parsed, value

from api.metrics import MULTIPROC_DIR
from api.serve import multiprocess_metrics, worker_environment
from graphmem.config import Settings
from graphmem.errors import InvalidInput
from graphmem.store import server_process as proc

START_S = 300  # a bound on waiting for two workers to load the model, not a timed assertion
ROUNDS = 12  # writes read back through the other worker, per direction
RECALL = 'query($q: String!) { recall(query: $q, now: "2024-06-02", k: 3) { id } }'


@dataclass
class Server:
    """The supervisor process, its base URL and data dir, and the log it writes."""

    proc: subprocess.Popen[bytes]
    base: str
    home: Path
    log: Path
    clients: list[httpx.Client] = field(default_factory=list)

    def client(self) -> httpx.Client:
        """A client on a connection of its own (kept alive: it stays with one worker)."""
        made = httpx.Client(base_url=self.base, timeout=120)
        self.clients.append(made)
        return made

    def pinned(self, exclude: set[int] | None = None) -> dict[int, httpx.Client]:
        """One client per worker, by pid: new connections until each worker took one."""
        found: dict[int, httpx.Client] = {}
        for _ in range(200):
            client = self.client()
            pid = pid_of(client)
            if pid not in found and pid not in (exclude or set()):
                found[pid] = client
            if len(found) == 2:
                return found
        raise AssertionError(f"connections all went to workers {sorted(found)}")


def word(n: int) -> str:
    """A made-up name of its own for each n: no two statements share a word that tells them
    apart, so the one asked about ranks first."""
    syllables = ("ka", "lo", "mi", "ru", "ve", "zo", "ta", "ne")
    return "".join(syllables[int(d)] for d in f"{n:03o}").capitalize()


def pid_of(client: httpx.Client) -> int:
    answer = client.get("/readyz")
    assert answer.status_code == 200, answer.text
    return int(answer.json()["pid"])


def post(client: httpx.Client, query: str, **variables: Any) -> dict[str, Any]:
    response = client.post("/graphql", json={"query": query, "variables": variables})
    assert response.status_code == 200, response.text
    body = response.json()
    assert not body.get("errors"), body["errors"]
    return body["data"]


def readyz_counted(client: httpx.Client) -> float:
    """The /readyz requests answered 200 as /metrics counts them."""
    samples = parsed(client.get("/metrics").text)
    return value(samples, "graphmem_http_requests_total", route="/readyz", status="200")


def store_answers(home: Path) -> bool:
    """Whether the embedded store's server accepts connections on its socket."""
    with socket.socket(socket.AF_UNIX) as sock:
        try:
            sock.connect(str(home / proc.SOCKET))
        except OSError:
            return False
    return True


@contextlib.contextmanager
def serving(home: Path, log: Path) -> Iterator[Server]:
    """`graphmem serve --workers 2` on `home`, in a session of its own (a Ctrl-C to its
    process group reaches it alone), once a worker answers; killed at the end if still up."""
    port = free_port()
    env = {**os.environ, "GRAPHMEM_HOME": str(home)}
    for name in ("GRAPHMEM_STORE", "PROMETHEUS_MULTIPROC_DIR", "GRAPHMEM_SERVE_WORKERS"):
        env.pop(name, None)
    command = ["-m", "graphmem.cli", "serve", "--port", str(port), "--workers", "2"]
    with log.open("w") as out:
        started = subprocess.Popen(
            [sys.executable, *command], env=env, stdout=out, stderr=out, start_new_session=True
        )
    running = Server(started, f"http://127.0.0.1:{port}", home, log)
    try:
        deadline = time.monotonic() + START_S
        while True:  # a worker accepts connections once its warm-up is done
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{running.base}/readyz").status_code == 200:
                    break
            assert time.monotonic() < deadline and started.poll() is None, log.read_text()
            time.sleep(0.3)
        yield running
    finally:
        for client in running.clients:
            client.close()
        if started.poll() is None:
            os.killpg(started.pid, signal.SIGKILL)
            started.wait(timeout=60)


@pytest.fixture(scope="module")
def server(short_tmp: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(short_tmp / "workers", tmp_path_factory.mktemp("workers") / "serve.log") as up:
        yield up


def stops_everything(server: Server, stop: Callable[[], None]) -> None:
    """`stop` ends the supervisor (status 0), its workers and the store server."""
    workers = server.pinned()
    assert store_answers(server.home)
    stop()
    assert server.proc.wait(timeout=120) == 0, server.log.read_text()
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert not store_answers(server.home), "the last worker to close stops the store server"
    log = server.log.read_text()
    assert log.count("Application shutdown complete") >= 2, log


def test_both_workers_serve_and_metrics_sum_over_them(server: Server) -> None:
    workers = server.pinned()
    assert len(workers) == 2 and server.proc.pid not in workers
    one, other = workers.values()
    before = readyz_counted(one)
    for _ in range(3):
        assert pid_of(one) != pid_of(other)
    # six requests, three to each worker: whichever answers the scrape counts all six
    assert readyz_counted(other) - before == 6
    assert readyz_counted(one) - before == 6


def test_writes_through_one_worker_are_read_at_once_through_the_other(server: Server) -> None:
    first, second = server.pinned().values()
    series = post(first, CREATE, n="ryw")["createSeries"]["id"]
    added: set[str] = set()
    appended = 0
    for _ in range(ROUNDS):
        for writer, reader in ((first, second), (second, first)):
            tag = word(len(added))
            text = f"Harbourmaster {tag} keeps the lighthouse of {tag}sund."
            prop = {"text": text, "date": "2024-05-01", "source": "ryw"}
            ids = post(writer, ADD_PROPS, p=[prop])["addPropositions"]["propositionIds"]
            nodes = post(reader, SUBGRAPH, q=f"Who keeps the lighthouse of {tag}sund?")
            assert ids[0] in {node["id"] for node in nodes["subgraph"]["nodes"]}, (tag, nodes)
            added.update(ids)
            what = f"Met the ferry pilot {tag} at the north quay"
            event = post(writer, ADD_EVENT, t=what, d="2024-06-01")["addEvent"]["id"]
            assert event in {hit["id"] for hit in post(reader, RECALL, q=what)["recall"]}
            post(writer, APPEND, s=series, p=points(appended, 10))
            appended += 10
            segments = post(reader, SEGMENTS, s=series)["segments"]["items"]
            assert sum(s["pointCount"] for s in segments) == appended
    for client in (first, second):  # nothing lost or doubled, seen the same by both
        items = post(client, BY_SOURCE, s="ryw")["propositions"]["items"]
        assert sorted(item["id"] for item in items) == sorted(added)
        assert len(added) == 2 * ROUNDS


def test_a_killed_worker_is_replaced_and_the_data_stays(server: Server) -> None:
    workers = server.pinned()
    victim, survivor = workers
    before = post(workers[survivor], BY_SOURCE, s="ryw")["propositions"]["items"]
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + START_S
    while True:  # the supervisor notices and starts another; it is up once warmed
        with contextlib.suppress(httpx.TransportError, AssertionError):
            replaced = server.pinned(exclude={victim})
            break
        assert time.monotonic() < deadline, server.log.read_text()
        time.sleep(0.5)
    assert survivor in replaced and victim not in replaced
    for client in replaced.values():
        assert post(client, BY_SOURCE, s="ryw")["propositions"]["items"] == before
    assert "died" in server.log.read_text()


def test_ctrl_c_stops_the_workers_and_the_store_server(server: Server) -> None:
    # a terminal's Ctrl-C: SIGINT to the foreground process group, workers included
    stops_everything(server, lambda: os.killpg(server.proc.pid, signal.SIGINT))


def test_sigterm_stops_the_workers_and_the_store_server(short_tmp: Path, tmp_path: Path) -> None:
    with serving(short_tmp / "workers-term", tmp_path / "serve.log") as server:
        stops_everything(server, lambda: server.proc.send_signal(signal.SIGTERM))


def test_the_serve_workers_setting() -> None:
    assert Settings.from_env({}).serve_workers == 1
    chosen = Settings.from_env({"GRAPHMEM_SERVE_WORKERS": "3", "GRAPHMEM_HOST": "0.0.0.0"})
    assert (chosen.serve_workers, chosen.host) == (3, "0.0.0.0")
    for bad in ("0", "two"):
        with pytest.raises(InvalidInput) as error:
            Settings.from_env({"GRAPHMEM_SERVE_WORKERS": bad})
        assert error.value.field == "GRAPHMEM_SERVE_WORKERS"


def test_workers_read_the_command_line_from_the_environment() -> None:
    given = Settings(store_url="falkordb://db:6379", host="0.0.0.0", warmup="off", serve_workers=3)
    read = Settings.from_env(worker_environment(given))
    assert (read.store_url, read.host, read.warmup, read.serve_workers) == (
        "falkordb://db:6379",
        "0.0.0.0",
        "off",
        3,
    )


def test_the_metrics_directory_is_emptied_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    given = tmp_path / "metrics"
    given.mkdir()
    (given / "counter_123.db").write_bytes(b"from an earlier run")
    monkeypatch.setenv(MULTIPROC_DIR, str(given))
    with multiprocess_metrics() as directory:
        assert directory == given and not list(given.iterdir())
    assert given.is_dir()  # the operator's: kept
    monkeypatch.delenv(MULTIPROC_DIR)
    with multiprocess_metrics() as directory:
        assert os.environ[MULTIPROC_DIR] == str(directory) and directory.is_dir()
    assert not directory.exists()  # made for the run: removed
