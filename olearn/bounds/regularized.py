"""Mistake bounds of the regularized PA learners against a drifting competitor.

Shen and Dietterich (SDM 2009), Theorems 3.1-3.4, as functions of a finished
run (:mod:`olearn.bounds._common`) and a competitor *sequence*
``U = (u_0, ..., u_T)``: row ``t < T`` is the competitor of round ``t`` and
the last row is the competitor after the last round (a ``T x d`` array means
``u_T = u_{T-1}``).  Notation: ``T`` rounds ``t = 0..T-1``, ``w_0 = 0``,
``p_t = y_t w_t.x_t`` the learner's margin before round ``t``; a *mistake* is
a round with ``p_t <= 0`` (ties included: the analysis uses
``l_t = 1 - p_t >= 1``; ``run.n_mistakes_`` counts only sign errors and can
be smaller), ``M`` their number, ``l*_t = max(0, 1 - y_t u_t.x_t)``.

Assumptions shared by every statement below:

* (A1) zero competitor loss: ``y_t u_t.x_t >= 1`` for every round ``t``;
* (A2) ``||x_t||_2 <= R`` for every round;
* (A3) ``||u_t||_2 <= D`` for ``t = 0..T`` (the paper writes ``= D``; only
  ``<=`` is used);
* (A4) drift: ``||u_t - u_{t+1}|| <= mu`` for ``t = 0..T-1``, in the norm
  named below; ``P = sum_t ||u_t - u_{t+1}||`` is the competitor's path length.

Statements as read from the garbled extraction (re-derived below)
--------------------------------------------------------------------
Theorem 3.1 (objective-regularized PA, eq. 3.1, shrinkage ``alpha``; updates
only on mistakes).  With ``S = max_t ||w_t||_2``, if
``g = (1 - alpha^2)/R^2 - 2 (1 + alpha) mu S - alpha D^2/(2 + alpha) > 0``
then ``M <= D^2 / g``.

Theorem 3.2 (norm-constrained PA; updates only on mistakes).  L2 ball
(eq. 3.9): ``||u_t||_2 <= D <= beta``, L2 drift ``mu``; if
``1/R^2 - 2 mu beta > 0`` then ``M <= R^2 D^2 / (1 - 2 mu beta R^2)``.
L1 ball (eq. 3.10): ``||u_t||_1 = D <= beta``, drift ``mu`` measured in the
*max norm* ``||u_t - u_{t+1}||_inf`` and ``R`` still bounding
``||x_t||_2``; same formula.  (The extraction drops the norm subscripts.
The proof decides them: the progress term ``||w_{t+1} - w_t||_2 >= 1/||x_t||_2``
is Cauchy-Schwarz (the paper's "Hoelder" with p = q = 2, because the
projection inequality is Euclidean), and the drift term
``2 w_{t+1}.(u_t - u_{t+1}) <= 2 ||w_{t+1}||_1 ||u_t - u_{t+1}||_inf
<= 2 beta mu`` is Hoelder with (1, inf) -- which is why the paper remarks
that the L1 learner "could tolerate more fluctuations", ``||.||_inf <=
||.||_2``.  Only ``||u_T||_2^2 <= ||u_T||_1^2 = D^2`` enters the other
term, so ``D`` may be taken as the L2 norm.)

Theorem 3.3 (objective-regularized with feature truncation ``sigma``: after
each update the smallest weights whose squares sum to at most ``sigma`` are
zeroed).  If ``h = g - 2 sqrt(sigma) D > 0`` then ``M <= D^2 / h``.

Theorem 3.4 (norm-constrained with truncation).  If
``q = 1/R^2 - 2 mu beta - 2 sqrt(sigma) D > 0`` then ``M <= D^2 / q``
(L2 ball; the L1 ball with the norms of Theorem 3.2).

What the proofs actually need: the hidden hypothesis
------------------------------------------------------
All four proofs telescope ``Delta_t = ||w_t - u_t||^2 - ||w_{t+1} - u_{t+1}||^2``
(``sum_t Delta_t <= ||u_0||^2``) and then say "only if ``t`` is an update
round, ``Delta_t != 0``".  That is false when the competitor moves on a round
where ``w`` does not: then ``Delta_t = ||u_t||^2 - ||u_{t+1}||^2 - 2 w_t.(u_t -
u_{t+1})``, which can be negative.  The sentence before Theorem 3.1 ("an
optimal algorithm ... does not update its hypothesis unless our algorithm
updates the hypothesis") is the missing hypothesis:

* (H) the competitor moves only on the learner's mistake rounds:
  ``u_{t+1} = u_t`` whenever ``p_t > 0`` (and, with truncation, the learner
  truncates only on mistake rounds, i.e. ``update_on="mistake"``).

Under (H) the four statements are true.  Without it they are false: on a
stream whose competitor rotates a little on every round (A1-A4 hold with
small ``mu``, the denominators are positive) the learners keep making
mistakes as the concept turns, ``M`` grows linearly with ``T``, while the
stated bounds do not depend on ``T``.  Measured
(``tests/test_bounds_regularized.py``, ``T = 5000``, ``d = 10``, ``R = 1``,
``mu = 0.01``, mistake-driven learners with ``beta = D``): the
objective-regularized learner (``alpha = 0.01``, ``D = 3``) makes 77 mistakes
where Theorem 3.1 promises at most 10.8; L2-constrained (``D = 3``) 56 against
9.6; L1-constrained (``||u_t||_1 = 6``, max-norm drift 0.01) 59 against 40.9.

Corrected statements (path-length form; no hypothesis on when ``u`` moves)
-----------------------------------------------------------------------------
Decompose every round (update or not) as
``Delta_t = [progress against u_t] + [truncation] + chi_t`` (the progress
includes the shrink of the objective-regularized learner) with the drift term
``chi_t = ||w_{t+1} - u_t||^2 - ||w_{t+1} - u_{t+1}||^2
= ||u_t||^2 - ||u_{t+1}||^2 - 2 w_{t+1}.(u_t - u_{t+1})``.
The ``||u||^2`` differences telescope, so

    sum_t [progress_t + truncation_t] = ||u_T||^2 - ||w_T - u_T||^2
                                        + 2 sum_t w_{t+1}.(u_t - u_{t+1}),      (*)

and ``2 w_{t+1}.(u_t - u_{t+1}) <= 2 S ||u_t - u_{t+1}||`` with ``S`` the
largest dual norm of the learner's weights (``||w||_2`` for the L2 learners,
``||w||_1 <= beta`` for the L1 learner).  Per-round lower bounds:

* objective-regularized, mistake round (``w' = w_t + tau y x``,
  ``tau = (l_t + alpha)/||x_t||^2``, ``w'' = w'/(1 + alpha)``):
  ``||w_t - u_t||^2 - ||w' - u_t||^2 >= (l_t^2 - alpha^2)/||x_t||^2
  >= (1 - alpha^2)/R^2`` (eq. 3.5) and
  ``||w' - u_t||^2 - ||w'' - u_t||^2 >= -alpha ||u_t||^2/(2 + alpha)``
  (eq. 3.7, minimum over ``w'``); non-mistake rounds do not move ``w``
  (``update_on="mistake"``) and contribute only ``chi_t``;
* constrained, any round that solves (3.9)/(3.10): ``w_{t+1}`` is the
  Euclidean projection of ``w_t`` onto a convex set containing ``u_t`` (needs
  ``||u_t|| <= beta``), so the progress is ``>= ||w_{t+1} - w_t||_2^2 >= 0``,
  and ``>= (1 - p_t)^2/||x_t||_2^2 >= 1/R^2`` on a mistake round.  This holds
  for ``update_on="round"`` as well;
* truncation ``w <- w - v`` (``||v||_2^2 <= sigma``, ``v.w = ||v||^2``):
  ``||w - u||^2 - ||w - v - u||^2 = ||v||^2 - 2 v.u >= -2 sqrt(sigma) D``
  (eq. 3.19) on every round that truncates.

Ordering the drift last (after the shrink and the truncation) charges it to
``w_{t+1}``, so ``S`` needs no factor ``(1 + alpha)``.  Hence:

* Theorem 3.1/3.3, corrected (``update_on="mistake"``, ``alpha < 1``).
  With ``h0 = (1 - alpha^2)/R^2 - alpha D^2/(2 + alpha) - 2 sqrt(sigma) D > 0``,

      M <= (D^2 + 2 S P_2) / h0,
      S = max_t ||w_t||_2,  P_2 = sum_t ||u_t - u_{t+1}||_2.

  Under (H), ``P_2 <= mu M`` and this gives ``M <= D^2/(h0 - 2 mu S)``, which
  is at least as strong as the paper's ``D^2/h`` (``2 mu S`` instead of
  ``2 (1 + alpha) mu S``).
* Theorem 3.2/3.4, corrected, L2 ball.  ``update_on="mistake"``: if
  ``1/R^2 - 2 sqrt(sigma) D > 0``,

      M <= (D^2 + 2 S P_2) / (1/R^2 - 2 sqrt(sigma) D),  S = max_t ||w_t||_2 <= beta;

  ``update_on="round"`` (truncation also on the non-mistake updates, ``N``
  of them in all, ``N = run.n_updates_``):
  ``M <= R^2 (D^2 + 2 S P_2 + 2 sqrt(sigma) D N)``.  Under (H) with
  ``update_on="mistake"`` this gives the paper's ``D^2/q``.
* L1 ball: the same with ``S = max_t ||w_t||_1 <= beta``,
  ``P_inf = sum_t ||u_t - u_{t+1}||_inf`` and ``D = max_t ||u_t||_2``
  (``<= ||u_t||_1``); the competitor must satisfy ``||u_t||_1 <= beta``.

Without truncation ``sigma = 0``: Theorems 3.1 and 3.2.  Keeping the exact
right side of (*) instead of ``D^2 + 2 S P`` gives the data-dependent bound
reported as ``terms["bound_data_dependent"]`` (smallest bound this proof
gives; it shows where the slack is).

The objective-regularized bound needs ``update_on="mistake"``: with the
default ``update_on="round"`` the learner shrinks ``w`` on every round, and
each shrink can cost up to ``alpha D^2/(2 + alpha)`` in (*) with no mistake to
pay for it, so no bound independent of ``T`` follows from this proof
(:func:`objective_regularized_bound` raises ``ValueError``).

Conventions of the functions
------------------------------
``form="path"`` (default): ``bound`` is the corrected statement above, which
holds whenever A1-A4 hold.  ``form="paper"``: ``bound`` is the literal
statement (with ``mu = max_t ||u_t - u_{t+1}||``); ``terms["paper_hypothesis"]``
says whether (H) holds on this run -- if it does not, ``holds`` may be False
and that is a failure of the paper's statement, not of the run.  Both forms
report the other bound in ``terms`` (``path_bound``, ``paper_bound``; the
paper bound is ``inf`` when its denominator is not positive).

A failed assumption (A1, ``||u_t|| <= beta``, ``alpha < 1``, a non-positive
denominator of the requested form, the wrong ``update_on``) raises a
``ValueError`` naming it: a bound whose hypothesis fails is never claimed.

``S`` and the drift inner products need ``w_t`` on every round, which the
online record does not keep: the run is replayed one round at a time from a
clone (``O(T d)`` time, ``O(d)`` memory; meant for ``T d`` up to ~10^7), and
the replay must reproduce the run's margins and final weights, which also
proves that the run saw ``(X, y)`` in this order.

Real data.  On the USPS four-phase stream (digits 3, 7 vs 8, 9; 2000 rows,
``random_state=0``, ``R = 15.2``) the label of a digit never changes: the
non-stationarity is in the inputs, not in the concept.  The 2000 images are
linearly separable through the origin, so the minimum-norm separator (a QP)
is a competitor with ``mu = 0`` and ``D = 18.1``: Theorem 3.2 applies and
promises ``R^2 D^2 = 75,969`` mistakes on 2000 rounds (the L2 learner makes
168) -- true and vacuous.  One separator per phase (``D <= 2.36``) jumps by
1.4-2.7 at the phase boundaries, so ``1/R^2 - 2 mu beta < 0`` and the stated
theorem says nothing; the corrected bound applies (``P = 6.8``) and gives
3,625, again vacuous.  Theorem 3.1 needs roughly ``alpha < 2/(R^2 D^2)``
(about 3e-5 for the single separator), far below any useful shrinkage.
The theorems therefore cannot be checked non-vacuously on the paper's
streams; they are checked on synthetic drifting streams
(:func:`drifting_stream`).
"""
import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from ..linear.regularized import L1ConstrainedPA, L2ConstrainedPA, ObjectiveRegularizedPA
from ._common import ROUNDOFF, finished_run, make_check, refuse_degenerate

