"""A pair gets one offline label whatever the order and grouping of ingestion: a world added
in one batch and the same world added one statement at a time, newest first (so every pair
is judged by backfill, a stored newer statement against one new older one)."""

from __future__ import annotations

from pathlib import Path

from conftest import wipe

from bench.props_worlds import RecordingClassifier, World, offline_classifier
from graphmem.config import Settings
from graphmem.props import add_propositions
from graphmem.services import open_props
from graphmem.store import Store

WORLD = Path(__file__).parent / "fixtures" / "world_dairy.json"


def judged(store: Store, home: Path, batches: list[list[dict[str, str]]]) -> dict:
    recorder = RecordingClassifier(offline_classifier())
    memory = open_props(Settings(home=home), store, llm=None, classifier=recorder)
    try:
        for batch in batches:
            add_propositions(memory, batch)
    finally:
        memory.close()
    return {(new, old): label for new, old, label in recorder.judged}


def test_one_batch_and_one_by_one_newest_first_give_the_same_labels(
    store: Store, tmp_path: Path
) -> None:
    items = World.load(WORLD).items()
    together = judged(store, tmp_path / "batch", [items])
    wipe(store)
    apart = judged(store, tmp_path / "apart", [[item] for item in reversed(items)])
    both = together.keys() & apart.keys()
    # most pairs are judged both ways (candidates are the 20 most similar either way)
    assert len(both) >= 0.8 * len(together)
    assert sum(label != "norel" for pair, label in together.items() if pair in both) >= 20
    differ = {pair: (together[pair], apart[pair]) for pair in both if together[pair] != apart[pair]}
    assert not differ
