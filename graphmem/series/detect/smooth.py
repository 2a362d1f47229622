"""Is a boundary only a bend? One smooth curve against a split, by BIC, around the boundary.

The detector's segments are lines whose slope may wander; a smooth curve (an S-curve, a damped
swing, a wandering level) can still read to it as a change. Before a boundary is kept, the
points around it are fitted by one cubic with one noise variance and by the best of four ways
of changing at the boundary: two lines with a noise variance each (a step, a new slope or a
new noise level), the cubic plus a jump, the cubic plus a change of slope, and a continuous
hinge (a kink). The boundary is kept unless the cubic wins and the points are curved (the
cubic's bend pays for itself beside a line with the same jump), so a small step on a straight
stretch, which a cubic over a few dozen points can mimic, stays a boundary.
"""

from __future__ import annotations

import numpy as np

MIN_SIDE_BEFORE = 10  # fewer points since the previous boundary: too few to tell, keep it
MIN_SIDE_AFTER = 3
# The cubic's curvature must pay for itself by this much (BIC units) beside a line with the
# same jump: a straight stretch with a small step is not a curve (piecewise-Gaussian checks).
CURVE_MARGIN = 6.0
_CUBIC = 4


def _rss(design: np.ndarray, y: np.ndarray) -> float:
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    resid = y - design @ coef
    return float(resid @ resid)


def _bic(rss: float, n: int, k: int, floor: float) -> float:
    return n * float(np.log(max(rss / n, floor))) + k * float(np.log(n))


def _line_bic(y: np.ndarray, floor: float) -> float:
    """BIC's fit term of one side fitted by a line (its own noise variance)."""
    n = y.shape[0]
    x = np.linspace(-1.0, 1.0, n)
    return n * float(np.log(max(_rss(np.stack([np.ones(n), x], 1), y) / n, floor)))


def change_evidence(y: np.ndarray, cut: int) -> float:
    """BIC units by which a change at index cut explains y better than one cubic; inf when it
    cannot be told (MIN_SIDE_BEFORE, MIN_SIDE_AFTER) or y is not curved (the cubic plus a
    jump does not beat a line plus the jump by CURVE_MARGIN: a cubic over a straight stretch
    only mimics a step). The change pays for its place as one more parameter.
    """
    n = y.shape[0]
    if cut < MIN_SIDE_BEFORE or n - cut < MIN_SIDE_AFTER:
        return np.inf
    floor = 1e-12 * max(float(np.mean(y * y)), 1e-300)  # exact fits (noise-free data) stay finite
    x = np.linspace(-1.0, 1.0, n)
    cubic = np.vander(x, _CUBIC)
    after = (np.arange(n) >= cut).astype(np.float64)
    jump = _bic(_rss(np.column_stack([cubic, after]), y), n, _CUBIC + 3, floor)
    straight = _bic(_rss(np.column_stack([cubic[:, 2:], after]), y), n, 5, floor)
    if jump > straight - CURVE_MARGIN:
        return np.inf
    lines = np.inf  # a noise variance of its own on a handful of points fits anything
    if n - cut >= MIN_SIDE_BEFORE:
        lines = _line_bic(y[:cut], floor) + _line_bic(y[cut:], floor) + 7 * float(np.log(n))
    bend = _bic(_rss(np.column_stack([cubic, after * x]), y), n, _CUBIC + 3, floor)
    hinge_design = np.stack([np.ones(n), x, np.maximum(x - x[cut], 0.0)], 1)
    hinge = _bic(_rss(hinge_design, y), n, 5, floor)
    smooth = _bic(_rss(cubic, y), n, _CUBIC + 1, floor)
    return smooth - min(lines, jump, bend, hinge)
