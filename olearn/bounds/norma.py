"""A cumulative hinge-loss and mistake bound of linear NORMA on a finished run (our derivation).

The update of :class:`olearn.NORMA` (Kivinen, Smola and Williamson 2004,
classification with the soft-margin loss) is, from ``w_1 = 0``,

    w_{t+1} = (1 - eta_t lam) w_t + eta_t sigma_t y_t x_t,
    sigma_t = [y_t w_t.x_t < rho],

a subgradient step on ``R_t(w) = lam/2 ||w||^2 + l_t(w)``, ``l_t(w) = max(0,
rho - y_t w.x_t)``, with ``eta_t = eta`` or ``eta_t = eta / sqrt(t)`` (``t``
counts every round) and ``eta lam < 1``.

KSW's own statements (IEEE TSP 52(8), 2004) were not available to us, so the
bound below is **our derivation** for exactly this update, by the standard
online-gradient-descent argument (KSW's technique; Zinkevich 2003).

Statement.  For any competitor ``g``, with ``L(g) = sum_t l_t(g)``,
``L = sum_t l_t(w_t)`` the learner's cumulative hinge loss (before each
update), ``A = max_{t<=T} ||w_t - g||^2`` and ``T`` rounds,

    (1 - eta lam) L <= L(g) + T lam/2 ||g||^2 + Phi + sum_t eta_t sigma_t (||x_t||^2/2 - lam rho),

where ``Phi = ||g||^2 / (2 eta)`` for the constant step and ``Phi = A sqrt(T)
/ (2 eta)`` for ``eta_t = eta / sqrt(t)``.  A mistake (``y_t w_t.x_t <= 0``)
has ``l_t(w_t) >= rho``, so ``#mistakes <= L / rho`` is bounded by the same
right side divided by ``rho (1 - eta lam)``.  If ``||x_t||^2 <= 2 lam rho``
for every ``t`` the last sum is ``<= 0`` and the bound is a priori (no
learner quantity on the right) for the constant step.

Proof.  ``nabla_t = lam w_t - sigma_t y_t x_t`` is a subgradient of ``R_t``
at ``w_t``, so ``R_t(w_t) - R_t(g) <= nabla_t.(w_t - g)`` and
``||w_{t+1} - g||^2 = ||w_t - g||^2 - 2 eta_t nabla_t.(w_t - g) + eta_t^2
||nabla_t||^2``.  Dividing by ``2 eta_t`` and summing: ``sum_t [R_t(w_t) -
R_t(g)] <= sum_t (a_t - a_{t+1}) / (2 eta_t) + sum_t eta_t ||nabla_t||^2 /
2`` with ``a_t = ||w_t - g||^2``; the first sum is ``<= ||g||^2/(2 eta)``
(constant step: it telescopes from ``a_1 = ||g||^2``) or ``<= A / (2
eta_T)`` (non-increasing steps).  Expanding ``||nabla_t||^2 = lam^2 ||w_t||^2
- 2 lam sigma_t y_t w_t.x_t + sigma_t ||x_t||^2`` and using ``sigma_t y_t
w_t.x_t = sigma_t rho - l_t(w_t)`` (``l_t(w_t) > 0`` only when ``sigma_t =
1``) gives ``sum_t (1 - eta_t lam)(lam/2 ||w_t||^2 + l_t(w_t)) <= L(g) + T
lam/2 ||g||^2 + Phi + sum_t eta_t sigma_t (||x_t||^2/2 - lam rho)``; drop the
``||w_t||^2`` terms and use ``eta_t <= eta``.

With ``lam = 0``, ``sigma_t = 1`` on every round and a competitor ``g``
with ``y_t g.x_t < rho`` everywhere, every inequality is an equality except
the dropped ``||w_{T+1} - g||^2 / (2 eta)``: with ``g = w_{T+1}`` the bound
is attained (a test of the constants).
"""
import numpy as np

from ..linear.norma import NORMA
from ._common import (check_replay, finished_run, make_check, refuse_degenerate,
                      theorem_mistakes)


def _trajectory(run, stream, g):
    """Steps, ``sigma_t``, ``||w_t||^2`` and ``||w_t - g||^2`` rebuilt from the record."""
    T = stream.y.shape[0]
    t = np.arange(1, T + 1, dtype=np.float64)
    eta, lam, rho = float(run.eta), float(run.lam), float(run.rho)
    steps = eta / np.sqrt(t) if run.schedule == "sqrt" else np.full(T, eta)
    sigma = (stream.margins < rho).astype(np.float64)
    a = 1.0 - steps * lam
    b = steps * sigma * stream.y
    scores = stream.margins * stream.y           # w_t.x_t
    xg = np.asarray(stream.X @ g).ravel()         # x_t.g
    gg = float(g @ g)
    sq = np.zeros(T + 1)                          # ||w_t||^2, t = 1..T+1
    wg = np.zeros(T + 1)                          # w_t.g
    for i in range(T):
        sq[i + 1] = max(0.0, a[i] * a[i] * sq[i] + 2.0 * a[i] * b[i] * scores[i]
                        + b[i] * b[i] * stream.sq_norms[i])
        wg[i + 1] = a[i] * wg[i] + b[i] * xg[i]
    dist = np.maximum(0.0, sq - 2.0 * wg + gg)   # ||w_t - g||^2
    # w_{T+1} = sum_t b_t prod_{s>t} a_s x_t
    later = np.concatenate([np.cumprod(a[::-1])[::-1][1:], [1.0]])
    check_replay(run, stream, b * later)
    return steps, sigma, sq, dist


