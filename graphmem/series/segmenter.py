"""Online segment boundaries: confirm OnlineBOCPD changepoints that have held for `lag` points."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from graphmem.errors import InvalidInput
from graphmem.series.bocpd import (
    DEFAULT_MAX_RUN_LENGTHS,
    DEFAULT_PROTECT_RECENT,
    DEFAULT_PRUNE_THRESHOLD,
    OnlineBOCPD,
)

_NO_START = -(2**62)  # MAP start recorded for "before the stream": never within tolerance


def _check_int(name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise InvalidInput(name, f"must be an integer >= {minimum}, got {value!r}")


@dataclass(frozen=True)
class SegmenterConfig:
    """Detector and confirmation settings; defaults chosen by F1 on synthetic and TCPD series.

    lag: points a candidate start must hold (as the MAP start, within +-tolerance) before it is
    confirmed; min_segment_length: least distance between boundaries (and from the stream start).
    The other fields configure OnlineBOCPD.
    """

    hazard_lambda: float = 250.0
    lag: int = 20
    tolerance: int = 2
    min_segment_length: int = 10
    warmup: int = 32
    prune_threshold: float = DEFAULT_PRUNE_THRESHOLD
    max_run_lengths: int = DEFAULT_MAX_RUN_LENGTHS
    protect_recent: int = DEFAULT_PROTECT_RECENT
    track_level: bool = True

    def __post_init__(self) -> None:
        lam = self.hazard_lambda
        if isinstance(lam, bool) or not isinstance(lam, int | float) or not math.isfinite(lam):
            raise InvalidInput("hazard_lambda", f"must be a finite number, got {lam!r}")
        if lam <= 1:
            raise InvalidInput("hazard_lambda", f"must be > 1, got {lam}")
        _check_int("lag", self.lag, 1)
        _check_int("tolerance", self.tolerance, 0)
        _check_int("min_segment_length", self.min_segment_length, 1)
        _check_int("warmup", self.warmup, 2)
        _check_int("max_run_lengths", self.max_run_lengths, 1)
        _check_int("protect_recent", self.protect_recent, 0)
        thr = self.prune_threshold
        if isinstance(thr, bool) or not isinstance(thr, int | float) or not math.isfinite(thr):
            raise InvalidInput("prune_threshold", f"must be a finite number, got {thr!r}")
        if not 0 <= thr < 1:
            raise InvalidInput("prune_threshold", f"must be in [0, 1), got {thr}")
        if not isinstance(self.track_level, bool):
            raise InvalidInput("track_level", f"must be a bool, got {self.track_level!r}")

    def detector(self) -> OnlineBOCPD:
        """A fresh detector with these settings."""
        return OnlineBOCPD(
            self.hazard_lambda,
            warmup=self.warmup,
            prune_threshold=self.prune_threshold,
            max_run_lengths=self.max_run_lengths,
            protect_recent=self.protect_recent,
            track_level=self.track_level,
        )


class OnlineSegmenter:
    """Feeds values to OnlineBOCPD and reports confirmed segment starts, never retracted.

    After point t the most probable run length r_t gives the candidate start c_t = t - r_t.
    c = c_t is confirmed at t when r_t >= lag and every MAP start of points t-lag+1..t lies
    within +-tolerance of c (so the push holding point c + lag or later reports it), and c is at
    least min_segment_length after the previous boundary (or the stream start). State stays
    bounded: the detector, the last boundary and the last lag-1 MAP starts.
    """

    def __init__(self, config: SegmenterConfig | None = None) -> None:
        if config is not None and not isinstance(config, SegmenterConfig):
            raise InvalidInput("config", "must be a SegmenterConfig or None")
        self.config = config or SegmenterConfig()
        self._det = self.config.detector()
        self._last = 0  # start of the current confirmed segment (0 before any boundary)
        self._n_boundaries = 0
        self._tail = [_NO_START] * (self.config.lag - 1)  # MAP starts of the last lag-1 points
        self._confirmed: list[int] = []

    @property
    def n_seen(self) -> int:
        """Values pushed so far."""
        return self._det.n_seen

    @property
    def n_boundaries(self) -> int:
        """Boundaries confirmed over the whole stream."""
        return self._n_boundaries

    @property
    def last_boundary(self) -> int | None:
        """The latest confirmed boundary over the whole stream, if any."""
        return self._last if self._n_boundaries else None

    @property
    def boundaries(self) -> list[int]:
        """Boundaries confirmed by this object (since it was created or restored), ascending."""
        return list(self._confirmed)

    def push(self, values: np.ndarray) -> list[int]:
        """Feed finite values; return the segment starts confirmed by this call."""
        out = self._det.update_batch(values)
        if len(out) == 0:
            return []
        new, self._tail = _confirm(
            out.map_run_length, out.start, self._tail, self._last, self.config
        )
        if new:
            self._last = new[-1]
            self._n_boundaries += len(new)
            self._confirmed.extend(new)
        return new

    def state(self) -> dict[str, Any]:
        """Everything needed to resume exactly, as JSON-ready plain values (bounded size)."""
        return {
            "version": 1,
            "config": asdict(self.config),
            "detector": self._det.state(),
            "last": self._last,
            "n_boundaries": self._n_boundaries,
            "tail": list(self._tail),
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> OnlineSegmenter:
        """Rebuild a segmenter from state(); it continues exactly where it stopped."""
        try:
            if state.get("version") != 1:
                raise InvalidInput("state.version", f"unsupported {state.get('version')!r}")
            seg = cls(SegmenterConfig(**state["config"]))
            seg._det = OnlineBOCPD.from_state(state["detector"])
            seg._last = int(state["last"])
            seg._n_boundaries = int(state["n_boundaries"])
            tail = [int(v) for v in state["tail"]]
            if len(tail) != seg.config.lag - 1:
                raise InvalidInput("state.tail", f"needs {seg.config.lag - 1} entries")
            seg._tail = tail
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidInput("state", f"malformed segmenter state ({exc})") from exc
        return seg


def _confirm(
    rl: np.ndarray, start: int, tail: list[int], last: int, cfg: SegmenterConfig
) -> tuple[list[int], list[int]]:
    """Boundaries confirmed by MAP run lengths rl of points start, start+1, ...; the new tail."""
    starts = start + np.arange(len(rl), dtype=np.int64) - rl
    if cfg.lag > 1:
        ext = np.concatenate([np.asarray(tail, dtype=np.int64), starts])
        window = sliding_window_view(ext, cfg.lag)
        hi, lo = window.max(axis=1), window.min(axis=1)
        tail = ext[-(cfg.lag - 1) :].tolist()
    else:
        hi = lo = starts
    ok = (rl >= cfg.lag) & (hi - starts <= cfg.tolerance) & (starts - lo <= cfg.tolerance)
    new: list[int] = []
    floor = last + cfg.min_segment_length
    for c in starts[ok].tolist():
        if c >= floor:
            new.append(c)
            floor = c + cfg.min_segment_length
    return new, tail


def boundaries_from_run_lengths(
    map_run_length: np.ndarray, config: SegmenterConfig | None = None
) -> list[int]:
    """The confirmation rule applied to a whole MAP run-length sequence (r_t as in OnlineBOCPD).

    Lets other BOCPD implementations be scored exactly the way OnlineSegmenter scores its own.
    """
    cfg = config or SegmenterConfig()
    rl = np.asarray(map_run_length, dtype=np.int64)
    if rl.ndim != 1:
        raise InvalidInput("map_run_length", "must be one-dimensional")
    return _confirm(rl, 0, [_NO_START] * (cfg.lag - 1), 0, cfg)[0]


def segment_all(values: np.ndarray, config: SegmenterConfig | None = None) -> list[int]:
    """Offline convenience: every boundary OnlineSegmenter confirms over the whole series."""
    return OnlineSegmenter(config).push(values)
