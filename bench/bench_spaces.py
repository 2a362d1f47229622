"""Memory of a process using many spaces one after another, GRAPHMEM_MAX_OPEN_SPACES vs unbounded.

Each run is a fresh process on a fresh embedded store: it opens `--spaces` spaces in turn, as
requests naming them would (`Services.using`), stores `--events` events in each and opens
every vector index and the keyword index of the space (what a first search opens). The
resident set size (VmRSS) is read after every 50 spaces; the peak (VmHWM) at the end. The
texts differ per space, their vectors are those of the first space's, embedded once (the
model's speed is not what is measured). Then a
second pass recalls one event in each space again, in the same order: with the bound, every
space has been closed since and is reopened (its indexes read from their files and synced
through the vector clock); unbounded, all are still open. Its latencies say what a reopen costs.

    python bench/bench_spaces.py                  # both runs, a table
    python bench/bench_spaces.py --max 32 --child # one run, JSON (used by the table)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import percentiles_ms  # noqa: E402

from graphmem import timeline as tl  # noqa: E402
from graphmem.config import Settings  # noqa: E402
from graphmem.props.relate import LABEL  # noqa: E402
from graphmem.services import Services  # noqa: E402
from graphmem.vectors.store import LABELS  # noqa: E402

UNBOUNDED = 1_000_000
NOW = "2030-01-01"


def rss_mb(field: str = "VmRSS") -> float:
    """This process's resident set size (or its peak, VmHWM) in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def text(space: int, i: int) -> str:
    return f"Crew {space} planted row {i} of the north field."


def child(max_open: int, spaces: int, events: int) -> dict[str, object]:
    """One run: memory after each 50 spaces, the peak, and the second pass's recall times."""
    with tempfile.TemporaryDirectory(prefix="gmb-") as tmp:
        settings = Settings(home=Path(tmp) / "home", max_open_spaces=max_open)
        with Services.open(settings, f"falkordb+embedded://{Path(tmp) / 'db'}") as owner:
            # one space's texts embedded once and reused: what is measured is the indexes
            vectors = owner.embedder().encode([text(0, i) for i in range(events)])
            base = rss_mb()
            curve = []
            for n in range(spaces):
                with owner.using(f"s{n}") as services:
                    rows = [{"text": text(n, i), "date": "2024-04-02"} for i in range(events)]
                    tl.add_events(services.timeline(), rows, vectors)
                    for label in LABELS:
                        services.vectors().index(label)
                    services.props().keywords.index(LABEL)
                if (n + 1) % 50 == 0:
                    curve.append(round(rss_mb() - base, 1))
            times = []
            for n in range(spaces):
                began = time.perf_counter()
                with owner.using(f"s{n}") as services:
                    found = tl.recall(services.timeline(), text(n, 1), NOW, 1, 0.01)
                times.append(time.perf_counter() - began)
                assert [r.text[: len(f"Crew {n} ")] for r in found] == [f"Crew {n} "], found
            return {
                "max_open_spaces": max_open,
                "open_spaces": owner.open_spaces(),
                "closed": owner.closed_spaces(),
                "rss_growth_mb_per_50": curve,
                "peak_mb": round(rss_mb("VmHWM"), 1),
                "model_and_store_mb": round(base, 1),
                "second_pass": percentiles_ms(times),
            }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--spaces", type=int, default=200)
    parser.add_argument("--events", type=int, default=20, help="events stored in each space")
    parser.add_argument("--max", type=int, default=None, help="one run with this bound")
    parser.add_argument("--child", action="store_true", help="print one run's JSON")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.max or UNBOUNDED, args.spaces, args.events)))
        return
    bounds = [args.max] if args.max else [32, UNBOUNDED]
    print(f"{args.spaces} spaces, {args.events} events each, opened one after another")
    for bound in bounds:
        command = [sys.executable, __file__, "--child", "--max", str(bound)]
        command += ["--spaces", str(args.spaces), "--events", str(args.events)]
        run = json.loads(subprocess.run(command, check=True, capture_output=True).stdout)
        name = "unbounded" if bound == UNBOUNDED else f"max {bound}"
        print(
            f"{name:>10}: RSS growth per 50 spaces {run['rss_growth_mb_per_50']} MB over "
            f"{run['model_and_store_mb']} MB (model loaded), peak {run['peak_mb']} MB, "
            f"open at the end {run['open_spaces']}, closed {run['closed']} times; "
            f"second pass recall {run['second_pass']}"
        )


if __name__ == "__main__":
    main()
