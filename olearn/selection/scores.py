"""Feature scores: information gain (single features and pairs) and chi-square.

Information gain (Shen and Dietterich 2009, section 4; Yang and Pedersen 1997)
    of the label ``y`` given one binarised feature ``b_j = [x_j > threshold]``,

        IG(j) = I(y; b_j) = H(y) - H(y | b_j)                           (nats),

    computed from counts: with ``n_ce`` the number of rows of class ``c`` in
    cell ``e`` of the feature(s), ``n_c`` and ``n_e`` the margins, ``n`` the
    total,

        I = (1/n) [ sum_ce n_ce log n_ce - sum_e n_e log n_e
                    - sum_c n_c log n_c + n log n ].

    Ties.  A table with ``n_ce n = n_c n_e`` in every cell (the feature is
    independent of the label on the rows seen) has ``I = 0`` exactly (tested
    in integers), and the sums are taken in an order fixed by the multiset of
    counts, so equal tables (a feature, its complement, a copy) have equal
    gains.  Features of equal gain are ranked by lower index.

Pair information gain
    ``M[i, j] = I(y; (b_i, b_j))``, four cells per pair: the reward matrix of
    the game (4.20) (:mod:`olearn.selection.game_theoretic`).  ``M`` is
    symmetric and ``M[i, i] = IG(i)``.

Chi-square (Carvalho and Cohen 2006, Figures 7-8, after Yang and Pedersen 1997)
    of the 2 x 2 table (term present/absent x class), :func:`chi_square`.
    scikit-learn's ``chi2`` is *not* this quantity: it sums feature values per
    class and compares only the "present" cells with their expectation,
    ignoring the "absent" cells, so olearn computes the 2 x 2 statistic itself
    (checked against ``scipy.stats.chi2_contingency``).
"""
import numbers

import numpy as np
import scipy.sparse as sp
from numba import njit
from scipy.special import xlogy
from sklearn.utils.validation import check_array, check_consistent_length

_NLOGN = [np.zeros(1)]


# -- binarisation and information gain ----------------------------------------
def binarize(X, threshold=0.0):
    """0/1 indicators ``[x_j > threshold]``, dense or CSR like ``X``.

    ``threshold=0`` gives ``x_j != 0`` for non-negative data (0/1 or counts
    of text) and "ink" (darker than mid-grey) for USPS grey levels in [-1, 1].
    A negative threshold would turn the implicit zeros of a sparse matrix on,
    so it is refused for CSR input.
    """
    if sp.issparse(X):
        if threshold < 0:
            raise ValueError(
                f"threshold={threshold!r} < 0 would make every implicit zero "
                f"of the sparse input 'on' (a dense indicator matrix); pass "
                f"dense X or a threshold >= 0.")
        B = sp.csr_matrix(X, dtype=np.float64, copy=True)
        B.data = (B.data > threshold).astype(np.float64)
        B.eliminate_zeros()
        return B
    return (np.asarray(X) > threshold).astype(np.float64)


def _nlogn_table(class_totals):
    """``[c log c for c = 0, 1, ..., >= n]``: the kernels' counts are integers.

    Kept between calls and grown by doubling, so a long stream builds it
    O(log n) times.
    """
    n = int(round(np.sum(class_totals)))
    if _NLOGN[0].size <= n:
        counts = np.arange(max(n + 1, 2 * _NLOGN[0].size), dtype=np.float64)
        _NLOGN[0] = xlogy(counts, counts)
    return _NLOGN[0]


@njit(cache=True)
def _class_term(class_totals, nlogn):
    """``(n log n - sum_c n_c log n_c, n)``: the cell-free part of ``n I``."""
    n = 0
    term = 0.0
    for c in range(class_totals.shape[0]):
        n += int(class_totals[c])
        term -= nlogn[int(class_totals[c])]
    return term + nlogn[n], n


@njit(cache=True)
def _sorted_sum(values, n):
    """``sum(values[:n])`` added in increasing order (sorts ``values[:n]`` in place).

    The order is a function of the multiset of values only, so two tables with
    the same cell counts give bit-identical sums.
    """
    for i in range(1, n):
        v = values[i]
        j = i - 1
        while j >= 0 and values[j] > v:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = v
    total = 0.0
    for i in range(n):
        total += values[i]
    return total


