"""Fast input checks run by the estimator base before a learner sees the data
(the value checks of :func:`check_values` are made by the linear learners'
passes and the diagonal second-order pass themselves, row by row:
``OnlineClassifier._values_checked_in_pass``).

scikit-learn's finiteness test sums the values (about 7 ms per 10^7 values
here); :func:`assert_finite` reads the exponent bits instead, at memory speed,
:func:`check_values` does the same in the same pass and also bounds every
row's squared norm from the extreme exponents, and :func:`distinct_labels` finds the (at most three) label values a binary
learner needs without sorting the whole of ``y``.
"""
import os

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
    values = _flat_values(X)
    if values.size == 0 or not _count_nonfinite(values.view(np.uint64), _EXPONENT):
        return
    _raise_nonfinite(values, name)


def _flat_values(X):
    values = X.data if sp.issparse(X) else X
    return np.ascontiguousarray(values).reshape(-1)


def _raise_nonfinite(values, name):
    kind = "NaN" if np.isnan(values).any() else "infinity"
    raise ValueError(f"Input {name} contains {kind}; olearn learners need finite "
                     f"values (impute or drop those entries first).")


class FeatureRangeError(ValueError):
    """A non-zero row whose squared norm leaves float64's normal range."""


#: biased exponents: every nonzero |x| >= 2**-511 gives ||x||^2 >= 2**-1022
#: (the smallest normal float64) for a nonzero row
_SAFE_MIN_EXPONENT = 1023 - 511


_SHIFT = np.uint64(52)
_EXP_MASK = np.uint64(2047)
_ABS = np.uint64(0x7FFFFFFFFFFFFFFF)


@njit(cache=True)
def _scan(bits):
    """``(n_nonfinite, max biased exponent, min biased exponent of a nonzero)``."""
    nonfinite = 0
    top = np.uint64(0)
    low = _EXP_MASK
    for i in range(bits.shape[0]):
        b = bits[i]
        e = (b >> _SHIFT) & _EXP_MASK
        nonfinite += e == _EXP_MASK
        top = max(top, e)
        low = min(low, e if (b & _ABS) != 0 else _EXP_MASK)
    return nonfinite, top, low


@njit(cache=True)
def _row_sq_range(X, lo, hi):
    """First row whose squared norm is 0 or subnormal while nonzero, or inf; -1 if none."""
    for t in range(X.shape[0]):
        sq = 0.0
        nonzero = False
        for j in range(X.shape[1]):
            sq += X[t, j] * X[t, j]
            nonzero = nonzero or X[t, j] != 0.0
        if (nonzero and sq < lo) or sq > hi:
            return t
    return -1


@njit(cache=True)
def _row_sq_range_csr(data, indptr, lo, hi):
    for t in range(indptr.shape[0] - 1):
        sq = 0.0
        nonzero = False
        for k in range(indptr[t], indptr[t + 1]):
            sq += data[k] * data[k]
            nonzero = nonzero or data[k] != 0.0
        if (nonzero and sq < lo) or sq > hi:
            return t
    return -1


_TINY = float(np.finfo(np.float64).tiny)
_HUGE = float(np.finfo(np.float64).max)