NORMS = ("l2", "l1")


# -- the bounds -----------------------------------------------------------------
def objective_regularized_bound(run, X, y, U, form="path"):
    """Theorem 3.1 (``truncate_sigma=None``) or 3.3 (``sigma``) on a finished run.

    Paper (with (H): ``u`` moves only on mistake rounds): with
    ``g = (1 - alpha^2)/R^2 - 2 (1 + alpha) mu S - alpha D^2/(2 + alpha)
    - 2 sqrt(sigma) D > 0``, ``M <= D^2 / g``.  Corrected (any drift):
    ``M <= (D^2 + 2 S P_2) / h0`` with
    ``h0 = (1 - alpha^2)/R^2 - alpha D^2/(2 + alpha) - 2 sqrt(sigma) D > 0``.
    Here ``M`` = rounds with ``y_t w_t.x_t <= 0``, ``R = max ||x_t||_2``,
    ``D = max_t ||u_t||_2``, ``mu = max_t ||u_t - u_{t+1}||_2``,
    ``P_2 = sum_t ||u_t - u_{t+1}||_2``, ``S = max_t ||w_t||_2`` (from a
    replay), ``sigma = truncate_sigma`` (0 if None).  Assumptions: A1 (zero
    competitor loss on every round), ``alpha < 1``,
    ``update_on="mistake"`` (the paper's update condition); see the module
    docstring for the derivation.

    Parameters
    ----------
    run : olearn.linear.regularized.ObjectiveRegularizedPA
        Fitted in one pass over ``(X, y)`` from ``w = 0`` with
        ``update_on="mistake"``.
    X, y : the stream, in the order the run saw it (original labels).
    U : array of shape (T + 1, d) or (T, d)
        Competitors ``u_0..u_T`` (``T x d``: ``u_T = u_{T-1}``), in the run's
        label coding (``classes_[1]`` is +1).
    form : {"path", "paper"}
        Which statement is ``bound``; the other is in ``terms``.

    Returns
    -------
    BoundCheck
        ``observed`` = ``M``; ``terms`` hold ``R, D, mu, P, S, alpha, sigma,
        paper_bound, path_bound, bound_data_dependent, paper_hypothesis,
        mistakes, updates, rounds`` and more.
    """
    stream, U, sigma = _setup(run, X, y, U, ObjectiveRegularizedPA, form)
    alpha = float(run.alpha)
    if run.update_on != "mistake":
        raise ValueError(
            "Theorems 3.1 and 3.3 are for the paper's mistake-driven updates "
            "(update_on='mistake'). With update_on='round' the learner shrinks "
            "w on every round, each shrink costing up to alpha D^2/(2+alpha) "
            "in the proof with no mistake to pay for it: no bound follows.")
    if not alpha < 1.0:
        raise ValueError(f"Theorems 3.1 and 3.3 need alpha < 1 (the progress "
                         f"of a mistake is (1 - alpha^2)/R^2); got {alpha}.")
    c = _Competitor(stream, U, "l2")
    rep = _replay(run, stream, U)
    M, R, D, S, mu = c.mistakes, stream.R, c.D, rep.S2, c.mu
    root = 2.0 * np.sqrt(sigma) * D
    h0 = (1.0 - alpha ** 2) / R ** 2 - alpha * D ** 2 / (2.0 + alpha) - root
    g = h0 - 2.0 * (1.0 + alpha) * mu * S
    label = "3.3" if run.truncate_sigma is not None else "3.1"
    names = {
        "path": f"Objective-regularized PA: M <= (D^2 + 2 S P)/h0 "
                f"(Shen & Dietterich 2009, Thm {label}, corrected)",
        "paper": f"Objective-regularized PA: M <= D^2/g "
                 f"(Shen & Dietterich 2009, Thm {label}, as stated)"}
    return _finish(
        names[form], form, M, numerator=D ** 2 + 2.0 * S * c.P, denominator=h0,
        paper_denominator=g, paper_numerator=D ** 2,
        exact_numerator=rep.exact_rhs, hypothesis=c.moves_only_on_mistakes,
        terms=dict(alpha=alpha, h0=h0, g=g,
                   **_common_terms(run, stream, c, rep, S, sigma)))


