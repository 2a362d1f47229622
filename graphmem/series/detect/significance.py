"""Is a boundary a significant change at all? Two-sample tests that allow for autocorrelation.

A river's level between storms, a solar panel's yield through a run of cloudy days, a
machine's vibration: their noise is autocorrelated, so a stretch of it wanders away from the
level before and comes back, and the detector, whose model reads the points as independent
around a level or a line, takes the wander for a change. What sets a real change apart is
that it is large against the noise once the noise's memory is allowed for (round 17), or that
it is abrupt: the points before a boundary (the segment before it, at most BEFORE points) and
the points after it (the segmenter's window) are compared three times:

- jump: the median of the JUMP_POINTS points after the boundary against that of the
  JUMP_POINTS points before it, in point-to-point noise stds of the side before (1.4826 times
  the median absolute deviation of its first differences, over sqrt(2)): slow structure (a
  wander, a season, a curve, an oscillation, teeth) hardly moves neighbouring points, a step
  does (`jump_z`);

and, each side's points counted as the independent points they are worth, n (1 - rho) /
(1 + rho) with rho the lag-1 autocorrelation (clipped to [0, 0.95]):

- level and scale: the difference of the two sides' means in standard errors (the pooled
  variance of both around their own means), or the log ratio of their variances in its
  standard errors, sqrt(2 / (n1 - 1) + 2 / (n2 - 1)), whichever is larger (`mean_z`);
- trend: a Chow test, one least-squares line through both sides against a line each, the
  drop of the residual sum of squares over the noise variance of the split fit (shrunk by
  (1 - rho) / (1 + rho), rho that of its residuals) as a z, sqrt(F / 2); or the log ratio of
  the two lines' residual variances as above, whichever is larger (`chow_z`).

A boundary with `jump_z` below JUMP, `mean_z` below MEAN_Z and `chow_z` below CHOW_Z is no
change. A side of fewer than MIN_SIDE points gives no verdict (the boundary is kept), nor does a
side before whose lag-1 autocorrelation is below INDEPENDENT: there the detector's model of
independent points holds and its verdict stands (a 20-point window cannot tell a variance
doubled, or a mean moved by one std, from chance as well as the detector's run-length posterior
can).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# The most points before a boundary read (the segment before it: OnlineSegmenter._significance).
BEFORE = 160
# A boundary is a change when any z reaches its threshold.
JUMP = 6.0
MEAN_Z = 4.0
CHOW_Z = 6.0
# The points on each side of a boundary whose medians give its jump.
JUMP_POINTS = 8
# The fewest points on a side a verdict needs.
MIN_SIDE = 3
# The largest lag-1 autocorrelation allowed for (a side of a random walk is still worth a few).
MAX_RHO = 0.95
# Below this lag-1 autocorrelation of the side before, its points are read as independent and
# the boundary is kept untested.
INDEPENDENT = 0.2


def significant(before: np.ndarray, after: np.ndarray) -> bool:
    """Whether the points after a boundary jump from those before it, or differ from them
    beyond the noise's own wander (level, scale or trend); True when a side is too short to
    tell or the noise before it is nearly independent."""
    if before.shape[0] < MIN_SIDE or after.shape[0] < MIN_SIDE:
        return True
    left = np.asarray(before, dtype=np.float64)
    right = np.asarray(after, dtype=np.float64)
    if lag1(left) < INDEPENDENT and float(left.var()) > _tiny(left, right):
        return True
    return (
        jump_z(left, right) >= JUMP
        or mean_z(left, right) >= MEAN_Z
        or chow_z(left, right) >= CHOW_Z
    )


def jump_z(left: np.ndarray, right: np.ndarray) -> float:
    """The jump across the boundary, the median of the first JUMP_POINTS points after it less
    that of the last JUMP_POINTS before it, in point-to-point noise stds of the side before
    (a robust std of its first differences over sqrt(2)); at least 3 points before it."""
    steps = np.diff(left)
    spread = 1.4826 * float(np.median(np.abs(steps - np.median(steps)))) / math.sqrt(2.0)
    jump = float(np.median(right[:JUMP_POINTS])) - float(np.median(left[-JUMP_POINTS:]))
    return abs(jump) / (spread + math.sqrt(_tiny(left, right)))


def mean_z(left: np.ndarray, right: np.ndarray) -> float:
    """The larger of the two sides' mean difference and log variance ratio, in standard
    errors, each side worth n (1 - rho) / (1 + rho) independent points."""
    eps = _tiny(left, right)
    n_left = _worth(left.shape[0], lag1(left))
    n_right = _worth(right.shape[0], lag1(right))
    var_left, var_right = float(left.var()), float(right.var())
    pooled = (left.shape[0] * var_left + right.shape[0] * var_right) / (
        left.shape[0] + right.shape[0]
    ) + eps
    shift = abs(float(left.mean()) - float(right.mean()))
    z_level = shift / math.sqrt(pooled / max(n_left, 1.0) + pooled / max(n_right, 1.0))
    return max(z_level, _scale_z(var_left + eps, var_right + eps, n_left, n_right))


def chow_z(left: np.ndarray, right: np.ndarray) -> float:
    """The larger of a Chow test's z (a line each side against one through both; the residuals'
    autocorrelation allowed for) and the log ratio of the two lines' residual variances in
    standard errors."""
    eps = _tiny(left, right)
    res_left, res_right = line_residuals(left), line_residuals(right)
    split = float(res_left @ res_left + res_right @ res_right)
    joint_res = line_residuals(np.concatenate((left, right)))
    joint = float(joint_res @ joint_res)
    n = left.shape[0] + right.shape[0]
    noise = split / max(n - 4, 1) + eps
    rho = lag1(np.concatenate((res_left, res_right)))
    stat = (joint - split) / noise * (1.0 - rho) / (1.0 + rho)
    n_left, n_right = _worth(left.shape[0], rho), _worth(right.shape[0], rho)
    scale = _scale_z(float(res_left.var()) + eps, float(res_right.var()) + eps, n_left, n_right)
    return max(math.sqrt(max(stat, 0.0) / 2.0), scale)


def _scale_z(var_left: float, var_right: float, n_left: float, n_right: float) -> float:
    """The log variance ratio in its standard errors (sides worth n_left, n_right points)."""
    se = math.sqrt(2.0 / max(n_left - 1.0, 1.0) + 2.0 / max(n_right - 1.0, 1.0))
    return abs(math.log(var_left / var_right)) / se


@njit(cache=True)
def lag1(x):  # pragma: no cover - compiled
    """The lag-1 autocorrelation, clipped to [0, MAX_RHO] (0 for fewer than 4 points)."""
    if x.shape[0] < 4:
        return 0.0
    d = x - x.mean()
    total = d @ d
    if total <= 0.0:
        return 0.0
    return min(MAX_RHO, max(0.0, (d[1:] @ d[:-1]) / total))


def _worth(n: int, rho: float) -> float:
    """The independent points n points with lag-1 autocorrelation rho are worth."""
    return n * (1.0 - rho) / (1.0 + rho)


@njit(cache=True)
def line_residuals(y):  # pragma: no cover - compiled
    """y less its least-squares line (its mean for fewer than 3 points)."""
    d = y - y.mean()
    if y.shape[0] < 3:
        return d
    t = np.arange(y.shape[0]) - (y.shape[0] - 1) / 2.0
    return d - t * ((t @ d) / (t @ t))


def _tiny(left: np.ndarray, right: np.ndarray) -> float:
    """A variance negligible at the values' magnitude: constant sides still compare."""
    top = max(float(np.abs(left).max()), float(np.abs(right).max()))
    return 1e-12 * (1.0 + top * top)
