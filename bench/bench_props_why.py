"""Why the subgraph answers an as-of question wrong: one row per miss, with its cause.

Every world of tests/fixtures/worlds.json (or those named) is ingested with its gold relation
labels (bench/props_worlds.GoldClassifier; `--edges offline` for the classifier's), so with
gold edges what remains is retrieval, expansion, status and the reader
(bench/props_worlds.Reader; `--reader v1` for round 5's). Per world: questions right with k
anchors and with every statement dated <= as-of as an anchor (k = MAX_K: retrieval and
expansion cannot lose anything there), and the subgraph nodes whose status (current or not)
differs from the one the gold edges give. For each question the reader gets wrong from the
k-anchor subgraph:

- evidence: the statements dated on or before the as-of date that are current by the gold
  edges (the status rule of graphmem/props/status.py) and that the reader, weighing them as it
  does (its judgement of a pair, similarity to the question and the option), reads as
  favouring the right option over the one it chose;
- cause, the first that applies:
  - `reader: no statement read as the answer`: no such statement exists; the detail shows the
    current statement closest to the right option, how the reader's judgement reads it
    against that option, and whether the subgraph holds it;
  - `anchors`: no evidence in the subgraph and none has an edge into an anchor; the best
    fused rank of one among the anchor candidates, with its dense and keyword ranks;
  - `expansion`: no evidence in the subgraph, but one has an edge into an anchor (dropped by
    the per-anchor cap);
  - `status: evidence not current`: evidence in the subgraph, none marked current there;
  - then the current node that speaks most against the right option: `status: superseded
    statement current` when the gold edges say it is not current, `reader: older current
    statement` when it is current by the gold edges too and older than the evidence,
    `reader: other current statement` otherwise (or `... of another world` with --together).

`--together` puts every world in one memory (about 630 statements), a larger haystack.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from bench_props_quality import INDEX, ingested  # noqa: E402
from common import temp_store  # noqa: E402
from props_worlds import (  # noqa: E402
    READERS,
    GoldClassifier,
    NamedWorld,
    Question,
    Reader,
    World,
    load_worlds,
    offline_classifier,
)

from graphmem.props import PropsMemory  # noqa: E402
from graphmem.props.classify import Classifier  # noqa: E402
from graphmem.props.hybrid import candidates  # noqa: E402
from graphmem.props.model import Proposition, checked_date, proposition_id  # noqa: E402
from graphmem.props.retrieve import MAX_K, Subgraph  # noqa: E402
from graphmem.store import Store  # noqa: E402


@dataclass(frozen=True)
class Miss:
    """One question the subgraph answers wrong, and why."""

    world: str
    question: Question
    chosen: int
    cause: str
    detail: str


class EdgeStatus:
    """Status as of a date from a complete list of relation edges, with the rule of
    graphmem/props/status.py and no bound: a reference for the subgraph's statuses."""

    def __init__(self, dates: dict[str, str], edges: Iterable[tuple[str, str, str]]) -> None:
        self.date = dates  # proposition → 'YYYY-MM-DD'
        self.into: dict[str, list[tuple[str, str]]] = {}
        for src, dst, label in edges:
            self.into.setdefault(dst, []).append((src, label))

    @classmethod
    def gold(cls, world: World) -> EdgeStatus:
        """By a world's gold labels; propositions named by their world keys."""
        dates = {p["key"]: p["date"] for p in world.propositions}
        return cls(dates, ((s, d, label) for (s, d), label in world.gold.items()))

    def _counts(self, src: str, day: str) -> bool:
        return self.date[src] <= day and not self.refuted(src, day)

    def refuted(self, key: str, day: str) -> bool:
        """Contradicted as of `day` by a statement that counts."""
        return any(
            label == "contradicts" and self._counts(src, day)
            for src, label in self.into.get(key, ())
        )

    def state(self, key: str, day: str) -> str:
        """ "updated", "contradicted" or "current" as of `day` (updated wins)."""
        labels = {label for src, label in self.into.get(key, ()) if self._counts(src, day)}
        if "updates" in labels:
            return "updated"
        return "contradicted" if "contradicts" in labels else "current"

    def current(self, key: str, day: str) -> bool:
        return self.state(key, day) == "current"


@dataclass(frozen=True)
class WorldWhy:
    """One world's misses and the checks beside them."""

    name: str
    questions: int
    misses: tuple[Miss, ...]
    everything: int  # right with every statement as an anchor (k = MAX_K), the same edges
    nodes: int  # subgraph nodes over all questions
    wrong_status: int  # ... whose status differs from the one the gold edges give


