"""Relation labels and as-of answers per world: the worlds tuned on next to the held-back one.

Worlds: tests/fixtures/worlds.json. The offline classifier's rules were developed, and its
relation model (graphmem/props/pairmodel.json, bench/train_props_model.py) trained, on the
"tuning" worlds only; the "held_out" worlds were written and committed before that work and
are used for this report alone. The reader (bench/props_worlds.Reader) has no parameters
fitted to any world; v2's reading rules and its two constants (recency, the weight of a plan)
were developed on the tuning worlds' questions (docs/quality.md, round 6).

For each world the propositions go through the real ingestion pipeline (candidates from FAISS,
as in production); every pair the classifier judged is scored against the gold label ('norel'
when the world lists none). Candidates below the classifier's min_similarity are never judged
(its rules call them norel) and are not counted; gold pairs that never became candidates count
as missed. Then each dated question is answered by the reader from plain top-k (the k anchors
as retrieved, no relations) and from the subgraph (anchors and neighbours, current statements
only, by the offline classifier's edges; also by the gold edges, an upper bound).

--why lists every gold pair not labelled right with its cosine, its rank among the newer
statement's earlier ones by cosine and by BM25, and the cause (below the similarity floor,
beyond the k candidates, judged norel, judged another label), and counts the candidate
pairs and gold pairs among them that other similarity floors would give.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import embed_precision, temp_store  # noqa: E402
from props_worlds import (  # noqa: E402
    READERS,
    GoldClassifier,
    LabelReport,
    NamedWorld,
    Reader,
    RecordingClassifier,
    World,
    judged_pairs,
    load_worlds,
    offline_classifier,
    score_labels,
)

from graphmem.config import Settings  # noqa: E402
from graphmem.embed import Embedder  # noqa: E402
from graphmem.props import PropsMemory, add_propositions  # noqa: E402
from graphmem.props.classify import Classifier  # noqa: E402
from graphmem.props.model import Proposition  # noqa: E402
from graphmem.props.pairmodel import load_model  # noqa: E402
from graphmem.props.relate import CANDIDATES  # noqa: E402
from graphmem.services import open_props  # noqa: E402
from graphmem.store import Store  # noqa: E402
from graphmem.vectors import KeywordIndex  # noqa: E402
from graphmem.vectors.model import vector_id  # noqa: E402

INDEX = Path(__file__).parent.parent / "tests" / "fixtures" / "worlds.json"
ROLE = {"tuning": "tuned on", "held_out": "held back"}
FLOORS = (0.35, 0.3, 0.25, 0.2, -1.0)  # similarity floors of --why's sweep


@dataclass(frozen=True)
class Miss:
    """A gold pair the classifier did not label right: why, from the pair's standing."""

    newer: str  # world keys
    older: str
    gold: str
    predicted: str  # the label given; "-" when never a candidate
    cosine: float
    dense_rank: int  # 1-based rank of the older among the newer's earlier statements, by cosine
    keyword_rank: int  # ... by BM25 over the newer's text (0: no term shared)
    cause: str


@dataclass(frozen=True)
class Result:
    """One world's figures."""

    named: NamedWorld
    pairs: tuple[tuple[str, str], ...]  # (gold, predicted) label of every judged or missed pair
    missed: int  # gold pairs that never became candidates
    # per reader version: questions answered right from plain top-k, from the subgraph with
    # the offline classifier's relations, from the subgraph with the gold relations
    qa: dict[str, tuple[int, int, int]]
    seen: tuple[tuple[Proposition, Proposition, float], ...]  # every candidate pair, for LOWO
    why: tuple[Miss, ...] = ()  # each gold pair not labelled right, and why (--why)
    sweep: tuple[tuple[int, int], ...] = ()  # (candidate pairs, gold among them) per FLOORS

    @property
    def plain(self) -> int:
        return next(iter(self.qa.values()))[0]

    @property
    def subgraph(self) -> int:
        return next(iter(self.qa.values()))[1]

    @property
    def gold(self) -> int:
        return next(iter(self.qa.values()))[2]

    @property
    def labels(self) -> LabelReport:
        return score_labels(self.pairs)

    @property
    def questions(self) -> int:
        return len(self.named.world.questions)


def answers(ctx: PropsMemory, world: World, k: int, version: str) -> tuple[int, int]:
    """(plain top-k right, subgraph right) for the world's questions, by one reader."""
    reader = Reader(ctx, k, version=version)
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


