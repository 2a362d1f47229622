"""The torch backend: sentence-transformers itself, loaded offline and without progress bars."""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np

from graphmem.embed.modeldir import ModelLoadError, local_source

# one loaded model per (source, device), shared by every Embedder: loading takes seconds
_MODELS: dict[tuple[str, str], TorchModel] = {}
_MODELS_LOCK = threading.Lock()


class TorchModel:
    """A SentenceTransformer behind the same two members as the ONNX model: dim and encode."""

    def __init__(self, model: Any) -> None:
        self.model = model
        # one encode at a time: transformers' fast tokenizer is reconfigured (truncation,
        # padding) on every call and fails with "Already borrowed" when two threads meet
        # there; torch uses every core for one call anyway
        self._lock = threading.Lock()
        get_dim = getattr(model, "get_embedding_dimension", None) or (
            model.get_sentence_embedding_dimension
        )
        self.dim = int(get_dim())

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        with self._lock:
            vectors = self.model.encode(
                texts,
                batch_size=batch_size,
                show_progress_bar=False,
                convert_to_numpy=True,
                normalize_embeddings=True,
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def close(self) -> None:
        """Nothing to stop: sentence-transformers runs on the calling thread."""


def shared_model(name: str, device: str) -> TorchModel:
    """The model `name` on `device`, loaded once per process."""
    source = local_source(name)
    with _MODELS_LOCK:
        model = _MODELS.get((source, device))
        if model is None:
            model = _MODELS[(source, device)] = TorchModel(load_offline(source, device, name))
        return model


def load_offline(source: str, device: str, name: str) -> Any:
    """A fresh SentenceTransformer from local files only, without the weight-loading bar."""
    # set before the import: huggingface_hub reads these once, when first imported
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    try:
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        bars = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()  # "Loading weights" would land in command output
        try:
            # local_files_only also covers a huggingface_hub imported before the env was set
            return SentenceTransformer(source, device=device, local_files_only=True)
        finally:
            if bars:
                hf_logging.enable_progress_bar()
    except Exception as error:
        where = "" if source == name else f" (from {source})"
        cause = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise ModelLoadError(
            f"embedding model {name!r}{where} could not be loaded on {device!r}. graphmem "
            "never downloads models: give a local model directory or a model already in "
            f"the Hugging Face cache. Cause: {type(error).__name__}: {cause}"
        ) from error
