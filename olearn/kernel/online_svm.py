"""Online-SVM: the DUOL paper's yardstick (Shalev-Shwartz and Singer 2006).

After every trial the new example joins the dual of the SVM over all the
examples seen so far,

    max_{0 <= gamma_i <= C}  sum_i gamma_i - 1/2 || sum_i gamma_i y_i k(x_i, .) ||^2

(no bias), and every weight is updated: cyclic dual coordinate ascent, each
coordinate set to the maximiser of the dual in it,
``gamma_i <- clip(gamma_i + (1 - y_i f(x_i)) / k(x_i, x_i), 0, C)``, until the
largest projected-gradient violation is at most ``tol`` (a sweep that finds
no violation above ``tol``).  The prediction of round ``t`` is made before
``x_t`` joins.  The scores ``y_i f(x_i)`` of all seen examples are kept up to
date and the Gram matrix of the examples seen is cached: the cost is
O(t) per coordinate step and O(n^2) memory for n examples (about 170 MB for
spambase's 4,601; not run on w7a or a7a, as in the paper).  If a trial needs
more than ``max_sweeps`` sweeps the ascent stops there and a
``ConvergenceWarning`` says how often it happened (never a hang).
"""
import warnings

import numpy as np
from numba import njit
from sklearn.exceptions import ConvergenceWarning

from ..base import check_positive
from .core import KernelClassifier, check_integer
from .kernels import kernel_row, kernel_value, row_sq, store_fits, store_put


@njit(cache=True)
def svm_ascent(n, K, sv_y, beta, f, C, tol, max_sweeps):
    """Dual coordinate ascent over the ``n`` examples seen (the per-trial update).

    ``beta_i = y_i gamma_i``, ``f_i = y_i f(x_i)``.  Returns
    ``(coordinate steps, sweeps, converged)``.
    """
    steps = 0
    for sweep in range(max_sweeps):
        violation = 0.0
        for i in range(n):
            kii = K[i, i]
            if kii <= 0.0:
                continue
            g = 1.0 - f[i]
            gamma = beta[i] * sv_y[i]
            if (g > 0.0 and gamma < C) or (g < 0.0 and gamma > 0.0):
                if abs(g) > violation:
                    violation = abs(g)
                if abs(g) > tol:
                    new = min(C, max(0.0, gamma + g / kii))
                    delta = new - gamma
                    if delta != 0.0:
                        beta[i] = new * sv_y[i]
                        step = delta * sv_y[i]
                        for j in range(n):
                            f[j] += step * sv_y[j] * K[i, j]
                        steps += 1
        if violation <= tol:
            return steps, sweep + 1, True
    return steps, max_sweeps, False


@njit(cache=True)
def online_svm_pass(X, y, start, S, sv_sq, sv_y, beta, f, K, size, mistakes,
                    margins, kind, sigma, degree, coef0, C, tol, max_sweeps,
                    work, row, counters, diag):
    """Rounds ``start..``; returns ``(stop, n_updates)`` (stop early when full).

    ``counters = [trials that hit max_sweeps, total sweeps, coordinate steps]``.
    """
    n_updates = 0
    n = size[0]
    for t in range(start, y.shape[0]):
        if n + 1 >= K.shape[0] or not store_fits(S, n, X, t):
            size[0] = n
            return t, n_updates
        sq_t = row_sq(X, t)
        kxx = kernel_value(kind, sq_t, sq_t, sq_t, sigma, degree, coef0)
        if kernel_row(kind, sigma, degree, coef0, S, n, sv_sq, X, t, sq_t, work,
                      row):
            diag[1] += 1
        diag[0] += n > 0
        score = 0.0
        for i in range(n):
            score += beta[i] * row[i]
        mistakes[t] = (score > 0.0) != (y[t] > 0.0)
        margins[t] = y[t] * score
        store_put(S, n, X, t)
        sv_sq[n] = sq_t
        sv_y[n] = y[t]
        beta[n] = 0.0
        for i in range(n):
            K[n, i] = row[i]
            K[i, n] = row[i]
        K[n, n] = kxx
        f[n] = y[t] * score
        n += 1
        steps, sweeps, converged = svm_ascent(n, K, sv_y, beta, f, C, tol,
                                              max_sweeps)
        counters[1] += sweeps
        counters[2] += steps
        if not converged:
            counters[0] += 1
        if steps > 0:
            n_updates += 1
    size[0] = n
    return y.shape[0], n_updates


