"""Orders and perturbations of data streams: random permutations, label noise, and the
four-phase non-stationary stream of "Online large-margin learning with regularization"
(SIAM SDM), section 4.

The four-phase process. Four classes P1, P2 (positive, +1) and N1, N2 (negative, -1);
each phase has ``n_per_phase`` instances, and inside a phase the class probabilities
move linearly from their start to their end value (instance ``t`` of ``n`` gets the
fraction ``t / (n - 1)`` of the way):

=======  ==========  ==========  ==========  ==========
phase    P1          P2          N1          N2
=======  ==========  ==========  ==========  ==========
1        0.7 -> 0.5  0           0.3 -> 0.5  0
2        0.5 -> 0.3  0 -> 0.2    0.5         0
3        0           0.5         0.2 -> 0     0.3 -> 0.5
4        0           0.5 -> 0.3  0           0.5 -> 0.7
=======  ==========  ==========  ==========  ==========

Each instance's class is drawn with these probabilities, then an instance of that class
is drawn from the pool *without replacement*: every class's instances are visited in a
random order, and only when all of them have been used does a new random pass start.
On average each class is drawn ``n_per_phase`` times in the whole stream. The sequence
of drawn classes depends only on ``random_state`` and ``n_per_phase`` (not on the pool),
so two pools sampled with the same seed get the same label sequence.
"""
from __future__ import annotations

import numbers
from typing import Any, NamedTuple

import numpy as np

# (start, end) probability of (P1, P2, N1, N2) in each phase; see the module docstring.
FOUR_PHASE_SCHEDULE = (
    ((0.7, 0.5), (0.0, 0.0), (0.3, 0.5), (0.0, 0.0)),
    ((0.5, 0.3), (0.0, 0.2), (0.5, 0.5), (0.0, 0.0)),
    ((0.0, 0.0), (0.5, 0.5), (0.2, 0.0), (0.3, 0.5)),
    ((0.0, 0.0), (0.5, 0.3), (0.0, 0.0), (0.5, 0.7)),
)


class FourPhaseStream(NamedTuple):
    """A sampled four-phase stream: ``X, y, phase, source_class = stream``.

    X             rows of the pool in stream order (CSR stays CSR, arrays stay arrays).
    y             +1 for P1/P2, -1 for N1/N2 (int64).
    phase         1, 2, 3 or 4 for every row.
    source_class  the pool class (P1, P2, N1 or N2 label) of every row.
    """

    X: Any
    y: np.ndarray
    phase: np.ndarray
    source_class: np.ndarray


def _generator(random_state) -> np.random.Generator:
    """A numpy Generator from None, an int seed, a SeedSequence, a Generator or a RandomState."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    if random_state is None or isinstance(random_state, (numbers.Integral, np.random.SeedSequence)):
        if isinstance(random_state, numbers.Integral) and random_state < 0:
            raise ValueError(f"random_state must be non-negative, got {random_state}")
        return np.random.default_rng(random_state)
    raise TypeError(f"random_state must be None, an int or a numpy Generator, got {random_state!r}")


def _positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def permutations(n: int, n_perm: int, random_state=None) -> np.ndarray:
    """``n_perm`` random orders of ``n`` examples: an int64 array of shape (n_perm, n).

    Row ``k`` is ``np.random.default_rng([random_state, k]).permutation(n)``, the
    order :func:`olearn.experiments.run` uses for its permutation ``k``: row ``k``
    does not depend on ``n_perm``, and a quick run's orders are a full run's first
    ones (papers average over e.g. 20 random permutations of each data set).
    """
    n = _positive_int(n, "n")
    n_perm = _positive_int(n_perm, "n_perm")
    if random_state is None:
        random_state = int(np.random.SeedSequence().entropy % (2**32))
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral) or random_state < 0:
        raise ValueError(f"random_state must be a non-negative int or None, got {random_state!r}")
    orders = [np.random.default_rng([int(random_state), k]).permutation(n) for k in range(n_perm)]
    return np.stack(orders).astype(np.int64)


def label_noise(y, rate: float, random_state=None) -> np.ndarray:
    """A copy of ``y`` with exactly ``round(rate * len(y))`` labels flipped.

    The flipped positions are drawn uniformly without replacement; a flipped label takes
    the other of the two class values present in ``y`` (any two values: -1/+1, 0/1,
    strings). ``rate`` must be in [0, 1]; flipping needs two classes in ``y``.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one-dimensional, got shape {y.shape}")
    if isinstance(rate, bool) or not isinstance(rate, numbers.Real) or not 0.0 <= rate <= 1.0:
        raise ValueError(f"rate must be a number in [0, 1], got {rate!r}")
    classes = np.unique(y)
    n_flip = round(rate * len(y))
    noisy = y.copy()
    if n_flip == 0:
        return noisy
    if len(classes) != 2:
        raise ValueError(f"label_noise needs exactly two classes in y, got {len(classes)}: {classes[:5]}")
    rows = _generator(random_state).choice(len(y), size=n_flip, replace=False)
    noisy[rows] = np.where(y[rows] == classes[0], classes[1], classes[0])
    return noisy


