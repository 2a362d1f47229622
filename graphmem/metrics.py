"""What the library counts (ingestion, store errors), told to whoever listens: nobody by default.

The library knows nothing of Prometheus or HTTP. A caller that wants the counts (the API's
/metrics, see api/metrics.py) runs its work inside `reporting_to(sink)`; every count() made in
that context, including in threads that copy it, goes to the sink. Outside one, count() costs
one context-variable lookup.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import ParamSpec, TypeVar

from graphmem.errors import StoreError

log = logging.getLogger(__name__)

# what count() is called with; each is a counter of /metrics (docs/observability.md)
POINTS = "points"  # series points stored (missing values not counted)
PROPOSITIONS = "propositions"  # propositions stored (ones already stored not counted)
DOCUMENTS = "documents"  # documents whose last batch was stored
EVENTS = "events"  # timeline events stored
STORE_ERRORS = "store_errors"  # statements or opens that failed, label `code`

Sink = Callable[[str, int, dict[str, str]], None]
_SINK: ContextVar[Sink | None] = ContextVar("graphmem_metrics_sink", default=None)

P = ParamSpec("P")
R = TypeVar("R")


def count(name: str, amount: int = 1, **labels: str) -> None:
    """Tell the current sink that `amount` more `name` happened; never raises."""
    sink = _SINK.get()
    if sink is None or amount <= 0:
        return
    try:
        sink(name, amount, labels)
    except Exception:  # noqa: BLE001 - a metrics bug must not fail a write that landed
        log.exception("metrics sink failed on %s", name)


@contextlib.contextmanager
def reporting_to(sink: Sink) -> Iterator[None]:
    """Send the counts made in this context (and contexts copied from it) to `sink`."""
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)


def counts_store_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Count each StoreError `fn` raises, by its code, then let it go on."""

    @functools.wraps(fn)
    def counted(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except StoreError as error:
            count(STORE_ERRORS, code=error.code)
            raise

    return counted
