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

import dataclasses
import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from scipy.optimize import minimize

from graphmem.errors import GraphmemError
from graphmem.props.pairembed import PairProjection

MODEL_PATH = Path(__file__).with_name("pairmodel.json")
TREES = "trees"  # pairmodel.json's "kind" for a TreeModel (no kind: a PairModel)


class _Labeller:
    """predict() over a model's probabilities, with the hedge rule both kinds keep."""

    labels: tuple[str, ...]
    features: tuple[str, ...]
    embedding: PairProjection | None = None  # TreeModel's since round 19; PairModel never

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def rows(self, signals: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The model's input: the pairs' signals, then their embedding signals if it takes
        them (`u`, `v`: the newer and older statements' embeddings, one row per pair)."""
        if self.embedding is None:
            return signals
        return np.hstack([np.atleast_2d(signals), self.embedding.signals(u, v)])

    def predict(
        self, x: np.ndarray, unrelated: np.ndarray | None = None
    ) -> list[tuple[str, float]]:
        """(label, probability) per row. A hedged statement never updates or contradicts a
        plain one, whatever the model says, nor does a row where `unrelated` (one bool a row)
        is True: there only supports and norel compete."""
        probs = self.probabilities(x)
        hedged = np.atleast_2d(x)[:, self.features.index("hedged_new_only")] > 0.5
        if unrelated is not None:
            if unrelated.dtype != bool or unrelated.shape != hedged.shape:
                raise ValueError(f"unrelated: one bool a row, {hedged.shape}, not {unrelated}")
            hedged = hedged | unrelated
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


# a TreeModel's node arrays, in the order of a node row in pairmodel.json, with their dtypes
NODE_FIELDS = (
    ("feature", np.int64),
    ("threshold", np.float64),
    ("missing_left", np.bool_),
    ("left", np.int64),
    ("right", np.int64),
    ("value", np.float64),
)


@dataclass(frozen=True)
class TreeModel(_Labeller):
    """Label probabilities from boosted trees: softmax(baseline + leaf values of each label's
    trees). Node arrays are flat over all trees; a leaf has feature -1. Checked when built:
    the compiled walk trusts every index."""

    labels: tuple[str, ...]
    features: tuple[str, ...]
    baseline: np.ndarray  # (labels,)
    roots: np.ndarray  # (trees,) index of each tree's root node
    tree_label: np.ndarray  # (trees,) which label's score a tree adds to
    feature: np.ndarray  # (nodes,) signal index tested, -1 at a leaf
    threshold: np.ndarray  # (nodes,) go left when the signal is <= threshold
    missing_left: np.ndarray  # (nodes,) where a NaN signal goes
    left: np.ndarray  # (nodes,) children: after their parent, as scikit-learn numbers them
    right: np.ndarray  # (nodes,)
    value: np.ndarray  # (nodes,) a leaf's score
    about: dict[str, Any] = field(default_factory=dict)
    # the embedding signals, the last of `features` (round 19); None: the model has none
    embedding: PairProjection | None = None

    def __post_init__(self) -> None:
        arrays = (("baseline", np.float64), ("roots", np.int64), ("tree_label", np.int64))
        for name, dtype in (*arrays, *NODE_FIELDS):
            array = np.ascontiguousarray(getattr(self, name), dtype=dtype)
            if array.ndim != 1:
                raise ValueError(f"{name} must be one-dimensional")
            object.__setattr__(self, name, array)
        n = len(self.feature)
        if any(len(getattr(self, name)) != n for name, _ in NODE_FIELDS):
            raise ValueError("the node arrays differ in length")
        if len(self.baseline) != len(self.labels) or len(self.roots) != len(self.tree_label):
            raise ValueError("one baseline per label and one label per tree")
        inner = self.feature >= 0
        at = np.flatnonzero(inner)
        if (
            ((self.feature < -1) | (self.feature >= len(self.features))).any()
            or ((self.roots < 0) | (self.roots >= n)).any()
            or ((self.tree_label < 0) | (self.tree_label >= len(self.labels))).any()
            or not ((self.left[inner] > at) & (self.left[inner] < n)).all()
            or not ((self.right[inner] > at) & (self.right[inner] < n)).all()
        ):
            raise ValueError("a signal, root, label or child index is out of range")
        if self.embedding is not None and self.features[-len(self.embedding.names) :] != (
            self.embedding.names
        ):
            raise ValueError("the embedding signals must be the last features, in order")

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """One row of label probabilities per row of signals."""
        x = np.ascontiguousarray(np.atleast_2d(np.asarray(x, dtype=np.float64)))
        if x.ndim != 2 or x.shape[1] != len(self.features):
            raise ValueError(f"rows of {len(self.features)} signals expected, got {x.shape}")
        nodes = (getattr(self, name) for name, _ in NODE_FIELDS)
        scores = _tree_scores(x, self.baseline, self.roots, self.tree_label, *nodes)
        scores -= scores.max(axis=1, keepdims=True)
        e = np.exp(scores)
        return e / e.sum(axis=1, keepdims=True)

    @classmethod
    def from_sklearn(
        cls, trees: Any, labels: tuple[str, ...], features: tuple[str, ...]
    ) -> TreeModel:
        """A fitted scikit-learn HistGradientBoostingClassifier (three labels or more, label
        i fitted as class i, numeric splits) as a TreeModel: its trees' nodes in flat arrays,
        each tree's node indices offset by the nodes before it. Reads the estimator's fitted
        trees; imports nothing of scikit-learn (only bench/train_props_model.py trains)."""
        if list(trees.classes_) != list(range(len(labels))) or len(labels) < 3:
            raise ValueError("the classifier must have been fitted on every label, three or more")
        per_tree = [p.nodes for iteration in trees._predictors for p in iteration]
        sizes = np.array([len(n) for n in per_tree])
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])  # a tree's root is its node 0
        shift = np.repeat(starts, sizes)
        nodes = np.concatenate(per_tree)
        if nodes["is_categorical"].any():
            raise ValueError("categorical splits are not supported")
        leaf = nodes["is_leaf"].astype(bool)
        return cls(
            labels=labels,
            features=features,
            baseline=np.asarray(trees._baseline_prediction).ravel(),
            roots=starts,
            tree_label=np.tile(np.arange(len(labels)), len(trees._predictors)),
            feature=np.where(leaf, -1, nodes["feature_idx"]),
            threshold=nodes["num_threshold"],
            missing_left=nodes["missing_go_to_left"],
            left=np.where(leaf, 0, nodes["left"].astype(np.int64) + shift),
            right=np.where(leaf, 0, nodes["right"].astype(np.int64) + shift),
            value=nodes["value"],
        )

    def to_json(self) -> dict[str, Any]:
        columns = [getattr(self, name).tolist() for name, _ in NODE_FIELDS]
        columns[-1] = [_short(v) for v in columns[-1]]  # leaf scores; thresholds stay exact
        return {
            "kind": TREES,
            "about": self.about,
            "labels": list(self.labels),
            "features": list(self.features),
            "baseline": self.baseline.tolist(),
            "roots": self.roots.tolist(),
            "tree_label": self.tree_label.tolist(),
            # one row per node: feature, threshold, missing goes left, left, right, value
            "nodes": [list(row) for row in zip(*columns, strict=True)],
            **({"embedding": self.embedding.to_json()} if self.embedding else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TreeModel:
        rows = data["nodes"]
        if any(len(row) != len(NODE_FIELDS) for row in rows):
            raise ValueError(f"a node row has not {len(NODE_FIELDS)} values")
        columns = list(zip(*rows, strict=True)) if rows else [()] * len(NODE_FIELDS)
        return cls(
            labels=tuple(data["labels"]),
            features=tuple(data["features"]),
            baseline=data["baseline"],
            roots=data["roots"],
            tree_label=data["tree_label"],
            **{
                name: np.asarray(col, dtype=dt)
                for (name, dt), col in zip(NODE_FIELDS, columns, strict=True)
            },
            about=data.get("about", {}),
            embedding=PairProjection.from_json(data["embedding"]) if "embedding" in data else None,
        )


RelationModel = PairModel | TreeModel


def norel_weighted(model: RelationModel, weight: float) -> RelationModel:
    """The model with its norel probability multiplied by `weight` before the labels compete
    (norel's baseline score shifted by log(weight)): below 1 a relation wins more often. Chosen
    by bench/train_props_model.py on authors left out: a model is surer of "no relation" on a
    voice it has not seen than on the voices it was fitted on."""
    if not (math.isfinite(weight) and weight > 0):
        raise ValueError(f"the norel weight must be positive and finite, got {weight!r}")
    if "norel" not in model.labels:
        raise ValueError("the model has no norel label to weigh")
    shift = np.where(np.asarray(model.labels) == "norel", math.log(weight), 0.0)
    if isinstance(model, TreeModel):
        return dataclasses.replace(model, baseline=model.baseline + shift)
    return dataclasses.replace(model, bias=model.bias + shift)


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
    """A leaf's score kept to 9 significant digits (the file stays small; probabilities move
    by less than 1e-8)."""
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
    except (OSError, ValueError, KeyError, TypeError) as e:
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
