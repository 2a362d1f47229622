"""Retrieval quality on a news-like corpus: is the answer in the k=10 context, per channel?

Data: bench/newsworld.py generates ~1,100 dated articles about fictional companies, towns,
clubs and central banks (names and numbers that change over time, a third of the facts stated
without the name) and as-of questions whose answer (a name or a number) is known. They are
ingested as `graphmem ingest-docs` does without an LLM: add_document per article, which splits
it into sentences (a sentence that says "the company" loses the name), relations by the offline
classifier. A question counts as answered when its answer appears (as a whole word)
in a proposition of the subgraph (anchors and neighbours) for its as-of date; the two
"curren" columns only in a proposition the subgraph calls current as of that date (one that a
reader who trusts the Status line would use: a false UPDATES edge hides the answer there); the
two "500tok" columns count it in the rendered context cut to BUDGET tokens
(graphmem/props/render.py drops whole propositions, the least useful first). Then each row's
mean subgraph size: nodes, tokens of the statements, tokens of the whole rendered context
(no budget), and the p50 / p95 of a subgraph call.

Questions: "attribute" (who runs X, how many people live in Y, as of a date) and "reverse"
(which company named <person> chief executive, which town has <number> residents: a name or
number only the words of the text carry).

Tuned on: the `tuning` half of the questions of the seed-11 corpus (entities whose name hashes
even). The fusion settings (RRF K, keyword weight) were swept on that half (--sweep): nothing
beat the standard K = 60 with equal weights by more than a question or two, so the standard
was kept; in round 28 every setting is within 4 questions of it, the standard lowest, and it
is still kept. Round 28 swept there too how an anchor's document statement is chosen:
similarity to the question less REPEAT_PENALTY times its similarity to what is shown above
REPEAT_FROM; 105-107 of 120 from 2 to 5 times above 0.4-0.5, 97 by similarity alone. The
`held_back` half (the other entities) was only scored with the chosen settings, and so was a
second corpus (--seed 12: other entities, names, numbers and dates), both halves of which are
held back. Round 29's shorter rendered blocks (the 500tok columns) were written, not swept.
The bounds (neighbours and document statements per anchor, incoming edges) were set
beforehand, not tuned. Only held-back figures say how well the settings generalise, and only
a real corpus (CLARK-News, checked independently) says how well they work on real news.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import embed_precision, temp_store  # noqa: E402
from newsworld import Corpus, Question, generate  # noqa: E402

from graphmem.config import Settings  # noqa: E402
from graphmem.embed import Embedder  # noqa: E402
from graphmem.props import PropsMemory, add_document, counts, render, retrieve  # noqa: E402
from graphmem.props.hybrid import FUSION, Fusion  # noqa: E402
from graphmem.services import open_props  # noqa: E402
from graphmem.tokens import estimate_tokens  # noqa: E402

HALVES = ("tuning", "held_back")
FORMS = ("all", "attribute", "reverse")
BUDGET = 500  # tokens: the rendered context cut to what a small prompt affords


@dataclass(frozen=True)
class Setting:
    """One retrieval configuration."""

    name: str
    channels: str
    expand: bool
    fusion: Fusion = FUSION
    siblings: int = retrieve.SIBLINGS  # document statements per anchor
    repeat_from: float = retrieve.REPEAT_FROM  # their ranking: repeats discounted above this
    repeat_penalty: float = retrieve.REPEAT_PENALTY  # by this much (0: similarity alone)


def answered(answer: str, texts: Sequence[str]) -> bool:
    """The answer appears as a whole word or number in one of the texts."""
    pattern = re.compile(r"(?<![\w.,])" + re.escape(answer) + r"(?![\w]|[.,]\d)")
    return any(pattern.search(t) for t in texts)


@dataclass(frozen=True)
class Scored:
    """What one setting gave over the questions."""

    hits: dict[tuple[str, str], list[int]]  # (form, half) → [answered, asked]
    nodes: float = 0.0  # mean subgraph size
    tokens: float = 0.0  # mean tokens of its statements' text (joined statements cost more)
    context: float = 0.0  # mean tokens of its rendered context, no budget
    p50: float = 0.0  # ms per subgraph call, the question already embedded
    p95: float = 0.0


def score(
    ctx: PropsMemory, questions: Sequence[Question], vecs, setting: Setting, k: int
) -> Scored:
    """How often the answer is in the subgraph and in its rendered context cut to BUDGET, and
    what the subgraph costs."""
    retrieve.SIBLINGS = setting.siblings  # the module's bound, for a row without it
    retrieve.REPEAT_FROM, retrieve.REPEAT_PENALTY = setting.repeat_from, setting.repeat_penalty
    hits: dict[tuple[str, str], list[int]] = {}
    sizes, tokens, rendered, took = [], [], [], []
    for q, vec in zip(questions, vecs, strict=True):
        started = time.perf_counter()
        graph = retrieve.subgraph_for_vector(
            ctx,
            vec,
            q.question,
            q.as_of,
            k,
            setting.expand,
            channels=setting.channels,
            fusion=setting.fusion,
        )
        took.append(1000 * (time.perf_counter() - started))
        sizes.append(len(graph.nodes))
        tokens.append(sum(estimate_tokens(n.prop.text) for n in graph.nodes))
        rendered.append(estimate_tokens(render(graph)))
        for key in ((q.form, q.half), ("all", q.half)):
            cell = hits.setdefault(key, [0, 0])
            cell[0] += answered(q.answer, [n.prop.text for n in graph.nodes])
            cell[1] += 1
        cell = hits.setdefault(("current", q.half), [0, 0])
        cell[0] += answered(q.answer, [n.prop.text for n in graph.nodes if _current(n)])
        cell[1] += 1
        cell = hits.setdefault(("budget", q.half), [0, 0])
        cell[0] += answered(q.answer, [render(graph, BUDGET)])
        cell[1] += 1
    p50, p95 = np.percentile(took, [50, 95]) if took else (0.0, 0.0)
    mean = [float(np.mean(x)) if x else 0.0 for x in (sizes, tokens, rendered)]
    return Scored(hits, *mean, p50=float(p50), p95=float(p95))


def _current(node: retrieve.Node) -> bool:
    return node.status.state == "current"


def line(name: str, got: Scored) -> str:
    cells = []
    for form in (*FORMS, "current", "budget"):
        for half in HALVES:
            hit, asked = got.hits.get((form, half), (0, 0))
            cells.append(f"{hit / asked:6.1%}" if asked else "-")
    cells_text = " ".join(f"{c:>9}" for c in cells)
    return (
        f"  {name:<30} {cells_text}  {got.nodes:5.1f} {got.tokens:7.0f} {got.context:7.0f} "
        f"{got.p50:6.1f} {got.p95:6.1f}"
    )


def ceiling(corpus: Corpus, ctx: PropsMemory) -> dict:
    """Questions whose answer is in some stored sentence dated on or before the as-of date."""
    rows = ctx.store.read(
        "props.filtered", source=None, start=None, end=None, contains=None, offset=0, limit=10**7
    )
    hits: dict[tuple[str, str], list[int]] = {}
    for q in corpus.questions:
        texts = [r["text"] for r in rows if r["date"] <= q.as_of]
        for key in ((q.form, q.half), ("all", q.half)):
            cell = hits.setdefault(key, [0, 0])
            cell[0] += answered(q.answer, texts)
            cell[1] += 1
    return hits


def sweep(ctx: PropsMemory, corpus: Corpus, vecs, k: int) -> None:
    """Fusion settings and the document statements' repeat discount, on the tuning half only."""
    tuning = [i for i, q in enumerate(corpus.questions) if q.half == "tuning"]
    qs = [corpus.questions[i] for i in tuning]
    qv = vecs[tuning]
    print("sweep on the tuning half (hybrid, expanded): all / attribute / reverse questions")
    for rrf_k in (5, 10, 20, 60):
        for weight in (0.3, 0.5, 0.7, 1.0):
            s = Setting("", "hybrid", True, Fusion(rrf_k, 1.0, weight))
            got = score(ctx, qs, qv, s, k)
            rates = [got.hits[(f, "tuning")][0] / got.hits[(f, "tuning")][1] for f in FORMS]
            print(
                f"  K={rrf_k:<3} keyword weight {weight:<4}: "
                + " / ".join(f"{r:.1%}" for r in rates)
                + f"  ({got.nodes:.1f} nodes)"
            )
    print("sweep on the tuning half (hybrid, expanded): document statements' repeat discount")
    for repeat_from in (0.4, 0.5, 0.6):
        for penalty in (0.0, 1.0, 2.0, 3.0, 5.0):
            s = Setting("", "hybrid", True, repeat_from=repeat_from, repeat_penalty=penalty)
            got = score(ctx, qs, qv, s, k)
            rates = [got.hits[(f, "tuning")][0] / got.hits[(f, "tuning")][1] for f in FORMS]
            print(
                f"  above {repeat_from} times {penalty:<3}: "
                + " / ".join(f"{r:.1%}" for r in rates)
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--sweep", action="store_true", help="tune on the tuning half")
    args = parser.parse_args()
    corpus = generate(args.seed)
    embedder = Embedder(precision=embed_precision())
    with temp_store() as store, tempfile.TemporaryDirectory(prefix="gmr-") as tmp:
        ctx = open_props(Settings(home=Path(tmp)), store, llm=None, embedder=embedder)
        started = time.perf_counter()
        for doc in corpus.documents:
            add_document(ctx, doc["text"], doc["date"], doc["source"])
        print(
            f"news-like corpus (seed {args.seed}): {len(corpus.documents)} articles, "
            f"{counts(ctx)}, ingested in {time.perf_counter() - started:.0f} s"
        )
        vecs = embedder.encode([q.question for q in corpus.questions])
        if args.sweep:
            sweep(ctx, corpus, vecs, args.k)
        heads = [f"{f[:6]}/{h[:4]}" for f in (*FORMS, "curren", f"{BUDGET}tok") for h in HALVES]
        print(f"answer in the k={args.k} context (share of questions)")
        columns = " ".join(f"{h:>9}" for h in heads)
        print(f"  {'':<30} {columns}  nodes  tokens context  p50 ms  p95 ms")
        print(line("answer in a sentence dated <= as-of", Scored(ceiling(corpus, ctx))))
        for setting in (
            Setting("dense only, no expansion", "dense", False),
            Setting("dense only, expanded", "dense", True),
            Setting("keyword only, expanded", "keyword", True),
            Setting("hybrid, no expansion", "hybrid", False),
            Setting("hybrid, relations only", "hybrid", True, siblings=0),
            Setting("hybrid, expanded (default)", "hybrid", True),
            Setting("  document statement by similarity", "hybrid", True, repeat_penalty=0.0),
            Setting("  with RRF K=5, keyword weight 0.5", "hybrid", True, Fusion(5.0, 1.0, 0.5)),
        ):
            print(line(setting.name, score(ctx, corpus.questions, vecs, setting, args.k)))
        ctx.close()


if __name__ == "__main__":
    main()
