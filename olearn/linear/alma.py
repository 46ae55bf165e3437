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
``||theta||_p`` along the updates.  Since ``f^{-1}`` is 1-homogeneous and
``||f^{-1}(theta)||_q = ||theta||_p``, an update changes ``theta`` on the
nonzeros of ``x_t`` and then scales it by ``1/m``, ``m = max(1, ||theta'||_p)``;
the coordinates of ``w`` outside ``x_t`` are all multiplied by
``(||theta||_p / ||theta'||_p)^{p-2} / m``.  So ``p > 2`` is O(nnz(x_t)) per
round as well (one scale plus :func:`olearn.linear.move_coord` on the nonzeros;
O(d) only when the scale of ``theta`` has to be folded, rarely).

Exactness for ``p > 2``.  The p-th powers are taken of ratios ``|theta_j| /
REF`` (``REF`` a recent value of ``||theta||_p``) and ``f^{-1}`` as
``||theta||_p (|theta_j| / ||theta||_p)^{p-1}``, so nothing under- or
overflows for ``p`` up to :data:`P_MAX`.  The tracked sum loses digits when
large terms cancel (an incremental ``||theta||_p^p`` drifted for ``p >= 6``
on long dense streams: at ``p = 10``, ``w`` was 58% away from
``f^{-1}(theta)`` after 300,000 rounds), so olearn keeps an estimate of its
relative error and recomputes it from the vector (O(d)) when the estimate
exceeds 1e-12, and at least every 10,000 updates; when the factor of the
coordinates outside ``x_t`` leaves ``[1e-100, 1e100]``, ``w`` is rebuilt as
``f^{-1}(theta)`` on every coordinate.  Every step is then Figure 1's step
from the current ``theta`` to rounding (tests compare each round with a
numpy implementation of Figure 1 for ``p`` up to 100).

Defaults: ``B = 1/alpha`` and ``C = sqrt(2)``, as in River's and JSAT's ALMA.
A zero row has no normalised instance and is skipped (no update, ``k``
unchanged).
"""
import math

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..base import check_positive
from .core import (HUGE, SQNORM, TINY, LinearClassifier, exact_sqnorm, move_coord,
                   predict_round, refused_row, scale_add)

#: slots of the ALMA state: Gentile's k; the scale of theta; ``||theta||_p`` is
#: ``REF * S^(1/p)`` with ``S = sum_j (|theta_j| / REF)^p`` tracked along the
#: updates; the estimated relative error of ``S``; updates since ``S`` was
#: last recomputed from the vector
K, THETA_SCALE, REF, S, ERR, SINCE = 0, 1, 2, 3, 4, 5
#: ``p`` must lie in ``[2, P_MAX]`` (see :class:`ALMA`)
P_MAX = 100.0
#: recompute ``||theta||_p`` from the vector (O(d)) when the estimated relative
#: error of the tracked sum exceeds NORM_TOL, when it leaves [S_LOW, S_HIGH],
#: and at least every RECOMPUTE_EVERY updates
NORM_TOL = 1e-12
S_LOW, S_HIGH = 1e-200, 1e200
RECOMPUTE_EVERY = 10_000
#: rebuild ``w = f^{-1}(theta)`` on every coordinate (O(d)) when the factor of
#: the coordinates outside ``x_t`` leaves [A_LOW, A_HIGH]
A_LOW, A_HIGH = 1e-100, 1e100
EPS = 2.0 ** -52


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
    """``||x_t||_p`` over the nonzeros of row ``t``, scaled by ``max |x_tj|``
    so that no power under- or overflows."""
    _, values = row_entries(X, t)
    top = 0.0
    for k in range(values.shape[0]):
        top = max(top, abs(values[k]))
    if top == 0.0:
        return 0.0
    total = 0.0
    for k in range(values.shape[0]):
        total += (abs(values[k]) / top) ** p
    return top * total ** (1.0 / p)


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
    """``f^{-1}(theta)_j = sign(theta_j) |theta_j|^{p-1} / ||theta||_p^{p-2}``,
    computed as ``norm (|theta_j|/norm)^{p-1}`` (the ratio is <= 1: no overflow;
    it underflows only where ``w_j`` is below 1e-308 of ``||theta||_p``)."""
    if theta_j == 0.0 or norm == 0.0:
        return 0.0
    value = norm * (abs(theta_j) / norm) ** (p - 1.0)
    return value if theta_j > 0.0 else -value


@njit(cache=True)
def recompute_theta_norm(theta, p, alma):
    """Exact ``||theta||_p`` from the vector (O(d)): ``REF`` becomes it, ``S = 1``."""
    top = 0.0
    for j in range(theta.shape[0]):
        top = max(top, abs(theta[j]))
    if top == 0.0:
        alma[REF] = 0.0
        alma[S] = 0.0
    else:
        total = 0.0
        for j in range(theta.shape[0]):
            total += (abs(theta[j]) / top) ** p
        alma[REF] = abs(alma[THETA_SCALE]) * top * total ** (1.0 / p)
        alma[S] = 1.0
    alma[ERR] = 0.0
    alma[SINCE] = 0.0


@njit(cache=True)
def theta_norm(alma, p):
    """``||theta||_p = REF * S^(1/p)`` from the tracked state."""
    if alma[REF] == 0.0 or alma[S] <= 0.0:
        return 0.0
    return alma[REF] * alma[S] ** (1.0 / p)


@njit(cache=True)
def set_w_from_theta(p, v, z, state, theta, alma):
    """``w = f^{-1}(theta)`` on every coordinate (O(d)), exactly."""
    norm = theta_norm(alma, p)
    sigma = alma[THETA_SCALE]
    for j in range(theta.shape[0]):
        move_coord(j, link_inverse(sigma * theta[j], norm, p), v, z, state)
    state[SQNORM] = exact_sqnorm(v, state)


@njit(cache=True)
def almap_update(X, t, step, p, v, z, state, theta, alma):
    """ALMA_p step for ``p > 2``: ``theta <- (theta + step x_t) / m``, ``w = f^{-1}(theta)``.

    ``step = eta_k y_t / ||x_t||_p``; see the module docstring.  O(nnz(x_t)),
    or O(d) when the tracked norm is recomputed or ``w`` is rebuilt.
    """
    sigma = alma[THETA_SCALE]
    old_norm = theta_norm(alma, p)
    ref = alma[REF]
    indices, values = row_entries(X, t)
    added = 0.0
    for k in range(values.shape[0]):
        if values[k] != 0.0:
            j = np.uintp(indices[k])
            old = sigma * theta[j]
            new = old + step * values[k]
            if ref > 0.0:
                gain = (abs(new) / ref) ** p
                loss = (abs(old) / ref) ** p
                alma[S] += gain - loss
                added += gain + loss
            theta[j] = new / sigma
    alma[SINCE] += 1.0
    if ref > 0.0 and alma[S] > 0.0:
        # (|theta_j|/REF)^p carries a relative rounding error of about p eps
        alma[ERR] += (p + 4.0) * EPS * added / alma[S]
    if (ref == 0.0 or not (S_LOW < alma[S] < S_HIGH) or alma[ERR] > NORM_TOL
            or alma[SINCE] >= RECOMPUTE_EVERY):
        recompute_theta_norm(theta, p, alma)
    new_norm = theta_norm(alma, p)
    m = max(1.0, new_norm)
    if new_norm == 0.0:
        a = 0.0
    elif old_norm == 0.0:
        a = 1.0
    else:
        a = (old_norm / new_norm) ** (p - 2.0) / m
    alma[THETA_SCALE] = sigma / m
    alma[REF] /= m
    new_norm /= m
    if not (A_LOW < a < A_HIGH) and old_norm != 0.0:
        set_w_from_theta(p, v, z, state, theta, alma)
    else:
        # zero the coordinates of x_t first: scaling them by a and then
        # setting them would cancel log10(a) digits when a is large
        for k in range(values.shape[0]):
            if values[k] != 0.0:
                move_coord(indices[k], 0.0, v, z, state)
        scale_add(X, t, a, 0.0, v, z, state, 0.0, 0.0)
        sigma = alma[THETA_SCALE]
        for k in range(values.shape[0]):
            if values[k] != 0.0:
                j = np.uintp(indices[k])
                move_coord(j, link_inverse(sigma * theta[j], new_norm, p),
                           v, z, state)
    if abs(alma[THETA_SCALE]) < 1e-100:
        for j in range(theta.shape[0]):
            theta[j] *= alma[THETA_SCALE]
        alma[THETA_SCALE] = 1.0


@njit(cache=True)
def alma_pass(X, y, v, z, state, mistakes, margins, theta, alma, p, alpha, B, C):
    n_updates = 0
    refused = -1  # the row the pass refused, if any
    for t in range(y.shape[0]):
        score, sq = predict_round(X, t, y[t], v, state, mistakes, margins)
        if not TINY <= sq <= HUGE:  # rare: check_values' tests, in the pass
            if refused_row(X, t, sq):
                refused = t
                break
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
    return n_updates if refused < 0 else -1 - refused


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

    Examples
    --------
    >>> from olearn import ALMA
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = ALMA(p=2, alpha=0.9).fit(X, y)          # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 3)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
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
        if not 2 <= self.p <= P_MAX:
            raise ValueError(
                f"p must be in [2, {P_MAX:g}] (Gentile's ALMA_p needs p >= 2; he "
                f"suggests p of order 2 ln(n_features), about 32 for 10^7 "
                f"features; beyond {P_MAX:g} the weights f^(-1)(theta)_j = "
                f"||theta||_p (|theta_j|/||theta||_p)^(p-1) of all but the "
                f"largest |theta_j| fall below float64's range), got {self.p!r}.")
        check_positive("alpha", self.alpha)
        if self.alpha > 1:
            raise ValueError(f"alpha must be in (0, 1], got {self.alpha!r}.")
        for name in ("B", "C"):
            if getattr(self, name) is not None:
                check_positive(name, getattr(self, name))

    def _init_state(self, n_features):
        super()._init_state(n_features)
        self._theta = np.zeros(0 if self.p == 2 else n_features)
        self._alma = np.array([1.0, 1.0, 0.0, 0.0, 0.0, 0.0])

    def _model_arrays(self):
        return super()._model_arrays() + (self._theta, self._alma)

    @property
    def k_(self):
        return int(self._alma[K])

    def _learn(self, X, y, mistakes, margins):
        alpha = float(self.alpha)
        B = 1.0 / alpha if self.B is None else float(self.B)
        C = math.sqrt(2.0) if self.C is None else float(self.C)
        return alma_pass(X, y, self._v, self._z, self._state, mistakes, margins,
                         self._theta, self._alma, float(self.p), alpha, B, C)

