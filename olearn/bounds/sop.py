"""The mistake bound of the second-order Perceptron (Cesa-Bianchi, Conconi and
Gentile, SIAM J. Comput. 2005, Theorem 1).

With ``A_0 = a I``, ``X_M`` the matrix whose rows are the instances of the
mistake rounds and ``lambda_i`` the eigenvalues of ``X_M' X_M``, for every
``gamma > 0`` and every ``u``

    M <= D_gamma(u) / gamma
         + sqrt((a ||u||^2 + u' X_M' X_M u) sum_i ln(1 + lambda_i / a)) / gamma,

``D_gamma(u)`` the competitor's hinge loss at margin ``gamma``.
:func:`sop_bound` sums it over all rounds, which is at least the paper's term
(it cannot exceed the sum over every round), so the form evaluated is implied
by the theorem; the book does not re-prove the theorem.
The right-hand side is unchanged when ``u`` and ``gamma`` are scaled together,
so ``gamma = 1`` and the scale of ``u`` is chosen on a grid (every scale gives
a valid bound; their minimum is one).  A mistake is a round with
``y_t m_t <= 0`` (``margins_``), as the theorem counts it.
"""
import numpy as np

from ..second_order import SOP
from ._common import finished_run, make_check

SCALES = np.geomspace(1e-3, 1e3, 121)


def sop_bound(run, X, y, u, scales=SCALES):
    """Mistakes of a finished full-covariance :class:`~olearn.SOP` run against Theorem 1.

    ``terms``: ``log_det = sum_i ln(1 + lambda_i/a)``, the best scale of
    ``u``, its hinge loss ``D`` and quadratic term, and the replay deviation
    (the final mean must be ``(a I + X_M'X_M)^{-1} X_M' y_M``).
    """
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
    margins_u = stream.competitor_margins(u)
    quad_u = a * (u @ u) + float(np.sum((Xm @ u) ** 2))
    bounds = [np.maximum(0.0, 1.0 - c * margins_u).sum() + c * np.sqrt(quad_u * log_det)
              for c in scales]
    best = int(np.argmin(bounds))
    c = float(scales[best])
    return make_check(
        "SOP: M <= D_1(cu) + sqrt((a||cu||^2 + (cu)'X_M'X_M(cu)) sum ln(1 + lambda_i/a)) "
        "(Cesa-Bianchi, Conconi and Gentile 2005, Thm 1; hinge over all rounds)",
        int(mistakes.sum()), bounds[best], mistakes=int(mistakes.sum()), a=a,
        log_det=log_det, scale=c, D=float(np.maximum(0.0, 1.0 - c * margins_u).sum()),
        quadratic=c * c * quad_u, replay_deviation=deviation)
