"""Propositions benchmark: ingestion throughput, subgraph latency, and answer quality.

1. Generates N synthetic propositions from templates (fictional companies, towns, products and
   teams whose values change over time, restated by other sources, sometimes denied), in date
   order, so the relation classifier finds real updates, supports and contradictions.
2. Embeds them with the model (timed alone: the model is the limit).
3. Stores them with precomputed embeddings twice in a throwaway embedded store: without
   relating (graph + vector index work alone), then with the offline classifier relating each
   new proposition to its 20 most similar earlier ones. "With embedding" is measured by a real
   end-to-end run over the first --e2e propositions (default 10^4): add_propositions embedding
   them itself, storing and relating, in a fresh store; the combination of the separate
   timings at N is printed beside it as an estimate.
4. Subgraph latency (k=10, expand) once 10^4 and once 10^5 (or N) propositions are stored,
   for dated and undated questions, without the question embedding, which is timed apart.
5. Quality on tests/fixtures/props_world.json: the reader picks the option most similar to
   the propositions current as of the question's date (relations used) vs plain top-k.
6. With an LLM configured (OPENAI_BASE_URL), the LLM answers each fixture question from the
   rendered subgraph (relations and statuses in words) and from plain top-k context (the same
   anchors' dates and statements only); accuracy of both. Skipped, with a message, otherwise.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import percentiles_ms, temp_store  # noqa: E402
from props_worlds import GoldClassifier, Question, Reader, World  # noqa: E402

from graphmem.config import Settings  # noqa: E402
from graphmem.embed import Embedder  # noqa: E402
from graphmem.errors import LLMError  # noqa: E402
from graphmem.llm import LLM  # noqa: E402
from graphmem.props import PropsMemory, add_propositions, counts, render, subgraph  # noqa: E402
from graphmem.props.retrieve import Subgraph, subgraph_for_vector  # noqa: E402
from graphmem.services import open_props  # noqa: E402

WORLD = Path(__file__).parent.parent / "tests" / "fixtures" / "props_world.json"


def words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


SYLLABLES = words("ka vel mor dun bre sta lin ora quil tes har no ven dal fir gos ul ema rik san")
FIRST = words("Marta Idris Sana Tomas Anika Pella Orrin Lena Jonas Mira Oskar Ida Ravi Noor")
LAST = words("Velkova Okonjo Brightwater Reiner Solberg Danvers Maddox Holm Varga Ilves Tarn")
SOURCES = words("herald gazette wire bulletin register review")


def lower_first(text: str) -> str:
    """'The x' → 'the x' inside a sentence; names keep their capital."""
    return "t" + text[1:] if text.startswith("The ") else text


def name(rng: random.Random, parts: int = 3) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(parts)).capitalize()


def person(rng: random.Random) -> str:
    # mostly distinct people, as in real news: a name shared across towns is rare
    return f"{rng.choice(FIRST)} {name(rng, 2)}{rng.choice(LAST).lower()}"


def synthetic(n: int, seed: int = 0) -> list[dict[str, str]]:
    """n dated propositions about attributes whose values change over time, in date order."""
    rng = random.Random(seed)
    facts = []  # (day, text)
    start = np.datetime64("2000-01-01")
    while len(facts) < n:
        kind = rng.randrange(4)
        entity = name(rng)
        if kind == 0:
            frames = [
                (f"{entity} Dynamics employs {{}} people.", lambda: f"{rng.randrange(50, 9000):,}"),
                (f"The chief executive of {entity} Dynamics is {{}}.", lambda: person(rng)),
            ]
        elif kind == 1:
            frames = [
                (f"The population of {entity} is {{}}.", lambda: f"{rng.randrange(900, 400000):,}"),
                (f"The mayor of {entity} is {{}}.", lambda: person(rng)),
            ]
        elif kind == 2:
            frames = [
                (f"The {entity} kettle costs {{}} dollars.", lambda: str(rng.randrange(9, 400)))
            ]
        else:
            frames = [(f"{{}} is the head coach of the {entity} Ravens.", lambda: person(rng))]
        day = rng.randrange(0, 8000)
        for template, value in frames:
            when = day
            for _ in range(rng.randrange(2, 5)):
                text = template.format(value())
                facts.append((when, text))
                roll = rng.random()
                if roll < 0.3:  # another source restates it
                    facts.append(
                        (
                            when + rng.randrange(1, 30),
                            f"The {rng.choice(SOURCES)} reports that {text[0].lower()}{text[1:]}",
                        )
                    )
                elif roll < 0.4:  # a false claim, denied soon after
                    claim = template.format(value())
                    facts.append((when + 5, f"A rumour claimed that {lower_first(claim)}"))
                    facts.append((when + 6, f"It is false that {lower_first(claim)}"))
                when += rng.randrange(60, 1500)
    facts.sort(key=lambda f: f[0])
    return [
        {"text": text, "date": str(start + np.timedelta64(day, "D")), "source": "synthetic"}
        for day, text in facts[:n]
    ]


def questions(items: list[dict[str, str]], count: int, seed: int = 1) -> list[tuple[str, str]]:
    """(question text, as-of date or '') pairs built from stored statements."""
    rng = random.Random(seed)
    out = []
    for item in rng.sample(items, min(count, len(items))):
        words = item["text"].rstrip(".").split()
        text = "What do we know about " + lower_first(" ".join(words[: max(3, len(words) - 2)]))
        out.append((text, item["date"] if rng.random() < 0.5 else ""))
    return out


def rate(count: int, seconds: float) -> str:
    return f"{count / seconds:,.0f} props/s ({count} in {seconds:.1f} s)"


def ingest(ctx: PropsMemory, items, vecs, relate: bool, stops: list[int], batch: int, probe):
    """Store items in date order with precomputed vectors; call probe() at each stop size."""
    spent = 0.0
    done = 0
    for stop in [*stops, len(items)]:
        if stop <= done:
            continue
        t = time.perf_counter()
        for start in range(done, stop, batch * 8):
            end = min(stop, start + batch * 8)
            add_propositions(
                ctx, items[start:end], embeddings=vecs[start:end], relate=relate, batch_size=batch
            )
        spent += time.perf_counter() - t
        done = stop
        if probe is not None and stop in stops:
            probe(stop)
    return spent


def latency(ctx: PropsMemory, qs, qvecs, size: int) -> None:
    samples = []
    sizes = []
    for (text, as_of), vec in zip(qs, qvecs, strict=True):
        t = time.perf_counter()
        graph = subgraph_for_vector(ctx, vec, text, as_of or None, k=10, expand=True)
        samples.append(time.perf_counter() - t)
        sizes.append(len(graph.nodes))
    print(
        f"  subgraph at {size:>7,} propositions (k=10, expand, {len(qs)} questions, "
        f"{np.mean(sizes):.1f} nodes on average): {percentiles_ms(samples)}"
    )


def quality(k: int) -> None:
    world = World.load(WORLD)
    with temp_store() as store, tempfile.TemporaryDirectory(prefix="gmq-") as tmp:
        for label, classifier in (("offline", None), ("gold", GoldClassifier(world))):
            store.write("admin.wipe")
            ctx = open_props(
                Settings(home=Path(tmp) / label), store, llm=None, classifier=classifier
            )
            add_propositions(ctx, world.items())
            reader = Reader(ctx, k)
            reader.warm(
                [q.question for q in world.questions]
                + [o for q in world.questions for o in q.options]
            )
            plain = sum(
                reader.answer(q.question, q.date, q.options, False) == q.answer
                for q in world.questions
            )
            related = sum(
                reader.answer(q.question, q.date, q.options, True) == q.answer
                for q in world.questions
            )
            n = len(world.questions)
            if label == "offline":
                print(f"  plain top-{k}: {plain}/{n} = {plain / n:.2f}")
            print(f"  with relations ({label} labels): {related}/{n} = {related / n:.2f}")
            ctx.close()


ASK = (
    "You answer a multiple-choice question about a fictional world using only the context "
    "below: dated statements, possibly with how they relate to each other. The question is "
    'asked on {date}: answer what was true then. Reply with JSON {{"answer": <option '
    "number>}}.\n\nContext:\n{context}\n\nQuestion: {question}\nOptions:\n{options}"
)


def plain_context(graph: Subgraph) -> str:
    """The anchors alone, in date order: no relations, no statuses."""
    anchors = sorted(
        (n for n in graph.nodes if n.is_anchor), key=lambda n: (n.prop.date, n.prop.id)
    )
    return "\n\n".join(f"Date: {n.prop.date}\nStatement: {n.prop.text}" for n in anchors)


def llm_answer(llm: LLM, question: Question, context: str) -> int | None:
    """The option the LLM picks, or None when it answers out of range or not at all."""
    options = "\n".join(f"{i}. {o}" for i, o in enumerate(question.options))
    prompt = ASK.format(
        date=question.date, context=context, question=question.question, options=options
    )
    try:
        reply = llm.json([{"role": "user", "content": prompt}])
    except LLMError as error:
        print(f"    {question.question!r}: {error}")
        return None
    answer = reply.get("answer") if isinstance(reply, dict) else None
    return answer if isinstance(answer, int) and 0 <= answer < len(question.options) else None


def llm_quality(k: int) -> None:
    """LLM accuracy on the fixture questions with rendered subgraph vs plain top-k context."""
    settings = Settings.from_env()
    if not settings.llm_configured:
        print("  LLM quality: skipped, no LLM configured (set OPENAI_BASE_URL to run it)")
        return
    world = World.load(WORLD)
    with temp_store() as store, tempfile.TemporaryDirectory(prefix="gml-") as tmp:
        # relations labelled by the configured LLM's classifier, as in production
        ctx = open_props(settings.with_overrides(home=Path(tmp)), store)
        add_propositions(ctx, world.items())
        rendered = plain = 0
        for q in world.questions:
            graph = subgraph(ctx, q.question, q.date, k=k)
            rendered += llm_answer(ctx.llm, q, render(graph)) == q.answer
            plain += llm_answer(ctx.llm, q, plain_context(graph)) == q.answer
        ctx.close()
    n = len(world.questions)
    print(f"  LLM ({settings.llm_model}), plain top-{k} context: {plain}/{n} = {plain / n:.2f}")
    print(
        f"  LLM ({settings.llm_model}), rendered subgraph:    {rendered}/{n} = {rendered / n:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=100_000, help="synthetic propositions")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--e2e", type=int, default=10_000, help="end-to-end sample size")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    parser.add_argument("--skip-quality", action="store_true")
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    items = synthetic(args.n)
    embedder = Embedder()
    embedder.encode(["warm up"])
    print(f"{len(items):,} synthetic propositions, {items[0]['date']} .. {items[-1]['date']}")
    t = time.perf_counter()
    vecs = embedder.encode([p["text"] for p in items])
    embed_s = time.perf_counter() - t
    print(f"embedding alone: {rate(len(items), embed_s)}")
    qs = questions(items, args.queries)
    t = time.perf_counter()
    qvecs = [embedder.encode_one(text) for text, _ in qs]
    print(
        f"question embedding, one at a time: {len(qs) / (time.perf_counter() - t):,.0f}/s, "
        f"{(time.perf_counter() - t) / len(qs) * 1000:.1f} ms each"
    )
    stops = [s for s in (10_000, 100_000) if s <= len(items)]
    with temp_store() as store, tempfile.TemporaryDirectory(prefix="gmp-") as tmp:
        ctx = open_props(Settings(home=Path(tmp) / "a"), store, llm=None, embedder=embedder)
        alone = ingest(ctx, items, vecs, False, [], args.batch, None)
        print(f"graph + vector index alone (no relating): {rate(len(items), alone)}")
        ctx.close()
        store.write("admin.wipe")
        ctx = open_props(Settings(home=Path(tmp) / "b"), store, llm=None, embedder=embedder)
        related = ingest(
            ctx, items, vecs, True, stops, args.batch, lambda size: latency(ctx, qs, qvecs, size)
        )
        print(f"graph + index + offline relating: {rate(len(items), related)}; {counts(ctx)}")
        combined = len(items) / (embed_s + related)
        print(f"with embedding, estimated from the separate timings: {combined:,.0f} props/s")
        ctx.close()
        store.write("admin.wipe")
        ctx = open_props(Settings(home=Path(tmp) / "c"), store, llm=None, embedder=embedder)
        sample = items[: args.e2e]
        t = time.perf_counter()
        for start in range(0, len(sample), args.batch * 8):  # calls as large as ingest()'s
            add_propositions(ctx, sample[start : start + args.batch * 8], batch_size=args.batch)
        measured = rate(len(sample), time.perf_counter() - t)
        print(
            f"with embedding, measured end to end (add_propositions embedding, storing and "
            f"relating {len(sample):,} itself): {measured}"
        )
        ctx.close()
    if not args.skip_quality:
        print(f"quality on {WORLD.name}:")
        quality(10)
        llm_quality(10)


if __name__ == "__main__":
    main()
