"""Kernel functions and the compiled kernel row ``k(x_t, S)``.

Built-in kernels (``kind`` codes used by the compiled loops):

``"linear"``
    ``k(x, x') = x . x'``
``"rbf"``
    ``k(x, x') = exp(-||x - x'||^2 / (2 sigma^2))`` (the DUOL paper's
    Gaussian kernel, ``sigma = 8``), computed as
    ``exp(-(||x||^2 + ||x'||^2 - 2 x.x') / (2 sigma^2))`` from the
    cached squared norms of the support vectors;
``"poly"``
    ``k(x, x') = (x . x' + coef0)^degree``.

A callable ``kernel(A, B)`` returning the ``(len(A), len(B))`` matrix is also
accepted; its output is checked for shape and finiteness on every call
(:func:`checked_call`) and it runs one Python call per round (no per-support-vector
call), so it is much slower than the built-in kernels.

The support set is a growing buffer of rows, dense or CSR (the triple
``(data, indices, indptr)``), with the same layout as the stream (see
:mod:`olearn.kernel.core`).  A dense store is kept *transposed*, one
contiguous row per feature (shape ``(n_features, capacity)``), so that
:func:`store_dots`, the inner products of row ``t`` of the stream with the
first ``n`` support rows, is ``sum_j x_tj S[j, :n]`` over the nonzero
``x_tj`` only: one contiguous, vectorised ``axpy`` per nonzero feature (a
dense row of a sparse data set costs what its CSR form costs, a fully dense
row is a column-oriented matrix-vector product).  Each support vector's inner
product still adds its terms in the order of the features, skipping zero
terms only, so it equals the plain dot product bit for bit (up to the sign
of a zero).  CSR store: the row ``x_t`` is scattered once into a dense work
vector and each support vector touches only its nonzeros.

``decision_function`` scores with the same arithmetic (:func:`column_dots`):
the support set by columns (the transposed dense store, or the CSC form of a
CSR store), so a CSR row visits only its own columns, and every layout of a
row (dense C or F, CSR with any index type, alone or in a batch) and either
store give the score fit gives the row, bit for bit (issue 36, item 6; the
former ``K(X, S) @ coef`` through BLAS summed in an order set by the layout,
the number of rows and the host).  :func:`kernel_matrix` is the vectorised
(BLAS) form for analysis, equal to the compiled kernel rows within rounding.
"""
import math
import numbers
import sys

import numpy as np
import scipy.sparse as sp
from numba import njit, types
from numba.extending import overload
from sklearn.utils.extmath import safe_sparse_dot

LINEAR, RBF, POLY, CALLABLE = 0, 1, 2, 3
KERNELS = {"linear": LINEAR, "rbf": RBF, "poly": POLY}


# -- the kernel as a function of an inner product and two squared norms ------
@njit(cache=True)
def kernel_value(kind, dot, sq_a, sq_b, sigma, degree, coef0):
    """``k(a, b)`` from ``a.b``, ``||a||^2``, ``||b||^2``."""
    if kind == LINEAR:
        return dot
    if kind == RBF:
        d2 = sq_a + sq_b - 2.0 * dot
        if d2 < 0.0:  # rounding for a == b
            d2 = 0.0
        return math.exp(-d2 / (2.0 * sigma * sigma))
    return (dot + coef0) ** degree


# -- row access for the stream and the store (dense or CSR) -------------------
def row_sq(X, t):
    """``||x_t||^2``."""


def store_dots(S, n, X, t, work, out):
    """``out[i] = s_i . x_t`` for the first ``n`` rows ``s_i`` of the store ``S``."""


def store_self_dots(S, n, b, work, out):
    """``out[i] = s_i . s_b`` for the first ``n`` rows of the store (``work``: zeros)."""


def store_fits(S, n, X, t):
    """True if the store ``S`` has room for row ``t`` of ``X`` in slot ``n``."""


def store_put(S, n, X, t):
    """Copy row ``t`` of ``X`` into slot ``n`` of the store ``S``."""


def store_drop_first(S, n):
    """Remove slot 0 of the store (``n`` rows used), shifting the others down."""


