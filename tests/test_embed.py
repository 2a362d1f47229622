"""The embedder with the real bundled all-MiniLM-L6-v2 model, offline, on both backends."""

from __future__ import annotations

import json
import logging
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from embedcache import onnx_cache  # noqa: F401  (a fixture)

from graphmem.config import Settings
from graphmem.embed import Embedder, ModelLoadError, OnnxUnsupported
from graphmem.embed.modeldir import default_model_path
from graphmem.errors import InvalidInput
from graphmem.services import open_embedder

SENTENCES = [
    "The cat sat on the mat.",
    "A kitten was sitting on the rug.",
    "Quarterly revenue rose by twelve percent.",
    "Sales grew 12% in the third quarter compared with last year.",
    "The train to Lyon leaves at nine.",
]


@pytest.fixture(scope="module", params=["onnx", "torch"])
def embedder(request: pytest.FixtureRequest, onnx_cache: Path) -> Embedder:  # noqa: F811
    # a small batch so encode() spans several batches
    return Embedder(batch_size=2, backend=request.param, cache_dir=onnx_cache)


def test_shape_dim_name_and_backend(embedder: Embedder) -> None:
    vectors = embedder.encode(SENTENCES)
    assert vectors.shape == (5, 384) and vectors.dtype == np.float32
    assert embedder.dim == 384 and embedder.name == "all-MiniLM-L6-v2"
    assert embedder.encode([]).shape == (0, 384)
    assert embedder.encode_one("hello").shape == (384,)
    assert embedder.backend == embedder._backend  # asked for one backend: got that one


def test_vectors_are_normalised(embedder: Embedder) -> None:
    norms = np.linalg.norm(embedder.encode(SENTENCES), axis=1)
    assert norms == pytest.approx(np.ones(5), abs=1e-5)


def test_similar_sentences_are_closer_than_unrelated(embedder: Embedder) -> None:
    v = embedder.encode(SENTENCES)
    assert v[0] @ v[1] > v[0] @ v[2] and v[0] @ v[1] > v[0] @ v[4]
    assert v[2] @ v[3] > v[2] @ v[1] and v[2] @ v[3] > v[2] @ v[4]


def test_batching_equals_one_by_one(embedder: Embedder) -> None:
    batched = embedder.encode(SENTENCES)
    single = np.stack([embedder.encode_one(s) for s in SENTENCES])
    np.testing.assert_allclose(batched, single, atol=1e-5)


def test_the_default_model_loads_once(embedder: Embedder, onnx_cache: Path) -> None:  # noqa: F811
    other = Embedder(
        "sentence-transformers/all-MiniLM-L6-v2", backend=embedder._backend, cache_dir=onnx_cache
    )
    assert other._loaded() is embedder._loaded()  # the alias means the bundled copy


@pytest.mark.parametrize(
    ("texts", "field"),
    [(["fine", 3], r"texts\[1\]"), (["fine", "ok", "  "], r"texts\[2\]"), ("a string", "texts")],
)
def test_bad_texts_are_refused(embedder: Embedder, texts: object, field: str) -> None:
    with pytest.raises(InvalidInput, match=field):
        embedder.encode(texts)  # type: ignore[arg-type]


def test_bad_single_text_is_refused(embedder: Embedder) -> None:
    with pytest.raises(InvalidInput, match="text"):
        embedder.encode_one("")


def test_unknown_model_fails_clearly_without_downloading(tmp_path: Path) -> None:
    missing = Embedder(str(tmp_path / "no-such-model"), cache_dir=tmp_path / "cache")
    with pytest.raises(ModelLoadError, match="no-such-model.*never downloads"):
        missing.encode(["hello"])
    with pytest.raises(ModelLoadError, match="nobody/not-a-model"):
        Embedder("nobody/not-a-model", cache_dir=tmp_path / "cache").encode_one("hello")
    only_onnx = Embedder("nobody/not-a-model-either", backend="onnx", cache_dir=tmp_path / "c")
    with pytest.raises(OnnxUnsupported, match="not-a-model-either.*neither a local directory"):
        only_onnx.encode_one("hello")


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"backend": "tensorflow"}, "backend"),
        ({"backend": "onnx", "device": "cuda"}, "device"),
        ({"batch_size": 0}, "batch_size"),
        ({"model": "  "}, "model"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict, field: str) -> None:
    with pytest.raises(InvalidInput, match=f"^{field}:"):
        Embedder(**kwargs)


def test_settings_choose_the_backend_and_cache(tmp_path: Path) -> None:
    env = {"GRAPHMEM_EMBED_BACKEND": " Torch ", "GRAPHMEM_MODEL_CACHE": str(tmp_path)}
    settings = Settings.from_env(env)
    assert (settings.embed_backend, settings.model_cache) == ("torch", tmp_path)
    embedder = open_embedder(settings)
    assert embedder.backend == "torch" and not any(tmp_path.iterdir())  # torch exports nothing
    assert Settings.from_env({}).embed_backend == "auto"
    with pytest.raises(InvalidInput, match="GRAPHMEM_EMBED_BACKEND: must be one of auto, onnx"):
        Settings.from_env({"GRAPHMEM_EMBED_BACKEND": "gpu"})