@njit(cache=True)
def _table_ig(cells, class_totals, margins, n_cells, n, base, nlogn, terms):
    """``I`` of one contingency table, exactly 0 for an independent table.

    ``cells[c * n_cells + e]`` counts class ``c`` in cell ``e``, ``margins[e]``
    the cell totals.  Independence (``n_ce n = n_c n_e`` for every cell, in
    integers) gives 0 exactly; otherwise the count formula is summed in a
    canonical order (:func:`_sorted_sum`), so equal tables -- up to a
    relabelling of the cells, e.g. a feature and its complement -- give equal
    gains, not gains that differ by rounding.
    """
    n_classes = class_totals.shape[0]
    independent = True
    k = 0
    for c in range(n_classes):
        for e in range(n_cells):
            count = cells[c * n_cells + e]
            if count * n != int(class_totals[c]) * margins[e]:
                independent = False
            terms[k] = nlogn[count]
            k += 1
    if independent:
        return 0.0
    acc = _sorted_sum(terms, k)
    for e in range(n_cells):
        terms[e] = nlogn[margins[e]]
    acc -= _sorted_sum(terms, n_cells)
    return max((acc + base) / n, 0.0)


@njit(cache=True)
def _single_ig_kernel(class_totals, ones, nlogn):
    """``IG(j) = I(y; b_j)`` by the count formula, two cells per feature."""
    base, n = _class_term(class_totals, nlogn)
    n_classes, d = ones.shape
    ig = np.zeros(d)
    if n == 0:
        return ig
    cells = np.zeros(2 * n_classes, dtype=np.int64)
    margins = np.zeros(2, dtype=np.int64)
    terms = np.zeros(2 * n_classes)
    for j in range(d):
        margins[0] = 0
        for c in range(n_classes):
            on = int(ones[c, j])
            cells[2 * c] = on
            cells[2 * c + 1] = int(class_totals[c]) - on
            margins[0] += on
        margins[1] = n - margins[0]
        ig[j] = _table_ig(cells, class_totals, margins, 2, n, base, nlogn,
                          terms)
    return ig


@njit(cache=True)
def _pair_ig_kernel(class_totals, ones, pairs, nlogn):
    """``M[i, j] = I(y; (b_i, b_j))`` by the count formula, 4 cells a pair."""
    base, n = _class_term(class_totals, nlogn)
    n_classes, m = ones.shape
    M = np.zeros((m, m))
    if n == 0:
        return M
    cells = np.zeros(4 * n_classes, dtype=np.int64)
    margins = np.zeros(4, dtype=np.int64)
    terms = np.zeros(4 * n_classes)
    for i in range(m):
        for j in range(i, m):
            margins[:] = 0
            for c in range(n_classes):
                both = int(pairs[c, i, j])
                only_i = int(ones[c, i]) - both
                only_j = int(ones[c, j]) - both
                neither = int(class_totals[c]) - both - only_i - only_j
                cells[4 * c] = both
                cells[4 * c + 1] = only_i
                cells[4 * c + 2] = only_j
                cells[4 * c + 3] = neither
                margins[0] += both
                margins[1] += only_i
                margins[2] += only_j
                margins[3] += neither
            M[i, j] = M[j, i] = _table_ig(cells, class_totals, margins, 4, n,
                                          base, nlogn, terms)
    return M


def _single_ig(class_totals, ones):
    """IG (d,) from ``n_c`` (C,) and per-class on-counts ``ones`` (C, d)."""
    class_totals = np.asarray(class_totals, dtype=np.float64)
    return _single_ig_kernel(class_totals, np.ascontiguousarray(ones),
                             _nlogn_table(class_totals))


def _pair_ig(class_totals, ones, pairs):
    """``M`` (m, m) from ``n_c`` (C,), ``ones`` (C, m), ``pairs`` (C, m, m)."""
    class_totals = np.asarray(class_totals, dtype=np.float64)
    return _pair_ig_kernel(class_totals, np.ascontiguousarray(ones),
                           np.ascontiguousarray(pairs),
                           _nlogn_table(class_totals))


def _top_features(scores, k):
    """The ``k`` largest scores' indices (ties: lower index), sorted; O(d)."""
    if k >= scores.size:
        return np.arange(scores.size)
    cut = np.partition(scores, scores.size - k)[scores.size - k]
    above = np.flatnonzero(scores > cut)
    at_cut = np.flatnonzero(scores == cut)[:k - above.size]
    return np.sort(np.r_[above, at_cut])


