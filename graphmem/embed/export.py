"""ONNX exports of sentence-transformers models: built once with torch, verified, cached by content.

Layout of a cache root: `<key>/` (model.onnx, tokenizer.json, manifest.json, reference.npy),
`<key>-int8-1/` (the same, quantised from `<key>/`: GRAPHMEM_EMBED_PRECISION=int8),
`.lock` (held while a process builds an export), `keys/<stat signature>` (the content key of
files whose paths, sizes and mtimes are unchanged, so a start does not hash the weights again).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.embed.modeldir import (
    ModelLoadError,
    OnnxUnsupported,
    Pipeline,
    content_key,
    local_directory,
    read_pipeline,
    stat_signature,
)
from graphmem.embed.onnxrun import (
    FEEDS,
    MANIFEST_FILE,
    MIN_COSINE,
    MODEL_FILE,
    REFERENCE_FILE,
    TOKENIZER_FILE,
    Manifest,
    OnnxModel,
)
from graphmem.files import file_lock

log = logging.getLogger("graphmem.embed")

EXPORT_FORMAT = "graphmem-onnx-1"  # part of the key: change it when an export's contents change
INT8_FORMAT = "int8-1"  # the int8 variant's folder suffix: change it when its recipe changes
# each text's int8 vector (run alone) against sentence-transformers': 0.98 at worst on the
# verification sentences, 0.99 on average over 1,400 varied ones; lower means a broken recipe
INT8_MIN_COSINE = 0.95
# an int8 copy re-checks its own vectors more loosely than fp32's 0.9999: integer kernels differ
# between CPUs (AVX2 saturates where VNNI does not), so a cache made on one machine and read on
# another may move a vector by ~1e-3 without being damaged; damage moves it far more
INT8_RECHECK_COSINE = 0.999
OPSET = 17
# each start re-checks the export on the verified sentences up to this length: a file damaged
# since it was verified is caught in ~30 ms (truncation past max_seq_length was checked at export)
QUICK_CHECK_CHARS = 500
_LONG = (
    "The harbour authority said on Tuesday that container traffic through the port rose for the "
    "third quarter in a row, helped by new rail links, longer opening hours and a deeper channel. "
)
# verified against sentence-transformers: one word, unicode, numbers, and text past any limit
VERIFY_SENTENCES = (
    "hello",
    "The cat sat on the mat.",
    "Quarterly revenue rose 12.5% to $4.2bn (Q3 2023), beating the 11% analysts expected.",
    "Zürich's café served crème brûlée; 東京は晴れ, Москва — снег; naïve emoji 🙂👍🏽.",
    "  leading and trailing spaces,\ta tab and a\nnewline  ",
    "ÉCOLE NORMALE SUPÉRIEURE ANNOUNCES NEW PROGRAMME",
    _LONG * 24,  # ~4,500 characters, beyond the 512 tokens any BERT takes
    "Who runs Quillmere Foundry, and how many people does it employ in Brackwater?",
)


def default_cache_root(env: Mapping[str, str] | None = None) -> Path:
    """$XDG_CACHE_HOME/graphmem/models, or ~/.cache/graphmem/models."""
    found = os.environ if env is None else env
    base = found.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "graphmem" / "models"


def open_export(name: str, root: Path, rebuild: bool = False, precision: str = "fp32") -> OnnxModel:
    """The verified ONNX export of model `name` from cache `root`, built first if missing or bad.

    precision "int8": its dynamically quantised variant, made from the fp32 export.

    Every way it can fail (unsupported model, no torch or onnxruntime, an export or a check that
    fails) is an OnnxUnsupported saying why.
    """
    try:
        return _open_or_build(name, root, rebuild, precision)
    except OnnxUnsupported:
        raise
    except ModelLoadError as error:  # the original itself would not load for the export
        raise OnnxUnsupported(str(error)) from error
    except ImportError as error:
        raise OnnxUnsupported(f"{error.name or 'a module'} is not installed ({error})") from error
    except Exception as error:  # torch.onnx and ORT fail in their own ways on exotic models
        problem = f"{type(error).__name__}: {str(error)[:300]}"
        raise OnnxUnsupported(f"the ONNX export failed: {problem}") from error


def export_folder(name: str, root: Path, precision: str = "fp32") -> Path:
    """Where the export of model `name` lives (or will) in cache `root`."""
    return variant(_folder(read_pipeline(local_directory(name)), root), precision)


def variant(folder: Path, precision: str) -> Path:
    """The folder of the `precision` variant of the fp32 export in `folder`."""
    return folder if precision == "fp32" else folder.with_name(f"{folder.name}-{INT8_FORMAT}")


def _folder(pipeline: Pipeline, root: Path) -> Path:
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OnnxUnsupported(f"the ONNX model cache {root} cannot be created: {error}") from error
    return root / cache_key(pipeline, root)


def _open_or_build(name: str, root: Path, rebuild: bool, precision: str) -> OnnxModel:
    import onnxruntime  # noqa: F401  (when it is missing, say so before exporting anything)

    pipeline = read_pipeline(local_directory(name))
    source = _folder(pipeline, root)
    folder = variant(source, precision)
    model = None if rebuild else _checked(folder)[0]
    if model is not None:
        return model
    with file_lock(root):  # one builder at a time; the others then find its export
        model, problem = (None, None) if rebuild else _checked(folder)  # built meanwhile?
        if model is not None:
            return model
        if problem is not None:
            log.warning("the cached ONNX model %s is unusable (%s); rebuilding it", folder, problem)
        if folder != source:  # the variant is made from the fp32 export: that one first
            if rebuild or not _usable(source):
                _build_clean(root, source, lambda: build(name, pipeline, source))
            _build_clean(root, folder, lambda: build_int8(source, folder))
        else:
            _build_clean(root, folder, lambda: build(name, pipeline, folder))
        model, problem = _checked(folder)
        if model is None:
            raise OnnxUnsupported(f"the fresh ONNX export in {folder} cannot be used: {problem}")
        return model


def _usable(folder: Path) -> bool:
    model = _checked(folder)[0]
    if model is not None:
        model.close()
    return model is not None


def _build_clean(root: Path, folder: Path, builder: Callable[[], None]) -> None:
    """Remove what a killed build left of `folder` (the caller holds the lock), then build."""
    for leftover in [folder, *root.glob(f".{folder.name}-*")]:
        shutil.rmtree(leftover, ignore_errors=True)
    builder()


def cache_key(pipeline: Pipeline, root: Path) -> str:
    """The content key of the model's files, remembered under their stat signature."""
    memo = root / "keys" / stat_signature(pipeline, EXPORT_FORMAT)
    with contextlib.suppress(OSError):
        key = memo.read_text(encoding="ascii").strip()
        if len(key) == 32 and key.isalnum():
            return key
    key = content_key(pipeline, EXPORT_FORMAT)
    with contextlib.suppress(OSError):  # only a memo: without it the next start hashes again
        memo.parent.mkdir(exist_ok=True)
        _write_atomic(memo, key)
    return key


