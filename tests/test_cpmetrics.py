"""TCPDBench F1 and covering: hand-computed cases and a set-based reference implementation."""

from __future__ import annotations

import numpy as np
import pytest

from bench.cpmetrics import clean_predictions, covering, f1_details, f1_score
from graphmem.errors import InvalidInput


def _ref_f1(annotations, predictions, n_obs, margin=5):
    """TCPDBench's metrics.f_measure, written out with sets."""

    def true_positives(truth, pred):
        free = set(pred)
        hits = 0
        for tau in sorted(truth):
            close = sorted((abs(tau - x), x) for x in free if abs(tau - x) <= margin)
            if close:
                free.remove(close[0][1])
                hits += 1
        return hits

    pred = {p for p in predictions if 1 <= p <= n_obs - 2} | {0}
    truth = [set(a) | {0} for a in annotations.values()]
    union = set().union(*truth)
    p = true_positives(union, pred) / len(pred)
    r = sum(true_positives(t, pred) / len(t) for t in truth) / len(truth)
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def _ref_cover(annotations, predictions, n_obs):
    """TCPDBench's metrics.covering, written out with sets."""

    def partition(points):
        cuts = sorted({p for p in points if 0 < p < n_obs})
        edges = [0, *cuts, n_obs]
        return [set(range(a, b)) for a, b in zip(edges, edges[1:], strict=False)]

    pred = partition([p for p in predictions if 1 <= p <= n_obs - 2])
    covers = []
    for pts in annotations.values():
        total = 0.0
        for seg in partition(pts):
            total += len(seg) * max(len(seg & s) / len(seg | s) for s in pred)
        covers.append(total / n_obs)
    return sum(covers) / len(covers)


def test_perfect_prediction_scores_one():
    ann = {"a": [30, 70]}
    assert f1_score(ann, [30, 70], 100) == 1.0
    assert covering(ann, [30, 70], 100) == 1.0


def test_partial_match_hand_computed():
    # X = {0, 12, 30}, truth = {0, 10, 50}: 0 and 10~12 match, so P = R = 2/3.
    res = f1_details({"a": [10, 50]}, [12, 30], 100)
    assert res.precision == pytest.approx(2 / 3)
    assert res.recall == pytest.approx(2 / 3)
    assert res.f1 == pytest.approx(2 / 3)


def test_margin_is_inclusive():
    assert f1_score({"a": [50]}, [55], 100) == 1.0
    assert f1_score({"a": [50]}, [56], 100) == pytest.approx(2 * 0.5 * 0.5 / 1.0)


def test_matches_are_one_to_one():
    # Two predictions near one true point: only one can match; P = 2/3, R = 1.
    res = f1_details({"a": [50]}, [48, 52], 100)
    assert res.precision == pytest.approx(2 / 3)
    assert res.recall == 1.0
    assert res.f1 == pytest.approx(0.8)


def test_recall_is_averaged_over_annotators():
    # P = 1; recall 1 for "a", 2/3 for "b": R = 5/6, F1 = 10/11.
    assert f1_score({"a": [20], "b": [20, 60]}, [21], 100) == pytest.approx(10 / 11)


def test_predictions_outside_1_to_t_minus_2_are_dropped():
    assert clean_predictions([0, 5, 5, 98, 99, 150, -3], 100) == [5, 98]
    # Nothing kept: X = {0}; P = 1, R = 1/2 -> F1 = 2/3.
    assert f1_score({"a": [40]}, [0, 99, 150], 100) == pytest.approx(2 / 3)


def test_no_changepoints_anywhere_is_perfect():
    assert f1_score({"a": [], "b": []}, [], 50) == 1.0
    assert covering({"a": []}, [], 50) == 1.0


def test_covering_hand_computed():
    assert covering({"a": [5]}, [], 10) == pytest.approx(0.5)
    # A1=[0,5) best with [0,3): 3/5; A2=[5,10) best with [3,10): 5/7.
    assert covering({"a": [5]}, [3], 10) == pytest.approx((5 * 0.6 + 5 * 5 / 7) / 10)
    assert covering({"a": [5], "b": []}, [5], 10) == pytest.approx((1.0 + 0.5) / 2)


def test_against_reference_on_random_cases():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(5, 200))
        ann = {
            str(k): sorted(rng.choice(n, size=int(rng.integers(0, 6)), replace=False).tolist())
            for k in range(int(rng.integers(1, 4)))
        }
        pred = rng.integers(-2, n + 2, size=int(rng.integers(0, 8))).tolist()
        margin = int(rng.integers(0, 8))
        assert f1_score(ann, pred, n, margin) == pytest.approx(_ref_f1(ann, pred, n, margin))
        assert covering(ann, pred, n) == pytest.approx(_ref_cover(ann, pred, n))


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"annotations": {"a": [1]}, "n_obs": 0}, "n_obs"),
        ({"annotations": {}, "n_obs": 10}, "annotations"),
        ({"annotations": {"a": [10]}, "n_obs": 10}, "annotations.a"),
        ({"annotations": {"a": [-1]}, "n_obs": 10}, "annotations.a"),
    ],
)
def test_bad_arguments(kwargs, field):
    with pytest.raises(InvalidInput) as err:
        f1_score(predictions=[], **kwargs)
    assert err.value.field == field
    with pytest.raises(InvalidInput):
        covering(predictions=[], **kwargs)


def test_negative_margin_is_rejected():
    with pytest.raises(InvalidInput) as err:
        f1_score({"a": [3]}, [3], 10, margin=-1)
    assert err.value.field == "margin"