def diagnose(named: NamedWorld, ctx: PropsMemory, k: int, version: str = "v2") -> WorldWhy:
    """The misses of the subgraph on one world, each with its cause."""
    world = named.world
    reader, whole = Reader(ctx, k, version=version), Reader(ctx, MAX_K, version=version)
    texts = [p["text"] for p in world.propositions]
    reader.warm(
        [q.question for q in world.questions]
        + [o for q in world.questions for o in q.options]
        + texts
    )
    whole._vectors.update(reader._vectors)
    gold = EdgeStatus.gold(world)
    key_of = world.keys
    prop_of = {p["key"]: p for p in world.propositions}
    misses, everything, nodes, wrong = [], 0, 0, 0
    for q in world.questions:
        everything += whole.answer(q.question, q.date, q.options, True) == q.answer
        chosen = reader.answer(q.question, q.date, q.options, True)
        graph = reader._subgraph(q.question, q.date)
        mine = [n for n in graph.nodes if n.prop.id in key_of]
        nodes += len(mine)
        wrong += sum(
            (n.status.state == "current") != gold.current(key_of[n.prop.id], q.date) for n in mine
        )
        if chosen != q.answer:
            cause, detail = _cause(ctx, reader, world, gold, key_of, prop_of, q, chosen, graph, k)
            misses.append(Miss(named.name, q, chosen, cause, detail))
    n = len(world.questions)
    return WorldWhy(named.name, n, tuple(misses), everything, nodes, wrong)


def _push(reader: Reader, q: Question, chosen: int, texts: list[str], sources: list[str]):
    """What each statement adds to the right option over the chosen one, as the reader
    weighs it (Reader.speaks)."""
    props = [
        Proposition(f"s{i}", text, q.date, 0, source)
        for i, (text, source) in enumerate(zip(texts, sources, strict=True))
    ]
    speaks = reader.speaks(q.question, q.options, props)
    return [float(row[q.answer] - row[chosen]) for row in speaks]


def _evidence(reader: Reader, world: World, gold: EdgeStatus, q: Question, chosen: int):
    """Current statements (gold) dated <= as-of that the reader reads as favouring the right
    option over the chosen one."""
    props = [
        p for p in world.propositions if p["date"] <= q.date and gold.current(p["key"], q.date)
    ]
    if not props:
        return []
    push = _push(reader, q, chosen, [p["text"] for p in props], [p["source"] for p in props])
    return [p["key"] for p, net in zip(props, push, strict=True) if net > 0]


def _cause(ctx, reader, world, gold, key_of, prop_of, q, chosen, graph: Subgraph, k: int):
    evidence = _evidence(reader, world, gold, q, chosen)
    if not evidence:
        return _unread(reader, world, gold, q, key_of, graph)
    in_graph = {key_of.get(n.prop.id, f"other:{n.prop.id}"): n for n in graph.nodes}
    kept = [e for e in evidence if e in in_graph]
    if not kept:
        return _missing(ctx, reader, world, q, evidence, graph, k)
    if not any(in_graph[e].status.state == "current" for e in kept):
        return "status: evidence not current", f"{kept[0]} marked {in_graph[kept[0]].status.state}"
    return _reader(reader, gold, in_graph, prop_of, q, chosen, kept)


def _unread(reader, world, gold, q, key_of, graph):
    """No current statement favours the right option: how the reader reads the one closest
    to it (dated <= as-of, current by the gold edges)."""
    props = [
        p for p in world.propositions if p["date"] <= q.date and gold.current(p["key"], q.date)
    ]
    sims = reader._embed([q.options[q.answer]]) @ reader._embed([p["text"] for p in props]).T
    i = int(np.argmax(sims[0]))
    best = props[i]
    mine = Proposition("best", best["text"], best["date"], 0, best["source"])
    said = float(reader.speaks(q.question, q.options, [mine])[0, q.answer])
    label = "for it" if said > 0 else "against it" if said < 0 else "as nothing"
    where = (
        "in the subgraph"
        if best["key"] in {key_of.get(n.prop.id) for n in graph.nodes}
        else "not in the subgraph"
    )
    return "reader: no statement read as the answer", (
        f"closest: {best['key']} {best['text'][:60]!r} read {label}, {where}"
    )


def _missing(ctx, reader, world, q, evidence, graph, k):
    """No evidence in the subgraph: linked to an anchor (dropped by the caps) or not found."""
    _, as_of = checked_date(q.date, "as_of")
    rows = ctx.store.read(
        "props.with_incoming",
        ids=[n.prop.id for n in graph.nodes if n.is_anchor],
        as_of=as_of,
        members=[],
        supporters=True,
        cap=10**6,
        targets=[],
    )
    sources = {world.keys.get(e["src"]) for row in rows for e in row["incoming"]}
    linked = [e for e in evidence if e in sources]
    if linked:
        return "expansion", f"{linked[0]} has an edge into an anchor"
    vector = reader._embed([q.question])[0]
    found = candidates(ctx, vector, q.question, as_of, 10_000)
    rank = {c.id: (i, c) for i, c in enumerate(found, start=1)}
    best = []
    for e in evidence:
        p = next(x for x in world.propositions if x["key"] == e)
        i, c = rank.get(proposition_id(p["text"], p["date"]), (None, None))
        if i is not None:
            best.append((i, e, c.dense_rank, c.keyword_rank))
    if not best:
        return "anchors", f"evidence {evidence[:3]} not found by either channel"
    i, e, d, kw = min(best)
    return "anchors", f"{e}: fused rank {i} (dense {d}, keyword {kw}), k={k}"


