"""Index files on disk: paths, watermark, checksum, atomic writes and the save lock."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.vectors.model import VectorIndexError

FORMAT_VERSION = 1


def saved_watermark(directory: str | Path, label: str) -> float | None:
    """When the saved index of `label` was last known to match the graph, if readable."""
    _, side_path = _paths(Path(directory), label)
    try:
        with np.load(side_path, allow_pickle=False) as side:
            value = json.loads(str(side["meta"])).get("synced_at")
    except (OSError, ValueError, KeyError):
        return None
    return float(value) if isinstance(value, int | float) else None


@contextlib.contextmanager
def _file_lock(directory: Path) -> Any:
    """An exclusive lock between processes saving into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "a+b") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def _paths(directory: Path, label: str) -> tuple[Path, Path]:
    return directory / f"{label}.faiss", directory / f"{label}.npz"


def _checksum(vids: np.ndarray) -> str:
    """A digest of the vid set, independent of slot order."""
    return hashlib.sha256(np.sort(vids).astype(">i8").tobytes()).hexdigest()


def _check_watermark(meta: dict[str, Any], label: str, dim: int, model_name: str) -> None:
    if meta.get("format") != FORMAT_VERSION or meta.get("label") != label:
        raise VectorIndexError(f"saved {label} index has format/label {meta.get('format')}")
    if meta.get("model") != model_name or meta.get("dim") != dim:
        raise VectorIndexError(
            f"saved {label} index is for model {meta.get('model')!r} (dim {meta.get('dim')}), "
            f"not {model_name!r} (dim {dim})"
        )


def _atomic_write(path: Path, write: Any) -> None:
    """Write through a temp file, fsync it, then rename it over `path`."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _fsync_dir(directory: Path) -> None:
    # makes the renames durable; not every platform can open a directory
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
