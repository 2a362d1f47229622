"""Is a boundary worth its place once the segment after it is known? (round 21)

Every other test reads a boundary through a window of a few dozen points, so a storm, an on/off
duty cycle or a day's peak is cut into several boundaries a few points apart, each one a clear
change against the points around it. What sets a real change apart is that the segments it
separates differ as wholes. So a boundary every other test kept is held until the segment after
it is known (it ends at the next boundary kept, or `merge_window` points after it, or at the
close), and is kept only if (`worth_a_boundary`):

- a mean and a variance for each side explain the segment before it (since the boundary kept
  before it, at most BEFORE points) and the one after better than one mean and variance for
  both, by more than a penalty times the log of their points (a penalised likelihood ratio, as
  BIC's); each side's points beyond CLIP robust stds of its median are drawn in to there first,
  so a dropout or a spike the other tests let through does not decide it. The penalty is 1
  (BIC's) where the points wander no more than independent noise does around each side's mean,
  rising to the segmenter's `merge_penalty` as their lag-1 autocorrelation reaches WANDER: where
  the detector's model of independent points holds, its run-length posterior tells a small
  shift from chance, and where it does not, a stretch of wander passes for a change;
- or a line through each side explains them better than one line through both by more than
  LINE_PENALTY times the log of their points: a new slope on a trend (a kink) keeps its
  boundary, which the means of the two sides may not show;
- or one line with a jump at the boundary explains them better than one line, by more than
  OFFSET_PRICE times the first way's price, the autocorrelation read about the jumping line
  (round 22): a level shift on a trend, whose sides spread about their own means, and whose
  means may hardly differ where the shift undoes what the trend added;
- or the median step (first difference) differs across it by more than STEP_Z robust standard
  errors: stock drawn down faster between refills spreads over the same levels.

A boundary whose first EARLY points after it already pass the test with every price and
threshold EARLY_STRICTNESS times as high is kept as soon as they are in, so a clear step is
reported as soon as the other tests let it be, and only a doubtful one waits for its segment.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from graphmem.series.detect.significance import lag1, line_residuals

# The most points of the segment before a boundary read.
BEFORE = 200
# The fewest points on a side a verdict needs (fewer: the boundary is kept).
MIN_SIDE = 3
# Points beyond this many robust stds (1.4826 MADs) of their side's median are drawn in to it.
CLIP = 5.0
# The lag-1 autocorrelation at which the penalty reaches the segmenter's merge_penalty.
WANDER = 0.5
# A boundary is kept as soon as the first EARLY points after it show a change EARLY_STRICTNESS
# times as clear as the test asks of the whole segment after it (a clear step is reported 20
# points after it, as before the test).
EARLY = (20, 40)
EARLY_STRICTNESS = 3.0
# A change of the median step in robust standard errors that keeps a boundary.
STEP_Z = 4.0
# The penalty a change of slope pays (times the log of the points), kept without the means.
LINE_PENALTY = 16.0
# A jump on a trend: one line with an offset at the boundary against one line, priced this
# many times the means' price (raised by the autocorrelation about the jumping line), read
# only with this many points or more on each side (a line through fewer is too rough).
OFFSET_PRICE = 2.5
OFFSET_MIN_SIDE = 10


@njit(cache=True)
def _clipped(xs):  # pragma: no cover - compiled
    """The points, those beyond CLIP robust stds of their median drawn in to there (none
    where more than half of them are equal: counts mostly zero keep their incidents)."""
    med = np.median(xs)
    spread = 1.4826 * np.median(np.abs(xs - med))
    out = xs.copy()
    if spread > 0:
        lo, hi = med - CLIP * spread, med + CLIP * spread
        for i in range(out.shape[0]):
            out[i] = min(max(out[i], lo), hi)
    return out


@njit(cache=True)
def _cost(residuals, floor):  # pragma: no cover - compiled
    """n/2 times the log of the residuals' mean square: the Gaussian fit's cost."""
    n = residuals.shape[0]
    return 0.5 * n * math.log(max((residuals @ residuals) / n, floor))


@njit(cache=True)
def _gains(before, after):  # pragma: no cover - compiled
    """How much better a fit for each side explains the points than one for both, by means
    and by lines; and the lag-1 autocorrelation of the points about their own side's mean."""
    before, after = _clipped(before), _clipped(after)
    both = np.concatenate((before, after))
    # exactly constant sides (counts of zero, a stuck reading) would cost minus infinity
    mean_size = np.mean(np.abs(both))
    floor = 1e-12 * max(1.0, mean_size * mean_size)
    apart_b, apart_a = before - before.mean(), after - after.mean()
    by_mean = _cost(both - both.mean(), floor) - _cost(apart_b, floor) - _cost(apart_a, floor)
    lines = _cost(line_residuals(before), floor) + _cost(line_residuals(after), floor)
    by_line = _cost(line_residuals(both), floor) - lines
    return by_mean, by_line, lag1(np.concatenate((apart_b, apart_a)))


