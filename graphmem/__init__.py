"""graphmem: a temporal graph memory service for LLMs.

`graphmem.Memory` (and `graphmem.AsyncMemory`) is the Python entry: docs/python.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["AsyncMemory", "Memory", "__version__"]

if TYPE_CHECKING:
    from graphmem.memory import AsyncMemory, Memory


def __getattr__(name: str) -> Any:
    # imported on first use, so `import graphmem.cli` and friends stay as quick as they were
    if name in ("Memory", "AsyncMemory"):
        from graphmem import memory

        return getattr(memory, name)
    raise AttributeError(f"module 'graphmem' has no attribute {name!r}")
