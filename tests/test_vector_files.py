"""Saved vector index files: checksums, automatic rebuilds of damaged files, private modes."""

from __future__ import annotations

import io
import json
import logging
import os
import stat
import zipfile
from collections.abc import Callable
from pathlib import Path

import faiss
import numpy as np
import pytest
from test_vectors import DIM, Items, ids, make_items, open_vs, write

from graphmem.services import open_props
from graphmem.store import Store
from graphmem.vectors import DamagedIndexFile, VectorIndex, VectorIndexError, VectorStore
from graphmem.vectors.persist import _atomic_write, index_paths

LABEL = "Proposition"
STORE_LOG = "graphmem.vectors.store"


def saved(store: Store, data_dir: Path, items: Items) -> tuple[Path, Path]:
    """`items` in the graph and their index saved in `data_dir`; the (.faiss, .npz) paths."""
    write(store, items)
    vs = open_vs(store, data_dir)
    vs.index(LABEL)
    vs.close()
    return index_paths(data_dir / "vectors", LABEL)


def answers(vs: VectorStore, items: Items) -> list[list[tuple[str, float]]]:
    """What a few searches (plain and as of a date) return."""
    cut = int(np.median(items.ts))
    out = []
    for q in (0, 1, 17, 42):
        for as_of in (None, cut):
            hits = vs.search(LABEL, items.vecs[q], 10, as_of_ts=as_of)
            out.append([(h.node_id, round(h.score, 5)) for h in hits])
    return out


def flip_byte(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


def member_data_offset(path: Path, name: str) -> int:
    """Where the bytes of member `name` start inside the .npz (a zip archive)."""
    data = path.read_bytes()
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(name)
    start = info.header_offset
    name_len = int.from_bytes(data[start + 26 : start + 28], "little")
    extra_len = int.from_bytes(data[start + 28 : start + 30], "little")
    return start + 30 + name_len + extra_len


def rewrite_side(path: Path, change: Callable[[dict[str, np.ndarray]], None]) -> None:
    """Rewrite the side file as a valid archive with `change` applied to its arrays."""
    with np.load(path, allow_pickle=False) as side:
        arrays = {name: side[name] for name in side.files}
    change(arrays)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())


def swap_vectors(path: Path, items: Items) -> None:
    """Overwrite the stored vector of item 0 in the .faiss file with that of item 1."""
    raw = faiss.read_index(str(path))
    slots = faiss.vector_to_array(raw.id_map).tolist()
    stored = [raw.index.reconstruct(slots.index(items.vids[i])).tobytes() for i in (0, 1)]
    data = path.read_bytes()
    at = data.index(stored[0])
    path.write_bytes(data[:at] + stored[1] + data[at + len(stored[0]) :])


def _ts_changed(arrays: dict[str, np.ndarray]) -> None:
    arrays["ts"] = arrays["ts"].copy()
    arrays["ts"][3] += 1


