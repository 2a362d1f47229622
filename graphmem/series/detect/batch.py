"""Validating a batch of (timestamp, value) points before anything is stored."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.errors import InvalidInput
from graphmem.series.detect.bocpd import MAX_ABS_VALUE
from graphmem.timeutil import iso, parse_timestamp

MAX_BATCH = 1_000_000
SIGNIFICANT_DIGITS = 15  # what FalkorDB returns for a double; storing more would not round-trip
# Epoch seconds of present-day dates have 10 integer digits, leaving 5 decimals: 10 µs.
RESOLUTION_NOTE = (
    "timestamps are kept to 15 significant digits (10 µs for dates between 2001 and 2286)"
)


def quantize(values: np.ndarray) -> np.ndarray:
    """Round to 15 significant digits, so every value reads back from the store bit-exact."""
    if np.all(np.abs(values) < 1e15) and np.array_equal(values, np.round(values)):
        return values.astype(np.float64)  # whole numbers (e.g. epoch seconds) are exact already
    fmt = f"%.{SIGNIFICANT_DIGITS}g"
    # NaN formats as 'nan' and parses back as NaN; faster than np.char.mod here
    return np.array([float(fmt % v) for v in values.tolist()], dtype=np.float64)


@dataclass(frozen=True)
class Batch:
    """A validated batch: strictly increasing epoch seconds, finite values or NaN for missing."""

    ts: np.ndarray
    xs: np.ndarray

    @property
    def missing(self) -> np.ndarray:
        return np.isnan(self.xs)

    def digest(self, series_id: str) -> str:
        """Identity of the batch, so re-sending it is recognised and changes nothing."""
        h = hashlib.sha1(series_id.encode())
        h.update(self.ts.tobytes())
        h.update(np.where(self.missing, 0.0, self.xs).tobytes())
        h.update(self.missing.tobytes())
        return "batch_" + h.hexdigest()


def _one_dimensional(field: str, arr: np.ndarray) -> np.ndarray:
    if arr.ndim != 1:
        raise InvalidInput(field, f"must be a flat list (one dimension), not of shape {arr.shape}")
    return arr


def _flat(field: str, values: Sequence[Any] | np.ndarray, dtype: Any = None) -> np.ndarray:
    """`values` as a 1-D array (an array is taken as it is); nesting raises InvalidInput."""
    if not isinstance(values, np.ndarray):
        try:
            values = np.asarray(values, dtype=dtype)
        except (ValueError, TypeError):  # lists nested to different depths
            raise InvalidInput(field, "must be a flat list, not a nested one") from None
    return _one_dimensional(field, values)


def _timestamps(values: Sequence[Any] | np.ndarray) -> np.ndarray:
    arr = _flat("timestamps", values)
    if arr.dtype.kind in "iuf":
        arr = arr.astype(np.float64)
        bad = np.flatnonzero(~np.isfinite(arr))
        if len(bad):
            i = int(bad[0])
            raise InvalidInput(f"timestamps[{i}]", f"{arr[i]} is not a finite epoch time")
        for i in (0, len(arr) - 1):
            parse_timestamp(float(arr[i]), field=f"timestamps[{i}]")  # range check
        return arr
    return np.array(
        [float(parse_timestamp(v, field=f"timestamps[{i}]")) for i, v in enumerate(values)],
        dtype=np.float64,
    )


def _out_of_range(x: float, i: int) -> InvalidInput:
    """The error for a value the detector cannot take, indexed as in the caller's batch."""
    if math.isinf(x):
        return InvalidInput(f"values[{i}]", f"{x} is not finite (NaN marks a missing value)")
    return InvalidInput(
        f"values[{i}]", f"{x:g} is too large: values must be below {MAX_ABS_VALUE:g} in magnitude"
    )


def _value(v: Any, i: int) -> float:
    if v is None:
        return math.nan
    if type(v) is float:  # the usual case (JSON numbers), before the slower checks
        if abs(v) >= MAX_ABS_VALUE:  # False for NaN, which marks a missing value
            raise _out_of_range(v, i)
        return v
    if isinstance(v, bool | np.bool_) or not isinstance(v, int | float | np.number):
        raise InvalidInput(f"values[{i}]", f"{v!r} is not a number")
    try:
        x = float(v)
    except OverflowError:  # a Python int beyond float range
        raise InvalidInput(f"values[{i}]", "is too large for a float") from None
    if abs(x) >= MAX_ABS_VALUE:  # False for NaN, which marks a missing value
        raise _out_of_range(x, i)
    return x


def _values(values: Sequence[Any] | np.ndarray) -> np.ndarray:
    # a list becomes an object array, checked item by item (True is not a number, 1.0 is)
    items = _flat("values", values, dtype=object)
    if items.dtype.kind in "iuf":
        arr = items.astype(np.float64)
        with np.errstate(invalid="ignore"):
            bad = np.flatnonzero(np.abs(arr) >= MAX_ABS_VALUE)  # NaN compares False: missing
        if len(bad):
            i = int(bad[0])
            raise _out_of_range(float(arr[i]), i)
        return arr
    return np.array([_value(v, i) for i, v in enumerate(items)], dtype=np.float64)


def validate_batch(timestamps: Any, values: Any, most: int | None = MAX_BATCH) -> Batch:
    """Check a batch and name the first bad index; increasing order is checked within it.

    `most`: the largest batch taken (None: any size, for input that is then split).
    """
    for field, seq in (("timestamps", timestamps), ("values", values)):
        if isinstance(seq, str | bytes) or not hasattr(seq, "__len__"):
            raise InvalidInput(field, "must be a list")
        if isinstance(seq, np.ndarray):  # before len(), which a 0-d array lacks
            _one_dimensional(field, seq)
    if len(timestamps) == 0:
        raise InvalidInput("timestamps", "the batch is empty")
    if len(values) != len(timestamps):
        raise InvalidInput(
            "values", f"has {len(values)} items but timestamps has {len(timestamps)}"
        )
    if most is not None and len(timestamps) > most:
        raise InvalidInput("timestamps", f"a batch holds at most {most:,} points")
    raw = _timestamps(timestamps)
    ts = quantize(raw)
    xs = quantize(_values(values))
    steps = np.flatnonzero(np.diff(ts) <= 0)
    if len(steps):
        i = int(steps[0]) + 1
        if raw[i] > raw[i - 1]:  # increasing, but not at the resolution that is stored
            raise InvalidInput(
                f"timestamps[{i}]",
                f"is only {raw[i] - raw[i - 1]:.3g} s after the previous timestamp "
                f"{iso(ts[i - 1])}; {RESOLUTION_NOTE}, so both would be stored as the same time",
            )
        raise InvalidInput(
            f"timestamps[{i}]",
            f"{iso(ts[i])} is not after the previous timestamp {iso(ts[i - 1])}",
        )
    return Batch(ts, xs)


def check_follows(batch: Batch, last_ts: float | None) -> None:
    """Batches arrive in time order: the first point must come after everything stored."""
    if last_ts is not None and batch.ts[0] <= last_ts:
        note = f" ({RESOLUTION_NOTE})" if batch.ts[0] == last_ts else ""
        raise InvalidInput(
            "timestamps[0]",
            f"{iso(batch.ts[0])} is not after the last stored timestamp {iso(last_ts)}{note}",
        )