def l2_constrained_bound(run, X, y, U, form="path"):
    """Theorem 3.2 (``truncate_sigma=None``) or 3.4, L2 part, on a finished run.

    Paper (with (H)): if ``q = 1/R^2 - 2 mu beta - 2 sqrt(sigma) D > 0`` then
    ``M <= D^2/q`` (``= R^2 D^2/(1 - 2 mu beta R^2)`` when ``sigma = 0``).
    Corrected (any drift): ``update_on="mistake"``:
    ``M <= (D^2 + 2 S P_2)/(1/R^2 - 2 sqrt(sigma) D)``;
    ``update_on="round"``: ``M <= R^2 (D^2 + 2 S P_2 + 2 sqrt(sigma) D N)``
    with ``N = run.n_updates_``.  ``M`` = rounds with ``y_t w_t.x_t <= 0``,
    ``R = max ||x_t||_2``, ``D = max_t ||u_t||_2``,
    ``mu = max_t ||u_t - u_{t+1}||_2``, ``P_2 = sum_t ||u_t - u_{t+1}||_2``,
    ``S = max_t ||w_t||_2 <= beta`` (replay).  Assumptions: A1 and
    ``||u_t||_2 <= beta`` for every round ``t < T`` (``u_t`` must be feasible
    for problem 3.9).

    Parameters and returns as in :func:`objective_regularized_bound`
    (``run`` an :class:`olearn.linear.regularized.L2ConstrainedPA`, either
    ``update_on``).
    """
    return _constrained_bound(run, X, y, U, form, L2ConstrainedPA, "l2")


