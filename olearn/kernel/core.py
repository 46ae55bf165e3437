"""Kernel learners: the model is a support set ``S`` with signed coefficients.

``f(x) = scale * sum_{i in S} beta_i k(s_i, x)``; ``dual_coef_ = scale * beta``.
The scalar ``scale`` lets ROMMA and ALMA shrink the whole function in O(1)
(``f <- a f + b k(x_t, .)``, exactly as the linear learners store ``w = s v``);
it is folded into ``beta`` only when it under- or overflows.

State (numpy arrays, capacity ``cap`` >= the support size ``n``):

``S``        support rows: a transposed 2-D array ``(n_features, cap)``
             (dense streams, one contiguous row per feature, see
             :mod:`olearn.kernel.kernels`) or a CSR triple
             ``(data, indices, indptr)`` (sparse streams, rows kept sparse);
``sv_sq``    cached ``||s_i||^2`` (the Gaussian kernel needs them);
``sv_y``     labels ``y_i`` of the support vectors, +-1;
``beta``     coefficients (``scale * beta_i = y_i gamma_i`` for DUOL);
``f``        DUOL's signed scores ``f_i = y_i f(s_i)``, kept up to date;
``st``       ``[scale, ||f||^2, sum of gamma_i (DUOL's dual), ALMA's k, double updates]``;
``size``     ``[n]``.

A compiled pass (:func:`kernel_pass`) runs the rounds; when the buffers are
full it returns the round it stopped at, Python doubles the buffers and calls
it again, so memory grows with the support set only.  The per-round rules are
in :mod:`olearn.kernel.updates`; the kernel row in :mod:`olearn.kernel.kernels`.

``max_support`` (ours, not the paper's): after an update that makes the
support larger than the budget, the oldest support vector is removed and
``||f||^2`` and DUOL's ``f_i`` are corrected for its removal (one extra kernel
row).  Two learners differ: :class:`olearn.KernelAROW` forgets the oldest
row's covariance update and projects that row's mean term on the remaining
rows (:mod:`olearn.kernel.arow`), and :class:`olearn.OnlineSVM`, which solves
the dual over every example seen, refuses a budget (``ValueError``).

Numeric range, checked off the hot path: a row whose ``||x||^2`` leaves
float64's range is refused by the base before any learning
(:class:`olearn.base.FeatureRangeError`, as for every estimator); with the
polynomial kernel a row whose ``(||x||^2 + |coef0|)^degree`` (a bound on
every kernel value of the row) overflows is refused here before the pass
(:class:`NonFiniteModelError`, the model is left as it was); a Gaussian kernel that
underflowed to 0 on every support vector of every round so far
(``||x - x'||^2 / (2 sigma^2) > 745``: the model is a lookup table of its
support vectors that scores 0 elsewhere).  The compiled passes count such
rounds in ``diag`` (one comparison per kernel value); any other non-finite
model is refused by the base.

All kernel learners share the constructor and the parameter checks of
:class:`KernelClassifier` (``kernel``, ``sigma``, ``degree``, ``coef0``,
``max_support``, ``n_epochs``, ``shuffle``, ``random_state``, ``record``);
each adds its own through ``_check_rule_params`` with the helpers below.
"""
import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from numba import njit

from .._checks import available_memory
from ..base import NonFiniteModelError, OnlineClassifier
from .kernels import (CALLABLE, POLY, RBF, _finish_row, check_kernel_params,
                      checked_call, column_dots, kernel_matrix, kernel_row, kernel_value, row_sq,
                      squared_norms, store_drop_first, store_dots, store_fits,
                      store_put, support_kernel_row)
from .updates import (DUOL_RULE, HP_RHO, NDOUBLE, SCALE, SQNORM, SUMGAMMA,
                      apply_round, duol_auxiliary, forget_first, predict_score)

__all__ = ["KernelClassifier", "NumericRangeWarning", "kernel_pass"]

