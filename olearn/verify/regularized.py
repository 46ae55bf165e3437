"""Regularized PA: the per-round programs in cvxpy (Shen and Dietterich 2009).

    (3.1)   min_w 1/2 ||w - w_t||^2 + alpha/2 ||w||^2   s.t.  y_t w.x_t >= 1
    (3.9)   min_w 1/2 ||w - w_t||^2   s.t.  y_t w.x_t >= 1,  ||w||_2 <= beta
    (3.10)  min_w 1/2 ||w - w_t||^2   s.t.  y_t w.x_t >= 1,  ||w||_1 <= beta

:func:`objective_regularized_program`, :func:`l2_constrained_program` and
:func:`l1_constrained_program` write them literally; ``check_*`` compares
their argmin with one round of :class:`olearn.linear.regularized.ObjectiveRegularizedPA`,
:class:`~olearn.linear.regularized.L2ConstrainedPA` and
:class:`~olearn.linear.regularized.L1ConstrainedPA` on random rounds that cover every
pattern of active constraints.

Solvers.  Problem (3.1) is a QP and goes to Clarabel at the tight tolerances
of :mod:`olearn.verify._common`.
Problem (3.9) has a second-order cone; on rounds whose solution lies on the
sphere with the margin inactive, Clarabel stops at ``optimal_inaccurate`` with
errors up to ~1e-5 in ``w`` (its objective is right to ~1e-11; the argmin
error is of the order of its square root), and the convention's program for
(3.10) has a feasible set without interior, on which Clarabel also stops
early.  The constrained programs therefore use SCS (``eps_abs = eps_rel =
1e-12``), which reaches ~1e-11 on these small problems.

Infeasible rounds.  When no ``w`` meets the constraints (``beta ||x|| < 1``,
``beta ||x||_inf < 1``, or ``x = 0``) cvxpy reports the literal program
infeasible and the programs below solve the library's convention instead, as
its own lexicographic program: among the points reaching the largest margin
``m*`` (``max y w.x`` over the norm ball; over all ``w`` for problem 3.1,
where only ``x = 0`` is infeasible) the closest to ``w_t`` (for 3.1: the
smallest objective).  For the L2 ball the maximiser is unique (the ball is
strictly convex), so the program ``max y w.x s.t. ||w||_2 <= beta`` gives it;
for the L1 ball the maximisers form a face, and the program
``min 1/2||w - w_t||^2 s.t. ||w||_1 <= beta, y w.x >= m*`` with
``m* = beta ||x||_inf`` (Hoelder) picks the point.  Such solutions carry
``status = "infeasible"``.
"""
import functools
import warnings

import cvxpy as cp
import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from ..base import check_positive
from ..linear.regularized import L1ConstrainedPA, L2ConstrainedPA, ObjectiveRegularizedPA
from ._common import (ProgramSolution, as_example, library_step,
                      random_example, solve_program, with_margin)

OBJECTIVE_CASES = ("margin inactive", "margin active")
CONSTRAINED_CASES = ("feasible", "margin only", "norm only", "both active",
                     "infeasible")
ACTIVE_TOL = 1e-6
#: SCS settings for the constrained programs (see the module docstring).
SCS_OPTIONS = {"eps_abs": 1e-12, "eps_rel": 1e-12, "max_iters": 200_000}


# -- the programs ------------------------------------------------------------------
def objective_regularized_program(w, x, y, alpha):
    """Solve problem (3.1) of round ``t``: the argmin is ``w_{t+1}``.

    Parameters
    ----------
    w : array of shape (n_features,)
        ``w_t``.
    x : array of shape (n_features,) or a 1-row matrix
        ``x_t``.
    y : {-1, +1}
    alpha : float >= 0

    Returns
    -------
    ProgramSolution
        With ``x = 0`` the program is infeasible; then (convention) the margin
        is 0 for every ``w`` and ``.w`` minimises the objective alone,
        ``status = "infeasible"``.
    """
    check_positive("alpha", alpha, allow_zero=True)
    w, x, y = as_example(w, x, y)
    problem, w_next, data = _objective_problem(w.size, y, constrained=True)
    data["w_t"].value, data["x_t"].value, data["alpha"].value = w, x, float(alpha)
    try:
        return solve_program(problem, w_next)
    except ValueError:
        problem, w_next, data = _objective_problem(w.size, y, constrained=False)
        data["w_t"].value, data["alpha"].value = w, float(alpha)
        sol = solve_program(problem, w_next)
        return ProgramSolution(sol.w, sol.objective, "infeasible")


