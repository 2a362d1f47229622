"""Time helpers: parse user timestamps to epoch seconds and render them as ISO 8601 UTC."""

from __future__ import annotations

import datetime as dt
import math
import numbers
import re

from graphmem.errors import InvalidInput

DAY_SECONDS = 86400

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
# The range datetime can represent, so every accepted timestamp can be rendered back by iso().
_MIN_TS = -62135596800  # 0001-01-01T00:00:00Z
_MAX_TS = 253402300800  # 10000-01-01T00:00:00Z (exclusive)

_INT_RE = re.compile(r"[+-]?\d+")
_FLOAT_RE = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
_NOT_A_TIME = "is not an ISO date/datetime or epoch seconds"


def _checked(ts: int | float, field: str, shown: object) -> int | float:
    """Reject timestamps that are not finite or that datetime cannot represent."""
    if isinstance(ts, float) and not math.isfinite(ts):
        raise InvalidInput(field, f"{shown!r} is not a finite number of epoch seconds")
    if not _MIN_TS <= ts < _MAX_TS:
        raise InvalidInput(field, f"{shown!r} is outside years 1-9999")
    return ts


def _from_datetime(value: dt.datetime) -> int | float:
    """Epoch seconds of a datetime (naive means UTC), exact for whole seconds."""
    if value.tzinfo is None or value.utcoffset() is None:
        value = value.replace(tzinfo=dt.UTC)
    delta = value - _EPOCH
    # Integer arithmetic keeps whole-second timestamps exact ints instead of floats.
    seconds = delta.days * DAY_SECONDS + delta.seconds
    if delta.microseconds:
        return seconds + delta.microseconds / 1e6
    return seconds


def parse_timestamp(
    value: str | int | float | dt.date | dt.datetime, field: str = "timestamp"
) -> int | float:
    """Epoch seconds from an ISO date/datetime string, a number of epoch seconds, or a date."""
    if type(value) is str:  # the usual case, before the (slower) abstract number checks
        return _from_text(value, field)
    if isinstance(value, bool):
        # bool is an int subclass; True as "1 second after the epoch" is always a mistake.
        raise InvalidInput(field, f"{value!r} {_NOT_A_TIME}")
    if isinstance(value, numbers.Integral):
        return _checked(int(value), field, value)
    if isinstance(value, numbers.Real):
        return _checked(float(value), field, value)
    if isinstance(value, dt.datetime):
        return _checked(_from_datetime(value), field, value)
    if isinstance(value, dt.date):
        return _checked(_from_datetime(dt.datetime.combine(value, dt.time())), field, value)
    if not isinstance(value, str):
        raise InvalidInput(field, f"{value!r} {_NOT_A_TIME}")
    return _from_text(value, field)


def _from_text(value: str, field: str) -> int | float:
    text = value.strip()
    if _INT_RE.fullmatch(text):
        return _checked(int(text), field, value)
    if _FLOAT_RE.fullmatch(text):
        return _checked(float(text), field, value)
    try:
        if _DATE_RE.fullmatch(text):
            parsed = dt.datetime.combine(dt.date.fromisoformat(text), dt.time())
        else:
            parsed = dt.datetime.fromisoformat(text)
    except ValueError:
        if _DATE_RE.fullmatch(text[:10]) and not _calendar_day(text[:10]):
            raise InvalidInput(field, f"{value!r} is not a valid calendar date") from None
        raise InvalidInput(field, f"{value!r} {_NOT_A_TIME}") from None
    return _checked(_from_datetime(parsed), field, value)


def _calendar_day(text: str) -> bool:
    """Whether a 'YYYY-MM-DD' names a day that exists."""
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _to_datetime(ts: float) -> dt.datetime:
    """UTC datetime of epoch seconds, rejecting values datetime cannot hold."""
    if isinstance(ts, bool) or not isinstance(ts, numbers.Real):
        raise InvalidInput("timestamp", f"{ts!r} is not a number of epoch seconds")
    value = int(ts) if isinstance(ts, numbers.Integral) else float(ts)
    return _EPOCH + dt.timedelta(seconds=_checked(value, "timestamp", ts))


def iso(ts: float) -> str:
    """Epoch seconds as ISO 8601 UTC, e.g. '2016-01-01T00:00:00Z' (microseconds only if any)."""
    return _to_datetime(ts).isoformat().replace("+00:00", "Z")


def iso_date(ts: float) -> str:
    """Epoch seconds as the UTC calendar date 'YYYY-MM-DD'."""
    return _to_datetime(ts).date().isoformat()
