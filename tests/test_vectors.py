"""FAISS indexes against a real embedded FalkorDB: search, as-of filter, restart and repair."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from graphmem.cypher import load_dir
from graphmem.errors import InvalidInput
from graphmem.store import Store
from graphmem.vectors import (
    Clock,
    Hit,
    VectorConfig,
    VectorIndex,
    VectorIndexError,
    VectorStore,
    vector_id,
)

Q = load_dir(Path(__file__).parent / "cypher")
DIM = 32  # random vectors of a small dim keep graph writes fast; the model is tested elsewhere
HNSW = VectorConfig(flat_threshold=50, kind="hnsw")


@dataclass
class Items:
    """Random embedded propositions."""

    ids: list[str]
    vids: list[int]
    ts: np.ndarray
    vecs: np.ndarray


def make_items(n: int, seed: int = 0, prefix: str = "p") -> Items:
    rng = np.random.default_rng(seed)
    vecs = rng.standard_normal((n, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    ids = [f"{prefix}{i}" for i in range(n)]
    ts = rng.integers(1_600_000_000, 1_700_000_000, n)
    return Items(ids, [vector_id(i) for i in ids], ts, vecs)


def write(store: Store, items: Items, rows: slice = slice(None)) -> None:
    batch = [
        {"id": i, "vid": v, "ts": int(t), "embedding": e.tolist()}
        for i, v, t, e in zip(
            items.ids[rows], items.vids[rows], items.ts[rows], items.vecs[rows], strict=True
        )
    ]
    for start in range(0, len(batch), 200):
        store.write_batch(Q["vectors_test.create_propositions"], batch[start : start + 200])


def brute(items: Items, query: np.ndarray, k: int, as_of: int | None = None) -> list[str]:
    scores = items.vecs @ query
    order = [i for i in np.argsort(-scores, kind="stable") if as_of is None or items.ts[i] <= as_of]
    return [items.ids[i] for i in order[:k]]


def ids(hits: list[Hit]) -> list[str]:
    return [h.node_id for h in hits]


def open_vs(store: Store, data_dir: Path, model: str = "test-model", **config) -> VectorStore:
    return VectorStore(store, data_dir, model, DIM, VectorConfig(**config) if config else None)


def test_vector_id_is_a_stable_non_negative_int64() -> None:
    assert vector_id("abc") == vector_id("abc") != vector_id("abd")
    assert 0 <= vector_id("abc") < 1 << 63


def test_search_matches_brute_force(store: Store, tmp_path: Path) -> None:
    items = make_items(300)
    write(store, items)
    vs = open_vs(store, tmp_path)
    rng = np.random.default_rng(7)
    for query in rng.standard_normal((5, DIM)).astype(np.float32):
        query /= np.linalg.norm(query)
        hits = vs.search("Proposition", query, 10)
        assert ids(hits) == brute(items, query, 10)
        assert [h.score for h in hits] == pytest.approx(sorted(items.vecs @ query)[::-1][:10])
    report = vs.report("Proposition")
    assert report is not None and not report.loaded and report.added == 300


@pytest.mark.parametrize("config", [VectorConfig(), HNSW], ids=["flat", "hnsw"])
def test_search_many_equals_one_search_per_row(
    store: Store, tmp_path: Path, config: VectorConfig
) -> None:
    items = make_items(300, seed=3)
    write(store, items)
    vs = VectorStore(store, tmp_path, "test-model", DIM, config)
    queries = items.vecs[[0, 5, 77, 150, 299]]
    cut = int(np.median(items.ts))
    for as_of in (None, cut):
        many = vs.search_many("Proposition", queries, 10, as_of_ts=as_of)
        one_by_one = [vs.search("Proposition", q, 10, as_of_ts=as_of) for q in queries]
        assert [ids(h) for h in many] == [ids(h) for h in one_by_one]
        assert all(h.ts <= cut for hits in many if as_of for h in hits)
    assert vs.search_many("Proposition", queries[:0], 10) == []
    with pytest.raises(InvalidInput) as info:
        vs.search_many("Proposition", queries[:, :5], 10)
    assert info.value.field == "queries"


@pytest.mark.parametrize("config", [VectorConfig(), HNSW], ids=["flat", "hnsw"])
def test_search_columns_hold_what_search_returns(
    store: Store, tmp_path: Path, config: VectorConfig
) -> None:
    items = make_items(300, seed=4)
    write(store, items)
    vs = VectorStore(store, tmp_path, "test-model", DIM, config)
    cut = int(np.median(items.ts))
    for as_of in (None, cut, int(items.ts.min()) - 1):  # the last: nothing is old enough
        for q in (0, 42, 250):
            hits = vs.search("Proposition", items.vecs[q], 200, as_of_ts=as_of)
            columns = vs.search_columns("Proposition", items.vecs[q], 200, as_of)
            assert columns.node_ids == ids(hits)
            assert columns.vids.tolist() == [h.vid for h in hits]
            assert columns.scores.tolist() == [h.score for h in hits]
            assert columns.ts.tolist() == [h.ts for h in hits]
        older = len(items.ts) if as_of is None else int(np.count_nonzero(items.ts <= as_of))
        assert len(columns.node_ids) == min(200, older)


@pytest.mark.parametrize(
    "config",
    [VectorConfig(), HNSW, VectorConfig(flat_threshold=50, kind="hnsw", exact_below=0)],
    ids=["flat", "hnsw-exact-fallback", "hnsw-filtered"],
)
def test_as_of_never_returns_later_items_and_still_fills_k(
    store: Store, tmp_path: Path, config: VectorConfig
) -> None:
    items = make_items(300, seed=1)
    write(store, items)
    vs = VectorStore(store, tmp_path, "test-model", DIM, config)
    cuts = np.quantile(items.ts, [0.01, 0.1, 0.5, 0.9]).astype(int).tolist()
    for cut in [int(items.ts.min()) - 1, *cuts]:
        older = int(np.count_nonzero(items.ts <= cut))
        for q in (0, 17, 123):
            hits = vs.search("Proposition", items.vecs[q], 10, as_of_ts=cut)
            assert all(h.ts <= cut for h in hits)
            assert len(hits) == min(10, older)
            if config.exact_below > 0:  # exact paths must agree with brute force
                assert ids(hits) == brute(items, items.vecs[q], 10, cut)


def test_restart_loads_the_saved_index_without_rebuild(store: Store, tmp_path: Path) -> None:
    items = make_items(200, seed=2)
    write(store, items)
    first = open_vs(store, tmp_path)
    before = [first.search("Proposition", items.vecs[i], 5, as_of_ts=1_650_000_000) for i in (3, 9)]
    first.close()
    second = open_vs(store, tmp_path)
    after = [second.search("Proposition", items.vecs[i], 5, as_of_ts=1_650_000_000) for i in (3, 9)]
    report = second.report("Proposition")
    assert report is not None and report.loaded and (report.added, report.removed) == (0, 0)
    assert after == before


def test_crash_between_graph_write_and_index_add_is_repaired(store: Store, tmp_path: Path) -> None:
    items = make_items(101, seed=3)
    write(store, items, slice(0, 100))
    first = open_vs(store, tmp_path)
    first.index("Proposition")
    first.close()
    # the "crash": node 100 reaches the graph but never the index; node 0 is deleted likewise
    write(store, items, slice(100, 101))
    store.write(Q["vectors_test.delete_propositions"], ids=[items.ids[0]])
    second = open_vs(store, tmp_path)
    assert ids(second.search("Proposition", items.vecs[100], 1)) == [items.ids[100]]
    assert items.ids[0] not in ids(second.search("Proposition", items.vecs[0], 100))
    report = second.report("Proposition")
    assert report is not None and report.loaded and (report.added, report.removed) == (1, 1)


def test_deleted_index_files_are_rebuilt_with_identical_results(
    store: Store, tmp_path: Path
) -> None:
    items = make_items(150, seed=4)
    write(store, items)
    first = open_vs(store, tmp_path)
    before = first.search("Proposition", items.vecs[5], 20)
    first.close()
    for path in (tmp_path / "vectors").iterdir():
        path.unlink()
    second = open_vs(store, tmp_path)
    after = second.search("Proposition", items.vecs[5], 20)
    assert ids(after) == ids(before)
    assert [h.score for h in after] == pytest.approx([h.score for h in before])
    report = second.report("Proposition")
    assert report is not None and not report.loaded and report.added == 150
    assert (tmp_path / "vectors" / "Proposition.faiss").is_file()  # saved right after a rebuild


def test_index_for_another_model_is_rebuilt(store: Store, tmp_path: Path) -> None:
    items = make_items(60, seed=5)
    write(store, items)
    first = open_vs(store, tmp_path, model="model-a")
    first.index("Proposition")
    first.close()
    other = open_vs(store, tmp_path, model="model-b")
    assert ids(other.search("Proposition", items.vecs[1], 1)) == [items.ids[1]]
    report = other.report("Proposition")
    assert report is not None and not report.loaded and "model-a" in (report.reason or "")


@pytest.mark.parametrize("damage", ["garbage", "stale-sidecar"])
def test_damaged_index_files_are_rebuilt(store: Store, tmp_path: Path, damage: str) -> None:
    items = make_items(80, seed=6)
    write(store, items, slice(0, 40))
    vs = open_vs(store, tmp_path)
    vs.index("Proposition")
    vs.close()
    sidecar = (tmp_path / "vectors" / "Proposition.npz").read_bytes()
    write(store, items, slice(40, 80))
    vs = open_vs(store, tmp_path)
    vs.index("Proposition")
    vs.close()
    if damage == "garbage":
        (tmp_path / "vectors" / "Proposition.faiss").write_bytes(b"not a faiss index")
    else:  # a crash between the two renames of a save: new index, old sidecar
        (tmp_path / "vectors" / "Proposition.npz").write_bytes(sidecar)
    again = open_vs(store, tmp_path)
    assert ids(again.search("Proposition", items.vecs[70], 1)) == [items.ids[70]]
    report = again.report("Proposition")
    assert report is not None and not report.loaded and report.added == 80


def test_hnsw_above_the_threshold_finds_exact_matches(store: Store, tmp_path: Path) -> None:
    items = make_items(300, seed=8)
    write(store, items)
    vs = VectorStore(store, tmp_path, "test-model", DIM, HNSW)
    assert vs.index("Proposition").kind == "hnsw"
    for i in range(0, 300, 7):
        assert ids(vs.search("Proposition", items.vecs[i], 1)) == [items.ids[i]]
    vs.close()
    again = VectorStore(store, tmp_path, "test-model", DIM, HNSW)
    assert again.index("Proposition").kind == "hnsw"
    assert again.report("Proposition").loaded  # type: ignore[union-attr]
    assert ids(again.search("Proposition", items.vecs[42], 1)) == [items.ids[42]]


def test_index_switches_to_hnsw_when_adds_cross_the_threshold(tmp_path: Path) -> None:
    items = make_items(80, seed=9)
    index = VectorIndex("Proposition", DIM, "test-model", HNSW)
    index.add(items.ids[:50], items.vids[:50], items.ts[:50], items.vecs[:50])
    assert index.kind == "flat"
    index.add(items.ids, items.vids, items.ts, items.vecs)
    assert index.kind == "hnsw" and len(index) == 80
    assert ids(index.search(items.vecs[77], 1)) == [items.ids[77]]
    assert index.remove(items.vids[:40]) == 40 and len(index) == 40
    assert items.ids[77] in ids(index.search(items.vecs[77], 1))
    assert not set(ids(index.search(items.vecs[0], 40))) & set(items.ids[:40])


def test_ivf_is_retrained_once_the_data_has_grown_16_fold(tmp_path: Path) -> None:
    items = make_items(700, seed=11)
    index = VectorIndex("Proposition", DIM, "test-model", VectorConfig(flat_threshold=50))
    index.add(items.ids[:60], items.vids[:60], items.ts[:60], items.vecs[:60])
    assert (index.kind, index._inner.nlist) == ("ivf", 1)  # 60 items: one list
    index.add(items.ids[:150], items.vids[:150], items.ts[:150], items.vecs[:150])
    assert index._inner.nlist == 1, "3 lists would be due, not yet 4x as many"
    index.add(items.ids, items.vids, items.ts, items.vecs)
    assert index._inner.nlist == 17 and len(index) == 700  # 700 // 39: retrained
    for q in (0, 345, 699):
        assert ids(index.search(items.vecs[q], 1)) == [items.ids[q]]


@pytest.mark.parametrize("kind", ["flat", "hnsw", "ivf"])
def test_stored_vectors_are_read_back_after_removals_and_a_reload(
    kind: str, tmp_path: Path
) -> None:
    items = make_items(120, seed=5)
    big = 1000 if kind == "flat" else 50  # above the threshold the index is ANN
    config = VectorConfig(flat_threshold=big, kind="hnsw" if kind == "flat" else kind)
    index = VectorIndex("Proposition", DIM, "test-model", config)
    index.add(items.ids, items.vids, items.ts, items.vecs)
    assert index.kind == kind
    index.remove(items.vids[:30])  # a quarter: an ANN index compacts (compact_ratio 0.2)
    index.add(items.ids[:3], items.vids[:3], items.ts[:3], items.vecs[:3])  # back again
    wanted = items.vids[:5] + items.vids[60:63] + [vector_id("never stored")]
    for held in (index, _saved_and_loaded(index, tmp_path, config)):
        got = held.vectors(wanted)
        assert set(got) == set(items.vids[:3] + items.vids[60:63]), "removed, unknown: left out"
        for i in (0, 1, 2, 60, 61, 62):
            np.testing.assert_allclose(got[items.vids[i]], items.vecs[i], atol=1e-6)
    with pytest.raises(InvalidInput, match="vids"):
        index.vectors(["p1"])
    assert index.vectors([]) == {}


def _saved_and_loaded(index: VectorIndex, tmp_path: Path, config: VectorConfig) -> VectorIndex:
    index.save(tmp_path)
    return VectorIndex.load(tmp_path, "Proposition", DIM, "test-model", config)


def test_add_after_graph_write_is_idempotent_and_remove_drops(store: Store, tmp_path: Path) -> None:
    items = make_items(20, seed=10)
    write(store, items, slice(0, 10))
    store.write(Q["vectors_test.create_bare_proposition"], id="no-embedding")
    vs = open_vs(store, tmp_path)
    assert len(vs.index("Proposition")) == 10  # the node without an embedding is ignored
    write(store, items, slice(10, 20))
    assert vs.add("Proposition", items.ids, items.vids, items.ts, items.vecs) == 10
    assert vs.add("Proposition", items.ids, items.vids, items.ts, items.vecs) == 0
    assert vs.remove("Proposition", items.vids[:5]) == 5
    assert len(vs.index("Proposition")) == 15
    assert items.ids[0] not in ids(vs.search("Proposition", items.vecs[0], 20))


def test_bad_input_is_refused(store: Store, tmp_path: Path) -> None:
    items = make_items(3, seed=11)
    vs = open_vs(store, tmp_path)
    with pytest.raises(InvalidInput, match="label"):
        vs.index("Person")
    with pytest.raises(InvalidInput, match=r"vids\[1\]"):
        vs.add("Proposition", items.ids, [items.vids[0]] * 3, items.ts, items.vecs)
    with pytest.raises(InvalidInput, match="embeddings"):
        vs.add("Proposition", items.ids, items.vids, items.ts, items.vecs[:, :5])
    with pytest.raises(InvalidInput, match="ts"):
        vs.add("Proposition", items.ids, items.vids, [1.5, 2.5, 3.5], items.vecs)
    with pytest.raises(InvalidInput, match="query_vec"):
        vs.search("Proposition", np.zeros(DIM), 3)
    with pytest.raises(InvalidInput, match="k"):
        vs.search("Proposition", items.vecs[0], 0)
    with pytest.raises(InvalidInput, match="kind"):
        VectorConfig(kind="annoy")


def test_embedding_of_the_wrong_size_in_the_graph_is_named(store: Store, tmp_path: Path) -> None:
    items = make_items(3, seed=12)
    items.vecs = items.vecs[:, :8].copy()  # as if embedded by another model
    write(store, items)
    with pytest.raises(VectorIndexError, match="'p0'.*size 8.*dim 32"):
        open_vs(store, tmp_path).index("Proposition")


def test_a_second_process_writes_are_seen_before_the_next_search(
    store: Store, tmp_path: Path
) -> None:
    items = make_items(60, seed=11)
    write(store, items, slice(0, 30))
    serving = open_vs(store, tmp_path, refresh_ms=0)  # checks the graph before every search
    assert len(serving.search("Proposition", items.vecs[40], 60)) == 30
    # "another process": its own VectorStore on the same graph and data dir
    ingesting = open_vs(store, tmp_path)
    write(store, items, slice(30, 60))
    ingesting.add("Proposition", items.ids[30:], items.vids[30:], items.ts[30:], items.vecs[30:])
    ingesting.close()
    assert ids(serving.search("Proposition", items.vecs[40], 1)) == [items.ids[40]]
    assert len(serving.search("Proposition", items.vecs[40], 60)) == 60
    store.write(Q["vectors_test.delete_propositions"], ids=[items.ids[40]])
    assert items.ids[40] not in ids(serving.search("Proposition", items.vecs[40], 60))


def test_refresh_interval_bounds_how_often_the_graph_is_checked(
    store: Store, tmp_path: Path
) -> None:
    items = make_items(20, seed=12)
    write(store, items, slice(0, 10))
    serving = open_vs(store, tmp_path, refresh_ms=3_600_000)
    serving.index("Proposition")
    write(store, items, slice(10, 20))  # written by someone else
    assert len(serving.search("Proposition", items.vecs[15], 20)) == 10  # not checked yet
    assert serving.refresh("Proposition", force=True) == (10, 0)
    assert ids(serving.search("Proposition", items.vecs[15], 1)) == [items.ids[15]]
    # own adds move the graph count too, but are not mistaken for someone else's writes
    more = make_items(5, seed=13, prefix="own")
    write(store, more)
    serving.add("Proposition", more.ids, more.vids, more.ts, more.vecs)
    assert serving.refresh("Proposition", force=True) == (0, 0)


def test_a_failed_index_add_is_repaired_by_the_next_search(store: Store, tmp_path: Path) -> None:
    items = make_items(10, seed=14)
    vs = open_vs(store, tmp_path)  # default interval: the repair must not wait for it
    vs.index("Proposition")
    write(store, items)
    with pytest.raises(InvalidInput):  # the add fails after the graph write
        vs.add("Proposition", items.ids, items.vids[::-1], items.ts, items.vecs)
    assert ids(vs.search("Proposition", items.vecs[3], 1)) == [items.ids[3]]
    assert len(vs.index("Proposition")) == 10


def test_both_processes_saving_leave_a_complete_index(store: Store, tmp_path: Path) -> None:
    items = make_items(30, seed=15)
    write(store, items, slice(0, 10))
    first = open_vs(store, tmp_path)
    first.index("Proposition")
    second = open_vs(store, tmp_path)
    write(store, items, slice(10, 20))
    second.add(
        "Proposition", items.ids[10:20], items.vids[10:20], items.ts[10:20], items.vecs[10:20]
    )
    second.close()
    write(store, items, slice(20, 30))
    first.add("Proposition", items.ids[20:], items.vids[20:], items.ts[20:], items.vecs[20:])
    first.close()  # catches up with the second's writes before saving
    third = open_vs(store, tmp_path)
    assert len(third.index("Proposition")) == 30
    report = third.report("Proposition")
    assert report is not None and report.loaded and (report.added, report.removed) == (0, 0)


def test_saving_never_replaces_a_newer_index(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphmem.errors import StoreUnavailable
    from graphmem.vectors import saved_watermark

    items = make_items(30, seed=16)
    write(store, items, slice(0, 20))
    old = open_vs(store, tmp_path)
    old.index("Proposition")
    old.add("Proposition", items.ids[:1], items.vids[:1], items.ts[:1], items.vecs[:1])
    newer = open_vs(store, tmp_path)
    write(store, items, slice(20, 30))
    newer.add("Proposition", items.ids[20:], items.vids[20:], items.ts[20:], items.vecs[20:])
    newer.close()
    mark = saved_watermark(tmp_path / "vectors", "Proposition")
    assert mark is not None

    def unreachable(label: str) -> int:
        raise StoreUnavailable("FalkorDB is not reachable")

    monkeypatch.setattr(old, "_signature", unreachable)
    old.close()  # cannot catch up, and its index is older than the saved one: not written
    assert saved_watermark(tmp_path / "vectors", "Proposition") == mark
    reopened = open_vs(store, tmp_path)
    assert len(reopened.index("Proposition")) == 30
    report = reopened.report("Proposition")
    assert report is not None and report.loaded and report.added == 0


# --- settings ------------------------------------------------------------------------------------


def test_vector_settings_from_the_environment_build_an_ivf_index(
    store: Store, tmp_path: Path
) -> None:
    from graphmem.config import Settings

    env = {
        "GRAPHMEM_HOME": str(tmp_path),
        "GRAPHMEM_VECTOR_INDEX": "IVF",
        "GRAPHMEM_VECTOR_FLAT_MAX": "100",
        "GRAPHMEM_VECTOR_REFRESH_MS": "0",
    }
    config = VectorConfig.from_settings(Settings.from_env(env))
    assert (config.kind, config.flat_threshold, config.refresh_ms) == ("ivf", 100, 0)
    items = make_items(400, seed=21)
    write(store, items)
    vs = VectorStore(store, tmp_path, "test-model", DIM, config)
    assert vs.index("Proposition").kind == "ivf"
    for q in (0, 57, 399):  # few lists, all probed: the IVF search is exhaustive here
        assert ids(vs.search("Proposition", items.vecs[q], 10)) == brute(items, items.vecs[q], 10)
        cut = int(np.median(items.ts))
        hits = vs.search("Proposition", items.vecs[q], 10, as_of_ts=cut)
        assert ids(hits) == brute(items, items.vecs[q], 10, cut)
    always_exact = VectorConfig.from_settings(Settings.from_env({"GRAPHMEM_VECTOR_INDEX": "flat"}))
    assert VectorStore(store, tmp_path / "b", "m", DIM, always_exact).index("Proposition").kind == (
        "flat"
    )
    default = VectorConfig.from_settings(Settings.from_env({}))
    assert (default.kind, default.flat_threshold, default.refresh_ms) == ("ivf", 20_000, 500)


def test_services_use_the_vector_settings(store: Store, tmp_path: Path) -> None:
    from graphmem.config import Settings
    from graphmem.services import Services

    settings = Settings.from_env(
        {
            "GRAPHMEM_HOME": str(tmp_path),
            "GRAPHMEM_VECTOR_INDEX": "ivf",
            "GRAPHMEM_VECTOR_FLAT_MAX": "5",
        }
    )
    services = Services(settings, store)
    try:
        assert services.vectors().config == VectorConfig.from_settings(settings)
        assert services.props().vectors is services.vectors()
    finally:
        services.vectors().close()


@pytest.mark.parametrize(
    ("name", "value", "problem"),
    [
        ("GRAPHMEM_VECTOR_INDEX", "annoy", "must be one of auto, flat, hnsw, ivf"),
        ("GRAPHMEM_VECTOR_FLAT_MAX", "many", "'many' is not an integer"),
        ("GRAPHMEM_VECTOR_FLAT_MAX", "0", "must be an integer >= 1"),
        ("GRAPHMEM_VECTOR_REFRESH_MS", "-1", "must be an integer >= 0"),
        ("GRAPHMEM_VECTOR_REFRESH_MS", "0.5", "'0.5' is not an integer"),
    ],
)
def test_bad_vector_settings_name_the_variable(name: str, value: str, problem: str) -> None:
    from graphmem.config import Settings

    with pytest.raises(InvalidInput) as info:
        Settings.from_env({name: value})
    assert info.value.field == name
    assert problem in str(info.value)


def test_clock_says_which_re_embeddings_an_index_lacks() -> None:
    held = Clock(3, "e1")
    assert Clock(3, "e1").replaced_since(held) is None
    assert Clock(5, "e1").replaced_since(held) == 3
    assert Clock(2, "e1").replaced_since(held) == 0, "a clock gone back: every node"
    assert Clock(3, "e2").replaced_since(held) == 0, "a new epoch: every node"


def embed_segments(store: Store, vectors: dict[str, np.ndarray], epoch: str = "e") -> None:
    """Set Segment embeddings with the production statement, which advances the clock."""
    rows = [
        {"id": i, "vid": vector_id(i), "ts": 1_600_000_000, "embedding": v.tolist(), "summary": i}
        for i, v in vectors.items()
    ]
    store.write_batch("vectors.set_embeddings_segment", rows, epoch=epoch)


def unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def test_a_failed_refresh_is_retried_from_what_the_index_holds(
    store: Store, tmp_path: Path, monkeypatch
) -> None:
    from graphmem.errors import StoreError

    store.write(Q["vectors_test.create_segments"], ids=["a", "b"])
    embed_segments(store, {"a": unit(1), "b": unit(2)})
    serving = open_vs(store, tmp_path, refresh_ms=0)
    assert ids(serving.search("Segment", unit(1), 1)) == ["a"]
    embed_segments(store, {"a": unit(3)})  # another process re-embeds a in place
    real, failed = store.read, []

    def read_once_failing(name, /, **params):
        if "revised" in getattr(name, "name", str(name)) and not failed:
            failed.append(name)
            raise StoreError("connection lost")
        return real(name, **params)

    monkeypatch.setattr(store, "read", read_once_failing)
    with pytest.raises(StoreError):
        serving.search("Segment", unit(3), 1)
    [hit] = serving.search("Segment", unit(3), 1)
    assert (hit.node_id, round(hit.score, 4)) == ("a", 1.0), "a's new vector, after the retry"


def test_an_index_saved_before_the_graph_was_wiped_and_refilled_is_corrected(
    store: Store, tmp_path: Path
) -> None:
    store.write(Q["vectors_test.create_segments"], ids=["a", "b"])
    embed_segments(store, {"a": unit(1), "b": unit(2)}, epoch="first")
    saved = open_vs(store, tmp_path)
    assert ids(saved.search("Segment", unit(1), 1)) == ["a"]
    saved.index("Segment").dirty = True
    saved.close()  # on disk at clock revision 1 of epoch "first"
    store.write(Q["vectors_test.wipe_segments"])
    store.write(Q["vectors_test.create_segments"], ids=["a", "b"])
    embed_segments(store, {"a": unit(3), "b": unit(4)}, epoch="second")  # revision 1 again
    reopened = open_vs(store, tmp_path)
    [hit] = reopened.search("Segment", unit(3), 1)
    assert reopened.report("Segment").loaded
    assert (hit.node_id, round(hit.score, 4)) == ("a", 1.0)
