"""The book's two running streams: one data split, one order and one preprocessing, defined once.

Every part of the book runs its learners at least once on these two streams, so a reader can
compare learners across parts on the same data with the same preprocessing; the closing
chapter for practitioners runs every learner of the library on both.

``spambase``
    UCI Spambase (4,601 e-mails x 57 word/character frequencies, spam = +1), the opening's
    mail filter. The data have no split: a fixed random quarter (seed :data:`SEED`,
    stratified by label) is held out as the test set.
``usps-3-vs-5``
    USPS digit 3 (+1) against digit 5 (-1), 16x16 grey levels, with the data's own
    train/test split (1,214 / 326 images).

Preprocessing (:func:`preprocess`, the same for both): every feature scaled to [-1, 1] by its
largest absolute value *on the training part* (``MaxAbsScaler``), then every row to unit
Euclidean norm (``Normalizer``, row by row, so it needs no fitting); no intercept. The test
part goes through the same fitted scaler. The online stream is the training part in the
order of :func:`order` (``np.random.default_rng([SEED, permutation])``, the pairing of
:func:`olearn.experiments.run`), so ``X_train[order(p)]`` is the stream that the runner's
permutation ``p`` feeds a learner.

The raw files come from the data home (``OLEARN_DATA_HOME``) and are checked against their
sha256 by :func:`olearn.datasets.load`; :func:`fingerprint` hashes the preprocessed arrays so
that a stored run can say it saw exactly these streams.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

#: the names of the running streams, in the order the book shows them
NAMES = ("spambase", "usps-3-vs-5")
#: seed of the spambase split and of every order
SEED = 0
#: fraction of spambase held out as its test set
SPAMBASE_TEST_FRACTION = 0.25

PREPROCESSING = ("MaxAbsScaler fitted on the training part (every feature to [-1, 1]), then "
                 "every row to unit Euclidean norm; no intercept")


@dataclass(frozen=True, eq=False)
class RunningStream:
    """One running stream: the preprocessed training part (the online stream, before its
    order is drawn), the preprocessed test part and what they are."""

    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    description: str

    def stream(self, permutation=0):
        """``(X, y)``: the training part in the order of permutation ``permutation``."""
        rows = order(len(self.y_train), permutation)
        return self.X_train[rows], self.y_train[rows]

    @property
    def n_features(self):
        return self.X_train.shape[1]


def order(n, permutation=0):
    """The order of permutation ``permutation`` of ``n`` training rows (the runner's pairing)."""
    return np.random.default_rng([SEED, permutation]).permutation(n)


def preprocess(X_train, X_test):
    """``(X_train, X_test)`` scaled as the module docstring says (scaler fitted on train)."""
    from sklearn.preprocessing import MaxAbsScaler, normalize

    scaler = MaxAbsScaler().fit(X_train)
    return (np.ascontiguousarray(normalize(scaler.transform(X_train))),
            np.ascontiguousarray(normalize(scaler.transform(X_test))))


def _spambase_split(y):
    """Indices ``(train, test)`` of the fixed stratified split of spambase."""
    rng = np.random.default_rng(SEED)
    test = []
    for label in np.unique(y):
        rows = np.flatnonzero(y == label)
        n_test = int(round(SPAMBASE_TEST_FRACTION * len(rows)))
        test.append(rng.choice(rows, size=n_test, replace=False))
    test = np.sort(np.concatenate(test))
    train = np.setdiff1d(np.arange(len(y)), test)
    return train, test


@lru_cache(maxsize=None)
def _load(name, data_home):
    from . import load

    if name == "spambase":
        X, y = load("spambase", data_home=data_home)
        X = np.asarray(X, dtype=np.float64)
        y = np.where(np.asarray(y) == 1, 1, -1)
        train, test = _spambase_split(y)
        X_train, X_test = preprocess(X[train], X[test])
        description = (f"UCI Spambase, spam = +1; a fixed stratified {SPAMBASE_TEST_FRACTION:.0%} "
                       f"test split (seed {SEED}); {PREPROCESSING}")
        return RunningStream(name, X_train, y[train], X_test, y[test], description)
    if name == "usps-3-vs-5":
        train = load(name, subset="train", data_home=data_home)
        test = load(name, subset="test", data_home=data_home)
        X_train, X_test = preprocess(np.asarray(train.X, dtype=np.float64),
                                     np.asarray(test.X, dtype=np.float64))
        description = f"USPS 3 (+1) vs 5 (-1), the data's train/test split; {PREPROCESSING}"
        return RunningStream(name, X_train, np.asarray(train.y), X_test, np.asarray(test.y),
                             description)
    raise ValueError(f"unknown running stream {name!r}; the running streams are {NAMES}.")


def running_stream(name, data_home=None):
    """The :class:`RunningStream` ``name`` (one of :data:`NAMES`); arrays are read-only."""
    stream = _load(name, None if data_home is None else str(data_home))
    for array in (stream.X_train, stream.y_train, stream.X_test, stream.y_test):
        array.flags.writeable = False
    return stream


def running_streams(data_home=None):
    """``{name: RunningStream}`` for both running streams, in the book's order.

    >>> streams = running_streams()
    >>> X, y = streams["spambase"].stream(permutation=0)      # the opening's mail stream
    """
    return {name: running_stream(name, data_home) for name in NAMES}


def fingerprint(stream):
    """sha256 of a running stream's preprocessed arrays (train, then test)."""
    digest = hashlib.sha256()
    for array in (stream.X_train, stream.y_train, stream.X_test, stream.y_test):
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def summary(streams=None):
    """One row per running stream: sizes, features, positive fraction (a pandas DataFrame)."""
    import pandas as pd

    streams = running_streams() if streams is None else streams
    rows = {name: {"train (stream)": len(s.y_train), "test": len(s.y_test),
                   "features": s.n_features,
                   "positive fraction": float(np.mean(s.y_train == 1))}
            for name, s in streams.items()}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "running stream"
    return table
