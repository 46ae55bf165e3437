"""PA, PA-I and PA-II: the per-round programs in cvxpy (Crammer et al. 2006).

The JMLR paper defines each update as the argmin of a convex program,

    PA    (eq. 2):  min_w 1/2 ||w - w_t||^2                 s.t.  l(w; (x_t, y_t)) = 0
    PA-I  (eq. 8):  min_w 1/2 ||w - w_t||^2 + C xi          s.t.  l(w; (x_t, y_t)) <= xi,  xi >= 0
    PA-II (eq. 9):  min_w 1/2 ||w - w_t||^2 + C xi^2        s.t.  l(w; (x_t, y_t)) <= xi

with ``l(w; (x, y)) = max(0, epsilon - y w.x)``.  Since ``l <= xi`` with
``xi >= 0`` is ``y w.x >= epsilon - xi``, each program is a small QP (PA-II
needs no ``xi >= 0``: a negative slack only costs more).  :func:`pa_program`
writes them literally; :func:`check_pa` compares their solutions with the
closed forms of :class:`olearn.PA` on random rounds.
"""
import functools

import cvxpy as cp
import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from ..base import check_positive
from ..linear.pa import PA, VARIANTS
from ._common import (as_example, library_step, random_example, solve_program,
                      with_margin)

CASES = ("loss zero", "cap active", "cap inactive")


def pa_program(w, x, y, C=1.0, variant="PA", epsilon=1.0):
    """Solve the PA / PA-I / PA-II program of round ``t`` (eqs. 2, 8, 9).

    Parameters
    ----------
    w : array of shape (n_features,)
        The current weight vector ``w_t``.
    x : array of shape (n_features,) or a 1-row matrix
        The example ``x_t``.
    y : {-1, +1}
        Its label.
    C : float > 0
        Aggressiveness (PA-I, PA-II; unused by PA).
    variant : {"PA", "PA-I", "PA-II"}
    epsilon : float >= 0
        Margin of the hinge loss ``max(0, epsilon - y w.x)``.

    Returns
    -------
    ProgramSolution
        ``.w`` is ``w_{t+1}``; ``.slack`` is the optimal ``xi`` (None for PA);
        ``.status`` is ``"optimal"``.  An infeasible PA program (zero ``x``
        with a positive loss) raises ``ValueError``; a solver failure raises
        ``RuntimeError``.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}.")
    check_positive("C", C)
    check_positive("epsilon", epsilon, allow_zero=True)
    w, x, y = as_example(w, x, y)
    problem, w_next, xi, data = _pa_problem(w.size, variant, y)
    data["w_t"].value = w
    data["x_t"].value = x
    data["C"].value = float(C)
    data["epsilon"].value = float(epsilon)
    return solve_program(problem, w_next, xi)


@functools.lru_cache(maxsize=128)
def _pa_problem(n_features, variant, y):
    """The program of :func:`pa_program` with the round's data as Parameters.

    Built once per ``(n_features, variant, y)`` so that cvxpy compiles it
    once; the label is a constant so the constraint reads as in the paper.
    """
    data = {"w_t": cp.Parameter(n_features), "x_t": cp.Parameter(n_features),
            "C": cp.Parameter(nonneg=True), "epsilon": cp.Parameter(nonneg=True)}
    w_next = cp.Variable(n_features)
    objective = 0.5 * cp.sum_squares(w_next - data["w_t"])
    margin = y * (data["x_t"] @ w_next)
    epsilon, C = data["epsilon"], data["C"]
    if variant == "PA":
        xi = None
        constraints = [margin >= epsilon]
    elif variant == "PA-I":
        xi = cp.Variable()
        objective = objective + C * xi
        constraints = [margin >= epsilon - xi, xi >= 0]
    else:
        xi = cp.Variable()
        objective = objective + C * cp.square(xi)
        constraints = [margin >= epsilon - xi]
    return cp.Problem(cp.Minimize(objective), constraints), w_next, xi, data


def random_pa_round(rng, case):
    """A random round ``(w, x, y, C, epsilon)`` of the given ``case``.

    ``"loss zero"``: ``y w.x > epsilon`` (every variant leaves ``w`` alone);
    ``"cap active"``: a positive loss with ``l / ||x||^2 > C`` (PA-I takes
    ``tau = C``); ``"cap inactive"``: a positive loss with ``l / ||x||^2 < C``.
    Half of the rounds use ``epsilon = 1``, the others ``epsilon`` log-uniform
    in ``[0.1, 10]``; positive losses range over ``(0.05, 3) epsilon``, so
    mistakes (``l > epsilon``) occur too.
    """
    if case not in CASES:
        raise ValueError(f"case must be one of {CASES}, got {case!r}.")
    w, x, y = random_example(rng)
    epsilon = 1.0 if rng.random() < 0.5 else 10.0 ** rng.uniform(-1.0, 1.0)
    sq = x @ x
    if case == "loss zero":
        w = with_margin(w, x, y, epsilon * rng.uniform(1.05, 3.0))
        return w, x, y, 10.0 ** rng.uniform(-2.0, 2.0), epsilon
    loss = epsilon * rng.uniform(0.05, 3.0)
    w = with_margin(w, x, y, epsilon - loss)
    ratio = rng.uniform(0.05, 0.9) if case == "cap active" else rng.uniform(1.1, 20.0)
    return w, x, y, ratio * loss / sq, epsilon


def check_pa(variant="PA", n_rounds=200, random_state=0):
    """Closed form of :class:`olearn.PA` vs the cvxpy program on random rounds.

    Rounds cycle through :data:`CASES` (see :func:`random_pa_round`).  For
    each one the library's ``w_{t+1}`` (:func:`olearn.verify.library_step`,
    the compiled code) is compared with :func:`pa_program`'s argmin.

    Returns
    -------
    pandas.DataFrame, one row per round, with columns ``case``, ``d``,
    ``norm_x``, ``epsilon``, ``C``, ``loss`` (at ``w_t``), ``step`` (the PA
    step ``loss / ||x||^2``; PA-I's cap is active iff ``step > C``),
    ``max_abs_diff`` (``||w_lib - w_cvx||_inf``) and ``rel_diff``
    (``max_abs_diff / max(1, ||w_cvx||_inf)``).  For PA and PA-II the
    ``case`` names still describe PA-I's cap, i.e. how large ``C`` is
    against the PA step.
    """
    rng = check_random_state(random_state)
    rows = []
    for t in range(n_rounds):
        case = CASES[t % len(CASES)]
        w, x, y, C, epsilon = random_pa_round(rng, case)
        learner = PA(C=C, variant=variant, epsilon=epsilon)
        w_lib = library_step(learner, w, x, y)
        w_cvx = pa_program(w, x, y, C=C, variant=variant, epsilon=epsilon).w
        diff = float(np.max(np.abs(w_lib - w_cvx)))
        loss = max(0.0, epsilon - y * (w @ x))
        rows.append({"case": case, "d": w.size, "norm_x": np.linalg.norm(x),
                     "epsilon": epsilon, "C": C, "loss": loss,
                     "step": loss / (x @ x), "max_abs_diff": diff,
                     "rel_diff": diff / max(1.0, np.max(np.abs(w_cvx)))})
    return pd.DataFrame(rows)
