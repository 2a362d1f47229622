"""Changepoint scores as defined by TCPDBench: F1 with a margin, and segment covering."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from graphmem.errors import InvalidInput


@dataclass(frozen=True)
class F1Result:
    """F1 with its precision and recall."""

    f1: float
    precision: float
    recall: float


def clean_predictions(predictions: Iterable[int], n_obs: int) -> list[int]:
    """Sorted unique predicted indices inside 1..n_obs-2, as TCPDBench keeps them."""
    return sorted({int(p) for p in predictions if 1 <= int(p) <= n_obs - 2})


def _check(annotations: Mapping[str, Sequence[int]], n_obs: int) -> dict[str, list[int]]:
    if int(n_obs) < 1:
        raise InvalidInput("n_obs", f"must be at least 1, got {n_obs}")
    if not annotations:
        raise InvalidInput("annotations", "needs at least one annotator")
    out: dict[str, list[int]] = {}
    for uid, points in annotations.items():
        pts = sorted({int(p) for p in points})
        if pts and (pts[0] < 0 or pts[-1] >= n_obs):
            raise InvalidInput(f"annotations.{uid}", f"indices must lie in 0..{n_obs - 1}")
        out[str(uid)] = sorted(set(pts) | {0})
    return out


def _true_positives(truth: Sequence[int], predicted: Sequence[int], margin: int) -> int:
    """Count one-to-one matches within the margin, greedily in truth order, nearest first."""
    free = sorted(predicted)
    hits = 0
    for tau in sorted(truth):
        lo = bisect.bisect_left(free, tau - margin)
        hi = bisect.bisect_right(free, tau + margin)
        if lo == hi:
            continue
        # Nearest wins; on a tie the smaller index, as TCPDBench's (distance, x) sort does.
        best = min(range(lo, hi), key=lambda j: (abs(free[j] - tau), free[j]))
        del free[best]
        hits += 1
    return hits


def f1_details(
    annotations: Mapping[str, Sequence[int]],
    predictions: Iterable[int],
    n_obs: int,
    margin: int = 5,
) -> F1Result:
    """TCPDBench F1: precision against all annotators' union, recall averaged per annotator."""
    if int(margin) < 0:
        raise InvalidInput("margin", f"must be >= 0, got {margin}")
    truth = _check(annotations, n_obs)
    pred = [0, *clean_predictions(predictions, n_obs)]
    union = sorted(set().union(*truth.values()))
    precision = _true_positives(union, pred, margin) / len(pred)
    recall = sum(_true_positives(t, pred, margin) / len(t) for t in truth.values()) / len(truth)
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return F1Result(f1=f1, precision=precision, recall=recall)


def f1_score(
    annotations: Mapping[str, Sequence[int]],
    predictions: Iterable[int],
    n_obs: int,
    margin: int = 5,
) -> float:
    """TCPDBench F1 score with a +-margin match window."""
    return f1_details(annotations, predictions, n_obs, margin).f1


def _segments(points: Sequence[int], n_obs: int) -> list[tuple[int, int]]:
    edges = [p for p in points if 0 < p < n_obs]
    bounds = [0, *edges, n_obs]
    return [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]


def _cover_single(truth: list[tuple[int, int]], pred: list[tuple[int, int]], n_obs: int) -> float:
    total = 0.0
    j = 0
    for a0, a1 in truth:
        # Predicted segments are sorted and disjoint: only those overlapping [a0, a1) matter.
        while pred[j][1] <= a0:
            j += 1
        best = 0.0
        k = j
        while k < len(pred) and pred[k][0] < a1:
            b0, b1 = pred[k]
            inter = min(a1, b1) - max(a0, b0)
            best = max(best, inter / ((a1 - a0) + (b1 - b0) - inter))
            k += 1
        total += (a1 - a0) * best
    return total / n_obs


def covering(
    annotations: Mapping[str, Sequence[int]],
    predictions: Iterable[int],
    n_obs: int,
) -> float:
    """TCPDBench covering of each annotator's segmentation by the predicted one, averaged."""
    truth = _check(annotations, n_obs)
    pred = _segments(clean_predictions(predictions, n_obs), n_obs)
    covers = [_cover_single(_segments(t, n_obs), pred, n_obs) for t in truth.values()]
    return sum(covers) / len(covers)
