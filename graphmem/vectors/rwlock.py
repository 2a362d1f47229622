"""A readers–writer lock: many searches at once, an add or rebuild alone."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator


class ReadWriteLock:
    """Shared holds for readers, an exclusive hold for a writer; not reentrant.

    A waiting writer holds off readers that arrive after it, so a stream of searches cannot
    starve an add. A thread holding either side must not ask for it again: with a writer
    waiting, a second shared hold would wait for the writer, which waits for the first.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        """Held by any number of readers at once, never with a writer."""
        with self._cond:
            while self._writing or self._writers_waiting:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Held by one writer, with no reader."""
        with self._cond:
            self._writers_waiting += 1
            try:
                while self._writing or self._readers:
                    self._cond.wait()
            finally:
                self._writers_waiting -= 1
            self._writing = True
        try:
            yield
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()
