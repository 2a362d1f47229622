"""Fit the offline classifier's relation model (graphmem/props/pairmodel.json) on the tuning
worlds, choosing its settings by leave-one-world-out macro-F1.

Each tuning world (tests/fixtures/worlds.json "tuning") goes through the real ingestion
pipeline; every candidate pair (from FAISS, as in production) becomes one example: the pair
signals of graphmem/props/offline.py and the gold label. For each setting (L2 strength, class
balance) a model is fitted on all worlds but one and scored on that one, gold pairs that never
became candidates counted as missed; the setting with the best pooled macro-F1 is refitted on
every tuning world and written with its leave-one-world-out figures. The held-back worlds are
never read.

The rules' own verdict is one of the signals (--no-rule-verdict leaves it out). The rules
were written with the tuning worlds in view, so a leave-one-world-out estimate of a model
leaning on their verdict is optimistic; without it the estimate was the same within noise
(round 3: pooled 0.855 against 0.858), and with it the classifier keeps the behaviours
tests/test_props_classify.py asserts (a plan is no update, a sale is no new size).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from bench_props_quality import INDEX, ingested  # noqa: E402
from common import temp_store  # noqa: E402
from props_worlds import (  # noqa: E402
    NamedWorld,
    RecordingClassifier,
    judged_pairs,
    load_worlds,
    score_labels,
)

from graphmem.props.model import LABELS, Proposition  # noqa: E402
from graphmem.props.offline import FEATURES, RuleClassifier, batch_features  # noqa: E402
from graphmem.props.pairmodel import MODEL_PATH, PairModel, fit  # noqa: E402
from graphmem.props.reading import read  # noqa: E402

ORDER = ("norel", *[label for label in LABELS if label != "norel"])
RULE_VERDICT = ("rule_updates", "rule_contradicts", "rule_supports")
# round 4: L2 0.01 and 0.03 scored best by leave-one-world-out (0.849, 0.844 pooled) but made
# a plan ("will retire") support the fact and a sale update a size (tests/test_props_classify.py):
# too little regularisation for signals that are rarely on; the grid starts at 0.1
GRID = {"l2": (0.1, 0.3, 1.0), "balance": (0.0, 0.25, 0.5)}


@dataclass
class Examples:
    """One world's candidate pairs: ids, signals and gold label indices."""

    named: NamedWorld
    ids: list[tuple[str, str]]
    x: np.ndarray
    y: np.ndarray


def candidates(named: NamedWorld, store, tmp: Path) -> list[tuple[Proposition, Proposition, float]]:
    """Every (newer, older, cosine) the ingestion pipeline offers the classifier."""
    recorder = RecordingClassifier(RuleClassifier())
    ingested(store, tmp / named.name, named.world, recorder).close()
    store.write("admin.wipe")
    return recorder.seen


def examples(named: NamedWorld, seen: list[tuple[Proposition, Proposition, float]]) -> Examples:
    """The signals of every candidate pair, as the classifier computes them
    (offline.batch_features: each pair's from the pair alone)."""
    batches: dict[str, tuple[Proposition, list[tuple[Proposition, float]]]] = {}
    for new, old, cos in seen:
        batches.setdefault(new.id, (new, []))[1].append((old, cos))
    ids, rows, labels = [], [], []
    for new, olders in batches.values():
        mine = read(new.text, new.source)
        rows += batch_features(mine, [(read(o.text, o.source), cos) for o, cos in olders])
        for old, _ in olders:
            ids.append((new.id, old.id))
            labels.append(ORDER.index(named.world.label(new.id, old.id)))
    return Examples(named, ids, np.asarray(rows), np.asarray(labels))


def fitted(train: list[Examples], l2: float, balance: float, rule_verdict: bool) -> PairModel:
    """A model over FEATURES; without the rules' verdict its weights there are zero."""
    keep = [i for i, f in enumerate(FEATURES) if rule_verdict or f not in RULE_VERDICT]
    x = np.vstack([e.x for e in train])[:, keep]
    y = np.concatenate([e.y for e in train])
    small = fit(x, y, ORDER, tuple(FEATURES[i] for i in keep), l2, balance)
    mean, scale = np.zeros(len(FEATURES)), np.ones(len(FEATURES))
    weights = np.zeros((len(ORDER), len(FEATURES)))
    mean[keep], scale[keep], weights[:, keep] = small.mean, small.scale, small.weights
    return PairModel(ORDER, FEATURES, mean, scale, weights, small.bias)


