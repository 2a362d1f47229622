"""Is a boundary only the start of a transient? An excursion that decays back to where it left.

A river's storm (a rise within a day, a recession over days), a price spike of a few days or a
burst of load reads to the detector as a change where it starts, and often more changes as it
recedes. When the points after a boundary leave the level of the segment before it by far, fall
below half that within a few points, come back to it (to a small share of the excursion, as
calm as before) within `transient_length` points and stay there until the window ends or a new
excursion starts, the boundary is no change of regime: the segment after the excursion is the
one before it (round 13). A step whose level stays, a new noise level, a kink, a curve that
bends away, or a block that holds its level longer than a blip is still a change.
"""

from __future__ import annotations

import math

import numpy as np

# The excursion's size: the median of its first PEAK_WITHIN points (one wild point is not an
# excursion of several), beyond TRANSIENT_Z noise stds (of the line through the points before
# the boundary) from their mean, the level it left.
PEAK_WITHIN = 3
TRANSIENT_Z = 6.0
# It has come back once RETURN_POINTS points in a row lie, on average, within RETURN_SHARE of
# the excursion's size from the level before, none of them beyond STRAY_SHARE of it.
RETURN_SHARE = 0.3
STRAY_SHARE = 0.8
RETURN_POINTS = 6
# It decays: a point within HALF_WITHIN points of the boundary is below half its size, and an
# excursion longer than that falls, along the line through its points, by DECAY_FALL of its size
# at least (a block that holds its level and then ends is a segment).
HALF_WITHIN = 6
DECAY_FALL = 0.25
# No point up to the end of the return goes beyond CROSS_SHARE of its size to the other side
# of the level (a curve bending away, a new noise level); the return is as calm as before (its
# residuals from a line through them within CALM_RATIO of the noise std before); and the points
# after the return stay within RETURN_SHARE on average until the window ends or a new excursion
# starts (a rise by NEW_EXCURSION of the size in one step).
CROSS_SHARE = 0.4
CALM_RATIO = 2.5
NEW_EXCURSION = 0.5
# Fewer points before the boundary than this: no verdict (no level to return to).
MIN_BEFORE = 5


def _spread(before: np.ndarray) -> float:
    """The std of the residuals of the least-squares line through the points (at least a tiny
    share of their size)."""
    x = np.arange(before.shape[0], dtype=np.float64)
    x -= x.mean()
    v = before - before.mean()
    r = v - float(x @ v) / float(x @ x) * x
    top = float(np.abs(before).max())
    return max(math.sqrt(float(r @ r) / (before.shape[0] - 2)), 1e-9 * (top + 1e-300))


def _fall(u: np.ndarray) -> float:
    """How far the least-squares line through the points falls from the first to the last."""
    x = np.arange(u.shape[0], dtype=np.float64)
    x -= x.mean()
    return -float(x @ (u - u.mean())) / float(x @ x) * (u.shape[0] - 1)


def _calm(e: np.ndarray, spread: float) -> bool:
    """Whether the points' residuals from a line through them are within CALM_RATIO of spread."""
    x = np.arange(e.shape[0], dtype=np.float64)
    x -= x.mean()
    t = e - e.mean()
    r = t - float(x @ t) / float(x @ x) * x
    return math.sqrt(float(r @ r) / (e.shape[0] - 2)) <= CALM_RATIO * spread


def _stays(u: np.ndarray, j: int, end: int) -> bool:
    """Whether the excursion (in units of its size) stays back from point j on: within
    RETURN_SHARE on average up to its end or the point before a new excursion starts after
    `end`."""
    rises = np.flatnonzero(np.diff(u[end - 1 :]) > NEW_EXCURSION)
    stop = end + int(rises[0]) if rises.shape[0] else u.shape[0]
    return abs(float(u[j:stop].mean())) <= RETURN_SHARE


def decays_back(before: np.ndarray, after: np.ndarray, most: int) -> tuple[int, int]:
    """Whether a boundary (after[0] its first point; `before` the points of the segment before
    it, up to the boundary) only starts an excursion that decays back to the level before
    within `most` points: (J, used), J > 0 the points the excursion lasts, 0 if the boundary is
    no such transient, -1 if `after` is too short to tell; `used` the points of `after` the
    verdict read (reading more would not change it). Fewer than MIN_BEFORE points before: 0."""
    if before.shape[0] < MIN_BEFORE:
        return 0, 0
    if after.shape[0] < PEAK_WITHIN:
        return -1, after.shape[0]
    spread = _spread(before)
    e = after - before.mean()
    k = int(np.argsort(e[:PEAK_WITHIN])[PEAK_WITHIN // 2])  # the median of the first points
    size = float(e[k])
    if abs(size) < TRANSIENT_Z * spread:
        return 0, PEAK_WITHIN
    u = e / size  # the excursion in units of its size: about 1 at first, 0 back at the level
    window = most + RETURN_POINTS
    for j in range(k + 1, most + 1):
        end = j + RETURN_POINTS
        if end > u.shape[0]:
            return -1, u.shape[0]
        tail = u[j:end]
        if abs(float(tail.mean())) > RETURN_SHARE or float(tail.max()) > STRAY_SHARE:
            continue
        if float(u[:end].min()) < -CROSS_SHARE or not np.any(u[: HALF_WITHIN + 1] < 0.5):
            return 0, end
        if j > HALF_WITHIN and _fall(u[:j]) < DECAY_FALL:
            return 0, end
        if not _calm(e[j:end], spread):
            return 0, end
        if u.shape[0] < window:
            return -1, u.shape[0]
        return (j if _stays(u, j, end) else 0), window
    return 0, window