def l1_constrained_bound(run, X, y, U, form="path"):
    """Theorem 3.2 (L1 part) or 3.4 (L1 part) on a finished run.

    Paper (with (H)): ``||u_t||_1 <= D_1 <= beta``, ``||u_t - u_{t+1}||_inf
    <= mu``, ``||x_t||_2 <= R``: if ``q = 1/R^2 - 2 mu beta - 2 sqrt(sigma)
    D_1 > 0`` then ``M <= D_1^2/q``.  Corrected (any drift):
    ``update_on="mistake"``:
    ``M <= (D_2^2 + 2 S_1 P_inf)/(1/R^2 - 2 sqrt(sigma) D_2)``;
    ``update_on="round"``:
    ``M <= R^2 (D_2^2 + 2 S_1 P_inf + 2 sqrt(sigma) D_2 N)``, with
    ``D_2 = max_t ||u_t||_2 <= D_1``, ``P_inf = sum_t ||u_t - u_{t+1}||_inf``,
    ``S_1 = max_t ||w_t||_1 <= beta`` (replay), ``N = run.n_updates_``.
    Assumptions: A1 and ``||u_t||_1 <= beta`` for every round ``t < T``.

    Parameters and returns as in :func:`objective_regularized_bound`
    (``run`` an :class:`olearn.linear.regularized.L1ConstrainedPA`); ``terms["D"]``
    is ``D_2`` and ``terms["D_l1"]`` is ``D_1``.
    """
    return _constrained_bound(run, X, y, U, form, L1ConstrainedPA, "l1")


def _constrained_bound(run, X, y, U, form, learner_type, norm):
    stream, U, sigma = _setup(run, X, y, U, learner_type, form)
    beta = float(run.beta)
    c = _Competitor(stream, U, norm)
    own = c.norms_own[:-1]
    if np.any(own > beta * (1.0 + ROUNDOFF)):
        raise ValueError(
            f"Theorem {'3.4' if sigma else '3.2'} needs every competitor inside "
            f"the learner's ball, ||u_t||_{norm[1]} <= beta = {beta}; the "
            f"largest is {own.max():.6g} (round {int(np.argmax(own))}).")
    rep = _replay(run, stream, U)
    S = rep.S1 if norm == "l1" else rep.S2
    M, R, D, mu = c.mistakes, stream.R, c.D, c.mu
    D_paper = c.D_l1 if norm == "l1" else D
    root = 2.0 * np.sqrt(sigma) * D
    q = 1.0 / R ** 2 - 2.0 * mu * beta - 2.0 * np.sqrt(sigma) * D_paper
    if run.update_on == "mistake":
        numerator, denominator = D ** 2 + 2.0 * S * c.P, 1.0 / R ** 2 - root
        exact = rep.exact_rhs
    else:
        N = float(run.n_updates_)
        numerator, denominator = D ** 2 + 2.0 * S * c.P + root * N, 1.0 / R ** 2
        exact = rep.exact_rhs + root * N
    part = norm.upper()
    label = "3.4" if run.truncate_sigma is not None else "3.2"
    names = {
        "path": f"{part}-constrained PA: "
                f"M <= (D^2 + 2 S P)/(1/R^2 - 2 sqrt(sigma) D) "
                f"(Shen & Dietterich 2009, Thm {label} {part} part, corrected)",
        "paper": f"{part}-constrained PA: "
                 f"M <= D^2/(1/R^2 - 2 mu beta - 2 sqrt(sigma) D) "
                 f"(Shen & Dietterich 2009, Thm {label} {part} part, as stated)"}
    hypothesis = c.moves_only_on_mistakes and (
        run.truncate_sigma is None or run.update_on == "mistake")
    return _finish(
        names[form], form, M, numerator=numerator, denominator=denominator,
        paper_denominator=q, paper_numerator=D_paper ** 2,
        exact_numerator=exact, hypothesis=hypothesis,
        terms=dict(beta=beta, q=q, D_l1=c.D_l1,
                   **_common_terms(run, stream, c, rep, S, sigma)))


# -- shared steps -------------------------------------------------------------------
def _setup(run, X, y, U, learner_type, form):
    """Validate the run, the form and ``U``; return ``(stream, U, sigma)``."""
    if form not in ("path", "paper"):
        raise ValueError(f"form must be 'path' or 'paper', got {form!r}.")
    stream = finished_run(run, X, y, learner_type)
    T, d = stream.X.shape
    U = np.asarray(U, dtype=np.float64)
    if U.ndim != 2 or U.shape[1] != d or U.shape[0] not in (T, T + 1):
        raise ValueError(f"U must hold the competitors u_0..u_T as a ({T + 1}, "
                         f"{d}) array (or ({T}, {d}) with u_T = u_(T-1)); got "
                         f"shape {U.shape}.")
    if not np.all(np.isfinite(U)):
        raise ValueError("U has non-finite entries.")
    if U.shape[0] == T:
        U = np.vstack([U, U[-1:]])
    sigma = 0.0 if run.truncate_sigma is None else float(run.truncate_sigma)
    return stream, U, sigma


class _Competitor:
    """The competitor side: zero loss (A1), ``D``, ``mu``, ``P``, hypothesis (H)."""

    def __init__(self, stream, U, norm):
        T = stream.y.shape[0]
        margins_u = stream.y * _row_dots(stream.X, U[:T])
        short = margins_u < 1.0 - ROUNDOFF
        if np.any(short):
            worst = int(np.argmin(margins_u))
            raise ValueError(
                f"The theorems need a competitor with zero loss on every round "
                f"(y_t u_t.x_t >= 1); it fails on {int(short.sum())} of {T} "
                f"rounds (smallest margin {margins_u[worst]:.6g} on round "
                f"{worst}). Pass competitors with margin >= 1 on every round.")
        steps = np.diff(U, axis=0)
        self.steps = (np.abs(steps).max(axis=1) if norm == "l1"
                      else np.linalg.norm(steps, axis=1))
        self.norms_own = (np.abs(U).sum(axis=1) if norm == "l1"
                          else np.linalg.norm(U, axis=1))
        self.D = float(np.linalg.norm(U, axis=1).max())
        self.D_l1 = float(np.abs(U).sum(axis=1).max())
        self.mu = float(self.steps.max(initial=0.0))
        self.P = float(self.steps.sum())
        self.min_margin = float(margins_u.min(initial=np.inf))
        mistake = stream.margins <= 0.0
        self.mistakes = int(np.count_nonzero(mistake))
        self.moves_only_on_mistakes = bool(np.all(self.steps[~mistake] == 0.0))
        self.moving_rounds = int(np.count_nonzero(self.steps))


def _row_dots(X, U):
    """``x_t.u_t`` for every row (dense or CSR ``X``)."""
    if sp.issparse(X):
        return np.asarray(X.multiply(U).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, U)