def _check_threshold(threshold):
    if (not isinstance(threshold, numbers.Real) or isinstance(threshold, bool)
            or not np.isfinite(threshold)):
        raise ValueError(f"threshold must be a finite number, got "
                         f"{threshold!r}.")


def _class_counts(X, y, threshold):
    """Binarised ``X``, per-class row masks, ``n_c`` and on-counts (C, d)."""
    _check_threshold(threshold)
    X = check_array(X, accept_sparse="csr", dtype=np.float64)
    y = np.asarray(y).ravel()
    check_consistent_length(X, y)
    B = binarize(X, threshold)
    rows = [y == label for label in np.unique(y)]
    class_totals = np.array([r.sum() for r in rows], dtype=np.float64)
    ones = np.vstack([np.asarray(B[r].sum(axis=0)).ravel() for r in rows])
    return B, rows, class_totals, ones


def information_gain(X, y, *, threshold=0.0):
    """Information gain (nats) of the label given each binarised feature.

    Parameters
    ----------
    X : array or CSR matrix, shape (n_samples, n_features)
        Sparse input stays sparse (counts are column sums).
    y : array, shape (n_samples,)
        Class labels (any number of classes; the paper's are binary).
    threshold : float, default=0.0
        A feature is "on" iff ``x_j > threshold`` (see :func:`binarize`).

    Returns
    -------
    ig : ndarray, shape (n_features,)
        ``I(y; [x_j > threshold])`` in nats (divide by ``log 2`` for bits);
        equals ``sklearn.feature_selection.mutual_info_classif`` with
        ``discrete_features=True`` on the binarised features.
    """
    _, _, class_totals, ones = _class_counts(X, y, threshold)
    return _single_ig(class_totals, ones)


def pair_information_gain(X, y, *, threshold=0.0, features=None):
    """Reward matrix of problem (4.20): IG of the label given feature pairs.

    ``M[i, j] = I(y; (b_i, b_j))`` in nats with ``b = [x > threshold]``, from
    the per-class co-occurrence counts ``B_c^T B_c``.  ``M`` is symmetric and
    its diagonal is :func:`information_gain`.  Memory is O(m^2) for ``m``
    features: restrict ``features`` (e.g. to the top features by single IG)
    when ``n_features`` is large.

    Parameters
    ----------
    features : array of int or None
        Column indices to build ``M`` on (all columns if None).

    Returns
    -------
    M : ndarray, shape (m, m)
    """
    B, rows, class_totals, ones = _class_counts(X, y, threshold)
    if features is None:
        features = np.arange(B.shape[1])
    features = np.asarray(features, dtype=np.intp)
    pairs = np.stack([_cooccurrence(B[r][:, features]) for r in rows])
    return _pair_ig(class_totals, ones[:, features], pairs)


def _cooccurrence(B):
    """``B^T B`` as a dense array (B dense or CSR)."""
    P = B.T @ B
    return P.toarray() if sp.issparse(P) else np.asarray(P)



def chi_square(X, y, *, threshold=0.0):
    """Chi-square of the 2 x 2 table [x_j > threshold] x class (Yang and Pedersen 1997).

    ``chi2 = N (A D - C B)^2 / ((A + C)(B + D)(A + B)(C + D))`` with A (B) the
    positive (negative) rows where the feature is on, C (D) where it is off;
    0 where a margin of the table is empty.  Binary ``y`` only.
    """
    y = np.asarray(y)
    labels = np.unique(y)
    if labels.size != 2:
        raise ValueError(f"chi_square needs two classes, got {labels.size}.")
    pos = y == labels[1]
    on = (X > threshold)
    if sp.issparse(on):
        on = on.tocsr().astype(np.float64)
        A = np.asarray(on[pos].sum(axis=0)).ravel()
        B = np.asarray(on[~pos].sum(axis=0)).ravel()
    else:
        on = np.asarray(on, dtype=np.float64)
        A, B = on[pos].sum(axis=0), on[~pos].sum(axis=0)
    n_pos, n_neg = float(pos.sum()), float((~pos).sum())
    C, D = n_pos - A, n_neg - B
    N = n_pos + n_neg
    denom = (A + C) * (B + D) * (A + B) * (C + D)
    num = N * (A * D - C * B) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denom > 0, num / np.where(denom > 0, denom, 1.0), 0.0)
