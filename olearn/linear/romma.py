"""ROMMA and aggressive ROMMA (Li and Long 1999, 2002).

The Relaxed Online Maximum Margin Algorithm keeps, instead of all past
constraints ``y_i w.x_i >= 1``, only the halfspace ``{w : w.w_t >= ||w_t||^2}``
that contains them (``w_t`` is the minimum-norm point of a convex set holding
every earlier constraint, so all of them lie on that side of it).  On an
update round it moves to

    w_{t+1} = argmin ||w||^2   s.t.   w.w_t >= ||w_t||^2,   y_t w.x_t >= 1.

With ``s = w_t.x_t``, ``X = ||x_t||^2``, ``W = ||w_t||^2`` the KKT conditions
give two cases:

* only the margin constraint is active, ``w_{t+1} = y_t x_t / X``; this is the
  minimiser exactly when it satisfies the first constraint, ``y_t s >= X W``
  (always on the first update, ``w_t = 0``);
* both constraints are active (``y_t s < X W``): ``w_{t+1} = c w_t + d x_t``
  with (Carvalho and Cohen 2006, section 2.1, eqs. 2-3; Li and Long 2002)

      c = (X W - y_t s) / (X W - s^2),     d = W (y_t - s) / (X W - s^2),

  which makes both constraints equalities.

ROMMA updates on mistakes (``y_t s <= 0``: the second case, except from
``w = 0``); aggressive ROMMA updates whenever ``y_t s < 1`` and can hit both
cases.  The denominator ``X W - s^2`` vanishes only when ``x_t`` is parallel to
``w_t``.  Same direction: the first case applies.  Opposite direction (a mistake
with ``x_t = -mu y_t w_t``): the two halfspaces are disjoint, i.e. the examples
seen so far are not linearly separable and the problem has no solution; olearn
then keeps only the newest constraint, ``w_{t+1} = y_t x_t / X`` (an O(d)
restart, see :func:`romma_coefficients`).  A zero row cannot satisfy
``y w.x >= 1`` and leaves ``w`` unchanged.

Exactness of ``W``.  olearn tracks ``W = ||w_t||^2`` along the updates
(O(1) per round) instead of recomputing it (O(d)).  On non-separable streams
ROMMA's ``W`` grows geometrically (``||w_{t+1}|| >= ||w_t||`` on every update;
10,000 Gaussian rows with 10% flipped labels take it from 1 to about 1e171,
and longer streams overflow float64 -- by design of the algorithm, not a
rounding effect) and the rounds become ill-conditioned (``x_t`` nearly
parallel to ``w_t``): the tracked ``c^2 W + 2 c d s + d^2 X`` and the
norm of the new vector differ by ``c^2`` times the error of ``W``, so a
relative error ``delta`` of ``W`` becomes ``kappa delta`` with
``kappa = c^2 W / ||w_{t+1}||^2`` (about 4 per update on that stream).
The pass keeps this error estimate (plus the rounding of each update) and
recomputes ``W``
from the vector when it exceeds :data:`NORM_TOL`, so every step is ROMMA's
step from the current ``w`` -- never a step with a drifted ``W`` (before this
check the tracked ``W`` reached 3.8e16 against a real 1.76 on that stream).
If ``W`` overflows, the pass raises :class:`olearn.base.NonFiniteModelError`.
"""
from numba import njit
import numpy as np

from .core import (HUGE, SQNORM, TINY, LinearClassifier, exact_sqnorm, predict_round,
                   refused_row, scale_add)

#: ``X W - s^2 <= PARALLEL_TOL * X W`` counts as ``x_t`` parallel to ``w_t``
#: (the difference is then at the level of its rounding error).
PARALLEL_TOL = 1e-12
#: estimated relative error of the tracked ``||w||^2`` above which it is
#: recomputed from the vector (see the module docstring)
NORM_TOL = 1e-10
_EPS = 2.0 ** -52


@njit(cache=True)
def romma_coefficients(score, sq, sqnorm, y):
    """``(c, d)`` of the ROMMA step ``w <- c w + d x_t`` (eqs. 2-3 and the cases above).

    ``score = w_t.x_t``, ``sq = ||x_t||^2``, ``sqnorm = ||w_t||^2``.  Call it on
    update rounds only; ``(1, 0)`` means no change (zero row).  ``c = 0``
    (dropping the old ``w``) costs O(d) through :func:`olearn.linear.rescale`.
    """
    if sq <= 0.0:
        return 1.0, 0.0
    xw = sq * sqnorm
    ys = y * score
    if ys >= xw:
        # margin constraint alone; from w = 0 keep c = 1 (nothing to drop)
        return (1.0 if sqnorm == 0.0 else 0.0), y / sq
    denom = xw - score * score
    if denom <= PARALLEL_TOL * xw:
        # x_t parallel to w_t with y_t s < X W: anti-parallel, the halfspaces
        # are disjoint (or, within rounding, y_t s = X W = 1 and this is the
        # margin-only solution anyway)
        return 0.0, y / sq
    return (xw - ys) / denom, sqnorm * (y - score) / denom


