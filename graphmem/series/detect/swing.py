"""Is a boundary only an ordinary swing? A change no bigger than the series' own swings.

A river that rises and falls with every storm, a p95 latency with its daily peaks, a meter's
usage with its days and weekends: the detector reads many of their swings as changes, each one
clear against the noise of the few points around it. What sets them apart from a change of
regime is that the series swings like that all the time. So each boundary is compared with the
series' own history (round 14): how the `window` points after it differ from the `window`
points before it, in level (their medians), in scale (the medians of their absolute first
differences, as a log ratio) and in slope (least squares), against the same three differences
at every earlier split of up to SWING_HISTORY points before it. A boundary that beats every
earlier split on none of the three is an ordinary swing, no change. Splits within a window of a
boundary kept before are left out (a real change is no swing of the series); with fewer than
MIN_HISTORY windows' worth of splits left there is no verdict, and the boundary is kept.

A clear change is told early: the comparison is first made with STAGES points on each side
(the same comparison on a shorter window), and the boundary is kept as soon as it beats the
history there.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

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
    before t, as |level| and |slope| in steps (the two windows' median absolute first
    difference) and |log scale| (the log ratio of those steps)."""
    starts, where = np.unique(np.concatenate((splits - m, splits)), return_inverse=True)
    win = sliding_window_view(x, m)[starts]  # the windows the splits read, once each
    level = np.median(win, axis=1)
    jumps = np.abs(np.diff(win, axis=1))
    steps = np.median(jumps, axis=1)
    # most steps exactly 0 (a counter, a grid): their mean
    steps = np.where(steps > 0, steps, jumps.mean(axis=1)) + 1e-12 * (1.0 + np.abs(level))
    tt = np.arange(m, dtype=np.float64) - (m - 1) / 2.0
    slope = win @ tt / float(tt @ tt)
    before, after = where[: splits.shape[0]], where[splits.shape[0] :]
    step = 0.5 * (steps[after] + steps[before])
    return np.stack(
        (
            (level[after] - level[before]) / step,
            np.log(steps[after] / steps[before]),
            (slope[after] - slope[before]) / step,
        ),
        axis=1,
    )


def history_splits(first: int, c: int, m: int, kept: list[int]) -> np.ndarray:
    """The history's splits before c (values from `first` on): every stride(m)-th point back
    from c - m to first + m, at least m points from every boundary in `kept`."""
    t = np.arange(c - m, first + m - 1, -stride(m))[::-1]
    ok = np.ones(t.shape[0], dtype=bool)
    for b in kept:
        ok &= np.abs(t - b) >= m
    return t[ok]


def stride(m: int) -> int:
    """Splits of the history read, one in so many: windows of m overlap, so their differences
    change little from one point to the next."""
    return max(1, m // SPLITS_PER_WINDOW)


def enough_history(first: int, c: int, m: int, kept: list[int]) -> bool:
    """Whether the splits before c, values from `first` on, give a verdict for windows of m."""
    return history_splits(first, c, m, kept).shape[0] * stride(m) >= MIN_HISTORY * m


def beats_history(x: np.ndarray, first: int, c: int, m: int, kept: list[int]) -> bool:
    """Whether the split at c (x holds points first .. c + m - 1) differs from the m points
    before it more than every history split does, in level, scale or slope."""
    if x.shape[0] != c + m - first:  # points no longer kept: no verdict, a change
        return True
    splits = history_splits(first, c, m, kept)
    if splits.shape[0] == 0:
        return True
    diffs = split_differences(x, m, np.append(splits, c) - first)
    # around the history's typical difference: a trend moves every split's level alike
    moved = np.abs(diffs - np.median(diffs[:-1], axis=0))
    history = moved[:-1]
    if np.quantile(history[:, 0], SWING_SHARE) <= SWINGY * math.sqrt(math.pi / m) / MAD_STEP:
        return True  # its level swings no more than plain noise does: no verdict, a change
    return bool(np.any(moved[-1] > history.max(axis=0)))


def stages(window: int) -> tuple[int, ...]:
    """The window sizes a boundary is compared at, shortest first, ending with `window`."""
    return (*(s for s in STAGES if MIN_WINDOW <= s < window), window)
