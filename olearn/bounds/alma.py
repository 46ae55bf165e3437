"""A mistake bound of ALMA_p(alpha; B, C) on a finished run (our derivation).

The update of :class:`olearn.ALMA` is Gentile's (2001) Figure 1: on a nonzero
row, ``x^_t = x_t / ||x_t||_p``; with ``k`` one more than the number of
updates so far, ``gamma_k = B sqrt(p-1)/sqrt(k)`` and ``eta_k = C/(sqrt(p-1)
sqrt(k))``; if ``y_t w_k.x^_t <= (1 - alpha) gamma_k`` then ``theta' = f(w_k) +
eta_k y_t x^_t``, ``w_{k+1} = f^{-1}(theta') / max(1, ||theta'||_p)`` with the
p-norm link ``f = grad 1/2 ||.||_q^2``.  Zero rows are skipped.

Gentile's own statement (JMLR 2:213-242, Theorem 3) was not available to us,
so the bound below is **our derivation** for exactly this update, by the
Bregman-divergence technique of the p-norm algorithms (Grove, Littlestone and
Schuurmans 2001; Gentile 2001), with the constants of olearn's schedule.

Statement.  Let ``u`` have ``||u||_q = 1`` (the functions normalise the given
``u``), ``gamma > 0``, ``d_t = max(0, gamma - y_t u.x^_t)`` on every nonzero
row and ``D_gamma = sum_t d_t``.  Write ``c = C / sqrt(p-1)``, ``K = (1 -
alpha) B C + C^2 / 2``, ``H_m = sum_{k<=m} 1/k``.  If ALMA makes ``m``
updates, at trials ``t_1 < ... < t_m``, then

    (1)  c sum_{k=1}^m (gamma - d_{t_k}) / sqrt(k)  <=  1/2 + K H_m,

and therefore, with ``sum_{k<=m} k^{-1/2} >= 2(sqrt(m+1) - 1)``, ``H_m <=
1 + ln m`` and ``D2_gamma = sqrt(sum_t d_t^2)``,

    (2a) 2 gamma (sqrt(m+1) - 1) <= D_gamma + (1/2 + K (1 + ln m)) / c,
    (2b) 2 gamma (sqrt(m+1) - 1) <= D2_gamma sqrt(1 + ln m) + (1/2 + K (1 + ln m)) / c.

The bound on ``m`` is the smaller of the largest ``m`` satisfying (2a) and
the largest satisfying (2b) (both exist: the left side grows as
``sqrt(m)``, the right ones as ``ln m``).  A round with ``y_t
w_t.x_t <= 0`` is an update, so the same number bounds the mistakes.

Proof (potential).  With ``D(u, w) = 1/2||u||_q^2 + 1/2||w||_q^2 - u.f(w)``
(the Bregman divergence of ``1/2||.||_q^2``; ``||w||_q = ||f(w)||_p``),
an update changes ``D(u, w_k) - D(u, w'_k) = eta_k y u.x^ - [1/2||theta +
eta_k y x^||_p^2 - 1/2||theta||_p^2] >= eta_k (y u.x^ - y w_k.x^) - (p-1)
eta_k^2 / 2`` by the (p-1)-smoothness of ``1/2||.||_p^2`` with respect to
``||.||_p`` (an equality for ``p = 2``) and ``||x^||_p = 1``.  The scaling
``w'/max(1, ||w'||_q)`` is the Bregman projection onto the unit q-ball, so
``D(u, w_{k+1}) <= D(u, w'_k)`` for ``||u||_q <= 1``.  Summing from ``D(u,
0) = 1/2`` and using ``y u.x^ >= gamma - d_t``, ``y w_k.x^ <= (1-alpha)
gamma_k``, ``eta_k gamma_k = BC/k`` and ``(p-1) eta_k^2 = C^2/k`` gives (1);
``sum_k d_{t_k}/sqrt(k) <= D_gamma`` gives (2a), and Cauchy-Schwarz,
``sum_k d_{t_k}/sqrt(k) <= D2_gamma sqrt(H_m)``, gives (2b).

:func:`alma_bound` returns ``observed = m`` against min((2a), (2b)), and in its terms
both sides of (1) and of the potential inequality before the margin
hypotheses are used, ``sum_k [eta_k (y u.x^ - y w_k.x^) - (p-1) eta_k^2/2] <=
1/2 - D(u, w_{m+1})`` (an equality for ``p = 2`` when no projection is
active: a test of the constants).  The terms ``slack_*`` split the slack of (1),
``rhs - lhs``, into the five things the proof throws away (each ``>= 0``; they sum to
it): the final divergence ``D(u, w_{m+1})``, the smoothness inequality (zero for ``p =
2``), the projections, the margins ``y w_k.x^`` below the target ``(1 - alpha)
gamma_k`` (times ``eta_k``) and the competitor's margins above ``gamma`` (times
``eta_k``).
"""
import math