#: rounds with a support set after which an all-underflowed Gaussian kernel warns
UNDERFLOW_ROUNDS = 5


class NumericRangeWarning(RuntimeWarning):
    """The data or a kernel width leave float64's useful range (rescale X)."""


@njit(cache=True)
def kernel_pass(rule, X, y, start, S, sv_sq, sv_y, beta, f, st, size, mistakes,
                margins, kind, sigma, degree, coef0, hp, max_support, work, row,
                row2, diag):
    """Rounds ``start..`` of the stream; returns ``(stop, n_updates)``.

    ``stop < len(y)`` means the buffers are full before round ``stop``.
    ``diag`` counts ``[rounds with a support set, rounds whose Gaussian
    kernel row underflowed to 0 everywhere]``.
    """
    n_updates = 0
    n = size[0]
    for t in range(start, y.shape[0]):
        if n + 1 >= sv_y.shape[0] or not store_fits(S, n, X, t):
            size[0] = n
            return t, n_updates
        sq_t = row_sq(X, t)
        kxx = kernel_value(kind, sq_t, sq_t, sq_t, sigma, degree, coef0)
        if kernel_row(kind, sigma, degree, coef0, S, n, sv_sq, X, t, sq_t, work,
                      row):
            diag[1] += 1
        diag[0] += n > 0
        score = predict_score(beta, row, n, st)
        mistakes[t] = (score > 0.0) != (y[t] > 0.0)
        margins[t] = y[t] * score
        b = -1
        if rule == DUOL_RULE and y[t] * score < 1.0:
            b = duol_auxiliary(y[t], row, n, sv_y, f, hp[HP_RHO])
            if b >= 0:
                support_kernel_row(kind, sigma, degree, coef0, S, n, sv_sq, b,
                                   work, row2)
        status = apply_round(rule, y[t], score, kxx, row, row2, n, b, beta,
                             sv_y, f, st, hp)
        if status == 0:
            continue
        n_updates += 1
        if status == 3:  # ROMMA dropped the old function: the new SV is slot 0
            n = 0
        store_put(S, n, X, t)
        sv_sq[n] = sq_t
        n += 1
        if max_support > 0 and n > max_support:
            support_kernel_row(kind, sigma, degree, coef0, S, n, sv_sq, 0,
                               work, row2)
            forget_first(n, row2, beta, sv_y, sv_sq, f, st)
            store_drop_first(S, n)
            n -= 1
    size[0] = n
    return y.shape[0], n_updates


@njit(cache=True)
def support_scores(kind, sigma, degree, coef0, C, n, sv_sq, beta, st, X, row,
                   out):
    """``out[t] = f(x_t)`` for every row of ``X`` (dense in any order, or a CSR
    triple with any index type) from the support set by columns ``C``
    (:func:`column_dots`), each row scored as a round of :func:`kernel_pass`
    scores it: the inner products in the order of the features, the kernel
    values of :func:`kernel_row`, the sum over the support vectors of
    :func:`predict_score`.  So a row's score does not depend on the layout,
    on the other rows of the batch or on the host (no BLAS), and
    ``decision_function`` is the score fit gives the row."""
    for t in range(out.shape[0]):
        sq_t = row_sq(X, t)
        column_dots(C, n, X, t, row)
        _finish_row(kind, sigma, degree, coef0, n, sv_sq, sq_t, row)
        out[t] = predict_score(beta, row, n, st)


@njit(cache=True)
def matrix_scores(K, beta, n, st, out):
    """``out[t] = f(x_t)`` from kernel rows ``K[t]`` (callable kernels), summed
    as :func:`predict_score` sums a round of fit."""
    for t in range(out.shape[0]):
        out[t] = predict_score(beta, K[t], n, st)


@njit(cache=True)
def put_row(S, n, X, t):
    """:func:`store_put` for the Python loop of callable kernels."""
    store_put(S, n, X, t)


@njit(cache=True)
def drop_first(S, n):
    """:func:`store_drop_first` for the Python loop of callable kernels."""
    store_drop_first(S, n)


