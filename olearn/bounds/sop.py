"""The mistake bound of the second-order Perceptron (Cesa-Bianchi, Conconi and
Gentile, SIAM J. Comput. 2005, Theorem 1).

With ``A_0 = a I``, ``M`` the set of mistake rounds, ``X_M`` the matrix whose
rows are their instances and ``lambda_i`` the eigenvalues of ``X_M' X_M``, for
every ``gamma > 0`` and every ``u``

    |M| <= D_gamma(u; M) / gamma
           + sqrt((a ||u||^2 + u' X_M' X_M u) sum_i ln(1 + lambda_i / a)) / gamma,

``D_gamma(u; M) = sum_{t in M} max(0, gamma - y_t u.x_t)`` the competitor's
hinge loss at margin ``gamma`` on the *mistake rounds*.  The book reads this
form from the AROW paper (Crammer, Kulesza and Dredze 2009, Section 4): its
Theorem 2 with no margin-error updates (``U`` empty) and ``r = a``, which that
paper says "reduces to the bound of the second-order perceptron"; the
competitor's loss there is summed over the mistake rounds.  The SOP paper's
own text is not among the stored papers.  ``hinge="all"`` sums the loss over
every round instead: a weaker bound (it is at least the theorem's), which is
what this function evaluated before.

The right-hand side is unchanged when ``u`` and ``gamma`` are scaled together,
so ``gamma = 1`` and the scale of ``u`` is chosen on a grid (every scale gives
a valid bound; their minimum is one).  A mistake is a round with
``y_t m_t <= 0`` (``margins_``), as the theorem counts it.
"""
import numpy as np

from ..second_order import SOP
from ._common import finished_run, make_check, refuse_degenerate

SCALES = np.geomspace(1e-3, 1e3, 121)


def sop_bound(run, X, y, u, scales=SCALES, hinge="mistakes"):
    """Mistakes of a finished full-covariance :class:`~olearn.SOP` run against Theorem 1.

    ``hinge="mistakes"`` (the theorem) sums the competitor's hinge loss over the
    mistake rounds, ``hinge="all"`` over every round (a weaker, implied bound).
    ``terms``: ``log_det = sum_i ln(1 + lambda_i/a)``, the best scale of ``u``, its
    hinge loss ``D`` (on the rounds ``hinge`` names) and ``D_all`` (every round), the
    quadratic term, and the replay deviation (the final mean must be
    ``(a I + X_M'X_M)^{-1} X_M' y_M``).

    Degenerate runs raise (:func:`olearn.bounds._common.refuse_degenerate`):
    another learner (``TypeError``), an unfitted run, an empty stream, a
    stream of zero rows only, and a ``u`` with no positive margin on any round
    (``ValueError``: its hinge is ``>= 1`` on every mistake round, so the
    bound is at least ``|M|``: it cannot fail).
    """
    if hinge not in ("mistakes", "all"):
        raise ValueError(f"hinge must be 'mistakes' (Theorem 1) or 'all'; got {hinge!r}.")
    stream = finished_run(run, X, y, SOP)
    if run.covariance != "full":
        raise ValueError("Theorem 1 is about the full matrix A; the run has "
                         "covariance='diag'. Fit SOP(covariance='full').")
    Xd = stream.X.toarray() if hasattr(stream.X, "toarray") else np.asarray(stream.X)
    mistakes = stream.margins <= 0
    Xm, ym = Xd[mistakes], stream.y[mistakes]
    a = float(run.a)
    A = a * np.eye(Xd.shape[1]) + Xm.T @ Xm
    mean = np.linalg.solve(A, Xm.T @ ym)
    deviation = float(np.max(np.abs(run.coef_.ravel() - mean), initial=0.0))
    if deviation > 1e-6 * max(1.0, float(np.abs(mean).max(initial=0.0))):
        raise ValueError(f"The run's mean is not the one its record implies for this "
                         f"stream (max deviation {deviation:.3g}): pass the X, y the run "
                         f"saw, in the same order, from one pass.")
    log_det = float(np.sum(np.log1p(np.linalg.eigvalsh(Xm.T @ Xm).clip(min=0.0) / a)))
    u = np.asarray(u, dtype=float).ravel()
    if u.shape != (Xd.shape[1],):
        raise ValueError(f"u must have {Xd.shape[1]} entries, got shape {u.shape}.")
    margins_u = stream.competitor_margins(u)
    refuse_degenerate(margins_u.size, margins_u=margins_u, vacuous=(
        "max(0, 1 - c y_t u.x_t) >= 1 on every mistake round, so the bound is at "
        "least the number of mistakes: it cannot fail"))
    counted = mistakes if hinge == "mistakes" else np.ones_like(mistakes)
    quad_u = a * (u @ u) + float(np.sum((Xm @ u) ** 2))
    bounds = [np.maximum(0.0, 1.0 - c * margins_u[counted]).sum()
              + c * np.sqrt(quad_u * log_det) for c in scales]
    best = int(np.argmin(bounds))
    c = float(scales[best])
    where = "mistake rounds" if hinge == "mistakes" else "all rounds (weaker)"
    return make_check(
        "SOP: M <= D_1(cu) + sqrt((a||cu||^2 + (cu)'X_M'X_M(cu)) sum ln(1 + lambda_i/a)) "
        f"(Cesa-Bianchi, Conconi and Gentile 2005, Thm 1; hinge over {where})",
        int(mistakes.sum()), bounds[best], mistakes=int(mistakes.sum()), a=a,
        log_det=log_det, scale=c, hinge=hinge,
        D=float(np.maximum(0.0, 1.0 - c * margins_u[counted]).sum()),
        D_all=float(np.maximum(0.0, 1.0 - c * margins_u).sum()),
        quadratic=c * c * quad_u, replay_deviation=deviation)
