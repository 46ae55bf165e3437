"""ROMMA and aggressive ROMMA: the per-round program in cvxpy (Li and Long 2002).

On an update round both learners move to the minimum-norm point of the
intersection of the relaxed halfspace of past constraints and the new one,

    w_{t+1} = argmin ||w||^2   s.t.   w.w_t >= ||w_t||^2,   y_t w.x_t >= 1

(Carvalho and Cohen 2006, section 2.1; see :mod:`olearn.linear.romma` for the closed
form ``w_{t+1} = c w_t + d x_t`` and its cases).  :func:`romma_program`
writes the program literally; :func:`check_romma` compares its argmin with one
round of :class:`olearn.ROMMA` (updates when ``y_t w_t.x_t <= 0``) or
:class:`olearn.AggressiveROMMA` (when ``y_t w_t.x_t < 1``) on random rounds;
on the other rounds the learner must return ``w_t`` unchanged.

Infeasible rounds.  The two halfspaces are disjoint exactly when ``x_t`` is
anti-parallel to ``w_t`` (``y_t x_t = -mu w_t``, ``mu > 0``: the examples seen
so far are not linearly separable through the origin), and ``y_t w.x_t >= 1``
alone is infeasible when ``x_t = 0``.  cvxpy then reports the literal program
infeasible and :func:`romma_program` solves olearn's convention instead, as a
program of its own: keep the newest constraint alone, ``argmin ||w||^2 s.t.
y_t w.x_t >= 1`` (a restart at ``y_t x_t / ||x_t||^2``), unless ``x_t = 0``,
where only the old halfspace is kept (whose minimum-norm point is ``w_t``:
the round changes nothing).  Such solutions carry ``status = "infeasible"``.

State.  ROMMA's rule reads ``||w_t||^2`` from the learner's tracked
``state[SQNORM]``, not from ``w_t``; :func:`olearn.verify.start_from` sets it
to ``w.w``, and :func:`check_romma` reports how far the value tracked after
the round is from ``||w_{t+1}||^2`` (the next round reads it).
"""
import functools

import cvxpy as cp
import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils import check_random_state

from ..linear import SQNORM
from ..linear.romma import ROMMA, AggressiveROMMA
from ._common import (ProgramSolution, as_example, random_example,
                      solve_program, start_from, with_margin)

#: Every kind of round; ROMMA (non-aggressive) never meets ``"margin only"``.
CASES = ("both active", "first update", "margin only", "anti-parallel",
         "passive")
ROMMA_CASES = ("both active", "first update", "anti-parallel", "passive")
ACTIVE_TOL = 1e-6
#: ``X W - s^2 > WELL_POSED * X W`` on "both active" rounds, away from parallel.
WELL_POSED = 1e-2


def romma_program(w, x, y):
    """Solve the ROMMA program of round ``t``: the argmin is ``w_{t+1}``.

    Parameters
    ----------
    w : array of shape (n_features,)
        The current weight vector ``w_t`` (``0`` on the first update, where the
        halfspace ``w.0 >= 0`` is the whole space).
    x : array of shape (n_features,) or a 1-row matrix
        The example ``x_t``.
    y : {-1, +1}
        Its label.

    Returns
    -------
    ProgramSolution
        ``.w`` is ``w_{t+1}``, ``.objective`` is ``||w_{t+1}||^2``;
        ``.status`` is ``"optimal"``, or ``"infeasible"`` when the literal
        program has no solution and ``.w`` is the convention of the module
        docstring.  A solver failure raises ``RuntimeError``.
    """
    w, x, y = as_example(w, x, y)
    try:
        return _solve(w, x, y, "both")
    except ValueError:
        keep = "margin" if np.any(x) else "halfspace"
        sol = _solve(w, x, y, keep)
        return ProgramSolution(sol.w, sol.objective, "infeasible")


def _solve(w, x, y, keep):
    problem, w_next, data = _romma_problem(w.size, y, keep)
    data["w_t"].value = w
    data["x_t"].value = x
    data["sqnorm"].value = float(w @ w)
    return solve_program(problem, w_next)


@functools.lru_cache(maxsize=128)
def _romma_problem(n_features, y, keep):
    """The program with the round's data as Parameters, compiled once per shape.

    ``keep``: ``"both"`` constraints (the program), or only the ``"margin"``
    or the ``"halfspace"`` one (the conventions for infeasible rounds).
    """
    data = {"w_t": cp.Parameter(n_features), "x_t": cp.Parameter(n_features),
            "sqnorm": cp.Parameter(nonneg=True)}
    w_next = cp.Variable(n_features)
    halfspace = data["w_t"] @ w_next >= data["sqnorm"]
    margin = y * (data["x_t"] @ w_next) >= 1
    constraints = {"both": [halfspace, margin], "margin": [margin],
                   "halfspace": [halfspace]}[keep]
    return (cp.Problem(cp.Minimize(cp.sum_squares(w_next)), constraints),
            w_next, data)


