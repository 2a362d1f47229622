"""Is a boundary only an ordinary swing? A change no bigger than the series' own swings.

A river that rises and falls with every storm, a p95 latency with its daily peaks, a meter's
usage with its days and weekends: the detector reads many of their swings as changes, each one
clear against the noise of the few points around it. What sets them apart from a change of
regime is that the series swings like that all the time. So each boundary is compared with the
series' own history (round 14): how the `window` points after it differ from the `window`
points before it, in level (their medians) and slope (least squares), both in steps (the
windows' median absolute first difference), and in scale (the log ratio of those steps),
against the same three differences at the earlier splits of up to SWING_HISTORY points before
it (one in stride(m) of them: neighbouring splits differ little), each centred on the
history's median difference (a trend moves every split's level alike). A boundary that goes
beyond every earlier split on none of the three is an ordinary swing, no change.

No verdict (the boundary is kept): with fewer than MIN_HISTORY windows' worth of splits left
once those within a window of a boundary kept before are set aside (a real change is no swing
of the series), and where the history's level differences swing no more than plain noise
does (SWINGY): a small step in plain noise stays a change however many splits precede it.

A clear change is told early: the comparison is first made with STAGES points on each side
(the same comparison on a shorter window), and the boundary is kept as soon as it beats the
history there.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# The points before a boundary whose splits it is compared with.
SWING_HISTORY = 400
# The fewest earlier splits (in windows) a verdict needs.
MIN_HISTORY = 2
# Shorter windows (points on each side) at which a change that beats the history is kept early.
STAGES = (5, 10)
# A series swings when the SWING_SHARE quantile of its history's level differences is beyond
# SWINGY times the std white noise gives them (medians of m points: sqrt(pi / m) noise stds,
# a noise std being 1 / MAD_STEP steps); one that does not gets no verdict (a small step in
# plain noise is a change however many splits the history holds).
SWING_SHARE = 0.9
SWINGY = 2.0
MAD_STEP = 0.6745 * math.sqrt(2.0)  # white noise's median absolute first difference, in stds
# The history's splits read per window length (SPLITS_PER_WINDOW = 4: one point in 5 for
# windows of 20).
SPLITS_PER_WINDOW = 4
# The fewest points after a boundary a verdict reads (at a close, what there is).
MIN_WINDOW = 5


def split_differences(x: np.ndarray, m: int, splits: np.ndarray) -> np.ndarray:
    """For each split t (m <= t <= len(x) - m): how the m points from t differ from the m
    before t, as level and slope in steps (the two windows' median absolute first
    difference) and log scale (the log ratio of those steps)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    return _split_differences(x, m, np.ascontiguousarray(splits, dtype=np.int64))


@njit(cache=True)
def _split_differences(x, m, splits):  # pragma: no cover - compiled
    out = np.empty((splits.shape[0], 3))
    stats = np.empty((x.shape[0] - m + 1, 3))  # per window start, each read once
    done = np.zeros(x.shape[0] - m + 1, dtype=np.bool_)
    buf = np.empty(m)
    for r in range(splits.shape[0]):
        b, a = splits[r] - m, splits[r]
        for start in (b, a):
            if not done[start]:
                _window(x, start, m, buf, stats[start])
                done[start] = True
        step = 0.5 * (stats[b, 1] + stats[a, 1])
        out[r, 0] = (stats[a, 0] - stats[b, 0]) / step
        out[r, 1] = math.log(stats[a, 1] / stats[b, 1])
        out[r, 2] = (stats[a, 2] - stats[b, 2]) / step
    return out


