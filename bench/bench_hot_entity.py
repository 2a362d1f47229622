"""Subgraph size and latency on a "hot" entity (goal: p95 <= 20 ms without the question embedding).

One foundry's sites are the subject of --hot statements (openings, headcounts, furnaces,
closures, output, each site reported again and again over four years), among --background
sentences of the news-like corpus (bench/newsworld.py); relations by the offline classifier,
as a user without an LLM would get them. Questions about the foundry, as of dates across the
four years, are embedded beforehand: the figures are the subgraph call alone (k=10, expanded).
The same calls with the bounds lifted (NEIGHBOURS and INCOMING at 10^6) show what the bounds
save: before them, 200 such statements gave a k=10 subgraph of 94 nodes and 855 edges, 85 ms.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import percentiles_ms, temp_store  # noqa: E402
from newsworld import generate  # noqa: E402

from graphmem.config import Settings  # noqa: E402
from graphmem.embed import Embedder  # noqa: E402
from graphmem.props import PropsMemory, add_propositions, counts, retrieve  # noqa: E402
from graphmem.props.sentences import split_sentences  # noqa: E402
from graphmem.services import open_props  # noqa: E402

TOWNS = ("Brackwater", "Ellsmere", "Harlow Fen", "Kettering Vale", "Marsby", "Ostwick")
HOT = (
    "Quillmere Foundry's site in {town} now employs {n} people.",
    "Quillmere Foundry runs {f} furnaces at its {town} site.",
    "Output at Quillmere Foundry's {town} site rose to {t} tonnes a month.",
    "Quillmere Foundry said its {town} site would cut {c} jobs.",
    "Quillmere Foundry denied that it will close its {town} site.",
    "Quillmere Foundry's {town} site passed its safety inspection.",
)
QUESTIONS = (
    "How many people does Quillmere Foundry employ in Brackwater?",
    "How many furnaces does Quillmere Foundry run?",
    "Is Quillmere Foundry closing any of its sites?",
    "What is the monthly output of Quillmere Foundry's Marsby site?",
    "Which Quillmere Foundry sites are cutting jobs?",
)


def hot_statements(n: int, seed: int = 5) -> list[dict[str, str]]:
    """n dated statements about the foundry's sites over four years, in date order."""
    rng = random.Random(seed)
    start = dt.date(2019, 1, 1)
    days = sorted(rng.randrange(0, 4 * 365) for _ in range(n))
    return [
        {
            "text": rng.choice(HOT).format(
                town=rng.choice(TOWNS),
                n=rng.randrange(200, 3000),
                f=rng.randrange(2, 30),
                t=rng.randrange(1, 90) * 100,
                c=rng.randrange(10, 400),
            ),
            "date": str(start + dt.timedelta(days=day)),
            "source": "hot",
        }
        for day in days
    ]


def background(n: int) -> list[dict[str, str]]:
    """n sentences of the news-like corpus, with their articles' dates."""
    corpus = generate(11)
    items = [
        {"text": s, "date": d["date"], "source": d["source"]}
        for d in corpus.documents
        for s in split_sentences(d["text"])
    ]
    return items[:n]


def measure(ctx: PropsMemory, asks, vecs, repeat: int, channels: str) -> tuple[list, float, float]:
    """Subgraph call times, mean nodes and mean edges."""
    samples, nodes, edges = [], [], []
    for _ in range(repeat):
        for (question, as_of), vec in zip(asks, vecs, strict=True):
            t = time.perf_counter()
            graph = retrieve.subgraph_for_vector(
                ctx, vec, question, as_of, 10, True, channels=channels
            )
            samples.append(time.perf_counter() - t)
            nodes.append(len(graph.nodes))
            edges.append(len(graph.edges))
    return samples, float(np.mean(nodes)), float(np.mean(edges))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hot", type=int, default=200)
    parser.add_argument("--background", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    embedder = Embedder()
    with temp_store() as store, tempfile.TemporaryDirectory(prefix="gmh-") as tmp:
        ctx = open_props(Settings(home=Path(tmp)), store, llm=None, embedder=embedder)
        items = sorted(
            [*background(args.background), *hot_statements(args.hot)], key=lambda i: i["date"]
        )
        add_propositions(ctx, items)
        hot_ids = ctx.store.read(
            "props.filtered",
            source="hot",
            start=None,
            end=None,
            contains=None,
            offset=0,
            limit=10**6,
        )
        print(
            f"{args.hot} statements about one foundry's sites among {args.background} others: "
            f"{counts(ctx)}; {len(hot_ids)} hot"
        )
        asks = [(q, f"{year}-12-31") for q in QUESTIONS for year in (2019, 2020, 2021, 2022)]
        vecs = embedder.encode([q for q, _ in asks])
        measure(ctx, asks, vecs, 1, "hybrid")  # warm up: opens the indexes
        bounds = (retrieve.NEIGHBOURS, retrieve.INCOMING)
        for name, (neighbours, incoming), channels in (
            ("bounded, hybrid (default)", bounds, "hybrid"),
            ("bounded, dense only", bounds, "dense"),
            ("bounds lifted, hybrid", (10**6, 10**6), "hybrid"),
        ):
            retrieve.NEIGHBOURS, retrieve.INCOMING = neighbours, incoming
            samples, nodes, edges = measure(ctx, asks, vecs, args.repeat, channels)
            print(f"  {name:<26} {nodes:5.1f} nodes {edges:6.1f} edges  {percentiles_ms(samples)}")
        retrieve.NEIGHBOURS, retrieve.INCOMING = bounds
        ctx.close()


if __name__ == "__main__":
    main()
