"""Relation-label quality on the fixture world: precision/recall per label vs the gold labels.

The fixture propositions go through the real ingestion pipeline (candidates from FAISS, as in
production); every pair the classifier judged is scored against the gold label ('norel' when
the world lists none). Candidates below the classifier's min_similarity are never judged (the
offline rules call them norel), so they are not counted here. Gold pairs that never became
candidates count as missed ('norel' predicted). The all-norel baseline is scored on the same
pairs. Also prints how a simple embedding reader answers the fixture's dated questions with
and without relations.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import temp_store  # noqa: E402

from graphmem.config import Settings  # noqa: E402
from graphmem.props import OfflineClassifier, PropsMemory, add_propositions  # noqa: E402
from graphmem.props.quality import (  # noqa: E402
    GoldClassifier,
    LabelReport,
    Reader,
    RecordingClassifier,
    World,
    score_labels,
)

WORLD = Path(__file__).parent.parent / "tests" / "fixtures" / "props_world.json"


def judged_pairs(world: World, recorder: RecordingClassifier) -> list[tuple[str, str]]:
    """(gold, predicted) for every judged pair, plus gold pairs never judged (as missed)."""
    pairs = [(world.label(new, old), label) for new, old, label in recorder.judged]
    seen = {(world.keys[new], world.keys[old]) for new, old, _ in recorder.judged}
    pairs += [(label, "norel") for pair, label in world.gold.items() if pair not in seen]
    return pairs


def show(name: str, report: LabelReport) -> None:
    print(f"{name}: accuracy {report.accuracy:.3f}, macro-F1 {report.macro_f1:.3f}")
    for s in report.scores:
        print(
            f"  {s.label:<12} precision {s.precision:.2f}  recall {s.recall:.2f}  "
            f"F1 {s.f1:.2f}  (gold {s.support}, predicted {s.predicted})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--world", type=Path, default=WORLD)
    parser.add_argument("--k", type=int, default=10, help="anchors for the reader")
    args = parser.parse_args()
    world = World.load(args.world)
    with temp_store() as store, tempfile.TemporaryDirectory(prefix="gmq-") as tmp:
        recorder = RecordingClassifier(OfflineClassifier())
        ctx = PropsMemory.open(Settings(home=Path(tmp) / "o"), store, llm=None,
                               classifier=recorder)  # fmt: skip
        add_propositions(ctx, world.items())
        pairs = judged_pairs(world, recorder)
        missed = sum(1 for pair in world.gold if pair not in
                     {(world.keys[n], world.keys[o]) for n, o, _ in recorder.judged})  # fmt: skip
        print(
            f"{len(world.propositions)} propositions, {len(world.gold)} gold relations, "
            f"{len(pairs)} judged pairs ({missed} gold pairs never became candidates)\n"
        )
        show("offline classifier", score_labels(pairs))
        show("all-norel baseline", score_labels((gold, "norel") for gold, _ in pairs))
        print(f"\nreader on {len(world.questions)} dated questions (k={args.k}):")
        plain = Reader(ctx, args.k)
        offline = sum(plain.answer(q.question, q.date, q.options, True) == q.answer
                      for q in world.questions)  # fmt: skip
        top_k = sum(plain.answer(q.question, q.date, q.options, False) == q.answer
                    for q in world.questions)  # fmt: skip
        ctx.close()
        store.write("admin.wipe")
        gold_ctx = PropsMemory.open(Settings(home=Path(tmp) / "g"), store, llm=None,
                                    classifier=GoldClassifier(world))  # fmt: skip
        add_propositions(gold_ctx, world.items())
        oracle = Reader(gold_ctx, args.k)
        gold = sum(oracle.answer(q.question, q.date, q.options, True) == q.answer
                   for q in world.questions)  # fmt: skip
        gold_ctx.close()
    n = len(world.questions)
    print(f"  plain top-k:                       {top_k}/{n} = {top_k / n:.2f}")
    print(f"  with relations (offline classifier): {offline}/{n} = {offline / n:.2f}")
    print(f"  with relations (gold labels):        {gold}/{n} = {gold / n:.2f}")


if __name__ == "__main__":
    main()
