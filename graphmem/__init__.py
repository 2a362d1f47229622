"""graphmem: a temporal graph memory service for LLMs."""

__version__ = "0.1.0"