def evaluate(
    named: NamedWorld,
    k: int,
    store: Store,
    tmp: Path,
    why: bool = False,
    readers: tuple[str, ...] = ("v2",),
) -> Result:
    world = named.world
    recorder = RecordingClassifier(offline_classifier())
    ctx = ingested(store, tmp / f"{named.name}-o", world, recorder)
    embedder = ctx.embedder if why else None
    pairs = judged_pairs(world, recorder.judged)
    judged = {(world.keys[n], world.keys[o]) for n, o, _ in recorder.judged}
    offline = {v: answers(ctx, world, k, v) for v in readers}
    ctx.close()
    store.write("admin.wipe")
    ctx = ingested(store, tmp / f"{named.name}-g", world, GoldClassifier(world))
    gold = {v: answers(ctx, world, k, v)[1] for v in readers}
    ctx.close()
    store.write("admin.wipe")
    missed = sum(pair not in judged for pair in world.gold)
    labelled = {(world.keys[n], world.keys[o]): label for n, o, label in recorder.judged}
    why, sweep = (), ()
    if embedder is not None:
        st = Standing.of(world, embedder)
        why, sweep = misses(world, labelled, recorder.min_similarity, st), floor_sweep(world, st)
    qa = {v: (*offline[v], gold[v]) for v in readers}
    return Result(named, tuple(pairs), missed, qa, tuple(recorder.seen), why, sweep)


@dataclass(frozen=True)
class Standing:
    """A world's statements in ingestion order (date, then input order) and their cosines."""

    keys: list[str]
    order: dict[str, int]  # key → position in `keys`
    texts: dict[str, str]
    sims: np.ndarray

    @classmethod
    def of(cls, world: World, embedder: Embedder) -> Standing:
        props = sorted(enumerate(world.propositions), key=lambda ip: (ip[1]["date"], ip[0]))
        keys = [p["key"] for _, p in props]
        texts = {p["key"]: p["text"] for p in world.propositions}
        vecs = embedder.encode([texts[key] for key in keys])
        return cls(keys, {key: n for n, key in enumerate(keys)}, texts, vecs @ vecs.T)

    def keyword_rank(self, newer: str, older: str) -> int:
        """1-based BM25 rank of `older` among the statements before `newer` (0: no term
        shared), the index built over those statements alone."""
        earlier = self.keys[: self.order[newer]]
        if not earlier:
            return 0
        index = KeywordIndex("why")
        index.add(
            earlier,
            [vector_id(key) for key in earlier],
            [0] * len(earlier),
            [self.texts[key] for key in earlier],
        )
        hits = [h.node_id for h in index.search(self.texts[newer], len(earlier))]
        return hits.index(older) + 1 if older in hits else 0


def misses(
    world: World, labelled: dict[tuple[str, str], str], floor: float, st: Standing
) -> tuple[Miss, ...]:
    """Every gold pair not labelled right, with its cosine, its rank among the newer
    statement's earlier ones by cosine and by BM25, and the cause: below the similarity
    floor, beyond the k candidates, or judged wrong."""
    out = []
    for (newer, older), gold in sorted(world.gold.items()):
        got = labelled.get((newer, older))
        if got == gold:
            continue
        n, o = st.order[newer], st.order[older]
        dense = 1 + int((st.sims[n, :n] > st.sims[n, o]).sum())
        if got is not None:
            cause = f"judged {got}"
        elif st.sims[n, o] < floor:
            cause = "below floor"
        else:
            cause = "beyond k"
        keyword = st.keyword_rank(newer, older)
        out.append(
            Miss(newer, older, gold, got or "-", float(st.sims[n, o]), dense, keyword, cause)
        )
    return tuple(out)


def floor_sweep(world: World, st: Standing, k: int = CANDIDATES) -> tuple[tuple[int, int], ...]:
    """For each of FLOORS: (candidate pairs, gold pairs among them) if each statement's
    candidates were its k most similar earlier ones at or above that floor."""
    gold = {(st.order[n], st.order[o]) for n, o in world.gold}
    out = []
    for floor in FLOORS:
        pairs = set()
        for n in range(len(st.keys)):
            best = sorted(range(n), key=lambda j: -st.sims[n, j])[:k]
            pairs |= {(n, j) for j in best if st.sims[n, j] >= floor}
        out.append((len(pairs), len(pairs & gold)))
    return tuple(out)


