"""BCW and SBCW (Tan et al., AAAI 2016) against independent solutions.

* :func:`check_sigma_kkt` -- Sigma of eq. (6), on both Woodbury branches,
  against the KKT condition of (5), ``Sigma^{-1} = Sigma_hat^{-1} + C X_h X_h^T``,
  and against cvxpy's minimiser of (5) written with ``log_det``.
* :func:`check_bcw_mean` -- ``w`` after enough dual-coordinate passes over
  one whitened batch against cvxpy's solution of (8)
  (``1/2||w||^2 + C sum xi_i`` for ``q = 1``; ``1/2||w||^2 + C sum xi_i^2``
  for ``q = 2``: the objective whose dual step is Algorithm 1's).
* :func:`check_subproblem` -- Algorithm 3's solution of (16) against cvxpy.
* :func:`check_grad_omega_star` -- the derived ``grad Omega*`` against a
  numerical argmax of ``w.z - Omega(w)`` (cvxpy).
* :func:`check_theorem1` -- ``theta_t`` (the optimum of (15) over the
  active groups, solved by cvxpy) is non-increasing along the groups SBCW
  added.
"""
import cvxpy as cp
import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..second_order._bcw_common import sigma_update, upsilon
from ..second_order._sbcw_prox import (grad_omega_star, omega, primal_value,
                                       prox_pass)
from ..second_order.bcw import BCW
from ._common import SOLVER, SOLVER_OPTIONS


def _solve(problem):
    """Clarabel at tight tolerances; its defaults (1e-8) if those end inaccurate."""
    try:
        problem.solve(solver=SOLVER, warm_start=False, **SOLVER_OPTIONS)
    except cp.error.SolverError:
        pass
    if problem.status != cp.OPTIMAL:
        problem.solve(solver=SOLVER, warm_start=False)
    if problem.status != cp.OPTIMAL:
        raise RuntimeError(f"{SOLVER} stopped with status {problem.status!r}.")
    return problem.value


def sigma_program(Sigma_hat, X, C):
    """cvxpy's minimiser of (5) over Sigma (the mean term does not involve it):
    ``1/2 (-log det Sigma + Tr(Sigma_hat^{-1} Sigma)) + C/2 sum_i x_i' Sigma x_i``."""
    d = Sigma_hat.shape[0]
    S = cp.Variable((d, d), PSD=True)
    P = np.linalg.inv(Sigma_hat)
    G = X.T @ X
    objective = 0.5 * (-cp.log_det(S) + cp.trace((P + C * G) @ S))
    problem = cp.Problem(cp.Minimize(objective))
    problem.solve(solver=cp.CLARABEL)
    if problem.status != cp.OPTIMAL:
        raise RuntimeError(f"status {problem.status!r}")
    return S.value


def check_sigma_kkt(n_cases=6, d=5, random_state=0):
    """Eq. (6) on both branches: KKT residual and distance to cvxpy's Sigma.

    Each case draws a prior ``Sigma_hat`` (itself from a previous batch) and
    a batch with ``N_h`` below and above ``d``.
    """
    rng = np.random.default_rng(random_state)
    rows = []
    for case in range(n_cases):
        C = float(10 ** rng.uniform(-1, 1))
        X0 = rng.standard_normal((3, d))
        V0, s0, _ = sigma_update(np.eye(d), np.ones(d), X0, C)
        Sigma_hat = (V0 * s0) @ V0.T
        n = (2, d + 3)[case % 2]
        X = rng.standard_normal((n, d))
        precision = np.linalg.inv(Sigma_hat) + C * X.T @ X
        reference = sigma_program(Sigma_hat, X, C)
        for branch in ("inverse", "woodbury"):
            V, s, _ = sigma_update(V0, s0, X, C, branch)
            Sigma = (V * s) @ V.T
            U = upsilon(V, s)
            rows.append({
                "case": case, "N_h": n, "d": d, "C": C, "branch": branch,
                "kkt_residual": float(np.abs(np.linalg.inv(Sigma) - precision).max()
                                      / np.abs(precision).max()),
                "vs_cvxpy": float(np.abs(Sigma - reference).max()),
                "upsilon_squared": float(np.abs(U @ U - Sigma).max()),
            })
    return pd.DataFrame(rows)


