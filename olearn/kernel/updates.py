"""Per-round rules of the kernel learners (compiled), one small function each.

Every rule of the DUOL paper's baselines (section 4.1) moves the function as
``f <- a f + b k(x_t, .)``; the coefficients ``(a, b)`` are those of the
linear learners, with ``||x_t||^2`` replaced by ``k(x_t, x_t)``, ``w.x_t`` by
``f(x_t)`` and ``||w||^2`` by ``||f||^2_H`` (tracked exactly along the updates):

* Perceptron: ``b = y_t`` when ``y_t f(x_t) <= 0``
  (:func:`olearn.linear.perceptron.perceptron_step`);
* ROMMA / aggressive ROMMA (Li and Long): ``(a, b) = (c, d)`` of
  :func:`olearn.linear.romma.romma_coefficients`;
* ALMA_2(alpha) (Gentile): :func:`olearn.linear.alma.alma2_coefficients`
  with ``||x_t|| = sqrt(k(x_t, x_t))``;
* PA-I / PA-II (Crammer et al.): ``b = tau y_t``, ``tau`` of
  :func:`olearn.linear.pa.pa_tau` with ``||x_t||^2 = k(x_t, x_t)``.

DUOL (Zhao, Hoi and Jin 2009, Algorithm 1) is :func:`duol_auxiliary` (the
choice of the auxiliary example) and :func:`duol_update` (the double or
single update and the incremental scores ``f_i``); ``update="exact"`` (ours)
uses :func:`duol_exact_step`, the maximiser of the dual gain of Lemma 1.
"""
import math

from numba import njit

from ..linear.alma import alma2_coefficients, alma_schedule
from ..linear.pa import pa_tau
from ..linear.perceptron import perceptron_step
from ..linear.romma import romma_coefficients

PERCEPTRON, ROMMA_RULE, AGG_ROMMA, ALMA_RULE, PA_RULE, DUOL_RULE = range(6)
# state vector st
SCALE, SQNORM, SUMGAMMA, KALMA, NDOUBLE = range(5)
# hyper-parameter vector hp
HP_C, HP_CAPPED, HP_GAMMA, HP_ALPHA, HP_B, HP_ETA, HP_RHO, HP_EXACT = range(8)


@njit(cache=True)
def predict_score(beta, row, n, st):
    """``f(x_t) = scale * sum_i beta_i k(s_i, x_t)``."""
    dot = 0.0
    for i in range(n):
        dot += beta[i] * row[i]
    return st[SCALE] * dot


@njit(cache=True)
def duol_auxiliary(y, row, n, sv_y, f, rho):
    """Algorithm 1, lines 8-15: the auxiliary example, or -1.

    Among the support vectors with ``f_i <= 0`` the one with the most negative
    ``w_i = y_i y_t k(x_i, x_t)``; it is used only if ``w_min <= -rho``.
    ``w_min`` starts at 0, so a candidate needs ``w_i < 0`` (with ``rho = 0``
    the paper's test ``0 <= -0`` would otherwise pass with no example chosen).
    """
    wmin = 0.0
    b = -1
    for i in range(n):
        if f[i] <= 0.0:
            w = sv_y[i] * y * row[i]
            if w < wmin:
                wmin = w
                b = i
    if b >= 0 and wmin <= -rho:
        return b
    return -1


@njit(cache=True)
def _clipped_quadratic_max(lin, quad, upper):
    """argmax of ``lin z - quad z^2 / 2`` over ``[0, upper]``."""
    if quad > 0.0:
        return min(max(lin / quad, 0.0), upper)
    return upper if lin > 0.0 else 0.0


@njit(cache=True)
def dual_gain(ga, dgb, la, lb, sa, sb, wab):
    """``h(gamma_a, dgamma_b)`` of Lemma 1, eq. (6), with ``l = 1 - y f(x)``."""
    return (ga * la + dgb * lb - 0.5 * sa * ga * ga - 0.5 * sb * dgb * dgb
            - wab * ga * dgb)


