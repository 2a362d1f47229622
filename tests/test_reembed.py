"""`graphmem reembed` / Memory.reembed: stored vectors re-made by the configured embedder, the
record of which embedder made them, and the warning when it is not the configured one."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphmem import embcodec
from graphmem.cli import main
from graphmem.config import Settings
from graphmem.embed import DEFAULT_MODEL, Embedder
from graphmem.errors import InvalidInput
from graphmem.memory import Memory
from graphmem.series.detect.synthetic import sales_series
from graphmem.services import open_embedder, open_vectors
from graphmem.store import Store
from graphmem.vectors import VectorStore
from graphmem.vectors.persist import saved_model
from graphmem.vectors.summaries import embed_all_summaries

INT8 = f"{DEFAULT_MODEL}@int8"
FACTS = [
    ("The council approved the new harbour budget.", "2024-03-01"),
    ("Revenue at the Brackwater plant rose 12% in 2023.", "2024-01-15"),
    ("A storm closed the harbour for three days.", "2024-02-10"),
    ("The library opened a second reading room.", "2024-04-02"),
    ("Ferries to the island resumed on Monday.", "2024-02-14"),
    ("The mayor announced a new cycling lane.", "2024-05-20"),
    ("The museum doubled its opening hours.", "2024-06-01"),
]
EVENTS = [("Met Ana at the harbour cafe.", "2024-03-02"), ("Ran the spring 10k.", "2024-04-14")]
WARNED = "graphmem.vectors.reembed"


def settings(home: Path, precision: str) -> Settings:
    return Settings(home=home, embed_precision=precision, vector_refresh_ms=0)


@pytest.fixture
def fp32_store(store: Store, store_url: str, tmp_path: Path) -> Iterator[str]:
    """A data dir written in fp32: propositions, events and segment summaries."""
    with Memory(store_url, settings=settings(tmp_path, "fp32")) as memory:
        for text, date in FACTS:
            memory.propositions.add_document(text, date, relate=False)
        for text, date in EVENTS:
            memory.timeline.add_event(text, date)
        data = sales_series(seed=0)
        memory.series.create(data.name, data.unit, data.description)
        memory.series.append(data.name, data.ts[:400], data.xs[:400])
        services = memory.services()
        embed_all_summaries(services.store, services.embedder(), services.vectors(), "Segment")
    yield store_url


def stored(memory: Memory, label: str) -> tuple[list[str], list[str], np.ndarray]:
    """Ids, texts (as embedded) and vectors of the space's `label` nodes."""
    text = "embedded_summary" if label == "Segment" else "text"
    rows = memory.store.inspect(
        f"MATCH (n:{label} {{space: $space}}) WHERE n.embedding IS NOT NULL "
        f"RETURN n.id AS id, n.{text} AS text, n.embedding AS embedding ORDER BY n.id"
    )
    vectors = np.stack([embcodec.decode(r["embedding"]) for r in rows])
    return [r["id"] for r in rows], [r["text"] for r in rows], vectors


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == WARNED]


def opened(url: str, home: Path, caplog: pytest.LogCaptureFixture) -> tuple[Memory, list[str]]:
    """A Memory on the int8 embedder with its vectors open; the warnings opening them logged."""
    caplog.clear()
    memory = Memory(url, settings=settings(home, "int8"))
    with caplog.at_level(logging.WARNING, logger=WARNED):
        memory.services().vectors()
    return memory, warnings(caplog)


def nearest(
    vectors: VectorStore, embedder: Embedder, nodes: dict[str, tuple[list[str], list[str], Any]]
) -> list[tuple[str, float]]:
    """Each proposition's and event's nearest node for its own text: (id, score)."""
    found = []
    for label in ("Proposition", "Event"):
        for node_id, text in zip(*nodes[label][:2], strict=True):
            [hit] = vectors.search(label, embedder.encode_one(text), 1)
            assert hit.node_id == node_id
            found.append((hit.node_id, hit.score))
    return found


