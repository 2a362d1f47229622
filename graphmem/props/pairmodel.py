"""The learned part of the offline classifier: label probabilities from the pair signals of
graphmem/props/offline.py (FEATURES), stored in pairmodel.json beside this file.

Two kinds of model: boosted trees (TreeModel, shipped since round 11: fitted by
bench/train_props_model.py with scikit-learn's histogram gradient boosting, walked here by a
compiled loop) and multinomial logistic regression (PairModel, rounds 3-10, fitted here).
Both are fitted on the tuning worlds (tests/fixtures/worlds.json) with their settings chosen
by macro-F1 on worlds left out of the fit; the JSON records what a model was trained on and
that estimate. Whatever the model, a hedged statement never updates or contradicts a plain one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from scipy.optimize import minimize

from graphmem.errors import GraphmemError

MODEL_PATH = Path(__file__).with_name("pairmodel.json")
TREES = "trees"  # pairmodel.json's "kind" for a TreeModel (no kind: a PairModel)


class _Labeller:
    """predict() over a model's probabilities, with the hedge rule both kinds keep."""

    labels: tuple[str, ...]
    features: tuple[str, ...]

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def predict(self, x: np.ndarray) -> list[tuple[str, float]]:
        """(label, probability) per row. A hedged statement never updates or contradicts a
        plain one, whatever the model says: there only supports and norel compete."""
        probs = self.probabilities(x)
        hedged = np.atleast_2d(x)[:, self.features.index("hedged_new_only")] > 0.5
        barred = np.array([label in ("updates", "contradicts") for label in self.labels])
        probs[np.ix_(hedged, barred)] = 0.0
        best = probs.argmax(axis=1)
        return [(self.labels[i], float(probs[row, i])) for row, i in enumerate(best)]


@dataclass(frozen=True)
class PairModel(_Labeller):
    """Label probabilities from standardised pair signals: softmax(W · (x - mean) / scale + b)."""

    labels: tuple[str, ...]
    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray  # (labels, features)
    bias: np.ndarray  # (labels,)
    about: dict[str, Any] = field(default_factory=dict)  # training data, choices, estimates

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """One row of label probabilities per row of signals."""
        z = ((np.atleast_2d(x) - self.mean) / self.scale) @ self.weights.T + self.bias
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def to_json(self) -> dict[str, Any]:
        return {
            "about": self.about,
            "labels": list(self.labels),
            "features": list(self.features),
            "mean": _rounded(self.mean),
            "scale": _rounded(self.scale),
            "weights": [_rounded(row) for row in self.weights],
            "bias": _rounded(self.bias),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PairModel:
        return cls(
            labels=tuple(data["labels"]),
            features=tuple(data["features"]),
            mean=np.asarray(data["mean"], dtype=float),
            scale=np.asarray(data["scale"], dtype=float),
            weights=np.asarray(data["weights"], dtype=float),
            bias=np.asarray(data["bias"], dtype=float),
            about=data.get("about", {}),
        )


@dataclass(frozen=True)
class TreeModel(_Labeller):
    """Label probabilities from boosted trees: softmax(baseline + leaf values of each label's
    trees). Node arrays are flat over all trees; a leaf has feature -1."""

    labels: tuple[str, ...]
    features: tuple[str, ...]
    baseline: np.ndarray  # (labels,)
    roots: np.ndarray  # (trees,) index of each tree's root node
    tree_label: np.ndarray  # (trees,) which label's score a tree adds to
    feature: np.ndarray  # (nodes,) signal index tested, -1 at a leaf
    threshold: np.ndarray  # (nodes,) go left when the signal is <= threshold
    missing_left: np.ndarray  # (nodes,) where a NaN signal goes
    left: np.ndarray  # (nodes,)
    right: np.ndarray  # (nodes,)
    value: np.ndarray  # (nodes,) a leaf's score
    about: dict[str, Any] = field(default_factory=dict)

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """One row of label probabilities per row of signals."""
        x = np.ascontiguousarray(np.atleast_2d(np.asarray(x, dtype=np.float64)))
        scores = _tree_scores(
            x,
            self.baseline,
            self.roots,
            self.tree_label,
            self.feature,
            self.threshold,
            self.missing_left,
            self.left,
            self.right,
            self.value,
        )
        scores -= scores.max(axis=1, keepdims=True)
        e = np.exp(scores)
        return e / e.sum(axis=1, keepdims=True)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": TREES,
            "about": self.about,
            "labels": list(self.labels),
            "features": list(self.features),
            "baseline": [round(float(v), 6) for v in self.baseline],
            "roots": self.roots.tolist(),
            "tree_label": self.tree_label.tolist(),
            # one row per node: feature, threshold, missing goes left, left, right, value
            "nodes": [
                [int(f), _short(t), int(m), int(a), int(b), _short(v)]
                for f, t, m, a, b, v in zip(
                    self.feature,
                    self.threshold,
                    self.missing_left,
                    self.left,
                    self.right,
                    self.value,
                    strict=True,
                )
            ],
        }

    @classmethod
    def from_sklearn(
        cls, trees: Any, labels: tuple[str, ...], features: tuple[str, ...]
    ) -> TreeModel:
        """A fitted scikit-learn HistGradientBoostingClassifier (three labels or more, label
        i fitted as class i) as a TreeModel: its trees' nodes in flat arrays, each tree's node
        indices offset by the nodes before it. Reads the estimator's fitted trees; imports
        nothing of scikit-learn (only bench/train_props_model.py trains)."""
        if list(trees.classes_) != list(range(len(labels))) or len(labels) < 3:
            raise ValueError("the classifier must have been fitted on every label, three or more")
        per_tree = [p.nodes for iteration in trees._predictors for p in iteration]
        sizes = np.array([len(n) for n in per_tree])
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])  # a tree's root is its node 0
        shift = np.repeat(starts, sizes)
        nodes = np.concatenate(per_tree)
        leaf = nodes["is_leaf"].astype(bool)
        return cls(
            labels=labels,
            features=features,
            baseline=np.asarray(trees._baseline_prediction, dtype=np.float64).ravel(),
            roots=starts,
            tree_label=np.tile(np.arange(len(labels)), len(trees._predictors)),
            feature=np.where(leaf, -1, nodes["feature_idx"].astype(np.int64)),
            threshold=nodes["num_threshold"].astype(np.float64),
            missing_left=nodes["missing_go_to_left"].astype(bool),
            left=np.where(leaf, 0, nodes["left"].astype(np.int64) + shift),
            right=np.where(leaf, 0, nodes["right"].astype(np.int64) + shift),
            value=nodes["value"].astype(np.float64),
        )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TreeModel:
        nodes = np.asarray(data["nodes"], dtype=np.float64).reshape(-1, 6)
        as_int = nodes[:, [0, 2, 3, 4]].astype(np.int64)
        return cls(
            labels=tuple(data["labels"]),
            features=tuple(data["features"]),
            baseline=np.asarray(data["baseline"], dtype=np.float64),
            roots=np.asarray(data["roots"], dtype=np.int64),
            tree_label=np.asarray(data["tree_label"], dtype=np.int64),
            feature=as_int[:, 0],
            threshold=nodes[:, 1],
            missing_left=as_int[:, 1].astype(bool),
            left=as_int[:, 2],
            right=as_int[:, 3],
            value=nodes[:, 5],
            about=data.get("about", {}),
        )


