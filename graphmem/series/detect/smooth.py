"""Is a boundary only a bend? One smooth curve against a split, by BIC, around the boundary.

The detector's segments are lines whose slope may wander; a smooth curve (an S-curve, a damped
swing, a wandering level) can still read to it as a change. Before a boundary is kept, the
points around it are fitted by one cubic with one noise variance and by the best of four ways
of changing at the boundary: two lines with a noise variance each (a step, a new slope or a
new noise level), the cubic plus a jump, the cubic plus a change of slope, and a continuous
hinge (a kink). Since round 8 the cubic may carry a wave (a sinusoid of the best-fitting period,
its amplitude changing linearly), and so may the changes built on the cubic, so a season or a
dying swing is not cut while a step on it still wins. The boundary is kept unless the smooth
curve wins and the points are curved (the cubic's bend pays for itself beside a line with the
same jump), so a small step on a straight stretch, which a cubic over a few dozen points can
mimic, stays a boundary.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MIN_SIDE_BEFORE = 10  # fewer points since the previous boundary: too few to tell, keep it
MIN_SIDE_AFTER = 3
# The cubic's curvature must pay for itself by this much (BIC units) beside a line with the
# same jump: a straight stretch with a small step is not a curve (piecewise-Gaussian checks).
CURVE_MARGIN = 6.0
# The smooth curve may also carry a wave (a season, a swing dying away): a sinusoid of a period
# from WAVE_MIN_PERIOD points up, at least WAVE_MIN_CYCLES cycles in the window, its amplitude
# changing linearly; periods are tried in steps of WAVE_PERIOD_STEP up to WAVE_MAX_PERIOD (no
# bound but the window's; 0 leaves the wave out, the round-7 test).
WAVE_MIN_PERIOD = 4.0
WAVE_MIN_CYCLES = 1.5
WAVE_PERIOD_STEP = 1.05
WAVE_MAX_PERIOD = 1e9


@njit(cache=True)
def _dot(a, b):  # pragma: no cover - compiled
    # A loop, not np.dot: on a few dozen points the call and its temporaries cost more.
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


@njit(cache=True)
def _join(q, m, r, v):  # pragma: no cover - compiled
    """One Gram-Schmidt step (twice over): v, orthogonalised against q[:m] in place, becomes
    q[m] unless they already span it, and r loses its part along it; the new count of q."""
    norm0 = np.sqrt(_dot(v, v))
    for _ in range(2):
        for i in range(m):
            s = _dot(q[i], v)
            for t in range(v.shape[0]):
                v[t] -= s * q[i, t]
    norm = np.sqrt(_dot(v, v))
    if norm == 0.0 or norm <= 1e-9 * norm0:
        return m  # a regressor the others already span
    for t in range(v.shape[0]):
        q[m, t] = v[t] / norm
    s = _dot(q[m], r)
    for t in range(r.shape[0]):
        r[t] -= s * q[m, t]
    return m + 1


@njit(cache=True)
def _basis(d, rows, y):  # pragma: no cover - compiled
    """An orthonormal basis of the regressors d[rows] (its first m rows; room for all of d's
    but one: the cubic, its wave and a change), and y's residual."""
    n = y.shape[0]
    assert len(rows) < d.shape[0]  # numba checks no bounds: q must hold every row joined
    q, r, v = np.empty((d.shape[0] - 1, n)), y.copy(), np.empty(n)
    m = 0
    for j in rows:
        v[:] = d[j]
        m = _join(q, m, r, v)
    return q, m, r


@njit(cache=True)
def _rss(d, rows, y):  # pragma: no cover - compiled
    """Residual sum of squares of y on the regressors d[rows]."""
    r = _basis(d, rows, y)[2]
    return _dot(r, r)


@njit(cache=True)
def _rss_with(q, m, r, row):  # pragma: no cover - compiled
    """Residual sum of squares once row joins the fit whose basis is q[:m] and residual r
    (q[m] is overwritten)."""
    r = r.copy()
    _join(q, m, r, row.copy())
    return _dot(r, r)


@njit(cache=True)
def _bic(rss, n, k, floor):  # pragma: no cover - compiled
    return n * np.log(max(rss / n, floor)) + k * np.log(n)


@njit(cache=True)
def _wave(d, x, period):  # pragma: no cover - compiled
    """Rows 7-10 of d: a sinusoid of the period (in points) and its amplitude changing along x."""
    step = 2.0 * np.pi / (x[1] - x[0]) / period
    for i in range(x.shape[0]):
        w = (x[i] - x[0]) * step
        d[7, i], d[8, i] = np.sin(w), np.cos(w)
        d[9, i], d[10, i] = x[i] * d[7, i], x[i] * d[8, i]


@njit(cache=True, fastmath={"reassoc", "contract"})
def _sum_products(a, b):  # pragma: no cover - compiled
    # The search's dot product: reassociated, so it runs in SIMD lanes (rounding differs from
    # _dot's only in the last bits; the best period is refitted with _join).
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


@njit(cache=True)
def _wave_sums(p, x, period, w, out):  # pragma: no cover - compiled
    """Into out: the sums the normal equations of a wave of the period need. Its columns (sin,
    cos, sin x, cos x; into w) against each other (out's rows 0-3, columns 0-3) and against
    the rows of p: the basis of the fit (four rows, zero past the fit's) and its residual
    (columns 4-8)."""
    rot_c, rot_s = np.cos(2.0 * np.pi / period), np.sin(2.0 * np.pi / period)
    c, s = 1.0, 0.0  # the sinusoid by rotation, not sin and cos at every point
    for i in range(x.shape[0]):
        w[0, i], w[1, i], w[2, i], w[3, i] = s, c, x[i] * s, x[i] * c
        c, s = c * rot_c - s * rot_s, s * rot_c + c * rot_s
    for a in range(4):
        for b in range(a, 4):
            out[a, b] = _sum_products(w[a], w[b])
        for j in range(5):
            out[a, 4 + j] = _sum_products(w[a], p[j])