@njit(cache=True)
def duol_exact_step(la, lb, sa, sb, wab, C, ub):
    """Exact maximiser of Lemma 1's ``h`` over ``[0, C] x [0, ub]`` (ours).

    ``la = 1 - y_a f(x_a)``, ``lb = 1 - y_b f(x_b)``, ``sa = k(x_a, x_a)``,
    ``sb = k(x_b, x_b)``, ``wab = y_a y_b k(x_a, x_b)``, ``ub = C - hat gamma_b``.
    ``h`` is a concave quadratic (``sa sb >= wab^2`` for a positive
    semi-definite kernel).  Case 1: its stationary point, when ``sa sb > wab^2``
    and it lies in the box.  Case 2: otherwise the maximum is on an edge of the
    box; on each edge ``h`` is a one-variable concave quadratic maximised by
    clipping, and the best of the four edge maxima is taken.
    """
    det = sa * sb - wab * wab
    if det > 1e-12 * max(sa * sb, 1e-300):
        ga = (sb * la - wab * lb) / det
        gb = (sa * lb - wab * la) / det
        if 0.0 <= ga <= C and 0.0 <= gb <= ub:
            return ga, gb
    best_a, best_b, best = 0.0, 0.0, -math.inf
    for edge in range(4):
        if edge == 0:
            ga = 0.0
            gb = _clipped_quadratic_max(lb, sb, ub)
        elif edge == 1:
            ga = C
            gb = _clipped_quadratic_max(lb - wab * C, sb, ub)
        elif edge == 2:
            gb = 0.0
            ga = _clipped_quadratic_max(la, sa, C)
        else:
            gb = ub
            ga = _clipped_quadratic_max(la - wab * ub, sa, C)
        value = dual_gain(ga, gb, la, lb, sa, sb, wab)
        if value > best:
            best_a, best_b, best = ga, gb, value
    return best_a, best_b


@njit(cache=True)
def duol_update(y, score, kxx, row, row2, n, b, beta, sv_y, f, st, hp):
    """Algorithm 1, lines 6-37, for a round with ``l_t = 1 - y_t f(x_t) > 0``.

    ``row[i] = k(x_i, x_t)``, ``row2[i] = k(x_i, x_b)`` (when ``b >= 0``).
    Paper: double update ``gamma_t = min(C, 1/(1-rho))``,
    ``gamma_b = min(C, hat gamma_b + 1/(1-rho))``; single update
    ``gamma_t = min(C, 1)``.  Exact (``hp[HP_EXACT] = 1``, ours): the maximiser
    of the dual gain (:func:`duol_exact_step`; single update
    ``gamma_t = min(C, l_t / k(x_t, x_t))``).  Returns 2 (support vector added
    in slot ``n``) or 0 (no change: ``k(x_t, x_t) = 0``, a zero vector of the
    feature space).
    """
    loss = 1.0 - y * score
    if loss <= 0.0 or kxx <= 0.0:
        return 0
    C = hp[HP_C]
    rho = hp[HP_RHO]
    exact = hp[HP_EXACT] != 0.0
    dgb = 0.0
    yb = 0.0
    fb = 0.0
    kbb = 0.0
    kab = 0.0
    if b >= 0:
        yb = sv_y[b]
        gb_hat = beta[b] * yb
        fb = f[b]
        kbb = row2[b]
        kab = row[b]
        if exact:
            ga, dgb = duol_exact_step(loss, 1.0 - fb, kxx, kbb, y * yb * kab, C,
                                      C - gb_hat)
        else:
            ga = min(C, 1.0 / (1.0 - rho))
            dgb = min(C, gb_hat + 1.0 / (1.0 - rho)) - gb_hat
    else:
        ga = min(C, loss / kxx) if exact else min(C, 1.0)
    # scores f_i of the support vectors (lines 18-20 and 25-27)
    for i in range(n):
        f[i] += sv_y[i] * ga * y * row[i]
        if dgb != 0.0:
            f[i] += sv_y[i] * dgb * yb * row2[i]
    f[n] = y * score + ga * kxx + dgb * y * yb * kab
    st[SQNORM] = max(0.0, st[SQNORM] + 2.0 * ga * y * score + ga * ga * kxx
                     + 2.0 * dgb * fb + dgb * dgb * kbb
                     + 2.0 * ga * dgb * y * yb * kab)
    st[SUMGAMMA] += ga + dgb
    if b >= 0:
        beta[b] += dgb * yb / st[SCALE]
        st[NDOUBLE] += 1.0
    beta[n] = ga * y / st[SCALE]
    sv_y[n] = y
    return 2


