"""Exact projection onto an L1 ball cut by a margin halfspace (problem 3.10).

Shen and Dietterich's L1-norm constrained Passive-Aggressive update is

    w_{t+1} = argmin_w 1/2 ||w - w_t||^2   s.t.  y_t w.x_t >= 1,  ||w||_1 <= beta,

the Euclidean projection of ``w_t`` onto the intersection of a halfspace and
an L1 ball.  The paper hands it to a QP package; here it is solved exactly in
one dimension.  Dualising only the margin constraint with ``tau >= 0``,

    min_{||w||_1 <= beta} 1/2 ||w - w_t||^2 - tau y w.x
        =  min_{||w||_1 <= beta} 1/2 ||w - (w_t + tau y x)||^2 + const,

so the inner minimiser is an L1-ball projection,
``w(tau) = P_beta(w_t + tau y x)``, i.e. the soft threshold
``w_j = sign(u_j) max(0, |u_j| - theta)`` of ``u = w_t + tau y x`` with
``theta >= 0`` solving ``sum_j max(0, |u_j| - theta) = beta`` (``theta = 0``
when ``||u||_1 <= beta``; Duchi et al. 2008).  The dual derivative is
``1 - g(tau)`` with the margin ``g(tau) = y x.w(tau)``, nondecreasing,
continuous and piecewise linear in ``tau``.  The solution is

* ``tau = 0`` if ``g(0) >= 1`` (then ``w = P_beta(w_t)``; ``w = w_t`` if
  ``w_t`` is already feasible);
* otherwise the ``tau`` with ``g(tau) = 1``.  On a piece with active set
  ``S`` (``|u_j| > theta``) and signs ``s_j``,

      theta = (sum_S s_j u_j - beta) / |S|,
      g'(tau) = sum_S x_j^2 - (sum_S s_j x_j)^2 / |S|     (>= 0, Cauchy-Schwarz),

  (``g' = ||x||^2`` while ``u`` is inside the ball), so a Newton step solves
  the linear piece exactly; steps are safeguarded by a bracket
  ``g(lo) < 1 <= g(hi)`` (bisection when Newton leaves it, doubling while no
  upper end is known) and stop when ``|g - 1|`` is at rounding level.

Infeasible rounds.  ``max_{||w||_1 <= beta} y w.x = beta ||x||_inf``; when it
is ``<= 1`` no point of the ball reaches margin 1 (or exactly one face does).
The convention, the one the paper's problem implies in the limit: among the
points of the ball with the largest margin (the face
``conv{beta sign(y x_j) e_j : |x_j| = ||x||_inf}``) take the one closest to
``w_t`` -- a simplex projection.  It equals ``lim_{tau -> inf} w(tau)`` and the
``C -> inf`` limit of the soft-margin version, is the exact solution of (3.10)
when ``beta ||x||_inf = 1``, and is continuous as ``beta ||x||_inf`` falls
through 1.  A zero row has margin 0 for every ``w``; it gets ``P_beta(w_t)``.

Cost.  The solver works on a compact candidate set -- the coordinates where
``w_t`` or ``x_t`` is nonzero (every other coordinate is 0 before and after) --
so one evaluation of ``g`` is O(n) for ``n = |supp(w_t)| + nnz(x_t)``: the
projection shifts every nonzero weight by ``theta``, which is inherently
dense in ``supp(w_t)``, but never O(d).  The threshold is found by Michelot's
iteration (``theta <- (sum_{|u|>theta} |u| - beta) / #{|u| > theta}``),
warm-started from the previous ``theta``: one step from any start gives a
lower bound of the answer, and from a lower bound the iteration increases
monotonically to it, dropping inactive entries as it goes (finite; typically
a few passes).  A handful of Newton steps per round suffices.
"""
import numpy as np
from numba import njit

FEASIBLE, BALL_ONLY, MARGIN_ACTIVE, INFEASIBLE = 0, 1, 2, 3
_MAX_STEPS = 200


