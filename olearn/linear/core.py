"""Linear primal learners: the model is one weight vector ``w``.

Every first-order learner in olearn moves ``w`` by a rule of the form

    w  <-  a w + b x_t,

(Perceptron and PA: ``a = 1``; NORMA and the regularized learners shrink
with ``a < 1``).  To keep a sparse round O(nnz(x_t)) the vector is stored as
``w = s v`` with a scalar ``s`` (``state[0]``); ``state[1]`` tracks
``||w||^2`` exactly along the updates, for the learners whose rule needs it.
The two compiled helpers below are the whole per-round bookkeeping; a learner
supplies only its ``(a, b)``.

Averaging (:class:`olearn.Averaged`) rides on the same helpers.  The average
of the hypotheses after each round, ``(1/T) sum_{t=1..T} w_{t+1}``, is kept
lazily: with ``S = sum_k s_k`` the running sum of scales (``state[2]``) and a
vector ``z`` that receives ``S * dv`` whenever ``v`` moves by ``dv``, the sum
of hypotheses is ``(S + s) v - z`` at any time, O(nnz) per round.  Learners
that change single coordinates outside ``scale_add`` call ``move_coord``.
When averaging is off, ``z`` has length 0 and costs nothing.

Speed note: the Perceptron, PA and NORMA loops spell out :func:`scale_add`
(the ``a = 1`` case for Perceptron and PA) in their own body.  A call to a
compiled helper that loops over the row keeps array reference counting and
argument passing around that loop: 38 ms instead of 28 ms for one PA-I pass
over the 200,000-row sparse benchmark stream, and for NORMA's pass about
100 ms instead of 75 ms.  Measured alternatives that did not recover it on
this machine: IR-level inlining (``@njit(inline="always")``, about 93 ms),
an ``@overload(inline="always")`` helper, and ``error_model="numpy"`` (no
exception paths) on the helper and the pass (no gain).  ``tests/test_linear.py``
checks that each spelled-out form equals :func:`scale_add` bit for bit.
"""
import numpy as np
import scipy.sparse as sp
from numba import njit

from .._checks import _HUGE, _TINY
from .._rows import (csr_dot_scaled, dense_scores, row_axpy, row_dot_sq, row_has_nonzero,
                     sparse_scores)
from ..base import OnlineClassifier

SCALE, SQNORM, SUM_SCALE = 0, 1, 2
#: when a learner with ``update_on=`` solves its round's program: on every
#: round, or on mistakes (``y_t w_t.x_t <= 0``) only
UPDATE_ON = ("round", "mistake")


@njit(cache=True)
def predict_round(X, t, y, v, state, mistakes, margins):
    """Score row ``t`` with the current ``w``; record the round.

    Returns ``(score, ||x_t||^2)``.
    """
    state[SUM_SCALE] += state[SCALE]
    dot, sq = row_dot_sq(X, t, v)
    score = state[SCALE] * dot
    mistakes[t] = (score > 0.0) != (y > 0.0)
    margins[t] = y * score
    return score, sq


#: the normal range of float64, which ``||x_t||^2`` must not leave (the
#: bounds of :func:`olearn._checks.check_values`)
TINY, HUGE = _TINY, _HUGE


@njit(inline="always")
def refused_row(X, t, sq):
    """Whether row ``t`` fails the input tests of :func:`olearn._checks.check_values`.

    ``sq`` is ``||x_t||^2`` as :func:`predict_round` sums it, which is the sum
    ``check_values`` bounds, term for term: NaN or inf iff a value of the row
    is NaN or infinite or the sum overflows; below the smallest normal float
    for a nonzero row (0 < sq, or an underflow to 0) when it underflows.  So
    a pass that tests every row before using it makes the up-front scan of
    the values unnecessary (``_values_checked_in_pass``).  Each pass calls it
    only when ``sq`` is outside ``[TINY, HUGE]`` and leaves its loop with
    ``break`` at a refused row, returning ``-1 - t`` after it::

        if not TINY <= sq <= HUGE:
            if refused_row(X, t, sq):
                refused = t
                break

    (measured on the Perceptron's pass: with the range test inside this
    function, or a ``return`` in the loop, the pass is 8-10% slower; written
    so, it costs nothing measurable).
    """
    if not sq <= HUGE:
        return True
    return sq > 0.0 or row_has_nonzero(X, t)


