"""The compiled passes of the second-order family (see :mod:`.core`).

One pass for full and one for diagonal covariance; the learner's per-round
rule (a small ``@njit`` function of :mod:`.rules`) is chosen by an
index, so every learner runs the same bookkeeping.

Note for developers: numba's on-disk cache of a pass is keyed on this
file only, not on the modules it calls (rules.py, _covariance_sweep.py,
_row_access.py); after editing one of them, clear ``NUMBA_CACHE_DIR`` (a stale cache was seen to keep the
old rule).

A pass returns the number of updates, or ``-1 - t`` if the step of round
``t`` is not finite (the pass stops before applying it; the estimator raises).
"""
import math

from numba import njit

from ._covariance_sweep import PENDING, sweep, sweep_parallel
from ._row_access import row_clear, row_dense, row_entry, row_span
from .rules import CW_STDEV, rule_step


@njit(cache=True)
def renormalise(S, mu, s, below):
    """Exact CW (stdev) only: rescale ``(mu, Sigma)`` to ``(c mu, c^2 Sigma)``
    when the largest variance falls below ``below`` (> 0; 0 turns it off).

    The stdev rule is invariant under this change: with ``M -> c M`` and
    ``V -> c^2 V`` its ``alpha`` becomes ``alpha / c`` and ``beta``
    ``beta / c^2``, so ``mu + alpha y Sigma x -> c (mu + alpha y Sigma x)``
    and ``Sigma - beta Sigma x x' Sigma -> c^2 (...)``, and the sign of
    ``mu . x`` (the prediction) is unchanged.  Under label noise the rule
    shrinks ``mu`` and ``Sigma`` together geometrically and without bound
    until ``x' Sigma x`` underflows and the step overflows; rescaling keeps them in range.  ``c`` is a
    power of two, so the rescaled run is the unrescaled one times ``c``,
    ``c^2`` exactly (while the latter stays in float64's normal range).
    ``s = Sigma x`` (just computed) is rescaled by ``c^2``.  The largest
    variance bounds every entry (``|S_ij| <= sqrt(S_ii S_jj)``) and is
    brought to about 1.
    """
    d = mu.shape[0]
    top = 0.0
    for j in range(d):
        top = max(top, S[j, j])
    if not (0.0 < top < below):
        return
    k = -math.frexp(top)[1] // 2
    c = math.ldexp(1.0, k)
    c2 = c * c
    for i in range(d):
        for j in range(i, d):
            S[i, j] *= c2
        mu[i] *= c
        s[i] *= c2


@njit(cache=True)
def full_pass(X, y, mu, S, p, s, xbuf, state, mistakes, margins, rule, params,
              bounds, parts):
    """One pass with a full covariance (upper triangle ``S``, pending update).

    With ``len(bounds) > 2`` the sweep runs on ``len(bounds) - 1`` threads
    (:func:`._covariance_sweep.sweep_parallel`, the opt-in ``n_jobs``, ours); otherwise it
    is the serial :func:`._covariance_sweep.sweep` (``bounds`` and ``parts`` unused)."""
    n_updates = 0
    d = mu.shape[0]
    parallel = bounds.shape[0] > 2
    for t in range(y.shape[0]):
        x = row_dense(X, t, xbuf)
        if parallel:
            sweep_parallel(S, p, state[PENDING], x, s, bounds, parts)
        else:
            sweep(S, p, state[PENDING], x, s)
        state[PENDING] = 0.0
        if rule == CW_STDEV:
            renormalise(S, mu, s, params[1])
        start, stop = row_span(X, t)
        m = 0.0
        chi = 0.0
        for k in range(start, stop):
            j, xj = row_entry(X, t, k)
            m += mu[j] * xj
            chi += s[j] * xj
        f, alpha, gamma, beta = rule_step(rule, params, m, chi, y[t])
        mistakes[t] = (f > 0.0) != (y[t] > 0.0)
        margins[t] = y[t] * f
        if not (math.isfinite(alpha) and math.isfinite(gamma)
                and math.isfinite(beta)):
            return -1 - t
        if chi > 0.0 and (alpha != 0.0 or gamma != 0.0):
            for j in range(d):
                mu[j] += alpha * s[j]
                p[j] = s[j]
            state[PENDING] = beta
            n_updates += 1
        row_clear(X, t, xbuf)
    return n_updates


@njit(cache=True)
def diag_pass(X, y, mu, sigma, s, mistakes, margins, rule, params, precision):
    """One pass with a diagonal covariance, O(nnz(x_t)) per round."""
    n_updates = 0
    for t in range(y.shape[0]):
        start, stop = row_span(X, t)
        m = 0.0
        chi = 0.0
        for k in range(start, stop):
            j, xj = row_entry(X, t, k)
            m += mu[j] * xj
            chi += sigma[j] * xj * xj
        f, alpha, gamma, beta = rule_step(rule, params, m, chi, y[t])
        mistakes[t] = (f > 0.0) != (y[t] > 0.0)
        margins[t] = y[t] * f
        if not (math.isfinite(alpha) and math.isfinite(gamma)
                and math.isfinite(beta)):
            return -1 - t
        if chi > 0.0 and (alpha != 0.0 or gamma != 0.0):
            for k in range(start, stop):
                j, xj = row_entry(X, t, k)
                sj = sigma[j] * xj
                mu[j] += alpha * sj
                if precision:
                    sigma[j] = sigma[j] / (1.0 + gamma * sigma[j] * xj * xj)
                else:
                    sigma[j] -= beta * sj * sj
            n_updates += 1
    return n_updates
