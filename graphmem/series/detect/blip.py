"""Is a pair of boundaries only a blip? A short excursion that returns to the line it left.

A sensor's dropout (a few exact zeros), a stuck reading or a burst of spikes reads to the
detector as two changes a few points apart: away and back. Such a pair is no change when the
points before the first and after the second lie on one line (a jump between them does not
pay for itself by BIC); the excursion's points are then outliers, not a segment.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# A point after a boundary is near the line it left within this many of the line's noise stds.
NEAR_Z = 3.5
# The jump must win by this much (BIC units, strong evidence) for the pair to stand: given an
# excursion that went away and came back, a return to the same line is the likelier reading.
RETURN_MARGIN = 6.0


def _fit(x: np.ndarray, y: np.ndarray, jump: np.ndarray | None) -> float:
    """BIC of a line (plus a jump where given) through the points, one noise variance."""
    cols = [np.ones_like(x), x] if jump is None else [np.ones_like(x), x, jump]
    design = np.column_stack(cols)
    beta = np.linalg.lstsq(design, y, rcond=None)[0]
    r = y - design @ beta
    n = y.shape[0]
    scale = max(float(y @ y) / n, 1e-300)
    return n * math.log(max(float(r @ r) / n, 1e-12 * scale)) + design.shape[1] * math.log(n)


def returns_to_line(before: np.ndarray, after: np.ndarray, gap: int) -> bool:
    """Whether the points after an excursion of `gap` points continue the line of the points
    before it: a line with a jump between does not beat a line through both by RETURN_MARGIN
    (BIC). Fewer than 3 points on either side: no."""
    if before.shape[0] < 3 or after.shape[0] < 3:
        return False
    y = np.concatenate((before, after))
    y = y - y.mean()  # a large level would drown the residuals in rounding
    x = np.concatenate(
        (np.arange(before.shape[0]), before.shape[0] + gap + np.arange(after.shape[0]))
    ).astype(np.float64)
    x = (x - x.mean()) / x.std()
    jump = (np.arange(y.shape[0]) >= before.shape[0]).astype(np.float64)
    return _fit(x, y, jump) > _fit(x, y, None) - RETURN_MARGIN


@njit(cache=True)
def _near(before, after, z):  # pragma: no cover - compiled
    m = before.shape[0]
    centre = (m - 1) / 2.0
    level, sxy, sxx = before.mean(), 0.0, 0.0
    for i in range(m):
        sxy += (i - centre) * (before[i] - level)
        sxx += (i - centre) ** 2
    slope = sxy / sxx
    rss, top = 0.0, 0.0
    for i in range(m):
        rss += (before[i] - level - slope * (i - centre)) ** 2
        top = max(top, abs(before[i]))
    spread = max(np.sqrt(rss / (m - 2)), 1e-9 * (top + 1e-300))
    for j in range(after.shape[0]):  # after[0] is the point after the boundary: index m + 1
        if abs(after[j] - level - slope * (m + 1 + j - centre)) <= z * spread:
            return True
    return False


def any_near_line(before: np.ndarray, after: np.ndarray) -> bool:
    """Whether any of the points after a boundary lies near the line of the points before it
    (within NEAR_Z of its noise stds): only then may the boundary start a blip."""
    if before.shape[0] < 3 or after.shape[0] == 0:
        return False
    return bool(_near(np.ascontiguousarray(before), np.ascontiguousarray(after), NEAR_Z))


def _line(y: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The least-squares line through y (at 0, 1, ...): its values at `at` and its residuals."""
    x = np.arange(y.shape[0], dtype=np.float64)
    slope, level = np.polyfit(x, y, 1)
    return level + slope * at, y - (level + slope * x)


def only_transition(before: np.ndarray, middle: np.ndarray, after: np.ndarray) -> bool:
    """Whether a boundary a few points after the one before it only ends that change's
    transition (a speed-up over a few samples, a smoothed reading): every point between the two
    boundaries lies between the line of the points before the first (carried on) and the line
    of those after the second (carried back), within NEAR_Z of their noise stds; not a level of
    its own beyond them. Fewer than 3 points before or after: no."""
    if before.shape[0] < 3 or after.shape[0] < 3 or middle.shape[0] == 0:
        return False
    nb, nm = before.shape[0], middle.shape[0]
    at = np.arange(nb, nb + nm, dtype=np.float64)
    old, r0 = _line(before, at)
    new, r1 = _line(after, at - nb - nm)
    spread = math.sqrt((float(r0 @ r0) + float(r1 @ r1)) / max(r0.shape[0] + r1.shape[0] - 4, 1))
    lo, hi = np.minimum(old, new) - NEAR_Z * spread, np.maximum(old, new) + NEAR_Z * spread
    return bool(np.all((middle >= lo) & (middle <= hi)))
