"""Healing of the embedded store killed under load: time until writes succeed again, and no
acknowledged write lost.

Writer threads share one store (as the API's requests do) and each write one new node per
statement (CREATE under a unique id, so a statement applied twice would fail). The server is
killed with SIGKILL at intervals; heal time is from the kill to the first acknowledged write
sent after it.
At the end the store is reopened on a fresh server from the AOF and every acknowledged id is
looked up, for each appendfsync policy. A write whose statement was running when the server
died fails (it is not sent again); the run reports how many did and how many of those landed
anyway.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from graphmem.config import FSYNC_POLICIES, Settings  # noqa: E402
from graphmem.cypher import load_dir  # noqa: E402
from graphmem.errors import StoreUnavailable  # noqa: E402
from graphmem.store import Store, open_store  # noqa: E402
from graphmem.store import server_process as proc  # noqa: E402

Q = load_dir(Path(__file__).parent / "cypher")


@dataclass
class Tally:
    """What the writers saw."""

    acknowledged: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # StoreUnavailable: outcome unknown
    other_errors: list[str] = field(default_factory=list)
    killed_at: float = 0.0
    healed_at: float | None = None  # first ack of a write sent after the last kill
    lock: threading.Lock = field(default_factory=threading.Lock)


def writer(store: Store, name: str, tally: Tally, stop: threading.Event) -> None:
    i = 0
    while not stop.is_set():
        node = f"w-{name}-{i}"
        i += 1
        sent = time.monotonic()
        try:
            store.write(Q["restart_bench.put"], id=node, n=i)
        except StoreUnavailable:
            with tally.lock:
                tally.failed.append(node)
            continue
        except Exception as error:  # noqa: BLE001 - counted and shown, e.g. a double apply
            with tally.lock:
                tally.other_errors.append(f"{node}: {error}")
            continue
        with tally.lock:
            tally.acknowledged.append(node)
            if tally.healed_at is None and sent > tally.killed_at:
                tally.healed_at = time.monotonic()


def preload(store: Store, n: int) -> None:
    rows = [{"id": f"pre-{i}", "text": f"preloaded event {i}", "ts": i} for i in range(n)]
    for lo in range(0, n, 50_000):
        store.write_batch(Q["store_bench.merge_rows"], rows[lo : lo + 50_000])


def kill_and_time(data_dir: Path, tally: Tally, timeout: float = 60.0) -> float:
    """SIGKILL the server; seconds until the next acknowledged write."""
    pid = int((data_dir / proc.PIDFILE).read_text())
    with tally.lock:
        tally.killed_at, tally.healed_at = time.monotonic(), None
    os.kill(pid, signal.SIGKILL)
    while tally.healed_at is None:
        if time.monotonic() - tally.killed_at > timeout:
            raise RuntimeError(f"no write succeeded within {timeout:.0f} s of the kill")
        time.sleep(0.001)
    return tally.healed_at - tally.killed_at


def run(args: argparse.Namespace, appendfsync: str) -> None:
    with tempfile.TemporaryDirectory(prefix="gmb-") as tmp:
        data_dir = Path(tmp) / "db"
        url = f"falkordb+embedded://{data_dir}"
        settings = Settings(appendfsync=appendfsync)
        store = open_store(url, settings)
        preload(store, args.preload)
        tally, stop = Tally(), threading.Event()
        threads = [
            threading.Thread(target=writer, args=(store, str(w), tally, stop))
            for w in range(args.writers)
        ]
        for thread in threads:
            thread.start()
        heals = []
        for _ in range(args.kills):
            time.sleep(args.interval)
            heals.append(kill_and_time(data_dir, tally))
        time.sleep(args.interval)
        stop.set()
        for thread in threads:
            thread.join()
        store.close()
        check(url, settings, tally, heals, args)


def check(
    url: str, settings: Settings, tally: Tally, heals: list[float], args: argparse.Namespace
) -> None:
    store = open_store(url, settings)  # a fresh server, loaded from the AOF
    stored = {r["id"] for r in store.read(Q["restart_bench.written_ids"], prefix="w-")}
    store.close()
    lost = [node for node in tally.acknowledged if node not in stored]
    landed = sum(node in stored for node in tally.failed)
    ms = np.asarray(heals) * 1000
    print(
        f"appendfsync {settings.appendfsync}, {args.writers} writer threads, {args.preload:,} "
        f"preloaded nodes, {args.kills} kills (SIGKILL) every {args.interval:g} s"
    )
    print(
        f"heal time (kill -> first acknowledged write sent after it): "
        f"median {np.median(ms):.0f} ms, max {ms.max():.0f} ms"
    )
    print(f"acknowledged writes: {len(tally.acknowledged):,}, lost after restart: {len(lost)}")
    print(
        f"writes failed as 'running when the server died': {len(tally.failed)} "
        f"({landed} of them landed anyway); other errors: {len(tally.other_errors)}"
    )
    for line in tally.other_errors[:5]:
        print("  ", line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--writers", type=int, default=2)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between kills")
    parser.add_argument("--preload", type=int, default=100_000, help="nodes stored beforehand")
    parser.add_argument(
        "--appendfsync", nargs="+", default=list(FSYNC_POLICIES), choices=FSYNC_POLICIES
    )
    args = parser.parse_args()
    for policy in args.appendfsync:
        run(args, policy)


if __name__ == "__main__":
    main()