def test_reembed_remakes_every_stored_vector_with_the_configured_embedder(
    fp32_store: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    memory, warned = opened(fp32_store, tmp_path, caplog)
    with memory:
        assert len(warned) == 1
        assert f"'{DEFAULT_MODEL}'" in warned[0] and f"'{INT8}'" in warned[0]
        assert "`graphmem reembed --space default`" in warned[0]
        assert all(label in warned[0] for label in ("Proposition", "Event", "Segment"))
        before = {label: stored(memory, label) for label in ("Proposition", "Event", "Segment")}
        embedder, vectors = memory.services().embedder(), memory.services().vectors()
        found_before = nearest(vectors, embedder, before)

        reports = {r.label: r for r in memory.reembed()}

        for label, (ids, texts, old) in before.items():
            assert reports[label].reembedded == len(ids) > 0, label
            assert reports[label].previous == DEFAULT_MODEL and reports[label].done
            assert reports[label].indexed == len(ids)
            now_ids, now_texts, new = stored(memory, label)
            assert (now_ids, now_texts) == (ids, texts)
            assert np.allclose(new, embedder.encode(texts), atol=1e-6), label
            assert not np.allclose(new, old, atol=1e-3), label  # the fp32 vectors are gone
            assert saved_model(memory.services().vectors().directory, label) == INT8
        found_after = nearest(vectors, embedder, before)
        assert [hit for hit, _ in found_after] == [hit for hit, _ in found_before]
        assert all(score < 0.999 for _, score in found_before)  # int8 questions, fp32 vectors
        assert all(score > 0.9999 for _, score in found_after)  # int8 both
        again = memory.reembed()  # recorded as the embedder's: nothing to do
        assert all(r.up_to_date and r.reembedded == 0 for r in again)
    memory, warned = opened(fp32_store, tmp_path, caplog)
    memory.close()
    assert warned == []


def test_an_interrupted_reembed_is_finished_by_the_next_run(
    fp32_store: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    class Stop(Exception):
        pass

    def stop(label: str, done: int, total: int) -> None:
        raise Stop(f"{label} {done}/{total}")

    memory, _ = opened(fp32_store, tmp_path, caplog)
    with memory:
        embedder = memory.services().embedder()
        ids, texts, old = stored(memory, "Proposition")
        with pytest.raises(Stop, match=f"Proposition 3/{len(ids)}"):
            memory.reembed(["Proposition"], batch=3, progress=stop)
        _, _, half = stored(memory, "Proposition")
        remade = np.isclose((half * embedder.encode(texts)).sum(axis=1), 1.0, atol=1e-6)
        assert remade.sum() == 3  # the first batch landed, the rest is as it was
        assert np.allclose(half[~remade], old[~remade])
    memory, warned = opened(fp32_store, tmp_path, caplog)
    with memory:
        assert len(warned) == 1 and f"a re-embedding with '{INT8}' was not finished" in warned[0]
        [report] = memory.reembed(["Proposition"], batch=3)
        assert report.reembedded == len(ids) - 3 and report.done
        _, _, new = stored(memory, "Proposition")
        assert np.allclose(new, embedder.encode(texts), atol=1e-6)
    memory, warned = opened(fp32_store, tmp_path, caplog)
    memory.close()
    assert len(warned) == 1 and "Proposition" not in warned[0]  # events, segments still fp32


def test_a_running_server_picks_up_the_new_vectors(fp32_store: str, tmp_path: Path) -> None:
    """A process already on the new embedder (a server restarted with it) sees the re-embedded
    vectors at its next search, through the vector clock."""
    server_settings = settings(tmp_path / "server", "int8")
    with Memory(fp32_store, settings=settings(tmp_path, "int8")) as memory:
        server = memory.services().store
        embedder = open_embedder(server_settings)
        vectors = open_vectors(server_settings, server, embedder, check=False)
        text = FACTS[0][0]
        [before] = vectors.search("Proposition", embedder.encode_one(text), 1)
        assert before.score < 0.999  # an int8 question against the stored fp32 vector
        memory.reembed(["Proposition"])
        [after] = vectors.search("Proposition", embedder.encode_one(text), 1)
        assert after.node_id == before.node_id and after.score > 0.9999
        vectors.close()


def test_a_new_space_records_the_configured_embedder_without_a_warning(
    store: Store, store_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    memory, warned = opened(store_url, tmp_path, caplog)
    with memory:
        assert warned == []
        memory.propositions.add_document(*FACTS[0], relate=False)
    memory, warned = opened(store_url, tmp_path, caplog)
    memory.close()
    assert warned == []
    caplog.clear()
    with Memory(store_url, settings=settings(tmp_path, "fp32")) as fp32:
        with caplog.at_level(logging.WARNING, logger=WARNED):
            fp32.services().vectors()
        assert len(warnings(caplog)) == 1  # the proposition was int8's
        assert "Proposition vectors were made by the embedder" in warnings(caplog)[0]


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"labels": ["Nope"]}, "labels"),
        ({"labels": "Proposition"}, "labels"),
        ({"labels": []}, "labels"),
        ({"batch": 0}, "batch"),
        ({"batch": 10_001}, "batch"),
        ({"batch": True}, "batch"),
    ],
)
def test_bad_arguments_name_the_field(
    store: Store, store_url: str, tmp_path: Path, arguments: dict, field: str
) -> None:
    with Memory(store_url, settings=settings(tmp_path, "int8")) as memory:
        with pytest.raises(InvalidInput) as raised:
            memory.reembed(**arguments)
        assert raised.value.field == field


def test_the_command_reembeds_every_space_and_rejects_bad_flags(
    fp32_store: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with Memory(fp32_store, settings=settings(tmp_path, "fp32"), space="work") as work:
        work.timeline.add_event(*EVENTS[0])
    monkeypatch.setenv("GRAPHMEM_STORE", fp32_store)
    monkeypatch.setenv("GRAPHMEM_HOME", str(tmp_path))
    monkeypatch.setenv("GRAPHMEM_EMBED_PRECISION", "int8")
    for flags, problem in (
        (["--label", "Nope"], "invalid choice: 'Nope'"),
        (["--batch", "0"], "--batch: must be an integer from 1 to 10,000, not 0"),
        (["--space", "a", "--all-spaces"], "not allowed with argument --space"),
    ):
        with pytest.raises(SystemExit) as exited:
            main(["reembed", *flags])
        assert exited.value.code == 2 and problem in capsys.readouterr().err
    assert main(["--space", "a", "reembed", "--all-spaces"]) == 1
    assert "--all-spaces: give --space or --all-spaces, not both" in capsys.readouterr().err

    assert main(["reembed", "--all-spaces", "--label", "Event"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"{space} Event: {n} vectors re-embedded with '{INT8}' (they were "
        f"'{DEFAULT_MODEL}''s); index rebuilt, {n} items"
        for space, n in (("default", len(EVENTS)), ("work", 1))
    ]
    assert main(["reembed", "--label", "Event"]) == 0
    assert capsys.readouterr().out == (
        f"default Event: up to date ('{INT8}'); --force re-embeds it anyway\n"
    )
    assert main(["reembed", "--label", "Event", "--force", "--batch", "1"]) == 0
    assert capsys.readouterr().out.startswith(f"default Event: {len(EVENTS)} vectors re-embedded")
