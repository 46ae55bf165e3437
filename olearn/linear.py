"""Linear primal learners: the model is one weight vector ``w``.

Every first-order learner in olearn moves ``w`` by a rule of the form

    w  <-  a w + b x_t,

(Perceptron and PA: ``a = 1``; NORMA and the regularized learners shrink
with ``a < 1``).  To keep a sparse round O(nnz(x_t)) the vector is stored as
``w = s v`` with a scalar ``s`` (``state[0]``); ``state[1]`` tracks
``||w||^2`` exactly along the updates, for the learners whose rule needs it.
The two compiled helpers below are the whole per-round bookkeeping; a learner
supplies only its ``(a, b)``.
"""
import numpy as np
from numba import njit
from sklearn.utils.extmath import safe_sparse_dot

from ._rows import row_axpy, row_dot_sq
from .base import OnlineClassifier

SCALE, SQNORM = 0, 1


@njit(cache=True)
def predict_round(X, t, y, v, state, mistakes, margins):
    """Score row ``t`` with the current ``w``; record the round.

    Returns ``(score, ||x_t||^2)``.
    """
    dot, sq = row_dot_sq(X, t, v)
    score = state[SCALE] * dot
    mistakes[t] = (score > 0.0) != (y > 0.0)
    margins[t] = y * score
    return score, sq


@njit(cache=True)
def scale_add(X, t, a, b, v, state, score, sq):
    """``w <- a w + b x_t`` for ``w = s v``; ``score = w . x_t`` before it."""
    state[SQNORM] = max(0.0, a * a * state[SQNORM] + 2.0 * a * b * score
                        + b * b * sq)
    if a != 1.0:
        s = state[SCALE] * a
        if s == 0.0:
            v[:] = 0.0
            s = 1.0
        elif abs(s) < 1e-100 or abs(s) > 1e100:
            v *= s
            s = 1.0
        state[SCALE] = s
    if b != 0.0:
        row_axpy(X, t, b / state[SCALE], v)


class LinearClassifier(OnlineClassifier):
    """Base of the learners whose model is a weight vector ``coef_``."""

    def _init_state(self, n_features):
        self._v = np.zeros(n_features)
        self._state = np.array([1.0, 0.0])

    @property
    def coef_(self):
        """The weight vector ``w`` as a ``(1, n_features)`` array."""
        return (self._state[SCALE] * self._v)[np.newaxis, :]

    def _decision(self, X):
        return safe_sparse_dot(X, self._state[SCALE] * self._v)
