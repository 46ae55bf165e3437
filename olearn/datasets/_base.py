"""Small shared types: the loaded :class:`Dataset` and what a loader returns."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np


class Loaded(NamedTuple):
    """What a registry loader returns; :func:`olearn.datasets.load` wraps it in a Dataset."""

    X: Any
    y: np.ndarray
    feature_names: np.ndarray | None = None
    source_class: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class Dataset:
    """A loaded data set or task.

    ``X, y = dataset`` unpacks the design matrix and the labels (iteration yields
    exactly these two); the other fields are attributes:

    X
        scipy.sparse CSR matrix (float64) for text and LIBSVM data,
        numpy float64 array for dense numeric data.
    y
        labels (numpy array): the original labels for raw data sets,
        -1/+1 for derived binary tasks.
    description
        what the data are, where they come from, how they were encoded.
    name, subset
        registry name and the part loaded ("train", "test" or "all").
    feature_names
        names of the columns when they have names (vocabulary, one-hot
        attribute=value), else None.
    source_class
        for tasks built from several classes (four-class pools, one vs
        rest): the original class of every row, else None.
    """

    X: Any
    y: np.ndarray
    description: str
    name: str = ""
    subset: str = "all"
    feature_names: np.ndarray | None = None
    source_class: np.ndarray | None = None

    def __iter__(self):
        return iter((self.X, self.y))

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    def __repr__(self) -> str:
        kind = type(self.X).__name__
        try:
            counts = label_counts(self.y)
            labels = counts if len(counts) <= 20 else f"<{len(counts)} distinct>"
        except TypeError:  # multi-label tuples
            labels = "<multi-label>"
        return (
            f"Dataset(name={self.name!r}, subset={self.subset!r}, X={kind}{self.X.shape}, "
            f"labels={labels})"
        )


@dataclass(frozen=True)
class FourPhaseConfig:
    """The four classes of a four-phase stream (regularized online learning, section 4)."""

    P1: Any
    P2: Any
    N1: Any
    N2: Any
    n_per_phase: int


def label_counts(y) -> dict:
    """{label: count} in sorted label order (labels as plain Python values)."""
    values, counts = np.unique(np.asarray(y), return_counts=True)
    return {v.item() if hasattr(v, "item") else v: int(c) for v, c in zip(values, counts)}


def binary_labels(is_positive) -> np.ndarray:
    """+1 where ``is_positive`` is true, -1 elsewhere (int64)."""
    return np.where(np.asarray(is_positive, dtype=bool), 1, -1).astype(np.int64)
