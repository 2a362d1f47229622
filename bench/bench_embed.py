"""Embedding benchmark: the ONNX Runtime and torch backends side by side, in one run.

For each backend:
1. cold start: a fresh `python` process, from its spawn to its first vector (the ONNX export
   is made before timing, as `graphmem embed-export` or a first run would);
2. one question at a time: p50/p95 latency of encode_one on a quiet machine, then while
   --competitors CPU-bound processes this bench starts spin on the cores;
3. questions from a pool of --threads threads at once (a server's workers): questions/s;
4. batch throughput: encode() of --n news-like sentences of ~130 characters, sentences/s.

Goals (issue 12): question p50 <= 5 ms and p95 <= 15 ms with a competing process; batch >=
torch's; cold start <= 1 s.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import percentiles_ms, timed  # noqa: E402

from graphmem.embed import Embedder  # noqa: E402
from graphmem.embed.export import default_cache_root  # noqa: E402

BACKENDS = ("onnx", "torch")
QUESTIONS = [
    "Who runs Quillmere Foundry?",
    "How many people does the Brackwater site employ?",
    "What did the council decide about the northern ring road depot?",
    "When did container traffic at the harbour start to rise?",
    "Which rail lines get the new trains first?",
    "Did the minister deny the reports about the budget cuts?",
    "What was the unemployment rate in the region last spring?",
    "Is the bridge open to traffic again?",
]

WHO = [
    "The regional council",
    "Harbour officials",
    "The finance minister",
    "Quillmere Foundry",
    "The national rail operator",
    "A spokesperson for the hospital",
    "Local farmers",
    "The central bank",
    "Analysts at Brackwater Securities",
    "The city's water utility",
]
DID = [
    "said on {day} that",
    "announced on {day} that",
    "warned on {day} that",
    "denied reports on {day} that",
    "confirmed on {day} that",
]
WHAT = [
    "spending on road repairs would rise by {n} percent next year",
    "{n} jobs would be cut at the plant before the end of the quarter",
    "the new line would open to passengers in {month}, {k} months later than planned",
    "prices for wheat had fallen for {k} weeks in a row",
    "the reservoir stood at {n} percent of capacity after a dry {month}",
    "the interest rate would stay at {k}.{n} percent until the summer",
]
WHY = [
    "citing higher energy costs",
    "after a review by independent auditors",
    "following weeks of talks with the unions",
    "despite objections from residents",
    "as demand from exporters slowed",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
MONTHS = ["March", "June", "September", "November"]


def news(n: int, seed: int = 0) -> list[str]:
    """n news-like sentences, ~130 characters each."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        what = rng.choice(WHAT).format(
            n=rng.randrange(2, 95), k=rng.randrange(2, 9), month=rng.choice(MONTHS)
        )
        did = rng.choice(DID).format(day=rng.choice(DAYS))
        why = f", {rng.choice(WHY)}" if rng.random() < 0.5 else ""
        out.append(f"{rng.choice(WHO)} {did} {what}{why}.")
    return out


COLD = (
    "import time, sys\n"
    "from graphmem.embed import Embedder\n"
    "Embedder(backend=sys.argv[1], cache_dir=sys.argv[2]).encode_one('Who runs the foundry?')\n"
    "print(time.time())\n"
)


def cold_start(backend: str, cache: Path, repeat: int) -> list[float]:
    """Seconds from spawning a fresh interpreter to its first vector."""
    out = []
    for _ in range(repeat):
        start = time.time()
        done = subprocess.run(
            [sys.executable, "-c", COLD, backend, str(cache)],
            capture_output=True,
            text=True,
            check=True,
        )
        out.append(float(done.stdout.split()[-1]) - start)
    return out


@contextmanager
def competing(processes: int):
    """CPU-bound processes spinning on the cores while the block runs."""
    spinners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)
    ]
    try:
        time.sleep(0.5)  # let them get going
        yield
    finally:
        for proc in spinners:
            proc.kill()
            proc.wait()


def one_at_a_time(embedder: Embedder, repeat: int) -> list[float]:
    questions = iter(QUESTIONS * (repeat // len(QUESTIONS) + 1))
    return timed(lambda: embedder.encode_one(next(questions)), repeat)


def pooled(embedder: Embedder, threads: int, n: int) -> float:
    """Questions per second from `threads` callers at once."""
    questions = [f"{QUESTIONS[i % len(QUESTIONS)]} ({i})" for i in range(n)]
    with ThreadPoolExecutor(threads) as pool:
        start = time.perf_counter()
        list(pool.map(embedder.encode_one, questions))
        return n / (time.perf_counter() - start)


def bench(backend: str, args: argparse.Namespace, corpus: list[str]) -> dict[str, object]:
    embedder = Embedder(backend=backend, cache_dir=args.cache)
    embedder.encode(QUESTIONS)  # load and warm up
    result: dict[str, object] = {"backend": embedder.backend}
    cold = cold_start(backend, args.cache, args.cold)
    result["cold start"] = f"median {np.median(cold):.2f} s (of {args.cold})"
    result["question, quiet"] = percentiles_ms(one_at_a_time(embedder, args.questions))
    with competing(args.competitors):
        busy = one_at_a_time(embedder, args.questions)
    result[f"question, {args.competitors} competing"] = percentiles_ms(busy)
    result[f"questions, {args.threads} threads"] = f"{pooled(embedder, args.threads, 400):.0f}/s"
    start = time.perf_counter()
    embedder.encode(corpus)
    result[f"batch of {len(corpus)}"] = f"{len(corpus) / (time.perf_counter() - start):.0f}/s"
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="sentences in the batch")
    parser.add_argument("--questions", type=int, default=300, help="timed single questions")
    parser.add_argument("--competitors", type=int, default=1, help="CPU-bound processes")
    parser.add_argument("--threads", type=int, default=4, help="concurrent callers")
    parser.add_argument("--cold", type=int, default=3, help="cold starts per backend")
    parser.add_argument("--cache", type=Path, default=default_cache_root())
    args = parser.parse_args()
    corpus = news(args.n)
    print(f"{len(corpus)} sentences, mean {np.mean([len(s) for s in corpus]):.0f} characters")
    results = [bench(backend, args, corpus) for backend in BACKENDS]
    width = max(len(k) for k in results[0])
    for key in results[0]:
        print(f"{key:<{width}}  " + "  |  ".join(f"{r[key]:<34}" for r in results))
    print(json.dumps(results))


if __name__ == "__main__":
    main()
