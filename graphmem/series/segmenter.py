"""Online segment boundaries: confirm OnlineBOCPD changepoints once they have held for `lag` points."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from graphmem.errors import InvalidInput
from graphmem.series.bocpd import OnlineBOCPD


def _check_int(name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise InvalidInput(name, f"must be an integer >= {minimum}, got {value!r}")


@dataclass(frozen=True)
class SegmenterConfig:
    """Detector and confirmation settings; the defaults are chosen by F1, not per series."""

    hazard_lambda: float = 250.0
    lag: int = 20
    min_segment_length: int = 10
    warmup: int = 32
    prune_threshold: float = 1e-8
    max_run_lengths: int = 300
    protect_recent: int = 0

    def __post_init__(self) -> None:
        if not (isinstance(self.hazard_lambda, int | float) and math.isfinite(self.hazard_lambda)):
            raise InvalidInput("hazard_lambda", f"must be a finite number, got {self.hazard_lambda!r}")
        if self.hazard_lambda <= 1:
            raise InvalidInput("hazard_lambda", f"must be > 1, got {self.hazard_lambda}")
        _check_int("lag", self.lag, 1)
        _check_int("min_segment_length", self.min_segment_length, 1)
        _check_int("warmup", self.warmup, 2)
        _check_int("max_run_lengths", self.max_run_lengths, 1)
        _check_int("protect_recent", self.protect_recent, 0)
        thr = self.prune_threshold
        if not (isinstance(thr, int | float) and math.isfinite(thr) and 0 <= thr < 1):
            raise InvalidInput("prune_threshold", f"must be in [0, 1), got {thr!r}")

    def detector(self) -> OnlineBOCPD:
        """A fresh detector with these settings."""
        return OnlineBOCPD(
            self.hazard_lambda,
            warmup=self.warmup,
            prune_threshold=self.prune_threshold,
            max_run_lengths=self.max_run_lengths,
            protect_recent=self.protect_recent,
        )


@dataclass
class _Progress:
    last: int = 0  # start of the current confirmed segment (0 before any boundary)
    boundaries: list[int] = field(default_factory=list)


class OnlineSegmenter:
    """Feeds values to OnlineBOCPD and reports confirmed segment starts, never retracted.

    After point t the most probable run length r gives the candidate start c = t - r. The
    candidate is confirmed as soon as that run has lasted `lag` points (r >= lag, so the push
    holding point c + lag or later reports it), provided it lies at least min_segment_length
    after the previous boundary (or the start of the stream).
    """

    def __init__(self, config: SegmenterConfig | None = None) -> None:
        if config is not None and not isinstance(config, SegmenterConfig):
            raise InvalidInput("config", "must be a SegmenterConfig or None")
        self.config = config or SegmenterConfig()
        self._det = self.config.detector()
        self._prog = _Progress()

    @property
    def n_seen(self) -> int:
        """Values pushed so far."""
        return self._det.n_seen

    @property
    def boundaries(self) -> list[int]:
        """Every boundary confirmed so far, ascending."""
        return list(self._prog.boundaries)

    @property
    def last_boundary(self) -> int | None:
        """The latest confirmed boundary, if any."""
        return self._prog.boundaries[-1] if self._prog.boundaries else None

    def push(self, values: np.ndarray) -> list[int]:
        """Feed finite values; return the segment starts confirmed by this call."""
        out = self._det.update_batch(values)
        if len(out) == 0:
            return []
        cfg = self.config
        rl = out.map_run_length
        # Only points whose MAP run is old enough can confirm anything; test those in order.
        idx = np.flatnonzero(rl >= cfg.lag)
        starts = out.start + idx - rl[idx]
        new: list[int] = []
        last = self._prog.last
        floor = last + cfg.min_segment_length
        for c in starts[starts >= floor].tolist():
            if c >= floor:
                new.append(c)
                last = c
                floor = c + cfg.min_segment_length
        self._prog.last = last
        self._prog.boundaries.extend(new)
        return new

    def state(self) -> dict[str, Any]:
        """Everything needed to resume exactly, as JSON-ready plain values."""
        return {
            "version": 1,
            "config": asdict(self.config),
            "detector": self._det.state(),
            "last": self._prog.last,
            "boundaries": list(self._prog.boundaries),
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> OnlineSegmenter:
        """Rebuild a segmenter from state(); it continues exactly where it stopped."""
        try:
            if state.get("version") != 1:
                raise InvalidInput("state.version", f"unsupported {state.get('version')!r}")
            seg = cls(SegmenterConfig(**state["config"]))
            seg._det = OnlineBOCPD.from_state(state["detector"])
            seg._prog = _Progress(
                last=int(state["last"]), boundaries=[int(b) for b in state["boundaries"]]
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidInput("state", f"malformed segmenter state ({exc})") from exc
        return seg


def segment_all(values: np.ndarray, config: SegmenterConfig | None = None) -> list[int]:
    """Offline convenience: every boundary OnlineSegmenter confirms over the whole series."""
    return OnlineSegmenter(config).push(values)