def check_values(X, name="X", row_norms=True):
    """:func:`assert_finite`, and with ``row_norms`` refuse a row whose squared
    norm leaves float64's range.

    A nonzero row with ``||x||^2`` below the smallest normal float64 (features
    around 1e-160 or smaller: the steps ``1/||x||^2`` of PA, ROMMA... overflow
    or the row is learned as zero) or above the largest (features around
    1e154 or larger) raises :class:`FeatureRangeError`.  The same compiled pass
    that finds NaN/inf keeps the largest and smallest nonzero exponents; only
    when those leave the band where no row can fail (every nonzero
    ``|x| >= 2**-511`` and ``n_features * max|x|^2 < 2**1023``, which holds for
    any real data set) are the rows' squared norms computed, in one more pass.
    """
    values = _flat_values(X)
    if values.size == 0:
        return
    nonfinite, top, low = _scan(values.view(np.uint64))
    if nonfinite:
        _raise_nonfinite(values, name)
    if not row_norms:
        return
    n_cols = max(int(X.shape[1]), 1)
    # |x| < 2**(top - 1022), so ||x||^2 < n_cols * 2**(2 (top - 1022))
    high_ok = 2 * (int(top) - 1022) + int(np.ceil(np.log2(n_cols))) < 1023
    if high_ok and int(low) >= _SAFE_MIN_EXPONENT:
        return
    if sp.issparse(X):
        row = _row_sq_range_csr(X.data, X.indptr, _TINY, _HUGE)
    else:
        row = _row_sq_range(np.ascontiguousarray(X).reshape(X.shape[0], -1),
                            _TINY, _HUGE)
    if row < 0:
        return
    x = X[row]
    x = np.abs(x.data if sp.issparse(x) else np.asarray(x)).ravel()
    x = x[x != 0]
    with np.errstate(over="ignore"):
        overflow = np.sum(x * x) > _HUGE
    raise FeatureRangeError(
        f"Row {row} of {name} has a squared norm outside float64's range "
        f"(nonzero |x| from {x.min():.3g} to {x.max():.3g}: ||x||^2 "
        f"{'overflows to inf' if overflow else 'underflows below 2.2e-308'}), "
        f"so the quantities each update needs (||x||^2, steps 1/||x||^2, scores) "
        f"are lost to under- or overflow and the learner would learn nothing or "
        f"reach inf/NaN. Rescale the features first, e.g. with "
        f"sklearn.preprocessing.MaxAbsScaler or StandardScaler (or drop such rows).")


@njit(cache=True)
def _csr_structure(indptr, uindices, n_cols):
    """``(t, 0)`` if ``indptr`` decreases at row ``t`` or passes the end of
    ``indices``, ``(t, 1)`` with ``t >= 0`` if a column of row ``t`` is
    outside ``[0, n_cols)``, else ``(-1, 1)`` when every row's columns are
    strictly increasing (canonical: sorted, no duplicates) and ``(-1, 0)``
    when not.

    ``uindices`` are the indices read as unsigned (a negative column becomes
    huge), so one comparison bounds both ends.  No loop exits early, so each
    is vectorised.  Long rows are walked one by one; for short rows (fewer
    than 32 entries on average, e.g. w7a's 12) the set-up of a loop per row
    dominates, and the used positions are scanned flat instead: the largest
    column and the number of descents ``indices[k] <= indices[k - 1]``, then
    the descents on a row's first position; ``X`` is canonical iff every
    descent is on a row start (0.07 ms instead of 0.26 ms for w7a)."""
    n_rows = indptr.shape[0] - 1
    nnz = uindices.shape[0]
    bad = False
    for t in range(n_rows):
        bad |= indptr[t] > indptr[t + 1]
    if bad or indptr[0] < 0 or indptr[n_rows] > nnz:
        for t in range(n_rows):
            if indptr[t] > indptr[t + 1] or indptr[t + 1] > nnz:
                return t, 0
        return 0, 0
    used = np.uintp(indptr[n_rows])
    if used == 0:
        return -1, 1
    if used >= np.uintp(32 * n_rows):
        canonical = True
        for t in range(n_rows):
            lo = indptr[t]
            hi = indptr[t + 1]
            if hi == lo:
                continue
            prev = uindices[np.uintp(lo)]
            top = prev
            ordered = True
            for k in range(lo + 1, hi):
                j = uindices[np.uintp(k)]
                ordered &= j > prev
                top = max(top, j)
                prev = j
            if top >= n_cols:
                return t, 1
            canonical &= ordered
        return -1, 1 if canonical else 0
    top = uindices[0]
    descents = 0
    for k in range(np.uintp(1), used):
        top = max(top, uindices[k])
        descents += uindices[k] <= uindices[k - np.uintp(1)]
    if top >= n_cols:
        for t in range(n_rows):
            for k in range(indptr[t], indptr[t + 1]):
                if uindices[np.uintp(k)] >= n_cols:
                    return t, 1
    at_starts = 0
    for t in range(1, n_rows):
        k = indptr[t]
        if 0 < k < indptr[t + 1]:
            at_starts += uindices[np.uintp(k)] <= uindices[np.uintp(k - 1)]
    return -1, 1 if descents == at_starts else 0


