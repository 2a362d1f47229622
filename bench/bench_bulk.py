"""Bulk import benchmark: documents end to end against the embedding model alone, in one run.

1. Generates news-like articles holding --sentences sentences (bench/newsdocs.py) and finds
   the propositions the offline import will store: their sentences, each distinct one once.
2. The model alone embeds exactly those sentences (one encode call, as fast as it goes), before
   and after the import; their mean rate is the yardstick.
3. The bulk import (graphmem.props.bulk.add_documents, no LLM: sentence splitting and the
   offline relation classifier) stores every article into a fresh embedded store: extraction,
   embedding, relating, writing and indexing. Propositions/s end to end, and the ratio to the
   model's rate (goal >= 0.8). CPU seconds are reported too (this process, and the store's
   server process), since on a shared machine wall times move with other work: the CPU ratio
   (the model's seconds over everything's) is what the import costs beside the model.
4. Running the import again: every document is skipped (resumability costs one read).
5. For scale, the first --one-by-one articles added one call each (add_document), as
   `ingest-docs` did before the bulk path.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from newsdocs import documents  # noqa: E402

from graphmem.config import Settings  # noqa: E402
from graphmem.props import add_document, counts  # noqa: E402
from graphmem.props.bulk import add_documents  # noqa: E402
from graphmem.props.extract import split_into_propositions  # noqa: E402
from graphmem.props.model import proposition_id  # noqa: E402
from graphmem.services import open_props  # noqa: E402
from graphmem.store import open_store  # noqa: E402
from graphmem.store.server_process import read_pid  # noqa: E402


@dataclass(frozen=True)
class Spent:
    """Wall and CPU seconds of one step: this process (every thread), the store's server."""

    wall: float
    cpu: float
    server: float


class Clock:
    """Measures steps in wall time and CPU time, the store server's included."""

    def __init__(self, data_dir: Path) -> None:
        self.server_pid = read_pid(data_dir)

    def _cpu(self) -> tuple[float, float, float]:
        own = resource.getrusage(resource.RUSAGE_SELF)
        return time.perf_counter(), own.ru_utime + own.ru_stime, self._server_cpu()

    def _server_cpu(self) -> float:
        if self.server_pid is None:
            return 0.0
        fields = Path(f"/proc/{self.server_pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def run(self, step) -> tuple[object, Spent]:
        before = self._cpu()
        result = step()
        after = self._cpu()
        return result, Spent(*(b - a for a, b in zip(before, after, strict=True)))


def sentences_stored(docs: list[dict[str, str]]) -> list[str]:
    """The texts of the propositions the offline import stores, each distinct one once."""
    seen: dict[str, str] = {}
    for doc in docs:
        for prop in split_into_propositions(doc["text"], doc["date"]):
            seen.setdefault(proposition_id(prop["text"], prop["date"]), prop["text"])
    return list(seen.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=10_000)
    parser.add_argument("--one-by-one", type=int, default=300, help="articles, for scale")
    args = parser.parse_args()
    docs = documents(args.sentences)
    texts = sentences_stored(docs)
    chars = sum(len(t) for t in texts) / len(texts)
    print(
        f"corpus: {len(docs):,} articles, {len(texts):,} distinct sentences "
        f"({chars:.0f} characters on average)"
    )
    with tempfile.TemporaryDirectory(prefix="gmbulk-") as tmp:
        data = Path(tmp) / "db"
        store = open_store(f"falkordb+embedded://{data}", Settings())
        clock = Clock(data)
        ctx = open_props(Settings(home=Path(tmp)), store, llm=None)
        ctx.embedder.encode(texts[:64])  # load the model and warm it up
        _, model_before = clock.run(lambda: ctx.embedder.encode(texts))
        report, bulk = clock.run(lambda: add_documents(ctx, docs))
        _, model_after = clock.run(lambda: ctx.embedder.encode(texts))
        again, rerun = clock.run(lambda: add_documents(ctx, docs))
        stored = counts(ctx)
        assert report.added == len(texts) == stored["propositions"], (report, stored)
        assert again.skipped == len(docs) and again.added == 0
        model_rate = len(texts) / ((model_before.wall + model_after.wall) / 2)
        model_cpu = (model_before.cpu + model_after.cpu) / 2
        rate = report.added / bulk.wall
        rates = [len(texts) / spent.wall for spent in (model_before, model_after)]
        print(
            f"model alone: {model_rate:,.0f} sentences/s (before {rates[0]:,.0f}, after "
            f"{rates[1]:,.0f}); {model_cpu:.1f} CPU s"
        )
        print(
            f"bulk import: {rate:,.0f} propositions/s, {len(docs) / bulk.wall:,.1f} articles/s "
            f"({bulk.wall:.1f} s; {report.relations:,} relation edges); "
            f"{bulk.cpu:.1f} CPU s here + {bulk.server:.1f} in the store's server"
        )
        print(
            f"ratio to the model: {rate / model_rate:.2f} by wall time, "
            f"{model_cpu / (bulk.cpu + bulk.server):.2f} by CPU time (goal >= 0.8)"
        )
        print(f"again: {again.skipped:,} articles skipped in {rerun.wall * 1000:.0f} ms")
        ctx.close()
        if args.one_by_one:
            single = one_by_one(store, Path(tmp), docs[: args.one_by_one], clock)
            print(
                f"one by one (the first {args.one_by_one} articles, add_document each): "
                f"{single:,.0f} propositions/s, {single / model_rate:.2f} of the model's "
                "rate"
            )
        store.close()


def one_by_one(store, home: Path, docs: list[dict[str, str]], clock: Clock) -> float:
    """Propositions/s of the same articles, one add_document call each, into an emptied store."""
    store.write("admin.wipe")
    ctx = open_props(Settings(home=home / "single"), store, llm=None)

    def each() -> int:
        return sum(add_document(ctx, d["text"], d["date"], d.get("source")).added for d in docs)

    added, spent = clock.run(each)
    ctx.close()
    return added / spent.wall


if __name__ == "__main__":
    main()
