"""The fixture world, shared props fixtures, and quality on it: offline labels, dated questions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem.config import Settings
from graphmem.props import OfflineClassifier, PropsMemory, add_propositions
from graphmem.props.quality import (
    GoldClassifier,
    Reader,
    RecordingClassifier,
    World,
    score_labels,
)
from graphmem.store import Store

WORLD_PATH = Path(__file__).parent / "fixtures" / "props_world.json"


@pytest.fixture(scope="session")
def world() -> World:
    return World.load(WORLD_PATH)


@pytest.fixture
def ctx(store: Store, tmp_path: Path) -> Iterator[PropsMemory]:
    """A props memory on the empty embedded store, offline (no LLM)."""
    memory = PropsMemory.open(Settings(home=tmp_path), store, llm=None)
    yield memory
    memory.close()


@pytest.fixture
def llm_ctx(store: Store, tmp_path: Path, llm_settings: Settings) -> Iterator[PropsMemory]:
    """A props memory whose LLM is the scripted server (extraction and classification)."""
    memory = PropsMemory.open(llm_settings.with_overrides(home=tmp_path), store)
    yield memory
    memory.close()


@pytest.fixture
def gold_ctx(store: Store, tmp_path: Path, world: World) -> Iterator[PropsMemory]:
    """The fixture world ingested with its gold relation labels."""
    memory = PropsMemory.open(
        Settings(home=tmp_path), store, llm=None, classifier=GoldClassifier(world)
    )
    add_propositions(memory, world.items())
    yield memory
    memory.close()


def test_world_is_well_formed(world: World) -> None:
    props = world.propositions
    assert 60 <= len(props) <= 120
    keys = [p["key"] for p in props]
    assert len(set(keys)) == len(keys)
    dates = [p["date"] for p in props]
    assert dates == sorted(dates), "listed in ingestion (date) order"
    position = {k: i for i, k in enumerate(keys)}
    labels = {"updates": 0, "contradicts": 0, "supports": 0}
    for (src, dst), label in world.gold.items():
        labels[label] += 1
        assert position[src] > position[dst], f"{src} -> {dst} must point newer -> older"
    assert all(n >= 5 for n in labels.values()), labels
    assert len(world.questions) >= 20
    by_topic: dict[str, set[int]] = {}
    for q in world.questions:
        assert 0 <= q.answer < len(q.options)
        by_topic.setdefault(q.topic, set()).add(q.answer)
    # most topics are asked at several dates with different right answers
    assert sum(len(answers) > 1 for answers in by_topic.values()) >= 12


def test_offline_classifier_beats_all_norel(ctx: PropsMemory, world: World) -> None:
    recorder = RecordingClassifier(OfflineClassifier())
    ctx.classifier = recorder
    add_propositions(ctx, world.items())
    judged = {(world.keys[n], world.keys[o]): label for n, o, label in recorder.judged}
    assert set(world.gold) <= set(judged), "every gold pair became a candidate"
    pairs = [(world.gold.get(pair, "norel"), label) for pair, label in judged.items()]
    offline = score_labels(pairs)
    baseline = score_labels((gold, "norel") for gold, _ in pairs)
    assert offline.accuracy > baseline.accuracy
    assert baseline.macro_f1 == 0.0
    assert offline.macro_f1 >= 0.6
    assert all(s.precision >= 0.6 and s.recall >= 0.5 for s in offline.scores), offline


def warmed_reader(ctx: PropsMemory, world: World) -> Reader:
    reader = Reader(ctx, k=10)
    reader.warm(
        [q.question for q in world.questions]
        + [o for q in world.questions for o in q.options]
        + [p["text"] for p in world.propositions]
    )
    return reader


def test_questions_answered_better_with_relations(ctx: PropsMemory, world: World) -> None:
    add_propositions(ctx, world.items())  # offline classifier
    reader = warmed_reader(ctx, world)
    plain = sum(
        reader.answer(q.question, q.date, q.options, use_relations=False) == q.answer
        for q in world.questions
    )
    related = sum(
        reader.answer(q.question, q.date, q.options, use_relations=True) == q.answer
        for q in world.questions
    )
    assert related >= plain
    assert related >= 0.8 * len(world.questions)


def test_gold_relations_answer_almost_everything(gold_ctx: PropsMemory, world: World) -> None:
    reader = warmed_reader(gold_ctx, world)
    right = sum(
        reader.answer(q.question, q.date, q.options, use_relations=True) == q.answer
        for q in world.questions
    )
    assert right >= 0.9 * len(world.questions)