class _Replay:
    """What the replay measures: ``S`` (both norms) and the right side of (*)."""

    def __init__(self, S2, S1, drift, final_gap_sq, end_sq):
        self.S2, self.S1 = S2, S1
        self.drift = drift                    # 2 sum_t w_{t+1}.(u_t - u_{t+1})
        self.final_gap_sq = final_gap_sq      # ||w_T - u_T||^2
        self.exact_rhs = end_sq - final_gap_sq + drift


def _replay(run, stream, U):
    """Re-run a clone of ``run`` one round at a time; check it matches the run.

    The first round goes through ``partial_fit`` (validation, classes); the
    others through the estimator's per-chunk step ``_run`` on the already
    validated rows, which is what ``partial_fit`` calls after validating.
    """
    X = stream.X
    X = X.tocsr() if sp.issparse(X) else np.ascontiguousarray(X)
    if sp.issparse(X):
        X.sum_duplicates()
    y_pm = stream.y
    labels = run.classes_[(y_pm > 0).astype(int)]
    replica = clone(run)
    replica.partial_fit(X[:1], labels[:1], classes=run.classes_)
    T = y_pm.shape[0]
    S2 = S1 = drift = 0.0
    w = replica.coef_.ravel()
    for t in range(T):
        if t > 0:
            replica._run(X[t:t + 1], y_pm[t:t + 1])
            w = replica.coef_.ravel()
        S2 = max(S2, float(np.linalg.norm(w)))
        S1 = max(S1, float(np.abs(w).sum()))
        drift += 2.0 * float(w @ (U[t] - U[t + 1]))
    scale = 1.0 + np.abs(run.margins_).max(initial=0.0)
    gap_m = float(np.max(np.abs(replica.margins_ - run.margins_), initial=0.0))
    gap_w = float(np.max(np.abs(replica.coef_ - run.coef_), initial=0.0))
    if gap_m > 1e-8 * scale or gap_w > 1e-8 * (1.0 + S2):
        raise ValueError(
            f"Replaying the run round by round does not reproduce it (margins "
            f"differ by {gap_m:.3g}, weights by {gap_w:.3g}): pass the X, y the "
            f"run saw, in the same order, from one pass started at w = 0.")
    gap = float(np.sum((w - U[T]) ** 2))
    return _Replay(S2, S1, drift, gap, float(U[T] @ U[T]))


def _common_terms(run, stream, c, rep, S, sigma):
    return dict(R=stream.R, D=c.D, mu=c.mu, P=c.P, S=S, S_l2=rep.S2,
                S_l1=rep.S1, sigma=sigma, update_on=run.update_on,
                competitor_min_margin=c.min_margin,
                competitor_moving_rounds=c.moving_rounds,
                drift_term=rep.drift, final_gap_sq=rep.final_gap_sq,
                mistakes=int(c.mistakes), sign_errors=int(run.n_mistakes_),
                updates=int(run.n_updates_),
                rounds=int(run.n_rounds_))


def _finish(name, form, M, numerator, denominator, paper_denominator,
            paper_numerator, exact_numerator, hypothesis, terms):
    """Check the requested denominator, assemble both bounds, build the check."""
    path_ok = denominator > 0.0
    paper_ok = paper_denominator > 0.0
    path_bound = numerator / denominator if path_ok else np.inf
    paper_bound = paper_numerator / paper_denominator if paper_ok else np.inf
    if form == "path" and not path_ok:
        raise ValueError(
            f"The corrected bound needs a positive denominator; it is "
            f"{denominator:.6g} (mistake progress 1/R^2 is outweighed by the "
            f"shrinkage or truncation terms: R={terms['R']:.6g}, "
            f"D={terms['D']:.6g}, sigma={terms['sigma']:.6g}).")
    if form == "paper" and not paper_ok:
        raise ValueError(
            f"The paper's bound needs a positive denominator; it is "
            f"{paper_denominator:.6g} (R={terms['R']:.6g}, D={terms['D']:.6g}, "
            f"mu={terms['mu']:.6g}, S={terms['S']:.6g}, "
            f"sigma={terms['sigma']:.6g}): the competitor drifts too fast.")
    data_bound = exact_numerator / denominator if path_ok else np.inf
    bound = path_bound if form == "path" else paper_bound
    return make_check(
        name, M, bound, path_bound=path_bound, paper_bound=paper_bound,
        bound_data_dependent=data_bound, paper_hypothesis=bool(hypothesis),
        paper_holds=bool(M <= paper_bound * (1.0 + ROUNDOFF)), **terms)


