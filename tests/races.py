"""Making a race certain: a store connection that waits around one named statement."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphmem.store import Store


def around(
    store: Store,
    method: str,
    name: str,
    before: Callable[[], Any] | None = None,
    after: Callable[[], Any] | None = None,
) -> None:
    """Make `store.<method>(name, ...)` call `before()` first and `after()` once it returned.

    For a connection a test opened for itself: the statement still runs on the real store.
    """
    real = getattr(store, method)

    def run(statement: Any, /, **params: Any) -> Any:
        if statement == name and before is not None:
            before()
        rows = real(statement, **params)
        if statement == name and after is not None:
            after()
        return rows

    setattr(store, method, run)