@njit(cache=True)
def apply_round(rule, y, score, kxx, row, row2, n, b, beta, sv_y, f, st, hp):
    """The update of one round; returns 0 (no change), 2 (new support vector in
    slot ``n``) or 3 (new support vector in slot 0, the old ones dropped:
    ROMMA's ``c = 0``)."""
    if rule == DUOL_RULE:
        return duol_update(y, score, kxx, row, row2, n, b, beta, sv_y, f, st, hp)
    a = 1.0
    coef = 0.0
    W = st[SQNORM]
    if rule == PERCEPTRON:
        coef = perceptron_step(score, y)
    elif rule == ROMMA_RULE or rule == AGG_ROMMA:
        margin = y * score
        if (margin < 1.0) if rule == AGG_ROMMA else (margin <= 0.0):
            a, coef = romma_coefficients(score, kxx, W, y)
    elif rule == ALMA_RULE:
        if kxx > 0.0:
            norm_x = math.sqrt(kxx)
            gamma, eta = alma_schedule(st[KALMA], 2.0, hp[HP_B], hp[HP_ETA])
            if y * score / norm_x <= (1.0 - hp[HP_ALPHA]) * gamma:
                a, coef = alma2_coefficients(score, norm_x, W, y, eta)
                st[KALMA] += 1.0
    else:
        tau = pa_tau(max(0.0, 1.0 - y * score), kxx, hp[HP_C],
                     hp[HP_CAPPED] != 0.0, hp[HP_GAMMA])
        coef = tau * y
    if coef == 0.0:
        return 0
    st[SQNORM] = max(0.0, a * a * W + 2.0 * a * coef * score + coef * coef * kxx)
    slot = n
    if a == 0.0:
        slot = 0
        st[SCALE] = 1.0
    elif a != 1.0:
        s = st[SCALE] * a
        if abs(s) < 1e-100 or abs(s) > 1e100:
            for i in range(n):
                beta[i] *= s
            st[SCALE] = 1.0
        else:
            st[SCALE] = s
    beta[slot] = coef / st[SCALE]
    sv_y[slot] = y
    return 3 if (slot == 0 and n > 0) else 2


@njit(cache=True)
def forget_first(n, row0, beta, sv_y, sv_sq, f, st):
    """Remove support vector 0 (budget, ours): ``row0[i] = k(s_i, s_0)``, i < n.

    ``||f - c_0 k(s_0, .)||^2 = ||f||^2 - 2 c_0 f(s_0) + c_0^2 k(s_0, s_0)`` and
    ``f_i <- f_i - y_i c_0 k(s_i, s_0)``; the arrays shift down by one.
    """
    c0 = st[SCALE] * beta[0]
    f0 = 0.0
    for i in range(n):
        f0 += beta[i] * row0[i]
    f0 *= st[SCALE]
    st[SQNORM] = max(0.0, st[SQNORM] - 2.0 * c0 * f0 + c0 * c0 * row0[0])
    st[SUMGAMMA] -= abs(c0)
    for i in range(1, n):
        f[i] -= sv_y[i] * c0 * row0[i]
    for i in range(n - 1):
        beta[i] = beta[i + 1]
        sv_y[i] = sv_y[i + 1]
        sv_sq[i] = sv_sq[i + 1]
        f[i] = f[i + 1]
