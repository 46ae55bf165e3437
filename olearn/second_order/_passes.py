"""The compiled passes of the second-order family (see :mod:`.core`).

One pass for full and one for diagonal covariance; the learner's per-round
rule (a small ``@njit`` function of :mod:`.rules`) is chosen by an
index, so every learner runs the same bookkeeping.

Note for developers: numba's on-disk cache of a pass is keyed on this
file only, not on the modules it calls (rules.py, _covariance_sweep.py,
_row_access.py); after editing one of them, clear ``NUMBA_CACHE_DIR`` (a stale cache was seen to keep the
old rule).

:func:`full_pass` returns ``(n_updates, failed, why)``: ``failed = t`` if
round ``t`` cannot be learned (``why``: :data:`STEP_OVERFLOW`, its step is
not finite, or :data:`NOT_POSITIVE`, ``x_t' Sigma x_t <= 0`` on a nonzero
row), else -1; the pass stops at that round before updating (the estimator
raises).  :func:`diag_pass` also makes the input tests of
:func:`olearn._checks.check_values` on each row before using it (see there).

Both passes keep every variance positive (issue 26, item 1): the
covariance update of a variance is written, where it would cancel, in a
form that cannot cross zero (:func:`shrunk_variance`).
"""
import math

import numpy as np
from numba import njit

from .._checks import _HUGE, _TINY
from ._covariance_sweep import GAMMA, PENDING, PENDING_CHI, sweep, sweep_parallel
from ._variance import shrunk_variance
from ._row_access import row_clear, row_dense, row_entries2, row_entry, row_span
from .rules import CW_STDEV, rule_step