def l2_constrained_program(w, x, y, beta):
    """Solve problem (3.9): ``min 1/2||w - w_t||^2`` s.t. margin >= 1, ``||w||_2 <= beta``.

    An infeasible round (``beta ||x|| < 1``) returns the convention of the
    module docstring (``status = "infeasible"``).
    """
    return _constrained_program(w, x, y, beta, "l2")


def l1_constrained_program(w, x, y, beta):
    """Solve problem (3.10): ``min 1/2||w - w_t||^2`` s.t. margin >= 1, ``||w||_1 <= beta``.

    An infeasible round (``beta ||x||_inf < 1``) returns the convention of the
    module docstring (``status = "infeasible"``).
    """
    return _constrained_program(w, x, y, beta, "l1")


def _solve_scs(problem, w):
    """:func:`olearn.verify._common.solve_program` with SCS (constrained programs)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        problem.solve(solver=cp.SCS, **SCS_OPTIONS)
    if problem.status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
        raise ValueError("The per-round program is infeasible.")
    if problem.status != cp.OPTIMAL:
        raise RuntimeError(f"SCS stopped with status {problem.status!r}.")
    return ProgramSolution(
        w=np.asarray(w.value, dtype=np.float64).ravel().copy(),
        objective=float(problem.value), status=problem.status)


def _constrained_program(w, x, y, beta, norm):
    check_positive("beta", beta)
    w, x, y = as_example(w, x, y)
    solve = _solve_scs
    problem, w_next, data = _constrained_problem(w.size, y, norm, "project")
    data["w_t"].value, data["x_t"].value, data["beta"].value = w, x, float(beta)
    try:
        return solve(problem, w_next)
    except ValueError:
        pass
    if norm == "l2" and np.any(x):
        # Convention: the largest margin over the ball has a unique maximiser.
        problem, w_next, data = _constrained_problem(w.size, y, norm,
                                                     "max margin")
        data["x_t"].value, data["beta"].value = x, float(beta)
        v = solve(problem, w_next).w
    else:
        # Convention: the closest point to w_t among the maximisers of the
        # margin over the ball, whose value is beta ||x||_inf (Hoelder; 0 for
        # a zero row, where every point of the ball maximises it).
        problem, w_next, data = _constrained_problem(w.size, y, norm, "closest")
        data["w_t"].value, data["x_t"].value = w, x
        data["beta"].value = float(beta)
        data["m"].value = float(beta) * float(np.max(np.abs(x)))
        v = solve(problem, w_next).w
    return ProgramSolution(v, 0.5 * float(np.sum((v - w) ** 2)), "infeasible")


@functools.lru_cache(maxsize=128)
def _objective_problem(n_features, y, constrained):
    data = {"w_t": cp.Parameter(n_features), "x_t": cp.Parameter(n_features),
            "alpha": cp.Parameter(nonneg=True)}
    w_next = cp.Variable(n_features)
    objective = (0.5 * cp.sum_squares(w_next - data["w_t"])
                 + 0.5 * data["alpha"] * cp.sum_squares(w_next))
    constraints = [y * (data["x_t"] @ w_next) >= 1] if constrained else []
    return cp.Problem(cp.Minimize(objective), constraints), w_next, data


@functools.lru_cache(maxsize=128)
def _constrained_problem(n_features, y, norm, stage):
    """Problem (3.9)/(3.10) (``stage="project"``) or a convention stage."""
    data = {"w_t": cp.Parameter(n_features), "x_t": cp.Parameter(n_features),
            "beta": cp.Parameter(nonneg=True), "m": cp.Parameter()}
    w_next = cp.Variable(n_features)
    size = cp.norm(w_next, 2) if norm == "l2" else cp.norm1(w_next)
    margin = y * (data["x_t"] @ w_next)
    distance = 0.5 * cp.sum_squares(w_next - data["w_t"])
    if stage == "project":
        problem = cp.Problem(cp.Minimize(distance),
                             [margin >= 1, size <= data["beta"]])
    elif stage == "max margin":
        problem = cp.Problem(cp.Maximize(margin), [size <= data["beta"]])
    else:
        problem = cp.Problem(cp.Minimize(distance),
                             [margin >= data["m"], size <= data["beta"]])
    return problem, w_next, data


# -- random rounds -------------------------------------------------------------------
def _l1_ball_projection(v, beta):
    """Euclidean projection onto ``{||w||_1 <= beta}`` by sorting (Duchi et al. 2008)."""
    if np.abs(v).sum() <= beta:
        return v.copy()
    u = np.sort(np.abs(v))[::-1]
    css = np.cumsum(u)
    rho = np.nonzero(u * np.arange(1, u.size + 1) > css - beta)[0][-1]
    theta = (css[rho] - beta) / (rho + 1.0)
    return np.sign(v) * np.maximum(np.abs(v) - theta, 0.0)


def random_objective_round(rng, case):
    """A random ``(w, x, y, alpha)``: ``"margin inactive"`` has ``y w.x > 1 + alpha``."""
    if case not in OBJECTIVE_CASES:
        raise ValueError(f"case must be one of {OBJECTIVE_CASES}, got {case!r}.")
    w, x, y = random_example(rng)
    alpha = 10.0 ** rng.uniform(-3.0, 0.5)
    if case == "margin inactive":
        margin = (1.0 + alpha) * rng.uniform(1.05, 3.0)
    else:
        margin = rng.uniform(-3.0, 1.0 + alpha) / 1.05
    return with_margin(w, x, y, margin), x, y, alpha


def random_constrained_round(rng, case, norm):
    """A random ``(w, x, y, beta)`` for problem (3.9) (``norm="l2"``) or (3.10).

    ``"feasible"``: ``w_t`` meets both constraints; ``"margin only"``: the PA
    step stays in the ball; ``"norm only"``: ``w_t`` is outside the ball and
    its projection onto the ball meets the margin; ``"both active"``: neither
    the PA step nor the projection onto the ball is feasible (half of these
    start inside the ball, as in a run; the others outside, with margin below
    or above 1); ``"infeasible"``: ``beta`` below ``1/||x||`` (``1/||x||_inf``;
    for L1, half of these put three coordinates at ``||x||_inf`` and give
    ``w_t`` the ball's size, so that the face's closest point is not a
    vertex).
    """
    if case not in CONSTRAINED_CASES:
        raise ValueError(f"case must be one of {CONSTRAINED_CASES}, got {case!r}.")
    if norm not in ("l1", "l2"):
        raise ValueError(f"norm must be 'l1' or 'l2', got {norm!r}.")
    size = ((lambda v: np.linalg.norm(v)) if norm == "l2"
            else (lambda v: np.abs(v).sum()))
    dual = np.linalg.norm if norm == "l2" else (lambda v: np.abs(v).max())

    def project(v, beta):
        if norm == "l2":
            return v * min(1.0, beta / np.linalg.norm(v))
        return _l1_ball_projection(v, beta)

    while True:
        w, x, y = random_example(rng)
        if norm == "l1" and rng.random() < 0.5:
            x = np.round(x * 3.0 / np.abs(x).max())   # ties in |x_j|
            if not np.any(x):
                continue
        feasible_beta = 1.0 / dual(x)
        if case == "infeasible":
            beta = feasible_beta * rng.uniform(0.2, 0.95)
            if norm == "l1" and rng.random() < 0.5:
                # several coordinates at ||x||_inf and a w_t of the ball's
                # size: the closest point of the face is not a vertex
                top = rng.choice(x.size, size=min(x.size, 3), replace=False)
                x[top] = np.abs(x).max() * rng.choice([-1.0, 1.0], top.size)
                w *= beta * rng.uniform(0.3, 2.0) / np.abs(w).sum()
            return w, x, y, beta
        if case == "feasible":
            w = with_margin(w, x, y, rng.uniform(1.05, 3.0))
            return w, x, y, size(w) * rng.uniform(1.05, 3.0)
        if case == "margin only":
            w = with_margin(w, x, y, rng.uniform(-3.0, 0.95))
            pa = with_margin(w, x, y, 1.0)
            return w, x, y, size(pa) * rng.uniform(1.05, 3.0)
        if case == "norm only":
            w = with_margin(w, x, y, rng.uniform(2.0, 6.0))
            beta = size(w) * rng.uniform(0.5, 0.95)
            if beta > 1.05 * feasible_beta and y * (project(w, beta) @ x) > 1.05:
                return w, x, y, beta
            continue
        # both active
        if rng.random() < 0.5:
            # from inside the ball, as in a run: a small w_t, margin < 1
            w *= feasible_beta * rng.uniform(0.1, 1.0) / size(w)
            w = with_margin(w, x, y, rng.uniform(-1.0, 0.95))
            low = max(1.05 * feasible_beta, 1.02 * size(w))
            top = 0.95 * size(with_margin(w, x, y, 1.0))
        else:
            margin = (rng.uniform(-3.0, 0.95) if rng.random() < 0.5
                      else rng.uniform(1.05, 3.0))
            w = with_margin(w, x, y, margin)
            low = 1.05 * feasible_beta
            top = 0.95 * min(size(w), size(with_margin(w, x, y, 1.0))
                             if margin < 1 else size(w))
        if low >= top:
            continue
        beta = rng.uniform(low, top)
        if y * (project(w, beta) @ x) < 0.95:
            return w, x, y, beta


# -- the checks -------------------------------------------------------------------------
def _row(case, w, x, y, w_lib, sol, **extra):
    diff = float(np.max(np.abs(w_lib - sol.w)))
    return {"case": case, "d": w.size, "norm_x": np.linalg.norm(x),
            "margin_before": y * (w @ x), "margin_after": y * (sol.w @ x),
            "feasible": sol.status == "optimal", **extra,
            "max_abs_diff": diff,
            "rel_diff": diff / max(1.0, np.max(np.abs(sol.w)))}


def check_objective_regularized(n_rounds=200, random_state=0):
    """Closed form of Lemma 3.1 vs :func:`objective_regularized_program`.

    Returns a DataFrame, one row per round: ``case``, ``d``, ``norm_x``,
    ``alpha``, ``margin_before`` (``y w_t.x``), ``margin_after`` (at the
    cvxpy argmin), ``feasible``, ``margin_active`` (``|margin_after - 1| <
    1e-6``), ``max_abs_diff`` and ``rel_diff`` (library vs cvxpy, relative to
    ``max(1, ||w_cvx||_inf)``).
    """
    rng = check_random_state(random_state)
    rows = []
    for t in range(n_rounds):
        case = OBJECTIVE_CASES[t % len(OBJECTIVE_CASES)]
        w, x, y, alpha = random_objective_round(rng, case)
        sol = objective_regularized_program(w, x, y, alpha)
        w_lib = library_step(
            ObjectiveRegularizedPA(alpha=alpha, update_on="round"), w, x, y)
        rows.append(_row(case, w, x, y, w_lib, sol, alpha=alpha,
                         margin_active=abs(y * (sol.w @ x) - 1) < ACTIVE_TOL))
    return pd.DataFrame(rows)


def check_l2_constrained(n_rounds=200, random_state=0):
    """Closed form of Lemma 3.2 vs :func:`l2_constrained_program` on random rounds.

    Rounds cycle through :data:`CONSTRAINED_CASES`.  Columns as in
    :func:`check_objective_regularized` with ``beta``, ``norm_before``,
    ``norm_after``, ``support_after`` (entries of the argmin above 1e-9) and
    ``norm_active`` (``|norm_after - beta| < 1e-6 beta``).
    """
    return _check_constrained("l2", L2ConstrainedPA, l2_constrained_program,
                              np.linalg.norm, n_rounds, random_state)


def check_l1_constrained(n_rounds=200, random_state=0):
    """The exact L1 solver vs :func:`l1_constrained_program` on random rounds.

    Columns as in :func:`check_l2_constrained` (norms are L1 norms).
    """
    return _check_constrained("l1", L1ConstrainedPA, l1_constrained_program,
                              lambda v: np.abs(v).sum(), n_rounds, random_state)


def _check_constrained(norm, learner, program, size, n_rounds, random_state):
    rng = check_random_state(random_state)
    rows = []
    for t in range(n_rounds):
        case = CONSTRAINED_CASES[t % len(CONSTRAINED_CASES)]
        w, x, y, beta = random_constrained_round(rng, case, norm)
        sol = program(w, x, y, beta)
        # every round: the program itself is checked, not the update rule
        w_lib = library_step(learner(beta=beta, update_on="round"), w, x, y)
        rows.append(_row(
            case, w, x, y, w_lib, sol, beta=beta, norm_before=size(w),
            norm_after=size(sol.w),
            support_after=int(np.count_nonzero(np.abs(sol.w) > 1e-9)),
            margin_active=abs(y * (sol.w @ x) - 1) < ACTIVE_TOL,
            norm_active=abs(size(sol.w) - beta) < ACTIVE_TOL * beta))
    return pd.DataFrame(rows)
