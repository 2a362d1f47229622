"""Relation labels and as-of answers per world: the worlds tuned on next to the held-back one.

Worlds: tests/fixtures/worlds.json. The offline classifier's rules and thresholds were
developed on the "tuning" worlds only; the "held_out" world was written and committed before
any tuning and used for this report alone. The reader (graphmem/props/quality.Reader) has no
parameters fitted to any world.

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
import itertools
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import temp_store  # noqa: E402

from graphmem.config import Settings  # noqa: E402
from graphmem.props import OfflineClassifier, PropsMemory, add_propositions  # noqa: E402
from graphmem.props.classify import Classifier  # noqa: E402
from graphmem.props.model import Proposition  # noqa: E402
from graphmem.props.offline import OfflineRules, judge_pair  # noqa: E402
from graphmem.props.quality import (  # noqa: E402
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
from graphmem.props.reading import read  # noqa: E402
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
    reader.warm([q.question for q in world.questions]
                + [o for q in world.questions for o in q.options])  # fmt: skip
    plain = sum(reader.answer(q.question, q.date, q.options, False) == q.answer
                for q in world.questions)  # fmt: skip
    related = sum(reader.answer(q.question, q.date, q.options, True) == q.answer
                  for q in world.questions)  # fmt: skip
    return plain, related


def ingested(store: Store, home: Path, world: World, classifier: Classifier) -> PropsMemory:
    ctx = PropsMemory.open(Settings(home=home), store, llm=None, classifier=classifier)
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
    print(f"  as-of QA: plain top-k {plain}/{n} = {plain / n:.2f}, "
          f"subgraph {sub}/{n} = {sub / n:.2f}")  # fmt: skip


def details(report: LabelReport) -> list[str]:
    lines = [f"  accuracy {report.accuracy:.3f}, macro-F1 {report.macro_f1:.3f} "
             f"over {report.pairs} pairs"]  # fmt: skip
    lines += [
        f"  {s.label:<12} precision {s.precision:.2f}  recall {s.recall:.2f}  F1 {s.f1:.2f}  "
        f"(gold {s.support}, predicted {s.predicted})"
        for s in report.scores
    ]
    return lines


# the thresholds a leave-one-world-out fit chooses among (OfflineRules; min_cosine no lower
# than the classifier's own, below which candidates are never recorded)
GRID = {
    "min_cosine": (0.35, 0.4, 0.45),
    "topic_frame": (0.4, 0.5, 0.6),
    "topic_dice": (0.25, 0.35, 0.45),
    "topic_cosine": (0.75, 0.8, 0.85),
    "support_cosine": (0.4, 0.5, 0.6),
}


def rejudged(result: Result, rules: OfflineRules) -> list[tuple[str, str]]:
    """(gold, predicted) of a world's candidate pairs under other thresholds."""
    world = result.named.world
    judged = [
        (new.id, old.id, judge_pair(read(new.text, new.source), read(old.text, old.source),
                                    cos, rules)[0])
        for new, old, cos in result.seen
        if cos >= rules.min_cosine
    ]  # fmt: skip
    return judged_pairs(world, judged)


def leave_one_world_out(results: list[Result]) -> None:
    """Fit the thresholds on all tuning worlds but one, score that one; for each world.

    Only the thresholds are refitted: the rules themselves were written with every tuning
    world in view, so this is an upper bound on what a world nobody looked at would give."""
    tuning = [r for r in results if r.named.role == "tuning"]
    if len(tuning) < 2:
        return
    grid = [OfflineRules(**dict(zip(GRID, values, strict=True)))
            for values in itertools.product(*GRID.values())]  # fmt: skip
    pairs = {r.named.name: [rejudged(r, rules) for rules in grid] for r in tuning}
    print("\nleave one world out (thresholds fitted on the other tuning worlds):")
    print("| left out | macro-F1 | accuracy | thresholds chosen |")
    print("|---|---|---|---|")
    pooled = []
    for r in tuning:
        others = [o.named.name for o in tuning if o is not r]
        fits = [score_labels(p for name in others for p in pairs[name][i]).macro_f1
                for i in range(len(grid))]  # fmt: skip
        best = max(range(len(grid)), key=fits.__getitem__)
        mine = pairs[r.named.name][best]
        pooled += mine
        report = score_labels(mine)
        chosen = ", ".join(f"{k} {getattr(grid[best], k)}" for k in GRID)
        print(f"| {r.named.name} | {report.macro_f1:.3f} | {report.accuracy:.3f} | {chosen} |")
    report = score_labels(pooled)
    print(f"| pooled | {report.macro_f1:.3f} | {report.accuracy:.3f} | |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--roles", default="tuning,held_out", help="tuning, held_out or both, comma-separated"
    )
    parser.add_argument("--k", type=int, default=10, help="anchors for the reader")
    parser.add_argument(
        "--lowo", action="store_true", help="also refit the thresholds leaving one world out"
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
