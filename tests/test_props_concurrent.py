"""Two writers storing the same propositions at once: counts split, nothing stored twice."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from races import around
from test_props_world import ctx  # noqa: F401 - fixture

from bench.props_worlds import offline_classifier
from graphmem.config import Settings
from graphmem.props import IngestReport, PropsMemory, add_propositions, counts, list_relations
from graphmem.props.classify import Candidate, Classifier, Judgement
from graphmem.props.model import Proposition
from graphmem.services import open_props
from graphmem.store import open_store
from graphmem.vectors import VectorConfig

TOWNS = ["Orlen", "Maskel", "Brevik", "Tarn"]


@dataclass(frozen=True)
class Always:
    """A classifier that gives every pair the same label (two writers that judge differently)."""

    label: str

    @property
    def name(self) -> str:
        return f"always-{self.label}"

    def classify(self, new: Proposition, candidates: Sequence[Candidate]) -> list[Judgement]:
        return [Judgement(i, self.label, 0.9) for i in range(len(candidates))]


@pytest.fixture
def race(ctx: PropsMemory, store_url: str, tmp_path: Path) -> Iterator:  # noqa: F811
    """Start writers, each with its own connection and vector indexes as two processes have.

    Each waits for the others before its write: all look the propositions up before any
    writes, so only the writes can say who stored what.
    """
    opened: list[PropsMemory] = []

    def start(*classifiers: Classifier) -> list[PropsMemory]:
        meet = threading.Barrier(len(classifiers), timeout=30)
        for i, classifier in enumerate(classifiers):
            connection = open_store(store_url, Settings())
            around(connection, "write", "props.write_batch", before=meet.wait)
            opened.append(
                open_props(
                    Settings(home=tmp_path / str(i)),
                    connection,
                    llm=None,
                    classifier=classifier,
                    embedder=ctx.embedder,
                    vector_config=VectorConfig(refresh_ms=0),
                )
            )
        return opened[-len(classifiers) :]

    yield start
    for memory in opened:
        memory.close()
        memory.store.close()


def at_once(writers: list[PropsMemory], items: list[dict], ctx: PropsMemory) -> list[IngestReport]:  # noqa: F811
    vecs = ctx.embedder.encode([item["text"] for item in items])
    with ThreadPoolExecutor(max_workers=len(writers)) as pool:
        futures = [pool.submit(add_propositions, w, items, embeddings=vecs) for w in writers]
        return [f.result(timeout=60) for f in futures]


def ferries(round_: int) -> list[dict]:
    return [
        {
            "text": f"The {town} ferry runs {round_ * 3 + k + 1} times a day.",
            "date": f"202{round_}-0{k + 1}-1{k}",
        }
        for town in TOWNS
        for k in range(3)
    ]


def test_the_same_propositions_added_at_once_are_counted_once(
    ctx: PropsMemory,  # noqa: F811
    race,
) -> None:
    writers = race(offline_classifier(), offline_classifier())
    for round_ in range(5):
        items = ferries(round_)
        edges_before = counts(ctx)["relations"]
        reports = at_once(writers, items, ctx)
        assert sum(r.added for r in reports) == len(items), reports
        assert all(r.added + r.existing == len(items) for r in reports)
        assert sum(r.relations for r in reports) == counts(ctx)["relations"] - edges_before
    stored = counts(ctx)
    assert stored["propositions"] == 5 * len(items) and stored["relations"] > 0
    for writer in writers:  # the one that stored nothing fetches them from the graph
        writer.vectors.refresh("Proposition", force=True)
        assert len(writer.vectors.index("Proposition")) == stored["propositions"]


def test_relations_come_from_the_writer_that_stored_the_propositions(
    ctx: PropsMemory,  # noqa: F811
    race,
) -> None:
    # the two writers judge every pair differently; each pair must still get one edge
    writers = race(Always("supports"), Always("contradicts"))
    reports = at_once(writers, ferries(0)[:6], ctx)
    [winner] = [w for w, r in zip(writers, reports, strict=True) if r.added]
    edges = list_relations(ctx)
    assert edges and {e.model for e in edges} == {winner.classifier.name}
    assert len({(e.src, e.dst) for e in edges}) == len(edges)
    assert sum(r.relations for r in reports) == len(edges)