def check_csr(X, name="X"):
    """Raise ``ValueError`` unless the CSR matrix ``X`` is well formed.

    The compiled loops index the weight vector with ``indices`` unchecked, so
    an out-of-range column would write out of bounds.  One compiled pass over
    ``indptr`` and ``indices`` (:func:`_csr_structure`, about 2 ms for the
    1.5e7 nonzeros of the sparse benchmark stream) checks the structure and
    finds out on the way whether ``X`` is canonical (sorted columns, no
    duplicates); if it is, scipy's flag is set, which spares
    :func:`olearn.base.canonical` scipy's own scan of the indices (4.5 ms
    there).
    """
    if not sp.issparse(X):
        return
    indptr, indices = X.indptr, X.indices
    n_rows, n_cols = X.shape
    if (indptr.shape[0] != n_rows + 1 or indices.shape[0] != X.data.shape[0]
            or (n_rows > 0 and (indptr[0] != 0
                                or indptr[-1] > indices.shape[0]))):
        _raise_malformed_indptr(X, name)
    if n_rows == 0:
        return
    unsigned = np.ascontiguousarray(indices).view(
        np.uint64 if indices.dtype.itemsize == 8 else np.uint32)
    row, canonical = _csr_structure(np.ascontiguousarray(indptr), unsigned,
                                    np.uint64(n_cols))
    if row >= 0 and canonical == 0:
        _raise_malformed_indptr(X, name)
    if row >= 0:
        used = indices[:indptr[-1]]
        raise ValueError(
            f"Input {name} is a malformed CSR matrix: column indices must lie "
            f"in [0, {n_cols}) for its {n_cols} columns, got indices from "
            f"{int(used.min())} to {int(used.max())} (row {row}).")
    if canonical:
        X.has_canonical_format = True


def _raise_malformed_indptr(X, name):
    raise ValueError(
        f"Input {name} is a malformed CSR matrix: indptr must start at 0, "
        f"be non-decreasing and end within indices (got indptr of length "
        f"{X.indptr.shape[0]} for {X.shape[0]} rows, {X.indices.shape[0]} "
        f"indices). Rebuild it with scipy.sparse.csr_matrix.")


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


def available_memory():
    """Bytes of physical memory available now (``MemAvailable`` on Linux, else the
    free pages the OS reports), or None if unknown: what the up-front size checks of
    the full-covariance, batch and kernel learners compare a request with."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


_CSR_TYPES = (sp.csr_matrix, sp.csr_array)


def plain_input(X, y=None):
    """Whether ``X`` (and ``y``) are already what scikit-learn's ``validate_data``
    would return: a C-contiguous 2-D float64 ndarray or a float64 CSR matrix
    (32- or 64-bit indices) with at least one row and one column, and ``y`` a
    1-D numeric ndarray of the same length.

    For such input the estimator base skips ``validate_data`` (about 0.4 ms a
    call, most of it looking for dataframe types): a fit on a small data set
    such as w7a (24,692 rows) then costs its compiled pass plus a few tens of
    microseconds.  Anything else takes scikit-learn's path.
    """
    if type(X) is np.ndarray:
        ok = X.ndim == 2 and X.dtype == np.float64 and X.flags.c_contiguous
    elif type(X) in _CSR_TYPES:
        ok = (X.dtype == np.float64 and X.ndim == 2
              and X.indices.dtype in (np.int32, np.int64)
              and X.indptr.dtype == X.indices.dtype)
    else:
        return False
    if not ok or X.shape[0] < 1 or X.shape[1] < 1:
        return False
    if y is None:
        return True
    return (type(y) is np.ndarray and y.ndim == 1 and y.dtype.kind in "biuf"
            and y.shape[0] == X.shape[0])


def check_binary_labels(labels):
    """scikit-learn's ``check_classification_targets`` for the (at most three)
    distinct numeric labels of ``y``: NaN/inf and non-integer floats
    (a regression target) are refused with scikit-learn's messages."""
    if labels.dtype.kind != "f":
        return
    if not np.isfinite(labels).all():
        raise ValueError("Input y contains NaN." if np.isnan(labels).any() else
                         "Input y contains infinity or a value too large for "
                         "dtype('float64').")
    if (labels != np.floor(labels)).any():
        raise ValueError(
            "Unknown label type: continuous. Maybe you are trying to fit a "
            "classifier, which expects discrete classes on a regression "
            "target with continuous values.")
