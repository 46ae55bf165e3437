"""Fast input checks run by the estimator base before a learner sees the data.

scikit-learn's finiteness test sums the values (about 7 ms per 10^7 values
here); :func:`assert_finite` reads the exponent bits instead, at memory speed,
and :func:`distinct_labels` finds the (at most three) label values a binary
learner needs without sorting the whole of ``y``.
"""
import numpy as np
import scipy.sparse as sp
from numba import njit

_EXPONENT = np.uint64(0x7FF0000000000000)  # all ones: inf or NaN


@njit(cache=True)
def _count_nonfinite(bits, exponent):
    count = 0
    for i in range(bits.shape[0]):
        count += (bits[i] & exponent) == exponent
    return count


def assert_finite(X, name="X"):
    """Raise ``ValueError`` if the float64 array or CSR matrix ``X`` holds NaN or inf."""
    values = X.data if sp.issparse(X) else X
    values = np.ascontiguousarray(values).reshape(-1)
    if values.size == 0 or not _count_nonfinite(values.view(np.uint64), _EXPONENT):
        return
    kind = "NaN" if np.isnan(values).any() else "infinity"
    raise ValueError(f"Input {name} contains {kind}; olearn learners need finite "
                     f"values (impute or drop those entries first).")


@njit(cache=True)
def _unsigned_max(a):
    top = a[0]
    for i in range(1, a.shape[0]):
        if a[i] > top:
            top = a[i]
    return top


def check_csr(X, name="X"):
    """Raise ``ValueError`` unless the CSR matrix ``X`` is well formed.

    The compiled loops index the weight vector with ``indices`` unchecked, so
    an out-of-range column would write out of bounds.  One pass over
    ``indices`` read as unsigned integers (a negative index becomes huge), so
    one comparison per nonzero: about 6 ms for the 1.5e7 nonzeros of the
    sparse benchmark stream, next to 17 ms for :func:`assert_finite`.
    """
    if not sp.issparse(X):
        return
    indptr, indices = X.indptr, X.indices
    n_rows, n_cols = X.shape
    if (indptr.shape[0] != n_rows + 1 or indices.shape[0] != X.data.shape[0]
            or indptr[0] != 0 or indptr[-1] > indices.shape[0]
            or (n_rows > 0 and (np.diff(indptr) < 0).any())):
        raise ValueError(
            f"Input {name} is a malformed CSR matrix: indptr must start at 0, "
            f"be non-decreasing and end within indices (got indptr of length "
            f"{indptr.shape[0]} for {n_rows} rows, {indices.shape[0]} "
            f"indices). Rebuild it with scipy.sparse.csr_matrix.")
    used = np.ascontiguousarray(indices[:indptr[-1]])
    if used.size == 0:
        return
    unsigned = used.view(np.uint64 if used.dtype.itemsize == 8 else np.uint32)
    if int(_unsigned_max(unsigned)) >= n_cols:
        raise ValueError(
            f"Input {name} is a malformed CSR matrix: column indices must lie "
            f"in [0, {n_cols}) for its {n_cols} columns, got indices from "
            f"{int(used.min())} to {int(used.max())}.")


def distinct_labels(y):
    """The sorted distinct values of ``y`` when there are at most two, else ``np.unique(y)``.

    For numeric ``y`` this takes a few vectorised passes instead of a sort.
    """
    if y.dtype.kind not in "biuf" or y.size == 0:
        return np.unique(y)
    first = y[0]
    other = y != first
    if not other.any():
        return y[:1].copy()
    second = y[np.argmax(other)]
    if ((y != second) & other).any():
        return np.unique(y)
    return np.sort(np.array([first, second], dtype=y.dtype))
