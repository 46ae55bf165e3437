"""AROW's mistake bound (Theorem 2) and its two lemmas (Crammer, Kulesza, Dredze 2009).

Notation (Section 4 of the paper).  ``m_t = mu_{t-1}.x_t``,
``chi_t = x_t' Sigma_{t-1} x_t``, ``l_t = max(0, 1 - y_t m_t)``; ``M`` is the set
of mistakes (``y_t m_t <= 0``) and ``U`` the set of updates without a mistake
(``0 < y_t m_t < 1``; the extraction prints ``mu_t``, the update condition of
Figure 1 says ``mu_{t-1}``); ``X_A = sum_{t in M u U} x_t x_t'`` and
``g_t = max(0, 1 - y_t u.x_t)`` for a competitor ``u``.

Lemma 3 (every update)
    ``u' Sigma_t^{-1} mu_t = u' Sigma_{t-1}^{-1} mu_{t-1} + y_t u.x_t / r`` and
    ``mu_t' Sigma_t^{-1} mu_t = mu_{t-1}' Sigma_{t-1}^{-1} mu_{t-1}
    + (chi_t + r - l_t^2 r) / (r (chi_t + r))``.
Lemma 4
    ``sum_t chi_t / (chi_t + r) <= log det(Sigma_T^{-1})`` (with ``Sigma_0 = I``).

Theorem 2 (reconstructed).  The extracted statement (10) reads
``M <= sqrt(r ||u||^2 + u' X_A u) sqrt(log det(I + X_A / r)) + U + sum g_t - U``,
with a "+ U" that the proof puts *inside* the second square root: the proof
ends with ``M <= sqrt(r) sqrt(u' Sigma_T^{-1} u) sqrt(log det Sigma_T^{-1} + U)
+ sum g_t - U``, and ``r u' Sigma_T^{-1} u = r ||u||^2 + u' X_A u``.  We check

    M <= sqrt(r ||u||^2 / a + u' X_A u) sqrt(log det(I + a X_A / r) + U)
         + sum_{t in M u U} g_t - U,

for ``Sigma_0 = a I`` (the paper: ``a = 1``; the proof goes through with
``Sigma_T^{-1} = I/a + X_A / r`` and Lemma 4 relative to ``Sigma_0``).  We
re-derived every step (Lemma 3 from (7) and (8); Lemma 4 from
``x_t' Sigma_t x_t = chi_t r / (chi_t + r)`` and ``1 - 1/z <= log z``).

Zero scores count as mistakes (``y_t m_t <= 0``), as in the theorem; an
all-zero row has ``m_t = 0`` and counts in ``M`` with ``x_t x_t' = 0``.
The bound is for ``covariance="full"``: the diagonal version is not the
algorithm the theorem analyses.
"""
import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..second_order import AROW
from ._common import finished_run, make_check, refuse_degenerate


def _update_rows(stream):
    """Boolean masks ``M`` and ``U`` from the run's record."""
    margins = stream.margins
    M = margins <= 0.0
    U = (margins > 0.0) & (margins < 1.0)
    return M, U


def _dense_rows(X, mask):
    Z = X[np.flatnonzero(mask)]
    return Z.toarray() if sp.issparse(Z) else np.asarray(Z)


def _logdet_I_plus(Z, c):
    """``log det(I + c Z'Z)`` through the smaller of the two Gram matrices."""
    n, d = Z.shape
    G = Z @ Z.T if n <= d else Z.T @ Z
    sign, logdet = np.linalg.slogdet(np.eye(G.shape[0]) + c * G)
    if sign <= 0:
        raise FloatingPointError("I + c X_A is not positive definite.")
    return float(logdet)