def svm_program(Xh, y, C, q, w0=None):
    """cvxpy: ``min_w 1/2||w - w0||^2 + C sum_i xi_i^q``, ``xi_i = max(0, 1 - y_i w.x_i)``."""
    d = Xh.shape[1]
    w0 = np.zeros(d) if w0 is None else w0
    w = cp.Variable(d)
    xi = cp.pos(1 - cp.multiply(y, Xh @ w))
    loss = cp.sum(xi) if q == 1 else cp.sum_squares(xi)
    value = _solve(cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w - w0) + C * loss)))
    return np.asarray(w.value), value


def check_bcw_mean(n_cases=4, n=30, d=4, n_passes=2000, random_state=0):
    """One batch, many passes: BCW's ``w = Upsilon^{-1} mu`` vs cvxpy on (8)."""
    rng = np.random.default_rng(random_state)
    rows = []
    for case in range(n_cases):
        X = rng.standard_normal((n, d))
        y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0,
                     1.0, -1.0)
        C = float(10 ** rng.uniform(-1, 1))
        for q in (1, 2):
            model = BCW(C=C, q=q, n_inner_passes=n_passes).fit(X, y)
            U = upsilon(model._V, model._s)
            w_ref, value = svm_program(X @ U, y, C, q)
            w = np.linalg.solve(U, model.coef_[0])
            xi = np.maximum(0, 1 - y * (X @ U @ w))
            ours = 0.5 * w @ w + C * (xi.sum() if q == 1 else xi @ xi)
            rows.append({"case": case, "q": q, "C": C,
                         "max_abs_w_diff": float(np.abs(w - w_ref).max()),
                         "objective_rel_diff": float(abs(ours - value) / value)})
    return pd.DataFrame(rows)


def subproblem_program(Xh, y, ptr, C, q, sigma):
    """cvxpy's solution of (16) (``sigma = 0``: problem (15))."""
    P = Xh.shape[1]
    w = cp.Variable(P)
    norms = [cp.norm(w[ptr[k]:ptr[k + 1]]) for k in range(len(ptr) - 1)]
    xi = cp.pos(1 - cp.multiply(y, Xh @ w))
    loss = cp.sum(xi) if q == 1 else cp.sum_squares(xi)
    objective = (0.5 * sigma * cp.sum_squares(w) + 0.5 * cp.square(cp.sum(cp.hstack(norms)))
                 + C * loss)
    value = _solve(cp.Problem(cp.Minimize(objective)))
    return np.asarray(w.value), value


def solve_subproblem(Xh, y, ptr, C, q, sigma, n_passes, step="exact"):
    """Algorithm 3 run for ``n_passes`` passes from ``z = 0``: ``(w, z, alpha)``."""
    ptr = np.asarray(ptr, dtype=np.int64)
    z = np.zeros(Xh.shape[1])
    alpha = np.zeros(Xh.shape[0])
    scales = np.zeros(ptr.size - 1)
    for _ in range(n_passes):
        prox_pass(np.ascontiguousarray(Xh), y, z, alpha, ptr, scales, sigma, C, q,
                  step == "exact")
    w, _ = grad_omega_star(z, ptr, sigma)
    return w, z, alpha


def check_subproblem(n_cases=4, n=40, sizes=(3, 2, 2), sigma=1e-2,
                     n_passes=300, random_state=0):
    """Algorithm 3 (exact coordinate steps, many passes; and the paper's step)
    against cvxpy's solution of (16) on small random instances."""
    rng = np.random.default_rng(random_state)
    ptr = np.concatenate([[0], np.cumsum(sizes)])
    rows = []
    for case in range(n_cases):
        X = rng.standard_normal((n, ptr[-1]))
        y = np.where(X @ rng.standard_normal(ptr[-1]) > 0, 1.0, -1.0)
        y[rng.random(n) < 0.1] *= -1
        C = float(10 ** rng.uniform(-1.5, 0))
        for q in (1, 2):
            w_ref, value = subproblem_program(X, y, ptr, C, q, sigma)
            for step in ("exact", "paper"):
                w, _, _ = solve_subproblem(X, y, ptr, C, q, sigma, n_passes, step)
                ours = primal_value(w, X, y, ptr, sigma, C, q)
                rows.append({"case": case, "q": q, "C": C, "step": step,
                             "objective_rel_diff": float((ours - value) / value),
                             "max_abs_w_diff": float(np.abs(w - w_ref).max())})
    return pd.DataFrame(rows)