def _is_csr(X):
    return isinstance(X, types.BaseTuple)


@overload(row_sq, inline="always")
def _row_sq(X, t):
    if _is_csr(X):
        def impl(X, t):
            data, indices, indptr = X
            sq = 0.0
            for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
                sq += data[k] * data[k]
            return sq
        return impl

    def impl(X, t):
        sq = 0.0
        for j in range(X.shape[1]):
            sq += X[t, j] * X[t, j]
        return sq
    return impl


@njit(cache=True)
def _csr_dots(sdata, sindices, sindptr, n, work, out):
    """``out[i] = s_i . work`` for the first ``n`` CSR rows (``work`` dense)."""
    for i in range(n):
        dot = 0.0
        # unsigned positions and columns (the store holds checked rows):
        # no negative-index test in the hottest loop of the CSR learners
        for k in range(np.uintp(sindptr[i]), np.uintp(sindptr[i + 1])):
            dot += sdata[k] * work[np.uintp(sindices[k])]
        out[i] = dot


@njit(cache=True)
def _transposed_dots(ST, n, x, out):
    """``out[i] = sum_j x_j ST[j, i]`` over the nonzero ``x_j``, in the order of ``j``."""
    for i in range(n):
        out[i] = 0.0
    for j in range(ST.shape[0]):
        xj = x[j]
        if xj != 0.0:
            col = ST[j]
            for i in range(n):
                out[i] += xj * col[i]


@overload(store_dots)
def _store_dots(S, n, X, t, work, out):
    if _is_csr(S):
        if _is_csr(X):
            def impl(S, n, X, t, work, out):
                data, indices, indptr = X
                lo, hi = np.uintp(indptr[t]), np.uintp(indptr[t + 1])
                for k in range(lo, hi):
                    work[np.uintp(indices[k])] = data[k]
                _csr_dots(S[0], S[1], S[2], n, work, out)
                for k in range(lo, hi):
                    work[np.uintp(indices[k])] = 0.0
            return impl
        raise TypeError("a CSR store takes CSR rows")

    def impl(S, n, X, t, work, out):
        _transposed_dots(S, n, X[t], out)
    return impl


@overload(store_self_dots)
def _store_self_dots(S, n, b, work, out):
    if _is_csr(S):
        def impl(S, n, b, work, out):
            store_dots(S, n, S, b, work, out)
        return impl

    def impl(S, n, b, work, out):
        for j in range(S.shape[0]):
            work[j] = S[j, b]
        _transposed_dots(S, n, work, out)
        for j in range(S.shape[0]):
            work[j] = 0.0
    return impl


def column_dots(C, n, X, t, out):
    """``out[i] = s_i . x_t`` from the first ``n`` support rows stored by
    columns (for scoring): the transposed dense store itself, or the CSC
    triple ``(colptr, rows, values)`` of a CSR store.  Only the columns of
    the nonzero ``x_tj`` are visited, in the order of ``j``, so a CSR row
    costs O(nnz(x_t) + its columns' support entries + n), and each inner
    product adds the products ``s_ij x_tj`` in the order of the features as
    :func:`store_dots` does for fit (both skip zero terms only, and a sum
    started at +0.0 is never changed by adding a zero): the same bits for
    dense (C or F order) and CSR rows (any index type), alone or in a batch,
    and for a dense or a CSR store."""


@overload(column_dots)
def _column_dots(C, n, X, t, out):
    if _is_csr(C):
        if _is_csr(X):
            def impl(C, n, X, t, out):
                colptr, rows, values = C
                data, indices, indptr = X
                for i in range(n):
                    out[i] = 0.0
                for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
                    xj = data[k]
                    if xj != 0.0:
                        j = np.uintp(indices[k])
                        for p in range(np.uintp(colptr[j]), np.uintp(colptr[j + 1])):
                            out[np.uintp(rows[p])] += xj * values[p]
            return impl

        def impl(C, n, X, t, out):
            colptr, rows, values = C
            for i in range(n):
                out[i] = 0.0
            for j in range(X.shape[1]):
                xj = X[t, j]
                if xj != 0.0:
                    for p in range(np.uintp(colptr[j]), np.uintp(colptr[j + 1])):
                        out[np.uintp(rows[p])] += xj * values[p]
        return impl

    if _is_csr(X):
        def impl(C, n, X, t, out):
            data, indices, indptr = X
            for i in range(n):
                out[i] = 0.0
            for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
                xj = data[k]
                if xj != 0.0:
                    col = C[np.uintp(indices[k])]
                    for i in range(n):
                        out[i] += xj * col[i]
        return impl

    def impl(C, n, X, t, out):
        _transposed_dots(C, n, X[t], out)
    return impl


