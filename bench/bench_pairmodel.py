"""The relation model's cost: the shipped boosted trees (round 11) against a logistic model of
the same signals (rounds 3-10's kind), in one process, on the same rows.

Rows are real pair signals: each statement of a tuning world against the ones before it. A
call of the classifier judges one new statement's candidates (up to 20 rows) or, in a bulk
import, every pair of the batch at once (thousands). The logistic model's weights are drawn at
random: its cost does not depend on them. Speed only; nothing here was tuned.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from graphmem.props.offline import FEATURES, batch_features
from graphmem.props.pairmodel import PairModel, RelationModel, TreeModel, load_model
from graphmem.props.reading import read

WORLD = Path(__file__).parent.parent / "tests" / "fixtures" / "world_sports.json"


def rows(count: int) -> np.ndarray:
    texts = [p["text"] for p in json.loads(WORLD.read_text(encoding="utf-8"))["propositions"]]
    readings = [read(t) for t in texts]
    out: list[list[float]] = []
    for i in range(1, len(readings)):
        out += batch_features(readings[i], [(r, 0.6, 100.0) for r in readings[:i]])
    return np.asarray((out * (count // len(out) + 1))[:count])


def per_call(model: RelationModel, x: np.ndarray, repeat: int) -> float:
    """Median seconds of one predict() over `x`."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        model.predict(x)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main() -> None:
    trees = load_model()
    rng = np.random.default_rng(0)
    k = len(trees.labels)
    logistic = PairModel(
        trees.labels,
        FEATURES,
        np.zeros(len(FEATURES)),
        np.ones(len(FEATURES)),
        rng.normal(size=(k, len(FEATURES))),
        np.zeros(k),
    )
    if not isinstance(trees, TreeModel):
        raise SystemExit("the shipped model is not boosted trees: nothing to compare")
    trees.predict(rows(1))  # compiled on first use (cached on disk after)
    print(f"shipped model: {len(trees.roots)} trees, {len(trees.value)} nodes")
    print("| rows per call | trees, µs per call | logistic, µs per call | trees / logistic |")
    print("|---|---|---|---|")
    for count, repeat in ((1, 2000), (20, 2000), (2000, 50)):
        x = rows(count)
        a, b = per_call(trees, x, repeat), per_call(logistic, x, repeat)
        print(f"| {count} | {a * 1e6:,.0f} | {b * 1e6:,.0f} | {a / b:.1f} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
