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
from numba import types
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