def _reader(reader, gold, in_graph, prop_of, q, chosen, kept):
    nodes = [(k, n) for k, n in in_graph.items() if n.status.state == "current"]
    push = _push(
        reader, q, chosen, [n.prop.text for _, n in nodes], [n.prop.source for _, n in nodes]
    )
    net, key = min(zip(push, [k for k, _ in nodes], strict=True))
    worst = in_graph[key].prop
    if key.startswith("other:"):
        cause = "reader: statement of another world"
    elif not gold.current(key, q.date):
        cause = "status: superseded statement current"
    elif worst.date < max(prop_of[e]["date"] for e in kept):
        cause = "reader: older current statement"
    else:
        cause = "reader: other current statement"
    return cause, f"{key} ({worst.date}) {worst.text[:70]!r} {net:.2f}; evidence {kept[:3]}"


def _classifier(named: NamedWorld, edges: str) -> Classifier:
    return GoldClassifier(named.world) if edges == "gold" else offline_classifier()


def _report(why: WorldWhy) -> WorldWhy:
    right = why.questions - len(why.misses)
    print(f"{why.name}: {right}/{why.questions}", flush=True)
    return why


def merged(worlds: list[NamedWorld]) -> World:
    """Every world's propositions and gold labels in one (keys prefixed by the world's name),
    in date order."""
    props = sorted(
        ({**p, "key": f"{w.name}:{p['key']}"} for w in worlds for p in w.world.propositions),
        key=lambda p: p["date"],
    )
    gold = {
        (f"{w.name}:{s}", f"{w.name}:{d}"): label
        for w in worlds
        for (s, d), label in w.world.gold.items()
    }
    return World(tuple(props), gold, ())


def _together(store: Store, tmp: Path, worlds: list[NamedWorld], edges: str, k: int, version: str):
    """All worlds in one memory: each world's questions among every world's statements."""
    everything = NamedWorld("all", "tuning", merged(worlds))
    ctx = ingested(store, tmp / "all", everything.world, _classifier(everything, edges))
    found = [_report(diagnose(named, ctx, k, version)) for named in worlds]
    ctx.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worlds", default="", help="world names, comma-separated (all)")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument(
        "--edges", choices=("gold", "offline"), default="gold", help="whose relation edges"
    )
    parser.add_argument(
        "--reader", choices=READERS, default="v2", help="the reader's version (Reader)"
    )
    parser.add_argument(
        "--together", action="store_true", help="all worlds in one memory (a larger haystack)"
    )
    args = parser.parse_args()
    worlds = load_worlds(INDEX)
    if args.worlds:
        wanted = set(args.worlds.split(","))
        worlds = [w for w in worlds if w.name in wanted]
    with temp_store() as store, tempfile.TemporaryDirectory(prefix="gmw-") as tmp:
        if args.together:
            found = _together(store, Path(tmp), worlds, args.edges, args.k, args.reader)
        else:
            found = [
                _alone(store, Path(tmp), named, args.edges, args.k, args.reader) for named in worlds
            ]
    table(found, args.k)


def _alone(
    store: Store, tmp: Path, named: NamedWorld, edges: str, k: int, version: str
) -> WorldWhy:
    ctx = ingested(store, tmp / named.name, named.world, _classifier(named, edges))
    why = _report(diagnose(named, ctx, k, version))
    ctx.close()
    store.write("admin.wipe")
    return why


def table(found: list[WorldWhy], k: int) -> None:
    """Per world, every miss with its cause, and the counts by cause."""
    print(
        f"\n| world | QA, k={k} | QA, k={MAX_K} (every statement) "
        "| subgraph nodes | status differs from gold |"
    )
    print("|---|---|---|---|---|")
    for w in found:
        print(
            f"| {w.name} | {w.questions - len(w.misses)}/{w.questions} "
            f"| {w.everything}/{w.questions} | {w.nodes} | {w.wrong_status} |"
        )
    total = sum(w.questions for w in found)
    right = total - sum(len(w.misses) for w in found)
    print(
        f"| all | {right}/{total} | {sum(w.everything for w in found)}/{total} "
        f"| {sum(w.nodes for w in found)} | {sum(w.wrong_status for w in found)} |"
    )
    misses = [m for w in found for m in w.misses]
    print("\n| world | as of | question | right | chosen | cause | detail |")
    print("|---|---|---|---|---|---|---|")
    for m in misses:
        q = m.question
        print(
            f"| {m.world} | {q.date} | {q.question} | {q.options[q.answer][:50]} "
            f"| {q.options[m.chosen][:50]} | {m.cause} | {m.detail} |"
        )
    print("\n| cause | questions |")
    print("|---|---|")
    for cause, n in Counter(m.cause for m in misses).most_common():
        print(f"| {cause} | {n} |")
    print(f"| total wrong | {len(misses)} of {total} |")


if __name__ == "__main__":
    main()
