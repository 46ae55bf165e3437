"""Kernel learners: the model is a support set ``S`` with signed coefficients.

``f(x) = scale * sum_{i in S} beta_i k(s_i, x)``; ``dual_coef_ = scale * beta``.
The scalar ``scale`` lets ROMMA and ALMA shrink the whole function in O(1)
(``f <- a f + b k(x_t, .)``, exactly as the linear learners store ``w = s v``);
it is folded into ``beta`` only when it under- or overflows.

State (numpy arrays, capacity ``cap`` >= the support size ``n``):

``S``        support rows: a 2-D array (dense streams) or a CSR triple
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
row).
"""
import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from numba import njit

from ..base import OnlineClassifier
from .kernels import (CALLABLE, check_kernel_params, checked_call, kernel_matrix,
                      kernel_row, kernel_value, row_sq, store_drop_first,
                      store_dots, store_fits, store_put)
from .updates import (DUOL_RULE, HP_RHO, NDOUBLE, SCALE, SQNORM, SUMGAMMA,
                      apply_round, duol_auxiliary, forget_first, predict_score)

__all__ = ["KernelClassifier", "kernel_pass"]


@njit(cache=True)
def kernel_pass(rule, X, y, start, S, sv_sq, sv_y, beta, f, st, size, mistakes,
                margins, kind, sigma, degree, coef0, hp, max_support, work, row,
                row2):
    """Rounds ``start..`` of the stream; returns ``(stop, n_updates)``.

    ``stop < len(y)`` means the buffers are full before round ``stop``.
    """
    n_updates = 0
    n = size[0]
    for t in range(start, y.shape[0]):
        if n + 1 >= sv_y.shape[0] or not store_fits(S, n, X, t):
            size[0] = n
            return t, n_updates
        sq_t = row_sq(X, t)
        kxx = kernel_value(kind, sq_t, sq_t, sq_t, sigma, degree, coef0)
        kernel_row(kind, sigma, degree, coef0, S, n, sv_sq, X, t, sq_t, work, row)
        score = predict_score(beta, row, n, st)
        mistakes[t] = (score > 0.0) != (y[t] > 0.0)
        margins[t] = y[t] * score
        b = -1
        if rule == DUOL_RULE and y[t] * score < 1.0:
            b = duol_auxiliary(y[t], row, n, sv_y, f, hp[HP_RHO])
            if b >= 0:
                kernel_row(kind, sigma, degree, coef0, S, n, sv_sq, S, b,
                           sv_sq[b], work, row2)
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
            kernel_row(kind, sigma, degree, coef0, S, n, sv_sq, S, 0, sv_sq[0],
                       work, row2)
            forget_first(n, row2, beta, sv_y, sv_sq, f, st)
            store_drop_first(S, n)
            n -= 1
    size[0] = n
    return y.shape[0], n_updates


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