@njit(cache=True)
def _window(x, start, m, buf, out):  # pragma: no cover - compiled
    """out = (median, step, least-squares slope) of x[start : start + m]; the step is the
    median absolute first difference, their mean where most are exactly 0 (a counter, a
    grid)."""
    for j in range(m):
        buf[j] = x[start + j]
    level = _median(buf, m)
    total = 0.0
    for j in range(m - 1):
        buf[j] = abs(x[start + j + 1] - x[start + j])
        total += buf[j]
    step = _median(buf, m - 1)
    if step <= 0.0:
        step = total / (m - 1)
    centre = (m - 1) / 2.0
    num = 0.0
    den = 0.0
    for j in range(m):
        num += (j - centre) * x[start + j]
        den += (j - centre) * (j - centre)
    out[0] = level
    out[1] = step + 1e-12 * (1.0 + abs(level))
    out[2] = num / den


@njit(cache=True)
def _median(buf, n):  # pragma: no cover - compiled
    """The median of buf[:n], sorting it in place (insertion: n is a window's few points)."""
    for i in range(1, n):
        v = buf[i]
        j = i - 1
        while j >= 0 and buf[j] > v:
            buf[j + 1] = buf[j]
            j -= 1
        buf[j + 1] = v
    half = n // 2
    return buf[half] if n % 2 else 0.5 * (buf[half - 1] + buf[half])


def history_splits(first: int, c: int, m: int, kept: list[int]) -> np.ndarray:
    """The history's splits before c (values from `first` on): every stride(m)-th point back
    from c - m to first + m, at least m points from every boundary in `kept`."""
    return _history(first, c, m, stride(m), np.asarray(kept, dtype=np.int64))


@njit(cache=True)
def _history(first, c, m, step, kept):  # pragma: no cover - compiled
    out = np.empty(max(0, (c - first - 2 * m) // step + 1), dtype=np.int64)
    n = 0
    for t in range(c - m - ((c - 2 * m - first) // step) * step, c - m + 1, step):
        if t < first + m:
            continue
        far = True
        for b in kept:
            if abs(t - b) < m:
                far = False
                break
        if far:
            out[n] = t
            n += 1
    return out[:n]


def stride(m: int) -> int:
    """Splits of the history read, one in so many: windows of m overlap, so their differences
    change little from one point to the next."""
    return max(1, m // SPLITS_PER_WINDOW)


def enough_history(first: int, c: int, m: int, kept: list[int]) -> bool:
    """Whether the splits before c, values from `first` on, give a verdict for windows of m."""
    return history_splits(first, c, m, kept).shape[0] * stride(m) >= MIN_HISTORY * m


def beats_history(x: np.ndarray, first: int, c: int, m: int, kept: list[int]) -> bool:
    """Whether the split at c (x holds points first .. c + m - 1) differs from the m points
    before it more than every history split does, in level, scale or slope, each around the
    history's median difference (a trend moves every split's level alike); True where the
    history's level differences swing no more than plain noise does (no verdict)."""
    if x.shape[0] != c + m - first:  # points no longer kept: no verdict, a change
        return True
    noise = SWINGY * math.sqrt(math.pi / m) / MAD_STEP
    values = np.ascontiguousarray(x, dtype=np.float64)
    kept_at = np.asarray(kept, dtype=np.int64)
    return bool(_beats(values, first, c, m, stride(m), kept_at, noise, SWING_SHARE))


@njit(cache=True)
def _beats(x, first, c, m, step, kept, noise, share):  # pragma: no cover - compiled
    splits = _history(first, c, m, step, kept)
    n = splits.shape[0]
    if n == 0:
        return True
    at = np.empty(n + 1, dtype=np.int64)
    at[:n] = splits - first
    at[n] = c - first
    diffs = _split_differences(x, m, at)
    moved = np.empty((n + 1, 3))
    for k in range(3):
        centre = np.median(diffs[:n, k])
        for r in range(n + 1):
            moved[r, k] = abs(diffs[r, k] - centre)
    if np.quantile(moved[:n, 0], share) <= noise:
        return True
    for k in range(3):  # noqa: SIM110 - compiled: no generators
        if moved[n, k] > moved[:n, k].max():
            return True
    return False


def stages(window: int) -> tuple[int, ...]:
    """The window sizes a boundary is compared at, shortest first, ending with `window`."""
    return (*(s for s in STAGES if MIN_WINDOW <= s < window), window)
