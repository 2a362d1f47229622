"""CPU per request of each kind of bench_load.py's mix, measured in process, and where it goes.

The app (api.app.create_app, embedded store, a fresh data dir) is called as an ASGI app in
this process: no sockets and no HTTP client, so the CPU this process uses while it sends one
kind of request after another is what the API spends on them (plus 0.01 to 0.09 ms per
request of JSON for the fake connection), whatever else runs on the machine. The embedded
FalkorDB server's CPU is read from /proc. With --profile, operations run on the event loop's
thread (not on the worker pools) under cProfile, which prints the heaviest functions; with
--spy, py-spy samples every thread (it counts a thread waiting for a core as busy).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import itertools
import json
import os
import pstats
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import bench_load as load  # noqa: E402

KINDS = list(load.MIX)
sent: Counter[str] = Counter()  # statements sent to the store, by name


def count_statements() -> None:
    """Count each statement the store runs, by name, and the embedder's model runs (in `sent`)."""
    from graphmem.embed.embedder import Embedder
    from graphmem.store.base import Store

    embed = Embedder.encode

    def encode(self: Embedder, texts: Any) -> Any:
        sent["(model runs)"] += 1
        return embed(self, texts)

    Embedder.encode = encode  # type: ignore[method-assign]

    for method in ("read", "write"):
        original = getattr(Store, method)

        def counted(self: Any, name: Any, /, *args: Any, _run: Any = original, **kw: Any) -> Any:
            sent[getattr(name, "name", name)] += 1
            return _run(self, name, *args, **kw)

        setattr(Store, method, counted)


class AsgiConnection:
    """bench_load's Connection interface, calling the ASGI app directly."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def post_json(self, path: str, payload: Any) -> tuple[int, Any]:
        body = json.dumps(payload).encode()
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8000),
            "headers": [
                (b"host", b"127.0.0.1:8000"),
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
        sent = [{"type": "http.request", "body": body, "more_body": False}]
        status, parts = 0, []

        async def receive() -> dict[str, Any]:
            if sent:
                return sent.pop()
            await asyncio.Event().wait()  # nothing more: as a client that waits for its reply
            raise AssertionError

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                parts.append(message.get("body", b""))

        await self.app(scope, receive, send)
        return status, json.loads(b"".join(parts))

    async def close(self) -> None:
        pass


def store_cpu(app: Any) -> float:
    """CPU seconds of the embedded store server (found before py-spy is another child)."""
    pid = app.state.store_pid = getattr(app.state, "store_pid", None) or load.store_pid(os.getpid())
    return load.cpu_seconds(pid) if pid else 0.0


async def measure(
    app: Any, kind: str, n: int, seeded: list[str], profile: bool, spy_to: str | None
) -> None:
    client = load.Client(AsgiConnection(app))
    client.series_id = (await load.gql(client.conn, load.CREATE_SERIES, n=f"cpu-{kind}"))[
        "createSeries"
    ]["id"]
    counter = itertools.count(5_000_000 + 1000 * KINDS.index(kind), load.PROPS_PER_ADD)
    for i in range(5):  # warm: texts parsed, caches filled
        await load.request(client, kind, np.random.default_rng(i), seeded, "cpu", counter)
    spy = None
    if spy_to is not None:  # py-spy samples the threads on a CPU: little overhead
        spy = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "py-spy"),
                "record",
                "-p",
                str(os.getpid()),
                "-r",
                "400",
                "-f",
                "raw",
                "-o",
                f"{spy_to}-{kind}.txt",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(1)  # it attaches
    if profile:
        profiler = cProfile.Profile(time.process_time)  # CPU, not wall
        profiler.enable()
    sent.clear()
    cpu, store, wall = time.process_time(), store_cpu(app), time.perf_counter()
    loop = time.thread_time()  # the event loop's thread: HTTP, middleware, JSON
    for i in range(n):
        await load.request(client, kind, np.random.default_rng(100 + i), seeded, "cpu", counter)
    cpu, store = time.process_time() - cpu, store_cpu(app) - store
    loop = time.thread_time() - loop
    wall = time.perf_counter() - wall
    if spy is not None:
        spy.send_signal(signal.SIGINT)
        spy.wait()
    print(
        f"{kind:<16} API {1000 * cpu / n:6.2f} ms CPU (event loop {1000 * loop / n:5.2f})  "
        f"store {1000 * store / n:5.2f} ms  wall {1000 * wall / n:6.2f} ms per request ({n})"
    )
    runs = sent.pop("(model runs)", 0)
    names = ", ".join(f"{name} {count / n:.2g}" for name, count in sent.most_common())
    statements = sum(sent.values()) / n
    print(
        f"{'':<16} model runs per request {runs / n:.2g}; statements {statements:.2g} ({names})",
        flush=True,
    )
    if profile:
        profiler.disable()
        stats = pstats.Stats(profiler, stream=sys.stdout)
        stats.sort_stats("cumulative").print_stats(70)
        stats.sort_stats("tottime").print_stats(40)


async def run(args: argparse.Namespace) -> None:
    from api.app import create_app
    from api.execution import share_the_gil
    from graphmem.config import Settings

    share_the_gil()
    count_statements()
    if args.profile:  # operations run on this thread, where cProfile sees them
        from api.state import AppState

        async def inline(self: AppState, work: Any, kind: str = "query") -> Any:
            return work()

        AppState.run = inline  # type: ignore[method-assign]
    app = create_app(Settings.from_env())
    try:
        conn = AsgiConnection(app)
        load.Connection = lambda host, port: conn  # seed() opens its own connection
        began = time.perf_counter()
        seeded = await load.seed(0, args.series, args.props, args.events)
        store_cpu(app)  # finds the store's pid now, while it is the only child
        print(f"seeded in {time.perf_counter() - began:.1f} s; {load.load_average()}")
        for kind in args.kinds:
            await measure(app, kind, args.requests, seeded, args.profile, args.spy)
    finally:
        app.state.graphmem.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kinds", nargs="*", help=f"of {', '.join(KINDS)} (default: all)")
    parser.add_argument("--requests", type=int, default=200, help="per kind")
    parser.add_argument("--series", type=int, default=16)
    parser.add_argument("--props", type=int, default=1200)
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--spy", help="py-spy's samples (raw) to SPY-kind.txt")
    parser.add_argument("--profile", action="store_true", help="cProfile (operations inline)")
    parser.add_argument("--precision", help="GRAPHMEM_EMBED_PRECISION (default: the service's)")
    args = parser.parse_args()
    args.kinds = args.kinds or KINDS
    if not set(args.kinds) <= set(KINDS):
        parser.error(f"kinds are {', '.join(KINDS)}")
    with tempfile.TemporaryDirectory(prefix="gmc-") as tmp:
        for name in [k for k in os.environ if k.startswith(("OPENAI_", "GRAPHMEM_"))]:
            del os.environ[name]
        os.environ["GRAPHMEM_HOME"] = str(Path(tmp) / "home")
        if args.precision:
            os.environ["GRAPHMEM_EMBED_PRECISION"] = args.precision
        asyncio.run(run(args))


if __name__ == "__main__":
    main()
