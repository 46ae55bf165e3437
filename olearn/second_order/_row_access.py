"""Row access for the second-order loops (dense or CSR, one source).

``row_span(X, t)`` gives the range of positions of row ``t`` and
``row_entry(X, t, k)`` the pair ``(j, x_tj)`` at position ``k`` (``row_entries2``
those at ``k`` and ``k + 1``): the dense
version walks all columns, the CSR version only the nonzeros (its column
index and its position as unsigned integers: the estimator has checked
``0 <= j < d`` and a non-decreasing ``indptr``, and numba then indexes without
the test for negative indices).  ``row_dense``
returns row ``t`` as a dense vector (the row itself, or ``buf`` filled from
the nonzeros) and ``row_clear`` zeroes what ``row_dense`` wrote into ``buf``.
"""
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

from .._intrinsics import element_pointer


def row_span(X, t):
    """``(start, stop)`` positions of row ``t``."""


def row_entry(X, t, k):
    """``(j, x_tj)`` at position ``k`` of row ``t``."""


def row_entries2(X, t, k):
    """``(j, x_tj, i, x_ti)`` at positions ``k`` and ``k + 1`` of row ``t``."""


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


@intrinsic
def widen_pair(typingctx, values, k):
    """``(values[k], values[k + 1])`` of a contiguous float32 array as two
    float64: one 8-byte load and one two-lane conversion (``vcvtps2pd``)
    where two scalar conversions each take a slot of the floating-point
    units (exact: every float32 is a float64)."""
    sig = types.UniTuple(types.float64, 2)(values, k)

    def codegen(context, builder, sig, args):
        ptr = element_pointer(context, builder, sig, args)
        pair = builder.load(builder.bitcast(
            ptr, ir.VectorType(ir.FloatType(), 2).as_pointer()), align=4)
        wide = builder.fpext(pair, ir.VectorType(ir.DoubleType(), 2))
        i32 = ir.IntType(32)
        return context.make_tuple(
            builder, sig.return_type,
            [builder.extract_element(wide, ir.Constant(i32, lane)) for lane in (0, 1)])
    return sig, codegen


@overload(row_entries2, inline="always")
def _row_entries2(X, t, k):
    if _is_csr(X) and X[0].dtype == types.float32 and X[0].layout == "C":
        def impl(X, t, k):
            u = np.uintp(k)
            xj, xi = widen_pair(X[0], u)
            return np.uintp(X[1][u]), xj, np.uintp(X[1][u + np.uintp(1)]), xi
        return impl
    if _is_csr(X):
        def impl(X, t, k):
            u = np.uintp(k)
            v = u + np.uintp(1)
            return np.uintp(X[1][u]), X[0][u], np.uintp(X[1][v]), X[0][v]
        return impl

    def impl(X, t, k):
        return k, X[t, k], k + 1, X[t, k + 1]
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
