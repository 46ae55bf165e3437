"""Row access shared by every compiled loop: one source, dense or CSR.

A stream ``X`` reaches compiled code either as a 2-D float64 array or as the
CSR triple ``(data, indices, indptr)``.  The functions below are written once
for the learners and specialised by numba on the type of ``X``; the CSR
versions touch only the nonzeros of row ``t``.

The CSR versions index with unsigned integers (``np.uintp`` of the position
and of the column): the estimator has checked ``0 <= j < d`` and a
non-decreasing ``indptr``, and numba then indexes without its test for
negative indices, which costs about 30% of a Perceptron pass over sparse rows
(same arithmetic, same order: results are bit-identical).
"""
import numpy as np
from numba import njit, types
from numba.extending import overload


def row_dot_sq(X, t, v):
    """Return ``(v . x_t, ||x_t||^2)`` in one pass over row ``t``."""


def row_axpy(X, t, alpha, v):
    """``v += alpha * x_t`` in place."""


def row_dot(X, t, v):
    """Return ``v . x_t``."""


def row_has_nonzero(X, t):
    """Whether row ``t`` has a nonzero entry (``||x_t||^2`` may underflow to 0)."""


def _is_csr(X):
    return isinstance(X, types.BaseTuple)


@overload(row_dot_sq, inline="always")
def _row_dot_sq(X, t, v):
    if _is_csr(X):
        def impl(X, t, v):
            data, indices, indptr = X
            dot = 0.0
            sq = 0.0
            for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
                xk = data[k]
                dot += v[np.uintp(indices[k])] * xk
                sq += xk * xk
            return dot, sq
        return impl

    def impl(X, t, v):
        dot = 0.0
        sq = 0.0
        for j in range(X.shape[1]):
            xj = X[t, j]
            dot += v[j] * xj
            sq += xj * xj
        return dot, sq
    return impl


@overload(row_dot, inline="always")
def _row_dot(X, t, v):
    if _is_csr(X):
        def impl(X, t, v):
            data, indices, indptr = X
            dot = 0.0
            for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
                dot += v[np.uintp(indices[k])] * data[k]
            return dot
        return impl

    def impl(X, t, v):
        dot = 0.0
        for j in range(X.shape[1]):
            dot += v[j] * X[t, j]
        return dot
    return impl


@overload(row_axpy, inline="always")
def _row_axpy(X, t, alpha, v):
    if _is_csr(X):
        def impl(X, t, alpha, v):
            data, indices, indptr = X
            for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
                v[np.uintp(indices[k])] += alpha * data[k]
        return impl

    def impl(X, t, alpha, v):
        for j in range(X.shape[1]):
            v[j] += alpha * X[t, j]
    return impl


@overload(row_has_nonzero, inline="always")
def _row_has_nonzero(X, t):
    if _is_csr(X):
        def impl(X, t):
            data, indices, indptr = X
            for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
                if data[k] != 0.0:
                    return True
            return False
        return impl

    def impl(X, t):
        for j in range(X.shape[1]):
            if X[t, j] != 0.0:
                return True
        return False
    return impl


# -- scoring: O(nnz(X)) from the stored model, never the full weight vector ------
# Each kernel sums row t as scipy's ``csr_matvec`` sums ``X @ w`` (from 0.0,
# ``+= x_k * w_j`` over the stored entries in order), with ``w_j`` formed per
# entry by the same floating-point operations numpy applies to the whole
# vector: the scores are bit for bit those of ``X @ coef_`` with ``coef_``
# built first (O(d) a call), but cost O(nnz(X) + n_rows).

@njit(cache=True)
def csr_dot(data, indices, indptr, w, out):
    """``out_t = sum_k x_k w_j`` (``w`` any 1-D float array: a column view
    too, which ``scipy`` would copy first, O(d))."""
    for t in range(out.shape[0]):
        total = 0.0
        for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
            total += data[k] * w[np.uintp(indices[k])]
        out[t] = total


