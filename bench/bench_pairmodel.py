"""The relation model's cost: the shipped boosted trees (round 11) against a logistic model of
the same signals (rounds 3-10's kind), in one process, on the same rows.

Rows are real pair signals: each statement of a tuning world against the ones before it. A
call of the classifier judges one new statement's candidates (up to 20 rows) or, in a bulk
import, every pair of the batch at once (thousands). The logistic model's weights are drawn at
random: its cost does not depend on them. Since round 19 the trees also take the pair's
embedding signals (graphmem/props/pairembed.py): their projection is timed with the trees (the
vectors themselves come from the graph at no cost here); the logistic model gets as many
signals. Speed only; nothing here was tuned.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from graphmem.embed import Embedder
from graphmem.props.offline import batch_features
from graphmem.props.pairmodel import PairModel, RelationModel, TreeModel, load_model
from graphmem.props.reading import read

WORLD = Path(__file__).parent.parent / "tests" / "fixtures" / "world_sports.json"


Rows = tuple[np.ndarray, np.ndarray, np.ndarray]  # signals, newer and older vectors


def rows(count: int, embedder: Embedder) -> Rows:
    texts = [p["text"] for p in json.loads(WORLD.read_text(encoding="utf-8"))["propositions"]]
    readings = [read(t) for t in texts]
    vectors = embedder.encode(texts)
    out: list[list[float]] = []
    pairs: list[tuple[int, int]] = []
    for i in range(1, len(readings)):
        out += batch_features(readings[i], [(r, 0.6, 100.0) for r in readings[:i]])
        pairs += [(i, j) for j in range(i)]
    take = [k % len(out) for k in range(count)]
    news, olds = zip(*(pairs[k] for k in take), strict=True)
    return np.asarray(out)[take], vectors[list(news)], vectors[list(olds)]


def per_call(model: RelationModel, inputs: TreeModel, x: Rows, repeat: int) -> float:
    """Median seconds of one predict() over `x`, with the embedding signals `inputs` (the
    shipped trees) computes: both models are timed on the same rows."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        model.predict(inputs.rows(*x))
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main() -> None:
    trees = load_model()
    rng = np.random.default_rng(0)
    k, d = len(trees.labels), len(trees.features)
    logistic = PairModel(
        trees.labels, trees.features, np.zeros(d), np.ones(d), rng.normal(size=(k, d)), np.zeros(k)
    )
    if not isinstance(trees, TreeModel):
        raise SystemExit("the shipped model is not boosted trees: nothing to compare")
    fitted_with = trees.embedding.model if trees.embedding else "all-MiniLM-L6-v2"
    base, _, precision = fitted_with.partition("@")
    embedder = Embedder(base, precision=precision or "fp32")
    trees.predict(trees.rows(*rows(1, embedder)))  # compiled on first use (cached on disk after)
    print(f"shipped model: {len(trees.roots)} trees, {len(trees.value)} nodes, {d} signals")
    print("| rows per call | trees, µs per call | logistic, µs per call | trees / logistic |")
    print("|---|---|---|---|")
    for count, repeat in ((1, 2000), (20, 2000), (2000, 50)):
        x = rows(count, embedder)
        a, b = per_call(trees, trees, x, repeat), per_call(logistic, trees, x, repeat)
        print(f"| {count} | {a * 1e6:,.0f} | {b * 1e6:,.0f} | {a / b:.1f} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
