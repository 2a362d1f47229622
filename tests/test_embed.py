"""The embedder with the real bundled all-MiniLM-L6-v2 model, offline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphmem.embed import Embedder, ModelLoadError
from graphmem.errors import InvalidInput

SENTENCES = [
    "The cat sat on the mat.",
    "A kitten was sitting on the rug.",
    "Quarterly revenue rose by twelve percent.",
    "Sales grew 12% in the third quarter compared with last year.",
    "The train to Lyon leaves at nine.",
]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder(batch_size=2)  # a small batch so encode() spans several batches


def test_shape_dim_and_name(embedder: Embedder) -> None:
    vectors = embedder.encode(SENTENCES)
    assert vectors.shape == (5, 384) and vectors.dtype == np.float32
    assert embedder.dim == 384 and embedder.name == "all-MiniLM-L6-v2"
    assert embedder.encode([]).shape == (0, 384)
    assert embedder.encode_one("hello").shape == (384,)


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


def test_the_default_model_loads_once_per_device(embedder: Embedder) -> None:
    other = Embedder("sentence-transformers/all-MiniLM-L6-v2")
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
    missing = Embedder(str(tmp_path / "no-such-model"))
    with pytest.raises(ModelLoadError, match="no-such-model.*never downloads"):
        missing.encode(["hello"])
    with pytest.raises(ModelLoadError, match="nobody/not-a-model"):
        Embedder("nobody/not-a-model").encode_one("hello")
