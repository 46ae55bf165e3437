"""AROW, CW and SCW: the per-round programs in cvxpy, against the closed forms.

Every program below is written from its paper, in the variables the paper
uses, with ``KL = KL(N(mu, Sigma) || N(mu_t, Sigma_t))``

    = 1/2 [log det Sigma_t - log det Sigma + tr(Sigma_t^{-1} Sigma)
           + (mu_t - mu)' Sigma_t^{-1} (mu_t - mu) - d].

AROW (Crammer, Kulesza, Dredze 2009)
    mean: ``argmin_mu 1/2 (mu_t - mu)' Sigma_t^{-1} (mu_t - mu)
    + 1/(2r) max(0, 1 - y mu.x)^2`` (the mu-part of objective (2));
    covariance: ``argmin_Sigma 1/2 [-log det Sigma + tr(Sigma_t^{-1} Sigma)]
    + 1/(2r) x' Sigma x`` (the Sigma-part of (2)), whose stationarity
    condition is eq. (8), ``Sigma^{-1} = Sigma_t^{-1} + x x' / r``.
CW, variance version (Dredze, Crammer, Pereira 2008)
    ``min KL  s.t.  y mu.x >= phi x' Sigma x`` over ``(mu, Sigma)``: the
    constraint is linear in ``(mu, Sigma)``.
CW, stdev version (Crammer, Dredze, Pereira 2008)
    ``min KL  s.t.  y mu.x >= phi ||Upsilon x||`` over ``(mu, Upsilon)`` with
    ``Sigma = Upsilon^2``, ``Upsilon`` PSD: a second-order-cone constraint;
    ``-log det Sigma = -2 log det Upsilon`` and
    ``tr(Sigma_t^{-1} Upsilon^2) = ||L' Upsilon||_F^2`` for
    ``Sigma_t^{-1} = L L'``.
SCW-I / SCW-II (Wang, Zhao, Hoi 2012)
    ``min KL + C l`` or ``KL + C l^2`` with
    ``l = max(0, phi ||Upsilon x|| - y mu.x)``, in the same variables.

:func:`check_second_order` runs random rounds (active: the learner updates;
inactive: it does not) through the library's compiled pass and through the
program, and reports the largest differences.
"""
import cvxpy as cp
import numpy as np
import pandas as pd
from scipy.stats import norm
from sklearn.base import clone
from sklearn.utils import check_random_state

from ..second_order import AROW, CW, SCW
from ._common import SOLVER, SOLVER_OPTIONS

CASES = ("active", "inactive")
RULES = ("AROW", "CW-variance", "CW-stdev", "SCW-I", "SCW-II")


def library_round(estimator, mu, Sigma, x, y):
    """One round of ``estimator``'s compiled pass from ``(mu, Sigma)``.

    Returns ``(mu_next, Sigma_next, updated)``.
    """
    est = clone(estimator)
    d = mu.size
    est.classes_ = np.array([-1, 1])
    est.n_features_in_ = d
    est._init_state(d)
    est._set_model(mu, Sigma)
    est._reset_record()
    est._run(np.ascontiguousarray(x[np.newaxis, :], dtype=float),
             np.array([float(y)]))
    return est.coef_.ravel(), est.covariance_, est.n_updates_ == 1


def _solve(problem):
    """Clarabel at tight tolerances; with log-det (exponential-cone) terms it
    sometimes stops "inaccurate" there, and is then re-run at its defaults
    and, failing that, given to SCS at ``eps=1e-10`` (the tests' tolerances
    are set for that accuracy)."""
    problem.solve(solver=SOLVER, warm_start=False, **SOLVER_OPTIONS)
    if problem.status == cp.OPTIMAL_INACCURATE:
        problem.solve(solver=SOLVER, warm_start=False)
    if problem.status == cp.OPTIMAL_INACCURATE:
        problem.solve(solver=cp.SCS, eps=1e-10, max_iters=200_000)
    if problem.status != cp.OPTIMAL:
        raise RuntimeError(f"{SOLVER} stopped with status {problem.status!r}.")


def _kl_terms(mu, mu_t, Sigma_t_inv):
    """``1/2 (mu_t - mu)' Sigma_t^{-1} (mu_t - mu)`` as a cvxpy expression."""
    return 0.5 * cp.quad_form(mu - mu_t, cp.psd_wrap(Sigma_t_inv))


def arow_mean_program(mu_t, Sigma_t, x, y, r):
    """The mean part of AROW's objective (2), with ``Sigma = Sigma_t`` fixed."""
    mu = cp.Variable(mu_t.size)
    objective = (_kl_terms(mu, mu_t, np.linalg.inv(Sigma_t))
                 + cp.square(cp.pos(1 - y * (x @ mu))) / (2 * r))
    _solve(cp.Problem(cp.Minimize(objective)))
    return mu.value


def arow_covariance_program(Sigma_t, x, r):
    """The covariance part of AROW's objective (2)."""
    d = x.size
    Sigma = cp.Variable((d, d), PSD=True)
    objective = 0.5 * (-cp.log_det(Sigma) + cp.trace(np.linalg.inv(Sigma_t) @ Sigma)) \
        + (x @ Sigma @ x) / (2 * r)
    _solve(cp.Problem(cp.Minimize(objective)))
    return Sigma.value


def arow_covariance_closed_form(Sigma_t, x, r):
    """Eq. (8): ``(Sigma_t^{-1} + x x' / r)^{-1}``."""
    return np.linalg.inv(np.linalg.inv(Sigma_t) + np.outer(x, x) / r)


