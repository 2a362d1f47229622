"""Index files on disk: private atomic writes, checksums verified on every read, the save lock.

A saved index is two files: `<label>.faiss` (the FAISS index) and `<label>.npz` (each slot's
vid, ts, node id and liveness, plus `meta`, a JSON watermark). `meta` carries the sha256 of the
.faiss bytes and of the arrays beside it, and `meta_sha256` the sha256 of `meta` itself, so any
changed, truncated or half-written byte is caught before FAISS parses the file: a damaged pair
raises DamagedIndexFile and is rebuilt from the graph, never searched.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import faiss
import numpy as np

from graphmem.files import private_dir, private_open
from graphmem.vectors.model import DamagedIndexFile, VectorIndexError

FORMAT_VERSION = 2  # 1: no checksums over the file contents
ARRAYS = ("vids", "ts", "alive", "node_ids")  # the slot arrays of the side file, in hash order


@dataclass(frozen=True)
class SavedIndex:
    """A saved index whose files passed their checksums."""

    idmap: Any  # faiss.IndexIDMap
    meta: dict[str, Any]
    arrays: dict[str, np.ndarray]  # ARRAYS by name


def index_paths(directory: Path, label: str) -> tuple[Path, Path]:
    """The .faiss file and the side file of `label`'s index in `directory`."""
    return directory / f"{label}.faiss", directory / f"{label}.npz"


def saved_watermark(directory: str | Path, label: str) -> float | None:
    """When the saved index of `label` was last known to match the graph, if readable."""
    return watermark_of(index_paths(Path(directory), label)[1])


def saved_model(directory: str | Path, label: str) -> str | None:
    """The embedding model the saved index of `label` was built for, if readable."""
    value = _meta_value(index_paths(Path(directory), label)[1], "model")
    return value if isinstance(value, str) else None


def watermark_of(path: Path) -> float | None:
    """The `synced_at` of a file written by write_arrays, if it is readable."""
    value = _meta_value(path, "synced_at")
    return float(value) if isinstance(value, int | float) else None


def _meta_value(path: Path, key: str) -> Any:
    """`meta[key]` of a side file, None if it is unreadable."""
    try:
        with _open_side(path) as side:
            return _read_meta(side, path).get(key)
    except VectorIndexError:
        return None


def write_index(
    directory: Path, label: str, blob: np.ndarray, arrays: dict[str, np.ndarray], meta: dict
) -> None:
    """Write `label`'s index (`blob`: serialised FAISS bytes) and its side file atomically.

    Each file is replaced atomically; a crash between the two leaves a pair whose checksums
    no longer match, which read_index rejects.
    """
    private_dir(directory)
    faiss_path, side_path = index_paths(directory, label)
    meta = {
        **meta,
        "faiss_bytes": int(blob.nbytes),
        "faiss_sha256": hashlib.sha256(blob.data).hexdigest(),
    }
    write_arrays(side_path, arrays, meta, sync=False)
    _atomic_write(faiss_path, lambda f: f.write(blob.data))
    _fsync_dir(directory)


def write_arrays(path: Path, arrays: dict[str, np.ndarray], meta: dict, sync: bool = True) -> None:
    """Write named arrays and a JSON watermark `meta` into one .npz, atomically, checksummed.

    `meta` gains the format, `arrays_sha256` (over the arrays in the order given) and, beside
    it, `meta_sha256`. `sync`: make the rename durable at once.
    """
    private_dir(path.parent)
    meta = {**meta, "format": FORMAT_VERSION, "arrays_sha256": _arrays_digest(arrays)}
    text = json.dumps(meta, sort_keys=True)
    side: dict[str, Any] = {
        **arrays,
        "meta": np.array(text),
        "meta_sha256": np.array(_sha256(text)),
    }
    _atomic_write(path, lambda f: np.savez(f, **side))
    if sync:
        _fsync_dir(path.parent)


