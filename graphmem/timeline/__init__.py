"""Timeline memory: recall probability from relevance, elapsed time and recall count."""

from graphmem.timeline.events import (
    Event,
    add_event,
    add_events,
    delete_event,
    event_id,
    make_event,
)
from graphmem.timeline.formula import (
    TimelineConfig,
    next_g,
    probabilities,
    recall_probability,
    retention,
)
from graphmem.timeline.memory import DEFAULT_LABELS, TimelineMemory
from graphmem.timeline.recall import Ranker, Recalled, ranker, recall, recall_vector
from graphmem.timeline.reinforce import RecallStats, recall_stats, reinforce, reinforce_in
from graphmem.timeline.view import TimelineItem, count_timeline, plot_timeline, timeline

__all__ = [
    "DEFAULT_LABELS",
    "Event",
    "Ranker",
    "RecallStats",
    "Recalled",
    "TimelineConfig",
    "TimelineItem",
    "count_timeline",
    "TimelineMemory",
    "add_event",
    "add_events",
    "delete_event",
    "event_id",
    "make_event",
    "next_g",
    "plot_timeline",
    "probabilities",
    "ranker",
    "recall",
    "recall_probability",
    "recall_stats",
    "recall_vector",
    "reinforce",
    "reinforce_in",
    "retention",
    "timeline",
]
