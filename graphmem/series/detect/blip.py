"""Is a pair of boundaries only a blip? A short excursion that returns to the line it left.

A sensor's dropout (a few exact zeros), a stuck reading or a burst of spikes reads to the
detector as two changes a few points apart: away and back. Such a pair is no change when the
points before the first and after the second lie on one line (a jump between them does not
pay for itself by BIC); the excursion's points are then outliers, not a segment.

Since round 12 two more readings: an excursion of a point or two far beyond the detector's
outliers (a spike of twice the reading, two zeros) gets a boundary but none at its end, too
short for a segment of its own: that lone boundary is no change either when the points after
it, the excursion left out, continue the line (lone_excursion). And a boundary a few points
after the one before it that only ends that change's transition (the points between lie
between the old level and the new: a speed-up over a few samples) is no second change
(only_transition).
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
# A lone excursion's points lie beyond this many of the line's noise stds: as far as the
# detector's outliers reach (bocpd.DEFAULT_OUTLIER_SCALE), so they cannot be outliers of the
# segment before and the detector opens a segment at them (round 12, on the tuned split: 6 cut
# variance and volatility changes, 20 gave nearly the same).
FAR_Z = 10.0


def _fit(x: np.ndarray, y: np.ndarray, jump: np.ndarray | None) -> float:
    """BIC of a line (plus a jump where given) through the points, one noise variance."""
    cols = [np.ones_like(x), x] if jump is None else [np.ones_like(x), x, jump]
    design = np.column_stack(cols)
    beta = np.linalg.lstsq(design, y, rcond=None)[0]
    r = y - design @ beta
    n = y.shape[0]
    scale = max(float(y @ y) / n, 1e-300)
    return n * math.log(max(float(r @ r) / n, 1e-12 * scale)) + design.shape[1] * math.log(n)


def _jump_wins(x: np.ndarray, y: np.ndarray, jump: np.ndarray) -> bool:
    """Whether a line with a jump beats one line through the points by RETURN_MARGIN (BIC)."""
    y = y - y.mean()  # a large level would drown the residuals in rounding
    x = (x - x.mean()) / x.std()
    return _fit(x, y, jump) <= _fit(x, y, None) - RETURN_MARGIN


def returns_to_line(before: np.ndarray, after: np.ndarray, gap: int) -> bool:
    """Whether the points after an excursion of `gap` points continue the line of the points
    before it: a line with a jump between does not beat a line through both by RETURN_MARGIN
    (BIC). Fewer than 3 points on either side: no."""
    if before.shape[0] < 3 or after.shape[0] < 3:
        return False
    y = np.concatenate((before, after))
    x = np.concatenate(
        (np.arange(before.shape[0]), before.shape[0] + gap + np.arange(after.shape[0]))
    ).astype(np.float64)
    jump = (np.arange(y.shape[0]) >= before.shape[0]).astype(np.float64)
    return not _jump_wins(x, y, jump)


@njit(cache=True)
def _line_spread(before):  # pragma: no cover - compiled
    """The least-squares line through the points (its level at their centre, its slope) and
    its residuals' std (at least a tiny share of their size)."""
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
    return level, slope, spread


@njit(cache=True)
def _near(before, after, z):  # pragma: no cover - compiled
    m = before.shape[0]
    centre = (m - 1) / 2.0
    level, slope, spread = _line_spread(before)
    for j in range(after.shape[0]):  # after[0] is the point after the boundary: index m + 1
        if abs(after[j] - level - slope * (m + 1 + j - centre)) <= z * spread:
            return True
    return False


@njit(cache=True)
def _far(before, after, z):  # pragma: no cover - compiled
    """Which of the points after a boundary (after[0] its first point: index m) lie beyond z
    of the noise stds of the line of the points before it."""
    m = before.shape[0]
    centre = (m - 1) / 2.0
    level, slope, spread = _line_spread(before)
    out = np.empty(after.shape[0], dtype=np.bool_)
    for j in range(after.shape[0]):
        out[j] = abs(after[j] - level - slope * (m + j - centre)) > z * spread
    return out


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


def lone_excursion(before: np.ndarray, after: np.ndarray, most: int) -> bool:
    """Whether a boundary (after[0] its first point) is only an excursion of at most `most`
    points that no boundary of its own ends (a spike, two zeros: too short for a segment):
    1 to `most` of the points after it lie beyond FAR_Z of the noise stds of the line of the
    points before (where the detector's outliers do not reach), and without them two lines,
    a noise variance each, one before the boundary and one from it, do not beat one line with
    one noise variance through both sides (BIC). Fewer than 3 points on either side: no."""
    if before.shape[0] < 3 or most < 1:
        return False
    b = np.ascontiguousarray(before)
    far = _far(b, np.ascontiguousarray(after), FAR_Z)
    n_far = int(far.sum())
    if not 1 <= n_far <= most or after.shape[0] - n_far < 3:
        return False
    m = b.shape[0]
    at = m + np.arange(after.shape[0], dtype=np.float64)
    x = np.concatenate((np.arange(m, dtype=np.float64), at[~far]))
    y = np.concatenate((b, after[~far]))
    return not _two_lines_win(x, y, m)


def _two_lines_win(x: np.ndarray, y: np.ndarray, m: int) -> bool:
    """Whether two lines, a noise variance each (the first m points and the rest), beat one
    line with one noise variance through all the points by BIC."""
    y = y - y.mean()  # a large level would drown the residuals in rounding
    x = (x - x.mean()) / x.std()
    n = y.shape[0]
    tiny = 1e-12 * max(float(y @ y) / n, 1e-300)

    def rss(lo: int, hi: int) -> float:  # a line's residual variance, in closed form
        u, v = x[lo:hi] - x[lo:hi].mean(), y[lo:hi] - y[lo:hi].mean()
        uu, uv = float(u @ u), float(u @ v)
        left = float(v @ v) - (uv * uv / uu if uu > 0 else 0.0)
        return max(left / (hi - lo), tiny)

    one = n * math.log(rss(0, n)) + 3 * math.log(n)
    two = m * math.log(rss(0, m)) + (n - m) * math.log(rss(m, n)) + 6 * math.log(n)
    return two < one
