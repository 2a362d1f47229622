"""The learned part of the offline classifier: multinomial logistic regression over the pair
signals of graphmem/props/offline.py (FEATURES), weights in pairmodel.json beside this file.

The weights are fitted by bench/train_props_model.py on the tuning worlds
(tests/fixtures/worlds.json), with the L2 strength and class weighting chosen by
leave-one-world-out macro-F1; the JSON records what it was trained on and that estimate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from graphmem.errors import GraphmemError

MODEL_PATH = Path(__file__).with_name("pairmodel.json")


@dataclass(frozen=True)
class PairModel:
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

    def predict(self, x: np.ndarray) -> list[tuple[str, float]]:
        """(label, probability) per row. A hedged statement never updates or contradicts a
        plain one, whatever the weights say: there only supports and norel compete."""
        probs = self.probabilities(x)
        hedged = np.atleast_2d(x)[:, self.features.index("hedged_new_only")] > 0.5
        barred = np.array([label in ("updates", "contradicts") for label in self.labels])
        probs[np.ix_(hedged, barred)] = 0.0
        best = probs.argmax(axis=1)
        return [(self.labels[i], float(probs[row, i])) for row, i in enumerate(best)]

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


def _rounded(values: np.ndarray) -> list[float]:
    return [round(float(v), 5) for v in values]


@lru_cache(maxsize=4)
def load_model(path: Path = MODEL_PATH) -> PairModel:
    """The model stored at `path` (the package's own by default)."""
    try:
        return PairModel.from_json(json.loads(path.read_text(encoding="utf-8")))
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
