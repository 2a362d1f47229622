"""`Memory.timeline`: events and recall ranked by recall probability, reinforced by recalls."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from graphmem import timeline
from graphmem.memory.part import Part, When, checked_flag, checked_path
from graphmem.timeline import (
    DEFAULT_LABELS,
    Event,
    Recalled,
    RecallStats,
    TimelineItem,
    TimelineMemory,
)


class Timeline(Part):
    """Memories whose importance fades with time and returns with each recall.

    Labels: "Event", "Proposition", "Segment", "MetaSegment". Times (`date`, `now`, `start`,
    `end`) are ISO dates or datetimes (naive means UTC), epoch seconds, or date/datetime objects.
    """

    def add_event(self, text: str, date: When, source: str | None = None) -> Event:
        """Store an episodic memory; the same text at the same time again is a no-op."""
        return timeline.add_event(self._timeline(), text, date, source)

    def add_events(self, events: Sequence[Mapping[str, Any]]) -> list[Event]:
        """Store events {text, date, source?} in one write; all are checked first."""
        return timeline.add_events(self._timeline(), events, field="events")

    def delete_event(self, event_id: str) -> Event:
        """Delete an episodic memory; what it was."""
        return self._timeline().delete_event(event_id)

    def recall(
        self,
        query: str,
        now: When,
        k: int = 10,
        threshold: float | None = None,
        labels: Sequence[str] = DEFAULT_LABELS,
        *,
        reinforce: bool = False,
    ) -> list[Recalled]:
        """The k memories dated <= now most likely recalled by `query`, highest p first.

        `threshold` defaults to GRAPHMEM_RECALL_THRESHOLD; `reinforce=True` records a recall
        of those with p >= threshold.
        """
        reinforce = checked_flag(reinforce, "reinforce")
        return timeline.recall(
            self._timeline(), query, now, k, threshold, labels, reinforce=reinforce
        )

    def reinforce(self, ids: Sequence[str], now: When) -> list[RecallStats]:
        """Record one recall of each memory at `now` (once per now); their statistics after."""
        return timeline.reinforce(self._timeline(), ids, now)

    def stats(self, ids: Sequence[str]) -> list[RecallStats]:
        """The recall statistics of these memories, in the order asked."""
        return timeline.recall_stats(self._timeline(), ids)

    def items(
        self,
        start: When | None = None,
        end: When | None = None,
        now: When | None = None,
        labels: Sequence[str] = DEFAULT_LABELS,
        limit: int = 10_000,
    ) -> list[TimelineItem]:
        """Memories dated in [start, end] and not after `now`, oldest first, each with its
        importance (retention) at `now` (default: the current time)."""
        return timeline.timeline(self._timeline(), start, end, now, labels, limit)

    def plot(
        self,
        path: str | Path,
        start: When | None = None,
        end: When | None = None,
        now: When | None = None,
        labels: Sequence[str] = DEFAULT_LABELS,
    ) -> int:
        """Write a PNG of the memories on a time axis shaded by importance; returns how many."""
        target = checked_path(path, "path")
        return timeline.plot_timeline(self._timeline(), target, start, end, now, labels)

    def _timeline(self) -> TimelineMemory:
        return self._services().timeline()