@njit(cache=True)
def norm_error_growth(c, d, score, sq, sqnorm, new):
    """``(kappa, rounding)`` of a step ``w <- c w + d x`` (module docstring).

    The tracked ``c^2 W + 2 c d s + d^2 X`` and the norm of the vector differ
    by ``c^2 (W_tracked - W_true)``, so a relative error ``delta`` of ``W``
    becomes ``kappa delta`` with ``kappa = c^2 W / ||w_{t+1}||^2``; the
    update's own rounding adds about ``eps`` times its cancellation ratio.
    """
    if new <= 0.0:
        return 0.0, 0.0
    magnitude = c * c * sqnorm + abs(2.0 * c * d * score) + d * d * sq
    return c * c * sqnorm / new, 4.0 * _EPS * magnitude / new


@njit(cache=True)
def romma_pass(X, y, v, z, state, mistakes, margins, aggressive, error):
    """One pass; ``error[0]`` is the estimated relative error of ``state[SQNORM]``."""
    n_updates = 0
    refused = -1  # the row the pass refused, if any
    for t in range(y.shape[0]):
        score, sq = predict_round(X, t, y[t], v, state, mistakes, margins)
        if not TINY <= sq <= HUGE:  # rare: check_values' tests, in the pass
            if refused_row(X, t, sq):
                refused = t
                break
        margin = y[t] * score
        if (margin < 1.0) if aggressive else (margin <= 0.0):
            c, d = romma_coefficients(score, sq, state[SQNORM], y[t])
            if d != 0.0:
                sqnorm = state[SQNORM]
                scale_add(X, t, c, d, v, z, state, score, sq)
                kappa, rounding = norm_error_growth(c, d, score, sq, sqnorm,
                                                    state[SQNORM])
                error[0] = kappa * error[0] + rounding
                if error[0] > NORM_TOL:
                    state[SQNORM] = exact_sqnorm(v, state)
                    error[0] = 0.0
                n_updates += 1
    return n_updates if refused < 0 else -1 - refused


class ROMMA(LinearClassifier):
    """Li and Long's ROMMA: minimum-norm ``w`` with ``w.w_t >= ||w_t||^2`` and ``y_t w.x_t >= 1``.

    Updates on mistakes (``y_t w_t.x_t <= 0``, a zero score counts, as for the
    Perceptron); see the module docstring for the update and its cases.  No bias
    and no hyper-parameter: add a constant feature for an intercept.  Sparse
    rounds cost O(nnz(x_t)) (``||w||^2`` is tracked along the updates).

    Parameters
    ----------
    n_epochs, shuffle, random_state, record
        As in :class:`olearn.Perceptron`.

    Examples
    --------
    >>> from olearn import ROMMA
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = ROMMA().fit(X, y)          # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 3)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    _aggressive = False

    def __init__(self, *, n_epochs=1, shuffle=False, random_state=None,
                 record="full"):
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    def _init_state(self, n_features):
        super()._init_state(n_features)
        self._norm_error = np.zeros(1)    # estimated relative error of ||w||^2

    def _learn(self, X, y, mistakes, margins):
        return romma_pass(X, y, self._v, self._z, self._state, mistakes,
                          margins, self._aggressive, self._norm_error)


class AggressiveROMMA(ROMMA):
    """Aggressive ROMMA (Li and Long 2002): the ROMMA step whenever ``y_t w_t.x_t < 1``.

    The projection then sometimes keeps only the margin constraint,
    ``w_{t+1} = y_t x_t / ||x_t||^2`` (when ``y_t w_t.x_t >= ||x_t||^2 ||w_t||^2``);
    see :mod:`olearn.linear.romma`.

    Parameters
    ----------
    n_epochs, shuffle, random_state, record
        As in :class:`olearn.Perceptron`.

    Examples
    --------
    >>> from olearn import AggressiveROMMA
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = AggressiveROMMA().fit(X, y)          # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 4)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, 1]
    """

    _aggressive = True
