"""Space names: every memory lives in one space (default `default`), see docs/spaces.md."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidInput, clipped

DEFAULT_SPACE = "default"
# lower case, so a name is the same whatever the client's habits; usable as a directory name
SPACE_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,62}")
SPACES_DIR = "spaces"  # under the data dir: the derived index files of spaces but `default`
INDEX_DIRS = ("vectors", "keywords")  # in a space's index dir (graphmem/vectors/)


def checked_space(value: Any, field: str = "space") -> str:
    """`value` if it is a valid space name, else InvalidInput naming `field`."""
    if value is None:
        return DEFAULT_SPACE
    if not isinstance(value, str):
        raise InvalidInput(field, f"must be a string, not {type(value).__name__}")
    if SPACE_PATTERN.fullmatch(value) is None:
        raise InvalidInput(
            field,
            f"{clipped(value, 80)!r} is not a space name: 1 to 63 characters, lower-case letters, "
            "digits, '_' and '-', starting with a letter or digit",
        )
    return value


def index_dir(home: Path, space: str) -> Path:
    """Where the derived index files of `space` live: the data dir itself for `default` (as
    before spaces), else spaces/<name> in it."""
    return home if space == DEFAULT_SPACE else home / SPACES_DIR / space


def data_dir_of(where: Path, space: str) -> Path:
    """The data dir whose index dir for `space` is `where` (index_dir undone); `where` itself
    when it is not laid out as index_dir lays it (indexes opened on a directory of their own)."""
    if space != DEFAULT_SPACE and where.name == space and where.parent.name == SPACES_DIR:
        return where.parent.parent
    return where


def remove_index_files(home: Path, space: str) -> None:
    """Delete the derived index files of `space` (vector and keyword indexes)."""
    where = index_dir(home, space)
    if space != DEFAULT_SPACE:
        shutil.rmtree(where, ignore_errors=True)
        return
    for name in INDEX_DIRS:  # the default space shares the data dir with the store
        shutil.rmtree(where / name, ignore_errors=True)