# -- synthetic drifting streams -------------------------------------------------
def drifting_stream(n, d, mu, D, R, random_state=None, norm="l2", learner=None,
                    max_draws=10_000):
    """A stream that satisfies A1-A4 for a competitor drifting by ``mu`` per step.

    The competitor has ``||u_t|| = D`` exactly and moves by at most ``mu``:

    * ``norm="l2"``: ``u_t = D (cos(phi_t) a + sin(phi_t) b)`` for a random
      orthonormal pair ``a, b``; ``phi`` grows by ``2 arcsin(mu/(2D))`` per
      step, so ``||u_t - u_{t+1}||_2 = mu`` exactly (a slow rotation);
    * ``norm="l1"``: ``u_t`` walks along the edges of the L1 sphere of radius
      ``D`` (the cross-polytope): between vertices ``D s e_j`` and
      ``D s' e_j'`` (random ``j' != j``, signs ``s, s'``) in
      ``K = ceil(D/mu)`` equal steps, so ``||u_t||_1 = D`` and
      ``||u_t - u_{t+1}||_inf = D/K <= mu``.

    Each ``x_t`` is drawn uniformly from the L2 ball of radius ``R`` and
    redrawn until ``|u_t.x_t| >= 1`` (rejection sampling); ``y_t =
    sign(u_t.x_t)``, so ``y_t u_t.x_t >= 1`` (zero loss) and
    ``||x_t||_2 <= R``.  This needs ``D R > 1`` (L2) or ``D R > sqrt(2)`` (L1)
    comfortably above 1, and moderate ``d``.

    With ``learner`` (an unfitted olearn estimator), the competitor moves
    only after the rounds on which ``learner`` makes a mistake
    (``y_t w_t.x_t <= 0``) -- the paper's hypothesis (H), an adversary that
    watches the learner.  The learner is fed one example per round (the
    first by ``partial_fit(..., classes=[-1, 1])``, the others by its
    per-chunk step, as ``partial_fit`` would after validating) and is left
    fitted on the stream, exactly as ``fit(X, y)`` would leave it.

    Returns
    -------
    X : ndarray (n, d)
    y : ndarray (n,) of -1.0 / +1.0
    U : ndarray (n + 1, d)
        ``u_0..u_n`` (row ``n`` is the competitor after the last round).

    ``n < 1`` and a fitted ``learner`` raise ``ValueError``, a ``learner`` that is
    not a regularized PA ``TypeError``.
    """
    if norm not in NORMS:
        raise ValueError(f"norm must be one of {NORMS}, got {norm!r}.")
    for name, value in (("mu", mu), ("D", D), ("R", R)):
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a finite number > 0, got {value!r}: "
                             f"pass {name} > 0.")
    if int(n) < 1 or int(d) < 2:
        raise ValueError(f"Need n >= 1 and d >= 2, got n={n}, d={d}: pass n >= 1 rows "
                         f"of d >= 2 features.")
    if not D * R > (1.0 if norm == "l2" else np.sqrt(2.0)):
        raise ValueError(f"No x with ||x|| <= R={R} has margin 1 against every "
                         f"u with ||u|| = D={D}: need D R > "
                         f"{'1' if norm == 'l2' else 'sqrt(2)'}.")
    if norm == "l2" and mu > 2.0 * D:
        raise ValueError(f"mu={mu} exceeds the diameter 2D={2 * D}.")
    if learner is not None:
        refuse_degenerate(1, learner=learner, learner_type=(
            ObjectiveRegularizedPA, L1ConstrainedPA, L2ConstrainedPA))
    if learner is not None and hasattr(learner, "classes_"):
        raise ValueError("learner must be unfitted: the theorems start from "
                         "w = 0. Pass sklearn.base.clone(learner).")
    rng = np.random.default_rng(random_state)
    n, d = int(n), int(d)
    path = _Path(rng, d, mu, D, norm)
    X, y, U = np.empty((n, d)), np.empty(n), np.empty((n + 1, d))
    U[0] = path.current()
    for t in range(n):
        X[t], y[t] = _draw(rng, U[t], R, max_draws)
        moves = True
        if learner is not None:
            if t == 0:
                learner.partial_fit(X[:1], y[:1], classes=[-1.0, 1.0])
            else:
                learner._run(X[t:t + 1], y[t:t + 1])   # y is already +-1
            moves = learner.margins_[-1] <= 0.0
        U[t + 1] = path.step() if moves else U[t]
    return X, y, U


class _Path:
    """The competitor's trajectory (see :func:`drifting_stream`)."""

    def __init__(self, rng, d, mu, D, norm):
        self.rng, self.d, self.D, self.norm = rng, d, D, norm
        if norm == "l2":
            a, b = np.linalg.qr(rng.standard_normal((d, 2)))[0].T
            self.a, self.b = a, b
            self.phi = rng.uniform(0.0, 2.0 * np.pi)
            self.dphi = 2.0 * np.arcsin(mu / (2.0 * D))
        else:
            self.K = int(np.ceil(D / mu))
            self.k = 0
            self.vertex = self._next_vertex(None)
            self.target = self._next_vertex(self.vertex)

    def _next_vertex(self, previous):
        j = self.rng.integers(self.d)
        while previous is not None and j == previous[0]:
            j = self.rng.integers(self.d)
        return int(j), float(self.rng.choice([-1.0, 1.0]))

    def current(self):
        if self.norm == "l2":
            return self.D * (np.cos(self.phi) * self.a + np.sin(self.phi) * self.b)
        u = np.zeros(self.d)
        lam = self.k / self.K
        u[self.vertex[0]] += (1.0 - lam) * self.D * self.vertex[1]
        u[self.target[0]] += lam * self.D * self.target[1]
        return u

    def step(self):
        if self.norm == "l2":
            self.phi += self.dphi
        else:
            self.k += 1
            if self.k == self.K:
                self.k = 0
                self.vertex = self.target
                self.target = self._next_vertex(self.vertex)
        return self.current()


def _draw(rng, u, R, max_draws, batch=64):
    """``x`` uniform in the radius-``R`` ball with ``|u.x| >= 1``; its label."""
    d = u.shape[0]
    for _ in range(0, max_draws, batch):
        g = rng.standard_normal((batch, d))
        radius = R * rng.uniform(size=batch) ** (1.0 / d)
        x = g * (radius / np.linalg.norm(g, axis=1))[:, None]
        score = x @ u
        ok = np.flatnonzero(np.abs(score) >= 1.0)
        if ok.size:
            return x[ok[0]], float(np.sign(score[ok[0]]))
    raise ValueError(f"No x with margin >= 1 in {max_draws} draws: raise D R or "
                     f"lower d (now d={d}, ||u||_2={np.linalg.norm(u):.3g}, R={R}).")


