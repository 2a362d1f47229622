"""How embeddings are stored on graph nodes: float32 vectors as one compact text value.

A node's `embedding` property is "f32:" followed by the base64 of its little-endian float32
values: exactly the vector the index holds (no rounding), a quarter of the space of a list
of doubles in FalkorDB, and encoded / decoded by numpy in C, with no per-number work in
Python or in the database. Nodes written before this format hold a list of numbers; both
decode.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import numpy as np

PREFIX = "f32:"
_LE_F32 = np.dtype("<f4")


def encode(vectors: np.ndarray) -> list[str]:
    """One stored value per row of `vectors` (shape (n, dim))."""
    rows = np.ascontiguousarray(vectors, dtype=_LE_F32)
    return [PREFIX + base64.b64encode(row.tobytes()).decode("ascii") for row in rows]


def decode(value: Any) -> np.ndarray | None:
    """The float32 vector of a stored value (text or legacy list); None if it is neither."""
    if isinstance(value, list):
        try:
            return np.asarray(value, dtype=np.float32)
        except (TypeError, ValueError):
            return None
    if not isinstance(value, str) or not value.startswith(PREFIX):
        return None
    try:
        raw = base64.b64decode(value[len(PREFIX) :], validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) % 4:
        return None
    return np.frombuffer(raw, dtype=_LE_F32).astype(np.float32)
