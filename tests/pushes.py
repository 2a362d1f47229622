"""Pushing a series into a segmenter in pieces: random cut points, and the pushes themselves
(optionally saving and restoring the segmenter's state after each)."""

from __future__ import annotations

import json

import numpy as np

from graphmem.series.detect.segmenter import OnlineSegmenter, SegmenterConfig


def random_cuts(n: int, rng: np.random.Generator) -> list[int]:
    """Increasing cut points ending at n, in steps from 1 to 250 points."""
    cuts, pos = [], 0
    while pos < n:
        pos = min(n, pos + int(rng.choice([1, 1, 3, 7, 20, 31, 90, 250])))
        cuts.append(pos)
    return cuts


def pushes(
    xs: np.ndarray, cuts: list[int], cfg: SegmenterConfig | None = None, resume: bool = False
) -> tuple[OnlineSegmenter, list[tuple[int, list]]]:
    """The segmenter after pushing xs up to each cut, and what each push returned."""
    seg = OnlineSegmenter(cfg) if cfg is not None else OnlineSegmenter()
    prev, found = 0, []
    for cut in cuts:
        found.append((cut, seg.push(xs[prev:cut])))
        if resume:
            seg = OnlineSegmenter.from_state(json.loads(json.dumps(seg.state())))
        prev = cut
    return seg, found


def in_pieces(xs: np.ndarray, rng: np.random.Generator, cfg: SegmenterConfig) -> list[int]:
    """Every boundary found pushing xs in random pieces (random_cuts), the state saved and
    restored after each, then closing: segment_all's answer when batching changes nothing."""
    seg, found = pushes(xs, random_cuts(len(xs), rng), cfg, resume=True)
    return [b for _, new in found for b in new] + seg.close()


def resumed_from_older_state(
    xs: np.ndarray, cut: int, cfg: SegmenterConfig, dropped: tuple[str, ...]
) -> tuple[OnlineSegmenter, list[int]]:
    """Push xs[:cut], store the state as an older version would have (without the `dropped`
    keys: "config.<setting>" or a state field), restore it, push the rest and close: the
    restored segmenter and every boundary found."""
    seg = OnlineSegmenter(cfg)
    first = seg.push(xs[:cut])
    state = json.loads(json.dumps(seg.state()))
    for key in dropped:
        part, _, name = key.rpartition(".")
        del (state[part] if part else state)[name]
    old = OnlineSegmenter.from_state(state)
    return old, first + old.push(xs[cut:]) + old.close()