@overload(store_fits)
def _store_fits(S, n, X, t):
    if _is_csr(S):
        def impl(S, n, X, t):
            sdata, sindices, sindptr = S
            data, indices, indptr = X
            return (n + 1 < sindptr.shape[0]
                    and sindptr[n] + indptr[t + 1] - indptr[t] <= sdata.shape[0])
        return impl

    def impl(S, n, X, t):
        return n < S.shape[1]
    return impl


@overload(store_put)
def _store_put(S, n, X, t):
    if _is_csr(S):
        def impl(S, n, X, t):
            sdata, sindices, sindptr = S
            data, indices, indptr = X
            k0 = sindptr[n]
            for k in range(indptr[t], indptr[t + 1]):
                sdata[k0] = data[k]
                sindices[k0] = indices[k]
                k0 += 1
            sindptr[n + 1] = k0
        return impl

    def impl(S, n, X, t):
        for j in range(S.shape[0]):
            S[j, n] = X[t, j]
    return impl


@overload(store_drop_first)
def _store_drop_first(S, n):
    if _is_csr(S):
        def impl(S, n):
            sdata, sindices, sindptr = S
            shift = sindptr[1]
            for k in range(shift, sindptr[n]):
                sdata[k - shift] = sdata[k]
                sindices[k - shift] = sindices[k]
            for i in range(n):
                sindptr[i] = sindptr[i + 1] - shift
        return impl

    def impl(S, n):
        for j in range(S.shape[0]):
            for i in range(n - 1):
                S[j, i] = S[j, i + 1]
    return impl


@njit(cache=True)
def _finish_row(kind, sigma, degree, coef0, n, sv_sq, sq_t, out):
    """Turn the inner products in ``out`` into kernel values; for the Gaussian
    kernel return True if every one of them underflowed to 0 (``n > 0``)."""
    if kind == LINEAR:
        return False
    if kind == RBF:
        two_s2 = 2.0 * sigma * sigma
        nonzero = False
        for i in range(n):
            d2 = sv_sq[i] + sq_t - 2.0 * out[i]
            if d2 < 0.0:  # rounding for s_i == x_t
                d2 = 0.0
            out[i] = math.exp(-d2 / two_s2)
            nonzero |= out[i] != 0.0
        return n > 0 and not nonzero
    for i in range(n):
        out[i] = (out[i] + coef0) ** degree
    return False


@njit(cache=True)
def kernel_row(kind, sigma, degree, coef0, S, n, sv_sq, X, t, sq_t, work, out):
    """``out[i] = k(s_i, x_t)`` for the first ``n`` support rows (cached ``||s_i||^2``).

    Returns True if the Gaussian kernel underflowed to 0 on every support row
    (see :func:`_finish_row`)."""
    store_dots(S, n, X, t, work, out)
    return _finish_row(kind, sigma, degree, coef0, n, sv_sq, sq_t, out)


@njit(cache=True)
def support_kernel_row(kind, sigma, degree, coef0, S, n, sv_sq, b, work, out):
    """``out[i] = k(s_i, s_b)``: the kernel row of support vector ``b``."""
    store_self_dots(S, n, b, work, out)
    _finish_row(kind, sigma, degree, coef0, n, sv_sq, sv_sq[b], out)


# -- parameters ----------------------------------------------------------------
def _is_real(value):
    return (isinstance(value, numbers.Real) and not isinstance(value, bool)
            and np.isfinite(value))


