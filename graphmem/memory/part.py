"""What the memories of a Memory share: the way to its services, opened on first use."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING

from graphmem.errors import InvalidInput

if TYPE_CHECKING:
    from graphmem.memory.core import Memory
    from graphmem.services import Services
    from graphmem.store import Store

# a time as the memories take it: ISO date or datetime text, epoch seconds, a date or datetime
When = str | float | dt.date


class Part:
    """One memory of a Memory (series, propositions, timeline); holds nothing of its own."""

    def __init__(self, memory: Memory) -> None:
        self._memory = memory

    def _services(self) -> Services:
        return self._memory.services()

    def _store(self) -> Store:
        return self._memory.services().store


def checked_path(value: object, field: str) -> Path:
    """A file path given as text or a Path."""
    if isinstance(value, Path):
        return value
    if isinstance(value, str) and value.strip():
        return Path(value)
    raise InvalidInput(field, "must be a file path (str or pathlib.Path)")


def checked_flag(value: object, field: str) -> bool:
    """A switch given as True or False (a string such as "no" would read as true)."""
    if not isinstance(value, bool):
        raise InvalidInput(field, f"must be True or False, not {type(value).__name__}")
    return value