import numpy as np
import scipy.sparse as sp

from ..linear.alma import ALMA
from ._common import check_replay, finished_run, make_check, refuse_degenerate


def row_pnorms(X, p):
    """``||x_t||_p`` of every row (dense or CSR)."""
    if sp.issparse(X):
        Y = abs(X).tocsr()
        Y.data = Y.data ** p
        return np.asarray(Y.sum(axis=1)).ravel() ** (1.0 / p)
    return np.sum(np.abs(X) ** p, axis=1) ** (1.0 / p)


def qnorm(w, q):
    return float(np.sum(np.abs(w) ** q) ** (1.0 / q))


def link(w, q):
    """``f(w) = grad 1/2 ||w||_q^2 = sign(w) |w|^{q-1} ||w||_q^{2-q}``."""
    norm = qnorm(w, q)
    if norm == 0.0:
        return np.zeros_like(w)
    return np.sign(w) * np.abs(w) ** (q - 1.0) * norm ** (2.0 - q)


def alma_parameters(run):
    """``(p, q, alpha, B, C)`` of a run, with olearn's defaults filled in."""
    p, alpha = float(run.p), float(run.alpha)
    B = 1.0 / alpha if run.B is None else float(run.B)
    C = math.sqrt(2.0) if run.C is None else float(run.C)
    return p, p / (p - 1.0), alpha, B, C


def alma_mistake_bound_value(gamma, D, p, alpha, B, C, D2=0.0):
    """The largest ``m >= 1`` with ``h(m) <= 0`` (0 if there is none), where

    ``h(m) = 2 gamma (sqrt(m+1) - 1) - D - D2 sqrt(1 + ln m) - (1/2 + K(1 + ln m))/c``:
    form (2a) of the module docstring with ``D2 = 0``, form (2b) with ``D = 0``.
    ``m h'(m) = gamma m / sqrt(m+1) - D2 / (2 sqrt(1 + ln m)) - K/c`` increases
    with ``m``, so ``h`` decreases and then increases: the minimum and then the
    largest root are found by bisection.  ``inf`` for ``gamma <= 0``.
    """
    if not gamma > 0:
        return math.inf
    c = C / math.sqrt(p - 1.0)
    K = (1.0 - alpha) * B * C + 0.5 * C * C

    def h(m):
        log = 1.0 + math.log(m)
        return (2.0 * gamma * (math.sqrt(m + 1.0) - 1.0) - D - D2 * math.sqrt(log)
                - (0.5 + K * log) / c)

    def slope(m):     # m h'(m)
        return (gamma * m / math.sqrt(m + 1.0)
                - D2 / (2.0 * math.sqrt(1.0 + math.log(m))) - K / c)

    low, high = 1.0, 2.0
    if slope(low) < 0.0:                 # the minimum lies right of m = 1
        while slope(high) < 0.0:
            low, high = high, 2.0 * high
        for _ in range(200):
            mid = 0.5 * (low + high)
            low, high = (mid, high) if slope(mid) < 0.0 else (low, mid)
    if h(low) > 0.0:
        return 0.0
    high = 2.0 * low
    while h(high) <= 0.0:
        high *= 2.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        low, high = (mid, high) if h(mid) <= 0.0 else (low, mid)
    return float(math.floor(low))


def _both_bounds(gamma, margins_u, p, alpha, B, C):
    """``(min, (2a), (2b), D_gamma, D2_gamma)`` for the normalised competitor margins."""
    d = np.maximum(0.0, gamma - margins_u)
    D, D2 = float(d.sum()), float(np.sqrt(d @ d))
    a = alma_mistake_bound_value(gamma, D, p, alpha, B, C)
    b = alma_mistake_bound_value(gamma, 0.0, p, alpha, B, C, D2=D2)
    return min(a, b), a, b, D, D2


def _updates(norms, margins_hat, p, alpha, B):
    """Replay the update test from the record: the update trials and their ``k``."""
    k, trials = 1, []
    root = math.sqrt(p - 1.0)
    for t in range(norms.shape[0]):
        if norms[t] == 0.0:
            continue
        if margins_hat[t] <= (1.0 - alpha) * B * root / math.sqrt(k):
            trials.append(t)
            k += 1
    return np.asarray(trials, dtype=np.int64)