def _full_covariance_updates(run, X, y, what):
    """The finished AROW run on (X, y) (full covariance, else an error naming ``what``): the
    stream, r, a, the mistake and update masks, their union A, the dense rows of A, their labels."""
    stream = finished_run(run, X, y, AROW)
    if run.covariance != "full":
        raise ValueError(f"{what} with a full covariance; "
                         f"the run has covariance={run.covariance!r}.")
    M, U = _update_rows(stream)
    A = M | U
    return (stream, float(run.r), float(run.a), M, U, A, _dense_rows(stream.X, A),
            stream.y[A])


def arow_bound(run, X, y, u):
    """Theorem 2 on a finished full-covariance AROW run (see the module docstring).

    Parameters
    ----------
    run : olearn.AROW
        Fitted with ``covariance="full"`` in one pass over ``(X, y)``.
    X, y : arrays
        The stream, in the order the run saw it.
    u : array of shape (n_features,)
        Any competitor (the bound holds for every ``u``).

    Notes
    -----
    Returns a :class:`olearn.bounds.BoundCheck` with ``observed = M`` and the
    terms ``M``, ``U``, ``sum_g``, ``quad = r||u||^2/a + u'X_A u`` and
    ``logdet = log det(I + a X_A / r)``.  The run's final mean is replayed
    first: ``mu_T = Sigma_T (sum_{M u U} y_t x_t) / r`` with
    ``Sigma_T^{-1} = I/a + X_A / r`` must hold, else the run did not see this
    stream.

    Degenerate runs raise (:func:`olearn.bounds._common.refuse_degenerate`):
    another learner (``TypeError``), an unfitted run, an empty stream, a
    stream of zero rows only, and a nonzero ``u`` with no positive margin on any
    round (``ValueError``: ``g_t >= 1`` on every update, so the bound is at least
    ``M + U - U = M``, it cannot fail).  ``u = 0`` is accepted: its bound is
    exactly ``M``, an equality that checks the counts of ``M`` and ``U`` (it
    fails when either is miscounted), not a bound on the learner.
    """
    stream, r, a, M, U, A, Z, yA = _full_covariance_updates(
        run, X, y, "Theorem 2 is about AROW")
    d = Z.shape[1]
    # replay: Sigma_T^{-1} mu_T = sum y x / r
    P = np.eye(d) / a + Z.T @ Z / r
    replay = np.linalg.solve(P, Z.T @ yA / r)
    mu = run.coef_.ravel()
    if np.max(np.abs(mu - replay)) > 1e-6 * max(1.0, np.max(np.abs(replay))):
        raise ValueError("The run's mean is not the one its record implies for "
                         "this stream: pass the X, y the run saw, in order, "
                         "from a single pass.")
    u = np.asarray(u, dtype=np.float64).ravel()
    if u.shape != (d,):
        raise ValueError(f"u must have {d} entries, got shape {u.shape}.")
    # u = 0 is taken: its bound is exactly M (g_t = 1 on every update round), an equality
    # that fails when M or U is miscounted; any other u without a positive margin is refused
    refuse_degenerate(stream.y.size, margins_u=stream.competitor_margins(u) if u.any() else None,
                      vacuous=("g_t >= 1 on every update round, so the bound is at least "
                               "M + U - U = M: it cannot fail"))
    Zu = Z @ u
    quad = r * (u @ u) / a + float(Zu @ Zu)
    logdet = _logdet_I_plus(Z, a / r)
    g = np.maximum(0.0, 1.0 - yA * Zu)
    n_M, n_U = int(M.sum()), int(U.sum())
    bound = np.sqrt(quad) * np.sqrt(logdet + n_U) + g.sum() - n_U
    return make_check(
        "AROW: M <= sqrt(r||u||^2/a + u'X_A u) sqrt(log det(I + a X_A/r) + U) "
        "+ sum g_t - U (Thm 2, reconstructed)",
        n_M, bound, M=n_M, U=n_U, sum_g=float(g.sum()), quad=quad,
        logdet=logdet, r=r, a=a)