class KernelClassifier(OnlineClassifier):
    """Base of the learners whose model is a support set (see the module docstring).

    Subclasses set ``_rule`` (a code of :mod:`olearn.kernel.updates`) and
    ``_hyper()`` (the float array of their hyper-parameters).
    """

    _rule = None
    _frozen_params = ("kernel", "sigma", "degree", "coef0")

    def fit(self, X, y):
        """Reset (a new support set, new kernel parameters allowed), then one
        online pass (see :meth:`olearn.base.OnlineClassifier.fit`)."""
        self._kernel_params = None
        return super().fit(X, y)

    def partial_fit(self, X, y, classes=None):
        """Continue the online pass; parameters are re-validated on every call
        and the kernel may not change (see :meth:`olearn.base.OnlineClassifier.partial_fit`)."""
        if hasattr(self, "classes_"):
            self._check_run_params()
        return super().partial_fit(X, y, classes=classes)

    # -- parameters ------------------------------------------------------
    def _check_params(self):
        self._kind = check_kernel_params(self.kernel, self.sigma, self.degree,
                                         self.coef0)
        ms = self.max_support
        if ms is not None and (not isinstance(ms, numbers.Integral)
                               or isinstance(ms, bool) or ms < 1):
            raise ValueError(f"max_support must be None or an integer >= 1, "
                             f"got {ms!r}.")
        record = getattr(self, "record", "full")
        if record not in ("full", "counts"):
            raise ValueError(f"record must be 'full' or 'counts', got {record!r}.")
        self._check_rule_params()
        fitted = getattr(self, "_kernel_params", None)
        if fitted is not None and hasattr(self, "classes_"):
            now = self._kernel_signature()
            if now != fitted:
                raise ValueError(
                    f"the kernel parameters changed between calls to partial_fit "
                    f"({fitted} -> {now}); the support set was built with the "
                    f"first ones. Call fit to start again.")

    def _check_rule_params(self):
        """Validate the learner's own hyper-parameters (subclasses)."""

    def _kernel_signature(self):
        kernel = self.kernel if not callable(self.kernel) else id(self.kernel)
        if self.kernel == "rbf":
            return (kernel, float(self.sigma))
        if self.kernel == "poly":
            return (kernel, int(self.degree), float(self.coef0))
        return (kernel,)

    def _kernel_args(self):
        kind = check_kernel_params(self.kernel, self.sigma, self.degree, self.coef0)
        sigma = float(self.sigma) if kind == 1 else 1.0
        degree = float(self.degree) if kind == 2 else 1.0
        coef0 = float(self.coef0) if kind == 2 else 0.0
        return kind, sigma, degree, coef0

    # -- state -----------------------------------------------------------
    def _init_state(self, n_features):
        self._n_features = n_features
        self._sparse = None
        self._S = None
        self._cap = 0
        self._alloc(0, 0)
        self._st = np.array([1.0, 0.0, 0.0, 1.0, 0.0])
        self._size = np.zeros(1, dtype=np.int64)
        self._work = np.zeros(n_features)
        self._kernel_params = self._kernel_signature()

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
            S = np.zeros((cap, self._n_features))
            if old is not None and not isinstance(old[0], tuple):
                S[:n] = old[0][:n]
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

    def _grow(self, X, t):
        n = int(self._size[0])
        cap = max(2 * self._cap, n + 4, 16)
        nnz_cap = 0
        if self._sparse:
            data, _, indptr = self._S
            used = int(indptr[n])
            row_nnz = int(X[2][t + 1] - X[2][t])
            nnz_cap = max(2 * data.shape[0], used + row_nnz + 1, 64)
            if n + 2 < self._cap:
                cap = self._cap
        self._alloc(cap, nnz_cap)

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

    def _learn(self, X, y, mistakes, margins):
        X = self._batch(X)
        if self._kind == CALLABLE:
            return self._python_pass(X, y, mistakes, margins)
        kind, sigma, degree, coef0 = self._kernel_args()
        hp = self._hyper()
        budget = 0 if self.max_support is None else int(self.max_support)
        t, total = 0, 0
        while t < y.shape[0]:
            t, n_updates = kernel_pass(
                self._rule, X, y, t, self._S, self._sv_sq, self._sv_y,
                self._beta, self._f, self._st, self._size, mistakes, margins,
                kind, sigma, degree, coef0, hp, budget, self._work, self._row,
                self._row2)
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
        return self._rows_matrix(self._S, 0, int(self._size[0]))

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
        S = S.copy() if not sp.issparse(S) else S.copy()
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

    def _decision(self, X):
        n = int(self._size[0])
        out = np.zeros(X.shape[0])
        if n == 0:
            return out
        S = self._support_matrix()
        coef = self._st[SCALE] * self._beta[:n]
        step = max(1, 2_000_000 // max(n, 1))
        for lo in range(0, X.shape[0], step):
            K = kernel_matrix(X[lo:lo + step], S, self.kernel, self.sigma,
                              self.degree, self.coef0)
            out[lo:lo + step] = K @ coef
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


def warn_once(message, category):
    warnings.warn(message, category, stacklevel=3)
