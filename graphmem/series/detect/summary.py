"""Deterministic one-line plain-English summaries of segment features."""

from __future__ import annotations

import datetime as dt
import math
import numbers

from graphmem.errors import InvalidInput
from graphmem.series.detect.stats import Features
from graphmem.timeutil import iso_date

# A change smaller than this fraction of the level (or of the std, if larger) reads as flat.
_FLAT_FRACTION = 0.005
# Bounds between low, moderate and high volatility for detrended std / |mean|.
_CV_LOW = 0.05
_CV_HIGH = 0.20
# The same for detrended std / |change|, used when the level is too close to zero.
_CHANGE_LOW = 0.25
_CHANGE_HIGH = 1.0
# An extreme (the min or max) this many stds from the mean, at least, is named: one spike lifts
# the std, and so the volatility word, of a calm segment (independent normal points of the
# segment's count reach about sqrt(2 ln n) stds; twice that, or 5, is far beyond).
_EXTREME_Z = 5.0


def fmt_num(x: float, sig: int = 4) -> str:
    """Compact number: sig significant digits (all integer digits kept), no trailing zeros."""
    if isinstance(sig, bool) or not isinstance(sig, int) or sig < 1:
        raise InvalidInput("sig", f"{sig!r} is not a positive integer")
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise InvalidInput("x", f"{x!r} is not a number")
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(x)))
    # Scientific notation only outside the magnitudes people read as plain numbers.
    if magnitude >= 15 or magnitude < -6:
        return f"{x:.{sig}g}"
    # Enough decimals for sig digits, never rounding away integer digits (12345.6 -> 12346).
    text = f"{x:.{max(0, sig - 1 - magnitude)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _signed(x: float) -> str:
    """fmt_num with an explicit sign for nonzero values."""
    text = fmt_num(x)
    return text if text.startswith("-") or text == "0" else "+" + text


def _with_unit(text: str, unit: str | None) -> str:
    """Attach the unit after a number, if there is one."""
    return f"{text} {unit}" if unit else text


def _span(t_start: float, t_end: float) -> str:
    """'start to end (N days)' with N counting calendar days inclusively."""
    first, last = iso_date(t_start), iso_date(t_end)
    days = (dt.date.fromisoformat(last) - dt.date.fromisoformat(first)).days + 1
    plural = "day" if days == 1 else "days"
    dates = first if first == last else f"{first} to {last}"
    return f"{dates} ({days} {plural})"


def _direction(f: Features, unit: str | None) -> str:
    """'trend rose X (+P %)', 'trend fell X (-P %)' or 'trend flat': the fitted line's change.

    The trend (slope x duration) rather than last - first (the `change` and `pct_change`
    fields): single noisy end points would otherwise contradict the slope printed beside
    them. The sentence says "trend" so it is not read as those fields.
    """
    change = f.slope_per_day * f.duration_days
    scale = max(abs(f.mean), f.std)
    if change == 0 or abs(change) <= _FLAT_FRACTION * scale:
        return "trend flat"
    verb = "rose" if change > 0 else "fell"
    text = f"trend {verb} {_with_unit(fmt_num(abs(change)), unit)}"
    start_level = f.mean - change / 2  # the fitted line's value at the start, evenly spaced
    if start_level != 0:
        text += f" ({_signed(100 * change / abs(start_level))} %)"
    return text


def _volatility(f: Features, unit: str | None) -> str:
    """Volatility word from the spread around the trend, relative to the level or the change,
    and an outlying extreme if there is one."""
    std_text = f"(std {_with_unit(fmt_num(f.std), unit)})"
    if f.std == 0:
        return f"no volatility {std_text}"
    # The spread the linear trend does not explain: a steady rise is not volatile.
    noise = f.std * math.sqrt(max(0.0, 1.0 - f.r2))
    if abs(f.mean) > f.std:
        ratio, low, high = noise / abs(f.mean), _CV_LOW, _CV_HIGH
    else:
        # Near a zero level std/|mean| explodes; compare with the size of the move instead.
        ratio = noise / abs(f.change) if f.change else math.inf
        low, high = _CHANGE_LOW, _CHANGE_HIGH
    word = "low" if ratio < low else "moderate" if ratio < high else "high"
    return f"{word} volatility {std_text}{_extreme(f, unit)}"


def _extreme(f: Features, unit: str | None) -> str:
    """'; max X is Z stds above the others' mean' for an outlying extreme, else ''.

    Each extreme is measured against the other points (their mean and std, from the
    segment's own by leaving it out): a spike inflates the std of a short segment that holds
    it so much that, measured against all of them, it could not stand out.
    """
    if f.std == 0 or f.n < 4:
        return ""
    bar = max(_EXTREME_Z, 2.0 * math.sqrt(2.0 * math.log(f.n)))
    above, below = _apart(f, f.max), -_apart(f, f.min)
    if max(above, below) < bar:
        return ""
    name, value, z, side = (
        ("max", f.max, above, "above") if above >= below else ("min", f.min, below, "below")
    )
    if fmt_num(value) == fmt_num(f.mean):  # apart only beyond the digits shown
        return ""
    shown = _with_unit(fmt_num(value), unit)
    if math.isinf(z):
        return f"; {name} {shown} lies far outside the other points"
    return f"; {name} {shown} is {z:.3g} stds {side} the others' mean"


def _apart(f: Features, x: float) -> float:
    """How many stds of the other points x lies from their mean (inf if they are all equal)."""
    rest = f.n - 1
    mean = (f.n * f.mean - x) / rest
    # the others' variance from the segment's: n var = sum of squares about the mean
    var = (f.n * f.std * f.std - (x - f.mean) ** 2 * f.n / rest) / rest
    if var <= 1e-9 * f.std * f.std:  # the others hardly vary (or too little to tell here)
        return math.inf if x != mean else 0.0
    return (x - mean) / math.sqrt(var)


def summarize_segment(features: Features, unit: str | None, t_start: float, t_end: float) -> str:
    """One deterministic sentence: span, mean level, change, slope and volatility."""
    if not isinstance(features, Features):
        raise InvalidInput("features", f"expected Features, got {type(features).__name__}")
    for name, value in (("t_start", t_start), ("t_end", t_end)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise InvalidInput(name, f"{value!r} is not a number of epoch seconds")
        if not math.isfinite(value):
            raise InvalidInput(name, "must be finite")
    if t_end < t_start:
        raise InvalidInput("t_end", "must not be before t_start")
    unit = unit.strip() if unit else None
    span = _span(t_start, t_end)
    if features.n == 1:
        return f"{span}: single value {_with_unit(fmt_num(features.mean), unit)}."
    parts = [
        f"mean {_with_unit(fmt_num(features.mean), unit)}",
        _direction(features, unit),
        f"slope {_signed(features.slope_per_day)} {unit + '/day' if unit else 'per day'}",
        _volatility(features, unit),
    ]
    return f"{span}: {', '.join(parts)}."
