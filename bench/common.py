"""Helpers shared by the benchmarks: timing summaries and a throwaway embedded store."""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from graphmem.config import Settings
from graphmem.store import Store, open_store


@contextlib.contextmanager
def temp_store() -> Iterator[Store]:
    """An embedded store in a fresh temporary data dir, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="gmb-") as tmp:
        store = open_store(f"falkordb+embedded://{Path(tmp) / 'db'}", Settings())
        try:
            yield store
        finally:
            store.close()


def percentiles_ms(samples_s: list[float]) -> str:
    ms = np.asarray(samples_s) * 1000
    return f"p50 {np.percentile(ms, 50):.2f} ms  p95 {np.percentile(ms, 95):.2f} ms"


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    """Wall times of `repeat` calls."""
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def embed_precision() -> str:
    """The precision the service would embed with (GRAPHMEM_EMBED_PRECISION, else int8)."""
    return Settings.from_env().precision
