"""Small measured demonstrations for the book's BCW and SBCW pages.

Each function runs the library's own classes (or their compiled pieces) and
returns plain arrays or frames; the figures are drawn by
:mod:`olearn.plotting.scale`.

* :func:`batch_path` - the Gaussian ``N(mu, Sigma)`` of BCW after each batch;
* :func:`time_sigma_branches` - seconds of the two inversions of eq. (6):
  as the paper counts them (``Sigma`` only) and in the library (``Sigma``
  and its square root ``Upsilon``);
* :func:`cutting_plane_trace` - the scores (14), groups and group norms of
  each cutting-plane iteration of SBCW's first batch;
* :func:`whitened_leverage` - ``C x' Sigma x`` against ``C``: why the step of
  Algorithms 1 and 3 saturates.
"""
import time

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..second_order._bcw_common import sigma_update
from ..second_order._sbcw_prox import omega_star_scales
from ..second_order.bcw import BCW


def batch_path(X, y, batch_size, **params):
    """Fit ``BCW(**params)`` batch by batch with ``partial_fit``; return the
    list of ``(mu, Sigma)`` before the first batch and after each batch, and
    the fitted model."""
    model = BCW(**params)
    d = X.shape[1]
    path = [(np.zeros(d), np.eye(d))]
    classes = np.unique(y)
    for start in range(0, X.shape[0], batch_size):
        model.partial_fit(X[start:start + batch_size], y[start:start + batch_size],
                          classes=classes)
        path.append((model.coef_[0].copy(), model.covariance_.copy()))
    return path, model


def _best_time(fn, repeats):
    best = np.inf
    for _ in range(repeats):
        tic = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - tic)
    return best


def time_sigma_branches(d=150, sizes=(10, 25, 50, 100, 150, 300, 600), C=1.0,
                        repeats=5, random_state=0):
    """Best-of-``repeats`` seconds of the two forms of eq. (6) for a batch of
    ``N_h`` Gaussian rows and ``d`` features, with one BLAS thread.

    ``formula_s``: ``Sigma`` alone from the prior ``Sigma_hat = I``, by a d x d
    inverse (``inverse``) or an N_h x N_h solve (``woodbury``): the paper's
    count, ``O(d^3 + N_h d^2)`` against ``O(N_h^3 + N_h d^2)``.
    ``library_s``: :func:`olearn.second_order._bcw_common.sigma_update`, which
    also returns the eigendecomposition of ``Sigma`` (BCW needs ``Upsilon``).
    """
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(random_state)
    V, s = np.eye(d), np.ones(d)
    rows = []
    with threadpool_limits(1):
        for n in sizes:
            X = rng.standard_normal((n, d))

            def inverse():
                return np.linalg.inv(np.eye(d) + C * (X.T @ X))

            def woodbury():
                M = np.eye(n) / C + X @ X.T
                return np.eye(d) - X.T @ np.linalg.solve(M, X)

            for branch, formula in (("inverse", inverse), ("woodbury", woodbury)):
                rows.append({
                    "N_h": n, "d": d, "branch": branch,
                    "formula_s": _best_time(formula, repeats),
                    "library_s": _best_time(lambda: sigma_update(V, s, X, C, branch),
                                            repeats)})
    return pd.DataFrame(rows)


def cutting_plane_trace(model, X, y):
    """Replay Algorithm 2 on one batch with the pieces of a *fresh* SBCW
    ``model`` (its ``_block`` and ``_solve``), recording each iteration.

    Returns a list of dicts: ``scores`` (eq. 14, with selected features set to
    0), ``group`` (the features added), ``alpha`` (the subproblem's dual
    solution), ``norms`` (``||z_k||`` of each active group), ``S`` (the
    threshold of :func:`grad_omega_star`: groups with ``||z_k|| <= S`` get no
    weight), ``w`` and ``theta``.  The page asserts that the groups and the
    final weights equal those of ``model.fit(X, y)``.
    """
    X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    n, d = X.shape
    Xc = X.tocsc() if sp.issparse(X) else X
    selected = np.zeros(d, dtype=bool)
    alpha = np.ones(n)
    ptr, cols, trace = [0], [], []
    Xh = np.zeros((n, 0))
    for _ in range(int(model.m_iter)):
        s = np.asarray(X.T @ (alpha * y)).ravel()
        score = s * s
        score[selected] = 0.0
        k = min(int(model.r), int(np.count_nonzero(score > 0)))
        if k == 0:
            break
        top = np.argpartition(-score, k - 1)[:k]
        top = top[np.argsort(-score[top], kind="stable")]
        selected[top] = True
        _, Xk = model._block(Xc[:, top], None)
        cols.append(Xk)
        Xh = np.ascontiguousarray(np.hstack(cols))
        ptr.append(ptr[-1] + k)
        alpha_new, w, theta, _ = model._solve(Xh, y, ptr, np.zeros(Xh.shape[1]))
        z = float(model.C) * (Xh.T @ (alpha_new * y))
        norms = np.array([np.linalg.norm(z[ptr[j]:ptr[j + 1]])
                          for j in range(len(ptr) - 1)])
        _, S = omega_star_scales(norms, float(model.sigma), np.zeros(norms.size))
        trace.append({"scores": score, "group": top, "alpha": alpha_new,
                      "norms": norms, "S": float(S), "w": w, "theta": theta,
                      "ptr": list(ptr)})
        alpha = alpha_new
    return trace


def whitened_leverage(X, Cs):
    """Mean of ``C x_i' Sigma x_i`` over the rows, ``Sigma = (I + C X'X)^{-1}``
    (the first batch's covariance, eq. 6), for each ``C`` in ``Cs``.

    ``C ||x_hat_i||^2 = C x_i' Sigma x_i`` is the denominator of the steps of
    Algorithms 1 and 3; it tends to the leverage of row ``i`` (mean ``d / N``
    when ``N > d``) as ``C`` grows, so the step stops depending on ``C``.
    """
    X = np.asarray(X, dtype=float)
    d = X.shape[1]
    out = []
    for C in Cs:
        V, s, _ = sigma_update(np.eye(d), np.ones(d), X, float(C))
        Sigma = (V * s) @ V.T
        out.append(float(C * np.einsum("ij,jk,ik->i", X, Sigma, X).mean()))
    return np.array(out)




def warm_start_terms(mu_hat_blocks, model):
    """For the last batch of a fitted SBCW ``model`` whose previous batch
    ended with the mean blocks ``mu_hat_blocks``: ``(z0, w, ptr)``, the start
    ``z0 in dOmega(w0)`` of Algorithm 3 (``w0_k = Upsilon_k^{-1} mu_hat_k``,
    ``0`` on groups added by the last batch) and its solution ``w`` (groups in
    the order they were added)."""
    from ..second_order._bcw_common import inverse_upsilon
    from ..second_order._sbcw_prox import omega_subgradient

    ptr, w0, w = [0], [], []
    for k, (block, mu_k) in enumerate(zip(model._blocks, model._mu_blocks)):
        inv = np.eye(mu_k.size) if block is None else inverse_upsilon(*block)
        ptr.append(ptr[-1] + mu_k.size)
        w.append(inv @ mu_k)
        w0.append(inv @ mu_hat_blocks[k] if k < len(mu_hat_blocks)
                  else np.zeros(mu_k.size))
    z0 = omega_subgradient(np.concatenate(w0), ptr, float(model.sigma))
    return z0, np.concatenate(w), ptr


__all__ = ["batch_path", "time_sigma_branches", "cutting_plane_trace",
           "whitened_leverage", "warm_start_terms"]
