"""Sentence embeddings, offline only: the bundled all-MiniLM-L6-v2 or any local/cached model.

ONNX Runtime serves them once the model is exported (see docs/embeddings.md); torch only exports.
"""

from graphmem.embed.embedder import Embedder
from graphmem.embed.modeldir import DEFAULT_MODEL, ModelLoadError, OnnxUnsupported

__all__ = ["DEFAULT_MODEL", "Embedder", "ModelLoadError", "OnnxUnsupported"]
