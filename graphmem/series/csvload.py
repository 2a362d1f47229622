"""Read a numeric series from a 'timestamp,value' CSV file, naming the line of any error."""

from __future__ import annotations

import csv
import math
import os
import re
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from graphmem.errors import InvalidInput
from graphmem.timeutil import parse_timestamp

HEADER = ("timestamp", "value")

# float() also accepts '1_000' and 'infinity'; the first is not CSV-like, the second is refused.
_NAN_RE = re.compile(r"[+-]?nan", re.IGNORECASE)


@dataclass(frozen=True, eq=False)
class CsvSeries:
    """Points read from a CSV: ts in epoch seconds (float64), xs with NaN for missing values."""

    ts: np.ndarray
    xs: np.ndarray

    @property
    def n_missing(self) -> int:
        """How many values are NaN (empty or 'nan' in the file)."""
        return int(np.count_nonzero(np.isnan(self.xs)))


def _is_blank(row: list[str]) -> bool:
    """True for an empty line or one holding only spaces."""
    return all(not cell.strip() for cell in row) and len(row) <= 1


def _parse_value(text: str, line: str) -> float:
    """A finite float, or NaN for an empty or 'nan' cell."""
    cell = text.strip()
    if not cell or _NAN_RE.fullmatch(cell):
        return math.nan
    try:
        if "_" in cell:
            raise ValueError(cell)
        value = float(cell)
    except ValueError:
        raise InvalidInput(line, f"value {cell!r} is not a number") from None
    if not math.isfinite(value):
        raise InvalidInput(line, f"value {cell!r} is not finite")
    return value


def _check_header(row: list[str] | None) -> None:
    """Require the exact header 'timestamp,value' (case and surrounding spaces ignored)."""
    expected = ",".join(HEADER)
    if row is None:
        raise InvalidInput("line 1", f"file is empty; expected header {expected!r}")
    got = tuple(cell.strip().lower() for cell in row)
    if got != HEADER:
        raise InvalidInput("line 1", f"header is {','.join(row)!r}; expected {expected!r}")


def _read_rows(handle: TextIO) -> CsvSeries:
    """Parse an open CSV text stream; errors name the 1-based line."""
    ts: list[float] = []
    xs: list[float] = []
    previous: tuple[float, str] | None = None
    reader = csv.reader(handle)
    try:
        _check_header(next(reader, None))
        for row in reader:
            if _is_blank(row):
                continue
            line = f"line {reader.line_num}"
            if len(row) != len(HEADER):
                raise InvalidInput(line, f"expected 2 columns (timestamp,value), got {len(row)}")
            raw_ts, raw_value = row
            try:
                t = parse_timestamp(raw_ts, line)
            except InvalidInput as exc:
                raise InvalidInput(line, f"timestamp {exc.problem}") from None
            if previous is not None and t <= previous[0]:
                raise InvalidInput(
                    line,
                    f"timestamp {raw_ts.strip()!r} is not after the previous one "
                    f"{previous[1]!r}; timestamps must strictly increase",
                )
            previous = (t, raw_ts.strip())
            xs.append(_parse_value(raw_value, line))
            ts.append(float(t))
    except csv.Error as exc:
        raise InvalidInput(f"line {reader.line_num}", f"malformed CSV: {exc}") from None
    except UnicodeDecodeError:
        # Decoding runs ahead in chunks, so the line number would be a guess.
        raise InvalidInput("path", "file is not UTF-8 text") from None
    return CsvSeries(ts=np.array(ts, dtype=np.float64), xs=np.array(xs, dtype=np.float64))


def load_csv(path: str | os.PathLike[str]) -> CsvSeries:
    """Points of a CSV with header 'timestamp,value'; timestamps must strictly increase."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            return _read_rows(handle)
    except OSError as exc:
        raise InvalidInput("path", f"cannot read {os.fspath(path)!r}: {exc.strerror}") from None
