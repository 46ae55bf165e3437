"""Small experiments of the part "Kernels and double updating" (book/duol/*).

* :func:`moons_stream` -- the running 2-D non-linear stream of the part.
* :func:`first_double_update` -- DUOL before and after its first double update.
* :func:`round_cost` -- wall-clock seconds per round against the support size,
  measured by feeding a stream in chunks to ``partial_fit``.
"""
import copy
import os
import time

import numpy as np
import pandas as pd
from sklearn.base import clone


def moons_stream(n=300, noise=0.2, random_state=0):
    """Two interleaving half-moons (``sklearn.datasets.make_moons``), labels in {-1, +1},
    in a random order: the running example of the kernel pages."""
    from sklearn.datasets import make_moons

    X, y = make_moons(n_samples=n, noise=noise, random_state=random_state)
    return X, np.where(y == 1, 1, -1)


def first_double_update(duol, X, y):
    """Run ``duol`` (a :class:`olearn.DUOL`, cloned) on ``(X, y)`` in order until the
    first round that finds an auxiliary example.

    Returns ``(before, after, t, b)``: copies of the learner before and after round
    ``t`` and the index ``b`` of the auxiliary example in ``before``'s support set.
    Raises if no round of the stream makes a double update.
    """
    est = clone(duol)
    classes = np.unique(y)
    for t in range(len(y)):
        before = copy.deepcopy(est)
        est.partial_fit(X[t:t + 1], y[t:t + 1], classes=classes)
        if est.n_double_updates_ == 1:
            old = before.dual_coef_.ravel()
            moved = np.flatnonzero(est.dual_coef_.ravel()[:old.size] != old)
            # gamma_b already at C cannot grow: take the auxiliary example from the rule
            b = int(moved[0]) if moved.size else _auxiliary_index(before, X[t], y[t])
            return before, est, t, b
    raise ValueError("no double update on this stream: lower rho or use a longer stream.")


def _auxiliary_index(before, x, y):
    from ..kernel.kernels import kernel_matrix

    row = kernel_matrix(x[None], before.support_vectors_, kernel=before.kernel,
                        sigma=before.sigma, degree=before.degree, coef0=before.coef0)[0]
    w = np.sign(before.dual_coef_.ravel()) * y * row
    w = np.where((before.scores_ <= 0) & (w < 0), w, np.inf)
    return int(np.argmin(w))


def load_average():
    """The 1-, 5- and 15-minute load averages of this machine (``os.getloadavg``)."""
    return tuple(float(v) for v in os.getloadavg())


def round_cost(learners, X, y, chunk=200, repeats=3):
    """Seconds per round against the support size, measured on this machine.

    Each learner (cloned) reads ``(X, y)`` in chunks of ``chunk`` rows through
    ``partial_fit``; a chunk is timed ``repeats`` times from a copy of the learner
    (the best time is kept: the least disturbed by other jobs) and the learner then
    continues from one of the copies.  One row per (learner, chunk): ``support``
    (mean support size over the chunk) and ``us_per_round`` (microseconds).
    The Python call per chunk is amortised over ``chunk`` rounds.
    """
    classes = np.unique(y)
    rows = []
    for name, learner in learners.items():
        est = clone(learner)
        est.partial_fit(X[:1], y[:1], classes=classes)     # compile and allocate
        for start in range(1, len(y) - chunk + 1, chunk):
            Xc, yc = X[start:start + chunk], y[start:start + chunk]
            s0 = est.n_support_
            best, after = np.inf, None
            for _ in range(repeats):
                trial = copy.deepcopy(est)
                tic = time.perf_counter()
                trial.partial_fit(Xc, yc)
                best = min(best, time.perf_counter() - tic)
                after = trial
            est = after
            rows.append({"learner": name, "support": 0.5 * (s0 + est.n_support_),
                         "us_per_round": 1e6 * best / chunk})
    return pd.DataFrame(rows)