def _replay_p2(run, stream, trials, norms, margins_hat, C):
    """For ``p = 2`` check ``coef_`` against ``sum_t c_t x_t`` rebuilt from the record."""
    coefficients = np.zeros(stream.y.shape[0])
    sq, scale = 0.0, 1.0       # ||w||^2 and w = scale * sum_t coefficients_t x_t
    for k, t in enumerate(trials, start=1):
        eta = C / math.sqrt(k)
        sq_new = sq + 2.0 * eta * margins_hat[t] + eta * eta
        m = max(1.0, math.sqrt(max(sq_new, 0.0)))
        coefficients[t] = eta * stream.y[t] / (norms[t] * scale)
        scale /= m
        sq = sq_new / (m * m)
        if scale < 1e-100:
            coefficients *= scale
            scale = 1.0
    check_replay(run, stream, coefficients * scale)


def _replay_path(stream, trials, norms, margins_hat, p, C, u):
    """Replay the updates in the dual and split the slack of the potential inequality.

    Returns ``(w_final, smoothness, projection)``: the final weight vector rebuilt
    from the record, and the sums over the updates of what the proof throws away
    in its two inequalities, both ``>= 0``:

    * smoothness: ``(p-1) eta_k^2 / 2 - [1/2||theta'||_p^2 - 1/2||theta_k||_p^2 -
      eta_k y w_k.x^]`` (zero for ``p = 2``);
    * projection: ``D(u, w'_k) - D(u, w_{k+1})`` (zero when ``||w'_k||_q <= 1``).
    """
    theta = np.zeros(stream.X.shape[1])
    root = math.sqrt(p - 1.0)
    smoothness = projection = 0.0

    def pnorm(v):
        return float(np.sum(np.abs(v) ** p) ** (1.0 / p))

    def inverse_link(v):          # f^{-1}(theta) = grad 1/2 ||theta||_p^2
        n = pnorm(v)
        return np.zeros_like(v) if n == 0.0 else np.sign(v) * np.abs(v) ** (p - 1.0) / n ** (p - 2.0)

    def divergence(v):            # D(u, f^{-1}(v)) with ||u||_q = 1 and theta = v
        return 0.5 + 0.5 * pnorm(v) ** 2 - float(u @ v)

    for k, t in enumerate(trials, start=1):
        eta = C / (root * math.sqrt(k))
        row = stream.X[t]
        row = np.asarray(row.toarray()).ravel() if sp.issparse(row) else np.asarray(row, dtype=np.float64).ravel()
        z = eta * stream.y[t] * row / norms[t]
        new = theta + z
        smoothness += 0.5 * (p - 1.0) * eta * eta - (0.5 * pnorm(new) ** 2 - 0.5 * pnorm(theta) ** 2
                                                     - eta * margins_hat[t])
        scale = max(1.0, pnorm(new))
        if scale > 1.0:
            projection += divergence(new) - divergence(new / scale)
        theta = new / scale
    return inverse_link(theta), smoothness, projection