#: ``||a w + b x||^2`` is tracked as ``a^2 ||w||^2 + 2ab w.x + b^2 ||x||^2``;
#: when the terms cancel so that their magnitude exceeds the result by this
#: factor (more than 6 of 16 digits lost), ``||w||^2`` is recomputed from the
#: vector instead (O(d), only on such rounds).
DRIFT_RATIO = 1e6


@njit(cache=True)
def exact_sqnorm(v, state):
    """``||w||^2 = s^2 sum_j v_j^2`` from the vector (O(d))."""
    total = 0.0
    for j in range(v.shape[0]):
        total += v[j] * v[j]
    return state[SCALE] * state[SCALE] * total


@njit(cache=True)
def scale_add(X, t, a, b, v, z, state, score, sq):
    """``w <- a w + b x_t`` for ``w = s v``; ``score = w . x_t`` before it.

    ``||w||^2`` follows the update in O(1), or is recomputed from the vector
    when the update cancels (see :data:`DRIFT_RATIO`).
    """
    cross = 2.0 * a * b * score
    tracked = a * a * state[SQNORM] + b * b * sq
    state[SQNORM] = max(0.0, tracked + cross)
    drifts = tracked + abs(cross) > DRIFT_RATIO * state[SQNORM]
    if a != 1.0:
        s = state[SCALE] * a
        # With averaging, (S + s) v - z loses about log10(1/|s|) digits: fold
        # early (O(d) every log(1e5)/log(1/a) rounds) to keep the loss bounded.
        low = 1e-5 if z.shape[0] else 1e-100
        if s == 0.0 or abs(s) < low or abs(s) > 1e100:
            rescale(v, z, state, s)
        else:
            state[SCALE] = s
    if b != 0.0:
        step = b / state[SCALE]
        row_axpy(X, t, step, v)
        if z.shape[0]:
            row_axpy(X, t, step * state[SUM_SCALE], z)
    if drifts:
        state[SQNORM] = exact_sqnorm(v, state)


@njit(cache=True)
def rescale(v, z, state, s):
    """Fold the scale ``s`` into ``v`` (O(d); only when ``s`` under/overflows).

    The running average restarts its accumulators from the sum so far.
    """
    # explicit loops: array expressions here cost seconds of compile time
    if z.shape[0]:
        for j in range(z.shape[0]):
            z[j] -= state[SUM_SCALE] * v[j]
        state[SUM_SCALE] = 0.0
    for j in range(v.shape[0]):
        v[j] *= s
    state[SCALE] = 1.0


@njit(cache=True)
def move_coord(j, value, v, z, state):
    """Set ``w_j = value`` (for updates that are not ``a w + b x``)."""
    delta = value / state[SCALE] - v[j]
    state[SQNORM] = max(0.0, state[SQNORM] + value * value
                        - (state[SCALE] * v[j]) ** 2)
    v[j] += delta
    if z.shape[0]:
        z[j] += delta * state[SUM_SCALE]


class LinearClassifier(OnlineClassifier):
    """Base of the learners whose model is a weight vector ``coef_``."""

    _averaging = False
    #: every pass tests each row with :func:`refused_row` before using it
    _values_checked_in_pass = True

    def _init_state(self, n_features):
        self._v = np.zeros(n_features)
        self._z = np.zeros(n_features if self._averaging else 0)
        self._state = np.array([1.0, 0.0, 0.0])

    def _model_arrays(self):
        return (self._v, self._z, self._state)

    @property
    def coef_(self):
        """The weight vector ``w`` as a ``(1, n_features)`` array."""
        return (self._state[SCALE] * self._v)[np.newaxis, :]

    def _decision(self, X):
        """``X w``.  CSR rows are scored from ``w = s v`` as stored, in
        O(nnz(X)) (:func:`olearn._rows.csr_dot_scaled`, bit for bit ``X @
        coef_``); dense rows on ``coef_`` in the same order
        (:func:`olearn._rows.dense_scores`), whatever the layout."""
        if sp.issparse(X):
            return sparse_scores(csr_dot_scaled, X, self._v, self._state[SCALE])
        return dense_scores(X, self.coef_.ravel())

    def _average(self):
        """``(1/T) sum_t w_{t+1}`` over the rounds seen (needs averaging on)."""
        s, sum_s = self._state[SCALE], self._state[SUM_SCALE]
        total = (sum_s + s) * self._v - self._z
        return total / max(self.n_rounds_, 1)
