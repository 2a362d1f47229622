"""A change signal shared by the processes on one data dir: one small file, mapped in memory.

Each process (the workers of `graphmem serve --workers N`, a `graphmem ingest-docs` beside
them) keeps its own copy of every vector and keyword index. A process that changed a label in
the graph bumps the label's counter here after the graph write and before it answers; a search
anywhere compares the counter with the value it last caught up at and reads the graph only
when it moved. Reading a counter is a load from shared memory: no statement, no system call.

The file holds SLOTS 64-bit counters; a (space, index, label) key hashes to one. Two keys
sharing a slot cost a needless check, never a missed change. Bumps take an flock on the file
so that concurrent ones from several processes all count; reads take none (an aligned 8-byte
load is atomic). The file is never deleted with a space (deleting a space bumps every slot),
so every process keeps mapping the one the others write.
"""

from __future__ import annotations

import ctypes
import fcntl
import logging
import mmap
import os
import zlib
from collections.abc import Iterable
from pathlib import Path

from graphmem.files import private_dir, private_open

SLOTS = 4096
FILE = "changes"  # in the data dir
_SIZE = SLOTS * ctypes.sizeof(ctypes.c_uint64)
_WRAP = 1 << 64
log = logging.getLogger(__name__)


def change_key(space: str, index: str, label: str) -> str:
    """What a counter stands for: a label's `index` ("vectors", "keywords": the name of the
    index directory) in a space."""
    return f"{space}/{index}/{label}"


def slot_of(key: str) -> int:
    """The counter of `key`; stable across processes and runs (not Python's salted hash)."""
    return zlib.crc32(key.encode()) % SLOTS


def signal_changes(data_dir: Path, keys: Iterable[str] | None, what: str) -> bool:
    """Bump the counters of `keys` (every counter: None) in `data_dir`'s signal, for a graph
    write that did not go through the indexes (`what` names it in the warning logged, and
    False returned, when the file cannot be written: the timed check still finds it)."""
    try:
        signal = ChangeSignal(data_dir)
        try:
            signal.bump(range(SLOTS) if keys is None else map(slot_of, keys))
        finally:
            signal.close()
    except OSError as error:
        log.warning("could not signal %s: %s", what, error)
        return False
    return True


class ChangeSignal:
    """The counters of one data dir, mapped in this process until close()."""

    def __init__(self, data_dir: Path) -> None:
        private_dir(data_dir)
        self.path = data_dir / FILE
        fd = private_open(self.path, os.O_RDWR)
        try:
            with _locked(fd):
                if os.fstat(fd).st_size < _SIZE:  # new (zeros), or made with fewer slots
                    os.ftruncate(fd, _SIZE)
            self._map = mmap.mmap(fd, _SIZE)
        finally:
            os.close(fd)  # the mapping stays valid without it
        self._counters = (ctypes.c_uint64 * SLOTS).from_buffer(self._map)

    def read(self, slot: int) -> int:
        return int(self._counters[slot])

    def bump(self, slots: Iterable[int]) -> dict[int, tuple[int, int]]:
        """Move each of `slots` on by one; slot → (value before, value after)."""
        moved = {}
        fd = os.open(self.path, os.O_RDWR)
        try:
            with _locked(fd):
                for slot in set(slots):
                    before = int(self._counters[slot])
                    after = (before + 1) % _WRAP
                    self._counters[slot] = after
                    moved[slot] = (before, after)
        finally:
            os.close(fd)
        return moved

    def bump_all(self) -> None:
        """Move every counter on: what deleting a whole space does."""
        self.bump(range(SLOTS))

    def close(self) -> None:
        del self._counters  # the ctypes view holds the mapping's buffer: release it first
        self._map.close()


class _locked:
    """An exclusive flock on `fd` while the block runs."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __enter__(self) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
