"""Signals of a pair from the two statements' sentence embeddings, for the relation model.

The rules' signals (graphmem/props/offline.py) see words, names and figures; the cosine is all
they take from the embeddings. Two statements can share a topic in many ways the cosine folds
into one number, so the model also gets a few directions of the pair's elementwise product
(u * v: which dimensions agree) and difference (u - v: what the newer one adds): the leading
principal components of each over the training pairs, fitted by bench/train_props_model.py and
stored with the model. Round 19: macro-F1 0.419 -> 0.438 leaving one author's worlds out at a time
(the later authors' 0.391 -> 0.411; docs/quality.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numba import njit


@dataclass(frozen=True)
class Directions:
    """Principal directions of one view of the pairs: (view - mean) @ components.T."""

    mean: np.ndarray  # (dim,)
    components: np.ndarray  # (k, dim), orthonormal rows

    @classmethod
    def fit(cls, rows: np.ndarray, k: int) -> Directions:
        """The `k` leading principal directions of `rows` (n, dim)."""
        rows = np.asarray(rows, dtype=np.float64)
        mean = rows.mean(axis=0)
        _, _, vt = np.linalg.svd(rows - mean, full_matrices=False)
        # a component's sign is arbitrary: fix it so a refit on the same rows is identical
        signs = np.sign(vt[:k].sum(axis=1, keepdims=True))
        return cls(mean, vt[:k] * np.where(signs == 0, 1.0, signs))

    def project(self, rows: np.ndarray) -> np.ndarray:
        rows = np.ascontiguousarray(np.atleast_2d(np.asarray(rows, dtype=np.float64)))
        return _project(rows, self.mean, self._by_dimension)

    @cached_property
    def _by_dimension(self) -> np.ndarray:
        """The components laid out (dim, k), the order _project reads them in."""
        return np.ascontiguousarray(self.components.T)

    def to_json(self) -> dict[str, Any]:
        # exact: a signal rounded near a tree's threshold could take the other branch
        return {"mean": self.mean.tolist(), "components": self.components.tolist()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Directions:
        mean = np.asarray(data["mean"], dtype=np.float64)
        components = np.asarray(data["components"], dtype=np.float64)
        if mean.ndim != 1 or components.ndim != 2 or components.shape[1] != len(mean):
            raise ValueError("an embedding direction does not match the mean's dimension")
        return cls(mean, components)


@dataclass(frozen=True)
class PairProjection:
    """The embedding signals of pairs (newer u, older v): product and difference directions;
    `model`: the embedder whose vectors they were fitted on (graphmem.embed.Embedder.name)."""

    product: Directions
    difference: Directions
    model: str

    @classmethod
    def fit(cls, u: np.ndarray, v: np.ndarray, k: int, model: str) -> PairProjection:
        """Fitted on the training pairs' vectors (rows of u newer, v older)."""
        u, v = _unit(u), _unit(v)
        return cls(Directions.fit(u * v, k), Directions.fit(u - v, k), model)

    @property
    def dim(self) -> int:
        return len(self.product.mean)

    @property
    def names(self) -> tuple[str, ...]:
        """The signals' names, in signals() column order."""
        k, j = len(self.product.components), len(self.difference.components)
        return (*(f"emb_product_{i}" for i in range(k)), *(f"emb_difference_{i}" for i in range(j)))

    def signals(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """One row of signals per pair: unit-normalised vectors, projected."""
        u, v = _unit(u), _unit(v)
        if u.shape != v.shape or u.shape[1] != self.dim:
            # the compiled loop checks no bounds: vectors of another model would give garbage
            raise ValueError(
                f"the embedding signals need pairs of {self.dim}-dimensional vectors, "
                f"got {u.shape} and {v.shape}"
            )
        return np.hstack([self.product.project(u * v), self.difference.project(u - v)])

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "product": self.product.to_json(),
            "difference": self.difference.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PairProjection:
        made = cls(
            Directions.from_json(data["product"]),
            Directions.from_json(data["difference"]),
            str(data["model"]),
        )
        if made.product.mean.shape != made.difference.mean.shape:
            raise ValueError("the product and difference directions differ in dimension")
        return made


def _unit(rows: np.ndarray) -> np.ndarray:
    rows = np.ascontiguousarray(np.atleast_2d(np.asarray(rows, dtype=np.float64)))
    return _unit_rows(rows)


# Compiled loops, not BLAS: a matrix product rounds a row differently with the rows beside it,
# and a pair must get the same signals, so the same label, whichever pairs share the call.
# Each output is the same sequential sum over the dimensions, in the same order, as a loop per
# component (no fastmath, so no reassociation); the inner loop runs across the components, which
# the compiler can vectorise without changing any sum.
@njit(cache=True)
def _project(rows: np.ndarray, mean: np.ndarray, by_dimension: np.ndarray) -> np.ndarray:
    out = np.zeros((rows.shape[0], by_dimension.shape[1]))
    for i in range(rows.shape[0]):
        for d in range(rows.shape[1]):
            centred = rows[i, d] - mean[d]
            for k in range(by_dimension.shape[1]):
                out[i, k] += centred * by_dimension[d, k]
    return out


@njit(cache=True)
def _unit_rows(rows: np.ndarray) -> np.ndarray:
    out = np.empty_like(rows)
    for i in range(rows.shape[0]):
        total = 0.0
        for d in range(rows.shape[1]):
            total += rows[i, d] * rows[i, d]
        scale = 1.0 / np.sqrt(total) if total > 0 else 1.0
        for d in range(rows.shape[1]):
            out[i, d] = rows[i, d] * scale
    return out