def random_romma_round(rng, case, aggressive=False):
    """A random round ``(w, x, y)`` of the given ``case`` for ROMMA or aggressive ROMMA.

    ``"both active"``: ``y s < ||x||^2 ||w_t||^2`` with ``x_t`` away from
    parallel to ``w_t`` (``s = w_t.x_t``); ROMMA's are mistakes ``y s in
    [-3, 0]``, aggressive ROMMA's half mistakes, half margin errors ``y s in
    (0, 1)``.  ``"first update"``: ``w_t = 0``.  ``"margin only"`` (aggressive
    only): ``||x||^2 ||w_t||^2 <= y s < 1``, a quarter of them with ``w_t``
    parallel to ``x_t``.  ``"anti-parallel"``: ``y x_t = -mu w_t`` exactly
    (``mu`` a power of two), a mistake whose program is infeasible.
    ``"passive"``: no update, ``y s`` in ``(0.05, 3)`` for ROMMA (margin
    errors included), in ``(1.05, 3)`` for aggressive ROMMA.  ``||x_t||`` is
    log-uniform in about ``[0.1, 10]``.
    """
    cases = CASES if aggressive else ROMMA_CASES
    if case not in cases:
        raise ValueError(f"case must be one of {cases} for "
                         f"{'aggressive ' if aggressive else ''}ROMMA, got {case!r}.")
    if case in ("both active", "margin only"):
        w, x, y = random_example(rng, dims=(2, 3, 5, 10, 30))
    else:
        w, x, y = random_example(rng)
    sq = x @ x
    if case == "first update":
        return np.zeros_like(w), x, y
    if case == "passive":
        return with_margin(w, x, y, rng.uniform(1.05 if aggressive else 0.05, 3.0)), x, y
    if case == "anti-parallel":
        mu = 2.0 ** np.round(np.log2(np.linalg.norm(x) / np.linalg.norm(w)))
        return w, -y * mu * w, y
    perp = w - (w @ x) / sq * x
    perp /= np.linalg.norm(perp)
    if case == "margin only":
        margin = rng.uniform(0.05, 0.95)
        room = margin - margin ** 2                   # ||x||^2 ||w_perp||^2 <= room
        share = 0.0 if rng.random() < 0.25 else rng.uniform(0.0, 1.0)
        return margin * y * x / sq + np.sqrt(share * room / sq) * perp, x, y
    mistake = not aggressive or rng.random() < 0.5
    while True:
        margin = rng.uniform(-3.0, 0.0) if mistake else rng.uniform(0.0, 0.99)
        w = margin * y * x / sq + 10.0 ** rng.uniform(-1.0, 1.0) * perp
        xw, s = sq * (w @ w), w @ x
        if xw - s * s > WELL_POSED * xw and y * s < xw:
            return w, x, y


def library_round(learner, w, x, y):
    """One compiled round of ``learner`` from ``w``: ``(w_{t+1}, tracked ||w||^2, n_updates)``.

    As :func:`olearn.verify.library_step`, also returning the learner's
    tracked ``state[SQNORM]`` after the round, which ROMMA's next round reads.
    """
    as_example(w, x, y)
    est = start_from(learner, w)
    X = x if sp.issparse(x) else np.asarray(x, np.float64).reshape(1, -1)
    est.partial_fit(X, np.array([y]))
    return est.coef_.ravel().copy(), float(est._state[SQNORM]), est.n_updates_


def check_romma(aggressive=False, n_rounds=200, random_state=0):
    """Closed form of :class:`olearn.ROMMA` (or aggressive) vs :func:`romma_program`.

    Rounds cycle through :data:`ROMMA_CASES` (:data:`CASES` if
    ``aggressive``; see :func:`random_romma_round`), half of them given to
    the library as a 1-row CSR matrix.  On an update round (``y s <= 0``;
    aggressive: ``y s < 1``) the library's ``w_{t+1}`` is compared with the
    program's argmin, on the other rounds with ``w_t``.

    Returns
    -------
    pandas.DataFrame, one row per round, with columns ``case``, ``d``,
    ``norm_x``, ``norm_w`` (``||w_t||``), ``margin_before`` (``y w_t.x``),
    ``csr``, ``update`` (the learner's rule updates), ``n_updates`` (the
    library's count), ``status`` (the program's), ``margin_after``
    (``y w.x`` at the argmin), ``halfspace_slack``
    (``w.w_t - ||w_t||^2`` at the argmin), ``margin_active`` and ``halfspace_active`` (within
    ``ACTIVE_TOL``, the latter relative to ``max(1, ||w_t||^2)``),
    ``max_abs_diff`` (``||w_lib - w_expected||_inf``), ``rel_diff``
    (``max_abs_diff / max(1, ||w_expected||_inf)``) and ``sqnorm_drift``
    (``|tracked ||w||^2 - ||w_lib||^2| / max(1, ||w_lib||^2)``).
    """
    rng = check_random_state(random_state)
    cases = CASES if aggressive else ROMMA_CASES
    learner = AggressiveROMMA() if aggressive else ROMMA()
    rows = []
    for t in range(n_rounds):
        case = cases[t % len(cases)]
        w, x, y = random_romma_round(rng, case, aggressive)
        csr = bool(rng.random() < 0.5)
        w_lib, tracked, n_updates = library_round(
            learner, w, sp.csr_matrix(x) if csr else x, y)
        sol = romma_program(w, x, y)
        margin = y * (w @ x)
        update = margin < 1.0 if aggressive else margin <= 0.0
        expected = sol.w if update else w
        diff = float(np.max(np.abs(w_lib - expected)))
        sqnorm = float(w @ w)
        slack = float(sol.w @ w) - sqnorm
        rows.append({
            "case": case, "d": w.size, "norm_x": np.linalg.norm(x),
            "norm_w": np.sqrt(sqnorm), "margin_before": margin, "csr": csr,
            "update": update, "n_updates": n_updates, "status": sol.status,
            "margin_after": y * (sol.w @ x), "halfspace_slack": slack,
            "margin_active": abs(y * (sol.w @ x) - 1.0) < ACTIVE_TOL,
            "halfspace_active": abs(slack) < ACTIVE_TOL * max(1.0, sqnorm),
            "max_abs_diff": diff,
            "rel_diff": diff / max(1.0, np.max(np.abs(expected))),
            "sqnorm_drift": abs(tracked - w_lib @ w_lib) / max(1.0, w_lib @ w_lib)})
    return pd.DataFrame(rows)
