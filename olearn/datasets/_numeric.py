"""Loaders for numeric data: LIBSVM files, spambase, USPS and MNIST digits, digit tasks.

Parsed files are cached per process, keyed by the file's content identity (path,
size, inode, times: a repaired file is parsed again; see
:func:`olearn.datasets._fetch.cached_by_content`); every load returns fresh copies, so
callers may modify what they get.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._fetch import cached_by_content
from ._base import Loaded, binary_labels


def _integral_labels(y: np.ndarray) -> np.ndarray:
    """Float labels that are whole numbers become int64 (LIBSVM files store -1, +1, 0, 1)."""
    return y.astype(np.int64) if np.all(np.mod(y, 1) == 0) else y


def _pick(paths: dict, stem: str) -> Path:
    """The path whose relative name ends with ``stem``."""
    for rel, path in paths.items():
        if rel.endswith(stem):
            return path
    raise KeyError(stem)


@cached_by_content
def _read_svmlight(path: str, n_features: int):
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(path, n_features=n_features, dtype=np.float64)
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sort_indices()
    return X, _integral_labels(y)


def libsvm_loader(train_file: str, test_file: str | None, n_features: int):
    """Loader of a LIBSVM data set (CSR, labels as in the file); subsets train/test/all."""

    def load(paths, subset, features=None):
        parts = {"train": [train_file], "test": [test_file], "all": [train_file, test_file]}[subset]
        read = [_read_svmlight(str(_pick(paths, f)), n_features) for f in parts if f]
        X = sp.vstack([r[0] for r in read], format="csr") if len(read) > 1 else read[0][0].copy()
        y = np.concatenate([r[1] for r in read])
        return Loaded(X, y)

    return load


@cached_by_content
def _read_table(path: str, sep: str, comment: str | None):
    import pandas as pd

    table = pd.read_csv(path, sep=sep, header=None, comment=comment, dtype=np.float64)
    values = table.to_numpy()
    values.flags.writeable = False  # shared by later loads, which copy what they return
    return values


def load_spambase(paths, subset, features=None):
    """UCI Spambase: 57 frequency/run-length features (dense), label 1 = spam, 0 = not."""
    values = _read_table(str(_pick(paths, "spambase.data.gz")), ",", None)
    return Loaded(values[:, :-1].copy(), values[:, -1].astype(np.int64))


def _digits(paths, subset, kind):
    if kind == "usps":
        names = {"train": ["zip.train.gz"], "test": ["zip.test.gz"]}
        names["all"] = names["train"] + names["test"]
        tables = [_read_table(str(_pick(paths, n)), " ", None) for n in names[subset]]
        values = np.vstack(tables) if len(tables) > 1 else tables[0]
    else:
        values = _read_table(str(_pick(paths, "mnist10k.csv.gz")), ",", "#")
    return values[:, 1:], values[:, 0].astype(np.int64)


def digits_loader(kind: str):
    """Raw digits: ``usps`` (256 grey levels in [-1, 1]) or ``mnist`` (784 pixels 0-255)."""

    def load(paths, subset, features=None):
        X, y = _digits(paths, subset, kind)
        return Loaded(X.copy(), y)

    return load


def digit_pair_loader(kind: str, positive: int, negative: int):
    """Digit ``positive`` (+1) against digit ``negative`` (-1), rows in file order."""

    def load(paths, subset, features=None):
        X, y = _digits(paths, subset, kind)
        keep = (y == positive) | (y == negative)
        return Loaded(X[keep], binary_labels(y[keep] == positive), source_class=y[keep])

    return load


def digit_vs_rest_loader(kind: str, positive: int):
    """Digit ``positive`` (+1) against all other digits (-1)."""

    def load(paths, subset, features=None):
        X, y = _digits(paths, subset, kind)
        return Loaded(X.copy(), binary_labels(y == positive), source_class=y.copy())

    return load


def digit_four_class_loader(kind: str, positives: tuple, negatives: tuple):
    """The rows of four digits; +1 for ``positives``, -1 for ``negatives``; source_class = digit."""

    def load(paths, subset, features=None):
        X, y = _digits(paths, subset, kind)
        keep = np.isin(y, positives + negatives)
        return Loaded(X[keep], binary_labels(np.isin(y[keep], positives)), source_class=y[keep])

    return load