def _checked(folder: Path) -> tuple[OnnxModel | None, str | None]:
    """The export in `folder` if it loads and still gives its reference vectors; else why not."""
    if not folder.exists():
        return None, None
    if not (folder / MANIFEST_FILE).is_file():
        return None, "no manifest"
    try:
        manifest = Manifest.read(folder)
        reference = np.load(folder / REFERENCE_FILE)
        model = OnnxModel(folder, manifest)
        cosine = model.min_cosine(reference, longest=QUICK_CHECK_CHARS)
    except Exception as error:  # truncated or garbage files fail in many ways, all mean rebuild
        return None, f"{type(error).__name__}: {str(error)[:200]}"
    floor = INT8_RECHECK_COSINE if manifest.precision == "int8" else MIN_COSINE
    if not cosine >= floor:
        model.close()
        return None, f"its vectors drifted from the verified ones (cosine {cosine:.6f})"
    return model, None


def build(name: str, pipeline: Pipeline, folder: Path) -> None:
    """Export with torch into a temporary folder, verify, then rename it into place."""
    print(
        f"graphmem: exporting the embedding model {name!r} to ONNX and verifying it "
        f"(once; cached in {folder.parent})",
        file=sys.stderr,
        flush=True,
    )
    temp = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        original = _sentence_transformer(pipeline, name)
        inputs = _export_graph(original, pipeline, temp / MODEL_FILE)
        shutil.copyfile(pipeline.directory / TOKENIZER_FILE, temp / TOKENIZER_FILE)
        reference = _reference(original, VERIFY_SENTENCES)
        np.save(temp / REFERENCE_FILE, reference)
        manifest = Manifest(
            name=name,
            key=folder.name,
            dim=pipeline.dim,
            max_seq_length=pipeline.max_seq_length,
            do_lower_case=pipeline.do_lower_case,
            inputs=inputs,
            sentences=VERIFY_SENTENCES,
            min_cosine=0.0,
            versions=_versions(),
        )
        manifest.write(temp)
        cosine = verify(OnnxModel(temp, manifest), reference)
        replace(manifest, min_cosine=cosine).write(temp)
        os.rename(temp, folder)  # atomic: readers see no export or a whole, verified one
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def build_int8(source: Path, folder: Path) -> None:
    """Quantise the verified fp32 export in `source` into `folder`: int8 weights (per output
    channel) in every MatMul, activations quantised at run time; verified, then renamed."""
    print(
        f"graphmem: quantising the embedding model to int8 (once; cached in {folder.parent})",
        file=sys.stderr,
        flush=True,
    )
    temp = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        _quantize(source / MODEL_FILE, temp / MODEL_FILE)
        shutil.copyfile(source / TOKENIZER_FILE, temp / TOKENIZER_FILE)
        manifest = replace(
            Manifest.read(source),
            key=folder.name,
            precision="int8",
            min_cosine=0.0,
            versions=_versions(),
        )
        manifest.write(temp)
        model = OnnxModel(temp, manifest)
        try:
            own = model.encode(list(manifest.sentences), batch_size=1)
        finally:
            model.close()
        cosine = float(np.min(np.sum(own * np.load(source / REFERENCE_FILE), axis=1)))
        if not cosine >= INT8_MIN_COSINE:
            raise OnnxUnsupported(
                f"the int8 model's vectors differ too much from sentence-transformers' (lowest "
                f"cosine {cosine:.4f} < {INT8_MIN_COSINE}); it is not used"
            )
        np.save(temp / REFERENCE_FILE, own)  # what each start re-checks: its own vectors
        replace(manifest, min_cosine=cosine).write(temp)
        os.rename(temp, folder)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _quantize(source: Path, target: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    advice = _DropAdvice()
    root.addFilter(advice)  # it logs advice to pre-process the graph on the root logger
    try:
        quantize_dynamic(
            source,
            target,
            per_channel=True,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul"],  # the embedding table stays float: a Gather, not math
        )
    finally:
        root.removeFilter(advice)


class _DropAdvice(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "pre-processing before quantization" not in record.getMessage()


def verify(model: OnnxModel, reference: np.ndarray) -> float:
    """The lowest cosine to the original, batched and one by one; OnnxUnsupported below 0.9999."""
    try:
        sentences = list(model.manifest.sentences)
        alone = np.stack([model.encode([s], batch_size=1)[0] for s in sentences])
        cosine = min(model.min_cosine(reference), float(np.min(np.sum(alone * reference, axis=1))))
    finally:
        model.close()
    if not cosine >= MIN_COSINE:
        raise OnnxUnsupported(
            f"the ONNX export's vectors differ from sentence-transformers' (lowest cosine "
            f"{cosine:.6f} < {MIN_COSINE}); it is not used"
        )
    return cosine


def _sentence_transformer(pipeline: Pipeline, name: str) -> Any:
    try:
        import torch  # noqa: F401  (only to say plainly that exporting needs it)
    except ImportError as error:
        raise OnnxUnsupported("exporting to ONNX needs torch, which is not installed") from error
    from graphmem.embed.torchrun import load_offline

    return load_offline(str(pipeline.directory), "cpu", name)


def _reference(original: Any, sentences: tuple[str, ...]) -> np.ndarray:
    vectors = original.encode(
        list(sentences),
        batch_size=len(sentences),
        show_progress_bar=False,
        convert_to_numpy=True,
        normalize_embeddings=True,
    )
    return np.ascontiguousarray(vectors, dtype=np.float32)


def _export_graph(original: Any, pipeline: Pipeline, path: Path) -> tuple[str, ...]:
    """The Transformer module to ONNX (token embeddings out); returns the graph's input names."""
    import inspect

    import torch
    from tokenizers import Tokenizer

    network = original[0].auto_model.eval()
    accepted = inspect.signature(network.forward).parameters
    inputs = tuple(n for n in FEEDS if n in accepted)
    if "input_ids" not in inputs or "attention_mask" not in inputs:
        kind = type(network).__name__
        raise OnnxUnsupported(f"{kind} does not take input_ids and attention_mask")
    tokenizer = Tokenizer.from_file(str(pipeline.directory / TOKENIZER_FILE))
    tokenizer.enable_padding()  # two lengths, so the traced graph keeps the padding mask
    encodings = tokenizer.encode_batch(["short", "a longer sentence, padded to the other one"])
    sample = tuple(
        torch.tensor([getattr(e, FEEDS[n]) for e in encodings], dtype=torch.long) for n in inputs
    )

    class TokenEmbeddings(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.network = network  # a submodule, so its weights export as weights

        def forward(self, *args: torch.Tensor) -> torch.Tensor:
            return self.network(**dict(zip(inputs, args, strict=True))).last_hidden_state

    axes = {n: {0: "batch", 1: "tokens"} for n in (*inputs, "token_embeddings")}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer warnings about shapes; verification decides
        torch.onnx.export(
            TokenEmbeddings(),
            sample,
            str(path),
            dynamo=False,
            opset_version=OPSET,
            input_names=list(inputs),
            output_names=["token_embeddings"],
            dynamic_axes=axes,
        )
    return inputs


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {"format": EXPORT_FORMAT, "opset": str(OPSET)}
    for package in ("torch", "onnx", "onnxruntime", "sentence-transformers", "transformers"):
        with contextlib.suppress(PackageNotFoundError):
            found[package] = version(package)
    return found


def _write_atomic(path: Path, text: str) -> None:
    temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    temp.write_text(text, encoding="ascii")
    os.replace(temp, path)