def cw_variance_program(mu_t, Sigma_t, x, y, phi):
    """Dredze et al. (2008): ``min KL s.t. y mu.x >= phi x' Sigma x``."""
    d = x.size
    P = np.linalg.inv(Sigma_t)
    mu = cp.Variable(d)
    Sigma = cp.Variable((d, d), PSD=True)
    objective = 0.5 * (-cp.log_det(Sigma) + cp.trace(P @ Sigma)) \
        + _kl_terms(mu, mu_t, P)
    _solve(cp.Problem(cp.Minimize(objective),
                      [y * (x @ mu) >= phi * (x @ Sigma @ x)]))
    return mu.value, Sigma.value


def stdev_program(mu_t, Sigma_t, x, y, phi, loss=None, C=1.0):
    """Exact CW (``loss=None``: the SOC constraint) or SCW-I/II (``loss="I"``
    or ``"II"``: the loss in the objective), in ``(mu, Upsilon)``."""
    d = x.size
    P = np.linalg.inv(Sigma_t)
    L = np.linalg.cholesky(P)
    mu = cp.Variable(d)
    U = cp.Variable((d, d), PSD=True)
    objective = 0.5 * (-2 * cp.log_det(U) + cp.sum_squares(L.T @ U)) \
        + _kl_terms(mu, mu_t, P)
    gap = phi * cp.norm(U @ x) - y * (x @ mu)
    if loss is None:
        constraints = [gap <= 0]
    else:                       # l = max(0, gap) as a slack xi >= 0, xi >= gap
        xi = cp.Variable(nonneg=True)
        constraints = [gap <= xi]
        objective = objective + (C * xi if loss == "I" else C * cp.square(xi))
    _solve(cp.Problem(cp.Minimize(objective), constraints))
    return mu.value, U.value @ U.value


def _random_spd(rng, d):
    A = rng.standard_normal((d, d))
    return A @ A.T / d + 0.3 * np.eye(d)


def random_round(rng, rule, case, d=4):
    """``(mu, Sigma, x, y, params)`` of a random round where ``rule`` updates
    (``case="active"``) or not (``"inactive"``)."""
    Sigma = _random_spd(rng, d) * 10.0 ** rng.uniform(-0.5, 0.5)
    x = rng.standard_normal(d)
    y = rng.choice([-1.0, 1.0])
    mu = rng.standard_normal(d)
    V = x @ Sigma @ x
    params = {"r": 10.0 ** rng.uniform(-1, 1), "eta": rng.uniform(0.6, 0.97),
              "C": 10.0 ** rng.uniform(-1.5, 1)}
    phi = norm.ppf(params["eta"])
    if rule == "AROW":
        threshold = 1.0
    elif rule == "CW-variance":
        threshold = phi * V
    else:
        threshold = phi * np.sqrt(V)
    target = threshold * (rng.uniform(1.1, 3.0) if case == "inactive"
                          else rng.uniform(-2.0, 0.9))
    if case == "active" and rng.random() < 0.3:
        target = -abs(threshold) * rng.uniform(0.1, 2.0)      # a mistake
    mu = mu + (y * target - mu @ x) * x / (x @ x)
    return mu, Sigma, x, y, params


def _estimator(rule, params):
    if rule == "AROW":
        return AROW(r=params["r"])
    if rule == "CW-variance":
        return CW(eta=params["eta"])
    if rule == "CW-stdev":
        return CW(eta=params["eta"], version="stdev")
    return SCW(C=params["C"], eta=params["eta"], variant=rule[4:])


def program_round(rule, mu, Sigma, x, y, params):
    """The argmin ``(mu, Sigma)`` of ``rule``'s per-round program."""
    phi = norm.ppf(params["eta"])
    if rule == "AROW":
        return (arow_mean_program(mu, Sigma, x, y, params["r"]),
                arow_covariance_program(Sigma, x, params["r"]))
    if rule == "CW-variance":
        return cw_variance_program(mu, Sigma, x, y, phi)
    if rule == "CW-stdev":
        return stdev_program(mu, Sigma, x, y, phi)
    return stdev_program(mu, Sigma, x, y, phi, loss=rule[4:], C=params["C"])


def check_second_order(rule="AROW", n_rounds=20, random_state=0, d=4):
    """Compare the library's round with the program's argmin on random rounds.

    Returns a DataFrame, one row per round: ``case``, whether the library
    updated, ``mu_error`` and ``Sigma_error`` (max abs difference relative to
    the largest entry).  For AROW, inactive rounds compare with
    ``(mu_t, Sigma_t)`` (the paper updates Sigma only when mu changes), and
    ``Sigma_error_eq8`` compares active rounds with the closed form of (8).
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}.")
    rng = check_random_state(random_state)
    rows = []
    for k in range(n_rounds):
        case = CASES[k % 2]
        mu, Sigma, x, y, params = random_round(rng, rule, case, d)
        mu_lib, S_lib, updated = library_round(_estimator(rule, params),
                                               mu, Sigma, x, y)
        mu_prog, S_prog = program_round(rule, mu, Sigma, x, y, params)
        row = {"rule": rule, "case": case, "updated": updated}
        if rule == "AROW":
            row["Sigma_error_eq8"] = (
                _rel(S_lib, arow_covariance_closed_form(Sigma, x, params["r"]))
                if updated else _rel(S_lib, Sigma))
            if not updated:
                S_prog = Sigma          # Sigma moves only when mu does
        row["mu_error"] = _rel(mu_lib, mu_prog)
        row["Sigma_error"] = _rel(S_lib, S_prog)
        rows.append(row)
    return pd.DataFrame(rows)


def _rel(a, b):
    return float(np.max(np.abs(a - b)) / max(1.0, np.max(np.abs(b))))
