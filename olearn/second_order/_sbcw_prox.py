"""Algorithm 3 of Tan et al. (AAAI 2016): online proximal primal-dual
coordinate ascent on subproblem (16), and the conjugate it needs.

Subproblem (16), with the whitened rows ``x_hat_i = [x_hat_i^k]_k`` split in
``K`` groups (columns ``ptr[k]:ptr[k+1]``) and ``sigma > 0`` small:

    min_w  Omega(w) + C sum_i l(y_i w.x_hat_i),
    Omega(w) = sigma/2 ||w||^2 + 1/2 (sum_k ||w_k||)^2,

``l(m) = max(0, 1 - m)`` (``q = 1``) or ``max(0, 1 - m)^2`` (``q = 2``: the
loss whose dual step is Algorithm 3's ``xi / (C ||x||^2 + 0.5)``).

Gradient of the conjugate (derived in the chapter; the paper's supplement is
not available).  ``Omega*(z) = max_w w.z - Omega(w)``.  Writing
``w_k = t_k u_k`` with ``||u_k|| = 1`` the maximum has ``u_k = z_k / a_k``,
``a_k = ||z_k||``, and ``t >= 0`` maximises
``sum_k t_k a_k - sigma/2 sum_k t_k^2 - 1/2 (sum_k t_k)^2``.  Its KKT
conditions give ``t_k = (a_k - S)_+ / sigma`` with ``S = sum_k t_k``, so
``sigma S = sum_k (a_k - S)_+``: with ``a`` sorted decreasingly and ``m``
groups active, ``S = (a_(1) + ... + a_(m)) / (sigma + m)`` where ``m`` is the
largest index with ``a_(m) > S_m``.  Then

    grad Omega*(z)_k = (a_k - S)_+ / (sigma a_k) * z_k,
    Omega*(z) = sum_k t_k a_k - sigma/2 sum_k t_k^2 - S^2 / 2.
"""
import numpy as np
from numba import njit


@njit(cache=True)
def omega_star_scales(a, sigma, scales):
    """Fill ``scales`` with ``c_k`` (``grad Omega*(z)_k = c_k z_k``) from the
    group norms ``a_k = ||z_k||``; return ``(Omega*(z), S)``."""
    K = a.shape[0]
    order = np.argsort(-a)
    cum = 0.0
    S = 0.0
    for idx in range(K):
        k = order[idx]
        candidate = (cum + a[k]) / (sigma + idx + 1.0)
        if a[k] > candidate:
            cum += a[k]
            S = candidate
        else:
            break
    value = 0.0
    for k in range(K):
        t = a[k] - S
        if t > 0.0 and a[k] > 0.0:
            t /= sigma
            scales[k] = t / a[k]
            value += t * a[k] - 0.5 * sigma * t * t
        else:
            scales[k] = 0.0
    return value - 0.5 * S * S, S


def grad_omega_star(z, ptr, sigma):
    """``grad Omega*(z)`` and ``Omega*(z)`` for groups ``ptr`` (Python entry)."""
    z = np.asarray(z, dtype=np.float64)
    ptr = np.asarray(ptr, dtype=np.int64)
    a = np.array([np.linalg.norm(z[ptr[k]:ptr[k + 1]])
                  for k in range(ptr.shape[0] - 1)])
    scales = np.zeros(a.shape[0])
    value, _ = omega_star_scales(a, float(sigma), scales)
    w = np.repeat(scales, np.diff(ptr)) * z
    return w, value


def omega_subgradient(w, ptr, sigma):
    """A ``z`` with ``grad Omega*(z) = w``: the element of ``d Omega(w)`` that is
    zero on the groups where ``w_k = 0``.

    ``d Omega(w)_k = sigma w_k + S w_k / ||w_k||`` (``S = sum_k ||w_k||``) where
    ``w_k != 0``, and any vector of norm ``<= S`` where ``w_k = 0``.  Algorithm 3
    started from this ``z^0`` starts at ``w^0 = w`` (Fenchel: ``z in d Omega(w)``
    iff ``w = grad Omega*(z)``); ``w = 0`` gives the printed ``z^0 = 0``.
    """
    w = np.asarray(w, dtype=np.float64)
    ptr = np.asarray(ptr, dtype=np.int64)
    norms = np.array([np.linalg.norm(w[ptr[k]:ptr[k + 1]])
                      for k in range(ptr.shape[0] - 1)])
    S = float(norms.sum())
    scale = np.where(norms > 0, sigma + S / np.where(norms > 0, norms, 1.0), 0.0)
    return np.repeat(scale, np.diff(ptr)) * w


def omega(w, ptr, sigma):
    """``Omega(w) = sigma/2 ||w||^2 + 1/2 (sum_k ||w_k||)^2``."""
    norms = [np.linalg.norm(w[ptr[k]:ptr[k + 1]]) for k in range(len(ptr) - 1)]
    return 0.5 * sigma * float(w @ w) + 0.5 * float(np.sum(norms)) ** 2


@njit(cache=True)
def _group_norms(z, ptr, a):
    for k in range(ptr.shape[0] - 1):
        acc = 0.0
        for j in range(ptr[k], ptr[k + 1]):
            acc += z[j] * z[j]
        a[k] = np.sqrt(acc)