def why_table(results: list[Result]) -> None:
    """Causes of the misses per world, then every miss."""
    causes = ("below floor", "beyond k", "judged norel", "judged other")
    print("\n| world | gold pairs | right | " + " | ".join(causes) + " |")
    print("|---" * (3 + len(causes)) + "|")
    for r in results:
        counted = Counter(m.cause if m.cause in causes[:3] else "judged other" for m in r.why)
        n = len(r.named.world.gold)
        print(
            f"| {r.named.name} | {n} | {n - len(r.why)} | "
            + " | ".join(str(counted[c]) for c in causes)
            + " |"
        )
    print("\nthe similarity floor, top-k candidates: candidate pairs (gold pairs among them)")
    print("| world | gold pairs | " + " | ".join(f"floor {f}" for f in FLOORS) + " |")
    print("|---" * (2 + len(FLOORS)) + "|")
    for r in results:
        cells = " | ".join(f"{pairs} ({gold})" for pairs, gold in r.sweep)
        print(f"| {r.named.name} | {len(r.named.world.gold)} | {cells} |")
    totals = [
        tuple(sum(x) for x in zip(*col, strict=True))
        for col in zip(*(r.sweep for r in results), strict=True)
    ]
    print(
        "| all | "
        + str(sum(len(r.named.world.gold) for r in results))
        + " | "
        + " | ".join(f"{p} ({g})" for p, g in totals)
        + " |"
    )
    print("\n| world | newer → older | gold | given | cosine | dense rank | keyword rank | cause |")
    print("|---" * 8 + "|")
    for r in results:
        for m in r.why:
            print(
                f"| {r.named.name} | {m.newer} → {m.older} | {m.gold} | {m.predicted} "
                f"| {m.cosine:.2f} | {m.dense_rank} | {m.keyword_rank or '-'} | {m.cause} |"
            )


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


def qa_table(results: list[Result]) -> None:
    """As-of QA per world and reader version, side by side (plain top-k / subgraph with the
    classifier's edges / subgraph with the gold edges), then per role."""
    readers = list(results[0].qa)
    print(
        "\n| world | role | questions | "
        + " | ".join(f"{v} plain | {v} subgraph | {v} gold edges" for v in readers)
        + " |"
    )
    print("|---" * (3 + 3 * len(readers)) + "|")
    rows = [(r.named.name, ROLE[r.named.role], [r]) for r in results]
    rows += [
        (f"**{ROLE[role]}**", "", [r for r in results if r.named.role == role])
        for role in ROLE
        if any(r.named.role == role for r in results)
    ]
    for name, role, mine in rows:
        n = sum(r.questions for r in mine)
        cells = [sum(r.qa[v][i] for r in mine) for v in readers for i in range(3)]
        print(f"| {name} | {role} | {n} | " + " | ".join(f"{c}/{n}" for c in cells) + " |")


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


def left_out_refits(results: list[Result]) -> None:
    """Refit the relation model (its stored setting) on all tuning worlds but a fold, score the
    fold; for each fold, left out as the model was chosen (its `left_out`: one author's worlds
    since round 13, one world before). The rules whose verdict and signals it weighs were
    written with the tuning worlds in view, so this is an optimistic estimate: the held-back
    worlds decide."""
    from train_props_model import examples, fold_sets, lowo  # the training script beside this

    tuning = [r for r in results if r.named.role == "tuning"]
    if len(tuning) < 2:
        return
    about = load_model().about
    setting, folds = about["setting"], about.get("left_out", "0")
    data = [examples(r.named, list(r.seen)) for r in tuning]
    per_world = lowo(data, setting, None, fold_sets(data, folds))[1.0]
    what = "one author's worlds" if folds == "authors" else f"folds of worlds ({folds})"
    print(f"\nleaving {what} out (model refitted on the other tuning worlds, {setting}):")
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
    parser.add_argument("--worlds", help="only these worlds, comma-separated (world_bakery,...)")
    parser.add_argument("--k", type=int, default=10, help="anchors for the reader")
    parser.add_argument(
        "--reader",
        choices=(*READERS, "both"),
        default="v2",
        help="the QA reader's version (props_worlds.Reader); both: v2 and v1 on the same runs",
    )
    parser.add_argument(
        "--lowo",
        action="store_true",
        help="also refit the relation model leaving worlds out as it was chosen (by author)",
    )
    parser.add_argument(
        "--why", action="store_true", help="also list each gold pair not labelled right and why"
    )
    args = parser.parse_args()
    worlds = load_worlds(INDEX, tuple(args.roles.split(",")))
    if args.worlds:
        wanted = set(args.worlds.split(","))
        if unknown := wanted - {w.name for w in worlds}:
            parser.error(
                f"--worlds: {', '.join(sorted(unknown))} not among the {args.roles} worlds"
            )
        worlds = [w for w in worlds if w.name in wanted]
    print(__doc__.split("\n\n")[1].replace("\n", " "), "\n")
    with temp_store() as store, tempfile.TemporaryDirectory(prefix="gmq-") as tmp:
        readers = ("v2", "v1") if args.reader == "both" else (args.reader,)
        results = [evaluate(named, args.k, store, Path(tmp), args.why, readers) for named in worlds]
    table(results)
    if len(readers) > 1:
        qa_table(results)
    if args.why:
        why_table(results)
    for r in results:
        if r.missed:
            print(f"{r.named.name}: {r.missed} gold pairs never became candidates (missed)")
    for role in ROLE:
        pooled(results, role)
    if args.lowo:
        left_out_refits(results)


if __name__ == "__main__":
    main()
