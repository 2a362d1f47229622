"""Relation labels and as-of answers per world: the worlds tuned on next to the held-back one.

Worlds: tests/fixtures/worlds.json. The offline classifier's rules were developed, and its
relation model (graphmem/props/pairmodel.json, bench/train_props_model.py) trained, on the
"tuning" worlds only; the "held_out" worlds were written and committed before that work and
are used for this report alone. The reader (bench/props_worlds.Reader) has no parameters
fitted to any world.

For each world the propositions go through the real ingestion pipeline (candidates from FAISS,
as in production); every pair the classifier judged is scored against the gold label ('norel'
when the world lists none). Candidates below the classifier's min_similarity are never judged
(its rules call them norel) and are not counted; gold pairs that never became candidates count
as missed. Then each dated question is answered by the reader from plain top-k (the k anchors
as retrieved, no relations) and from the subgraph (anchors and neighbours, current statements
only, by the offline classifier's edges; also by the gold edges, an upper bound).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import embed_precision, temp_store  # noqa: E402
from props_worlds import (  # noqa: E402
    GoldClassifier,
    LabelReport,
    NamedWorld,
    Reader,
    RecordingClassifier,
    World,
    judged_pairs,
    load_worlds,
    score_labels,
)

from graphmem.config import Settings  # noqa: E402
from graphmem.props import OfflineClassifier, PropsMemory, add_propositions  # noqa: E402
from graphmem.props.classify import Classifier  # noqa: E402
from graphmem.props.model import Proposition  # noqa: E402
from graphmem.props.pairmodel import load_model  # noqa: E402
from graphmem.services import open_props  # noqa: E402
from graphmem.store import Store  # noqa: E402

INDEX = Path(__file__).parent.parent / "tests" / "fixtures" / "worlds.json"
ROLE = {"tuning": "tuned on", "held_out": "held back"}


@dataclass(frozen=True)
class Result:
    """One world's figures."""

    named: NamedWorld
    pairs: tuple[tuple[str, str], ...]  # (gold, predicted) label of every judged or missed pair
    missed: int  # gold pairs that never became candidates
    plain: int  # questions answered right from plain top-k
    subgraph: int  # ... from the subgraph with the offline classifier's relations
    gold: int  # ... from the subgraph with the gold relations
    seen: tuple[tuple[Proposition, Proposition, float], ...]  # every candidate pair, for LOWO

    @property
    def labels(self) -> LabelReport:
        return score_labels(self.pairs)

    @property
    def questions(self) -> int:
        return len(self.named.world.questions)


def answers(ctx: PropsMemory, world: World, k: int) -> tuple[int, int]:
    """(plain top-k right, subgraph right) for the world's questions."""
    reader = Reader(ctx, k)
    reader.warm(
        [q.question for q in world.questions] + [o for q in world.questions for o in q.options]
    )
    plain = sum(
        reader.answer(q.question, q.date, q.options, False) == q.answer for q in world.questions
    )
    related = sum(
        reader.answer(q.question, q.date, q.options, True) == q.answer for q in world.questions
    )
    return plain, related


def ingested(store: Store, home: Path, world: World, classifier: Classifier) -> PropsMemory:
    settings = Settings(home=home, embed_precision=embed_precision())
    ctx = open_props(settings, store, llm=None, classifier=classifier)
    add_propositions(ctx, world.items())
    return ctx


def evaluate(named: NamedWorld, k: int, store: Store, tmp: Path) -> Result:
    world = named.world
    recorder = RecordingClassifier(OfflineClassifier())
    ctx = ingested(store, tmp / f"{named.name}-o", world, recorder)
    pairs = judged_pairs(world, recorder.judged)
    judged = {(world.keys[n], world.keys[o]) for n, o, _ in recorder.judged}
    plain, related = answers(ctx, world, k)
    ctx.close()
    store.write("admin.wipe")
    ctx = ingested(store, tmp / f"{named.name}-g", world, GoldClassifier(world))
    _, gold = answers(ctx, world, k)
    ctx.close()
    store.write("admin.wipe")
    missed = sum(pair not in judged for pair in world.gold)
    return Result(named, tuple(pairs), missed, plain, related, gold, tuple(recorder.seen))