def alma_bound(run, X, y, u, gamma=None):
    """Our ALMA_p(alpha; B, C) update bound (module docstring, (2a)/(2b)) on a finished run.

    ``observed`` is the number of updates ``m`` (every round with ``y_t
    w_t.x_t <= 0`` on a nonzero row is one; the term ``mistakes`` counts
    those; a zero row is skipped by ALMA and counted in ``zero_rows``, not
    in ``mistakes``), ``bound`` the smaller of the largest ``m`` allowed by (2a) and by
    (2b) for ``u / ||u||_q`` (terms ``bound_2a``, ``bound_2b``).

    Parameters
    ----------
    run : olearn.ALMA
        Fitted in one pass over ``(X, y)`` from ``w = 0``.
    X, y : the stream, in the order the run saw it (original labels).
    u : array of shape (n_features,), nonzero
        The competitor; it is normalised to ``||u||_q = 1``.
    gamma : float > 0 or None
        The margin; None takes the best of 200 candidates (quantiles of the
        competitor's positive normalised margins): the bound holds for every
        ``gamma > 0`` at once, so the minimum is a bound too.

    Notes
    -----
    Degenerate runs raise (:func:`olearn.bounds._common.refuse_degenerate`):
    another learner (``TypeError``), an unfitted run, an empty stream, a
    stream of zero rows only, ``gamma <= 0``, and a ``u`` with no positive
    margin on any round (``ValueError``: its hinge ``d_t >= gamma`` on every
    round, the competitor explains nothing of the stream).
    """
    stream = finished_run(run, X, y, ALMA)
    p, q, alpha, B, C = alma_parameters(run)
    norms = row_pnorms(stream.X, p)
    nonzero = norms > 0.0
    margins_hat = np.zeros_like(norms)
    margins_hat[nonzero] = stream.margins[nonzero] / norms[nonzero]
    trials = _updates(norms, margins_hat, p, alpha, B)
    if trials.size != run.n_updates_ or run.k_ != trials.size + 1:
        raise ValueError(
            f"The record implies {trials.size} updates but the run made "
            f"{run.n_updates_} (k_ = {run.k_}): pass the X, y the run saw, in "
            f"the same order, from a single pass started at w = 0.")
    if p == 2.0:
        _replay_p2(run, stream, trials, norms, margins_hat, C)

    u = np.asarray(u, dtype=np.float64).ravel()
    if u.shape != (stream.X.shape[1],) or not np.all(np.isfinite(u)):
        raise ValueError(f"u must be a finite vector of {stream.X.shape[1]} "
                         f"features, got shape {u.shape}.")
    u_norm = qnorm(u, q)
    if not u_norm > 0:
        raise ValueError("u must be nonzero.")
    u = u / u_norm
    margins_u = np.zeros_like(norms)
    margins_u[nonzero] = stream.competitor_margins(u)[nonzero] / norms[nonzero]

    refuse_degenerate(margins_u.size, margins_u=margins_u[nonzero], vacuous=(
        "its hinge gamma - y_t u.x_t >= gamma on every round, so D_gamma >= gamma "
        "sqrt(T): it explains none of the stream"))
    optimised = gamma is None
    if optimised:
        positive = margins_u[nonzero & (margins_u > 0)]
        if positive.size == 0:
            raise ValueError("u has no positive margin on the stream; pass gamma.")
        candidates = np.unique(np.quantile(positive, np.linspace(0.0, 1.0, 200)))
        values = [_both_bounds(g, margins_u[nonzero], p, alpha, B, C)[0]
                  for g in candidates]
        gamma = float(candidates[int(np.argmin(values))])
    elif not (np.isfinite(gamma) and gamma > 0):
        raise ValueError(f"gamma must be a finite number > 0, got {gamma!r}: pass gamma > 0 "
                         f"(or None for the best one).")
    bound, bound_a, bound_b, D, D2 = _both_bounds(gamma, margins_u[nonzero], p, alpha, B, C)

    # (1) and the potential inequality, on the update trials
    m = trials.size
    k = np.arange(1, m + 1, dtype=np.float64)
    eta = C / (math.sqrt(p - 1.0) * np.sqrt(k))
    c, K = C / math.sqrt(p - 1.0), (1.0 - alpha) * B * C + 0.5 * C * C
    d_trials = np.maximum(0.0, gamma - margins_u[trials])
    w = np.asarray(run.coef_, dtype=np.float64).ravel()
    divergence = 0.5 + 0.5 * qnorm(w, q) ** 2 - float(u @ link(w, q))
    # where the slack of (1) goes: rhs - lhs = final divergence + smoothness + projection
    # + margins below the target + competitor margins above gamma (all >= 0)
    w_path, smoothness, projection = _replay_path(stream, trials, norms, margins_hat,
                                                  p, C, u)
    if not np.allclose(w_path, w, rtol=1e-6, atol=1e-9 * max(1.0, float(np.max(np.abs(w), initial=0.0)))):
        raise ValueError("The replayed ALMA path does not end at run.coef_: pass the X, y "
                         "the run saw, in the same order, from a single pass started at w = 0.")
    gamma_k = (1.0 - alpha) * B * math.sqrt(p - 1.0) / np.sqrt(k)
    below_target = float(np.sum(eta * (gamma_k - margins_hat[trials])))
    above_gamma = float(np.sum(eta * np.maximum(0.0, margins_u[trials] - gamma)))
    return make_check(
        "ALMA_p(alpha; B, C): updates <= min of the largest m allowed by (2a) "
        "and by (2b) (our derivation)",
        m, bound,
        p=p, alpha=alpha, B=B, C=C, gamma=float(gamma), gamma_optimised=optimised,
        D_gamma=D, D2_gamma=D2, bound_2a=bound_a, bound_2b=bound_b, u_norm_q=u_norm,
        mistakes=int(np.count_nonzero((stream.margins <= 0.0) & nonzero)),
        zero_rows=int(np.count_nonzero(~nonzero)),
        sign_errors=int(run.n_mistakes_), model_changes=int(run.n_updates_),
        rounds=int(run.n_rounds_),
        sum_form_lhs=float(c * np.sum((gamma - d_trials) / np.sqrt(k))),
        sum_form_rhs=float(0.5 + K * np.sum(1.0 / k)),
        potential_lhs=float(np.sum(eta * (margins_u[trials] - margins_hat[trials])
                                   - 0.5 * (p - 1.0) * eta ** 2)),
        potential_rhs=float(0.5 - divergence),
        final_divergence=float(divergence),
        slack_final_divergence=float(divergence), slack_smoothness=float(smoothness),
        slack_projection=float(projection), slack_below_target=below_target,
        slack_above_gamma=above_gamma)
