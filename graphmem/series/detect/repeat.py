"""Is a boundary only a reset? A segment that starts again where the one before it started.

Stock drawn down and refilled, a counter that wraps, a tank emptied and filled: a sawtooth
reads to the detector as a jump at every tooth. Such a boundary is no change when the segment
after it starts where the segment before it started and moves by the same steps: the pattern
repeats. A change of the step (the slope) or of the level the segment starts from is still a
change.

Steps, not a line's residuals: stock drawn down by a noisy amount each day wanders from its
tooth's line like a random walk, so a line fitted to a short tooth misjudges its noise; the
steps' spread is the noise either way (for independent noise around a line, √2 times it).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# The segment before must travel this many step stds from its start: a reset jumps back, and
# a segment that stays near its start (a change of noise, say) is not told from its repeat.
TRAVEL_Z = 6.0
# The point after the boundary is within this many step stds of where the segment before
# started (the boundary may be off by a point).
START_Z = 3.5
# The mean steps before and after differ by less than this many standard errors.
SLOPE_Z = 3.0
# The steps' spreads before and after differ by less than this factor.
SPREAD_RATIO = 2.0
# ... judged only with more steps than this on both sides (a few steps' spread is too rough).
SPREAD_MIN_STEPS = 6
# A step spread is taken as at least this fraction of the warm-up's (a few rounded steps may
# all be equal).
FLOOR_FRACTION = 0.5
# A step further than this many step stds from the median is a reset the detector did not cut
# (or its neighbour): left out of the mean step and its spread.
STEP_OUTLIER_Z = 5.0


@njit(cache=True)
def _steps(y, floor):  # pragma: no cover - compiled
    """Median step of consecutive points of y, their spread (a normal std: the MAD's, or the
    std of the steps near the median if larger; at least floor) and the steps."""
    d = np.diff(y)
    centre = np.median(d)
    mad = 1.4826 * np.median(np.abs(d - centre))
    total, n = 0.0, 0
    for v in d:
        if abs(v - centre) <= STEP_OUTLIER_Z * mad:
            total += (v - centre) ** 2
            n += 1
    spread = max(mad, np.sqrt(total / max(n, 1)))
    return centre, max(spread, floor, 1e-9 * (np.abs(y).max() + 1e-300)), d


@njit(cache=True)
def _trimmed(d, centre, spread):  # pragma: no cover - compiled
    total, total2, n = 0.0, 0.0, 0
    for v in d:
        if abs(v - centre) <= STEP_OUTLIER_Z * spread:
            total += v
            total2 += v * v
            n += 1
    return total, total2, n


RESET = 1  # the segment after starts where the one before started
GOES_ON = 2  # the segment after goes on from where the one before ended


@njit(cache=True)
def _starts_again(before, first, floor, travel_z, start_z):  # pragma: no cover - compiled
    entry = before[1] - before[0]  # the jump into the segment (before[0] is the point before it)
    centre, spread, _ = _steps(before[1:], floor)
    n = before.shape[0] - 1
    drift = abs(centre) * n
    # A tooth: entered by a jump back against its drift, which took it far from there.
    if drift < travel_z * spread or abs(centre) < 2.0 * spread / np.sqrt(n):
        return 0
    if entry * centre >= 0 or abs(entry) < travel_z * spread:
        return 0
    for shift in (-1, 0, 1):
        if abs(first - before[1] - centre * shift) <= start_z * spread:
            return RESET
    if abs(first - before[-1] - centre) <= start_z * spread:
        return GOES_ON
    return 0


def starts_again(before: np.ndarray, first: float, floor: float) -> int:
    """How the first point after a boundary goes on from the segment before it, a tooth (its
    points, `before`, after the point before it; entered by a jump against its drift, both at
    least TRAVEL_Z step stds, the steps' spread taken as at least `floor`): RESET where it
    started, GOES_ON by one more of its steps, else 0."""
    if before.shape[0] < 4:
        return 0
    return int(
        _starts_again(np.ascontiguousarray(before), float(first), float(floor), TRAVEL_Z, START_Z)
    )


@njit(cache=True)
def _same_steps(before, after, floor, z):  # pragma: no cover - compiled
    cb, sb, db = _steps(before, floor)
    ca, sa, da = _steps(after, floor)
    few = min(before.shape[0], after.shape[0]) <= SPREAD_MIN_STEPS
    if not few and max(sa, sb) > SPREAD_RATIO * min(sa, sb):  # a new noise level is a change
        return False
    spread = max(sb, sa)
    tb, tb2, nb = _trimmed(db, cb, spread)
    ta, ta2, na = _trimmed(da, ca, spread)
    if nb < 2 or na < 2:
        return False
    mb, ma = tb / nb, ta / na
    var = max(
        (tb2 - nb * mb * mb + ta2 - na * ma * ma) / max(nb + na - 2, 1), spread * spread * 1e-6
    )
    return abs(ma - mb) <= z * np.sqrt(var * (1.0 / nb + 1.0 / na))


def same_steps(before: np.ndarray, after: np.ndarray, floor: float) -> bool:
    """Whether the points after a boundary move by the same mean step as the segment before it
    (within SLOPE_Z standard errors; resets inside either left out). Fewer than 3 points on
    either side: no."""
    if before.shape[0] < 3 or after.shape[0] < 3:
        return False
    return bool(
        _same_steps(
            np.ascontiguousarray(before), np.ascontiguousarray(after), float(floor), SLOPE_Z
        )
    )
