"""The compiled passes of the second-order family (see :mod:`.core`).

One pass for full and one for diagonal covariance; the learner's per-round
rule (a small ``@njit`` function in the module of its paper) is chosen by an
index, so every learner runs the same bookkeeping.

Note for developers: numba's on-disk cache of a pass is keyed on this
file only, not on the rule modules it calls (arow.py, cw.py, sop.py); after
editing a rule, clear ``NUMBA_CACHE_DIR`` (a stale cache was seen to keep the
old rule).

A pass returns the number of updates, or ``-1 - t`` if the step of round
``t`` is not finite (the pass stops before applying it; the estimator raises).
"""
import math

from numba import njit

from ._rows2 import row_clear, row_dense, row_entry, row_span
from .arow import arow_step, narow_step
from .core import PENDING, sweep, sweep_parallel
from .cw import cw_stdev_step, cw_variance_step, scw1_step, scw2_step
from .sop import sop_step

AROW, CW_VARIANCE, CW_STDEV, SCW_I, SCW_II, SOP, NAROW = range(7)


@njit(cache=True)
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


@njit(cache=True)
def full_pass(X, y, mu, S, p, s, xbuf, state, mistakes, margins, rule, params,
              bounds, parts):
    """One pass with a full covariance (upper triangle ``S``, pending update).

    With ``len(bounds) > 2`` the sweep runs on ``len(bounds) - 1`` threads
    (:func:`.core.sweep_parallel`, the opt-in ``n_jobs``, ours); otherwise it
    is the serial :func:`.core.sweep` (``bounds`` and ``parts`` unused)."""
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