@njit(cache=True)
def l1_threshold(absu, n, beta, theta0):
    """Threshold ``theta`` of the projection of ``u`` onto ``{||w||_1 <= beta}``.

    ``absu[:n] = |u|`` is overwritten (compacted).  Returns ``(theta, k)``
    with ``k = #{|u_j| > theta}``; ``(0, -1)`` when ``||u||_1 <= beta``.
    ``theta0`` is a warm start (any value >= 0).
    """
    total = 0.0
    for c in range(n):
        total += absu[c]
    if total <= beta:
        return 0.0, -1
    # One step from any theta0 lands at or below the answer (see module doc).
    s = 0.0
    k = 0
    for c in range(n):
        if absu[c] > theta0:
            s += absu[c]
            k += 1
    theta = max(0.0, (s - beta) / k) if k > 0 else 0.0
    # Michelot from a lower bound: monotone, the active set only shrinks.
    m = n
    prev = -1
    while True:
        s = 0.0
        k = 0
        for c in range(m):
            val = absu[c]
            if val > theta:
                absu[k] = val
                s += val
                k += 1
        if k == 0:          # rounding pushed theta past max|u|
            return theta, prev
        m = k
        theta = (s - beta) / k
        if k == prev:
            return theta, k
        prev = k


@njit(cache=True)
def simplex_threshold(b, n, beta):
    """``c`` with ``sum_i max(0, b_i - c) = beta`` (``b[:n]`` is overwritten)."""
    s = 0.0
    for i in range(n):
        s += b[i]
    theta = (s - beta) / n        # all active: a lower bound of the answer
    m = n
    prev = n
    while True:
        s = 0.0
        k = 0
        for i in range(m):
            val = b[i]
            if val > theta:
                b[k] = val
                s += val
                k += 1
        m = k
        theta = (s - beta) / k
        if k == prev:
            return theta
        prev = k


@njit(cache=True)
def _margin_at(wt, a, n, nx, beta, tau, theta0, absu):
    """``(g(tau), g'(tau), theta)`` for ``w(tau) = P_beta(w_t + tau a)``."""
    for c in range(n):
        absu[c] = abs(wt[c] + tau * a[c]) if c < nx else abs(wt[c])
    theta, k = l1_threshold(absu, n, beta, theta0)
    g = 0.0
    sum_sq = 0.0
    sum_signed = 0.0
    for c in range(nx):
        u = wt[c] + tau * a[c]
        if k < 0:
            g += a[c] * u
            sum_sq += a[c] * a[c]
        elif abs(u) > theta:
            sign = 1.0 if u > 0.0 else -1.0
            g += a[c] * (u - sign * theta)
            sum_sq += a[c] * a[c]
            sum_signed += sign * a[c]
    slope = sum_sq if k < 0 else sum_sq - sum_signed * sum_signed / k
    return g, slope, theta


@njit(cache=True)
def _soft_threshold(wt, a, n, nx, tau, theta, out):
    for c in range(n):
        u = wt[c] + tau * a[c] if c < nx else wt[c]
        if u > theta:
            out[c] = u - theta
        elif u < -theta:
            out[c] = u + theta
        else:
            out[c] = 0.0


@njit(cache=True)
def _max_margin_face(wt, a, nx, n, beta, amax, out, work):
    """Closest point to ``w_t`` among the margin maximisers of the ball."""
    m = 0
    for c in range(nx):
        if abs(a[c]) == amax:
            work[m] = wt[c] if a[c] > 0.0 else -wt[c]
            m += 1
    shift = simplex_threshold(work, m, beta)
    for c in range(n):
        out[c] = 0.0
        if c < nx and abs(a[c]) == amax:
            val = wt[c] if a[c] > 0.0 else -wt[c]
            val = max(0.0, val - shift)
            out[c] = val if a[c] > 0.0 else -val