@njit(cache=True)
def csr_dot_scaled(data, indices, indptr, v, s, out):
    """``X @ (s v)`` for the linear learners' ``w = s v``."""
    for t in range(out.shape[0]):
        total = 0.0
        for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
            total += data[k] * (s * v[np.uintp(indices[k])])
        out[t] = total


@njit(cache=True)
def csr_dot_average(data, indices, indptr, v, z, a, n, out):
    """``X @ ((a v - z) / n)``: the running average of
    :mod:`olearn.linear.core` (``a = S + s``, ``n`` the rounds)."""
    for t in range(out.shape[0]):
        total = 0.0
        for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
            j = np.uintp(indices[k])
            total += data[k] * ((a * v[j] - z[j]) / n)
        out[t] = total


@njit(cache=True)
def csr_dot_vote(data, indices, indptr, v1, z1, a1, v2, z2, a2, n, out):
    """``X @ (((a1 v1 - z1) - (a2 v2 - z2)) / n)``: the vote of
    :class:`olearn.Averaged` with ``weights="correct"`` (learner minus shadow)."""
    for t in range(out.shape[0]):
        total = 0.0
        for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
            j = np.uintp(indices[k])
            total += data[k] * (((a1 * v1[j] - z1[j]) - (a2 * v2[j] - z2[j])) / n)
        out[t] = total


@njit(cache=True)
def csr_dot_soft_threshold(data, indices, indptr, v, kappa, out):
    """``X @ (sign(v) max(|v| - kappa, 0))`` (SparDCA's primal weights)."""
    for t in range(out.shape[0]):
        total = 0.0
        for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
            vj = v[np.uintp(indices[k])]
            total += data[k] * (np.sign(vj) * max(abs(vj) - kappa, 0.0))
        out[t] = total


@njit(cache=True)
def csr_dot_subset(data, indices, indptr, columns, order, mu, out):
    """``X[:, idx] @ mu`` for a model over the features ``idx``, given as
    ``order = argsort(idx)`` and ``columns = idx[order]``: each entry's
    positions by binary search, O(nnz(X) log |idx|) instead of scipy's O(d)
    column map, in scipy's order (the entries in turn, a column repeated in
    ``idx`` at its positions in ``order``)."""
    n_cols = columns.shape[0]
    for t in range(out.shape[0]):
        total = 0.0
        for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
            j = indices[k]
            p = np.searchsorted(columns, j)
            while p < n_cols and columns[p] == j:
                total += data[k] * mu[order[p]]
                p += 1
        out[t] = total


@njit(cache=True)
def dense_dot(X, w, out):
    """``out_t = sum_j x_tj w_j`` over the nonzero ``x_tj``, the features in
    turn: the order of :func:`csr_dot` on the same rows as CSR, so a row
    scores alike dense or sparse, alone or among others (BLAS's order
    depends on the layout and on the number of rows)."""
    for t in range(X.shape[0]):
        total = 0.0
        for j in range(X.shape[1]):
            x = X[t, j]
            if x != 0.0:
                total += x * w[j]
        out[t] = total


def dense_scores(X, w):
    """``X @ w`` for a dense ``X`` in :func:`dense_dot`'s order (a new vector)."""
    X = np.ascontiguousarray(X)
    if X.flags.writeable:      # one specialisation for writable and read-only X
        X = X.view()
        X.flags.writeable = False
    out = np.empty(X.shape[0])
    w = np.ascontiguousarray(w, dtype=np.float64)
    if not w.flags.writeable:  # a read-only w would be another specialisation (d values copied)
        w = w.copy()
    dense_dot(X, w, out)
    return out


def sparse_scores(kernel, X, *model):
    """``kernel``'s scores of the rows of the CSR matrix ``X`` (a new vector)."""
    out = np.empty(X.shape[0])
    kernel(X.data, X.indices, X.indptr, *model, out)
    return out
