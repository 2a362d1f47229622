"""Private files and directories (owner only: they hold users' data) and locks between processes."""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from collections.abc import Iterator
from pathlib import Path

_DIR_MODE, _FILE_MODE = 0o700, 0o600


def private_dir(directory: Path) -> None:
    """Create `directory` readable by its owner only (index files hold users' embeddings)."""
    directory.mkdir(mode=_DIR_MODE, parents=True, exist_ok=True)
    if stat.S_IMODE(directory.stat().st_mode) != _DIR_MODE:  # made by an older version
        os.chmod(directory, _DIR_MODE)


def private_open(path: Path, flags: int) -> int:
    """A descriptor for `path`, mode 0600 even if it existed with another mode."""
    fd = os.open(path, flags | os.O_CREAT | os.O_NOFOLLOW, _FILE_MODE)
    try:
        os.fchmod(fd, _FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextlib.contextmanager
def file_lock(directory: Path, shared: bool = False) -> Iterator[None]:
    """A lock between processes on `directory`: exclusive to save, `shared` to read."""
    private_dir(directory)
    fd = private_open(directory / ".lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