@njit(cache=True)
def project_l1_halfspace(wt, a, n, nx, beta, theta_warm, out, work):
    """Solve problem (3.10) on a compact candidate set.

    ``wt[:n]`` are the weights ``w_t`` on the candidates, ``a[:nx] = y x`` on
    the first ``nx`` of them (``x`` is zero on the others, whatever ``a``
    holds there, and on every coordinate outside the candidates
    ``w_t = x = 0``).  Writes the new
    weights into ``out[:n]``; ``work`` is scratch of length >= n.

    Returns ``(status, tau, theta)``: ``status`` is ``FEASIBLE`` (``w_t``
    kept), ``BALL_ONLY`` (``tau = 0``, ``w = P_beta(w_t)``),
    ``MARGIN_ACTIVE`` (``tau > 0``) or ``INFEASIBLE`` (``beta ||x||_inf <= 1``:
    the convention of the module docstring, ``tau = inf``); ``theta`` is the
    L1 threshold (0 inside the ball), to warm-start the next call.
    """
    l1 = 0.0
    for c in range(n):
        l1 += abs(wt[c])
    margin = 0.0
    amax = 0.0
    for c in range(nx):
        margin += a[c] * wt[c]
        amax = max(amax, abs(a[c]))
    if l1 <= beta and margin >= 1.0:
        for c in range(n):
            out[c] = wt[c]
        return FEASIBLE, 0.0, 0.0
    if amax > 0.0 and beta * amax <= 1.0:
        _max_margin_face(wt, a, nx, n, beta, amax, out, work)
        return INFEASIBLE, np.inf, 0.0
    g, slope, theta = _margin_at(wt, a, n, nx, beta, 0.0, theta_warm, work)
    if g >= 1.0 or amax == 0.0:
        _soft_threshold(wt, a, n, nx, 0.0, theta, out)
        return (BALL_ONLY if amax > 0.0 else INFEASIBLE), 0.0, theta
    sq = 0.0
    for c in range(nx):
        sq += a[c] * a[c]
    lo, hi = 0.0, np.inf
    tau = 0.0
    best_hi_theta = 0.0
    converged = False
    for _ in range(_MAX_STEPS):
        step = (1.0 - g) / slope if slope > 0.0 else np.inf
        cand = tau + step
        if not (lo < cand < hi):
            if hi < np.inf:
                cand = 0.5 * (lo + hi)
            else:
                cand = max(2.0 * lo, lo + 1.0 / sq)
        g, slope, theta = _margin_at(wt, a, n, nx, beta, cand, theta, work)
        tau = cand
        # The scale of the sum g guards the stopping test against rounding.
        if abs(g - 1.0) <= 1e-12 * (1.0 + abs(cand) * sq):
            converged = True
            break
        if g < 1.0:
            lo = cand
        else:
            hi, best_hi_theta = cand, theta
        if hi < np.inf and hi - lo <= 1e-15 * hi:
            # The bracket collapsed on a kink: take its feasible end.
            tau, theta = hi, best_hi_theta
            converged = True
            break
    if not converged:
        # Not reached in practice; fall back on the feasible end if known.
        if hi < np.inf:
            tau, theta = hi, best_hi_theta
    _soft_threshold(wt, a, n, nx, tau, theta, out)
    return MARGIN_ACTIVE, tau, theta


def l1_constrained_solution(w, x, y, beta):
    """Problem (3.10) for dense vectors (a plain-numpy entry point).

    Returns ``(w_new, status, tau)``; see :func:`project_l1_halfspace`.
    """
    w = np.asarray(w, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    d = w.shape[0]
    a = float(y) * x
    order = np.concatenate([np.flatnonzero(a), np.flatnonzero(a == 0)])
    out = np.zeros(d)
    work = np.zeros(d)
    nx = int(np.count_nonzero(a))
    status, tau, _ = project_l1_halfspace(
        np.ascontiguousarray(w[order]), np.ascontiguousarray(a[order]), d, nx,
        float(beta), 0.0, out, work)
    w_new = np.empty(d)
    w_new[order] = out
    return w_new, int(status), float(tau)