#: why a pass stopped at a round (its third return value)
STEP_OVERFLOW, NOT_POSITIVE, VARIANCE_ZERO = 0, 1, 2


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
    is the serial :func:`._covariance_sweep.sweep` (``bounds`` and ``parts`` unused).

    The sweep keeps the diagonal positive (:func:`shrunk_variance`), but the
    stored matrix can still lose its positive definiteness to rounding: after
    a row whose features' scales differ by a factor of about ``1e8`` or more,
    the entries of ``Sigma - beta s s'`` are differences of numbers that agree
    to all 16 digits.  A nonzero row with ``x' Sigma x <= 0`` then stops the
    pass (``NOT_POSITIVE``) instead of being skipped in silence."""
    n_updates = 0
    d = mu.shape[0]
    parallel = bounds.shape[0] > 2
    for t in range(y.shape[0]):
        x = row_dense(X, t, xbuf)
        if parallel:
            sweep_parallel(S, p, state, x, s, bounds, parts)
        else:
            sweep(S, p, state, x, s)
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
        if chi <= 0.0 and nonzero_row(X, t, start, stop):
            row_clear(X, t, xbuf)     # Sigma no longer positive definite
            return n_updates, t, NOT_POSITIVE
        f, alpha, gamma, beta = rule_step(rule, params, m, chi, y[t])
        mistakes[t] = (f > 0.0) != (y[t] > 0.0)
        margins[t] = y[t] * f
        if not (math.isfinite(alpha) and math.isfinite(gamma)
                and math.isfinite(beta)):
            row_clear(X, t, xbuf)
            return n_updates, t, STEP_OVERFLOW
        if chi > 0.0 and (alpha != 0.0 or gamma != 0.0):
            for j in range(d):
                mu[j] += alpha * s[j]
                p[j] = s[j]
            state[PENDING] = beta
            state[PENDING_CHI] = chi
            state[GAMMA] = gamma
            n_updates += 1
        row_clear(X, t, xbuf)
    return n_updates, -1, STEP_OVERFLOW


@njit(cache=True)
def nonzero_row(X, t, start, stop):
    """Whether row ``t`` has a nonzero value."""
    for k in range(start, stop):
        if row_entry(X, t, k)[1] != 0.0:
            return True
    return False


#: the offset of ``Sigma_jj`` after ``mu_j`` in the flat model
ONE = np.uintp(1)


@njit(inline="always")
def mean_at(j):
    """The position of ``mu_j`` in the model ``ms`` read flat (``Sigma_jj``
    next to it): a constant stride of 2, where ``ms[j, c]`` multiplies
    ``j`` by the array's width, known only at run time -- an integer
    multiply per nonzero, which Intel cores (Cascade Lake) issue on the one
    port that also takes half the floating-point work
    (``benchmarks/notes/codegen_targets.md``)."""
    return np.uintp(2) * np.uintp(j)


#: float64's normal range narrowed by a factor 4, more than the rounding of
#: ``chi`` and of the bounds below (a relative error of order ``n eps``)
SAFE_LO, SAFE_HI = 4.0 * _TINY, _HUGE / 4.0
#: ``bounds[LOW] <= Sigma_jj <= bounds[HIGH]`` for every ``j``: kept by
#: :func:`diag_pass`, set by the estimator wherever else ``Sigma`` changes
LOW, HIGH = 0, 1


@njit(cache=True)
def refused_row(X, t, start, stop):
    """Whether row ``t`` fails :func:`olearn._checks.check_values`: a NaN or
    infinite value, or ``||x_t||^2`` (summed left to right, as that check sums
    it) above the largest float64 or, for a nonzero row, below the smallest
    normal one."""
    sq = 0.0
    nonzero = False
    for k in range(start, stop):
        xj = np.float64(row_entry(X, t, k)[1])
        if not math.isfinite(xj):
            return True
        sq += xj * xj
        nonzero = nonzero or xj != 0.0
    return (nonzero and sq < _TINY) or sq > _HUGE


@njit(cache=True, error_model="numpy")
def diag_pass(X, y, ms, mistakes, margins, rule, params, precision, bounds):
    """One pass with a diagonal covariance, O(nnz(x_t)) per round.

    ``ms[j] = (mu_j, Sigma_jj)``: the two numbers of feature ``j`` side by
    side, so each nonzero reads one cache line.  numpy's error model: no
    test before each division (its divisor, ``1 + gamma Sigma_jj x_j^2``, is
    at least 1).  ``X`` may hold float32 values (CSR): every product is taken
    in float64, so the results are those of the same values in float64.

    The pass also makes the input tests of :func:`olearn._checks.check_values`
    on each row before using it (the estimator then skips that up-front scan
    of every value, ``_values_checked_in_pass``: 4.3 ms of a 50 ms fit on the
    sparse benchmark stream, where keeping ``low`` costs the pass 0.5-1 ms):
    with ``low <= Sigma_jj <= high`` (``bounds``),
    ``low ||x||^2 <= chi <= high ||x||^2``, so a ``chi`` inside
    ``[SAFE_LO max(high, 1), SAFE_HI min(low, 1)]`` puts ``||x_t||^2`` inside
    float64's normal range, and a NaN or infinite value makes ``chi`` NaN or
    infinite; only a row outside (an all-zero row, say) is read again
    (:func:`refused_row`).  Every rule has ``gamma, beta >= 0``, so the
    variances only decrease: ``high`` stays, ``low`` follows the smallest
    variance written.

    ``diagonal="covariance"`` (``precision`` false) writes
    ``Sigma_jj - beta (Sigma_jj x_j)^2`` as is where it keeps at least half
    of ``Sigma_jj`` (no cancellation: the results of the plain form), and
    else in the form of :func:`shrunk_variance`, which cannot cross zero.
    The precision form divides by ``1 + gamma Sigma_jj x_j^2 >= 1`` and
    cannot either; only underflow could leave a variance at 0, and the round
    that does so stops the pass (``VARIANCE_ZERO``; the estimator rewinds it).

    Returns ``(n_updates, refused, failed, why)``: ``refused = t`` if row
    ``t`` fails those tests (the pass stops before using it), ``failed = t``
    if round ``t`` cannot be learned, ``why`` saying why
    (``STEP_OVERFLOW``: its step is not finite, and the pass stops before
    applying it; ``VARIANCE_ZERO``: its update left a variance at 0); both
    rounds are -1 when the pass completes.
    """
    n_updates = 0
    low = bounds[LOW]
    high = bounds[HIGH]
    flat = ms.reshape(ms.size)  # (mu_j, Sigma_jj) at mean_at(j): no multiply

    def row_moments(t, start, stop):
        """``m = mu . x_t`` and ``chi = sum_j Sigma_jj x_tj^2`` over the
        positions ``start <= k < stop`` of row ``t`` (``ms[j] = (mu_j,
        Sigma_jj)``).

        Each sum is kept as two partial sums, over the even and the odd
        positions, added at the end: the two chains of additions run side
        by side, where one left-to-right sum waits for each addition before
        the next.  The result differs from the left-to-right sum by the
        order of the additions only (rounding).

        A closure of the pass (``X`` and ``ms`` are the pass's own): as a
        compiled function of its own, called once per row, it incremented
        and decremented the reference counts of its four arrays on every
        call -- eight atomic read-modify-writes per row, each a full memory
        barrier (``benchmarks/notes/codegen_targets.md``); inlined as a
        function taking the arrays, it kept them.  Same arithmetic, same
        order (``tests/test_pass_refcounts.py``).
        """
        m0 = 0.0
        m1 = 0.0
        c0 = 0.0
        c1 = 0.0
        k = start
        while k + 1 < stop:
            j, xj, i, xi = row_entries2(X, t, k)
            m0 += flat[mean_at(j)] * xj
            c0 += flat[mean_at(j) + ONE] * xj * xj
            m1 += flat[mean_at(i)] * xi
            c1 += flat[mean_at(i) + ONE] * xi * xi
            k += 2
        if k < stop:
            j, xj = row_entry(X, t, k)
            m0 += flat[mean_at(j)] * xj
            c0 += flat[mean_at(j) + ONE] * xj * xj
        return m0 + m1, c0 + c1

    for t in range(y.shape[0]):
        start, stop = row_span(X, t)
        m, chi = row_moments(t, start, stop)
        if not SAFE_LO * max(high, 1.0) <= chi <= SAFE_HI * min(low, 1.0):
            if refused_row(X, t, start, stop):  # rare: check_values' tests
                bounds[LOW] = low
                return n_updates, t, -1, STEP_OVERFLOW
        f, alpha, gamma, beta = rule_step(rule, params, m, chi, y[t])
        mistakes[t] = (f > 0.0) != (y[t] > 0.0)
        margins[t] = y[t] * f
        if not (math.isfinite(alpha) and math.isfinite(gamma)
                and math.isfinite(beta)):
            bounds[LOW] = low
            return n_updates, -1, t, STEP_OVERFLOW
        if chi > 0.0 and (alpha != 0.0 or gamma != 0.0):
            if min(gamma, beta) < 0.0:  # never (see above); the bound is lost
                high = math.inf
                bounds[HIGH] = high
            if precision:
                for k in range(start, stop):
                    j, xj = row_entry(X, t, k)
                    at = mean_at(j)
                    sigma = flat[at + ONE]
                    flat[at] += alpha * (sigma * xj)
                    sigma = sigma / (1.0 + gamma * sigma * xj * xj)
                    flat[at + ONE] = sigma
                    low = min(low, sigma)
            else:
                for k in range(start, stop):
                    j, xj = row_entry(X, t, k)
                    at = mean_at(j)
                    sigma = flat[at + ONE]
                    sj = sigma * xj
                    flat[at] += alpha * sj
                    shrunk = sigma - beta * sj * sj
                    if not shrunk >= 0.5 * sigma:   # rare: it cancels
                        shrunk = shrunk_variance(sigma, sj * xj, beta, chi, gamma)
                    flat[at + ONE] = shrunk
                    low = min(low, shrunk)
            n_updates += 1
            if not low > 0.0:   # a variance underflowed (the round is undone)
                bounds[LOW] = low
                return n_updates, -1, t, VARIANCE_ZERO
    bounds[LOW] = low
    return n_updates, -1, -1, STEP_OVERFLOW
