"""The int8 variant of the ONNX export: setting, cache, vectors, and vector indexes keyed on it."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from embedcache import onnx_cache  # noqa: F401  (a fixture)

from graphmem.config import Settings
from graphmem.cypher import load_dir
from graphmem.embed import DEFAULT_MODEL, Embedder, export
from graphmem.embed.export import INT8_FORMAT, INT8_MIN_COSINE, open_export
from graphmem.embed.onnxrun import MODEL_FILE, REFERENCE_FILE, Manifest
from graphmem.errors import InvalidInput
from graphmem.services import open_embedder
from graphmem.store import Store
from graphmem.vectors import VectorStore, vector_id

TEST_CYPHER = load_dir(Path(__file__).parent / "cypher")
WORLD = Path(__file__).parent / "fixtures" / "props_world.json"
TEXTS = [
    "ok",
    "Zürich's café served crème brûlée to visitors from 東京 🙂",
    "Revenue 2023: $4.2bn (+12.5% YoY); EBITDA margin 31%.",
    "The regional rail operator said on Monday that it would add forty new trains to its fleet "
    "by 2027, cutting waits on the busiest lines.",
    "Who runs Quillmere Foundry, and how many people does it employ in Brackwater?",
    "ALL CAPS HEADLINE ABOUT A STORM",
]


def fp32_copy(onnx_cache: Path, root: Path) -> Path:  # noqa: F811
    """A copy of the shared cache's fp32 export, without any int8 variant."""
    skipped = shutil.ignore_patterns(".lock", f"*-{INT8_FORMAT}", f".*-{INT8_FORMAT}-*")
    shutil.copytree(onnx_cache, root, ignore=skipped)
    return root