def arow_lemma_trace(X, y, r=1.0, a=1.0, u=None):
    """Run AROW (full) round by round and evaluate Lemmas 3 and 4 on every update.

    Returns a DataFrame with one row per update round ``t``: ``chi``, ``loss``
    (``l_t``), the residuals ``lemma3_u`` and ``lemma3_mu`` of the two
    identities (left side minus right side, relative to the size of the
    terms), ``lemma4_lhs`` (``sum_{s <= t} chi_s / (chi_s + r)``) and
    ``lemma4_rhs`` (``log det(Sigma_0 Sigma_t^{-1})``), and
    ``Sigma_asym`` / ``Sigma_min_eig`` of the library's ``Sigma_t``.
    ``Sigma_t^{-1}`` is the inverse of the library's covariance (not an
    independent recursion), so the identities test the library's state.
    An empty stream or one of zero rows only raises ``ValueError``
    (:func:`olearn.bounds._common.refuse_degenerate`); any ``u`` is taken
    (Lemma 3 is an identity for every ``u``).
    """
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    y = np.asarray(y).ravel()
    refuse_degenerate(min(X.shape[0], y.shape[0]) if X.ndim == 2 else 0,
                      np.einsum("ij,ij->i", X, X) if X.ndim == 2 else None)
    labels = np.unique(y)
    y_pm = np.where(y == labels[-1], 1.0, -1.0)
    d = X.shape[1]
    rng = np.random.default_rng(0)
    u = rng.standard_normal(d) if u is None else np.asarray(u, dtype=np.float64)
    est = AROW(r=r, a=a)
    mu_prev, P_prev = np.zeros(d), np.eye(d) / a
    lhs4 = 0.0
    rows = []
    for t in range(X.shape[0]):
        x = X[t]
        est.partial_fit(X[t:t + 1], y[t:t + 1], classes=labels)
        if est.n_updates_ == len(rows):
            continue
        S = est.covariance_
        mu = est.coef_.ravel()
        P = np.linalg.inv(S)
        chi = x @ np.linalg.solve(P_prev, x)
        loss = max(0.0, 1.0 - y_pm[t] * (mu_prev @ x))
        a3 = u @ P @ mu
        b3 = u @ P_prev @ mu_prev + y_pm[t] * (u @ x) / r
        scale_u = abs(u @ P @ mu) + abs(u @ P_prev @ mu_prev) + abs(u @ x) / r
        a3m = mu @ P @ mu
        inc = (chi + r - loss ** 2 * r) / (r * (chi + r))
        b3m = mu_prev @ P_prev @ mu_prev + inc
        lhs4 += chi / (chi + r)
        sign, logdet = np.linalg.slogdet(a * P)
        eig = np.linalg.eigvalsh(S)
        rows.append({"t": t, "chi": chi, "loss": loss,
                     "lemma3_u": (a3 - b3) / max(1.0, scale_u),
                     "lemma3_mu": (a3m - b3m) / max(1.0, abs(a3m) + abs(inc)),
                     "lemma4_lhs": lhs4, "lemma4_rhs": logdet,
                     "Sigma_asym": float(np.max(np.abs(S - S.T))),
                     "Sigma_min_eig": float(eig[0])})
        mu_prev, P_prev = mu, P
    return pd.DataFrame(rows)


