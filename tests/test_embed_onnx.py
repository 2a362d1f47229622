"""The ONNX backend: export, cache, verification, rebuild, torch equality, threads, no torch."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from embedcache import onnx_cache  # noqa: F401  (a fixture)

from graphmem.cypher import load_dir
from graphmem.embed import DEFAULT_MODEL, Embedder, OnnxUnsupported
from graphmem.embed.export import _checked, open_export, verify
from graphmem.embed.modeldir import content_key, default_model_path, read_pipeline
from graphmem.embed.onnxrun import MODEL_FILE, REFERENCE_FILE, Manifest, OnnxModel
from graphmem.store import Store
from graphmem.vectors import VectorStore, vector_id

TEST_CYPHER = load_dir(Path(__file__).parent / "cypher")

LONG = " ".join(
    f"Paragraph {i}: the committee reviewed the budget, the schedule and the staffing plan "
    "before it approved the new depot on the northern ring road."
    for i in range(30)
)  # ~4,000 characters: far past the model's 256 tokens
VARIED = [
    "ok",
    "Jupiter",
    "Zürich's café served crème brûlée to visitors from 東京 🙂",
    "Здравствуйте, как дела? Ça va très bien, merci !",
    "   padded   with   spaces   \n",
    "Revenue 2023: $4.2bn (+12.5% YoY); EBITDA margin 31%.",
    LONG,
    "The regional rail operator said on Monday that it would add forty new trains to its fleet "
    "by 2027, cutting waits on the busiest lines.",
    "ALL CAPS HEADLINE ABOUT A STORM",
    "a b c d e f g",
]


@pytest.fixture(scope="module")
def onnx(onnx_cache: Path) -> Embedder:  # noqa: F811
    return Embedder(backend="onnx", cache_dir=onnx_cache)


@pytest.fixture(scope="module")
def torch_embedder() -> Embedder:
    return Embedder(backend="torch")


def export_dir(root: Path) -> Path:
    [folder] = [p for p in root.iterdir() if p.is_dir() and p.name not in ("keys",)]
    return folder


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1)


def test_vectors_equal_sentence_transformers(onnx: Embedder, torch_embedder: Embedder) -> None:
    assert onnx.backend == "onnx" and torch_embedder.backend == "torch"
    expected = torch_embedder.encode(VARIED)
    assert cosines(onnx.encode(VARIED), expected).min() >= 0.9999
    alone = np.stack([onnx.encode_one(text) for text in VARIED])
    assert cosines(alone, expected).min() >= 0.9999
    assert (onnx.name, onnx.dim) == (torch_embedder.name, torch_embedder.dim)


def test_the_export_is_verified_and_keyed_by_the_model_files(onnx_cache: Path) -> None:  # noqa: F811
    folder = export_dir(onnx_cache)
    manifest = Manifest.read(folder)
    assert folder.name == content_key(read_pipeline(default_model_path()), "graphmem-onnx-1")
    assert (manifest.dim, manifest.max_seq_length) == (384, 256)  # sentence_bert_config.json
    assert manifest.min_cosine >= 0.9999 and max(map(len, manifest.sentences)) > 2000
    assert np.load(folder / REFERENCE_FILE).shape == (len(manifest.sentences), 384)
    assert not [p for p in onnx_cache.iterdir() if p.name.startswith(".") and p.is_dir()]


def test_a_changed_model_file_changes_the_key(tmp_path: Path) -> None:
    copy = tmp_path / "model"
    shutil.copytree(default_model_path(), copy, ignore=shutil.ignore_patterns("*.safetensors"))
    (copy / "model.safetensors").symlink_to(default_model_path() / "model.safetensors")
    bundled = content_key(read_pipeline(default_model_path()), "s")
    assert content_key(read_pipeline(copy), "s") == bundled  # same files, same key
    config = copy / "sentence_bert_config.json"
    config.write_text(json.dumps({"max_seq_length": 128, "do_lower_case": False}))
    assert content_key(read_pipeline(copy), "s") != bundled
    assert read_pipeline(copy).max_seq_length == 128


def test_second_use_does_not_export_again(
    onnx_cache: Path,  # noqa: F811
    capfd: pytest.CaptureFixture[str],
) -> None:
    model_file = export_dir(onnx_cache) / MODEL_FILE
    before = model_file.stat().st_mtime_ns
    capfd.readouterr()
    open_export(DEFAULT_MODEL, onnx_cache).close()
    assert "exporting" not in capfd.readouterr().err
    assert model_file.stat().st_mtime_ns == before


def test_no_torch_is_imported_once_the_export_is_ready(onnx_cache: Path) -> None:  # noqa: F811
    code = (
        "import json, sys\n"
        "from graphmem.config import Settings\n"
        "from graphmem.services import open_embedder\n"
        "e = open_embedder(Settings.from_env())\n"
        "v = e.encode(['what did the council decide?', 'a second text'])\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules}"
        " & {'torch', 'sentence_transformers', 'transformers'})\n"
        "print(json.dumps({'backend': e.backend, 'shape': list(v.shape), 'heavy': heavy}))\n"
    )
    env = {
        **os.environ,
        "GRAPHMEM_MODEL_CACHE": str(onnx_cache),
        "GRAPHMEM_EMBED_BACKEND": "auto",
        "GRAPHMEM_EMBED_PRECISION": "fp32",  # the shared cache holds the fp32 export only
    }
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(done.stdout) == {"backend": "onnx", "shape": [2, 384], "heavy": []}
    assert done.stderr == ""  # no export notice, no progress bar, no warnings


def test_concurrent_calls_give_the_sequential_vectors(onnx: Embedder) -> None:
    texts = [f"{text} ({i})" for i in range(3) for text in VARIED]
    batches = [texts[i : i + 7] for i in range(0, len(texts), 7)]
    one_by_one = [onnx.encode_one(t) for t in texts]
    in_batches = [onnx.encode(b) for b in batches]
    with ThreadPoolExecutor(16) as pool:
        singles = list(pool.map(onnx.encode_one, texts))
        batched = list(pool.map(onnx.encode, batches))
    np.testing.assert_allclose(np.stack(singles), np.stack(one_by_one), atol=1e-6)
    np.testing.assert_allclose(np.concatenate(batched), np.concatenate(in_batches), atol=1e-6)


def test_batches_sorted_by_length_keep_the_callers_order(onnx_cache: Path) -> None:  # noqa: F811
    rng = np.random.default_rng(7)
    words = LONG.split()
    texts = [" ".join(words[: int(n)]) for n in rng.integers(1, 120, 40)]
    small = Embedder(backend="onnx", batch_size=4, cache_dir=onnx_cache)  # many batches, threads
    alone = np.stack([small.encode_one(t) for t in texts])
    assert cosines(small.encode(texts), alone).min() >= 0.99999


def copy_of(root: Path, tmp_path: Path) -> Path:
    """A private copy of a cache root, to damage without touching the shared one."""
    copy = tmp_path / "cache"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".lock"))
    return copy


def test_a_truncated_cached_model_is_rebuilt_and_logged_once(
    onnx_cache: Path,  # noqa: F811
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    root = copy_of(onnx_cache, tmp_path)
    model_file = export_dir(root) / MODEL_FILE
    size = model_file.stat().st_size
    with open(model_file, "r+b") as handle:
        handle.truncate(size // 3)
    killed = root / f".{model_file.parent.name}-killed"  # what an export killed midway leaves
    killed.mkdir()
    capfd.readouterr()
    with caplog.at_level(logging.WARNING, logger="graphmem.embed"):
        rebuilt = open_export(DEFAULT_MODEL, root)
        open_export(DEFAULT_MODEL, root).close()
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and "unusable" in warnings[0] and "rebuilding" in warnings[0]
    assert capfd.readouterr().err.count("exporting the embedding model") == 1
    assert model_file.stat().st_size == size and not killed.exists()
    shared = Embedder(backend="onnx", cache_dir=onnx_cache).encode(VARIED)
    np.testing.assert_allclose(rebuilt.encode(VARIED, batch_size=64), shared, atol=1e-5)
    rebuilt.close()


def drift(model_file: Path) -> None:
    """Valid ONNX with its weights nudged: loads fine, gives other vectors."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(model_file))
    rng = np.random.default_rng(0)
    for init in graph.graph.initializer:
        weights = numpy_helper.to_array(init)
        if weights.dtype == np.float32 and weights.size > 10_000:
            noisy = weights + rng.normal(0, 0.05, weights.shape).astype(np.float32)
            init.CopyFrom(numpy_helper.from_array(noisy, init.name))
    onnx.save(graph, str(model_file))


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda f: (f / MODEL_FILE).write_bytes(os.urandom(4096)), "Fail|Error"),
        (lambda f: drift(f / MODEL_FILE), "drifted from the verified ones"),
        (lambda f: (f / REFERENCE_FILE).write_bytes(b"\x93NUMPY garbage"), "Error"),
        (lambda f: (f / "manifest.json").unlink(), "no manifest"),
    ],
    ids=["garbage", "drifted", "bad-reference", "no-manifest"],
)
def test_a_damaged_export_is_never_used(
    onnx_cache: Path,  # noqa: F811
    tmp_path: Path,
    damage: Callable[[Path], object],
    reason: str,
) -> None:
    folder = export_dir(copy_of(onnx_cache, tmp_path))
    damage(folder)
    model, problem = _checked(folder)
    assert model is None and problem is not None
    assert re.search(reason, problem), problem