# -- per-round trace of the proofs ------------------------------------------------
def round_terms(run, X, y, U):
    """The per-round terms of the proofs of Theorems 3.1-3.4, one row per round.

    Replays ``run`` (a finished :class:`ObjectiveRegularizedPA`,
    :class:`L2ConstrainedPA` or :class:`L1ConstrainedPA`) one round at a time
    and splits ``Delta_t = ||w_t - u_t||^2 - ||w_{t+1} - u_{t+1}||^2`` (rounds
    ``t = 0..T-1`` here, ``t = 1..T`` in the book) the way the proofs do,
    with ``w'`` the step of the round before any shrinkage (the PA-like step
    ``w_t + tau y_t x_t`` of Lemma 3.1; for the constrained learners the
    solution of (3.9)/(3.10)), ``w''`` the solution of the round's program
    (``w'/(1 + alpha)``; ``= w'`` for the constrained learners) and
    ``w_{t+1} = w'' - v_t`` after feature truncation:

    * ``progress = ||w_t - u_t||^2 - ||w' - u_t||^2``,
    * ``shrink = ||w' - u_t||^2 - ||w'' - u_t||^2`` (objective-regularized),
    * ``truncation = ||w'' - u_t||^2 - ||w_{t+1} - u_t||^2``,
    * ``drift = ||w_{t+1} - u_t||^2 - ||w_{t+1} - u_{t+1}||^2``,

    so ``Delta = progress + shrink + truncation + drift`` exactly.  ``w''`` is
    computed by the library's own round solvers
    (:func:`olearn.linear.regularized.objective_regularized_step`,
    :func:`~olearn.linear.regularized.l2_constrained_step`,
    :func:`olearn.linear._l1ball.l1_constrained_solution`) from the replayed
    ``w_t``, on the rounds on which the learner solves its program; the
    replayed ``w_{t+1}`` comes from the learner itself, so ``v_t`` is
    measured, not assumed (it is zero up to round-off without truncation).

    Columns: ``mistake`` (``p_t <= 0``), ``solved`` (the program was solved
    this round), ``p`` (margin ``y_t w_t.x_t``), ``q`` (``||x_t||_2^2``),
    ``competitor_margin`` (``y_t u_t.x_t``), ``margin_after``
    (``y_t w''.x_t``), the four terms and ``Delta``, ``step_sq``
    (``||w' - w_t||^2``), ``v_sq`` (``||v_t||^2``), ``v_off`` (``|v_t.w'' -
    ||v_t||^2|``: zero when ``v_t`` is ``w''`` restricted to the dropped
    coordinates), ``u_sq`` (``||u_t||_2^2``), ``u_next_sq``, ``u_step_l2`` and
    ``u_step_inf`` (``||u_t - u_{t+1}||``), ``w_prime_l2``
    (``||w'||_2``), ``w_next_l2`` and ``w_next_l1`` (norms of ``w_{t+1}``),
    ``w_l2`` (``||w_t||_2``).  ``U`` is ``u_0..u_T`` as in the bound functions.
    Dense or sparse ``X``; ``O(T d)`` time (meant for ``T d`` up to ~10^7).
    Another learner raises ``TypeError``; an unfitted run, an empty stream or
    one of zero rows only ``ValueError``
    (:func:`olearn.bounds._common.refuse_degenerate`).  Any ``U`` is taken, one
    with no positive margin too: this is a trace, not a bound.
    """
    from ..linear._l1ball import l1_constrained_solution
    from ..linear.regularized import (_NORM_SLACK, l2_constrained_step,
                                      objective_regularized_step)
    import pandas as pd

    if isinstance(run, ObjectiveRegularizedPA):
        kind = "objective"
    elif isinstance(run, L2ConstrainedPA):
        kind = "l2"
    elif isinstance(run, L1ConstrainedPA):
        kind = "l1"
    else:
        raise TypeError(f"round_terms is about the regularized PA learners; got "
                        f"a {type(run).__name__}. Pass an ObjectiveRegularizedPA, "
                        f"L2ConstrainedPA or L1ConstrainedPA run.")
    learner_type = type(run)
    stream, U, _ = _setup(run, X, y, U, learner_type, "path")
    Xs = stream.X
    Xs = Xs.tocsr() if sp.issparse(Xs) else np.ascontiguousarray(Xs)
    y_pm = stream.y
    labels = run.classes_[(y_pm > 0).astype(int)]
    T, d = Xs.shape
    on_mistake = run.update_on == "mistake"
    replica = clone(run)
    rows = {k: np.zeros(T) for k in (
        "p", "q", "competitor_margin", "margin_after", "progress", "shrink",
        "truncation", "drift", "Delta", "step_sq", "v_sq", "v_off", "u_sq",
        "u_next_sq", "u_step_l2", "u_step_inf", "w_prime_l2", "w_next_l2",
        "w_next_l1", "w_l2")}
    mistake = np.zeros(T, dtype=bool)
    solved = np.zeros(T, dtype=bool)
    w = np.zeros(d)
    for t in range(T):
        x = (Xs[t].toarray().ravel() if sp.issparse(Xs) else Xs[t]).astype(np.float64)
        yt = y_pm[t]
        p, q, n = yt * float(w @ x), float(x @ x), float(w @ w)
        if t == 0:
            replica.partial_fit(Xs[:1], labels[:1], classes=run.classes_)
        else:
            replica._run(Xs[t:t + 1], y_pm[t:t + 1])
        w_next = replica.coef_.ravel().copy()
        # the round's program, as the compiled pass decides to solve it
        solve = not (on_mistake and p > 0.0)
        if kind == "l2":
            solve = solve and (p < 1.0 or n > run.beta ** 2 * (1.0 + _NORM_SLACK))
        w_pp = w.copy()
        w_p = w.copy()
        if solve:
            if kind == "objective":
                a, b = objective_regularized_step(p, q, float(run.alpha))
                w_pp = a * w + b * yt * x
                w_p = (1.0 + float(run.alpha)) * w_pp
            elif kind == "l2":
                a, b = l2_constrained_step(p, q, n, float(run.beta))
                w_pp = a * w + b * yt * x
                w_p = w_pp
            else:
                w_pp = l1_constrained_solution(w, x, yt, float(run.beta))[0]
                w_p = w_pp
        v = w_pp - w_next
        u, u_next = U[t], U[t + 1]

        def dist(a_, b_):
            return float(np.sum((a_ - b_) ** 2))
        r = rows
        r["p"][t], r["q"][t] = p, q
        r["competitor_margin"][t] = yt * float(u @ x)
        r["margin_after"][t] = yt * float(w_pp @ x)
        r["progress"][t] = dist(w, u) - dist(w_p, u)
        r["shrink"][t] = dist(w_p, u) - dist(w_pp, u)
        r["truncation"][t] = dist(w_pp, u) - dist(w_next, u)
        r["drift"][t] = dist(w_next, u) - dist(w_next, u_next)
        r["Delta"][t] = dist(w, u) - dist(w_next, u_next)
        r["step_sq"][t] = dist(w_p, w)
        r["v_sq"][t] = float(v @ v)
        r["v_off"][t] = abs(float(v @ w_pp) - float(v @ v))
        r["u_sq"][t], r["u_next_sq"][t] = float(u @ u), float(u_next @ u_next)
        r["u_step_l2"][t] = float(np.linalg.norm(u - u_next))
        r["u_step_inf"][t] = float(np.abs(u - u_next).max(initial=0.0))
        r["w_prime_l2"][t] = float(np.linalg.norm(w_p))
        r["w_next_l2"][t] = float(np.linalg.norm(w_next))
        r["w_next_l1"][t] = float(np.abs(w_next).sum())
        r["w_l2"][t] = float(np.sqrt(n))
        mistake[t], solved[t] = p <= 0.0, solve
        w = w_next
    scale = 1.0 + np.abs(run.margins_).max(initial=0.0)
    gap_m = float(np.max(np.abs(rows["p"] - run.margins_), initial=0.0))
    gap_w = float(np.max(np.abs(w - run.coef_.ravel()), initial=0.0))
    if gap_m > 1e-8 * scale or gap_w > 1e-8 * (1.0 + np.abs(w).max(initial=0.0)):
        raise ValueError(
            f"Replaying the run round by round does not reproduce it (margins "
            f"differ by {gap_m:.3g}, weights by {gap_w:.3g}): pass the X, y the "
            f"run saw, in the same order, from one pass started at w = 0.")
    frame = pd.DataFrame({"mistake": mistake, "solved": solved, **rows})
    frame.index.name = "t"
    return frame


