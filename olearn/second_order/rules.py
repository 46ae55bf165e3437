"""The per-round rules of the second-order learners (see :mod:`.core`).

Each rule takes ``m_t = mu . x_t``, ``chi_t = x_t' Sigma x_t`` and ``y_t`` and
returns ``(f, alpha, gamma, beta)``: the score it predicts with, the mean
step, the precision step and the same step written for ``Sigma``.  The
derivations are in the modules of the learners: :mod:`.arow` (AROW, NAROW),
:mod:`.cw` (CW, SCW) and :mod:`.sop` (SOP).  The passes
(:mod:`._passes`) pick a rule by its index (the learner's ``_rule``).

Every rule is compiled with numpy's error model: a division by zero gives
``inf`` or NaN, never a Python ``ZeroDivisionError`` (on a row of
``||x||^2 ~ 1e77`` or more SCW's ``w^2`` in :func:`_stdev_cov` overflows and
``sqrt(u)`` becomes 0).  The passes test ``alpha``, ``gamma`` and ``beta``
for finiteness and stop before such a step, so the estimator raises its
``NonFiniteModelError`` and keeps the model of the round before (issue 26,
item 9).  Under Python's error model the same row raised a bare
``ZeroDivisionError`` or gave ``inf``, depending on which pass had compiled
the rule first: numba compiles a callee with its caller's ``error_model``
unless the callee sets one (``inherit_if_not_set``), and keeps (and caches)
the first compilation for every later caller.
"""
import math

from numba import njit

AROW, CW_VARIANCE, CW_STDEV, SCW_I, SCW_II, SOP, NAROW = range(7)


@njit(cache=True, error_model="numpy")
def arow_step(m, chi, y, r):
    """AROW's round (Figure 1 of the AROW paper, eqs. 7 and 9; :mod:`.arow`)."""
    if y * m >= 1.0:
        return m, 0.0, 0.0, 0.0
    beta = 1.0 / (chi + r)
    alpha = max(0.0, 1.0 - y * m) * beta
    return m, alpha * y, 1.0 / r, beta


@njit(cache=True, error_model="numpy")
def narow_step(m, chi, y, b):
    """NAROW's round: ``r_t`` from ``chi_t`` and ``b``; the mean moves also
    when ``r_t = +infinity`` (see :mod:`.arow`)."""
    if chi > 1.0 / b:
        r = chi / (b * chi - 1.0)
        f = m * r / (r + chi)
        if y * f >= 1.0:
            return f, 0.0, 0.0, 0.0
        return f, (y * r - m) / (r + chi), 1.0 / r, 1.0 / (r + chi)
    if y * m >= 1.0:
        return m, 0.0, 0.0, 0.0
    return m, y, 0.0, 0.0


@njit(cache=True, error_model="numpy")
def cw_variance_step(m, chi, y, phi):
    """Variance CW round (Dredze et al. 2008): ``(f, alpha, gamma, beta)``."""
    M = y * m
    V = chi
    if V <= 0.0:
        return m, 0.0, 0.0, 0.0
    b = 1.0 + 2.0 * phi * M
    alpha = (-b + math.sqrt(max(0.0, b * b - 8.0 * phi * (M - phi * V)))) \
        / (4.0 * phi * V)
    if alpha <= 0.0:
        return m, 0.0, 0.0, 0.0
    gamma = 2.0 * alpha * phi
    return m, alpha * y, gamma, gamma / (1.0 + gamma * V)


@njit(cache=True, error_model="numpy")
def _stdev_cov(alpha, V, phi):
    """``(gamma, beta)`` of the exact (stdev) CW / SCW covariance update."""
    w = alpha * V * phi
    # sqrt(u) = (-w + sqrt(w^2 + 4V)) / 2, written without the cancellation
    su = 2.0 * V / (w + math.sqrt(w * w + 4.0 * V))
    return alpha * phi / su, alpha * phi / (su + w)


@njit(cache=True, error_model="numpy")
def _stdev_alpha(M, V, phi):
    psi = 1.0 + 0.5 * phi * phi
    zeta = 1.0 + phi * phi
    return (-M * psi + math.sqrt(M * M * phi ** 4 / 4.0 + V * phi * phi * zeta)) \
        / (V * zeta)


@njit(cache=True, error_model="numpy")
def cw_stdev_step(m, chi, y, phi):
    """Exact convex CW round (Crammer et al. 2008): ``(f, alpha, gamma, beta)``."""
    M = y * m
    V = chi
    if V <= 0.0:
        return m, 0.0, 0.0, 0.0
    alpha = _stdev_alpha(M, V, phi)
    if alpha <= 0.0:
        return m, 0.0, 0.0, 0.0
    gamma, beta = _stdev_cov(alpha, V, phi)
    return m, alpha * y, gamma, beta


@njit(cache=True, error_model="numpy")
def scw1_step(m, chi, y, phi, C):
    """SCW-I round (Wang, Zhao, Hoi 2012): ``(f, alpha, gamma, beta)``."""
    M = y * m
    V = chi
    if V <= 0.0 or phi * math.sqrt(V) - M <= 0.0:
        return m, 0.0, 0.0, 0.0
    alpha = min(C, max(0.0, _stdev_alpha(M, V, phi)))
    if alpha <= 0.0:
        return m, 0.0, 0.0, 0.0
    gamma, beta = _stdev_cov(alpha, V, phi)
    return m, alpha * y, gamma, beta


@njit(cache=True, error_model="numpy")
def scw2_step(m, chi, y, phi, C):
    """SCW-II round (Wang, Zhao, Hoi 2012): ``(f, alpha, gamma, beta)``."""
    M = y * m
    V = chi
    if V <= 0.0 or phi * math.sqrt(V) - M <= 0.0:
        return m, 0.0, 0.0, 0.0
    n = V + 1.0 / (2.0 * C)
    g = phi * math.sqrt(phi * phi * M * M * V * V + 4.0 * n * V * (n + V * phi * phi))
    alpha = max(0.0, (-(2.0 * M * n + phi * phi * M * V) + g)
                / (2.0 * (n * n + n * V * phi * phi)))
    if alpha <= 0.0:
        return m, 0.0, 0.0, 0.0
    gamma, beta = _stdev_cov(alpha, V, phi)
    return m, alpha * y, gamma, beta


@njit(cache=True, error_model="numpy")
def sop_step(m, chi, y):
    """SOP's round: ``(f, alpha, gamma, beta)`` (see :mod:`.core`)."""
    f = m / (1.0 + chi)
    if y * f > 0.0:
        return f, 0.0, 0.0, 0.0
    beta = 1.0 / (1.0 + chi)
    return f, (y - m) * beta, 1.0, beta


@njit(cache=True, error_model="numpy")
def rule_step(rule, params, m, chi, y):
    """``(f, alpha, gamma, beta)`` of the learner's rule (see :mod:`.core`)."""
    if rule == AROW:
        return arow_step(m, chi, y, params[0])
    if rule == CW_VARIANCE:
        return cw_variance_step(m, chi, y, params[0])
    if rule == CW_STDEV:
        return cw_stdev_step(m, chi, y, params[0])
    if rule == SCW_I:
        return scw1_step(m, chi, y, params[0], params[1])
    if rule == SCW_II:
        return scw2_step(m, chi, y, params[0], params[1])
    if rule == SOP:
        return sop_step(m, chi, y)
    return narow_step(m, chi, y, params[0])
