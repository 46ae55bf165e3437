"""ALMA_p(alpha): approximate large margin algorithm (Gentile 2001, JMLR 2:213-242).

With ``w_1 = 0`` and ``k = 1`` (one more than the number of updates so far),
Gentile's Figure 1 runs, for every example::

    x^_t = x_t / ||x_t||_p,
    gamma_k = B sqrt(p - 1) / sqrt(k),      eta_k = C / (sqrt(p - 1) sqrt(k)),
    if y_t w_k.x^_t <= (1 - alpha) gamma_k:
        w'_k    = f^{-1}(f(w_k) + eta_k y_t x^_t),
        w_{k+1} = w'_k / max(1, ||w'_k||_q),         k <- k + 1,

with ``1/p + 1/q = 1`` and the p-norm link ``f = grad (1/2)||.||_q^2``,
``f^{-1}(theta)_i = sign(theta_i) |theta_i|^{p-1} / ||theta||_p^{p-2}``; the
prediction is ``sign(w_k.x_t)``.

``p = 2``: ``f`` is the identity and the update is ``w <- a w + b x_t`` with
``a = 1/m``, ``b = eta_k y_t / (||x_t|| m)``, ``m = max(1, ||w + eta_k y_t x^_t||)``,
where ``||w + eta_k y_t x^_t||^2 = ||w||^2 + 2 eta_k y_t w.x_t / ||x_t|| + eta_k^2``
comes from the tracked ``||w||^2``: O(nnz(x_t)) per round.

``p > 2``: olearn keeps ``theta = f(w)`` (as a scale times a vector) and
``||theta||_p^p`` along the updates.  Since ``f^{-1}`` is 1-homogeneous and
``||f^{-1}(theta)||_q = ||theta||_p``, an update changes ``theta`` on the
nonzeros of ``x_t`` and then scales it by ``1/m``, ``m = max(1, ||theta'||_p)``;
the coordinates of ``w`` outside ``x_t`` are all multiplied by
``(||theta||_p / ||theta'||_p)^{p-2} / m``.  So ``p > 2`` is O(nnz(x_t)) per
round as well (one scale plus :func:`olearn.linear.move_coord` on the nonzeros;
O(d) only when the scale of ``theta`` has to be folded, rarely).

Defaults: ``B = 1/alpha`` and ``C = sqrt(2)``, as in River's and JSAT's ALMA.
A zero row has no normalised instance and is skipped (no update, ``k``
unchanged).
"""
import math

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..base import check_positive
from .core import SQNORM, LinearClassifier, move_coord, predict_round, scale_add

K, THETA_SCALE, THETA_NORM_P = 0, 1, 2


def row_entries(X, t):
    """``(indices, values)`` of row ``t`` (views for CSR; every column for dense)."""


@overload(row_entries, inline="always")
def _row_entries(X, t):
    if isinstance(X, types.BaseTuple):
        def impl(X, t):
            data, indices, indptr = X
            return indices[indptr[t]:indptr[t + 1]], data[indptr[t]:indptr[t + 1]]
        return impl

    def impl(X, t):
        return np.arange(X.shape[1]), X[t]
    return impl


@njit(cache=True)
def row_pnorm(X, t, p):
    """``||x_t||_p`` over the nonzeros of row ``t``."""
    _, values = row_entries(X, t)
    total = 0.0
    for k in range(values.shape[0]):
        total += abs(values[k]) ** p
    return total ** (1.0 / p)


@njit(cache=True)
def alma_schedule(k, p, B, C):
    """``(gamma_k, eta_k)`` of Gentile's Figure 1."""
    root = math.sqrt(p - 1.0)
    return B * root / math.sqrt(k), C / (root * math.sqrt(k))


@njit(cache=True)
def alma2_coefficients(score, norm_x, sqnorm, y, eta):
    """``(a, b)`` of the ALMA_2 step ``w <- (w + eta y x^) / max(1, ||w + eta y x^||)``."""
    sq_new = sqnorm + 2.0 * eta * y * score / norm_x + eta * eta
    m = max(1.0, math.sqrt(max(sq_new, 0.0)))
    return 1.0 / m, eta * y / (norm_x * m)


@njit(cache=True)
def link_inverse(theta_j, norm, p):
    """``f^{-1}(theta)_j = sign(theta_j) |theta_j|^{p-1} / ||theta||_p^{p-2}``."""
    if theta_j == 0.0:
        return 0.0
    value = abs(theta_j) ** (p - 1.0) / norm ** (p - 2.0)
    return value if theta_j > 0.0 else -value


