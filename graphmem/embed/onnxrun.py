"""The ONNX backend at run time: tokenise, run, mean-pool, normalise; never imports torch."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.embed.modeldir import cpu_count

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
MANIFEST_FILE = "manifest.json"
REFERENCE_FILE = "reference.npy"  # sentence-transformers' vectors of the manifest's sentences
MIN_COSINE = 0.9999  # an export whose vectors differ more from the original is never used
# a run uses up to two cores: a question takes ~4 ms instead of ~6 on one core, and with the
# threads sleeping rather than spinning between steps it stays ~5 ms beside a busy process
RUN_THREADS = 2

# the tokenizers Encoding attribute behind each ONNX input name
FEEDS = {"input_ids": "ids", "attention_mask": "attention_mask", "token_type_ids": "type_ids"}


@dataclass(frozen=True)
class Manifest:
    """What an export was made from and how to run it; manifest.json in the export's folder."""

    name: str
    key: str
    dim: int
    max_seq_length: int
    do_lower_case: bool
    inputs: tuple[str, ...]
    sentences: tuple[str, ...]
    min_cosine: float  # the lowest cosine to sentence-transformers seen when verified
    versions: dict[str, str]
    precision: str = "fp32"  # "int8": quantised, and every text runs alone (see OnnxModel)

    def write(self, directory: Path) -> None:
        text = json.dumps(asdict(self), ensure_ascii=False, indent=1)
        (directory / MANIFEST_FILE).write_text(text, encoding="utf-8")

    @classmethod
    def read(cls, directory: Path) -> Manifest:
        data = json.loads((directory / MANIFEST_FILE).read_text(encoding="utf-8"))
        data["inputs"], data["sentences"] = tuple(data["inputs"]), tuple(data["sentences"])
        return cls(**data)


def session(path: Path, threads: int = 1) -> Any:
    """An ORT session on the CPU whose idle intra-op threads sleep instead of spinning.

    Spinning threads make two-thread runs fight any other busy process (p95 from 6 to 15 ms).
    """
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3  # errors only: ORT's warnings are not the user's business
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


class OnnxModel:
    """An exported model ready to embed; encode() is safe to call from many threads at once."""

    def __init__(self, directory: Path, manifest: Manifest) -> None:
        from tokenizers import Tokenizer

        self.directory = directory
        self.manifest = manifest
        self._tokenizer = Tokenizer.from_file(str(directory / TOKENIZER_FILE))
        # tokenizer.json may carry its own fixed padding and truncation; the model's config rules
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=manifest.max_seq_length)
        self._threads = min(RUN_THREADS, cpu_count())
        # int8 activations are quantised with one scale per run, so a text's vector would
        # depend on the texts batched with it (cosine ~0.97 to itself alone): each runs alone
        self._alone = manifest.precision == "int8"
        self._session = session(directory / MODEL_FILE, self._threads)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    @property
    def dim(self) -> int:
        return self.manifest.dim

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Unit vectors for `texts`, in order; batches of similar length run on all cores."""
        if self.manifest.do_lower_case:
            texts = [t.lower() for t in texts]
        # one by one (~30 µs each): encode_batch's Rust thread pool would make a later fork
        # (any subprocess) print a warning about parallelism into the user's output
        encodings = [self._tokenizer.encode(t) for t in texts]
        # sorted by length, each batch pads little; results go back to the callers' order
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        workers = max(1, cpu_count() // self._threads)
        size = 1 if self._alone else max(1, min(batch_size, -(-len(texts) // workers)))
        batches = [order[i : i + size] for i in range(0, len(order), size)]
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if len(batches) == 1 or workers == 1:  # one question, or one run at a time: no hand-off
            for batch in batches:
                out[batch] = self._run([encodings[i] for i in batch])
            return out
        pool = self._workers(workers)
        runs = [pool.submit(self._run, [encodings[i] for i in b]) for b in batches]
        for batch, run in zip(batches, runs, strict=True):
            out[batch] = run.result()
        return out

    def close(self) -> None:
        """Stop the batch threads (the model stays usable; they restart on demand)."""
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None

    def _workers(self, workers: int) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(workers, thread_name_prefix="graphmem-embed")
            return self._pool

    def _run(self, encodings: list[Any]) -> np.ndarray:
        """One padded batch through the network, mean-pooled over real tokens, L2-normalised."""
        longest = max(len(e.ids) for e in encodings)
        feeds = {}
        for name in self.manifest.inputs:
            rows = np.zeros((len(encodings), longest), dtype=np.int64)
            for row, encoding in zip(rows, encodings, strict=True):
                values = getattr(encoding, FEEDS[name])
                row[: len(values)] = values
            feeds[name] = rows
        tokens = self._session.run(None, feeds)[0]
        return mean_pool_normalise(tokens, feeds["attention_mask"])  # every export takes one

    def min_cosine(self, reference: np.ndarray, longest: int | None = None) -> float:
        """The lowest cosine between its vectors of the manifest's sentences and `reference`.

        `longest` skips sentences of more characters (a long one costs ~80 ms on one core).
        """
        rows = [
            i for i, s in enumerate(self.manifest.sentences) if longest is None or len(s) <= longest
        ]
        mine = self.encode([self.manifest.sentences[i] for i in rows], batch_size=len(rows))
        return float(np.min(np.sum(mine * reference[rows], axis=1)))


def mean_pool_normalise(tokens: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """sentence-transformers' mean Pooling then Normalize, in float32 as it computes them."""
    weights = mask[..., None].astype(np.float32)
    sums = np.sum(tokens * weights, axis=1)
    counts = np.clip(np.sum(weights, axis=1), 1e-9, None)
    means = sums / counts
    norms = np.clip(np.linalg.norm(means, axis=1, keepdims=True), 1e-12, None)
    return (means / norms).astype(np.float32, copy=False)
