"""Embedder: texts to unit vectors on ONNX Runtime or torch; same vectors either way."""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from graphmem.config import EMBED_BACKENDS, EMBED_PRECISIONS
from graphmem.embed.modeldir import DEFAULT_MODEL, OnnxUnsupported, declared_dim, local_source
from graphmem.errors import InvalidInput

if TYPE_CHECKING:
    from graphmem.config import Settings

log = logging.getLogger("graphmem.embed")

# one ONNX model (or the reason there is none) per (cache root, model name, precision)
_EXPORTS: dict[tuple[Path, str, str], object] = {}
_EXPORTS_LOCK = threading.Lock()
_FELL_BACK: set[tuple[Path | None, str]] = set()  # (cache, model) whose fall-back was logged
# texts whose vectors encode_one keeps when served (from_settings): clients ask the same
# questions again, and a question's vector costs ~6 ms of CPU; 1,024 vectors of 384 floats
# take 1.5 MB, their texts at most 2 MB
CACHED_ONES, CACHED_LONGEST = 1024, 2000


class Backend(Protocol):
    """What a loaded model offers: its vector length and a batch encode."""

    dim: int

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray: ...


class Embedder:
    """Turns texts into L2-normalised float32 vectors; the model loads on first use.

    backend: "onnx" (ONNX Runtime, never torch once exported), "torch" (sentence-transformers),
    or "auto": onnx when the model can be exported and verified on the CPU, else torch.
    precision: "fp32", or "int8" (the ONNX export quantised: ~1.4-1.8x less CPU, vectors at cosine
    ~0.99 to fp32's); torch has no int8: "auto" serves a model ONNX cannot in fp32 on torch.
    """

    def __init__(
        self,
        model: str | None = None,
        device: str = "cpu",
        batch_size: int = 64,
        backend: str = "auto",
        cache_dir: Path | str | None = None,
        cached_ones: int = 0,
        precision: str = "fp32",
    ) -> None:
        """`cached_ones`: how many texts' vectors encode_one keeps (least recently used go)."""
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise InvalidInput("model", "must be a non-empty model name or path")
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise InvalidInput("batch_size", "must be a positive integer")
        if backend not in EMBED_BACKENDS:
            raise InvalidInput("backend", f"must be one of {', '.join(EMBED_BACKENDS)}")
        if backend == "onnx" and device != "cpu":
            raise InvalidInput("device", f"the onnx backend runs on the CPU, not {device!r}")
        if precision not in EMBED_PRECISIONS:
            raise InvalidInput("precision", f"must be one of {', '.join(EMBED_PRECISIONS)}")
        if precision == "int8" and (backend == "torch" or device != "cpu"):
            raise InvalidInput("precision", "int8 runs on the onnx backend on the CPU only")
        self._name = DEFAULT_MODEL if model is None else model.strip()
        self._device = device
        self._batch_size = batch_size
        self._backend = backend
        self._precision = precision  # asked for: the vector indexes' key
        self._int8_missing = False  # int8 asked for, but fp32 vectors served (no int8 copy)
        self._cache_dir = None if cache_dir is None else Path(cache_dir)
        self._model: Backend | None = None
        self._lock = threading.Lock()
        # least recently used go; maxsize 0 keeps nothing
        self._kept_one = functools.lru_cache(maxsize=cached_ones)(self._encode_new)

    @classmethod
    def from_settings(cls, settings: Settings) -> Embedder:
        """The embedder GRAPHMEM_EMBED_MODEL, _EMBED_BACKEND and _MODEL_CACHE ask for."""
        return cls(
            settings.embed_model,
            backend=settings.embed_backend,
            cache_dir=settings.model_cache,
            cached_ones=CACHED_ONES,
            precision=settings.precision,
        )

    @property
    def name(self) -> str:
        """The model name (or path) as given, whatever the backend, plus "@int8" when int8 was
        asked for: vector indexes key on it, so a change of precision rebuilds them."""
        return self._name if self._precision == "fp32" else f"{self._name}@{self._precision}"

    @property
    def precision(self) -> str:
        """ "fp32" or "int8": the precision asked for, or "fp32" once the model is loaded if no
        int8 copy could be made (logged once; the vectors are then fp32's)."""
        return "fp32" if self._int8_missing else self._precision

    @property
    def device(self) -> str:
        """The device the model runs on."""
        return self._device

    @property
    def backend(self) -> str:
        """The backend in use, "onnx" or "torch" (loads the model)."""
        from graphmem.embed.onnxrun import OnnxModel

        return "onnx" if isinstance(self._loaded(), OnnxModel) else "torch"

    @property
    def loaded(self) -> bool:
        """Whether the model is loaded (without loading it)."""
        return self._model is not None

    @property
    def dim(self) -> int:
        """Length of each embedding: read from the model's files when they declare it (so
        opening the vector indexes needs no model), else from the model, loading it."""
        if self._model is None and self._declared_dim is not None:
            return self._declared_dim
        return self._loaded().dim

    @functools.cached_property
    def _declared_dim(self) -> int | None:
        return declared_dim(self._name)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed `texts` in batches: float32 array of shape (len(texts), dim), rows of norm 1."""
        items = _checked_texts(texts)
        model = self._loaded()
        if not items:
            return np.zeros((0, model.dim), dtype=np.float32)
        return model.encode(items, self._batch_size)

    def encode_one(self, text: str) -> np.ndarray:
        """Embed one text: float32 vector of shape (dim,), norm 1."""
        if not isinstance(text, str):
            raise InvalidInput("text", f"must be a string, not {type(text).__name__}")
        if not text.strip():
            raise InvalidInput("text", "is empty")
        embed = self._kept_one if len(text) <= CACHED_LONGEST else self._encode_new
        return embed(text).copy()  # the kept one stays as the model made it

    def _encode_new(self, text: str) -> np.ndarray:
        return self.encode([text])[0]

    def _loaded(self) -> Backend:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = self._choose()
        return self._model

    def _choose(self) -> Backend:
        from graphmem.embed.torchrun import shared_model

        if self._backend == "torch" or self._device != "cpu":
            return shared_model(self._name, self._device)
        try:
            return shared_export(self._name, self._cache_dir, self._precision)
        except OnnxUnsupported as error:
            if self._precision == "int8":
                return self._fp32_instead(error)
            if self._backend == "onnx":
                raise
            self._warn_once("embedding model %r runs on torch: %s", error)
            return shared_model(self._name, self._device)

    def _fp32_instead(self, error: OnnxUnsupported) -> Backend:
        """No int8 copy: fp32 vectors, from the ONNX export if there is one, else torch's; they
        are what the int8 ones approximate (cosine ~0.99), so indexes keyed on int8 still work."""
        from graphmem.embed.torchrun import shared_model

        self._int8_missing = True
        try:
            model = shared_export(self._name, self._cache_dir, "fp32")
        except OnnxUnsupported as fp32_error:
            if self._backend == "onnx":
                raise fp32_error from error
            self._warn_once("embedding model %r runs on torch in fp32: %s", error)
            return shared_model(self._name, self._device)
        self._warn_once("embedding model %r runs its fp32 ONNX export (no int8 copy): %s", error)
        return model

    def _warn_once(self, message: str, error: Exception) -> None:
        if (self._cache_dir, self._name) not in _FELL_BACK:
            _FELL_BACK.add((self._cache_dir, self._name))
            log.warning(message, self._name, error)


def shared_export(name: str, cache_dir: Path | None = None, precision: str = "fp32") -> Backend:
    """The verified ONNX model for `name`, opened once per process; OnnxUnsupported if none."""
    from graphmem.embed.export import default_cache_root

    root = (cache_dir or default_cache_root()).expanduser().resolve()
    key = (root, local_source(name), precision)  # the default's aliases share one model
    with _EXPORTS_LOCK:
        found = _EXPORTS.get(key)
        if found is None:
            found = _EXPORTS[key] = _open_or_reason(name, root, precision)
    if isinstance(found, OnnxUnsupported):
        raise found
    return found  # type: ignore[return-value]


def _open_or_reason(name: str, root: Path, precision: str) -> object:
    """The exported model, or the OnnxUnsupported saying why there is none."""
    from graphmem.embed.export import open_export

    try:
        return open_export(name, root, precision=precision)
    except OnnxUnsupported as error:
        return error


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