@njit(cache=True)
def _offset_gain(before, after):  # pragma: no cover - compiled
    """How much better one line with a jump at the boundary explains the points than one line,
    and the lag-1 autocorrelation of the points about the jumping line."""
    before, after = _clipped(before), _clipped(after)
    y = np.concatenate((before, after))
    mean_size = np.mean(np.abs(y))
    floor = 1e-12 * max(1.0, mean_size * mean_size)
    step = np.zeros(y.shape[0])
    step[before.shape[0] :] = 1.0
    # least squares on a line and a step: the step fitted to what a line leaves of the points
    about_line, step_left = line_residuals(y), line_residuals(step)
    jumping = about_line - step_left * ((step_left @ about_line) / (step_left @ step_left))
    return _cost(about_line, floor) - _cost(jumping, floor), lag1(jumping)


@njit(cache=True)
def _step_z(before, after):  # pragma: no cover - compiled
    """The difference of the median steps (first differences) in robust standard errors."""
    d_b, d_a = np.diff(before), np.diff(after)
    m_b, m_a = np.median(d_b), np.median(d_a)
    s_b = 1.4826 * np.median(np.abs(d_b - m_b))
    s_a = 1.4826 * np.median(np.abs(d_a - m_a))
    error = math.sqrt(s_b * s_b / d_b.shape[0] + s_a * s_a / d_a.shape[0])
    if error > 0:
        return abs(m_a - m_b) / error
    return math.inf if m_a != m_b else 0.0  # exact steps (a counter): any change is one


def worth_a_boundary(
    before: np.ndarray, after: np.ndarray, penalty: float, strict: float = 1.0
) -> bool:
    """Whether a boundary between before and after pays for itself (module docstring), every
    price and threshold times `strict`; True when a side has fewer than MIN_SIDE points (no
    verdict)."""
    if before.shape[0] < MIN_SIDE or after.shape[0] < MIN_SIDE:
        return True
    before = np.ascontiguousarray(before, dtype=np.float64)
    after = np.ascontiguousarray(after, dtype=np.float64)
    log_n = math.log(before.shape[0] + after.shape[0])
    by_mean, by_line, rho = _gains(before, after)
    price = strict * (1.0 + (penalty - 1.0) * min(1.0, rho / WANDER))
    return (
        by_mean > price * log_n
        or by_line > strict * LINE_PENALTY * log_n
        or _jump_on_a_line(before, after, penalty, strict * log_n)
        or new_step(before, after, strict * STEP_Z)
    )


def _jump_on_a_line(before: np.ndarray, after: np.ndarray, penalty: float, scale: float) -> bool:
    """Whether a jump at the boundary on one line through both sides pays OFFSET_PRICE times
    the means' price (scaled by `scale`), the autocorrelation read about the jumping line: a
    level shift on a trend, whose sides spread widely about their own means."""
    if min(before.shape[0], after.shape[0]) < OFFSET_MIN_SIDE:
        return False
    gain, rho = _offset_gain(before, after)
    return gain > scale * OFFSET_PRICE * (1.0 + (penalty - 1.0) * min(1.0, rho / WANDER))


def new_step(before: np.ndarray, after: np.ndarray, z: float = STEP_Z) -> bool:
    """Whether the median step (first difference) after the boundary differs from the one
    before by more than z robust standard errors: a sawtooth drawn down faster, or a new
    slope, whose levels spread alike on both sides; False with fewer than MIN_SIDE points on
    a side."""
    if before.shape[0] < MIN_SIDE or after.shape[0] < MIN_SIDE:
        return False
    return bool(_step_z(before, after) > z)
