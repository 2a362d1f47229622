"""Is a boundary only the start of a transient? An excursion that decays back to where it left.

A river's storm (a rise within a day, a recession over days), a price spike of a few days or a
burst of load reads to the detector as a change where it starts, and often more changes as it
recedes. When the points after a boundary leave the level of the segment before it by far, fall
below half that within a few points, come back to it (to a small share of the excursion, as
calm as before) within `transient_length` points and stay there until the window ends, a new
excursion starts or the level moves away again, the boundary is no change of regime: the
segment after the excursion is the one before it (round 13). Boundaries up to where the stay
ends are part of the excursion; later ones are judged on their own (a step soon after a storm
is a change). A step whose level stays, a new noise level, a kink, a curve that bends away, or
a block that holds its level longer than a blip is still a change.
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
# It decays: within HALF_WITHIN points of its start, and of every new peak (a storm on a storm),
# it falls below half of that peak, and an excursion longer than that falls, along the line
# through its points, by DECAY_FALL of its size at least (a block that holds its level and then
# ends is a segment; so is a slow recovery).
HALF_WITHIN = 6
DECAY_FALL = 0.25
# No point up to the end of the return goes beyond CROSS_SHARE of its size to the other side
# of the level (a curve bending away, a new noise level); the return is as calm as before (its
# noise std, read from its second differences, within CALM_RATIO of the noise std before); and
# the points after the return stay within RETURN_SHARE on average until the window ends or a
# new excursion starts (a rise by NEW_EXCURSION of the size in one step).
CROSS_SHARE = 0.4
CALM_RATIO = 2.5
NEW_EXCURSION = 0.5
# The stay also ends where the mean of RETURN_POINTS points moves LEAVE_Z noise stds (of the
# points before the boundary) further from the level than it has come back to: a step soon
# after a storm (a tail still decaying only comes closer).
LEAVE_Z = 4.0
# Boundaries up to NEW_MARGIN points before the end of the stay are part of the excursion;
# those from there on are not (the detector may put the change that ends the stay a point or
# two early).
NEW_MARGIN = 2
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
    """Whether the points are as calm as `spread` (a noise std) allows, within CALM_RATIO of it:
    their noise std read from their second differences (a smooth decay's are small)."""
    d = np.diff(e, 2)
    return math.sqrt(float(d @ d) / (6.0 * d.shape[0])) <= CALM_RATIO * spread


def _stays(u: np.ndarray, j: int, end: int, leave: float) -> int:
    """Where the excursion (in units of its size), back from point j on, stays back until: the
    end of u, the point before a new excursion starts after `end`, or where the mean of
    RETURN_POINTS points moves `leave` further from the level than it had come back to; 0 if
    the points up to there are not within RETURN_SHARE on average."""
    rises = np.flatnonzero(np.diff(u[end - 1 :]) > NEW_EXCURSION)
    stop = end + int(rises[0]) if rises.shape[0] else u.shape[0]
    if stop - j > RETURN_POINTS:
        near = np.abs(np.lib.stride_tricks.sliding_window_view(u[j:stop], RETURN_POINTS).mean(1))
        away = np.flatnonzero(near - np.minimum.accumulate(near) > leave)
        stop = j + int(away[0]) if away.shape[0] else stop
    return stop if abs(float(u[j:stop].mean())) <= RETURN_SHARE else 0


def decays_back(before: np.ndarray, after: np.ndarray, most: int) -> tuple[int, int]:
    """Whether a boundary (after[0] its first point; `before` the points of the segment before
    it, up to the boundary) only starts an excursion that decays back to the level before
    within `most` points: (span, used), span > 0 the points from the boundary to the end of
    its stay back (boundaries within them are part of the excursion; later ones, a step soon
    after a storm say, are judged on their own), 0 if the boundary is no such transient, -1
    if `after` is too short to tell; `used` the points of `after` the verdict read (reading
    more would not change it), or with -1 the points it needs before it may tell. Fewer than
    MIN_BEFORE points before: 0."""
    if before.shape[0] < MIN_BEFORE:
        return 0, 0
    if after.shape[0] < PEAK_WITHIN:
        return -1, PEAK_WITHIN
    spread = _spread(before)
    e = after - before.mean()
    k = int(np.argsort(e[:PEAK_WITHIN])[PEAK_WITHIN // 2])  # the median of the first points
    size = float(e[k])
    if abs(size) < TRANSIENT_Z * spread:
        return 0, PEAK_WITHIN
    u = e / size  # the excursion in units of its size: about 1 at first, 0 back at the level
    window = most + RETURN_POINTS
    last = min(most, u.shape[0] - RETURN_POINTS)  # the last return there are points for
    j = _first_return(u, k + 1, last)
    if j < 0:
        return (-1, u.shape[0] + 1) if last < most else (0, window)
    end = j + RETURN_POINTS
    if float(u[:end].min()) < -CROSS_SHARE or not _halves(u[:end], k):
        return 0, end
    if j > HALF_WITHIN and _fall(u[:j]) < DECAY_FALL:
        return 0, end
    if not _calm(e[j:end], spread):
        return 0, end
    if u.shape[0] < window:
        return -1, window
    stop = _stays(u, j, end, LEAVE_Z * spread / abs(size))
    return (max(stop - NEW_MARGIN, end) if stop else 0), window


def _halves(u: np.ndarray, k: int) -> bool:
    """Whether the excursion (in units of its size, the first at k) decays: from its start and
    from every new peak (a storm on a storm) it falls below half of that peak within
    HALF_WITHIN points."""
    top, at, halved = max(float(u[k]), 1.0), k, False
    for i in range(k + 1, u.shape[0]):
        if u[i] > top:
            top, at, halved = float(u[i]), i, False
        elif u[i] < 0.5 * top:
            halved = True
        if not halved and i - at >= HALF_WITHIN:
            return False
    return halved


def _first_return(u: np.ndarray, lo: int, hi: int) -> int:
    """The first j in lo..hi where RETURN_POINTS points from j on lie within RETURN_SHARE of
    the level on average, none beyond STRAY_SHARE on the excursion's side; -1 if none."""
    if hi < lo:
        return -1
    runs = np.lib.stride_tricks.sliding_window_view(u[lo : hi + RETURN_POINTS], RETURN_POINTS)
    back = (np.abs(runs.mean(axis=1)) <= RETURN_SHARE) & (runs.max(axis=1) <= STRAY_SHARE)
    found = np.flatnonzero(back)
    return lo + int(found[0]) if found.shape[0] else -1