RelationModel = PairModel | TreeModel


@njit(cache=True)
def _tree_scores(
    x: np.ndarray,
    baseline: np.ndarray,
    roots: np.ndarray,
    tree_label: np.ndarray,
    feature: np.ndarray,
    threshold: np.ndarray,
    missing_left: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    value: np.ndarray,
) -> np.ndarray:
    """Each row's label scores: the baseline plus the leaf each tree reaches, by label.
    Compiled: a row walks ~400 trees ~10 levels deep, far too many steps for numpy calls."""
    scores = np.empty((x.shape[0], baseline.shape[0]))
    for i in range(x.shape[0]):
        scores[i] = baseline
        for t in range(roots.shape[0]):
            node = roots[t]
            while feature[node] >= 0:
                seen = x[i, feature[node]]
                go_left = missing_left[node] if np.isnan(seen) else seen <= threshold[node]
                node = left[node] if go_left else right[node]
            scores[i, tree_label[t]] += value[node]
    return scores


def _short(v: float) -> float:
    """A threshold or leaf value kept to 9 significant digits (the file stays small, and no
    signal lies that close to a threshold)."""
    return float(f"{float(v):.9g}")


def _rounded(values: np.ndarray) -> list[float]:
    return [round(float(v), 5) for v in values]


@lru_cache(maxsize=4)
def load_model(path: Path = MODEL_PATH) -> RelationModel:
    """The model stored at `path` (the package's own by default), of either kind."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        kind = data.get("kind")
        if kind not in (None, TREES):
            raise ValueError(f"unknown model kind {kind!r}")
        return TreeModel.from_json(data) if kind == TREES else PairModel.from_json(data)
    except (OSError, ValueError, KeyError) as e:
        raise GraphmemError(f"cannot load the relation model {path}: {e}") from e


def fit(
    x: np.ndarray,
    y: np.ndarray,
    labels: tuple[str, ...],
    features: tuple[str, ...],
    l2: float,
    balance: float,
    sample_weight: np.ndarray | None = None,
) -> PairModel:
    """Fit on signals `x` and label indices `y`; `balance` in [0, 1] weighs each class by
    (its frequency) ** -balance, so rare labels count for macro-F1 as they should;
    `sample_weight` multiplies each row's weight (e.g. to weigh worlds alike)."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    xs = (x - mean) / scale
    k, d = len(labels), x.shape[1]
    counts = np.bincount(y, minlength=k).astype(float)
    class_weight = np.where(counts > 0, (counts / counts.sum() + 1e-12) ** -balance, 0.0)
    w = class_weight[y] if sample_weight is None else class_weight[y] * sample_weight
    w = w / w.sum()
    onehot = np.eye(k)[y]

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        weights, bias = theta[: k * d].reshape(k, d), theta[k * d :]
        z = xs @ weights.T + bias
        z -= z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        value = -(w * (onehot * logp).sum(axis=1)).sum() + 0.5 * l2 * (weights**2).sum()
        residual = (np.exp(logp) - onehot) * w[:, None]
        grad_w = residual.T @ xs + l2 * weights
        return value, np.concatenate([grad_w.ravel(), residual.sum(axis=0)])

    theta = minimize(loss, np.zeros(k * d + k), jac=True, method="L-BFGS-B").x
    return PairModel(labels, features, mean, scale, theta[: k * d].reshape(k, d), theta[k * d :])
