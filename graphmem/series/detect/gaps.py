"""Gaps: readings carried forward over missing data, told by exact repeats (round 11).

A series whose values sit on a grid that is fine against their steps rarely repeats a value
exactly by chance; a run of exact repeats there is a missing stretch filled with the last
reading (a daily level not read for a week, weekend totals reported on the Monday), not a
segment with no noise. The detector reads such a repeat as no reading (OnlineBOCPD's kernel: no
evidence, no segment opens there), and only a repeat of a value the series could have read:
within GAP_Z predictive stds of where the most probable segment went next. A run of equal values
after a jump (a dropout to 0, a stuck sensor) stays an excursion, for the blip test.
"""

from __future__ import annotations

import math

import numpy as np

# Repeats are gaps when the warm-up's grid makes an exact repeat this unlikely by chance,
# judged from at least GAP_MIN_STEPS steps that are not repeats (so carried stretches in the
# warm-up do not hide it).
GAP_MAX_CHANCE = 0.05
GAP_MIN_STEPS = 16
GAP_Z = 5.0


def step_spread(values: np.ndarray) -> float:
    """The spread (MAD) of the steps between values that are not repeats; 0 with fewer than
    GAP_MIN_STEPS of them."""
    d = np.diff(np.asarray(values, dtype=np.float64))
    d = d[d != 0.0]
    if d.shape[0] < GAP_MIN_STEPS:
        return 0.0
    return 1.4826 * float(np.median(np.abs(d - np.median(d))))


def resolution(values: np.ndarray) -> float:
    """The grid the values are written on: the smallest gap between distinct values if they
    are all multiples of it, else the largest power of ten below it that they are (a running
    total's smallest gap is its smallest step, its values integers); about 1e-9 of their size
    for values written to full precision. At least two distinct values."""
    x = np.asarray(values, dtype=np.float64)
    step = float(np.min(np.diff(np.unique(x))))
    least = 1e-9 * float(np.max(np.abs(x)))
    scale = step
    while scale > least:
        r = x / scale
        if np.all(np.abs(r - np.round(r)) <= 1e-6 + 1e-12 * np.abs(r)):
            return scale
        scale = 10.0 ** (math.ceil(math.log10(scale)) - 1)
    return least


def repeat_chance(values: np.ndarray) -> float:
    """The chance that a value repeats the one before exactly, were the steps Gaussian with the
    spread of those that are not repeats (step_spread), on the values' grid (resolution); 1
    when too few steps move to tell."""
    spread = step_spread(values)
    if not spread > 0:
        return 1.0
    return min(resolution(values) / (math.sqrt(2.0 * math.pi) * spread), 1.0)


def repeats_are_gaps(values: np.ndarray) -> bool:
    """Whether the warm-up `values` show exact repeats rare by chance (GAP_MAX_CHANCE)."""
    return repeat_chance(values) <= GAP_MAX_CHANCE


def repeats(xs: np.ndarray, prev: float = math.nan) -> np.ndarray:
    """Which of xs repeat the value before exactly (prev: the value before xs[0])."""
    out = np.empty(xs.shape[0], dtype=np.bool_)
    if out.shape[0]:
        out[0] = xs[0] == prev
        np.equal(xs[1:], xs[:-1], out=out[1:])
    return out


def fill_gaps(values: np.ndarray) -> np.ndarray:
    """The values with each repeat on the line between the values around it that are not
    repeats; repeats after the last such value keep it."""
    gaps = repeats(values)
    if not gaps.any():
        return values
    at = np.flatnonzero(~gaps)
    return np.interp(np.arange(values.shape[0]), at, values[at])