@njit(cache=True)
def almap_update(X, t, step, p, v, z, state, theta, alma):
    """ALMA_p step for ``p > 2``: ``theta <- (theta + step x_t) / m``, ``w = f^{-1}(theta)``.

    ``step = eta_k y_t / ||x_t||_p``; see the module docstring.
    """
    sigma = alma[THETA_SCALE]
    norm_p = alma[THETA_NORM_P]
    old_norm = norm_p ** (1.0 / p)
    indices, values = row_entries(X, t)
    for k in range(values.shape[0]):
        if values[k] != 0.0:
            j = indices[k]
            old = sigma * theta[j]
            new = old + step * values[k]
            norm_p += abs(new) ** p - abs(old) ** p
            theta[j] = new / sigma
    norm_p = max(norm_p, 0.0)
    new_norm = norm_p ** (1.0 / p)
    m = max(1.0, new_norm)
    if new_norm == 0.0:
        a = 0.0
    elif old_norm == 0.0:
        a = 1.0
    else:
        a = (old_norm / new_norm) ** (p - 2.0) / m
    sigma /= m
    norm_p /= m ** p
    new_norm /= m
    scale_add(X, t, a, 0.0, v, z, state, 0.0, 0.0)
    for k in range(values.shape[0]):
        if values[k] != 0.0:
            j = indices[k]
            move_coord(j, link_inverse(sigma * theta[j], new_norm, p),
                       v, z, state)
    if sigma < 1e-100:
        theta *= sigma
        sigma = 1.0
        norm_p = np.sum(np.abs(theta) ** p)
    alma[THETA_SCALE] = sigma
    alma[THETA_NORM_P] = norm_p


@njit(cache=True)
def alma_pass(X, y, v, z, state, mistakes, margins, theta, alma, p, alpha, B, C):
    n_updates = 0
    for t in range(y.shape[0]):
        score, sq = predict_round(X, t, y[t], v, state, mistakes, margins)
        norm_x = math.sqrt(sq) if p == 2.0 else row_pnorm(X, t, p)
        if norm_x == 0.0:
            continue
        gamma, eta = alma_schedule(alma[K], p, B, C)
        if y[t] * score / norm_x <= (1.0 - alpha) * gamma:
            if p == 2.0:
                a, b = alma2_coefficients(score, norm_x, state[SQNORM], y[t], eta)
                scale_add(X, t, a, b, v, z, state, score, sq)
            else:
                almap_update(X, t, eta * y[t] / norm_x, p, v, z, state,
                             theta, alma)
            alma[K] += 1.0
            n_updates += 1
    return n_updates


class ALMA(LinearClassifier):
    """Gentile's ALMA_p(alpha; B, C), approximate maximal p-norm margin (see :mod:`olearn.linear.alma`).

    Updates when the normalised margin ``y_t w.x_t / ||x_t||_p`` is at most
    ``(1 - alpha) gamma_k``; ``w`` stays in the unit q-norm ball.  ALMA_2(0.9)
    is the DUOL paper's baseline.  No bias: add a constant feature for one.

    Parameters
    ----------
    p : float, default=2
        Norm of the instances (``p >= 2``; ``q = p/(p-1)`` for ``w``).  Gentile
        suggests ``p`` of order ``ln(n_features)`` for sparse targets.  It
        cannot change between ``partial_fit`` calls.
    alpha : float, default=0.9
        Approximation parameter in ``(0, 1]``: the margin sought is
        ``(1 - alpha)`` times the best one.
    B : float or None, default=None
        Margin scale, ``gamma_k = B sqrt(p-1) / sqrt(k)``; ``None`` is ``1/alpha``.
    C : float or None, default=None
        Step scale, ``eta_k = C / (sqrt(p-1) sqrt(k))``; ``None`` is ``sqrt(2)``.
    n_epochs, shuffle, random_state, record
        As in :class:`olearn.Perceptron`.

    Attributes
    ----------
    k_ : int
        Gentile's counter: number of updates so far plus one.
    """

    #: the state (theta, kept only for p > 2, and its norm) is tied to p
    _frozen_params = ("p",)

    def __init__(self, p=2, alpha=0.9, B=None, C=None, *, n_epochs=1,
                 shuffle=False, random_state=None,
                 record="full"):
        self.p = p
        self.alpha = alpha
        self.B = B
        self.C = C
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    def _check_params(self):
        check_positive("p", self.p)
        if self.p < 2:
            raise ValueError(f"p must be >= 2 (Gentile's ALMA_p), got {self.p!r}.")
        check_positive("alpha", self.alpha)
        if self.alpha > 1:
            raise ValueError(f"alpha must be in (0, 1], got {self.alpha!r}.")
        for name in ("B", "C"):
            if getattr(self, name) is not None:
                check_positive(name, getattr(self, name))

    def _init_state(self, n_features):
        super()._init_state(n_features)
        self._theta = np.zeros(0 if self.p == 2 else n_features)
        self._alma = np.array([1.0, 1.0, 0.0])

    @property
    def k_(self):
        return int(self._alma[K])

    def _learn(self, X, y, mistakes, margins):
        alpha = float(self.alpha)
        B = 1.0 / alpha if self.B is None else float(self.B)
        C = math.sqrt(2.0) if self.C is None else float(self.C)
        return alma_pass(X, y, self._v, self._z, self._state, mistakes, margins,
                         self._theta, self._alma, float(self.p), alpha, B, C)