class OnlineSVM(KernelClassifier):
    """Online-SVM of the DUOL paper (see :mod:`olearn.kernel.online_svm`): after
    each trial, dual coordinate ascent over all examples seen, to ``tol``.

    Parameters
    ----------
    C : float, default=5.0
    tol : float, default=1e-3
        Stop a trial's ascent when no projected gradient ``|1 - y_i f(x_i)|``
        of a coordinate that can move exceeds ``tol`` (libsvm's default
        tolerance).
    max_sweeps : int, default=10000
        Safeguard: at most this many sweeps per trial (then a warning).
    kernel, sigma, degree, coef0, n_epochs, shuffle, random_state
        As in :mod:`olearn.kernel.learners`.  Callable kernels and
        ``max_support`` are not supported (the Gram matrix of all examples is
        cached; a budget would change the problem solved).

    Attributes
    ----------
    n_nonconverged_ : int
        Trials whose ascent hit ``max_sweeps``.
    n_sweeps_, n_coordinate_steps_ : int

    Examples
    --------
    >>> from olearn import OnlineSVM
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = OnlineSVM(C=5.0, kernel="rbf", sigma=8.0).fit(X, y)   # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (5, 6)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    _rule = -1

    def __init__(self, C=5.0, *, tol=1e-3, max_sweeps=10000, kernel="rbf",
                 sigma=8.0, degree=3, coef0=1.0, max_support=None, n_epochs=1,
                 shuffle=False, random_state=None, record="full"):
        self.C = C
        self.tol = tol
        self.max_sweeps = max_sweeps
        super().__init__(kernel=kernel, sigma=sigma, degree=degree, coef0=coef0,
                         max_support=max_support, n_epochs=n_epochs,
                         shuffle=shuffle, random_state=random_state,
                         record=record)

    _accepts_callable = False
    _budget_allowed = False

    def _check_rule_params(self):
        check_positive("C", self.C)
        check_positive("tol", self.tol)
        check_integer("max_sweeps", self.max_sweeps, 1)
        if self.max_support is not None:
            raise ValueError("OnlineSVM has no max_support budget (it solves "
                             "the SVM dual over all examples seen); leave it None.")

    def _init_state(self, n_features):
        self._counters = np.zeros(3, dtype=np.int64)
        self._K = np.zeros((0, 0))
        super()._init_state(n_features)

    def _extra_alloc(self, cap, n):
        old = getattr(self, "_K", np.zeros((0, 0)))
        K = np.zeros((cap, cap))
        m = min(n, old.shape[0])
        K[:m, :m] = old[:m, :m]
        self._K = K

    def _quadratic_bytes(self, cap):
        return 8 * cap * cap

    def _compiled_learn(self, X, y, mistakes, margins):
        kind, sigma, degree, coef0 = self._kernel_args()
        before = int(self._counters[0])
        t, total = 0, 0
        while t < y.shape[0]:
            t, n_updates = online_svm_pass(
                X, y, t, self._S, self._sv_sq, self._sv_y, self._beta, self._f,
                self._K, self._size, mistakes, margins, kind, sigma, degree,
                coef0, float(self.C), float(self.tol), int(self.max_sweeps),
                self._work, self._row, self._counters, self._diag)
            total += n_updates
            if t < y.shape[0]:
                self._grow(X, t)
        missed = int(self._counters[0]) - before
        if missed:
            warnings.warn(
                f"OnlineSVM: the dual ascent hit max_sweeps={self.max_sweeps} on "
                f"{missed} trial(s) before reaching tol={self.tol}; the weights "
                f"of those trials are not optimal to tol.", ConvergenceWarning,
                stacklevel=5)
        return total

    def _support_mask(self):
        n = int(self._size[0])
        return self._beta[:n] != 0.0

    def _model_arrays(self):
        # the dual gradient f too (a NaN kernel entry reaches f before beta);
        # K itself is n x n and follows from the support set, so it is not scanned
        n = int(self._size[0])
        return super()._model_arrays() + (self._f[:n],)

    @property
    def n_nonconverged_(self):
        return int(self._counters[0])

    @property
    def n_sweeps_(self):
        return int(self._counters[1])

    @property
    def n_coordinate_steps_(self):
        return int(self._counters[2])

    def _scoring_rows(self):
        """The support rows with a nonzero coefficient (fit's scores add the
        others' ``0 k(s_i, x)`` too, which changes no bit)."""
        n = int(self._size[0])
        keep = np.flatnonzero(self._beta[:n] != 0.0)
        if keep.size == n:
            return self._S, n, self._sv_sq, self._beta
        if isinstance(self._S, tuple):
            M = self._rows_matrix(self._S, 0, n)[keep]
            S = (M.data, M.indices.astype(np.int64), M.indptr.astype(np.int64))
        else:
            S = np.ascontiguousarray(self._S[:, keep])
        return S, keep.size, self._sv_sq[keep], self._beta[keep]
