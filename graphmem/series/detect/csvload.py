"""Read a numeric series from a CSV file's time and value columns, naming the line of errors."""

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

HEADER = ("timestamp", "value")  # the columns read when none are named
DELIMITERS = ("\t", ";", ",")  # what the header line is searched for, in this order on a tie

Column = str | int  # a header name, or a 0-based index

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


def _first_line(handle: TextIO) -> str:
    try:
        return handle.readline()
    except UnicodeDecodeError:
        raise InvalidInput("path", "file is not UTF-8 text") from None


def _parse_value(text: str, line: str, where: str) -> float:
    """A finite float, or NaN for an empty or 'nan' cell."""
    cell = text.strip()
    if not cell or _NAN_RE.fullmatch(cell):
        return math.nan
    try:
        if "_" in cell:
            raise ValueError(cell)
        value = float(cell)
    except ValueError:
        raise InvalidInput(line, f"value {cell!r} is not a number in {where}") from None
    if not math.isfinite(value):
        raise InvalidInput(line, f"value {cell!r} is not finite in {where}")
    return value


def _pick(header: list[str], wanted: Column, role: str) -> int:
    """The 0-based index of the column `wanted` names (a header name or an index)."""
    names = [cell.strip().lower() for cell in header]
    shown = ",".join(cell.strip() for cell in header)
    if isinstance(wanted, int):
        if not 0 <= wanted < len(header):
            raise InvalidInput(
                "line 1",
                f"{role} column {wanted} does not exist: the header {shown!r} has "
                f"{len(header)} columns, numbered from 0",
            )
        return wanted
    key = wanted.strip().lower()
    default = HEADER[0] if role == "time" else HEADER[1]
    found = [i for i, name in enumerate(names) if name == key]
    if not found:
        raise InvalidInput(
            "line 1",
            f"header {shown!r} has no {role} column {wanted!r}; name the {role} column by its "
            f"header name or 0-based index (--{role}-col; {role}_col= in load_csv)"
            + (f"; the default header is {','.join(HEADER)!r}" if wanted == default else ""),
        )
    if len(found) > 1:
        raise InvalidInput(
            "line 1",
            f"header {shown!r} has {len(found)} columns named {wanted!r}; choose one by its index",
        )
    return found[0]


@dataclass(frozen=True)
class _Layout:
    """Where the time and the value are in each row, and how many cells a row has."""

    header: list[str]
    time_at: int
    value_at: int

    @classmethod
    def of(cls, row: list[str] | None, time_col: Column, value_col: Column) -> _Layout:
        if row is None:
            raise InvalidInput("line 1", f"file is empty; expected header {','.join(HEADER)!r}")
        if _is_blank(row):
            raise InvalidInput("line 1", f"header is empty; expected {','.join(HEADER)!r}")
        layout = cls(row, _pick(row, time_col, "time"), _pick(row, value_col, "value"))
        if layout.time_at == layout.value_at:
            raise InvalidInput("line 1", f"time and value are the same column {layout.time_at}")
        return layout

    def where(self, index: int) -> str:
        """'column 2 (price)': the 1-based position people count in, and the header's name."""
        return f"column {index + 1} ({self.header[index].strip()})"

    def cells(self, row: list[str], line: str) -> tuple[str, str]:
        """The time and value cells of a row, which must be as wide as the header."""
        if len(row) != len(self.header):
            names = ",".join(cell.strip() for cell in self.header)
            raise InvalidInput(
                line, f"expected {len(self.header)} columns ({names}), got {len(row)}"
            )
        return row[self.time_at], row[self.value_at]


def sniff_delimiter(header_line: str) -> str:
    """The one of tab, ';' and ',' the header line holds most often (',' when none)."""
    counts = [(header_line.count(d), -k, d) for k, d in enumerate(DELIMITERS)]
    best = max(counts)
    return best[2] if best[0] else ","


def _read_rows(handle: TextIO, time_col: Column, value_col: Column, delimiter: str) -> CsvSeries:
    """Parse an open CSV text stream; errors name the 1-based line and the column."""
    ts: list[float] = []
    xs: list[float] = []
    previous: tuple[float, str] | None = None
    reader = csv.reader(handle, delimiter=delimiter)
    try:
        layout = _Layout.of(next(reader, None), time_col, value_col)
        for row in reader:
            if _is_blank(row):
                continue
            line = f"line {reader.line_num}"
            raw_ts, raw_value = layout.cells(row, line)
            try:
                t = parse_timestamp(raw_ts, line)
            except InvalidInput as exc:
                where = layout.where(layout.time_at)
                raise InvalidInput(line, f"timestamp {exc.problem} in {where}") from None
            if previous is not None and t <= previous[0]:
                raise InvalidInput(
                    line,
                    f"timestamp {raw_ts.strip()!r} is not after the previous one "
                    f"{previous[1]!r}; timestamps must strictly increase",
                )
            previous = (t, raw_ts.strip())
            xs.append(_parse_value(raw_value, line, layout.where(layout.value_at)))
            ts.append(float(t))
    except csv.Error as exc:
        raise InvalidInput(f"line {reader.line_num}", f"malformed CSV: {exc}") from None
    except UnicodeDecodeError:
        # Decoding runs ahead in chunks, so the line number would be a guess.
        raise InvalidInput("path", "file is not UTF-8 text") from None
    return CsvSeries(ts=np.array(ts, dtype=np.float64), xs=np.array(xs, dtype=np.float64))


def _checked_delimiter(delimiter: str | None) -> str | None:
    if delimiter is not None and (len(delimiter) != 1 or delimiter in '"\r\n'):
        raise InvalidInput(
            "delimiter",
            f"must be one character other than a quote or a line break, not {delimiter!r}",
        )
    return delimiter


def load_csv(
    path: str | os.PathLike[str],
    time_col: Column = HEADER[0],
    value_col: Column = HEADER[1],
    delimiter: str | None = None,
) -> CsvSeries:
    """Points of a CSV file whose first line is a header; timestamps must strictly increase.

    `time_col` and `value_col` name a column of the header (case and spaces ignored) or give
    its 0-based index; other columns are ignored. Without `delimiter` it is the one of tab,
    ';' and ',' the header line holds most often.
    """
    delimiter = _checked_delimiter(delimiter)
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            if delimiter is None:
                delimiter = sniff_delimiter(_first_line(handle))
                handle.seek(0)
            return _read_rows(handle, time_col, value_col, delimiter)
    except OSError as exc:
        raise InvalidInput("path", f"cannot read {os.fspath(path)!r}: {exc.strerror}") from None