DAMAGE: dict[str, tuple[int, Callable[[Path, Items], None]]] = {
    # (which file of the pair: 0 .faiss, 1 .npz, what is done to it)
    "npz-flipped-byte": (1, lambda p, _: flip_byte(p, member_data_offset(p, "vids.npy") + 200)),
    "npz-flipped-meta": (1, lambda p, _: flip_byte(p, member_data_offset(p, "meta.npy") + 140)),
    "npz-valid-archive-other-ts": (1, lambda p, _: rewrite_side(p, _ts_changed)),
    "npz-truncated": (1, lambda p, _: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])),
    "npz-garbage": (1, lambda p, _: p.write_bytes(os.urandom(3000))),
    "npz-empty": (1, lambda p, _: p.write_bytes(b"")),
    "faiss-overwritten-vector": (0, swap_vectors),
    "faiss-flipped-byte": (0, lambda p, _: flip_byte(p, p.stat().st_size // 3)),
    "faiss-truncated": (0, lambda p, _: p.write_bytes(p.read_bytes()[:-100])),
    "faiss-garbage": (0, lambda p, _: p.write_bytes(os.urandom(p.stat().st_size))),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_index_file_is_rebuilt_with_one_warning_and_clean_results(
    store: Store, tmp_path: Path, caplog: pytest.LogCaptureFixture, damage: str
) -> None:
    items = make_items(120, seed=31)
    paths = saved(store, tmp_path / "a", items)
    clean = answers(open_vs(store, tmp_path / "clean"), items)  # rebuilt from the graph alone
    which, harm = DAMAGE[damage]
    harm(paths[which], items)
    with caplog.at_level(logging.INFO, logger=STORE_LOG):
        vs = open_vs(store, tmp_path / "a")
        assert answers(vs, items) == clean
    report = vs.report(LABEL)
    assert report is not None and not report.loaded and report.added == len(items.ids)
    assert str(paths[which]) in (report.reason or "")
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and str(paths[which]) in warnings[0], warnings
    # the rebuild was saved at once: the next start loads it, quietly
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger=STORE_LOG):
        again = open_vs(store, tmp_path / "a")
        assert answers(again, items) == clean
    report = again.report(LABEL)
    assert report is not None and report.loaded and caplog.records == []


def test_an_overwritten_vector_would_have_given_wrong_neighbours(
    store: Store, tmp_path: Path
) -> None:
    items = make_items(50, seed=32)
    faiss_path, _ = saved(store, tmp_path, items)
    swap_vectors(faiss_path, items)
    unchecked = faiss.read_index(str(faiss_path))  # what a load without checksums would search
    _, found = unchecked.search(items.vecs[1:2], 2)
    assert set(found[0].tolist()) == {items.vids[0], items.vids[1]}, "the damage is real"
    with pytest.raises(DamagedIndexFile) as info:
        VectorIndex.load(tmp_path / "vectors", LABEL, DIM, "test-model")
    assert info.value.path == faiss_path
    vs = open_vs(store, tmp_path)
    assert ids(vs.search(LABEL, items.vecs[0], 1)) == [items.ids[0]]
    assert ids(vs.search(LABEL, items.vecs[1], 2))[0] == items.ids[1]


def test_every_single_flipped_byte_is_caught_or_harmless(store: Store, tmp_path: Path) -> None:
    items = make_items(12, seed=33)
    faiss_path, side_path = saved(store, tmp_path, items)
    directory = tmp_path / "vectors"
    good = VectorIndex.load(directory, LABEL, DIM, "test-model")
    expected = [good.search(v, 5) for v in items.vecs[:3]]
    with zipfile.ZipFile(side_path) as archive:  # where each member's bytes lie
        contents = [
            (member_data_offset(side_path, m.filename), m.compress_size) for m in archive.infolist()
        ]
    for path in (faiss_path, side_path):
        original = path.read_bytes()
        for offset in range(len(original)):
            flip_byte(path, offset)
            try:
                index = VectorIndex.load(directory, LABEL, DIM, "test-model")
            except DamagedIndexFile as error:
                assert error.path == path
            else:  # a zip header field the reader never uses: the content must be intact
                assert path == side_path, f"flipped .faiss byte {offset} went unnoticed"
                assert not any(at <= offset < at + n for at, n in contents), offset
                assert [index.search(v, 5) for v in items.vecs[:3]] == expected
                assert index.vids() == good.vids()
            path.write_bytes(original)


def test_an_index_of_the_previous_format_is_rebuilt_without_a_warning(
    store: Store, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    items = make_items(30, seed=34)
    _, side_path = saved(store, tmp_path, items)

    def as_format_1(arrays: dict[str, np.ndarray]) -> None:
        del arrays["meta_sha256"]
        meta = json.loads(str(arrays["meta"]))
        arrays["meta"] = np.array(json.dumps({**meta, "format": 1}))

    rewrite_side(side_path, as_format_1)
    with caplog.at_level(logging.INFO, logger=STORE_LOG):
        vs = open_vs(store, tmp_path)
        assert ids(vs.search(LABEL, items.vecs[4], 1)) == [items.ids[4]]
    report = vs.report(LABEL)
    assert report is not None and not report.loaded and "older version" in (report.reason or "")
    assert [r.levelno for r in caplog.records] == [logging.INFO]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_index_files_are_private_whatever_the_umask(store: Store, tmp_path: Path) -> None:
    directory = tmp_path / "vectors"
    directory.mkdir(mode=0o755)  # left by an older version
    os.chmod(directory, 0o755)
    old_umask = os.umask(0)
    try:
        faiss_path, side_path = saved(store, tmp_path, make_items(20, seed=35))
    finally:
        os.umask(old_umask)
    assert mode(directory) == 0o700
    assert {p.name: mode(p) for p in directory.iterdir()} == {
        faiss_path.name: 0o600,
        side_path.name: 0o600,
        ".lock": 0o600,
    }


def test_temp_files_are_private_and_removed_on_failure(tmp_path: Path) -> None:
    seen: list[int] = []

    def record_mode(f: io.BufferedWriter) -> None:
        seen.append(stat.S_IMODE(os.fstat(f.fileno()).st_mode))
        f.write(b"x")

    old_umask = os.umask(0)
    try:
        _atomic_write(tmp_path / "a.npz", record_mode)

        def fail(f: io.BufferedWriter) -> None:
            record_mode(f)
            raise OSError("disk full")

        with pytest.raises(OSError, match="disk full"):
            _atomic_write(tmp_path / "b.npz", fail)
    finally:
        os.umask(old_umask)
    assert seen == [0o600, 0o600]
    assert [p.name for p in tmp_path.iterdir()] == ["a.npz"]
    assert mode(tmp_path / "a.npz") == 0o600


def test_a_missing_index_is_not_called_damaged(tmp_path: Path) -> None:
    with pytest.raises(VectorIndexError) as info:
        VectorIndex.load(tmp_path, LABEL, DIM, "test-model")
    assert not isinstance(info.value, DamagedIndexFile)


FACTS = [
    {"text": "The Orlen ferry runs twice a day to Maskel island.", "date": "2021-04-02"},
    {"text": "The Orlen ferry now runs four times a day to Maskel island.", "date": "2022-06-11"},
    {"text": "Maskel island opened a second harbour for cargo.", "date": "2022-09-30"},
    {"text": "The Orlen ferry was suspended for repairs in winter.", "date": "2023-01-15"},
    {"text": "Ticket prices on the Orlen ferry rose to nine crowns.", "date": "2023-05-03"},
]


def test_a_damaged_proposition_index_leaves_subgraph_recall_and_ingestion_working(
    store: Store, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from graphmem.config import Settings
    from graphmem.props import PropsMemory, add_propositions, subgraph
    from graphmem.timeline import TimelineMemory, recall

    with open_props(Settings(home=tmp_path / "a"), store, llm=None) as memory:
        add_propositions(memory, FACTS)
        embedder = memory.embedder
    _, side_path = index_paths(tmp_path / "a" / "vectors", LABEL)
    flip_byte(side_path, member_data_offset(side_path, "vids.npy") + 130)

    def answer(home: Path) -> tuple[PropsMemory, object, object]:
        memory = open_props(Settings(home=home), store, llm=None, embedder=embedder)
        graph = subgraph(memory, "How often does the ferry run?", "2023-12-31", k=3)
        timeline = TimelineMemory(store, embedder, memory.vectors)
        found = recall(timeline, "ferry timetable", "2024-01-01", labels=["Proposition"])
        return memory, graph, found

    with caplog.at_level(logging.WARNING, logger=STORE_LOG):
        damaged, graph, found = answer(tmp_path / "a")
    _, clean_graph, clean_found = answer(tmp_path / "clean")
    assert graph == clean_graph and len(graph.anchors) == 3
    assert found == clean_found and found
    report = add_propositions(
        damaged, [{"text": "The ferry got a new captain.", "date": "2024-02-01"}]
    )
    assert (report.added, report.existing) == (1, 0)
    assert len(damaged.vectors.index(LABEL)) == len(FACTS) + 1
    assert [str(side_path) in r.getMessage() for r in caplog.records] == [True]