#: the Gaussian kernel divides by ``2 sigma^2``: it and its reciprocal must be
#: finite, non-zero float64 numbers (about 5.3e-155 < sigma < 9.5e153)
SIGMA_RANGE = (math.sqrt(0.5 / sys.float_info.max) * (1 + 1e-15),
               math.sqrt(sys.float_info.max / 2.0))


def check_sigma(sigma):
    """Raise unless ``2 sigma^2`` and ``1 / (2 sigma^2)`` are finite and non-zero."""
    ok = _is_real(sigma) and sigma > 0
    if ok:
        two_s2 = 2.0 * float(sigma) * float(sigma)
        ok = 0.0 < two_s2 < math.inf and math.isfinite(1.0 / two_s2)
    if not ok:
        lo, hi = SIGMA_RANGE
        raise ValueError(
            f"sigma (the width of the Gaussian kernel exp(-||x - x'||^2 / "
            f"(2 sigma^2))) must be a finite number with 2 sigma^2 and "
            f"1/(2 sigma^2) finite and non-zero in float64, i.e. in "
            f"[{lo:.3g}, {hi:.3g}]; got {sigma!r}. A usable sigma is of the "
            f"order of the distance between rows (the DUOL paper's 8 on data "
            f"scaled to [-1, 1]).")


def check_kernel_params(kernel, sigma, degree, coef0):
    """Validate the kernel parameters; return the ``kind`` code."""
    if callable(kernel):
        return CALLABLE
    if not isinstance(kernel, str) or kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {sorted(KERNELS)} or a callable "
                         f"kernel(A, B), got {kernel!r}.")
    if kernel == "rbf":
        check_sigma(sigma)
    if kernel == "poly":
        if (not isinstance(degree, numbers.Integral) or isinstance(degree, bool)
                or degree < 1):
            raise ValueError(f"degree must be an integer >= 1, got {degree!r}.")
        if not _is_real(coef0):
            raise ValueError(f"coef0 must be a finite number, got {coef0!r}.")
    return KERNELS[kernel]


def kernel_name(kernel):
    """A readable name of a kernel (callables by their qualified name)."""
    if callable(kernel):
        return getattr(kernel, "__qualname__", None) or repr(kernel)
    return repr(kernel)


def checked_call(kernel, A, B):
    """``kernel(A, B)`` as a float64 ``(len(A), len(B))`` array, or a clear error."""
    name = kernel_name(kernel)
    try:
        K = np.asarray(kernel(A, B), dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"the kernel callable {name} failed on inputs of shapes "
                         f"{A.shape} and {B.shape}: {error}") from error
    expected = (A.shape[0], B.shape[0])
    if K.shape != expected:
        if K.size == expected[0] * expected[1] and K.ndim <= 1 and 1 in expected:
            K = K.reshape(expected)
        else:
            raise ValueError(f"the kernel callable {name} returned shape {K.shape} "
                             f"for inputs of {A.shape[0]} and {B.shape[0]} rows; "
                             f"expected {expected}.")
    if not np.all(np.isfinite(K)):
        raise ValueError(f"the kernel callable {name} returned non-finite values "
                         f"(NaN or infinity).")
    return K


def squared_norms(X):
    """``||x_i||^2`` of every row (dense or sparse)."""
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, X)


def kernel_matrix(A, B, kernel="rbf", sigma=8.0, degree=3, coef0=1.0):
    """The matrix ``k(a_i, b_j)`` of a built-in or callable kernel (vectorised)."""
    kind = check_kernel_params(kernel, sigma, degree, coef0)
    if kind == CALLABLE:
        return checked_call(kernel, A, B)
    dots = safe_sparse_dot(A, B.T, dense_output=True)
    dots = np.asarray(dots, dtype=np.float64)
    if kind == LINEAR:
        return dots
    if kind == POLY:
        return (dots + coef0) ** degree
    d2 = squared_norms(A)[:, None] + squared_norms(B)[None, :] - 2.0 * dots
    np.maximum(d2, 0.0, out=d2)
    return np.exp(-d2 / (2.0 * sigma * sigma))