@pytest.fixture(scope="module")
def cache(onnx_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:  # noqa: F811
    """A copy of the shared cache (the fp32 export) in which the int8 variant gets built."""
    return fp32_copy(onnx_cache, tmp_path_factory.mktemp("int8") / "cache")


@pytest.fixture(scope="module")
def int8(cache: Path) -> Embedder:
    return Embedder(backend="onnx", cache_dir=cache, precision="int8")


@pytest.fixture(scope="module")
def fp32(cache: Path) -> Embedder:
    return Embedder(backend="onnx", cache_dir=cache)


def test_the_setting_is_read_and_checked(tmp_path: Path) -> None:
    env = {"GRAPHMEM_EMBED_PRECISION": " INT8 ", "GRAPHMEM_MODEL_CACHE": str(tmp_path)}
    settings = Settings.from_env(env)
    assert settings.embed_precision == "int8"
    assert open_embedder(settings).name == f"{DEFAULT_MODEL}@int8"
    assert Settings.from_env({}).precision == "int8"  # the default, on ONNX
    assert Settings.from_env({"GRAPHMEM_EMBED_BACKEND": "torch"}).precision == "fp32"
    assert Settings(embed_precision="fp32").precision == "fp32"
    with pytest.raises(InvalidInput, match="GRAPHMEM_EMBED_PRECISION: must be one of fp32, int8"):
        Settings.from_env({"GRAPHMEM_EMBED_PRECISION": "fp16"})
    with pytest.raises(InvalidInput, match="GRAPHMEM_EMBED_PRECISION: int8 needs the onnx"):
        Settings.from_env({"GRAPHMEM_EMBED_PRECISION": "int8", "GRAPHMEM_EMBED_BACKEND": "torch"})
    with pytest.raises(InvalidInput) as raised:
        Embedder(backend="torch", precision="int8")
    assert raised.value.field == "precision"


def test_int8_is_made_once_from_the_fp32_export_and_verified(
    int8: Embedder, cache: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    int8.encode_one("warm up")  # builds the variant
    [source] = [p for p in cache.iterdir() if p.is_dir() and len(p.name) == 32]
    folder = cache / f"{source.name}-{INT8_FORMAT}"
    manifest = Manifest.read(folder)
    assert manifest.precision == "int8" and manifest.dim == 384
    assert INT8_MIN_COSINE <= manifest.min_cosine < 1
    assert (folder / MODEL_FILE).stat().st_size < (source / MODEL_FILE).stat().st_size * 0.75
    capfd.readouterr()
    again = open_export(DEFAULT_MODEL, cache, precision="int8")
    assert again.directory == folder and again.manifest.precision == "int8"
    assert "quantising" not in capfd.readouterr().err  # found in the cache, not made again
    again.close()


def test_int8_vectors_are_close_to_fp32_and_do_not_depend_on_the_batch(
    int8: Embedder, fp32: Embedder
) -> None:
    batched = int8.encode(TEXTS)
    alone = np.stack([int8.encode_one(text) for text in TEXTS])
    np.testing.assert_allclose(batched, alone, atol=1e-6)  # each text runs alone
    cosines = np.sum(batched * fp32.encode(TEXTS), axis=1)
    assert cosines.min() >= INT8_MIN_COSINE
    assert np.allclose(np.linalg.norm(batched, axis=1), 1, atol=1e-5)
    assert int8.name == f"{DEFAULT_MODEL}@int8" and fp32.name == DEFAULT_MODEL


def test_int8_questions_find_the_fp32_nearest_neighbours(int8: Embedder, fp32: Embedder) -> None:
    world = json.loads(WORLD.read_text(encoding="utf-8"))
    texts = [p["text"] for p in world["propositions"]]
    questions = [q["question"] for q in world["questions"]]

    def ranked(embedder: Embedder) -> np.ndarray:
        return np.argsort(-(embedder.encode(questions) @ embedder.encode(texts).T), axis=1)[:, :5]

    mine, theirs = ranked(int8), ranked(fp32)
    # near ties may swap (1,200 and 2,050 employees at cosine 0.848 and 0.847), nothing more;
    # how many swap depends on the CPU's integer kernels: first in 35 of 37 with AVX2, 28 with
    # AVX-512 VNNI (docs/embeddings.md), always within the top 3
    assert all(theirs[i, 0] in mine[i, :3] for i in range(len(questions)))
    assert min(len(set(a) & set(b)) for a, b in zip(mine, theirs, strict=True)) >= 4
    assert np.mean(mine[:, 0] == theirs[:, 0]) >= 0.7


def test_a_damaged_int8_model_is_quantised_again_without_exporting(
    int8: Embedder,
    cache: Path,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    int8.encode_one("warm up")
    root = tmp_path / "cache"
    shutil.copytree(cache, root, ignore=shutil.ignore_patterns(".lock"))
    [folder] = root.glob(f"*-{INT8_FORMAT}")
    (folder / MODEL_FILE).write_bytes(b"not a model")
    capfd.readouterr()
    with caplog.at_level(logging.WARNING, logger="graphmem.embed"):
        model = open_export(DEFAULT_MODEL, root, precision="int8")
    err = capfd.readouterr().err
    assert any("unusable" in r.getMessage() for r in caplog.records)
    assert "quantising" in err and "exporting" not in err  # the fp32 export was still good
    np.testing.assert_allclose(model.encode(TEXTS, 64), int8.encode(TEXTS), atol=1e-6)
    model.close()


def test_embed_export_makes_the_int8_variant_from_the_fp32_export(
    onnx_cache: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    root = fp32_copy(onnx_cache, tmp_path / "cache")
    env = {**os.environ, "GRAPHMEM_MODEL_CACHE": str(root), "GRAPHMEM_EMBED_PRECISION": "int8"}
    command = [sys.executable, "-m", "graphmem.cli", "embed-export"]
    first, again = (
        subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        for _ in range(2)
    )
    assert first.returncode == 0 and "quantising" in first.stderr
    assert "exporting" not in first.stderr  # the fp32 export was there: only quantised
    [folder] = root.glob(f"*-{INT8_FORMAT}")
    assert first.stdout.startswith(f"{DEFAULT_MODEL} (int8): exported, {folder} (lowest cosine")
    assert again.stdout.startswith(f"{DEFAULT_MODEL} (int8): already exported, {folder}")
    assert again.returncode == 0 and again.stderr == ""


def test_a_change_of_precision_rebuilds_the_vector_index(
    store: Store, tmp_path: Path, int8: Embedder, fp32: Embedder
) -> None:
    world = json.loads(WORLD.read_text(encoding="utf-8"))
    props = world["propositions"]
    stored = fp32.encode([p["text"] for p in props])
    rows = [
        {"id": p["key"], "vid": vector_id(p["key"]), "ts": i, "embedding": v.tolist()}
        for i, (p, v) in enumerate(zip(props, stored, strict=True))
    ]
    store.write_batch(TEST_CYPHER["vectors_test.create_propositions"], rows)

    def opened(embedder: Embedder) -> tuple[bool, str | None, int]:
        with VectorStore(store, tmp_path, embedder.name, embedder.dim) as vectors:
            hits = vectors.search("Proposition", embedder.encode_one(props[0]["text"]), 1)
            report = vectors.report("Proposition")
        assert report is not None and hits[0].node_id == props[0]["key"]
        return report.loaded, report.reason, report.added

    assert opened(fp32)[0] is False  # first open: built from the graph
    assert opened(fp32) == (True, None, 0)
    loaded, reason, added = opened(int8)  # the fp32 index is not silently reused
    assert not loaded and added == len(props)
    assert reason is not None and f"{DEFAULT_MODEL}@int8" in reason
    assert opened(int8) == (True, None, 0)
    assert opened(fp32)[0] is False  # and back


def test_an_int8_copy_read_on_another_cpu_is_kept_unless_damaged(
    int8: Embedder, cache: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Integer kernels differ between CPUs: a copy whose own vectors moved by ~1e-4 in cosine
    is used as it is; one that moved by 1e-2 is made again."""
    int8.encode_one("warm up")
    root = tmp_path / "cache"
    shutil.copytree(cache, root, ignore=shutil.ignore_patterns(".lock"))
    [folder] = root.glob(f"*-{INT8_FORMAT}")
    reference = np.load(folder / REFERENCE_FILE)
    rng = np.random.default_rng(0)
    for scale, remade in ((0.01, False), (0.15, True)):
        moved = reference + scale * rng.standard_normal(reference.shape).astype(np.float32) / 20
        moved /= np.linalg.norm(moved, axis=1, keepdims=True)
        np.save(folder / REFERENCE_FILE, moved)
        lowest = float(np.min(np.sum(moved * reference, axis=1)))
        capfd.readouterr()
        open_export(DEFAULT_MODEL, root, precision="int8").close()
        assert ("quantising" in capfd.readouterr().err) == remade, lowest


def test_without_an_int8_copy_the_fp32_export_serves_and_says_so(
    fp32: Embedder,
    onnx_cache: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    root = fp32_copy(onnx_cache, tmp_path / "cache")
    monkeypatch.setattr(export, "INT8_MIN_COSINE", 1.01)  # no int8 copy can pass its check
    for backend in ("auto", "onnx"):
        asked = Embedder(backend=backend, cache_dir=root, precision="int8")
        with caplog.at_level(logging.WARNING, logger="graphmem.embed"):
            vectors = asked.encode(TEXTS)
        assert asked.backend == "onnx" and asked.precision == "fp32", "the fp32 export, not torch"
        assert asked.name == f"{DEFAULT_MODEL}@int8", "the indexes' key stays what was asked"
        np.testing.assert_allclose(vectors, fp32.encode(TEXTS), atol=1e-6)
    assert "runs its fp32 ONNX export (no int8 copy)" in caplog.text
    assert not list(root.glob(f"*-{INT8_FORMAT}")), "nothing half-made left in the cache"