@njit(cache=True)
def _wave_gain(p, x, period, w, acc, g):  # pragma: no cover - compiled
    """How much a wave of the period lowers the residual sum of squares of a fit (p: its
    orthonormal basis, four rows, and its residual): the normal equations of the wave's four
    columns once projected off the basis, a search (the best period is refitted exactly);
    w, acc and g are work space."""
    _wave_sums(p, x, period, w, acc)
    for a in range(4):
        g[a, 4] = acc[a, 8]
        for b in range(a, 4):
            v = acc[a, b]
            for j in range(4, 8):
                v -= acc[a, j] * acc[b, j]
            g[a, b], g[b, a] = v, v
    gain = 0.0
    for a in range(4):  # Gaussian elimination, a column the others span left out
        pivot = g[a, a]
        if not pivot > 1e-12 * acc[a, a]:
            continue
        gain += g[a, 4] * g[a, 4] / pivot
        for b in range(a + 1, 4):
            f = g[b, a] / pivot
            for e in range(a + 1, 5):
                g[b, e] -= f * g[a, e]
    return gain


@njit(cache=True)
def _best_wave(d, x, q, m, r, max_period):  # pragma: no cover - compiled
    """Put the wave that best joins the cubic (basis q[:m], residual r) into d and the fit
    with it into q, m and r (in place); the fit's basis size (0 if no wave fits: fewer than
    WAVE_MIN_CYCLES cycles of WAVE_MIN_PERIOD points or more)."""
    n = x.shape[0]
    p = np.zeros((5, n))
    p[:m], p[4] = q[:m], r
    w, acc, g = np.empty((4, n)), np.empty((4, 9)), np.empty((4, 5))
    best, best_period, period = -1.0, 0.0, WAVE_MIN_PERIOD
    while period <= min(max_period, n / WAVE_MIN_CYCLES):
        gain = _wave_gain(p, x, period, w, acc, g)
        if gain > best:
            best, best_period = gain, period
        period *= WAVE_PERIOD_STEP
    if best_period == 0.0:
        return 0
    _wave(d, x, best_period)
    v = np.empty(n)
    for j in range(7, 11):
        v[:] = d[j]
        m = _join(q, m, r, v)
    return m


@njit(cache=True)
def _evidence(y, cut, curve_margin, max_period):  # pragma: no cover - compiled
    n = y.shape[0]
    y = y - y.mean()  # a large level would drown the residuals in rounding
    floor = 1e-12 * max((y @ y) / n, 1e-300)  # exact fits (noise-free data) stay finite
    x = np.linspace(-1.0, 1.0, n)
    # 1, x, x^2, x^3, a jump, a slope change, a hinge (kink), and a wave (sin, cos, both times x)
    d = np.zeros((11, n))
    for i in range(n):
        after = 1.0 if i >= cut else 0.0
        d[0, i], d[1, i], d[2, i], d[3, i] = 1.0, x[i], x[i] * x[i], x[i] ** 3
        d[4, i], d[5, i], d[6, i] = after, after * x[i], max(x[i] - x[cut], 0.0)
    q, m, r = _basis(d, np.arange(4), y)  # the cubic, shared by the fits built on it
    cubic = _bic(_dot(r, r), n, 5, floor)
    jump = _bic(_rss_with(q, m, r, d[4]), n, 7, floor)
    slope = _bic(_rss_with(q, m, r, d[5]), n, 7, floor)
    if max_period > 0.0:
        m = _best_wave(d, x, q, m, r, max_period)  # q, r: the cubic and the wave
        if m:  # the period is one more parameter; the changes may carry the wave too
            cubic = min(cubic, _bic(_dot(r, r), n, 10, floor))
            jump = min(jump, _bic(_rss_with(q, m, r, d[4]), n, 12, floor))
            slope = min(slope, _bic(_rss_with(q, m, r, d[5]), n, 12, floor))
    straight = _bic(_rss(d, np.array([0, 1, 4]), y), n, 5, floor)
    if jump > straight - curve_margin:
        return np.inf
    best = min(jump, slope)
    best = min(best, _bic(_rss(d, np.array([0, 1, 6]), y), n, 5, floor))
    if n - cut >= MIN_SIDE_BEFORE:  # a noise variance of its own on few points fits anything
        left = _rss(d[:, :cut], np.arange(2), y[:cut])
        right = _rss(d[:, cut:], np.arange(2), y[cut:])
        lines = cut * np.log(max(left / cut, floor)) + (n - cut) * np.log(
            max(right / (n - cut), floor)
        )
        best = min(best, lines + 7 * np.log(n))
    return cubic - best


def change_evidence(y: np.ndarray, cut: int) -> float:
    """BIC units by which a change at index cut explains y better than one cubic (with a wave,
    see the module docstring); inf when it
    cannot be told (MIN_SIDE_BEFORE, MIN_SIDE_AFTER) or y is not curved (the cubic plus a
    jump does not beat a line plus the jump by CURVE_MARGIN: a cubic over a straight stretch
    only mimics a step). The change pays for its place as one more parameter.
    """
    if cut < MIN_SIDE_BEFORE or y.shape[0] - cut < MIN_SIDE_AFTER:
        return float("inf")
    y = np.ascontiguousarray(y, dtype=np.float64)
    return float(_evidence(y, cut, CURVE_MARGIN, WAVE_MAX_PERIOD))