def arow_regret_lemma(run, X, y, u):
    """What the OMD regret lemma yields for full AROW, evaluated on a finished run.

    AROW is online mirror descent on the squared hinge ``l_t^2 / 2`` with step ``1/r``
    and the regularizer ``psi_t(w) = w' Sigma_{t+1}^{-1} w / 2`` grown by ``x_t x_t'/r``
    before the step (``book/oco/instances``).  On an update round, with
    ``z_t = y_t u.x_t`` and ``v_t = x_t' Sigma_t x_t``, the lemma's linear regret
    minus its growth term is ``(l_t^2 - (1 - z_t)^2) / (2r)`` and its stability term
    is ``l_t^2 v_t / (2r (v_t + r))``.  The lemma (dropping its final distance
    ``D_end >= 0``) therefore reads::

        sum_{t in A} l_t^2 r / (v_t + r)  <=  (r/a) ||u||^2 + sum_{t in A} (1 - z_t)^2

    and, since ``l_t >= 1`` on a mistake, ``M <= max_{t in M} (1 + v_t/r)`` times
    the right side.  It is not Theorem 2: the stability is weighted by the
    unbounded ``l_t^2``, so Lemma 4 (``sum v_t/(v_t + r) <= log det``) does not
    bound it by ``log det(I + a X_A / r) / (2r)``; the published proof gets its
    log-determinant from the potential ``mu' Sigma^{-1} mu`` (Lemma 3), where
    ``l_t^2`` enters as ``1 - l_t^2 <= 0`` on mistakes, and Cauchy-Schwarz.

    Returns a :class:`olearn.bounds.BoundCheck` with ``observed`` the left side and ``bound``
    the right side; ``terms`` hold ``stability``, ``half_logdet_over_r``
    (``log det(I + a X_A/r) / (2r)``), ``final`` (``r (u - mu)' Sigma^{-1} (u - mu)``,
    the dropped slack, so that left + final = right is an identity),
    ``mistake_bound``, ``M``, ``U`` and ``sum_sq`` (``sum_A (1 - z_t)^2``).
    The run is replayed (Sherman-Morrison on the update rounds); its mean must
    equal the library's.  Degenerate runs raise as for :func:`arow_bound`
    (another learner, unfitted, empty, zero rows only), except that any ``u``
    is taken, one with no positive margin too: the lemma holds for every ``u``
    and is not vacuous for it (its left side is not bounded by the rounds).
    """
    stream, r, a, M, U, A, Z, yA = _full_covariance_updates(
        run, X, y, "The lemma's instance is AROW")
    loss = 1.0 - stream.margins[A]
    d = Z.shape[1]
    u = np.asarray(u, dtype=np.float64).ravel()
    if u.shape != (d,):
        raise ValueError(f"u must have {d} entries, got shape {u.shape}.")
    Sigma, mu = a * np.eye(d), np.zeros(d)
    v = np.empty(len(yA))
    for i, (x, yt, lt) in enumerate(zip(Z, yA, loss)):
        Sx = Sigma @ x
        v[i] = float(x @ Sx)
        mu = mu + lt / (v[i] + r) * yt * Sx
        Sigma = Sigma - np.outer(Sx, Sx) / (v[i] + r)
    if np.max(np.abs(mu - run.coef_.ravel())) > 1e-6 * max(1.0, np.max(np.abs(mu))):
        raise ValueError("The run's mean is not the one its record implies for this "
                         "stream: pass the X, y the run saw, in order, from one pass.")
    z = yA * (Z @ u)
    lhs = float(np.sum(loss ** 2 * r / (v + r)))
    sum_sq = float(np.sum((1.0 - z) ** 2))
    rhs = r * float(u @ u) / a + sum_sq
    diff = u - mu
    final = r * float(diff @ np.linalg.solve(Sigma, diff))
    on_mistakes = M[A]
    factor = float(np.max(1.0 + v[on_mistakes] / r)) if on_mistakes.any() else 1.0
    return make_check(
        "AROW as OMD: sum_A l_t^2 r/(v_t + r) <= (r/a)||u||^2 + sum_A (1 - y_t u.x_t)^2 "
        "(the regret lemma; not Theorem 2)",
        lhs, rhs, stability=float(np.sum(loss ** 2 * v / (v + r))) / (2 * r),
        half_logdet_over_r=_logdet_I_plus(Z, a / r) / (2 * r), final=final,
        identity_gap=abs(lhs + final - rhs), mistake_bound=factor * rhs,
        max_factor=factor, M=int(M.sum()), U=int(U.sum()), sum_sq=sum_sq, r=r, a=a)
