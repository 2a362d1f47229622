"""TimelineMemory: the store, embedder, vector indexes and settings the timeline functions share."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphmem.embed import Embedder
from graphmem.errors import InvalidInput
from graphmem.kinds import KINDS
from graphmem.store.base import Store
from graphmem.timeline.formula import TimelineConfig
from graphmem.timeutil import parse_timestamp
from graphmem.vectors import LABELS, VectorStore

if TYPE_CHECKING:
    from graphmem.timeline.events import Event

DEFAULT_LABELS = ("Event", "Proposition")
RECALLED = tuple(kind for kind in KINDS if kind.recall)  # the kinds timeline statements serve
MAX_IDS = 10_000  # ids per reinforce or stats call: bounds one statement's size


def _epoch_now() -> int:
    return int(time.time())


@dataclass
class TimelineMemory:
    """Everything the timeline functions need (`graphmem.services.Services.timeline()` opens one).

    Share one VectorStore with the propositions memory (pass it as `vectors`): two VectorStores
    on one data dir would each hold their own copy of the Proposition index.
    """

    store: Store
    embedder: Embedder
    vectors: VectorStore
    config: TimelineConfig = field(default_factory=TimelineConfig)
    now: Callable[[], int] = field(default=_epoch_now)  # epoch seconds when no `now` is given

    def delete_event(self, event_id: str) -> Event:
        """Delete an event from the graph and every process's index (events.delete_event)."""
        from graphmem.timeline.events import delete_event

        return delete_event(self, event_id)

    def close(self) -> None:
        """Save the vector indexes that changed."""
        self.vectors.save()


def checked_now(value: Any, field_name: str = "now") -> int:
    """A time as whole epoch seconds (sub-second parts are dropped); else InvalidInput."""
    return math.floor(parse_timestamp(value, field_name))


def checked_labels(labels: Any) -> tuple[str, ...]:
    """A non-empty list of distinct embedded labels."""
    if isinstance(labels, str):
        labels = (labels,)
    if not isinstance(labels, Iterable):
        raise InvalidInput("labels", f"must be a list of {', '.join(LABELS)}")
    labels = list(labels)
    if not labels:
        raise InvalidInput("labels", f"must be a non-empty list of {', '.join(LABELS)}")
    for i, label in enumerate(labels):
        if label not in LABELS:
            raise InvalidInput(f"labels[{i}]", f"{label!r} is not one of {', '.join(LABELS)}")
    return tuple(dict.fromkeys(labels))


def checked_ids(ids: Any) -> list[str]:
    """Distinct non-empty id strings in first-seen order, at most MAX_IDS."""
    if isinstance(ids, str | bytes) or not isinstance(ids, Sequence):
        raise InvalidInput("ids", "must be a list of id strings")
    for i, node_id in enumerate(ids):
        if not isinstance(node_id, str) or not node_id.strip():
            raise InvalidInput(f"ids[{i}]", "must be a non-empty string")
    out = list(dict.fromkeys(ids))
    if len(out) > MAX_IDS:
        raise InvalidInput("ids", f"at most {MAX_IDS} ids per call")
    return out


def per_label(ids_by_label: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Statement parameters $event, $proposition, ... one per kind with recall (empty if absent)."""
    return {kind.key: list(ids_by_label.get(kind.label, ())) for kind in RECALLED}


def packed_per_label(ids_by_label: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """Like `per_label`, as one comma-joined string per label plus a list of ids with commas."""
    params: dict[str, Any] = {}
    for kind in RECALLED:
        ids = ids_by_label.get(kind.label, ())
        plain = [i for i in ids if "," not in i]
        params[kind.key] = ",".join(plain)
        params[f"{kind.key}_extra"] = [i for i in ids if "," in i]
    return params
