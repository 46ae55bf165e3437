"""Mistake and loss bounds of the Perceptron and of PA, PA-I, PA-II.

Perceptron (Freund and Schapire 1999, Theorem 2).  Let ``||x_t|| <= R``, let
``u`` be any vector with ``||u|| = 1`` and ``gamma > 0``, and let
``d_t = max(0, gamma - y_t u.x_t)`` and ``D = sqrt(sum_t d_t^2)``.  Then the
number of updates of the Perceptron started at ``w = 0`` is at most
``((R + D) / gamma)^2``.

Passive-Aggressive (Crammer, Dekel, Keshet, Shalev-Shwartz, Singer 2006, JMLR),
with ``l_t = max(0, 1 - y_t w_t.x_t)`` the learner's loss before its update and
``l*_t = max(0, 1 - y_t u.x_t)`` the loss of any fixed ``u``:

* Lemma 1 (all three variants): ``sum_t tau_t (2 l_t - tau_t ||x_t||^2 -
  2 l*_t) <= ||u||^2``;
* Theorem 2 (PA, separable: ``l*_t = 0`` for all ``t``, ``||x_t|| <= R``):
  ``sum_t l_t^2 <= ||u||^2 R^2``;
* Theorem 3 (PA, any ``u``, but ``||x_t|| = 1`` for all ``t``):
  ``sum_t l_t^2 <= (||u|| + 2 sqrt(sum_t l*_t^2))^2``;
* Theorem 4 (PA-I, ``||x_t|| <= R``): ``#mistakes <= max(R^2, 1/C)
  (||u||^2 + 2 C sum_t l*_t)``;
* Theorem 5 (PA-II, ``||x_t|| <= R``): ``sum_t l_t^2 <= (R^2 + 1/(2C))
  (||u||^2 + 2 C sum_t l*_t^2)``.

A mistake has ``y_t w_t.x_t <= 0``, hence ``l_t >= 1``, so Theorems 2, 3 and
5 also bound the number of mistakes by ``sum_t l_t^2``.

Ties.  The theorems count every round with ``y_t w_t.x_t <= 0`` (a zero score
is a mistake), and so do these functions (``observed`` and the term
``mistakes``, from the run's ``margins_``).  A run's ``n_mistakes_`` counts a
zero score as a prediction of the negative class, as ``predict`` does, and
its ``n_updates_`` only the rounds that changed ``w`` (an empty row changes
nothing); both are reported as the terms ``sign_errors`` and
``model_changes``.  On streams with empty rows or zero scores the three
counts differ.

The paper takes ``epsilon = 1``.  For a run with another ``epsilon > 0`` both
losses are taken at that ``epsilon``: the proof of Lemma 1 uses only
``y w_t.x = epsilon - l_t`` on update rounds and ``y u.x >= epsilon - l*_t``,
so Lemma 1 and Theorems 2, 3, 5 are unchanged, a mistake has ``l_t >=
epsilon`` (mistakes ``<= sum l_t^2 / epsilon^2``), and Theorem 4 becomes
``#mistakes <= max(R^2/epsilon^2, 1/(C epsilon)) (||u||^2 + 2 C sum l*_t)``.
"""
import numpy as np

from ..linear.pa import PA
from ..linear.perceptron import Perceptron
from ._common import (check_replay, finished_run, make_check, refuse_degenerate,
                      theorem_mistakes)


