"""Segment boundaries from OnlineBOCPD: confirmed online once the evidence is in, and at close.

Boundaries are read off the most probable segmentation: after point t the current segment
most probably started at s = t - r_t (r_t the MAP run length), the one before it at
s' = (s - 1) - r_{s-1}, and so on (the MAP run length of each point is kept for the last
`max_lag` points). Given a change at s, what came before is independent of what follows, so
this walk is the run-length posterior's own answer, one segment at a time.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
from numba import njit

from graphmem.errors import InvalidInput
from graphmem.series.detect.blip import (
    any_near_line,
    lone_excursion,
    only_transition,
    returns_to_line,
)
from graphmem.series.detect.bocpd import (
    DEFAULT_MAX_RUN_LENGTHS,
    DEFAULT_OUTLIER_PROB,
    DEFAULT_OUTLIER_SCALE,
    DEFAULT_PROTECT_RECENT,
    DEFAULT_PRUNE_THRESHOLD,
    OnlineBOCPD,
)
from graphmem.series.detect.merge import BEFORE as MERGE_BEFORE
from graphmem.series.detect.merge import EARLY as MERGE_EARLY
from graphmem.series.detect.merge import EARLY_STRICTNESS, worth_a_boundary
from graphmem.series.detect.merge import MIN_SIDE as MERGE_MIN_SIDE
from graphmem.series.detect.repeat import FLOOR_FRACTION, RESET, same_steps, starts_again
from graphmem.series.detect.significance import BEFORE as SIGNIFICANCE_BEFORE
from graphmem.series.detect.significance import MIN_SIDE, significant
from graphmem.series.detect.smooth import MIN_SIDE_BEFORE, change_evidence
from graphmem.series.detect.swing import (
    MIN_WINDOW,
    SWING_HISTORY,
    beats_history,
    enough_history,
    stages,
)
from graphmem.series.detect.transient import RETURN_POINTS, decays_back


def _check_int(name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise InvalidInput(name, f"must be an integer >= {minimum}, got {value!r}")


def _check_real(name: str, value: Any, lo: float, hi: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInput(name, f"must be a finite number, got {value!r}")
    if not lo <= value <= hi:
        raise InvalidInput(name, f"must be in [{lo:g}, {hi:g}], got {value}")


@dataclass(frozen=True)
class SegmenterConfig:
    """Detector and confirmation settings; defaults chosen on the tuned split of
    bench/bench_cp_quality.py (synthetic families and four TCPD series).

    A boundary c on the most probable segmentation is confirmed online once every run still
    alive after point t (posterior >= LIVE_THRESHOLD of the best) started at c - tolerance or
    later, and at least min_lag points from c on have been seen: a clear step is confirmed a
    few points after it, a subtle one when the evidence settles, and one still in doubt after
    max_lag points as the most probable segmentation has it. Closing the stream confirms every
    boundary of that segmentation in the tail. Boundaries are min_segment_length apart (and
    from the stream's start and, at close, its end). A boundary so confirmed is then kept only
    if a change explains the points within smooth_window of it (on both sides, as many as have
    been seen) better than one smooth curve (graphmem.series.detect.smooth); while the curve
    wins it waits, up to smooth_window points after it (or the close), and is dropped if the
    curve still wins then. smooth_window 0 keeps every boundary.

    Two boundaries at most blip_length points apart are dropped together when the points after
    the second continue the line of those before the first (graphmem.series.detect.blip): a
    dropout or a burst of three or more spikes is no change. Every boundary waits until the
    blip_length points after it are in; one from which such a point returns near the line it
    left waits for its excursion's end (confirmed within blip_length + min_lag + tolerance
    points of it) and BLIP_AFTER points after that. If no boundary ends it, the boundary alone
    is dropped when at most lone_length of the blip_length + BLIP_AFTER points from it lie
    where the detector's outliers do not reach and the others continue the line before
    (graphmem.series.detect.blip.lone_excursion): a spike or two zeros is no change. A
    boundary after which the segment before it starts again or goes on by the same steps (a
    sawtooth's reset, graphmem.series.detect.repeat) is dropped once repeat_length points
    after it are in. A boundary at most ramp_length points after the one kept before it is
    dropped when it only ends that change's transition (the points between lie between the old
    level and the new, graphmem.series.detect.blip.only_transition), judged once BLIP_AFTER
    points after it are in. A boundary whose points leave the level before it far, fall below
    half that within a few points and come back to it within transient_length points, staying
    there (a storm's rise and recession, a price spike of a few days), is dropped together with
    every boundary up to its return (graphmem.series.detect.transient), judged once
    transient_length + RETURN_POINTS points from it are in (sooner when it is clearly no such
    excursion). A boundary whose swing_window points after it differ from those before it, in
    level, scale and slope, no more than the series' own splits up to SWING_HISTORY points
    before it do (away from the boundaries kept there) is an ordinary swing and is dropped
    (graphmem.series.detect.swing), judged once swing_window points after it are in (sooner
    when a shorter window already shows it beyond the history). A boundary every test kept is
    held until the segment after it is known (the next boundary kept within merge_window
    points, else merge_window points, or the close) and reported only if the two segments it
    separates differ as wholes, at merge_penalty's price where their points wander
    (graphmem.series.detect.merge). 0 turns any of these tests off.
    With repeat_gaps, an exact repeat of the value before is no reading (a value carried
    forward over missing data) where the warm-up shows exact repeats rare by chance
    (OnlineBOCPD). The other fields configure OnlineBOCPD.
    """

    hazard_lambda: float = 250.0
    tolerance: int = 2
    min_lag: int = 3
    max_lag: int = 300
    min_segment_length: int = 3
    warmup: int = 64
    prune_threshold: float = DEFAULT_PRUNE_THRESHOLD
    max_run_lengths: int = DEFAULT_MAX_RUN_LENGTHS
    protect_recent: int = DEFAULT_PROTECT_RECENT
    track_level: bool = True
    trend: bool = True
    outlier_prob: float = DEFAULT_OUTLIER_PROB
    outlier_scale: float = DEFAULT_OUTLIER_SCALE
    log_scale: bool = True
    # on since round 8 (docs/changepoints.md); OnlineBOCPD alone keeps season=False, the
    # plain model, for callers that build a detector without the segmenter's smooth test
    season: bool = True
    smooth_window: int = 40
    blip_length: int = 6
    repeat_length: int = 10
    # round 11: an exact repeat of the previous value is a gap (a reading carried forward) in a
    # series whose warm-up shows repeats rare by chance (OnlineBOCPD, repeat_chance)
    repeat_gaps: bool = True
    # round 12: a boundary a few points after the one before it that only ends its transition
    # (a change over a few samples) is no second change
    ramp_length: int = 6
    # round 12: an excursion of at most this many points after a boundary that no boundary
    # ends (a spike, two zeros: too short for a segment of their own) is a blip too
    lone_length: int = 3
    # round 13: a boundary whose points leave the level before far and decay back to it within
    # this many points (a storm's rise and recession, a price spike) is no change
    transient_length: int = 36
    # round 14: a boundary no bigger, in level, scale and slope over this many points on each
    # side, than every earlier split of the series is an ordinary swing, no change
    swing_window: int = 20
    # round 17: a boundary whose points (this many after it) do not jump from the segment before
    # it and differ from it no more than autocorrelated noise wanders is no change
    significance_window: int = 20
    # round 21: a boundary every other test kept is held until the segment after it is known
    # (the next boundary kept, this many points, or the close) and kept only if the segments
    # it separates differ as wholes by more than merge_penalty times the log of their points
    merge_window: int = 80
    merge_penalty: float = 6.0

    def __post_init__(self) -> None:
        lam = self.hazard_lambda
        if isinstance(lam, bool) or not isinstance(lam, int | float) or not math.isfinite(lam):
            raise InvalidInput("hazard_lambda", f"must be a finite number, got {lam!r}")
        if lam <= 1:
            raise InvalidInput("hazard_lambda", f"must be > 1, got {lam}")
        _check_int("tolerance", self.tolerance, 0)
        _check_int("min_lag", self.min_lag, 1)
        _check_int("max_lag", self.max_lag, 2)
        if self.max_lag > 100_000:
            raise InvalidInput("max_lag", f"must be at most 100000, got {self.max_lag}")
        if self.min_lag >= self.max_lag:
            raise InvalidInput("min_lag", f"must be below max_lag ({self.max_lag})")
        _check_int("min_segment_length", self.min_segment_length, 1)
        _check_int("smooth_window", self.smooth_window, 0)
        _check_int("blip_length", self.blip_length, 0)
        _check_int("repeat_length", self.repeat_length, 0)
        _check_int("ramp_length", self.ramp_length, 0)
        _check_int("lone_length", self.lone_length, 0)
        _check_int("transient_length", self.transient_length, 0)
        _check_int("swing_window", self.swing_window, 0)
        if 0 < self.swing_window < MIN_WINDOW:
            raise InvalidInput("swing_window", f"must be 0 or at least {MIN_WINDOW}")
        _check_int("significance_window", self.significance_window, 0)
        _check_int("merge_window", self.merge_window, 0)
        if 0 < self.merge_window < MERGE_MIN_SIDE or self.merge_window > 100_000:
            raise InvalidInput(
                "merge_window", f"must be 0 or {MERGE_MIN_SIDE} to 100000, got {self.merge_window}"
            )
        # below 1 the price would fall as the points wander
        _check_real("merge_penalty", self.merge_penalty, 1.0, 1e6)
        if 0 < self.significance_window < MIN_SIDE:
            raise InvalidInput("significance_window", f"must be 0 or at least {MIN_SIDE}")
        names = (
            "smooth_window",
            "blip_length",
            "repeat_length",
            "ramp_length",
            "transient_length",
            "swing_window",
            "significance_window",
        )
        for name in names:
            if getattr(self, name) > self.max_lag:
                raise InvalidInput(name, f"must be at most max_lag ({self.max_lag})")
        _check_int("warmup", self.warmup, 2)
        _check_int("max_run_lengths", self.max_run_lengths, 1)
        _check_int("protect_recent", self.protect_recent, 0)
        thr = self.prune_threshold
        if isinstance(thr, bool) or not isinstance(thr, int | float) or not math.isfinite(thr):
            raise InvalidInput("prune_threshold", f"must be a finite number, got {thr!r}")
        if not 0 <= thr < 1:
            raise InvalidInput("prune_threshold", f"must be in [0, 1), got {thr}")
        for name in ("track_level", "trend", "log_scale", "season", "repeat_gaps"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInput(name, f"must be a bool, got {getattr(self, name)!r}")
        _check_real("outlier_prob", self.outlier_prob, 0.0, 0.49)
        _check_real("outlier_scale", self.outlier_scale, 1.0, 1e6)

    def detector(self) -> OnlineBOCPD:
        """A fresh detector with these settings."""
        return OnlineBOCPD(
            self.hazard_lambda,
            warmup=self.warmup,
            prune_threshold=self.prune_threshold,
            max_run_lengths=self.max_run_lengths,
            protect_recent=self.protect_recent,
            track_level=self.track_level,
            trend=self.trend,
            outlier_prob=self.outlier_prob,
            outlier_scale=self.outlier_scale,
            log_scale=self.log_scale,
            season=self.season,
            repeat_gaps=self.repeat_gaps,
        )


@njit(cache=True)
def _oldest(hist, t, last, first, min_seg, path):  # pragma: no cover - compiled
    """The oldest boundary after `last` (and min_seg past it) on the MAP segmentation that ends
    at point t, walked back through the kept MAP run lengths; -1 if none."""
    h = hist.shape[0]
    floor = max(first, t - h + 1)  # the oldest point whose MAP run length is kept
    n = 0
    u = t
    while u >= floor:
        s = u - hist[u % h]
        if s <= last:
            break
        path[n] = s
        n += 1
        u = s - 1
    for i in range(n - 1, -1, -1):
        if path[i] - last >= min_seg:
            return path[i]
    return -1


@njit(cache=True)
def _confirm(
    rl, old, start, hist, first, last, min_seg, min_lag, tol, out, when
):  # pragma: no cover
    """Record MAP run lengths rl of points start, ...; write boundaries confirmed to out and
    the point after which each was confirmed to when."""
    h = hist.shape[0]
    path = np.empty(h + 1, dtype=np.int64)
    n_out = 0
    for j in range(rl.shape[0]):
        t = start + j
        hist[t % h] = rl[j]
        while True:
            c = _oldest(hist, t, last, first, min_seg, path)
            if c < 0:
                break
            settled = t - c + 1 >= min_lag and t - old[j] >= c - tol
            if not (settled or t - c >= h - 1):
                break
            out[n_out] = c
            when[n_out] = t
            n_out += 1
            last = c
    return n_out, last


_CHUNK = 1024  # a longer push is fed in pieces, so the smooth test finds its values kept
# The blip test's windows: the points before a blip (since the previous boundary) and after it.
BLIP_BEFORE = 15
BLIP_AFTER = 10
# The repeat test's look back: the points of the segment before a boundary it reads.
REPEAT_BEFORE = 40
# What the blip test found: a boundary and the next one an excursion between (a pair), or the
# boundary alone an excursion too short for a boundary at its end (lone).
PAIR, LONE = 1, 2


def _never(kind: int) -> bool:
    """A boundary a blip, ramp, transient, swing or significance test explains away starts no
    segment."""
    return False


class OnlineSegmenter:
    """Feeds values to OnlineBOCPD and reports confirmed segment starts, never retracted.

    push() reports boundaries once confirmed (SegmenterConfig); close() ends a finite or
    paused stream: it confirms the boundaries of the most probable segmentation of the tail
    not yet confirmed. Points pushed after a close go on from there (the detector never
    stopped); boundaries a close confirmed stay. State stays bounded: the detector, the last
    boundary and the MAP run lengths of the last max_lag points.
    """

    def __init__(self, config: SegmenterConfig | None = None) -> None:
        if config is not None and not isinstance(config, SegmenterConfig):
            raise InvalidInput("config", "must be a SegmenterConfig or None")
        self.config = config or SegmenterConfig()
        self._det = self.config.detector()
        # The latest boundary the tests kept (0 before any), held for the merge test or not:
        # the start of the segment the tests read before a pending boundary.
        self._last = 0
        self._before_last = 0  # start of the segment before it (0 if none), for the ramp test
        # Boundaries the tests kept that the merge test has not decided yet: (boundary, points
        # seen when kept, the boundary kept before it or 0); and the latest boundary reported
        # (0 before any) and how many.
        self._held: list[tuple[int, int, int]] = []
        self._reported_last = 0
        self._n_reported = 0
        self._floor = 0  # the latest boundary handed to the smooth test (kept or not)
        # The start of the segment before the oldest pending boundary: the latest boundary
        # decided (kept or dropped; a blip's pair is no segment), for the repeat test.
        self._origin = 0
        # The latest boundary decided, kept or dropped: the significance test's segment before
        # the oldest pending boundary starts there at the latest.
        self._latest_decided = 0
        self._no_repeat = -1  # a pending boundary the repeat test found no repeat (a cache)
        # The end of the latest excursion the transient test dropped: a boundary before it is
        # part of that excursion (0: none).
        self._excursion_end = 0
        # (boundary, points): the transient test cannot tell before that many points (a cache)
        self._transient_wait = (-1, 0)
        # (boundary, stage): the swing test's next window for that boundary (a cache)
        self._swing_wait = (-1, 0)
        # (boundary, stage): the merge test's first stage not yet failed for that boundary (a cache)
        self._merge_wait = (-1, 0)
        # Boundaries kept within the swing test's look back: its history leaves them out.
        self._kept_recent: list[int] = []
        # Boundaries the smooth test has not decided yet: (boundary, points seen at the next test).
        self._pending: list[tuple[int, int]] = []
        # The last values pushed (raw), for the smooth test: every value a test may still read
        # after a push of up to _CHUNK points.
        cfg = self.config
        # The tests' look back; the ramp test reads BLIP_BEFORE points before the boundary kept
        # up to ramp_length points before the pending one.
        self._back = max(cfg.smooth_window, BLIP_BEFORE + cfg.ramp_length, REPEAT_BEFORE)
        if cfg.swing_window:
            self._back = max(self._back, SWING_HISTORY + cfg.swing_window)
        if cfg.significance_window:
            self._back = max(self._back, SIGNIFICANCE_BEFORE)
        if cfg.merge_window:
            self._back = max(self._back, MERGE_BEFORE)
        self._values = np.zeros(cfg.max_lag + self._back + cfg.warmup + _CHUNK)
        # How long after itself a boundary may be confirmed and still be tested: the values its
        # tests read are then kept however the points were batched (a boundary the walk back
        # finds farther behind the newest point is kept untested, in every batching alike).
        self._tested_within = cfg.max_lag + cfg.warmup - 1
        self._values_first = 0  # the first point whose value was recorded
        self._out = np.empty((2, _CHUNK), dtype=np.int64)  # _confirm's output, reused
        self._n_boundaries = 0
        self._hist = np.zeros(self.config.max_lag, dtype=np.int64)
        self._first = 0  # the first point whose MAP run length was recorded
        self._confirmed: list[int] = []

    @property
    def n_seen(self) -> int:
        """Values pushed so far."""
        return self._det.n_seen

    @property
    def n_boundaries(self) -> int:
        """Boundaries confirmed over the whole stream."""
        return self._n_reported

    @property
    def last_boundary(self) -> int | None:
        """The latest confirmed boundary over the whole stream, if any."""
        return self._reported_last if self._n_reported else None

    @property
    def boundaries(self) -> list[int]:
        """Boundaries confirmed by this object (since it was created or restored), ascending."""
        return list(self._confirmed)

    def _record(self, new: list[int], done: list[int]) -> None:
        """The tests kept `new` (ascending), told with `done` points seen: the merge test's."""
        if new:
            starts = [self._current_start(), *new[:-1]]
            self._held.extend(zip(new, done, starts, strict=True))
            self._before_last = new[-2] if len(new) > 1 else self._current_start()
            self._last = new[-1]
            self._n_boundaries += len(new)
            # a later boundary's history starts at most SWING_HISTORY + a window before it
            reach = new[-1] - SWING_HISTORY - 2 * self.config.swing_window
            self._kept_recent = [b for b in (*self._kept_recent, *new) if b >= reach]

    def _release(self, seen: int, final: bool) -> list[int]:
        """Report the held boundaries the merge test keeps, oldest first, with `seen` points
        processed; stop at the first it cannot tell yet."""
        out: list[int] = []
        while self._held:
            c, _, start = self._held[0]
            keep = self._merge_verdict(c, start, seen, final) if self.config.merge_window else True
            if keep is None:
                break
            self._held.pop(0)
            if keep:
                out.append(c)
                self._reported_last = c
        self._n_reported += len(out)
        self._confirmed.extend(out)
        return out

    def _merge_verdict(self, c: int, start: int, seen: int, final: bool) -> bool | None:
        """The merge test's verdict on the oldest held boundary c (kept after the boundary at
        start), None while it cannot be told yet. The segment after c ends at the next boundary
        kept if that was kept within merge_window points of c, else merge_window points after
        c (at a close: the points there are); a change clear on its first merge.EARLY points,
        by EARLY_STRICTNESS times every price, is kept as soon as those are in. Each stage is
        decided only when no pending boundary could still be kept by then, so the same however
        the points were batched."""
        m = self.config.merge_window
        after = self._held[1] if len(self._held) > 1 else None
        stages = (*(k for k in MERGE_EARLY if k < m), m)
        # an early stage that failed stays failed: the boundary after, if any, came later
        first = self._merge_wait[1] if self._merge_wait[0] == c else 0
        for i in range(first, len(stages)):
            k = stages[i]
            stop = c + k
            if after is not None and after[1] <= stop:  # the segment after is known
                return self._merge_test(c, start, after[0])
            if final and seen < stop:
                return self._merge_test(c, start, seen)
            if seen < stop or (self._pending and self._pending[0][0] < stop):
                return None
            if k == m:
                return self._merge_test(c, start, stop)
            if self._merge_test(c, start, stop, EARLY_STRICTNESS):
                return True
            self._merge_wait = (c, i + 1)
        return None  # not reached: the last stage decides

    def _merge_test(self, c: int, start: int, hi: int, strict: float = 1.0) -> bool:
        """merge.worth_a_boundary on the segment before c (from start, at most MERGE_BEFORE
        points) and the points c..hi-1."""
        before = self._read(max(start, c - MERGE_BEFORE), c)
        return worth_a_boundary(before, self._read(c, hi), self.config.merge_penalty, strict)

    def _current_start(self) -> int:
        """The start of the segment the tests read: the latest boundary they kept, 0 before
        any."""
        return self._last if self._n_boundaries else 0

    def push(self, values: np.ndarray) -> list[int]:
        """Feed finite values; return the segment starts confirmed by this call."""
        xs = np.asarray(values, dtype=np.float64)
        if xs.ndim != 1 or xs.shape[0] <= _CHUNK:
            start = self._det.n_seen
            out = self._det.update_batch(values)
            self._keep_values(xs, start)
            return self._take(out)
        return [c for i in range(0, xs.shape[0], _CHUNK) for c in self.push(xs[i : i + _CHUNK])]

    def _keep_values(self, xs: np.ndarray, start: int) -> None:
        size = self._values.shape[0]
        if xs.shape[0] == 1:  # the common streaming case, without index arrays
            self._values[start % size] = xs[0]
            return
        tail = xs[-size:]
        self._values[(np.arange(tail.shape[0]) + start + xs.shape[0] - tail.shape[0]) % size] = tail

    def _oldest_needed(self) -> int:
        """The oldest value a test may still read, of those kept: the tests' look back before
        the oldest boundary pending or yet to come (after the latest handed to the tests: the
        walk back at a close may find one far behind the newest point)."""
        oldest = self._pending[0][0] if self._pending else self._floor + 1
        if self._held:
            oldest = min(oldest, self._held[0][0])
        size = self._values.shape[0]
        return max(self._values_first, oldest - self._back - 1, self.n_seen - size, 0)

    def _window(self, lo: int, hi: int) -> np.ndarray | None:
        """Values lo..hi-1 as the detector reads them, or None if no longer (or never) kept."""
        size = self._values.shape[0]
        if hi <= lo or lo < max(self._values_first, self._det.n_seen - size, 0):
            return None
        a, b = lo % size, (hi - 1) % size + 1
        raw = self._values[a:b] if a < b else np.concatenate((self._values[a:], self._values[:b]))
        return self._det.scaled(raw, lo)

    def _settle(self, seen: int, final: bool) -> list[int]:
        """Decide pending boundaries, oldest first, with `seen` points processed; keep those a
        change explains better than a smooth curve, drop those the curve still explains once
        smooth_window points after them are in (or at the close)."""
        w = self.config.smooth_window
        kept: list[int] = []
        done: list[int] = []  # the points seen when each was kept
        while self._pending:
            c, first_hi = self._pending[0]
            previous = kept[-1] if kept else self._current_start()
            if first_hi - 1 - c > self._tested_within:  # its values may be gone: no test
                kept.append(c)
                done.append(first_hi)
                self._decided(first_hi)
                continue
            if c < self._excursion_end:  # inside an excursion that decayed back: part of it
                self._decided(first_hi, segment=False)
                continue
            told = self._explained(kept, previous, seen, final)
            if told is None:
                break
            if told:  # no change: a blip, a ramp's end, a repeat, a transient, a swing, a wander
                self._decided(*told)
                continue
            lo = max(previous, c - w)
            top = min(seen, c + w)
            # Tested as if after each point: the same answer however the points were batched.
            tests = range(min(first_hi, top), top + 1)  # one at least, on the points there are
            hi = next((h for h in tests if self._evidence(lo, h, c) > 0), None)
            if hi is None and not (final or top >= c + w):
                self._pending[0] = (c, max(first_hi, top + 1))
                break
            if hi is not None or not w:
                kept.append(c)
                # not before it was confirmed: the smooth test's verdict may date from earlier
                done.append(max(first_hi, top if hi is None else hi))
            self._decided(top if hi is None else hi)
        self._record(kept, done)
        return self._release(seen, final)

    def _explained(
        self, kept: list[int], previous: int, seen: int, final: bool
    ) -> tuple[int, bool] | Literal[False] | None:
        """Whether a no-change test explains the oldest pending boundary away, tried in order
        (blip, ramp, repeat, transient, swing, significance): the points seen when told and
        whether the boundary still starts the segment a later repeat test compares with (a
        reset does); False if none does; None while one cannot tell yet."""
        tests: tuple[tuple[Callable[[], tuple[int, int] | None], Callable[[int], bool]], ...] = (
            (lambda: self._blip(previous, seen, final), _never),
            (lambda: self._ramp(kept, seen, final), _never),
            (lambda: self._repeat(seen, final), lambda kind: kind == RESET),
            (lambda: self._transient(previous, seen, final), _never),
            (lambda: self._swing(kept, seen, final), _never),
            (lambda: self._significance(previous, seen, final), _never),
        )
        for test, starts_segment in tests:
            told = test()
            if told is None:
                return None
            if told[0]:
                return told[1], starts_segment(told[0])
        return False

    def _decided(self, done: int, segment: bool = True) -> None:
        """The oldest pending boundary was decided with `done` points seen; `segment`: it
        starts the segment a later repeat test compares with."""
        c = self._pending.pop(0)[0]
        self._latest_decided = c
        if segment:
            self._origin = c
        if self._pending:  # the next one waited for this decision
            nxt, nxt_hi = self._pending[0]
            self._pending[0] = (nxt, max(nxt_hi, done))

    def _ramp(self, kept: list[int], seen: int, final: bool) -> tuple[bool, int] | None:
        """Whether the oldest pending boundary only ends the transition of the change kept just
        before it (ramp_length points at most before it) and the points seen when that was
        told; None while it cannot be told yet. Decided as if after each point."""
        k = self.config.ramp_length
        c = self._pending[0][0]
        if len(kept) > 1:
            previous, origin = kept[-1], kept[-2]
        elif kept:
            previous, origin = kept[-1], self._current_start()
        else:
            previous, origin = self._current_start(), self._before_last
        if not k or previous <= 0 or c - previous > k:
            return False, 0
        hi = c + BLIP_AFTER
        if seen < hi and not final:
            return None
        if len(self._pending) > 1 and self._pending[1][1] <= hi:  # known by then: stop there
            hi = min(hi, self._pending[1][0])
        before = self._read(max(origin, previous - BLIP_BEFORE), previous)
        middle, after = self._read(previous, c), self._read(c, hi)
        return only_transition(before, middle, after), min(seen, hi)

    def _repeat(self, seen: int, final: bool) -> tuple[int, int] | None:
        """Whether the oldest pending boundary is no change, the segment before it starting
        again after it (repeat.RESET) or going on (repeat.GOES_ON) by the same steps: that kind
        and the points seen when it was told, (0, 0) if neither, None while it cannot be told
        yet. A boundary whose first point does neither does not wait."""
        k = self.config.repeat_length
        c, origin = self._pending[0][0], self._origin
        if not k or c == self._no_repeat:
            return 0, 0
        near = origin > 0 and c - origin <= REPEAT_BEFORE  # a tooth is short
        before = self._read(origin - 1, c) if near else np.empty(0)
        head = self._read(c, c + 1)
        floor = self._step_floor()
        how = starts_again(before, float(head[0]), floor) if head.shape[0] else 0
        if not how:
            self._no_repeat = c  # decided once: the smooth test may make it wait many points
            return 0, 0
        hi = c + k
        if len(self._pending) > 1 and self._pending[1][1] <= hi:  # known by then: stop there
            hi = min(hi, self._pending[1][0])
        if seen < hi and not final:
            return None
        if not same_steps(before[1:], self._read(c, hi), floor):
            self._no_repeat = c
            return 0, 0
        return how, min(seen, hi)

    def _transient(self, previous: int, seen: int, final: bool) -> tuple[int, int] | None:
        """Whether the oldest pending boundary only starts an excursion that decays back to the
        level of the segment before it within transient_length points (transient.decays_back):
        the points it lasts (0 if it is no transient) and the points seen when that was told;
        None while it cannot be told yet. The verdict reads only the points it needs, so it is
        the same however the points were batched."""
        k = self.config.transient_length
        if not k:
            return 0, 0
        c = self._pending[0][0]
        if not final and self._transient_wait[0] == c and seen < self._transient_wait[1]:
            return None  # told by decays_back: no verdict before that many points
        hi = c + k + RETURN_POINTS
        before = self._read(max(previous, c - BLIP_BEFORE), c)
        lasts, used = decays_back(before, self._read(c, min(seen, hi)), k)
        if lasts < 0:
            if not final:
                self._transient_wait = (c, c + used)
                return None
            lasts = 0
        if lasts:
            self._excursion_end = c + lasts
        return lasts, min(seen, c + used)

    def _swing(self, kept: list[int], seen: int, final: bool) -> tuple[int, int] | None:
        """Whether the oldest pending boundary is an ordinary swing (swing.beats_history at
        no window): 1 and the points seen when told, (0, 0) if not, None while it cannot be
        told yet. Each window is judged once its points are in, so batching does not change
        the answer."""
        k = self.config.swing_window
        if not k:
            return 0, 0
        c = self._pending[0][0]
        before = [b for b in (*self._kept_recent, *kept) if b < c]
        if not enough_history(max(self._values_first, c - SWING_HISTORY - k), c, k, before):
            return 0, 0
        windows = stages(k)
        if final and seen - c < k:  # the close: the last window is what there is
            windows = (*(m for m in windows if m < seen - c), seen - c)
            if windows[-1] < MIN_WINDOW:
                return 0, 0
        start = self._swing_wait[1] if self._swing_wait[0] == c else 0
        for i in range(start, len(windows)):
            m = windows[i]
            if c + m > seen:
                self._swing_wait = (c, i)
                return None
            lo = max(self._values_first, c - SWING_HISTORY - m)
            if beats_history(self._read(lo, c + m), lo, c, m, before):
                return 0, 0
        return 1, c + windows[-1]

    def _significance(self, previous: int, seen: int, final: bool) -> tuple[int, int] | None:
        """Whether the oldest pending boundary is no significant change (significance.significant
        on the segment before it against the significance_window points after it): 1 and the
        points seen when told, (0, 0) if it is a change, None while those points are not all in
        (at a close: the points there are). The segment before starts at the latest boundary
        decided, kept or dropped, or the window's length before the boundary if that is
        earlier, never before the boundary kept before it nor more than BEFORE points back; the
        points after stop at the next pending boundary if it is known by then. The verdict
        reads only those points, so it is the same however the points were batched."""
        k = self.config.significance_window
        if not k:
            return 0, 0
        c = self._pending[0][0]
        if seen < c + k and not final:
            return None
        hi = min(seen, c + k)
        if len(self._pending) > 1 and self._pending[1][1] <= hi:  # known by then: stop there
            hi = min(hi, self._pending[1][0])
        lo = max(previous, min(self._latest_decided, c - k), c - SIGNIFICANCE_BEFORE)
        return int(not significant(self._read(lo, c), self._read(c, hi))), hi

    def _step_floor(self) -> float:
        """The least step spread the repeat test assumes: a fraction of the warm-up's (the MAD
        of its first differences, as the detector's prior has it)."""
        prior = self._det.prior
        if prior is None:
            return 0.0
        return FLOOR_FRACTION * math.sqrt(prior.beta0 / prior.alpha0 * (2.0 + prior.level_noise))

    def _blip(self, previous: int, seen: int, final: bool) -> tuple[int, int] | None:
        """Whether the oldest pending boundary starts a blip the next pending one ends (PAIR) or
        a lone excursion no boundary ends (LONE), 0 if neither, and the points seen when that
        was told; None while it cannot be told yet. Decided as if after each point, as the
        smooth test is, so batching does not change the answer."""
        k = self.config.blip_length
        c = self._pending[0][0]
        lo = max(previous, c - BLIP_BEFORE)
        first = min(seen, c + k + 1)  # the points that may return, as many as are in
        before = self._read(lo, c)
        if not k or not any_near_line(before, self._read(c + 1, first)):
            return (0, 0) if first == c + k + 1 or final else None
        # The excursion's end: confirmed by the time a promptly confirmed one would be.
        deadline = c + k + self.config.min_lag + self.config.tolerance
        ends = self._pending[1] if len(self._pending) > 1 else None
        if ends is not None and ends[0] - c > k:  # boundaries come in order: no end to come
            return self._lone(before, seen, final)
        if ends is None or ends[1] - 1 > deadline:
            return self._lone(before, seen, final) if final or seen - 1 >= deadline else None
        end, hi = ends[0], ends[0] + BLIP_AFTER
        if seen < hi and not final:
            return None
        if len(self._pending) > 2 and self._pending[2][1] <= hi:  # known by then: stop there
            hi = min(hi, self._pending[2][0])
        pair = PAIR * returns_to_line(before, self._read(end, hi), end - c)
        if pair:  # the boundary goes, and _decided takes the excursion's end with it
            self._pending.pop(0)
        return pair, min(seen, hi)

    def _lone(self, before: np.ndarray, seen: int, final: bool) -> tuple[int, int] | None:
        """Whether the oldest pending boundary, from which a point returns near the line it
        left but no boundary ends an excursion, is only an excursion of at most lone_length
        points (blip.lone_excursion, on the blip_length + BLIP_AFTER points from it): LONE or 0,
        and the points seen when that was told; None while it cannot be told yet."""
        most = self.config.lone_length
        if not most:
            return 0, 0
        c = self._pending[0][0]
        hi = c + self.config.blip_length + BLIP_AFTER
        if seen < hi and not final:
            return None
        if len(self._pending) > 1 and self._pending[1][1] <= hi:  # known by then: stop there
            hi = min(hi, self._pending[1][0])
        return LONE * lone_excursion(before, self._read(c, hi), most), min(seen, hi)

    def _read(self, lo: int, hi: int) -> np.ndarray:
        """Values lo..hi-1 that have been seen, as the detector reads them (none if not kept)."""
        window = self._window(lo, min(hi, self._det.n_processed))
        return np.empty(0) if window is None else window

    def _evidence(self, lo: int, hi: int, c: int) -> float:
        """How much better a change at c explains points lo..hi-1 than a smooth curve (BIC
        units, smooth.change_evidence); inf when the points are no longer kept.

        No more points before c than after it (but MIN_SIDE_BEFORE): a cubic bends most freely
        at its window's ends, where it would otherwise absorb a step in the last few points.
        """
        lo = max(lo, c - max(hi - c, MIN_SIDE_BEFORE))
        y = self._window(lo, hi) if self.config.smooth_window else None
        return np.inf if y is None else change_evidence(y, c - lo)

    def _take(self, out: Any) -> list[int]:
        if len(out) == 0:
            return []
        cfg = self.config
        if self._out.shape[1] < len(out):
            self._out = np.empty((2, len(out)), dtype=np.int64)
        found, when = self._out[0], self._out[1]
        n, floor = _confirm(
            out.map_run_length,
            out.oldest_run_length,
            out.start,
            self._hist,
            self._first,
            self._floor,
            cfg.min_segment_length,
            cfg.min_lag,
            cfg.tolerance,
            found,
            when,
        )
        self._floor = int(floor)
        if n:
            self._pending.extend(zip(found[:n].tolist(), (when[:n] + 1).tolist(), strict=True))
        return self._settle(self._det.n_processed, final=False)

    def close(self) -> list[int]:
        """End of the stream for now: confirm the tail's boundaries; returns them.

        The warm-up, if still filling (a stream shorter than `warmup`), ends with the points
        there are. Each boundary of the most probable segmentation after the last confirmed
        one is confirmed, oldest first, if it leaves min_segment_length points on both sides,
        and kept unless a smooth curve explains the points around it as well (the points
        there are). Closing again without new points confirms nothing more.
        """
        new = self._take(self._det.flush())
        n = self._det.n_processed
        if n == 0:
            return new
        cfg = self.config
        path = np.empty(cfg.max_lag + 1, dtype=np.int64)
        while True:
            c = int(
                _oldest(self._hist, n - 1, self._floor, self._first, cfg.min_segment_length, path)
            )
            if c < 0 or n - c < cfg.min_segment_length:
                break
            self._pending.append((c, n))
            self._floor = c
        return new + self._settle(n, final=True)

    def _restore_smooth(self, state: dict[str, Any]) -> None:
        """The smooth test's part of a version-3 state."""
        self._floor = int(state["floor"])
        # stored since the repeat test; before, only a test that is off read it
        self._origin = int(state.get("origin", state["last"]))
        # stored since the significance test (round 17); before, it was off
        self._latest_decided = int(state.get("latest_decided", self._origin))
        self._pending = [(int(c), int(hi)) for c, hi in state["pending"]]
        values = np.asarray(state["values"], dtype=np.float64)
        first = self.n_seen if state["values_first"] is None else int(state["values_first"])
        size = self._values.shape[0]
        if values.ndim != 1 or first + values.shape[0] != self.n_seen or values.shape[0] > size:
            raise InvalidInput("state.values", "does not match the points pushed")
        self._values_first = first
        self._keep_values(values, first)

    def state(self) -> dict[str, Any]:
        """Everything needed to resume exactly, as JSON-ready plain values (bounded size)."""
        n, h = self._det.n_processed, self.config.max_lag
        kept = range(max(self._first, n - h), n)
        size = self._values.shape[0]
        lo = self._oldest_needed()  # to the newest value pushed: a restored one reads the same
        return {
            "version": 3,
            "config": asdict(self.config),
            "detector": self._det.state(),
            "last": self._last,
            "before_last": self._before_last,
            "n_boundaries": self._n_boundaries,
            "first": self._first,
            "history": [int(self._hist[t % h]) for t in kept],
            "floor": self._floor,
            "origin": self._origin,
            "latest_decided": self._latest_decided,
            "excursion_end": self._excursion_end,
            "kept_recent": list(self._kept_recent),
            "pending": [list(p) for p in self._pending],
            "held": [list(h) for h in self._held],
            "reported_last": self._reported_last,
            "n_reported": self._n_reported,
            "values_first": lo,
            "values": self._values[np.arange(lo, self.n_seen) % size].tolist(),
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> OnlineSegmenter:
        """Rebuild a segmenter from state(); it continues exactly where it stopped."""
        try:
            if state.get("version") == 1:
                state = _upgrade_state(state)
            if state.get("version") == 2:
                state = _upgrade_state_2(state)
            if state.get("version") != 3:
                raise InvalidInput("state.version", f"unsupported {state.get('version')!r}")
            seg = cls(SegmenterConfig(**{**_BEFORE_THE_SETTING, **state["config"]}))
            seg._det = OnlineBOCPD.from_state(state["detector"])
            seg._last = int(state["last"])
            # stored since the ramp test; before, a test that is off would read it
            seg._before_last = int(state.get("before_last", state["last"]))
            seg._n_boundaries = int(state["n_boundaries"])
            # stored since the transient test (round 13); before, none was dropped
            seg._excursion_end = int(state.get("excursion_end", 0))
            # stored since the swing test (round 14); before, it was off
            seg._kept_recent = [int(b) for b in state.get("kept_recent", [])]
            # stored since the merge test (round 21); before, every kept boundary was reported
            seg._held = [(int(c), int(t), int(b)) for c, t, b in state.get("held", [])]
            seg._reported_last = int(state.get("reported_last", seg._last))
            seg._n_reported = int(state.get("n_reported", seg._n_boundaries))
            seg._first = int(state["first"])
            history = [int(v) for v in state["history"]]
            n, h = seg._det.n_processed, seg.config.max_lag
            if len(history) != n - max(seg._first, n - h):
                raise InvalidInput("state.history", "does not match the points processed")
            for t, r in zip(range(n - len(history), n), history, strict=True):
                seg._hist[t % h] = r
            seg._restore_smooth(state)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidInput("state", f"malformed segmenter state ({exc})") from exc
        return seg


# settings a state stored before they existed lacks: what its segmenter did then (the
# defaults have since changed: the season and the log scale to True, the tests to on)
_BEFORE_THE_SETTING = {
    "log_scale": False,
    "season": False,
    "blip_length": 0,
    "repeat_length": 0,
    "repeat_gaps": False,
    "ramp_length": 0,
    "lone_length": 0,
    "transient_length": 0,
    "swing_window": 0,
    "significance_window": 0,
    "merge_window": 0,
}


def _upgrade_state_2(state: dict[str, Any]) -> dict[str, Any]:
    """A version-2 state (before the smooth test) as version 3: nothing pending, no values kept
    (boundaries whose points are gone are kept as before)."""
    extra = {"floor": state["last"], "pending": [], "values_first": None, "values": []}
    return {**state, **extra, "version": 3}


def _upgrade_state(state: dict[str, Any]) -> dict[str, Any]:
    """A version-1 state (fixed-lag confirmation) as version 2: the series keeps its detector
    (the constant-mean model it started with) and confirms from here on by the new rule."""
    old = state["config"]
    keep = (
        "hazard_lambda",
        "tolerance",
        "min_segment_length",
        "warmup",
        "prune_threshold",
        "max_run_lengths",
        "protect_recent",
        "track_level",
    )
    config = {k: old[k] for k in keep if k in old}
    config.update(trend=False, outlier_prob=0.0, **_BEFORE_THE_SETTING)
    detector = state["detector"]
    return {
        "version": 2,
        "config": asdict(SegmenterConfig(**config)),
        "detector": detector,
        "last": state["last"],
        "n_boundaries": state["n_boundaries"],
        "first": int(detector["n_processed"]),
        "history": [],
    }


def segment_all(values: np.ndarray, config: SegmenterConfig | None = None) -> list[int]:
    """Offline convenience: every boundary of a whole series, the stream closed at its end."""
    seg = OnlineSegmenter(config)
    return seg.push(values) + seg.close()


def boundaries_from_run_lengths(
    map_run_length: np.ndarray, config: SegmenterConfig | None = None
) -> list[int]:
    """The most probable segmentation a whole MAP run-length sequence (r_t as in OnlineBOCPD)
    gives, walked back from its end as close() does (min_segment_length apart).

    Lets other BOCPD implementations be read exactly the way a closed stream is.
    """
    cfg = config or SegmenterConfig()
    rl = np.asarray(map_run_length, dtype=np.int64)
    if rl.ndim != 1:
        raise InvalidInput("map_run_length", "must be one-dimensional")
    n = rl.shape[0]
    hist = np.ascontiguousarray(rl)
    path = np.empty(n + 1, dtype=np.int64)
    found, last = [], 0
    while n:
        c = int(_oldest(hist, n - 1, last, 0, cfg.min_segment_length, path))
        if c < 0 or n - c < cfg.min_segment_length:
            break
        found.append(c)
        last = c
    return found
