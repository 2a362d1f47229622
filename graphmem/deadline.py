"""The time limit of one operation: set by the API, read by the store and by long loops.

The deadline lives in a context variable, so it follows the operation through the calls it
makes (and into worker threads started with `contextvars.copy_context().run`). Code that runs
without one (library use, the CLI) has no time limit.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from graphmem.errors import OperationTimeout


@dataclass(frozen=True)
class Deadline:
    """When the running operation must stop, and the limit (and its setting) to name if it does."""

    at: float  # time.monotonic()
    seconds: float
    setting: str


_current: ContextVar[Deadline | None] = ContextVar("graphmem_deadline", default=None)


@contextlib.contextmanager
def limited(seconds: float, setting: str) -> Iterator[Deadline]:
    """Run the block with a deadline `seconds` from now; `setting` names where the limit is set."""
    deadline = Deadline(time.monotonic() + seconds, seconds, setting)
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        _current.reset(token)


@contextlib.contextmanager
def lifted() -> Iterator[None]:
    """Run the block without a deadline: opening the store, the model and the indexes.

    That happens once, at first use, and may take longer than any one operation may; an
    operation cut off while opening them would leave the next one to start over.
    """
    token = _current.set(None)
    try:
        yield
    finally:
        _current.reset(token)


def remaining() -> float | None:
    """Seconds left before the deadline (negative once passed); None without a deadline."""
    deadline = _current.get()
    return None if deadline is None else deadline.at - time.monotonic()


def passed() -> bool:
    """Whether there is a deadline and it has passed."""
    left = remaining()
    return left is not None and left <= 0


def check(what: str) -> None:
    """Raise OperationTimeout if the deadline has passed; `what` says what was about to run."""
    if passed():
        raise timed_out(what)


def statement_ms(what: str) -> int | None:
    """Milliseconds a store statement may run (at least 1), None without a deadline.

    Raises OperationTimeout, before anything is sent, once the deadline has passed.
    """
    check(what)
    left = remaining()
    return None if left is None else max(1, int(left * 1000))


def timed_out(what: str) -> OperationTimeout:
    """The error for `what` stopped at the deadline (or by the store's own time limit)."""
    deadline = _current.get()
    if deadline is None:
        return OperationTimeout(f"{what}: stopped by the store's own time limit")
    return OperationTimeout(
        f"{what}: the operation ran past its time limit of {deadline.seconds:g} s "
        f"({deadline.setting}) and was stopped here, unfinished (see docs/limits.md)"
    )