def perceptron_bound(run, X, y, u, gamma=None):
    """Freund and Schapire's (1999, Thm 2) bound on a finished Perceptron run.

    ``observed`` is the number of rounds with ``y_t w_t.x_t <= 0`` (the
    update condition of the analysis, ties included; an empty row counts
    although it does not change ``w``) and ``bound`` is
    ``((R + D) / gamma)^2`` for ``u / ||u||`` (the theorem needs a unit
    competitor; the bound is invariant to scaling ``u`` and ``gamma``
    together, so ``gamma`` is in units of the normalised ``u``).

    Parameters
    ----------
    run : olearn.Perceptron
        Fitted in one pass over ``(X, y)`` from ``w = 0``.
    X, y : the stream, in the order the run saw it (original labels).
    u : array of shape (n_features,), nonzero
        The competitor.
    gamma : float > 0 or None
        The margin; None minimises the bound over ``gamma > 0`` exactly
        (:func:`optimal_gamma`).

    Notes
    -----
    Degenerate runs raise (:func:`olearn.bounds._common.refuse_degenerate`):
    another learner (``TypeError``), an unfitted run, an empty stream, a
    stream of zero rows only, ``gamma <= 0``, and a ``u`` with no positive
    margin on any round (``ValueError``: then ``d_t >= gamma`` on every round,
    ``D >= gamma sqrt(T)`` and the bound is at least ``T``, vacuous).
    """
    stream = finished_run(run, X, y, Perceptron)
    updated = stream.margins <= 0.0
    check_replay(run, stream, np.where(updated, stream.y, 0.0))
    u = np.asarray(u, dtype=np.float64).ravel()
    u_norm = float(np.linalg.norm(u))
    if u.shape != (stream.X.shape[1],) or not u_norm > 0:
        raise ValueError(f"u must be a nonzero vector of {stream.X.shape[1]} "
                         f"features, got shape {u.shape} and norm {u_norm}.")
    margins_u = stream.competitor_margins(u / u_norm)
    refuse_degenerate(margins_u.size, margins_u=margins_u, vacuous=(
        "d_t >= gamma on every round, so D >= gamma sqrt(T) and ((R + D)/gamma)^2 "
        ">= T, the number of rounds"))
    R = stream.R
    optimised = gamma is None
    if optimised:
        gamma = optimal_gamma(margins_u, R)
    elif not (np.isfinite(gamma) and gamma > 0):
        raise ValueError(f"gamma must be a finite number > 0, got {gamma!r}: pass gamma > 0 "
                         f"(or None for the best one).")
    D = float(np.linalg.norm(np.maximum(0.0, gamma - margins_u)))
    return make_check(
        "Perceptron: updates <= ((R + D)/gamma)^2 "
        "(Freund & Schapire 1999, Thm 2)",
        int(np.count_nonzero(updated)), ((R + D) / gamma) ** 2,
        R=R, D=D, gamma=float(gamma), gamma_optimised=optimised,
        u_norm=u_norm, mistakes=int(np.count_nonzero(updated)),
        sign_errors=int(run.n_mistakes_), model_changes=int(run.n_updates_),
        rounds=int(run.n_rounds_))