#: The rows of :func:`proof_step_slacks` that hold for any input: an identity (the
#: four terms add up to ``Delta`` by construction), a completed square (the shrinkage
#: bound), Cauchy-Schwarz on quantities the library computes (truncation given
#: ``v . w'' = ||v||^2``; drift with ``S`` the largest of the same norms).  They
#: illustrate the proofs; the other rows check what can fail (the projection, the
#: margin, the ball, the truncation threshold, (A1) through the progress bounds, (H)).
PROOF_IDENTITIES = (
    "Delta = progress + shrink + truncation + drift",
    "shrink >= -alpha ||u_t||^2/(2 + alpha)",
    "truncation >= -2 ||v_t|| ||u_t||",
    "drift >= ||u_t||^2 - ||u_t+1||^2 - 2 S ||u_t - u_t+1||",
)


def group_proof_steps(slacks):
    """Index the rows of a :func:`proof_step_slacks` table by kind.

    Returns ``slacks`` (a Series or DataFrame indexed by step) with a two-level
    index: ``"can fail"`` first (the informative checks), then ``"cannot fail"``
    (the rows named in :data:`PROOF_IDENTITIES`).
    """
    import pandas as pd

    kind = ["cannot fail" if step in PROOF_IDENTITIES else "can fail" for step in slacks.index]
    grouped = slacks.copy()
    grouped.index = pd.MultiIndex.from_arrays([kind, list(slacks.index)], names=["check", "step"])
    order = sorted(range(len(kind)), key=lambda i: kind[i] == "cannot fail")   # stable
    return grouped.iloc[order]


def _least(values):
    """The smallest of ``values`` as a float, or None when there are none (a step about
    rounds that the run does not have holds vacuously)."""
    return float(values.min()) if len(values) else None


def proof_step_slacks(run, X, y, U):
    """The smallest slack of every inequality of the proofs of Theorems 3.1-3.4 on a run.

    Computes :func:`round_terms` and returns a :class:`pandas.Series`, one
    entry per step of the proofs (names as in the book), each the minimum over
    the rounds the step is about of ``right side - left side`` of the
    inequality as the proof writes it ``>= 0`` (an equality step gives
    ``-|difference|``): a value ``>= -1e-9`` means the step holds on every
    round of the run.  Steps that do not apply to the learner are absent, and so
    is a step about rounds the run does not have (the mistake rounds of a run
    without a mistake): it holds vacuously, never a NaN slack.
    ``R^2 = max_t ||x_t||^2``, ``D = max_t ||u_t||_2``, ``S`` the largest
    dual norm of the learner's weights (``||.||_1`` for the L1 learner, whose
    drift is measured in ``||.||_inf``), ``sigma = truncate_sigma`` (0 if
    None).  Degenerate runs raise as in :func:`round_terms`; any ``U`` is
    taken (a slack of (A1) shows where a competitor with too small a margin
    breaks the proof).
    """
    import pandas as pd

    tr = round_terms(run, X, y, U)
    objective = isinstance(run, ObjectiveRegularizedPA)
    l1 = isinstance(run, L1ConstrainedPA)
    alpha = float(run.alpha) if objective else 0.0
    sigma = 0.0 if run.truncate_sigma is None else float(run.truncate_sigma)
    U = np.asarray(U, dtype=np.float64)
    R2 = float(tr["q"].max())
    D = float(np.sqrt(np.max(np.sum(U * U, axis=1))))
    m = tr[tr["mistake"]]
    solved = tr[tr["solved"]]
    nxt = tr["w_next_l1"] if l1 else tr["w_next_l2"]
    step = "u_step_inf" if l1 else "u_step_l2"
    S = float(nxt.max())
    terms = ["progress", "shrink", "truncation", "drift"]
    s = {"Delta = progress + shrink + truncation + drift":
         -float((tr["Delta"] - tr[terms].sum(axis=1)).abs().max())}
    if run.update_on == "mistake" and (~tr["mistake"]).any():
        s["Delta = 0 without a mistake (H)"] = -float(tr.loc[~tr["mistake"], "Delta"].abs().max())
    if objective:
        s["progress >= (l^2 - alpha^2)/q"] = _least(
            m["progress"] - ((1 - m["p"]) ** 2 - alpha ** 2) / m["q"])
    else:
        s["progress >= ||w'' - w_t||^2 (projection)"] = _least(
            solved["progress"] - solved["step_sq"])
        s["||w'' - w_t||^2 >= (1 - p)^2/q"] = _least(
            m["step_sq"] - (1 - m["p"]) ** 2 / m["q"])
    s["progress >= (1 - alpha^2)/R^2"] = _least(m["progress"] - (1 - alpha ** 2) / R2)
    s["margin after the update >= 1"] = _least(m["margin_after"] - 1.0)
    if objective:
        s["shrink >= -alpha ||u_t||^2/(2 + alpha)"] = _least(
            m["shrink"] + alpha * m["u_sq"] / (2 + alpha))
    else:
        s[f"||w_t+1||_{'1' if l1 else '2'} <= beta"] = float(run.beta) * (1 + 1e-12) - S
    if run.truncate_sigma is not None:
        s["||v_t||^2 <= sigma"] = sigma - float(tr["v_sq"].max())
        s["v_t . w'' = ||v_t||^2"] = -float(tr["v_off"].max())
        s["truncation >= -2 ||v_t|| ||u_t||"] = float(
            (tr["truncation"] + 2 * np.sqrt(tr["v_sq"] * tr["u_sq"])).min())
        s["truncation >= -2 sqrt(sigma) D"] = float(
            (tr["truncation"] + 2 * np.sqrt(sigma) * D).min())
    s["drift >= ||u_t||^2 - ||u_t+1||^2 - 2 S ||u_t - u_t+1||"] = float(
        (tr["drift"] - (tr["u_sq"] - tr["u_next_sq"] - 2 * S * tr[step])).min())
    s = {name: v for name, v in s.items() if v is not None}
    return pd.Series(s, name=type(run).__name__)