def test_an_export_that_differs_from_the_original_is_refused(onnx_cache: Path) -> None:  # noqa: F811
    folder = export_dir(onnx_cache)
    model = OnnxModel(folder, Manifest.read(folder))
    wrong = np.roll(np.load(folder / REFERENCE_FILE), 1, axis=0)  # each sentence vs another's
    with pytest.raises(OnnxUnsupported, match=r"lowest cosine .* < 0.9999\); it is not used"):
        verify(model, wrong)


def test_two_processes_export_at_once_through_the_cli(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "GRAPHMEM_MODEL_CACHE": str(tmp_path / "cache"),
        "GRAPHMEM_EMBED_PRECISION": "fp32",
    }
    command = [sys.executable, "-m", "graphmem.cli", "embed-export"]
    procs = [
        subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    results = [(p.wait(timeout=300), *p.communicate()) for p in procs]
    assert [code for code, _, _ in results] == [0, 0], results
    notices = sum(err.count("exporting the embedding model") for _, _, err in results)
    assert notices == 1  # one process built it; the other waited and found it
    folder = export_dir(tmp_path / "cache")
    assert all(str(folder) in out and "lowest cosine 0.99" in out for _, out, _ in results)
    assert not [p for p in (tmp_path / "cache").iterdir() if p.is_dir() and p.name[0] == "."]
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and again.stderr == ""
    assert again.stdout.startswith(f"{DEFAULT_MODEL}: already exported, {folder}")


WORLD = Path(__file__).parent / "fixtures" / "props_world.json"


def test_both_backends_find_the_same_neighbours_in_one_saved_index(
    store: Store, tmp_path: Path, onnx: Embedder, torch_embedder: Embedder
) -> None:
    world = json.loads(WORLD.read_text(encoding="utf-8"))
    props = world["propositions"]
    questions = [q["question"] for q in world["questions"]]
    stored = torch_embedder.encode([p["text"] for p in props])  # embedded by the torch backend
    rows = [
        {"id": p["key"], "vid": vector_id(p["key"]), "ts": i, "embedding": v.tolist()}
        for i, (p, v) in enumerate(zip(props, stored, strict=True))
    ]
    store.write_batch(TEST_CYPHER["vectors_test.create_propositions"], rows)

    def neighbours(embedder: Embedder) -> tuple[list[list[str]], bool]:
        with VectorStore(store, tmp_path, embedder.name, embedder.dim) as vectors:
            found = [
                [h.node_id for h in vectors.search("Proposition", v, 5)]
                for v in embedder.encode(questions)
            ]
            report = vectors.report("Proposition")
        return found, report is not None and report.loaded

    by_torch, _ = neighbours(torch_embedder)
    by_onnx, reused = neighbours(onnx)
    assert len(by_torch) == 37 and all(len(hits) == 5 for hits in by_torch)
    assert reused  # the index saved under the torch backend is loaded as is: nothing re-embedded
    assert [hits[0] for hits in by_onnx] == [hits[0] for hits in by_torch]
    assert [set(hits) for hits in by_onnx] == [set(hits) for hits in by_torch]


def test_an_export_failing_verification_is_not_cached_and_auto_uses_torch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import graphmem.embed.export as export

    monkeypatch.setattr(export, "MIN_COSINE", 1.5)  # a bar no export can clear
    root = tmp_path / "cache"
    with caplog.at_level(logging.WARNING, logger="graphmem.embed"):
        embedder = Embedder(cache_dir=root)
        vector = embedder.encode_one("hello")
    assert embedder.backend == "torch" and vector.shape == (384,)
    assert "runs on torch" in caplog.text and "it is not used" in caplog.text
    assert [p.name for p in root.iterdir() if p.is_dir()] == ["keys"]  # nothing half-made kept
