"""Calendar periods (UTC): year, quarter, month, week (ISO, from Monday), day."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from graphmem.errors import InvalidInput

FREQUENCIES = ("year", "quarter", "month", "week", "day")
_UTC = dt.UTC


@dataclass(frozen=True)
class Period:
    """A half-open calendar interval [start, end) in epoch seconds, with a readable label."""

    freq: str
    start: float
    end: float
    label: str


def _ts(d: dt.datetime) -> float:
    return d.timestamp()


def _floor(t: dt.datetime, freq: str) -> dt.datetime:
    day = dt.datetime(t.year, t.month, t.day, tzinfo=_UTC)
    if freq == "year":
        return day.replace(month=1, day=1)
    if freq == "quarter":
        return day.replace(month=3 * ((t.month - 1) // 3) + 1, day=1)
    if freq == "month":
        return day.replace(day=1)
    if freq == "week":
        return day - dt.timedelta(days=day.weekday())
    return day


def _next(t: dt.datetime, freq: str) -> dt.datetime:
    if freq == "year":
        return t.replace(year=t.year + 1)
    if freq in ("quarter", "month"):
        months = t.month - 1 + (3 if freq == "quarter" else 1)
        return t.replace(year=t.year + months // 12, month=months % 12 + 1)
    return t + dt.timedelta(days=7 if freq == "week" else 1)


def _label(t: dt.datetime, freq: str) -> str:
    if freq == "year":
        return f"{t.year}"
    if freq == "quarter":
        return f"{t.year}-Q{(t.month - 1) // 3 + 1}"
    if freq == "month":
        return f"{t.year}-{t.month:02d}"
    if freq == "week":
        year, week, _ = t.isocalendar()
        return f"{year}-W{week:02d}"
    return t.date().isoformat()


def check_freq(freq: str, field: str = "freq") -> str:
    if freq not in FREQUENCIES:
        raise InvalidInput(field, f"{freq!r} is not one of {', '.join(FREQUENCIES)}")
    return freq


def period_of(ts: float, freq: str) -> Period:
    """The period of `freq` containing the instant `ts`."""
    start = _floor(dt.datetime.fromtimestamp(ts, _UTC), check_freq(freq))
    return Period(freq, _ts(start), _ts(_next(start, freq)), _label(start, freq))


def periods_between(start: float, end: float, freq: str, limit: int = 10_000) -> list[Period]:
    """Every period of `freq` overlapping [start, end], in order."""
    if end < start:
        raise InvalidInput("end", "must not be before start")
    out = []
    current = period_of(start, freq)
    while current.start <= end:
        out.append(current)
        if len(out) > limit:
            raise InvalidInput("freq", f"[start, end] spans more than {limit} {freq} periods")
        current = period_of(current.end, freq)
    return out


def previous(period: Period) -> Period:
    """The period of the same frequency just before this one."""
    return period_of(period.start - 1, period.freq)