def omega_star_numerical(z, ptr, sigma):
    """argmax_w ``w.z - Omega(w)`` by cvxpy, and the maximum.

    Solved for ``u = w / s`` with ``s = ||z|| / sigma`` (the scale of the
    argmax: ``||w|| <= ||z|| / sigma``) so that the conic solver sees numbers
    of order one; the maximum is ``s^2`` times that of the scaled problem
    with ``z / s``.
    """
    scale = max(np.linalg.norm(z) / sigma, 1e-12)
    u = cp.Variable(z.size)
    norms = [cp.norm(u[ptr[k]:ptr[k + 1]]) for k in range(len(ptr) - 1)]
    objective = (z / scale) @ u - 0.5 * sigma * cp.sum_squares(u) - 0.5 * cp.square(
        cp.sum(cp.hstack(norms)))
    value = -_solve(cp.Problem(cp.Minimize(-objective)))
    return scale * np.asarray(u.value), scale * scale * value


def check_grad_omega_star(n_cases=20, random_state=0):
    """Derived ``grad Omega*(z)`` and ``Omega*(z)`` vs the numerical argmax;
    cases include ties between group norms and a zero group."""
    rng = np.random.default_rng(random_state)
    rows = []
    for case in range(n_cases):
        sizes = rng.integers(1, 5, size=rng.integers(1, 6))
        ptr = np.concatenate([[0], np.cumsum(sizes)])
        z = rng.standard_normal(ptr[-1]) * rng.uniform(0.1, 10)
        if case % 4 == 1 and sizes.size > 1:          # two groups of equal norm
            z[ptr[1]:ptr[2]] *= np.linalg.norm(z[:ptr[1]]) / np.linalg.norm(
                z[ptr[1]:ptr[2]])
        if case % 4 == 2:
            z[:ptr[1]] = 0.0
        sigma = float(10 ** rng.uniform(-3, 0))
        w, value = grad_omega_star(z, ptr, sigma)
        w_num, value_num = omega_star_numerical(z, ptr, sigma)
        rows.append({"case": case, "groups": sizes.size, "sigma": sigma,
                     "max_abs_w_diff": float(np.abs(w - w_num).max()
                                             / max(1.0, np.abs(w_num).max())),
                     "value_rel_diff": float(abs(value - value_num)
                                             / max(1.0, abs(value_num))),
                     "fenchel_young_gap": float(omega(w, ptr, sigma) + value - w @ z)})
    return pd.DataFrame(rows)


def whitened_groups(model, X):
    """The whitened blocks of a fitted SBCW's groups (one batch) and ``ptr``."""
    X = sp.csc_matrix(X) if sp.issparse(X) else np.asarray(X)
    cols = []
    for g, block in zip(model.groups_, model._blocks):
        Xk = X[:, g]
        Xk = Xk.toarray() if sp.issparse(Xk) else Xk
        cols.append(Xk if block is None else Xk @ upsilon(*block))
    ptr = np.concatenate([[0], np.cumsum([g.size for g in model.groups_])])
    return np.hstack(cols), ptr


def check_theorem1(model, X, y, sigma=0.0):
    """``theta_t``: cvxpy's optimum of (15) (``sigma = 0``) over the first ``t``
    groups of a fitted SBCW, for t = 1..K; Theorem 1 says it is non-increasing."""
    y = np.where(y == model.classes_[1], 1.0, -1.0)
    Xh, ptr = whitened_groups(model, X)
    rows = []
    for t in range(1, len(ptr)):
        _, value = subproblem_program(Xh[:, :ptr[t]], y, ptr[:t + 1],
                                      float(model.C), int(model.q), sigma)
        rows.append({"t": t, "theta": value})
    table = pd.DataFrame(rows)
    table["increase"] = table["theta"].diff().fillna(0.0)
    return table
