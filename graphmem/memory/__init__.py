"""One Python entry to graphmem: `Memory` (and `AsyncMemory`) with series, propositions, timeline.

See docs/python.md.
"""

from graphmem.memory.aio import AsyncMemory, AsyncPropositions, AsyncSeries, AsyncTimeline
from graphmem.memory.core import Memory
from graphmem.memory.propositions import Propositions
from graphmem.memory.series import Series
from graphmem.memory.timeline import Timeline

__all__ = [
    "AsyncMemory",
    "AsyncPropositions",
    "AsyncSeries",
    "AsyncTimeline",
    "Memory",
    "Propositions",
    "Series",
    "Timeline",
]