def table(results: list[Result]) -> None:
    print(
        "| world | role | props | gold rel. | judged pairs | accuracy | macro-F1 "
        "| updates P / R | contradicts P / R | supports P / R | QA plain top-k | QA subgraph "
        "| QA gold edges |"
    )
    print("|---" * 13 + "|")
    for r in results:
        scores = " | ".join(f"{s.precision:.2f} / {s.recall:.2f}" for s in r.labels.scores)
        n = r.questions
        print(
            f"| {r.named.name} | {ROLE[r.named.role]} | {len(r.named.world.propositions)} "
            f"| {len(r.named.world.gold)} | {r.labels.pairs} | {r.labels.accuracy:.3f} "
            f"| {r.labels.macro_f1:.3f} | {scores} | {r.plain}/{n} | {r.subgraph}/{n} "
            f"| {r.gold}/{n} |"
        )


def pooled(results: list[Result], role: str) -> None:
    mine = [r for r in results if r.named.role == role]
    if not mine:
        return
    n = sum(r.questions for r in mine)
    plain, sub = sum(r.plain for r in mine), sum(r.subgraph for r in mine)
    print(f"\n{ROLE[role]} ({', '.join(r.named.name for r in mine)}), pooled:")
    for line in details(score_labels([p for r in mine for p in r.pairs])):
        print(line)
    print(
        f"  as-of QA: plain top-k {plain}/{n} = {plain / n:.2f}, subgraph {sub}/{n} = {sub / n:.2f}"
    )


def details(report: LabelReport) -> list[str]:
    lines = [
        f"  accuracy {report.accuracy:.3f}, macro-F1 {report.macro_f1:.3f} "
        f"over {report.pairs} pairs"
    ]
    lines += [
        f"  {s.label:<12} precision {s.precision:.2f}  recall {s.recall:.2f}  F1 {s.f1:.2f}  "
        f"(gold {s.support}, predicted {s.predicted})"
        for s in report.scores
    ]
    return lines


def leave_one_world_out(results: list[Result]) -> None:
    """Refit the relation model (its stored setting) on all tuning worlds but one, score that
    one; for each world. The rules whose verdict and signals it weighs were written with the
    tuning worlds in view, so this is an optimistic estimate: the held-back worlds decide."""
    from train_props_model import examples, lowo  # the training script beside this one

    tuning = [r for r in results if r.named.role == "tuning"]
    if len(tuning) < 2:
        return
    setting = load_model().about["setting"]
    data = [examples(r.named, list(r.seen)) for r in tuning]
    per_world = lowo(data, setting)
    print(f"\nleave one world out (model refitted on the other tuning worlds, {setting}):")
    print("| left out | macro-F1 | accuracy |")
    print("|---|---|---|")
    for name, pairs in per_world.items():
        report = score_labels(pairs)
        print(f"| {name} | {report.macro_f1:.3f} | {report.accuracy:.3f} |")
    report = score_labels(p for pairs in per_world.values() for p in pairs)
    print(f"| pooled | {report.macro_f1:.3f} | {report.accuracy:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--roles", default="tuning,held_out", help="tuning, held_out or both, comma-separated"
    )
    parser.add_argument("--k", type=int, default=10, help="anchors for the reader")
    parser.add_argument(
        "--lowo", action="store_true", help="also refit the relation model leaving one world out"
    )
    args = parser.parse_args()
    worlds = load_worlds(INDEX, tuple(args.roles.split(",")))
    print(__doc__.split("\n\n")[1].replace("\n", " "), "\n")
    with temp_store() as store, tempfile.TemporaryDirectory(prefix="gmq-") as tmp:
        results = [evaluate(named, args.k, store, Path(tmp)) for named in worlds]
    table(results)
    for r in results:
        if r.missed:
            print(f"{r.named.name}: {r.missed} gold pairs never became candidates (missed)")
    for role in ROLE:
        pooled(results, role)
    if args.lowo:
        leave_one_world_out(results)


if __name__ == "__main__":
    main()