def cls_pooling_model(tmp_path: Path) -> Path:
    """The bundled model with CLS pooling: sentence-transformers loads it, ONNX must refuse it."""
    model = tmp_path / "cls-model"
    shutil.copytree(default_model_path(), model, ignore=shutil.ignore_patterns("*.safetensors"))
    (model / "model.safetensors").symlink_to(default_model_path() / "model.safetensors")
    config = model / "1_Pooling" / "config.json"
    pooling = json.loads(config.read_text())
    pooling.update(pooling_mode_cls_token=True, pooling_mode_mean_tokens=False)
    config.write_text(json.dumps(pooling))
    return model


def test_a_pipeline_onnx_cannot_reproduce_falls_back_to_torch(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    model = cls_pooling_model(tmp_path)
    with caplog.at_level(logging.WARNING, logger="graphmem.embed"):
        auto = Embedder(str(model), cache_dir=tmp_path / "cache")
        vector = auto.encode_one("hello")
        again = Embedder(str(model), cache_dir=tmp_path / "cache").encode_one("hello")
    assert auto.backend == "torch" and vector.shape == (384,)
    np.testing.assert_allclose(vector, again, atol=1e-6)
    fallbacks = [r.getMessage() for r in caplog.records if "runs on torch" in r.getMessage()]
    assert len(fallbacks) == 1 and "pooling_mode_cls_token" in fallbacks[0]  # logged once
    with pytest.raises(OnnxUnsupported, match="pools with pooling_mode_cls_token.*mean pooling"):
        Embedder(str(model), backend="onnx", cache_dir=tmp_path / "cache").encode_one("hello")


def test_dim_comes_from_the_model_files_without_loading_the_model(
    tmp_path: Path,
    onnx_cache: Path,  # noqa: F811
) -> None:
    fresh = Embedder(cache_dir=onnx_cache)
    assert fresh.dim == 384 and not fresh.loaded  # so vector indexes open without the model
    assert fresh.encode_one("hello").shape == (fresh.dim,)
    # a pipeline the files do not fully describe (CLS pooling): only the model can tell
    other = Embedder(str(cls_pooling_model(tmp_path)), backend="torch")
    assert other.dim == 384 and other.loaded


def texts_run(embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the embedder's model embeds from now on."""
    model, runs = embedder._loaded(), []
    encode = model.encode  # the model is shared by every embedder of it in the process
    monkeypatch.setattr(
        model, "encode", lambda texts, size: runs.extend(texts) or encode(texts, size)
    )
    return runs


def test_the_served_embedder_embeds_a_repeated_question_once(
    onnx_cache: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # fp32: the shared test cache holds the fp32 export (int8 has its own tests)
    settings = Settings(embed_backend="onnx", model_cache=onnx_cache, embed_precision="fp32")
    served = open_embedder(settings)
    expected = Embedder(cache_dir=onnx_cache).encode_one(SENTENCES[0])
    runs = texts_run(served, monkeypatch)
    first = served.encode_one(SENTENCES[0])
    first[:] = 0  # the caller's copy: what is kept stays as the model made it
    again = served.encode_one(SENTENCES[0])
    assert runs == [SENTENCES[0]]
    np.testing.assert_allclose(again, expected, atol=1e-6)
    served.encode([SENTENCES[0]])  # batches are never served from what encode_one kept
    assert len(runs) == 2


def test_an_embedder_keeps_only_the_latest_texts(
    onnx_cache: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    small = Embedder(backend="onnx", cache_dir=onnx_cache, cached_ones=2)
    runs = texts_run(small, monkeypatch)
    for text in [SENTENCES[0], SENTENCES[1], SENTENCES[0], SENTENCES[2], SENTENCES[1]]:
        small.encode_one(text)
    # 0 and 1 kept; 0 used again, so 2 pushes out 1, which is embedded again
    assert runs == [SENTENCES[0], SENTENCES[1], SENTENCES[2], SENTENCES[1]]


def test_threads_get_the_right_vector_while_texts_are_kept_and_dropped(
    onnx_cache: Path,  # noqa: F811
) -> None:
    expected = dict(zip(SENTENCES, Embedder(cache_dir=onnx_cache).encode(SENTENCES), strict=True))
    small = Embedder(backend="onnx", cache_dir=onnx_cache, cached_ones=3)  # fewer than the texts
    texts = SENTENCES * 6
    with ThreadPoolExecutor(8) as pool:
        vectors = list(pool.map(small.encode_one, texts))
    for text, vector in zip(texts, vectors, strict=True):
        np.testing.assert_allclose(vector, expected[text], atol=1e-5)
