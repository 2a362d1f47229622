"""Many clients on the HTTP API: throughput, latency and lost writes with 1, 4 and 16 clients.

Serves the real app (`graphmem serve`, embedded store, fresh data dir) in a subprocess, seeds
it over HTTP, then for each client count sends a fixed number of requests mixed from segments,
subgraph and recall (reads) and appendPoints (each client to its own series) and
addPropositions (writes). Prints throughput, p50/p95/p99 of reads and writes, errors, and
checks that every acknowledged write is stored exactly once (points, segments, propositions).
Then measures a read's p95 while one 150k-point appendPoints runs, against its p95 without
(reads alone just before and just after it), and ends with the issue's goals, each met or not.

The client is a lean asyncio HTTP/1.1 client (bench/loadclient.py) in this process: on a
shared 2-core machine it competes with the server, so its CPU share is printed too, and the
load average beside every figure (other work on the machine slows the server down).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from loadclient import Connection  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
TOWNS = [
    "Orlen",
    "Maskel",
    "Brevik",
    "Tarn",
    "Sollen",
    "Varde",
    "Kimble",
    "Ossa",
    "Trell",
    "Hoven",
    "Lurra",
    "Ebbin",
    "Calder",
    "Wrenn",
    "Fosse",
    "Dunmer",
]
FIRST = [
    "Ada",
    "Bram",
    "Cora",
    "Dag",
    "Edda",
    "Finn",
    "Greta",
    "Hal",
    "Ines",
    "Jon",
    "Kari",
    "Lars",
    "Mira",
    "Nils",
    "Oda",
    "Per",
    "Rune",
    "Siv",
    "Tor",
    "Ulla",
]
LAST = [
    "Alder",
    "Birke",
    "Cedar",
    "Dunn",
    "Eske",
    "Frey",
    "Gran",
    "Holm",
    "Isak",
    "Juhl",
    "Kvist",
    "Lund",
    "Moe",
    "Nord",
    "Ost",
    "Prahl",
    "Rask",
    "Strand",
    "Tveit",
    "Vik",
]
PEOPLE = 150  # each with a few facts, stated again (changed) every PEOPLE * len(FACTS) statements
# what a statement says about a person: (template, question, values); values are lower case,
# so that statements about different people share no name and are unrelated
FACTS = [
    (
        "{who} lives {v}.",
        "Where does {who} live?",
        [
            "by the mill",
            "near the harbour",
            "on the hill",
            "in the old town",
            "by the river",
            "at the crossroads",
            "behind the market",
            "past the bridge",
        ],
    ),
    (
        "{who} works as a {v}.",
        "What is the job of {who}?",
        ["baker", "smith", "ferryman", "clerk", "miller", "weaver", "carpenter", "tanner"],
    ),
    (
        "{who} keeps {v} goats on the farm.",
        "How many goats does {who} keep?",
        [str(n) for n in range(3, 40, 3)],
    ),
    (
        "{who} plays the {v} in the town band.",
        "Which instrument does {who} play?",
        ["fiddle", "drum", "horn", "flute", "lute", "pipes"],
    ),
]
T0 = 1_600_000_000
MIX = {
    "segments": 0.25,
    "subgraph": 0.2,
    "recall": 0.25,
    "appendPoints": 0.15,
    "addPropositions": 0.15,
}
WRITES = {"appendPoints", "addPropositions"}
APPEND_POINTS = 100  # per appendPoints of the mixed load
PROPS_PER_ADD = 3
# the goals of issue 13: throughput and read p95 with 16 clients, errors, 16 vs 1 client,
# read p95 during a 150k-point append against without
GOAL_RPS, GOAL_READ_P95, GOAL_SCALING, GOAL_INTERFERENCE = 300.0, 100.0, 1.8, 2.0

SEGMENTS = """query($s: ID!) {
  segments(seriesId: $s, limit: 50) { items { id start end mean summary } } }"""
SUBGRAPH = """query($q: String!) { subgraph(question: $q, k: 5) {
  nodes { id text status } edges { src dst kind } } }"""
RECALL = "query($q: String!, $now: DateTime!) { recall(query: $q, now: $now, k: 5) { id text p } }"
APPEND = """mutation($s: ID!, $p: [PointInput!]!) { appendPoints(seriesId: $s, points: $p) {
  accepted duplicate } }"""
ADD_PROPS = """mutation($p: [PropositionInput!]!) { addPropositions(propositions: $p) {
  propositionIds added existing } }"""
CREATE_SERIES = "mutation($n: String!) { createSeries(name: $n) { id } }"
ADD_EVENT = "mutation($t: String!, $d: Date!) { addEvent(text: $t, date: $d) { id } }"
BOUNDS = "query($s: ID!) { timeBounds(seriesId: $s) { pointCount segmentCount } }"
ALL_SEGMENTS = "query($s: ID!) { segments(seriesId: $s, limit: 1000) { items { pointCount } } }"
PROPS_BY_SOURCE = """query($src: String!, $o: Int!) {
  propositions(filter: {source: $src}, limit: 1000, offset: $o) { items { id } } }"""


class GraphQLFailed(Exception):
    """A non-200 reply or a reply with errors."""


@dataclass
class Sample:
    kind: str
    started: float
    seconds: float
    ok: bool


@dataclass
class Client:
    """One virtual client: its connection, its own series and what the server acknowledged."""

    conn: Connection
    series_id: str = ""
    next_ts: int = T0
    points_acked: int = 0
    prop_ids: set[str] = field(default_factory=set)


async def gql(conn: Connection, query: str, **variables: Any) -> dict[str, Any]:
    status, body = await conn.post_json("/graphql", {"query": query, "variables": variables})
    if status != 200 or not isinstance(body, dict) or body.get("errors"):
        raise GraphQLFailed(f"HTTP {status}: {str(body)[:300]}")
    return body["data"]


# --- the server ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def served(
    home: Path, env: dict[str, str], workers: int = 1
) -> Iterator[tuple[int, subprocess.Popen]]:
    """`graphmem serve --workers N` on a free port with GRAPHMEM_HOME=home; (port, process),
    once every worker answers."""
    port = free_port()
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "GRAPHMEM_"))}
    environ.update(env, GRAPHMEM_HOME=str(home), PYTHONPATH=str(ROOT))
    log = open(home.parent / "server.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "graphmem.cli", "serve", "--host", HOST, "--port", str(port)),
            *("--workers", str(workers)),
        ],
        cwd=ROOT,
        env=environ,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            with contextlib.suppress(OSError), socket.create_connection((HOST, port), 0.2):
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"server did not start; see {home.parent / 'server.log'}")
            time.sleep(0.1)
        wait_for_workers(port, workers, proc)
        yield port, proc
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        log.close()


def wait_for_workers(port: int, workers: int, proc: subprocess.Popen) -> None:
    """Until `workers` distinct worker pids answered /readyz (each on a new connection)."""
    seen: set[int] = set()
    deadline = time.monotonic() + 300
    while len(seen) < workers:
        url = f"http://{HOST}:{port}/readyz"  # a 503 (warming up) is an OSError too
        with contextlib.suppress(OSError, ValueError), urllib.request.urlopen(url, timeout=30) as r:
            seen.add(int(json.load(r)["pid"]))
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{len(seen)} of {workers} workers answered")
        time.sleep(0.05)


def load_average() -> str:
    """The 1-minute load average and the cores: how busy the shared machine was."""
    return f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[int]:
    """The children of `pid`, theirs, and so on (Linux)."""
    found = []
    for children in Path(f"/proc/{pid}/task").glob("*/children"):
        for child in map(int, children.read_text().split()):
            found += [child, *descendants(child)]
    return found


def server_pids(pid: int) -> tuple[list[int], list[int]]:
    """(the API processes: `pid` and its workers; the embedded FalkorDB server a worker started)."""
    api, store = [pid], []
    for child in descendants(pid):
        comm = Path(f"/proc/{child}/comm").read_text().strip()
        (store if comm == "redis-server" else api).append(child)
    return api, store


@dataclass
class Usage:
    """CPU seconds of the API processes, their store server and this client, and wall time."""

    pids: tuple[list[int], list[int]]
    start: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    def now(self) -> tuple[float, float, float, float]:
        api, store = self.pids
        return (
            sum(map(cpu_seconds, api)),
            sum(map(cpu_seconds, store)),
            time.process_time(),
            time.perf_counter(),
        )

    def begin(self) -> Usage:
        self.start = self.now()
        return self

    def report(self, requests: int) -> str:
        api, store, client, wall = (b - a for a, b in zip(self.start, self.now(), strict=True))
        return (
            f"CPU in cores: API {api / wall:.2f}, store {store / wall:.2f}, "
            f"client {client / wall:.2f}; per request: API {1000 * api / requests:.1f} ms, "
            f"store {1000 * store / requests:.1f} ms"
        )


# --- the workload ----------------------------------------------------------------------------


def person(i: int) -> str:
    return f"{FIRST[i % len(FIRST)]} {LAST[(i // len(FIRST)) % len(LAST)]}"


def question(rng: np.random.Generator) -> str:
    """A question about one of the people the statements are about."""
    _, ask, _ = FACTS[rng.integers(len(FACTS))]
    return ask.format(who=person(int(rng.integers(PEOPLE))))


def points(start_ts: int, n: int, level: float) -> list[dict[str, Any]]:
    """n points a minute apart from start_ts: a noisy level (strings for the timestamps)."""
    rng = np.random.default_rng(start_ts)
    xs = level + rng.normal(0, 1, n)
    return [
        {"timestamp": str(start_ts + 60 * i), "value": round(float(x), 4)} for i, x in enumerate(xs)
    ]


def propositions(tag: str, start: int, n: int) -> list[dict[str, str]]:
    """n dated statements about people tagged `tag` (their source); a later one about the same
    person and fact may change its value (an update)."""
    out = []
    for i in range(start, start + n):
        who = person(i * 7 % PEOPLE)
        template, _, values = FACTS[(i // PEOPLE) % len(FACTS)]
        value = values[(i // (PEOPLE * len(FACTS)) + i) % len(values)]
        day = (i * 37) % 3650  # statements spread over ten years
        date = f"{2014 + day // 365}-{1 + day % 365 // 31 % 12:02d}-{1 + day % 28:02d}"
        # a word made of i keeps texts distinct (a number would read as a changed value)
        text = template.format(who=who, v=value).removesuffix(".") + f", says note {letters(i)}."
        out.append({"text": text, "date": date, "source": tag})
    return out


def letters(i: int) -> str:
    """i written in consonants: distinct words for distinct i."""
    word = ""
    while True:
        i, digit = divmod(i, 20)
        word += "bcdfghjklmnpqrstvwxz"[digit]
        if not i:
            return word


async def seed(port: int, n_series: int, n_props: int, n_events: int) -> list[str]:
    """Series with points, propositions and events to read; the series ids."""
    conn = Connection(HOST, port)
    ids = []
    for i in range(n_series):
        sid = (await gql(conn, CREATE_SERIES, n=f"seed-{i}"))["createSeries"]["id"]
        for part in range(2):
            await gql(conn, APPEND, s=sid, p=points(T0 + part * 60_000, 1000, 10.0 * (i + part)))
        ids.append(sid)
    for start in range(0, n_props, 50):
        await gql(conn, ADD_PROPS, p=propositions("seed", start, min(50, n_props - start)))
    for i in range(n_events):
        await gql(
            conn,
            ADD_EVENT,
            t=f"Met {person(i * 13)} at the {TOWNS[i % len(TOWNS)]} fair.",
            d=f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}",
        )
    await conn.close()
    return ids


async def request(
    client: Client,
    kind: str,
    rng: np.random.Generator,
    seeded: list[str],
    tag: str,
    counter: Iterator[int],
) -> None:
    """One request of `kind`; acknowledged writes are counted on `client`."""
    conn = client.conn
    if kind == "segments":
        await gql(conn, SEGMENTS, s=seeded[rng.integers(len(seeded))])
    elif kind == "subgraph":
        await gql(conn, SUBGRAPH, q=question(rng))
    elif kind == "recall":
        await gql(conn, RECALL, q=question(rng), now="2025-01-01")
    elif kind == "appendPoints":
        batch = points(client.next_ts, APPEND_POINTS, 5.0)
        client.next_ts += 60 * APPEND_POINTS
        done = (await gql(conn, APPEND, s=client.series_id, p=batch))["appendPoints"]
        client.points_acked += done["accepted"]
    else:
        done = await gql(conn, ADD_PROPS, p=propositions(tag, next(counter), PROPS_PER_ADD))
        client.prop_ids.update(done["addPropositions"]["propositionIds"])


async def client_loop(
    client: Client,
    kinds: list[str],
    next_index: Iterator[int],
    samples: list[Sample],
    seeded: list[str],
    tag: str,
    counter: Iterator[int],
) -> None:
    for i in next_index:
        if i >= len(kinds):
            return
        rng = np.random.default_rng(i)
        began = time.perf_counter()
        try:
            await request(client, kinds[i], rng, seeded, tag, counter)
            ok = True
        except GraphQLFailed as error:
            ok = False
            print(f"  error on {kinds[i]}: {error}")
        samples.append(Sample(kinds[i], began, time.perf_counter() - began, ok))


async def check_counts(port: int, clients: list[Client], tag: str) -> list[str]:
    """What the store holds against what was acknowledged; a list of mismatches."""
    conn, problems = Connection(HOST, port), []
    for c in clients:
        bounds = (await gql(conn, BOUNDS, s=c.series_id))["timeBounds"]
        segs = (await gql(conn, ALL_SEGMENTS, s=c.series_id))["segments"]["items"]
        in_segments = sum(s["pointCount"] for s in segs)
        if bounds["pointCount"] != c.points_acked or in_segments != c.points_acked:
            problems.append(
                f"series {c.series_id}: acked {c.points_acked} points, stored "
                f"{bounds['pointCount']}, in segments {in_segments}"
            )
        if len(segs) != bounds["segmentCount"]:
            problems.append(
                f"series {c.series_id}: {len(segs)} segments listed, "
                f"{bounds['segmentCount']} counted"
            )
    stored: list[str] = []
    for offset in itertools.count(0, 1000):
        page = (await gql(conn, PROPS_BY_SOURCE, src=tag, o=offset))["propositions"]["items"]
        stored += [p["id"] for p in page]
        if len(page) < 1000:
            break
    acked = set().union(*(c.prop_ids for c in clients))
    if len(stored) != len(set(stored)) or set(stored) != acked:
        problems.append(
            f"propositions {tag}: acked {len(acked)}, stored {len(stored)} "
            f"({len(set(stored))} distinct)"
        )
    await conn.close()
    return problems


def pct(samples: list[Sample], q: float) -> float:
    return float(np.percentile([s.seconds for s in samples], q) * 1000) if samples else float("nan")


def line(name: str, samples: list[Sample]) -> str:
    return (
        f"{name:<7} n {len(samples):>5}  p50 {pct(samples, 50):7.1f}  p95 "
        f"{pct(samples, 95):7.1f}  p99 {pct(samples, 99):7.1f} ms"
    )


@dataclass
class LevelResult:
    clients: int
    throughput: float
    reads: list[Sample]
    writes: list[Sample]
    errors: int
    problems: list[str]
    load: str


async def level(
    port: int,
    proc: subprocess.Popen,
    clients: int,
    n: int,
    seeded: list[str],
    mix: dict[str, float],
    run: int,
) -> LevelResult:
    tag = f"load-{run}-c{clients}"  # the same client count may run twice
    rng = np.random.default_rng(clients)
    weights = np.array(list(mix.values()))
    kinds = list(rng.choice(list(mix), size=n, p=weights / weights.sum()))
    pool = [Client(Connection(HOST, port)) for _ in range(clients)]
    for i, c in enumerate(pool):
        c.series_id = (await gql(c.conn, CREATE_SERIES, n=f"{tag}-{i}"))["createSeries"]["id"]
    samples: list[Sample] = []
    next_index = itertools.count()
    counter = itertools.count(1_000_000 * (run + 1), PROPS_PER_ADD)  # new statements per level
    usage, began = Usage(server_pids(proc.pid)).begin(), time.perf_counter()
    await asyncio.gather(
        *(client_loop(c, kinds, next_index, samples, seeded, tag, counter) for c in pool)
    )
    wall, used = time.perf_counter() - began, usage.report(n)
    for c in pool:
        await c.conn.close()
    reads = [s for s in samples if s.kind not in WRITES and s.ok]
    writes = [s for s in samples if s.kind in WRITES and s.ok]
    result = LevelResult(
        clients,
        n / wall,
        reads,
        writes,
        sum(not s.ok for s in samples),
        await check_counts(port, pool, tag),
        load_average(),
    )
    print(
        f"{clients:>2} clients: {n} requests in {wall:.1f} s = {result.throughput:.0f} req/s, "
        f"{result.errors} errors; {used}; {result.load}"
    )
    print("   " + line("reads", reads))
    print("   " + line("writes", writes))
    for kind in mix:
        print("     " + line(kind, [s for s in samples if s.kind == kind and s.ok]))
    fine = "every acknowledged write stored once"
    print("   count check: " + ("; ".join(result.problems) or fine))
    return result


async def reads_for(
    port: int, readers: int, stop: asyncio.Event | None, n: int, seeded: list[str]
) -> list[Sample]:
    """`readers` clients reading (the read mix) until `stop` is set, or n reads in all."""
    kinds = [k for k in MIX if k not in WRITES]
    samples: list[Sample] = []
    counter = itertools.count()

    async def one_reader() -> None:
        conn = Connection(HOST, port)
        client = Client(conn)
        for i in counter:
            if (stop is not None and stop.is_set()) or (stop is None and i >= n):
                break
            rng = np.random.default_rng(10_000 + i)
            kind = kinds[i % len(kinds)]
            began = time.perf_counter()
            await request(client, kind, rng, seeded, "", iter(()))
            samples.append(Sample(kind, began, time.perf_counter() - began, True))
        await conn.close()

    await asyncio.gather(*(one_reader() for _ in range(readers)))
    return samples


@dataclass
class Interference:
    quiet: list[Sample]  # reads alone, before and after the append
    during: list[Sample]
    seconds: float  # the append's
    load: str

    @property
    def ratio(self) -> float:
        return pct(self.during, 95) / pct(self.quiet, 95)


async def append_interference(port: int, seeded: list[str], big: int, readers: int) -> Interference:
    """A read's p95 while one `big`-point appendPoints runs, against its p95 without.

    The reads alone run just before and just after it, so that a change in the machine's
    load during the measurement weighs on both sides alike.
    """
    before = await reads_for(port, readers, None, 200, seeded)
    conn = Connection(HOST, port)
    sid = (await gql(conn, CREATE_SERIES, n="big-append"))["createSeries"]["id"]
    batch = points(T0, big, 3.0)
    stop = asyncio.Event()

    async def appender() -> float:
        began = time.perf_counter()
        try:
            await gql(conn, APPEND, s=sid, p=batch)
        finally:
            stop.set()
        return time.perf_counter() - began

    took, during = await asyncio.gather(appender(), reads_for(port, readers, stop, 0, seeded))
    await conn.close()
    after = await reads_for(port, readers, None, 200, seeded)
    result = Interference(before + after, during, took, load_average())
    print(
        f"read p95 with {readers} readers: {pct(result.quiet, 95):.1f} ms alone, "
        f"{pct(during, 95):.1f} ms while a {big:,}-point append ran ({took:.1f} s, "
        f"{len(during)} reads meanwhile): {result.ratio:.2f}x; {result.load}"
    )
    print("   before: " + line("reads", before))
    print("   during: " + line("reads", during))
    print("   after:  " + line("reads", after))
    return result


def goals(results: list[LevelResult], interference: Interference | None) -> None:
    """Each goal of issue 13 with the figure measured and whether it was met.

    A client count run more than once (--clients 1 16 1 16) counts with its mean throughput
    and all its reads, so that a change in the machine's load weighs on both sides.
    """
    rps = {
        c: float(np.mean([r.throughput for r in results if r.clients == c]))
        for c in {r.clients for r in results}
    }
    rows: list[tuple[str, str, bool]] = []
    if 16 in rps:
        rows.append(
            (
                f"throughput, 16 clients >= {GOAL_RPS:.0f} req/s",
                f"{rps[16]:.0f} req/s",
                rps[16] >= GOAL_RPS,
            )
        )
        p95 = pct([s for r in results if r.clients == 16 for s in r.reads], 95)
        rows.append(
            (
                f"read p95, 16 clients <= {GOAL_READ_P95:.0f} ms",
                f"{p95:.1f} ms",
                p95 <= GOAL_READ_P95,
            )
        )
    errors = sum(r.errors for r in results)
    rows.append(("errors = 0", str(errors), errors == 0))
    problems = sum(len(r.problems) for r in results)
    rows.append(("acknowledged writes lost or doubled = 0", str(problems), problems == 0))
    if 16 in rps and 1 in rps:
        scaling = rps[16] / rps[1]
        rows.append(
            (
                f"16 / 1 client throughput >= {GOAL_SCALING}x",
                f"{scaling:.2f}x",
                scaling >= GOAL_SCALING,
            )
        )
    if interference is not None:
        ratio = interference.ratio
        rows.append(
            (
                f"read p95 during the big append / alone <= {GOAL_INTERFERENCE}x",
                f"{ratio:.2f}x",
                ratio <= GOAL_INTERFERENCE,
            )
        )
    print("goals:")
    for goal, figure, met in rows:
        print(f"   {goal:<52} {figure:>12}  {'met' if met else 'MISSED'}")


async def run(args: argparse.Namespace, port: int, proc: subprocess.Popen) -> None:
    began = time.perf_counter()
    seeded = await seed(port, args.series, args.props, args.events)
    print(
        f"seeded {args.series} series, {args.props} propositions, {args.events} events "
        f"in {time.perf_counter() - began:.1f} s"
    )
    await reads_for(port, 2, None, 60, seeded)  # warm: model, indexes, caches
    results = [
        await level(port, proc, c, args.requests, seeded, args.mix, run)
        for run, c in enumerate(args.clients)
    ]
    interference = None
    if args.big:
        interference = await append_interference(port, seeded, args.big, args.readers)
    goals(results, interference)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--clients",
        type=int,
        nargs="+",
        default=[1, 4, 16],
        help="client counts, in order (one may come back: 1 16 1 16)",
    )
    parser.add_argument("--requests", type=int, default=1500, help="per client count")
    parser.add_argument("--series", type=int, default=16, help="seeded series")
    parser.add_argument("--props", type=int, default=1200, help="seeded propositions")
    parser.add_argument("--events", type=int, default=100, help="seeded events")
    parser.add_argument("--big", type=int, default=150_000, help="points of the big append")
    parser.add_argument("--readers", type=int, default=4, help="readers during the big append")
    parser.add_argument("--workers", type=int, default=1, help="server processes (serve --workers)")
    parser.add_argument("--env", nargs="*", default=[], help="NAME=VALUE for the server")
    parser.add_argument("--mix", nargs="*", default=[], help="KIND=WEIGHT (default: MIX)")
    args = parser.parse_args()
    args.mix = {k: float(w) for k, w in (m.split("=") for m in args.mix)} if args.mix else MIX
    if not set(args.mix) <= set(MIX):
        parser.error(f"--mix kinds are {', '.join(MIX)}")
    env = dict(item.split("=", 1) for item in args.env)
    with (
        tempfile.TemporaryDirectory(prefix="gml-") as tmp,
        served(Path(tmp) / "home", env, args.workers) as (
            port,
            proc,
        ),
    ):
        print(
            f"server pid {proc.pid} with {args.workers} worker(s) on port {port}, env {env}; "
            f"{load_average()}"
        )
        asyncio.run(run(args, port, proc))


if __name__ == "__main__":
    main()