def scored(model: PairModel, ex: Examples) -> list[tuple[str, str]]:
    """(gold, predicted) of a world's candidate pairs and its missed gold pairs."""
    predicted = [label for label, _ in model.predict(ex.x)] if len(ex.x) else []
    judged = [(n, o, label) for (n, o), label in zip(ex.ids, predicted, strict=True)]
    return judged_pairs(ex.named.world, judged)


def rules_scored(ex: Examples) -> list[tuple[str, str]]:
    """The same pairs judged by the rules alone."""
    verdict = [FEATURES.index(f) for f in RULE_VERDICT]
    labels = [
        "norel" if not row[verdict].any() else ORDER[1 + int(row[verdict].argmax())] for row in ex.x
    ]
    judged = [(n, o, label) for (n, o), label in zip(ex.ids, labels, strict=True)]
    return judged_pairs(ex.named.world, judged)


def lowo(data: list[Examples], setting: dict) -> dict[str, list[tuple[str, str]]]:
    """Per left-out world, its (gold, predicted) pairs under a model fitted on the others."""
    out = {}
    for ex in data:
        model = fitted([o for o in data if o is not ex], **setting)
        out[ex.named.name] = scored(model, ex)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=MODEL_PATH, help="where to write the model")
    parser.add_argument(
        "--no-rule-verdict", action="store_true", help="leave the rules' own verdict out"
    )
    args = parser.parse_args()
    worlds = load_worlds(INDEX, ("tuning",))
    with temp_store() as store, tempfile.TemporaryDirectory(prefix="gmt-") as tmp:
        data = [examples(named, candidates(named, store, Path(tmp))) for named in worlds]
    print(f"{sum(len(e.y) for e in data)} candidate pairs from {len(data)} tuning worlds\n")
    print("| l2 | balance | LOWO macro-F1 (pooled) | mean of worlds | worst |")
    print("|---|---|---|---|---|")
    results = []
    for values in itertools.product(*GRID.values()):
        setting = dict(zip(GRID, values, strict=True), rule_verdict=not args.no_rule_verdict)
        per_world = lowo(data, setting)
        pooled = score_labels(p for pairs in per_world.values() for p in pairs).macro_f1
        each = [score_labels(pairs).macro_f1 for pairs in per_world.values()]
        results.append((pooled, setting, per_world))
        print(
            f"| {setting['l2']} | {setting['balance']} | {pooled:.3f} | {np.mean(each):.3f} "
            f"| {min(each):.3f} |"
        )
    pooled, setting, per_world = max(results, key=lambda r: r[0])
    print(f"\nchosen: {setting}, leave-one-world-out pooled macro-F1 {pooled:.3f}")
    print("\n| left out | LOWO macro-F1 | LOWO accuracy | rules alone macro-F1 |")
    print("|---|---|---|---|")
    folds = {}
    for ex in data:
        mine, rules = score_labels(per_world[ex.named.name]), score_labels(rules_scored(ex))
        folds[ex.named.name] = round(mine.macro_f1, 3)
        print(
            f"| {ex.named.name} | {mine.macro_f1:.3f} | {mine.accuracy:.3f} "
            f"| {rules.macro_f1:.3f} |"
        )
    rules_pooled = score_labels(p for ex in data for p in rules_scored(ex)).macro_f1
    print(f"| pooled | {pooled:.3f} | | {rules_pooled:.3f} |")
    model = fitted(data, **setting)
    about = {
        "trained_on": [ex.named.name for ex in data],
        "pairs": int(sum(len(e.y) for e in data)),
        "setting": setting,
        "lowo_macro_f1_pooled": round(pooled, 3),
        "lowo_macro_f1_by_world": folds,
    }
    out = PairModel(
        model.labels, model.features, model.mean, model.scale, model.weights, model.bias, about
    )
    args.out.write_text(json.dumps(out.to_json(), indent=1) + "\n", encoding="utf-8")
    print(f"\nwritten {args.out}")


if __name__ == "__main__":
    main()