def norma_bound(run, X, y, g):
    """Our NORMA bound on the cumulative hinge loss (module docstring) of a finished run.

    ``observed`` is ``L = sum_t max(0, rho - y_t w_t.x_t)``, ``bound`` the
    right side divided by ``1 - eta lam``.  The terms carry ``mistakes`` and
    ``mistake_bound = bound / rho``, and both sides of the regret inequality
    ``sum_t [R_t(w_t) - R_t(g)] <= sum_t (a_t - a_{t+1})/(2 eta_t) + sum_t
    eta_t ||nabla_t||^2 / 2`` before any term is dropped (``regret_lhs``,
    ``regret_rhs``; the right side is exactly ``sum_t nabla_t.(w_t - g)``).

    Parameters
    ----------
    run : olearn.NORMA
        Fitted in one pass over ``(X, y)`` from ``w = 0`` (``n_epochs=1``).
    X, y : the stream, in the order the run saw it (original labels).
    g : array of shape (n_features,)
        The competitor (any vector; e.g. ``rho`` times
        :func:`olearn.bounds.svm_competitor`, whose hinge is at margin 1).

    Notes
    -----
    Degenerate runs raise (:func:`olearn.bounds._common.refuse_degenerate`):
    another learner (``TypeError``), an unfitted run, an empty stream, a
    stream of zero rows only.  A ``g`` with no positive margin is taken here
    (the bound is on the learner's loss, which is not bounded by ``T rho``, so
    the bound is not vacuous); :func:`norma_mistake_bound` refuses it.
    """
    stream = finished_run(run, X, y, NORMA)
    g = np.asarray(g, dtype=np.float64).ravel()
    if g.shape != (stream.X.shape[1],) or not np.all(np.isfinite(g)):
        raise ValueError(f"g must be a finite vector of {stream.X.shape[1]} "
                         f"features, got shape {g.shape}.")
    eta, lam, rho = float(run.eta), float(run.lam), float(run.rho)
    steps, sigma, sq, dist = _trajectory(run, stream, g)
    T = stream.y.shape[0]
    loss = np.maximum(0.0, rho - stream.margins)
    loss_g = np.maximum(0.0, rho - stream.competitor_margins(g))
    gg = float(g @ g)
    if run.schedule == "sqrt":
        A = float(dist[:T].max(initial=0.0))
        phi = A * np.sqrt(T) / (2.0 * eta)
        # exact telescoped sum: a_1/(2 eta_1) + sum_{t>=2} a_t (1/eta_t - 1/eta_{t-1})/2 - a_{T+1}/(2 eta_T)
        inv = 1.0 / steps
        telescoped = (dist[0] * inv[0] / 2.0 + float(np.sum(dist[1:T] * np.diff(inv))) / 2.0
                      - dist[T] * inv[-1] / 2.0)
    else:
        A = float(dist[:T].max(initial=0.0))
        phi = gg / (2.0 * eta)
        telescoped = (gg - dist[T]) / (2.0 * eta)
    margin_sum = float(np.sum(steps * sigma * (0.5 * stream.sq_norms - lam * rho)))
    right = float(loss_g.sum()) + 0.5 * T * lam * gg + phi + margin_sum
    bound = right / (1.0 - eta * lam)
    grad_sq = (lam * lam * sq[:T] - 2.0 * lam * sigma * stream.margins
               + sigma * stream.sq_norms)
    regret = float(np.sum(0.5 * lam * sq[:T] + loss) - np.sum(0.5 * lam * gg + loss_g))
    return make_check(
        f"NORMA ({run.schedule} step): (1 - eta lam) sum l_t <= L(g) + T lam/2 ||g||^2 "
        f"+ Phi + sum eta_t sigma_t (||x_t||^2/2 - lam rho) (our derivation)",
        float(loss.sum()), bound,
        eta=eta, lam=lam, rho=rho, schedule=run.schedule, rounds=T,
        sum_loss=float(loss.sum()), g_norm=float(np.sqrt(gg)), sum_loss_g=float(loss_g.sum()), Phi=float(phi),
        A=A, margin_term=margin_sum, margin_errors=int(sigma.sum()),
        R=stream.R, a_priori=bool(stream.R ** 2 <= 2.0 * lam * rho * (1.0 + 1e-12)),
        mistakes=theorem_mistakes(stream), mistake_bound=float(bound / rho),
        sign_errors=int(run.n_mistakes_), model_changes=int(run.n_updates_),
        regret_lhs=regret,
        regret_rhs=float(telescoped + 0.5 * np.sum(steps * grad_sq)))


def norma_mistake_bound(run, X, y, g):
    """Mistakes (``y_t w_t.x_t <= 0``) of a NORMA run against ``bound / rho`` of :func:`norma_bound`.

    A ``g`` with no positive margin on any round raises ``ValueError``: its
    ``L(g) >= T rho`` and the margin term is ``>= -T eta lam rho``, so the
    mistake bound is at least ``T``, vacuous.
    """
    check = norma_bound(run, X, y, g)
    stream = finished_run(run, X, y, NORMA)
    refuse_degenerate(stream.y.size, margins_u=stream.competitor_margins(
        np.asarray(g, dtype=np.float64).ravel()), competitor="g", vacuous=(
        "L(g) >= T rho and the margin term is >= -T eta lam rho, so the mistake "
        "bound is at least T"))
    return make_check(
        f"NORMA ({run.schedule} step): mistakes <= loss bound / rho (our derivation)",
        check.terms["mistakes"], check.terms["mistake_bound"], **check.terms)
