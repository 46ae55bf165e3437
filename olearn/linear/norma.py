"""NORMA, linear version (Kivinen, Smola and Williamson 2004, "Online learning with kernels").

NORMA is stochastic gradient descent on the instantaneous regularised risk
``lam/2 ||w||^2 + l(w.x_t, y_t)``.  For classification with the soft-margin
loss ``l = max(0, rho - y w.x)`` (KSW, section III, classification case) the
gradient step is

    w_{t+1} = (1 - eta_t lam) w_t + eta_t sigma_t y_t x_t,
    sigma_t = 1 if y_t w_t.x_t < rho else 0,

the kernel expansion ``f = sum_i alpha_i k(x_i, .)`` with ``alpha_i <- (1 - eta lam) alpha_i``
and ``alpha_t = eta sigma_t y_t`` written as a weight vector (the "linear NORMA"
baseline of the regularized online learning paper).  ``eta_t`` is constant
(KSW's mistake and tracking bounds) or ``eta / sqrt(t)`` (their regret bound),
with ``t`` counting every round seen.  Every round shrinks ``w``; with
``w = s v`` that is one multiplication of ``s`` (:func:`olearn.linear.scale_add`),
so a round costs O(nnz(x_t)).

Not implemented: KSW's unregularised offset ``b`` (add a constant feature,
which is then regularised too) and the nu-trick that adapts ``rho``.
"""
import math

from numba import njit

from .._rows import row_axpy, row_has_nonzero
from ..base import check_positive
from .core import (DRIFT_RATIO, HUGE, SCALE, SQNORM, SUM_SCALE, TINY, LinearClassifier,
                   exact_sqnorm, predict_round, refused_row, rescale)

SCHEDULES = ("constant", "sqrt")


@njit(cache=True)
def norma_coefficients(margin, eta, lam, rho, y):
    """``(a, b) = (1 - eta lam, eta sigma_t y_t)`` with ``sigma_t = [y_t w.x_t < rho]``."""
    return 1.0 - eta * lam, (eta * y if margin < rho else 0.0)


@njit(cache=True)
def norma_pass(X, y, v, z, state, mistakes, margins, eta, lam, rho,
               decay, t0):
    n_updates = 0
    refused = -1  # the row the pass refused, if any
    for t in range(y.shape[0]):
        score, sq = predict_round(X, t, y[t], v, state, mistakes, margins)
        if not TINY <= sq <= HUGE:  # rare: check_values' tests, in the pass
            if refused_row(X, t, sq):
                refused = t
                break
        eta_t = eta / math.sqrt(t0 + t + 1.0) if decay else eta
        a, b = norma_coefficients(y[t] * score, eta_t, lam, rho, y[t])
        # the round changes w if it shrinks a nonzero w or adds a nonzero row
        if ((a != 1.0 and state[SQNORM] > 0.0)
                or (b != 0.0 and (sq > 0.0 or row_has_nonzero(X, t)))):
            n_updates += 1
        # scale_add(X, t, a, b, ...) spelled out (see the speed note of
        # olearn.linear.core; tests/test_linear.py checks bit equality)
        cross = 2.0 * a * b * score
        tracked = a * a * state[SQNORM] + b * b * sq
        state[SQNORM] = max(0.0, tracked + cross)
        drifts = tracked + abs(cross) > DRIFT_RATIO * state[SQNORM]
        if a != 1.0:
            s = state[SCALE] * a
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
    return n_updates if refused < 0 else -1 - refused


class NORMA(LinearClassifier):
    """Linear NORMA: ``w <- (1 - eta_t lam) w + eta_t [y w.x < rho] y x`` (see :mod:`olearn.linear.norma`).

    ``n_updates_`` counts the rounds that changed ``w``: with ``lam > 0``
    every round once ``w != 0`` (the shrinkage), with ``lam = 0`` the rounds
    with ``sigma_t = 1`` and a nonzero row.

    Parameters
    ----------
    eta : float, default=0.1
        Learning rate (``eta_1`` for ``schedule="sqrt"``).
    lam : float, default=0.01
        Regularisation ``lambda >= 0``; ``eta * lam`` must be ``< 1``.
    rho : float, default=1.0
        Margin of the soft-margin loss ``max(0, rho - y w.x)``; must be > 0
        (with ``rho = 0`` the strict test ``y w.x < rho`` never fires from
        ``w = 0``).
    schedule : {"constant", "sqrt"}, default="constant"
        ``eta_t = eta`` or ``eta_t = eta / sqrt(t)``.
    n_epochs, shuffle, random_state, record
        As in :class:`olearn.Perceptron`.

    Examples
    --------
    >>> from olearn import NORMA
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = NORMA(eta=0.5, lam=0.01).fit(X, y)          # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 6)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    def __init__(self, eta=0.1, lam=0.01, rho=1.0, schedule="constant", *,
                 n_epochs=1, shuffle=False, random_state=None,
                 record="full"):
        self.eta = eta
        self.lam = lam
        self.rho = rho
        self.schedule = schedule
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    def _check_params(self):
        check_positive("eta", self.eta)
        check_positive("lam", self.lam, allow_zero=True)
        check_positive("rho", self.rho)
        if self.eta * self.lam >= 1:
            raise ValueError(
                f"eta * lam must be < 1 so that the shrinkage 1 - eta*lam is "
                f"positive, got eta={self.eta!r}, lam={self.lam!r}.")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {SCHEDULES}, "
                             f"got {self.schedule!r}.")

    def _learn(self, X, y, mistakes, margins):
        return norma_pass(X, y, self._v, self._z, self._state, mistakes,
                          margins, float(self.eta), float(self.lam),
                          float(self.rho), self.schedule == "sqrt",
                          float(self.n_rounds_))
