"""Shared pieces of BCW and SBCW: the covariance of eq. (6), its square root,
the dual-coordinate step of Algorithm 1 and a memory guard.

Conventions (Tan, Yan, Wang, van den Hengel, Tsang, Shi, AAAI 2016):

* rows are examples, so the paper's ``X_h`` (d x N_h) is ``X.T`` here and
  ``X_h X_h^T`` is ``X.T @ X``;
* ``q = 2``: the step of Algorithm 1, ``alpha = xi / (||x||^2 + 0.5 / C)``,
  is the exact dual coordinate step of Hsieh et al.'s L2-SVM
  ``1/2 ||w||^2 + C sum xi_i^2``, not of the ``C/2 sum xi_i^2`` that
  eqs. (7) and (8) write with ``C/q``.  We implement the algorithm as
  printed and check it against the objective it solves (the chapter says so).
"""

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from numba import njit

from .._checks import available_memory


def as_matrix(X, n_features):
    """A scipy CSR matrix or a dense array from what ``_learn`` receives."""
    if isinstance(X, tuple):
        data, indices, indptr = X
        return sp.csr_matrix((data, indices, indptr),
                             shape=(indptr.shape[0] - 1, n_features))
    return X


@njit(cache=True)
def _csr_gram(data, indices, indptr, G):
    """``G += sum_i x_i x_i^T`` over CSR rows, O(sum_i nnz(x_i)^2 / 2).

    Only pairs ``b >= a`` are accumulated (into ``G[ia, ib]``), then the two
    triangles are folded into a symmetric matrix.
    """
    d = G.shape[0]
    for t in range(indptr.shape[0] - 1):
        for a in range(indptr[t], indptr[t + 1]):
            ia = indices[a]
            va = data[a]
            for b in range(a, indptr[t + 1]):
                G[ia, indices[b]] += va * data[b]
    for i in range(d):
        for j in range(i + 1, d):
            total = G[i, j] + G[j, i]
            G[i, j] = total
            G[j, i] = total


def gram(X, C):
    """``C X_h X_h^T`` of the paper (``C X.T X`` here), a dense d x d array.

    Sparse rows: a compiled sum of outer products over the nonzeros
    (scipy's sparse product allocates a sparse result and was 30x slower
    on the adult stream); dense rows: BLAS.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        G = np.zeros((X.shape[1], X.shape[1]))
        _csr_gram(X.data, X.indices, X.indptr, G)
    else:
        G = X.T @ X
    G *= C
    return G


def sigma_update(V, s, X, C, branch="auto"):
    """Eq. (6): ``Sigma = (Sigma_hat^{-1} + C X_h X_h^T)^{-1}``.

    ``Sigma_hat = V diag(s) V^T`` is given by its eigendecomposition (kept
    from the previous batch).  Two ways, as the paper's complexity remark:

    ``"inverse"``  (O(d^3 + N d^2)): form the precision
        ``A = Sigma_hat^{-1} + C X_h X_h^T`` and eigendecompose it;
    ``"woodbury"`` (O(N^3 + N d^2)): ``Sigma = Sigma_hat - Sigma_hat X_h
        (I/C + X_h^T Sigma_hat X_h)^{-1} X_h^T Sigma_hat`` and eigendecompose it.

    ``branch="auto"`` takes the cheaper inversion: ``"inverse"`` when
    ``d <= N_h``, else ``"woodbury"``.  Returns ``(V, s, branch)`` with
    ``Sigma = V diag(s) V^T`` and ``s > 0``.
    """
    n, d = X.shape
    if branch == "auto":
        branch = "inverse" if d <= n else "woodbury"
    if branch == "inverse":
        A = (V / s) @ V.T
        A += gram(X, C)
        _require_finite(A, "the precision Sigma_hat^{-1} + C X_h X_h^T")
        lam, V_new = sla.eigh(A, overwrite_a=True, check_finite=False)
        lam = np.maximum(lam, np.finfo(float).tiny)
        return V_new, 1.0 / lam, branch
    if branch != "woodbury":
        raise ValueError(f"branch must be 'auto', 'inverse' or 'woodbury', "
                         f"got {branch!r}.")
    # B = Sigma_hat X_h  (d x N)
    Xd = X.toarray() if sp.issparse(X) else X
    B = V @ (s[:, None] * (V.T @ Xd.T))
    M = Xd @ B
    M[np.diag_indices_from(M)] += 1.0 / C
    _require_finite(M, "I/C + X_h^T Sigma_hat X_h")
    L = sla.cho_factor(M, lower=True, check_finite=False)
    Sigma = (V * s) @ V.T
    Sigma -= B @ sla.cho_solve(L, B.T, check_finite=False)
    Sigma = 0.5 * (Sigma + Sigma.T)
    s_new, V_new = sla.eigh(Sigma, overwrite_a=True, check_finite=False)
    # Sigma is positive definite; round-off can leave tiny negative values
    floor = np.finfo(float).eps * max(float(s_new[-1]), 1.0)
    return V_new, np.maximum(s_new, floor), branch


def _require_finite(A, what):
    """LAPACK runs with ``check_finite=False``: an overflowed matrix would
    give a finite but meaningless decomposition, so refuse it here."""
    if not np.isfinite(A).all():
        raise FloatingPointError(
            f"{what} overflows float64 (the values of X are too large for "
            f"X^T X): scale the features (e.g. sklearn.preprocessing."
            f"MaxAbsScaler or StandardScaler)")


def upsilon(V, s):
    """``Upsilon`` with ``Upsilon^2 = Sigma`` (the symmetric square root)."""
    return (V * np.sqrt(s)) @ V.T


def inverse_upsilon(V, s):
    """``Upsilon^{-1} = V diag(s^{-1/2}) V^T``."""
    return (V / np.sqrt(s)) @ V.T


@njit(cache=True)
def dcd_step(margin, sq, alpha, C, q):
    """New ``alpha_i`` of one dual coordinate step on ``1/2||w - w0||^2 + loss``.

    ``margin = y_i w.x_i``, ``sq = ||x_i||^2``.  ``q = 1``: hinge loss
    ``C sum xi_i``, ``alpha in [0, C]``; ``q = 2``: ``C sum xi_i^2``,
    ``alpha >= 0``.  From ``alpha = 0`` it is Algorithm 1's step:
    ``min(xi / ||x||^2, C)`` and ``xi / (||x||^2 + 0.5 / C)``.
    """
    if q == 1:
        if sq <= 0.0:
            return alpha
        a = alpha + (1.0 - margin) / sq
        return min(max(a, 0.0), C)
    D = 0.5 / C
    a = alpha + (1.0 - margin - D * alpha) / (sq + D)
    return max(a, 0.0)