@njit(cache=True)
def fits(S, n, X, t):
    return store_fits(S, n, X, t)


@njit(cache=True)
def dots(S, n, X, t, work, out):
    store_dots(S, n, X, t, work, out)


def _as_csr_triple(X, n_features):
    if isinstance(X, tuple):
        return X
    M = sp.csr_matrix(X)
    return (M.data, M.indices, M.indptr)


# -- parameter checks shared by the kernel learners ------------------------------
def check_integer(name, value, minimum):
    """Raise unless ``value`` is an integer >= ``minimum``."""
    if (not isinstance(value, numbers.Integral) or isinstance(value, bool)
            or value < minimum):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")


def check_choice(name, value, choices):
    """Raise unless ``value`` is one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}.")


def check_interval(name, value, low, high, closed_high=False):
    """Raise unless ``value`` is a real number in ``[low, high)`` (``[low, high]``)."""
    ok = (isinstance(value, numbers.Real) and not isinstance(value, bool)
          and np.isfinite(value) and low <= value
          and (value <= high if closed_high else value < high))
    if not ok:
        bracket = "]" if closed_high else ")"
        raise ValueError(f"{name} must be a number in [{low}, {high}{bracket}, "
                         f"got {value!r}.")


def norm_range(X, kind=RBF, degree=1, coef0=0.0):
    """``(first row whose ||x||^2 overflows or -1, rows whose ||x||^2 underflows
    to 0 although x != 0)`` of a batch (dense array or CSR triple).  For the
    polynomial kernel a row "overflows" when ``(||x||^2 + |coef0|)^degree``
    does: it bounds every kernel value of the row (Cauchy-Schwarz)."""
    with np.errstate(over="ignore", under="ignore"):
        if isinstance(X, tuple):
            data, _, indptr = X
            sq = np.zeros(indptr.shape[0] - 1)
            starts = indptr[:-1]
            rows = np.flatnonzero(indptr[1:] > starts)
            if rows.size:
                sq[rows] = np.add.reduceat(data * data, starts[rows])
        else:
            sq = squared_norms(X)
    if np.isfinite(sq).all() and kind == POLY:  # |x.x'| <= max(||x||^2, ||x'||^2)
        with np.errstate(over="ignore"):
            sq = (sq + abs(coef0)) ** degree
    over = np.flatnonzero(~np.isfinite(sq))
    if isinstance(X, tuple):
        zero = np.flatnonzero((sq == 0.0) & (indptr[1:] > indptr[:-1]))
        tiny = sum(bool(np.any(data[indptr[r]:indptr[r + 1]] != 0.0)) for r in zero)
    else:
        zero = np.flatnonzero(sq == 0.0)
        tiny = int(np.count_nonzero(np.any(X[zero] != 0.0, axis=1))) if zero.size else 0
    return (int(over[0]) if over.size else -1), tiny


class KernelClassifier(OnlineClassifier):
    """Base of the learners whose model is a support set (see the module docstring).

    Subclasses set ``_rule`` (a code of :mod:`olearn.kernel.updates`) and
    ``_hyper()`` (the float array of their hyper-parameters), call
    ``super().__init__`` with the common parameters and validate their own in
    ``_check_rule_params``.
    """

    _rule = None
    #: the support set was built with these: the base refuses a change between
    #: partial_fit calls (FrozenParameterError); fit starts afresh
    _frozen_params = ("kernel", "sigma", "degree", "coef0")
    #: callable kernels run a Python loop of the rules of olearn.kernel.updates
    _accepts_callable = True

    def __init__(self, *, kernel="rbf", sigma=8.0, degree=3, coef0=1.0,
                 max_support=None, n_epochs=1, shuffle=False, random_state=None,
                 record="full"):
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.max_support = max_support
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    # -- parameters ------------------------------------------------------
    def _check_params(self):
        self._kind = check_kernel_params(self.kernel, self.sigma, self.degree,
                                         self.coef0)
        if self._kind == CALLABLE and not self._accepts_callable:
            raise ValueError(f"{type(self).__name__} supports the built-in "
                             f"kernels only ('rbf', 'linear', 'poly'), not a "
                             f"callable.")
        if self.max_support is not None:
            check_integer("max_support", self.max_support, 1)
        self._check_rule_params()

    def _check_rule_params(self):
        """Validate the learner's own hyper-parameters (subclasses)."""

    def _kernel_args(self):
        kind = check_kernel_params(self.kernel, self.sigma, self.degree, self.coef0)
        sigma = float(self.sigma) if kind == RBF else 1.0
        degree = float(self.degree) if kind == 2 else 1.0
        coef0 = float(self.coef0) if kind == 2 else 0.0
        return kind, sigma, degree, coef0

    # -- state -----------------------------------------------------------
    def _init_state(self, n_features):
        self._columns = [None]
        self._n_features = n_features
        self._sparse = None
        self._S = None
        self._cap = 0
        self._alloc(0, 0)
        self._st = np.array([1.0, 0.0, 0.0, 1.0, 0.0])
        self._size = np.zeros(1, dtype=np.int64)
        self._work = np.zeros(n_features)
        #: [rounds with a support set, of them with an all-zero Gaussian row]
        self._diag = np.zeros(2, dtype=np.int64)
        self._warned_underflow = False

    def _alloc(self, cap, nnz_cap):
        """(Re)allocate the buffers at ``cap`` rows (``nnz_cap`` CSR values)."""
        n = 0 if self._S is None else int(self._size[0])
        old = None if self._S is None else (self._S, self._sv_sq, self._sv_y,
                                            self._beta, self._f)
        cap = max(cap, 2)
        if self._sparse:
            data = np.zeros(max(nnz_cap, 1))
            indices = np.zeros(max(nnz_cap, 1), dtype=np.int64)
            indptr = np.zeros(cap + 1, dtype=np.int64)
            if old is not None:
                odata, oindices, oindptr = old[0]
                used = int(oindptr[n])
                data[:used] = odata[:used]
                indices[:used] = oindices[:used]
                indptr[:n + 1] = oindptr[:n + 1]
            S = (data, indices, indptr)
        else:
            S = np.zeros((self._n_features, cap))  # transposed: one row per feature
            if old is not None and not isinstance(old[0], tuple):
                S[:, :n] = old[0][:, :n]
        arrays = [np.zeros(cap) for _ in range(4)]
        if old is not None:
            for new, prev in zip(arrays, old[1:]):
                new[:n] = prev[:n]
        self._S = S
        self._sv_sq, self._sv_y, self._beta, self._f = arrays
        self._row = np.zeros(cap)
        self._row2 = np.zeros(cap)
        self._cap = cap
        self._extra_alloc(cap, n)

    def _extra_alloc(self, cap, n):
        """Further per-capacity buffers (OnlineSVM's Gram matrix)."""

    def _quadratic_bytes(self, cap):
        """Bytes of the ``cap x cap`` buffers a learner keeps (OnlineSVM, KernelAROW)."""
        return 0

    def _check_memory(self, n_rows):
        """Refuse, before any allocation, a batch whose support set could not fit.

        The support set can grow by one row per round; learners that keep a
        ``cap x cap`` matrix need ``_quadratic_bytes`` of it at the largest
        capacity the batch can reach, plus the copy of the previous (half as
        large) one while the buffers grow.
        """
        n = int(self._size[0])
        most = n + n_rows if self.max_support is None else min(
            n + n_rows, int(self.max_support) + 1)
        need = self._quadratic_bytes(most + 2) + self._quadratic_bytes(most // 2 + 1)
        if need == 0:
            return
        available = available_memory()
        if available is None or need <= available:
            return
        fits = int(np.sqrt(available / (1.25 * self._quadratic_bytes(1))))
        budget = ("max_support" if self._budget_allowed else
                  "fewer rows (each row seen is kept)")
        raise MemoryError(
            f"{type(self).__name__} keeps a {most:,} x {most:,} float64 matrix for "
            f"a support set that can reach {most:,} rows in this call "
            f"({need / 2**30:.1f} GiB with the copy made while it grows), more "
            f"than the {available / 2**30:.1f} GiB of memory available. "
            + (f"Set max_support (at most about {fits:,} fits now), or learn "
               f"from fewer rows." if self._budget_allowed else
               f"Learn from {budget}; at most about {fits:,} rows fit now."))

    _budget_allowed = True

    def _grow(self, X, t):
        n = int(self._size[0])
        cap = max(2 * self._cap, n + 4, 16)
        if self.max_support is not None:
            cap = min(cap, int(self.max_support) + 4)
        quadratic = self._quadratic_bytes(cap) + self._quadratic_bytes(self._cap)
        available = available_memory() if quadratic else None
        if available is not None and quadratic > available:
            # doubling would overshoot what _check_memory allowed: grow to the
            # rows this batch can still add
            rows = X[2].shape[0] - 1 if isinstance(X, tuple) else X.shape[0]
            cap = min(cap, n + (rows - t) + 4)
        nnz_cap = 0
        if self._sparse:
            data, _, indptr = self._S
            used = int(indptr[n])
            row_nnz = int(X[2][t + 1] - X[2][t])
            nnz_cap = max(2 * data.shape[0], used + row_nnz + 1, 64)
            if n + 2 < self._cap:
                cap = self._cap
        self._alloc(max(cap, n + 4), nnz_cap)

    def _batch(self, X):
        """The batch in the layout of the store (fixed by the first batch)."""
        sparse = isinstance(X, tuple)
        if self._sparse is None:
            self._sparse = sparse
            self._S = None
            self._alloc(16, 16 * 8)
            self._size[0] = 0
        if self._sparse and not sparse:
            return _as_csr_triple(X, self._n_features)
        if not self._sparse and sparse:
            n_rows = X[2].shape[0] - 1
            return sp.csr_matrix(X, shape=(n_rows, self._n_features)).toarray()
        return X

    def _hyper(self):
        return np.zeros(8)

    def _check_range(self, X):
        """Refuse rows whose ``||x||^2`` overflows; warn about ones that underflow."""
        kind, _, degree, coef0 = self._kernel_args()
        over, tiny = norm_range(X, kind, degree, coef0)
        if over >= 0:
            what = ("(||x||^2 + |coef0|)^degree, a bound of its polynomial kernel "
                    "values," if kind == POLY else "||x||^2")
            raise NonFiniteModelError(
                f"{type(self).__name__}: {what} of row {over} of this batch "
                f"(round {self.n_rounds_ + over} of the stream) overflows "
                f"float64, so its kernel values are not finite. Scale the "
                f"features (e.g. sklearn.preprocessing.MaxAbsScaler or "
                f"StandardScaler) and refit; the model is left as it was "
                f"before this batch.")
        if tiny:
            warnings.warn(
                f"{type(self).__name__}: ||x||^2 underflows to 0 for {tiny} "
                f"non-zero row(s) of this batch: the kernel sees them as the "
                f"zero vector. Scale the features (e.g. "
                f"sklearn.preprocessing.MaxAbsScaler or StandardScaler).",
                NumericRangeWarning, stacklevel=5)

    def _check_underflow(self):
        """Warn once when the Gaussian kernel underflowed on every round so far."""
        seen, zero = int(self._diag[0]), int(self._diag[1])
        if (self._warned_underflow or seen < UNDERFLOW_ROUNDS or zero < seen):
            return
        self._warned_underflow = True
        warnings.warn(
            f"{type(self).__name__}: the Gaussian kernel k(x, x') = "
            f"exp(-||x - x'||^2 / (2 sigma^2)) underflowed to 0 against every "
            f"support vector on all {seen} rounds that had one "
            f"(||x - x'||^2 / (2 sigma^2) > 745 with sigma={self.sigma!r}): "
            f"the model only memorises its support vectors and scores 0 "
            f"everywhere else. Rescale X (e.g. StandardScaler) or increase "
            f"sigma (to about the typical distance between rows).",
            NumericRangeWarning, stacklevel=5)

    def _learn(self, X, y, mistakes, margins):
        self._columns = [None]   # the store is about to change: a new cache
        if self._kind != CALLABLE:
            self._check_range(X)
        self._check_memory(y.shape[0])
        X = self._batch(X)
        if self._kind == CALLABLE:
            return self._python_pass(X, y, mistakes, margins)
        total = self._compiled_learn(X, y, mistakes, margins)
        self._check_underflow()
        return total

    def _compiled_learn(self, X, y, mistakes, margins):
        kind, sigma, degree, coef0 = self._kernel_args()
        hp = self._hyper()
        budget = 0 if self.max_support is None else int(self.max_support)
        t, total = 0, 0
        while t < y.shape[0]:
            t, n_updates = kernel_pass(
                self._rule, X, y, t, self._S, self._sv_sq, self._sv_y,
                self._beta, self._f, self._st, self._size, mistakes, margins,
                kind, sigma, degree, coef0, hp, budget, self._work, self._row,
                self._row2, self._diag)
            total += n_updates
            if t < y.shape[0]:
                self._grow(X, t)
        return total

    # -- callable kernels: one Python call per round --------------------------
    def _rows_matrix(self, X, start, stop):
        if isinstance(X, tuple):
            data, indices, indptr = X
            lo, hi = indptr[start], indptr[stop]
            return sp.csr_matrix((data[lo:hi], indices[lo:hi],
                                  indptr[start:stop + 1] - lo),
                                 shape=(stop - start, self._n_features))
        return X[start:stop]

    def _support_matrix(self):
        """The support rows ``(n, n_features)`` (a view of the store)."""
        n = int(self._size[0])
        if isinstance(self._S, tuple):
            return self._rows_matrix(self._S, 0, n)
        return self._S[:, :n].T

    def _python_pass(self, X, y, mistakes, margins):
        hp = self._hyper()
        budget = 0 if self.max_support is None else int(self.max_support)
        n_updates = 0
        for t in range(y.shape[0]):
            n = int(self._size[0])
            while n + 1 >= self._cap or not fits(self._S, n, X, t):
                self._grow(X, t)
            x_t = self._rows_matrix(X, t, t + 1)
            kxx = float(checked_call(self.kernel, x_t, x_t)[0, 0])
            if n:
                self._row[:n] = checked_call(self.kernel, x_t,
                                             self._support_matrix())[0]
            score = predict_score(self._beta, self._row, n, self._st)
            mistakes[t] = (score > 0.0) != (y[t] > 0.0)
            margins[t] = y[t] * score
            b = -1
            if self._rule == DUOL_RULE and y[t] * score < 1.0:
                b = duol_auxiliary(y[t], self._row, n, self._sv_y, self._f,
                                   hp[HP_RHO])
                if b >= 0:
                    S = self._support_matrix()
                    self._row2[:n] = checked_call(self.kernel, S[b:b + 1], S)[0]
            status = apply_round(self._rule, y[t], score, kxx, self._row,
                                 self._row2, n, b, self._beta, self._sv_y,
                                 self._f, self._st, hp)
            if status == 0:
                continue
            n_updates += 1
            if status == 3:
                n = 0
            put_row(self._S, n, X, t)
            n += 1
            self._size[0] = n
            if budget and n > budget:
                S = self._support_matrix()
                self._row2[:n] = checked_call(self.kernel, S[0:1], S)[0]
                forget_first(n, self._row2, self._beta, self._sv_y, self._sv_sq,
                             self._f, self._st)
                drop_first(self._S, n)
                self._size[0] = n - 1
        return n_updates

    # -- the fitted model -------------------------------------------------------
    def _support_mask(self):
        return None

    @property
    def n_support_(self):
        """Number of support vectors."""
        mask = self._support_mask()
        return int(self._size[0]) if mask is None else int(np.count_nonzero(mask))

    @property
    def support_vectors_(self):
        """The support rows, ``(n_support_, n_features)``, dense or CSR as the stream."""
        S = self._support_matrix()
        S = np.ascontiguousarray(S) if not sp.issparse(S) else S.copy()
        mask = self._support_mask()
        return S if mask is None else S[np.flatnonzero(mask)]

    @property
    def dual_coef_(self):
        """Signed coefficients ``(1, n_support_)``: ``f(x) = sum_i dual_coef_i k(s_i, x)``."""
        n = int(self._size[0])
        coef = self._st[SCALE] * self._beta[:n]
        mask = self._support_mask()
        return (coef if mask is None else coef[mask])[np.newaxis, :]

    @property
    def n_double_updates_(self):
        """DUOL: updates that also changed an auxiliary example."""
        return int(self._st[NDOUBLE])

    def _model_arrays(self):
        n = int(self._size[0])
        return (self._beta[:n], self._st)

    def _scoring_rows(self):
        """``(S, n, sv_sq, beta)``: the support rows that score (OnlineSVM
        leaves out those whose coefficient is 0)."""
        return self._S, int(self._size[0]), self._sv_sq, self._beta

    def _scoring_columns(self):
        """``(C, n, sv_sq, beta)`` with the support rows by columns (see
        :func:`column_dots`): the transposed dense store as it is; a CSR
        store's CSC form, built once per fitted state (O(nnz + d)) and kept
        until the next ``fit``/``partial_fit``."""
        # a holder made by _learn: filling it leaves the estimator's __dict__
        # as it was (scoring changes no attribute, scikit-learn's convention)
        holder = self.__dict__.get("_columns") or [None]
        if holder[0] is None:
            S, n, sv_sq, beta = self._scoring_rows()
            if isinstance(S, tuple):
                M = self._rows_matrix(S, 0, n).tocsc()   # rows sorted in each column
                S = (M.indptr.astype(np.int64), M.indices.astype(np.int64), M.data)
            holder[0] = (S, n, sv_sq, beta)
        return holder[0]

    def _decision(self, X):
        """``f(x)`` of every row in one summation order for every layout (see
        :func:`support_scores`); never a matrix product (BLAS sums in an order
        that follows the layout, the number of rows and the host)."""
        out = np.zeros(X.shape[0])
        kind, sigma, degree, coef0 = self._kernel_args()
        if kind == CALLABLE:
            # the kernel values are the callable's; their sum is fit's
            S, n, _, beta = self._scoring_rows()
            if n == 0:
                return out
            Sm = (self._rows_matrix(S, 0, n) if isinstance(S, tuple)
                  else S[:, :n].T)
            step = max(1, 2_000_000 // n)
            for lo in range(0, X.shape[0], step):
                K = checked_call(self.kernel, X[lo:lo + step], Sm)
                matrix_scores(K, beta, n, self._st, out[lo:lo + step])
            return out
        C, n, sv_sq, beta = self._scoring_columns()
        if n == 0:
            return out
        Xc = (X.data, X.indices, X.indptr) if sp.issparse(X) else X
        support_scores(kind, sigma, degree, coef0, C, n, sv_sq, beta, self._st,
                       Xc, np.zeros(n), out)
        return out

    def norm_squared_(self):
        """``||f||^2`` from the Gram matrix of the support set (a check of the
        tracked ``st[1]``)."""
        n = int(self._size[0])
        if n == 0:
            return 0.0
        S = self._support_matrix()
        K = kernel_matrix(S, S, self.kernel, self.sigma, self.degree, self.coef0)
        coef = self._st[SCALE] * self._beta[:n]
        return float(coef @ K @ coef)