@njit(cache=True)
def _slope(delta, b, alpha_i, u, v, a2, sigma, work_a, work_c, q):
    """``dD/d delta / C`` along coordinate ``i`` at ``alpha_i + delta``."""
    K = u.shape[0]
    for k in range(K):
        work_a[k] = np.sqrt(max(a2[k] + 2.0 * b * delta * u[k]
                                + b * b * delta * delta * v[k], 0.0))
    omega_star_scales(work_a, sigma, work_c)
    dot = 0.0
    for k in range(K):
        dot += work_c[k] * (u[k] + b * delta * v[k])
    g = 0.0 if q == 1 else 0.5 * (alpha_i + delta)
    return 1.0 - (b / abs(b)) * dot - g


@njit(cache=True)
def prox_pass(Xh, y, z, alpha, ptr, scales, sigma, C, q, exact):
    """One online pass of Algorithm 3 over the rows of ``Xh`` (N x P, dense).

    ``z`` and ``alpha`` carry over (``z = C sum_i alpha_i y_i x_hat_i``);
    ``w = grad Omega*(z)`` is kept as the group scales ``scales``.

    ``exact=False`` (the paper): from ``alpha = 0`` the step is
    ``min(xi/(C||x||^2), 1)`` for ``q = 1`` and ``xi / (C||x||^2 + 0.5)`` for
    ``q = 2`` (the maximiser of the dual along the coordinate when
    ``Omega*`` is replaced by its quadratic model of curvature 1); later
    passes take the same step from the current ``alpha_i``.
    ``exact=True`` (ours, not the paper's): the dual is maximised exactly
    along the coordinate (bisection on its monotone slope), so every step
    increases ``D``; ``Omega*`` is only ``1/sigma``-smooth, and the paper's
    step can overshoot when several groups are active.
    Returns the number of rows whose ``alpha`` changed.
    """
    n, P = Xh.shape
    K = ptr.shape[0] - 1
    a = np.zeros(K)
    a2 = np.zeros(K)
    u = np.zeros(K)
    v = np.zeros(K)
    work_a = np.zeros(K)
    work_c = np.zeros(K)
    _group_norms(z, ptr, a)
    omega_star_scales(a, sigma, scales)
    changed = 0
    for i in range(n):
        score = 0.0
        sq = 0.0
        for k in range(K):
            c = scales[k]
            uk = 0.0
            vk = 0.0
            for j in range(ptr[k], ptr[k + 1]):
                xj = Xh[i, j]
                vk += xj * xj
                uk += z[j] * xj
            u[k] = uk
            v[k] = vk
            a2[k] = a[k] * a[k]
            sq += vk
            score += c * uk
        if sq <= 0.0:
            continue
        margin = y[i] * score
        if not exact:
            if q == 1:
                new = alpha[i] + (1.0 - margin) / (C * sq)
                new = min(max(new, 0.0), 1.0)
            else:
                new = alpha[i] + (1.0 - margin - 0.5 * alpha[i]) / (C * sq + 0.5)
                new = max(new, 0.0)
        else:
            b = C * y[i]
            lo = -alpha[i]
            if _slope(lo, b, alpha[i], u, v, a2, sigma, work_a, work_c, q) <= 0.0:
                new = 0.0
            else:
                if q == 1:
                    hi = 1.0 - alpha[i]
                    if _slope(hi, b, alpha[i], u, v, a2, sigma, work_a,
                              work_c, q) >= 0.0:
                        lo = hi
                else:
                    hi = max(1.0, 2.0 * alpha[i])
                    while _slope(hi, b, alpha[i], u, v, a2, sigma, work_a,
                                 work_c, q) > 0.0:
                        lo = hi
                        hi *= 2.0
                for _ in range(60):
                    if hi - lo <= 1e-12 * max(1.0, abs(hi)):
                        break
                    mid = 0.5 * (lo + hi)
                    if _slope(mid, b, alpha[i], u, v, a2, sigma, work_a,
                              work_c, q) > 0.0:
                        lo = mid
                    else:
                        hi = mid
                new = alpha[i] + 0.5 * (lo + hi)
                if q == 1:
                    new = min(max(new, 0.0), 1.0)
                else:
                    new = max(new, 0.0)
        delta = new - alpha[i]
        if delta == 0.0:
            continue
        alpha[i] = new
        b = C * delta * y[i]
        for j in range(P):
            z[j] += b * Xh[i, j]
        _group_norms(z, ptr, a)
        omega_star_scales(a, sigma, scales)
        changed += 1
    return changed


def dual_value(z, alpha, ptr, sigma, C, q):
    """``D(alpha) = -Omega*(z) + C sum_i (alpha_i - g(alpha_i))``, ``g = 0``
    (hinge) or ``alpha^2 / 4`` (squared hinge), ``z = z0 + C sum_i alpha_i
    y_i x_hat_i`` (``z0 = 0`` in the paper's first batch)."""
    _, value = grad_omega_star(z, ptr, sigma)
    g = 0.0 if q == 1 else 0.25 * float(alpha @ alpha)
    return -value + C * (float(alpha.sum()) - g)


def primal_value(w, Xh, y, ptr, sigma, C, q, z0=None):
    """Objective of (16) at ``w``; with a start ``z0`` (a prior mean, see
    :mod:`olearn.second_order.sbcw`) the objective ``Omega(w) - z0.w + C sum
    l_i`` whose dual Algorithm 3 ascends from ``z = z0``."""
    xi = np.maximum(0.0, 1.0 - y * (Xh @ w))
    loss = xi.sum() if q == 1 else float(xi @ xi)
    shift = 0.0 if z0 is None else float(z0 @ w)
    return omega(w, ptr, sigma) - shift + C * loss