def read_arrays(path: Path, names: tuple[str, ...]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """(meta, arrays by name) of a file written by write_arrays, checked against its checksums.

    VectorIndexError when it is missing or of an older format; DamagedIndexFile otherwise.
    """
    if not path.is_file():
        raise VectorIndexError(f"no saved index {path}")
    with _open_side(path) as side:
        meta = _read_meta(side, path)
        arrays = {name: _member(side, name, path) for name in names}
    if meta.get("arrays_sha256") != _arrays_digest(arrays):
        raise DamagedIndexFile(path, "its arrays do not match their checksum")
    return meta, arrays


def read_index(directory: Path, label: str) -> SavedIndex:
    """`label`'s saved index, checked against its checksums.

    VectorIndexError when there is none or it was written by an older format; DamagedIndexFile
    (naming the file) when a file is unreadable or does not match its checksum.
    """
    faiss_path, side_path = index_paths(directory, label)
    if not (faiss_path.is_file() and side_path.is_file()):
        raise VectorIndexError(f"no saved {label} index in {directory}")
    meta, arrays = read_arrays(side_path, ARRAYS)
    idmap = _read_faiss(faiss_path, meta)
    return SavedIndex(idmap, meta, arrays)


@contextlib.contextmanager
def _open_side(path: Path) -> Iterator[Any]:
    """The side file opened as an npz archive; DamagedIndexFile if it is not one."""
    try:
        side = np.load(path, allow_pickle=False)
    except Exception as error:  # a damaged zip fails in many ways (BadZipFile, EOFError, ...)
        raise DamagedIndexFile(path, f"unreadable: {error!r}") from error
    with side:
        yield side


def _member(side: Any, name: str, path: Path) -> np.ndarray:
    try:
        return side[name]
    except Exception as error:  # see _open_side; CRC errors surface only when a member is read
        raise DamagedIndexFile(path, f"{name} is unreadable: {error!r}") from error


def _read_meta(side: Any, path: Path) -> dict[str, Any]:
    """The side file's watermark, after checking it against `meta_sha256`."""
    text = str(_member(side, "meta", path))
    if "meta_sha256" not in side.files:
        if _format_of(text) == 1:
            raise VectorIndexError(f"{path} was saved by an older version (no checksums)")
        raise DamagedIndexFile(path, "it has no checksum")
    if str(_member(side, "meta_sha256", path)) != _sha256(text):
        raise DamagedIndexFile(path, "its watermark does not match its checksum")
    meta = json.loads(text)
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_VERSION:
        raise VectorIndexError(f"{path} has format {_format_of(text)}, not {FORMAT_VERSION}")
    return meta


def _format_of(text: str) -> object:
    try:
        meta = json.loads(text)
    except ValueError:
        return None
    return meta.get("format") if isinstance(meta, dict) else None


def _read_faiss(path: Path, meta: dict[str, Any]) -> Any:
    """The index in the .faiss file, parsed only once its bytes match the sha256 in `meta`.

    One open file is hashed, then parsed from the start: FAISS reads exactly the bytes that
    were checked (and never a damaged file, which it may not survive).
    """
    try:
        with open(path, "rb") as f:
            size, saved = os.fstat(f.fileno()).st_size, meta.get("faiss_bytes")
            if size != saved:
                raise DamagedIndexFile(path, f"{size} bytes, not the {saved} saved")
            if hashlib.file_digest(f, "sha256").hexdigest() != meta.get("faiss_sha256"):
                raise DamagedIndexFile(path, "its bytes do not match the checksum in its side file")
            f.seek(0)
            return faiss.read_index(faiss.PyCallbackIOReader(f.read))
    except OSError as error:
        raise DamagedIndexFile(path, f"unreadable: {error}") from error
    except RuntimeError as error:  # e.g. written by a FAISS this one cannot read
        raise DamagedIndexFile(path, f"FAISS cannot read it: {error}") from error


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _arrays_digest(arrays: dict[str, np.ndarray]) -> str:
    """sha256 over the arrays in their order: names, dtypes, shapes and contents."""
    h = hashlib.sha256()
    for name in arrays:
        arr = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{arr.dtype.str}:{arr.shape};".encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def _atomic_write(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Write through a private temp file, fsync it, then rename it over `path`."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        with os.fdopen(private_open(tmp, os.O_WRONLY | os.O_TRUNC), "wb") as f:
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
