"""The stored form of embeddings: exact round trip, legacy lists, unreadable values."""

from __future__ import annotations

import numpy as np

from graphmem import embcodec


def test_round_trip_is_exact_float32() -> None:
    vecs = np.random.default_rng(0).standard_normal((3, 384)).astype(np.float32)
    stored = embcodec.encode(vecs)
    assert all(s.startswith(embcodec.PREFIX) for s in stored)
    back = np.array([embcodec.decode(s) for s in stored])
    assert back.dtype == np.float32 and np.array_equal(back, vecs)


def test_legacy_lists_still_decode() -> None:
    assert np.array_equal(embcodec.decode([0.5, -1.0, 2.0]), np.array([0.5, -1, 2], np.float32))


def test_unreadable_values_decode_to_none() -> None:
    for bad in ("not an embedding", "f32:!!!", "f32:AAA=", 12, None, ["a", "b"]):
        assert embcodec.decode(bad) is None, bad
