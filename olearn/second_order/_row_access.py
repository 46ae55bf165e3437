"""Row access for the second-order loops (dense or CSR, one source).

``row_span(X, t)`` gives the range of positions of row ``t`` and
``row_entry(X, t, k)`` the pair ``(j, x_tj)`` at position ``k``: the dense
version walks all columns, the CSR version only the nonzeros (its column
index and its position as unsigned integers: the estimator has checked
``0 <= j < d`` and a non-decreasing ``indptr``, and numba then indexes without
the test for negative indices).  ``row_dense``
returns row ``t`` as a dense vector (the row itself, or ``buf`` filled from
the nonzeros) and ``row_clear`` zeroes what ``row_dense`` wrote into ``buf``.
"""
import numpy as np
from numba import types
from numba.extending import overload


def row_span(X, t):
    """``(start, stop)`` positions of row ``t``."""


def row_entry(X, t, k):
    """``(j, x_tj)`` at position ``k`` of row ``t``."""


def row_dense(X, t, buf):
    """Row ``t`` as a dense vector."""


def row_clear(X, t, buf):
    """Undo ``row_dense`` on ``buf``."""


def _is_csr(X):
    return isinstance(X, types.BaseTuple)


@overload(row_span, inline="always")
def _row_span(X, t):
    if _is_csr(X):
        def impl(X, t):
            return X[2][t], X[2][t + 1]
        return impl

    def impl(X, t):
        return 0, X.shape[1]
    return impl


@overload(row_entry, inline="always")
def _row_entry(X, t, k):
    if _is_csr(X):
        def impl(X, t, k):
            u = np.uintp(k)
            return np.uintp(X[1][u]), X[0][u]
        return impl

    def impl(X, t, k):
        return k, X[t, k]
    return impl


@overload(row_dense, inline="always")
def _row_dense(X, t, buf):
    if _is_csr(X):
        def impl(X, t, buf):
            data, indices, indptr = X
            for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
                buf[np.uintp(indices[k])] = data[k]
            return buf
        return impl

    def impl(X, t, buf):
        return X[t]
    return impl


@overload(row_clear, inline="always")
def _row_clear(X, t, buf):
    if _is_csr(X):
        def impl(X, t, buf):
            data, indices, indptr = X
            for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
                buf[np.uintp(indices[k])] = 0.0
        return impl

    def impl(X, t, buf):
        pass
    return impl
