"""The regret lemma of online mirror descent evaluated on a finished run.

:func:`regret_lemma` replays a fitted learner with the one loop of
:mod:`olearn.oco` and the regularizer of its family (Euclidean for the
Perceptron, PA, NORMA and the regularized PA learners, entropic for the
Winnows, a growing quadratic for AROW), checks that the replay *is* the run
(same mistakes, same weights), and returns the lemma's terms for a competitor
``u`` as a :class:`BoundCheck`: ``observed`` is the linear regret
``sum_t <eta_t g_t, w_t - u>``, ``bound`` the lemma's right-hand side
``D_1(u, w_1) + growth + stability`` (which holds when the projection term is
``>= 0``: always except for the composite, objective-regularized learner,
whose term is reported).  Each bound page reads its theorem off these terms.
"""
import numpy as np

from .. import oco
from ._common import finished_run, make_check, refuse_degenerate

#: largest difference of weights (log-weights for Winnow) allowed between replay and run
TOLERANCE = 1e-8


def _family(run, d):
    """``(mirror, rule, w1, label)`` of the run's family, or a ValueError saying why not."""
    from ..linear import (NORMA, PA, BalancedWinnow, L2ConstrainedPA,
                          ObjectiveRegularizedPA, Perceptron, PositiveWinnow)
    from ..second_order import AROW

    zeros = np.zeros(d)
    if isinstance(run, Perceptron):
        return oco.Euclidean(), oco.perceptron_rule, zeros, "Perceptron"
    if isinstance(run, PA):
        if run.gamma is not None or run.epsilon != 1.0 or run.update_on != "round":
            raise ValueError("The replay covers Crammer et al.'s PA (epsilon = 1, gamma=None, "
                             "update_on='round'); use PA(C=..., variant=...).")
        return oco.Euclidean(), oco.pa_rule(run.C, run.variant), zeros, run.variant
    if isinstance(run, NORMA):
        if run.schedule != "constant":
            raise ValueError("The replay covers NORMA's constant step; got schedule="
                             f"{run.schedule!r}.")
        return (oco.Euclidean(), oco.norma_rule(run.eta, run.lam, run.rho), zeros, "NORMA")
    if isinstance(run, (ObjectiveRegularizedPA, L2ConstrainedPA)):
        if run.truncate_sigma is not None or run.update_on != "mistake":
            raise ValueError("Truncation is not a step of mirror descent (a projection onto a "
                             "non-convex set) and update_on='round' is not the paper's rule: "
                             "the replay covers truncate_sigma=None, update_on='mistake'.")
        if isinstance(run, ObjectiveRegularizedPA):
            return (oco.Euclidean(), oco.objective_regularized_rule(run.alpha), zeros,
                    "objective-regularized PA")
        return (oco.Euclidean(), oco.l2_constrained_rule(run.beta), zeros,
                "L2-constrained PA")
    if isinstance(run, BalancedWinnow) and type(run) is BalancedWinnow:
        w1 = np.concatenate([np.full(d + 1, run.theta0_pos), np.full(d + 1, run.theta0_neg)])
        return (oco.Entropic(), oco.winnow_rule(run.alpha, run.beta, run.theta, True), w1,
                "Balanced Winnow")
    if isinstance(run, PositiveWinnow):
        return (oco.Entropic(), oco.winnow_rule(run.alpha, run.beta, run.theta),
                np.full(d + 1, run.theta0), "Positive Winnow")
    if isinstance(run, AROW) and type(run) is AROW:
        if run.covariance == "diag" and run.diagonal != "precision":
            raise ValueError("The replay covers the paper's diagonal projection "
                             "(diagonal='precision').")
        mirror = oco.Quadratic(d, a=run.a, r=run.r, diagonal=run.covariance == "diag")
        return mirror, oco.arow_rule(run.r), zeros, f"AROW ({run.covariance})"
    raise ValueError(f"{type(run).__name__} is not an instance of the one loop that "
                     "olearn.oco replays (see book/oco/instances for what breaks).")


def regret_lemma(run, X, y, u):
    """The OMD regret lemma's terms on a finished run, for the competitor ``u``.

    ``u`` lives where the family's weights live: ``n_features`` numbers for the
    Euclidean and quadratic families; ``n_features + 1`` (Positive Winnow) or
    ``2 (n_features + 1)`` (Balanced Winnow: ``u`` then ``v``, the always-on
    feature last in each) positive numbers for the entropic one.

    ``terms`` holds every term of the lemma (``linear_regret``, ``initial``,
    ``final``, ``growth``, ``stability``, ``correction``, ``identity_gap``),
    the mistakes and the replay's agreement with the run (``max_weight_diff``,
    log-weights for Winnow).  Raises ``TypeError`` for a learner outside the
    families above and ``ValueError`` when its settings are not an instance,
    the replay differs from the run, the run is unfitted, the stream empty or
    of zero rows only (:func:`olearn.bounds._common.refuse_degenerate`).  Any
    ``u`` is taken, one with no positive margin too: the lemma holds for every
    ``u`` and is not a mistake bound, so it is not vacuous for it.
    """
    from ..linear import (NORMA, PA, BalancedWinnow, L2ConstrainedPA,
                          ObjectiveRegularizedPA, Perceptron, PositiveWinnow)
    from ..second_order import AROW

    refuse_degenerate(1, learner=run, learner_type=(
        Perceptron, PA, NORMA, ObjectiveRegularizedPA, L2ConstrainedPA,
        BalancedWinnow, PositiveWinnow, AROW))
    stream = finished_run(run, X, y, type(run))
    Xd = stream.X.toarray() if hasattr(stream.X, "toarray") else np.asarray(stream.X)
    mirror, rule, w1, label = _family(run, Xd.shape[1])
    u = np.asarray(u, dtype=float).ravel()
    if u.shape != w1.shape:
        raise ValueError(f"u must have {w1.size} entries for {label}; got {u.size}.")
    replay = oco.omd(Xd, stream.y, mirror, rule, w1, u=u)
    if label.endswith("Winnow"):
        log_run = (np.concatenate([run.log_u_, run.log_v_]) if label.startswith("Balanced")
                   else run.log_u_)
        diff = float(np.max(np.abs(np.log(replay.w) - log_run)))
    else:
        diff = float(np.max(np.abs(replay.w - run.coef_.ravel())))
    same = bool(np.array_equal(replay.mistakes, np.asarray(run.mistakes_, dtype=bool)))
    if not same or diff > TOLERANCE * max(1.0, float(np.abs(replay.w).max())):
        raise ValueError(f"The OMD replay of {label} is not the run (same mistakes: {same}, "
                         f"max weight difference {diff:.3g}): pass the X, y the run saw, "
                         f"in the same order, from one pass.")
    return make_check(
        f"OMD regret lemma, {label} ({mirror.name} regularizer): "
        "sum <eta g, w - u> <= D_1(u, w_1) + growth + stability",
        replay.linear_regret, replay.lemma_bound,
        linear_regret=replay.linear_regret, initial=replay.initial, final=replay.final,
        growth=replay.growth, stability=replay.stability, correction=replay.correction,
        identity_gap=replay.identity_gap, per_round=replay.per_round,
        mistakes=int(replay.mistakes.sum()),
        updates=int(replay.updates.sum()), max_weight_diff=diff)