def optimal_gamma(margins_u, R):
    """The ``gamma > 0`` minimising ``(R + D(gamma)) / gamma``, exactly.

    With the competitor's margins sorted, ``m_(1) <= ... <= m_(n)``, and ``k``
    of them below ``gamma``, ``D(gamma)^2 = k gamma^2 - 2 S1 gamma + S2``
    (``S1``, ``S2``: sum of those ``k`` margins and of their squares).  On each
    such piece ``d/dgamma [(R + D)/gamma] = 0`` gives ``S1 gamma - S2 = R D``,
    whose square is the quadratic ``(S1^2 - R^2 k) gamma^2 + 2 S1 (R^2 - S2)
    gamma + S2^2 - R^2 S2 = 0``.  The minimum is at a root or at a break point
    ``m_(i) > 0``; every candidate is evaluated with its own ``k``.

    No margin (empty), no positive margin (the bound then decreases toward the
    number of rounds as ``gamma`` grows: no minimiser) or ``R`` not a finite
    number ``>= 0`` raise ``ValueError``.
    """
    m = np.sort(np.asarray(margins_u, dtype=np.float64).ravel())
    if not (np.isfinite(R) and R >= 0):
        raise ValueError(f"R must be a finite number >= 0 (max_t ||x_t||), got {R!r}.")
    refuse_degenerate(m.size, margins_u=m, vacuous=(
        "((R + D(gamma))/gamma)^2 decreases toward the number of rounds as gamma "
        "grows: there is no best gamma and no bound below that number"))
    k = np.arange(m.size + 1, dtype=np.float64)
    S1 = np.concatenate([[0.0], np.cumsum(m)])
    S2 = np.concatenate([[0.0], np.cumsum(m * m)])
    a = S1 * S1 - R * R * k
    b = 2.0 * S1 * (R * R - S2)
    c = S2 * S2 - R * R * S2
    disc = np.sqrt(np.maximum(b * b - 4.0 * a * c, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        roots = np.concatenate([(-b + disc) / (2.0 * a), (-b - disc) / (2.0 * a),
                                -c / b])
    # far out, the bound tends to n (useful only when no u separates anything)
    far = 1e6 * (R + np.abs(m).max(initial=0.0) + 1.0)
    candidates = np.concatenate([m, roots, [far]])
    candidates = candidates[np.isfinite(candidates) & (candidates > 0.0)]
    below = np.searchsorted(m, candidates, side="left")
    D2 = below * candidates ** 2 - 2.0 * S1[below] * candidates + S2[below]
    values = (R + np.sqrt(np.maximum(D2, 0.0))) / candidates
    return float(candidates[np.argmin(values)])


def pa_bound(run, X, y, u, theorem=None):
    """The Crammer et al. (2006) bound of a finished PA, PA-I or PA-II run.

    PA: Theorem 2 if ``u`` has zero loss on every round, else Theorem 3
    (which needs ``||x_t|| = 1``: normalise the rows, e.g. with
    ``sklearn.preprocessing.Normalizer``, or a ``ValueError`` is raised);
    ``theorem=2`` or ``3`` forces one and raises if its hypothesis fails.
    PA-I: Theorem 4 (``observed`` = mistakes).  PA-II: Theorem 5.  For
    Theorems 2, 3, 5 ``observed`` is ``sum_t l_t^2`` and the terms carry the
    implied mistake bound (see :func:`pa_mistake_bound`).  ``terms`` also holds
    both sides of Lemma 1.  See the module docstring for the statements.

    Parameters
    ----------
    run : olearn.PA
        Fitted in one pass over ``(X, y)`` from ``w = 0``, with
        ``epsilon > 0`` and no Carvalho-Cohen ``gamma``.
    X, y : the stream, in the order the run saw it (original labels).
    u : array of shape (n_features,)
        The competitor (any vector; see :func:`olearn.bounds.svm_competitor`).
    theorem : {None, 2, 3, 4, 5}

    Notes
    -----
    Degenerate runs raise (:func:`olearn.bounds._common.refuse_degenerate`):
    another learner (``TypeError``), an unfitted run, an empty stream, a
    stream of zero rows only, and a ``u`` with no positive margin on any round
    (``ValueError``: every ``l*_t >= epsilon``, so Theorem 4 gives at least
    ``2T`` mistakes, Theorem 3 ``4T``, Theorem 5 ``T``: vacuous).
    """
    stream = finished_run(run, X, y, PA)
    if run.gamma not in (None, 0, 0.0):
        raise ValueError("The JMLR bounds are for PA, PA-I and PA-II; this run "
                         f"uses Carvalho and Cohen's gamma={run.gamma!r}.")
    epsilon, C = float(run.epsilon), float(run.C)
    if not epsilon > 0:
        raise ValueError("The bounds need epsilon > 0 (a mistake must have a "
                         "positive loss).")
    u = np.asarray(u, dtype=np.float64).ravel()
    if u.shape != (stream.X.shape[1],) or not np.all(np.isfinite(u)):
        raise ValueError(f"u must be a finite vector of {stream.X.shape[1]} "
                         f"features, got shape {u.shape}.")

    refuse_degenerate(stream.y.size, margins_u=stream.competitor_margins(u), vacuous=(
        "l*_t >= epsilon on every round, so every theorem's mistake bound is at "
        "least the number of rounds"))
    loss = np.maximum(0.0, epsilon - stream.margins)
    tau = _pa_steps(run.variant, loss, stream.sq_norms, C)
    check_replay(run, stream, tau * stream.y)
    loss_u = np.maximum(0.0, epsilon - stream.competitor_margins(u))
    R, u_sq = stream.R, float(u @ u)
    mistakes = theorem_mistakes(stream)
    sum_loss_sq = float(loss @ loss)
    terms = dict(
        R=R, u_norm_sq=u_sq, epsilon=epsilon, mistakes=mistakes,
        sign_errors=int(run.n_mistakes_), model_changes=int(run.n_updates_),
        sum_loss_sq=sum_loss_sq, sum_loss_u=float(loss_u.sum()),
        sum_loss_u_sq=float(loss_u @ loss_u),
        lemma1_lhs=float(tau @ (2.0 * loss - tau * stream.sq_norms
                                - 2.0 * loss_u)),
        lemma1_rhs=u_sq)

    theorem = _pa_theorem(run.variant, theorem, loss_u, stream.sq_norms)
    terms["theorem"] = theorem
    if theorem == 4:
        bound = (max(R * R / epsilon ** 2, 1.0 / (C * epsilon))
                 * (u_sq + 2.0 * C * terms["sum_loss_u"]))
        return make_check(
            "PA-I: mistakes <= max(R^2, 1/C)(||u||^2 + 2C sum l*_t) "
            "(Crammer et al. 2006, Thm 4)", mistakes, bound, **terms)
    if theorem == 2:
        bound = u_sq * R * R
        name = "PA: sum l_t^2 <= ||u||^2 R^2 (Crammer et al. 2006, Thm 2)"
    elif theorem == 3:
        bound = (np.sqrt(u_sq) + 2.0 * np.sqrt(terms["sum_loss_u_sq"])) ** 2
        name = ("PA: sum l_t^2 <= (||u|| + 2 sqrt(sum l*_t^2))^2, ||x_t|| = 1 "
                "(Crammer et al. 2006, Thm 3)")
    else:
        bound = (R * R + 0.5 / C) * (u_sq + 2.0 * C * terms["sum_loss_u_sq"])
        name = ("PA-II: sum l_t^2 <= (R^2 + 1/(2C))(||u||^2 + 2C sum l*_t^2) "
                "(Crammer et al. 2006, Thm 5)")
    terms["mistake_bound"] = float(bound) / epsilon ** 2
    return make_check(name, sum_loss_sq, bound, **terms)


def pa_mistake_bound(run, X, y, u, theorem=None):
    """The number of mistakes of a PA / PA-I / PA-II run against its bound.

    PA-I: Theorem 4 itself.  PA and PA-II: the loss bound of Theorem 2, 3 or 5
    divided by ``epsilon^2`` (a mistake has ``l_t >= epsilon``).
    """
    check = pa_bound(run, X, y, u, theorem=theorem)
    if check.terms["theorem"] == 4:
        return check
    return make_check(
        f"{run.variant}: mistakes <= sum-of-squared-loss bound / epsilon^2 "
        f"(Crammer et al. 2006, Thm {check.terms['theorem']})",
        check.terms["mistakes"], check.terms["mistake_bound"], **check.terms)


def _pa_steps(variant, loss, sq_norms, C):
    """``tau_t`` of each round from the record (zero rows never move ``w``)."""
    denominator = sq_norms + (0.5 / C if variant == "PA-II" else 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = np.where((loss > 0) & (denominator > 0), loss / denominator, 0.0)
    return np.minimum(tau, C) if variant == "PA-I" else tau


def _pa_theorem(variant, theorem, loss_u, sq_norms):
    """The theorem that applies to this run and competitor (checked)."""
    own = {"PA-I": 4, "PA-II": 5}
    if variant in own:
        if theorem not in (None, own[variant]):
            raise ValueError(f"{variant} is bounded by Theorem {own[variant]}, "
                             f"not Theorem {theorem}.")
        return own[variant]
    if theorem not in (None, 2, 3):
        raise ValueError(f"PA is bounded by Theorem 2 or 3, not {theorem!r}.")
    if theorem is None:
        theorem = 2 if np.all(loss_u == 0.0) else 3
    if theorem == 2 and np.any(loss_u > 0.0):
        raise ValueError(
            f"Theorem 2 needs a competitor with zero loss on every round; u "
            f"has a positive loss on {np.count_nonzero(loss_u)} rounds.")
    if theorem == 3 and np.max(np.abs(sq_norms - 1.0)) > 1e-9:
        raise ValueError(
            "Theorem 3 needs ||x_t|| = 1 on every round; normalise the rows "
            "(e.g. sklearn.preprocessing.Normalizer) before fitting.")
    return theorem