def four_phase_probabilities(n_per_phase: int) -> np.ndarray:
    """Class probabilities of every stream position: shape (4 * n_per_phase, 4), columns
    (P1, P2, N1, N2), rows summing to 1 (see the module docstring)."""
    n = _positive_int(n_per_phase, "n_per_phase")
    fraction = np.arange(n) / (n - 1) if n > 1 else np.zeros(1)
    blocks = []
    for phase in FOUR_PHASE_SCHEDULE:
        start = np.array([s for s, _ in phase])
        end = np.array([e for _, e in phase])
        blocks.append(start * (1.0 - fraction[:, None]) + end * fraction[:, None])
    probabilities = np.vstack(blocks)
    return probabilities / probabilities.sum(axis=1, keepdims=True)


def _draw_classes(probabilities: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Index of the drawn class for every row of ``probabilities`` (zero-probability
    classes are never drawn)."""
    cumulative = np.cumsum(probabilities, axis=1)
    # once no probability is left to the right, the cumulative sum is exactly 1
    remaining = np.cumsum(probabilities[:, ::-1], axis=1)[:, ::-1]
    cumulative[np.append(remaining[:, 1:], np.zeros((len(probabilities), 1)), axis=1) == 0] = 1.0
    u = rng.random(len(probabilities))
    return (u[:, None] >= cumulative).sum(axis=1)


def four_phase_stream(X, y_class, P1, P2, N1, N2, n_per_phase: int, random_state=None) -> FourPhaseStream:
    """Sample the four-phase non-stationary stream of [REG] section 4 from a pool.

    X
        pool of instances (array or sparse matrix), one row per instance.
    y_class
        class of every pool row; P1, P2, N1, N2 must be four distinct values
        present in it (other classes are ignored).
    n_per_phase
        instances per phase (the paper: 500 for USPS, 800 for text).

    Returns ``FourPhaseStream(X, y, phase, source_class)`` with ``4 * n_per_phase`` rows;
    see the module docstring for the schedule and the sampling without replacement.
    """
    n = _positive_int(n_per_phase, "n_per_phase")
    y_class = np.asarray(y_class)
    if not hasattr(X, "shape"):
        X = np.asarray(X)
    if X.shape[0] != len(y_class):
        raise ValueError(f"X has {X.shape[0]} rows but y_class has {len(y_class)} labels")
    classes = [P1, P2, N1, N2]
    if len({repr(c) for c in classes}) != 4:
        raise ValueError(f"P1, P2, N1, N2 must be four different classes, got {classes}")
    pools = []
    for label in classes:
        rows = np.flatnonzero(y_class == label)
        if len(rows) == 0:
            raise ValueError(f"class {label!r} does not occur in y_class")
        pools.append(rows)
    rng = _generator(random_state)
    drawn = _draw_classes(four_phase_probabilities(n), rng)
    index = np.empty(len(drawn), dtype=np.int64)
    for k, rows in enumerate(pools):
        positions = np.flatnonzero(drawn == k)
        passes = -(-len(positions) // len(rows))  # ceil: new random pass once a class is used up
        order = np.concatenate([rng.permutation(rows) for _ in range(max(passes, 1))])
        index[positions] = order[: len(positions)]
    y = np.where(drawn < 2, 1, -1).astype(np.int64)
    phase = np.repeat(np.arange(1, 5), n)
    return FourPhaseStream(X[index], y, phase, y_class[index])
