"""Kernel AROW: AROW (Crammer, Kulesza, Dredze 2009) in a reproducing-kernel
Hilbert space.  Beyond the paper, which states the representer theorem
(Lemma 1) but runs AROW only in its linear, primal form.

Lemma 1: from ``mu_0 = 0`` and ``Sigma_0 = a I``, every ``mu_t`` is a
combination of the update rows and every ``Sigma_t`` is ``a I`` plus a
combination of their outer products, with coefficients that depend on inner
products only.  With the support set ``S`` (the rows of the update rounds,
``phi(x_i)`` in feature space) write

    mu    = sum_i alpha_i phi(x_i),      Sigma = a I + sum_ij B_ij phi(x_i) phi(x_j)'.

For a new row with kernel vector ``k_i = K(x_i, x)``: ``m = alpha . k``,
``Sigma phi(x) = a phi(x) + sum_i (B k)_i phi(x_i)`` and
``chi = a K(x, x) + k' B k``.  When ``y m < 1``, with ``beta = 1/(chi + r)`` and
``alpha_t = (1 - y m) beta`` (Figure 1), ``x`` joins ``S`` with the
coefficient vector ``c = (B k, a)`` of ``Sigma phi(x)``:

    alpha <- (alpha, 0) + alpha_t y c,     B <- [[B, 0], [0, 0]] - beta c c'.

This is exactly Figure 1 in feature space; with the linear kernel it is
:class:`olearn.AROW` (``tests/test_second_order_kernel.py`` feeds both the
same stream).  A round costs O(|S| nnz + |S|^2); memory is O(|S|^2) for ``B``
plus the support rows, stored as the other kernel learners store them (dense
or CSR, :mod:`olearn.kernel.core`).  A batch whose ``B`` could not fit in the
memory available is refused before anything is allocated.

Each update is Sherman-Morrison's ``Sigma^-1 <- Sigma^-1 + phi phi' / r``, so
``Sigma = (I/a + sum_i phi_i phi_i' / r)^-1`` over the support set and, by
Woodbury, ``B = -a^2 (r I + a K_S)^-1`` with ``K_S`` the Gram matrix of the
support set (checked in the tests).  ``max_support`` (ours, not the paper's):
when the support set exceeds the budget the oldest row ``s_0`` is forgotten:
``Sigma`` is taken as if that row had never been added,
``B' = B_11 - B_10 B_01 / B_00`` (the inverse of a principal submatrix from
the full inverse), so it stays positive definite, and ``alpha_0 phi(s_0)`` is
replaced in ``mu`` by its ridge projection on the remaining rows,
``(K' + (r/a) I)^-1 k(S', s_0) = -B' k(S', s_0) / a`` (one kernel row and
O(|S|^2)).  Simply dropping ``alpha_0``, as the first-order kernel learners do,
made more mistakes and larger coefficients with a budget of 50 on german.numer
and on the two moons (book/duol/baselines.ipynb compares the two).
"""
import numpy as np
from numba import njit

from ..base import check_positive
from .core import KernelClassifier
from .kernels import (kernel_row, kernel_value, row_sq, store_drop_first,
                      store_fits, store_put, support_kernel_row)


@njit(cache=True)
def forget_oldest(n, alpha, B, sv_sq, k0, a, tmp):
    """Drop support vector 0 of ``n`` (``k0[i] = k(s_i, s_0)``).

    ``B <- B_11 - B_10 B_01 / B_00`` (``Sigma`` as if ``s_0`` had never been
    added) and ``alpha_0 phi(s_0)`` is replaced by its ridge projection on the
    remaining rows, ``c = (K' + (r/a) I)^-1 k0' = -B' k0' / a``, so that the
    mean keeps what the remaining rows can express; ``tmp``: scratch >= n.
    """
    b00 = B[0, 0]
    for j in range(n):
        tmp[j] = B[0, j]
    for i in range(1, n):
        bi0 = B[i, 0] / b00 if b00 != 0.0 else 0.0
        for j in range(1, n):
            B[i - 1, j - 1] = B[i, j] - bi0 * tmp[j]
    a0 = alpha[0]
    for i in range(n - 1):
        c = 0.0
        for j in range(n - 1):
            c += B[i, j] * k0[j + 1]
        tmp[i] = alpha[i + 1] - a0 * c / a
    for i in range(n - 1):
        alpha[i] = tmp[i]
        sv_sq[i] = sv_sq[i + 1]


@njit(cache=True)
def kernel_arow_pass(X, y, start, S, sv_sq, alpha, B, size, mistakes, margins,
                     kind, sigma, degree, coef0, r, a, max_support, work, k, Bk,
                     diag):
    """Rounds ``start..`` of the stream; returns ``(stop, n_updates)``
    (``stop < len(y)``: the buffers are full before round ``stop``)."""
    n_updates = 0
    n = size[0]
    for t in range(start, y.shape[0]):
        if n + 1 >= alpha.shape[0] or not store_fits(S, n, X, t):
            size[0] = n
            return t, n_updates
        sq_t = row_sq(X, t)
        if kernel_row(kind, sigma, degree, coef0, S, n, sv_sq, X, t, sq_t, work,
                      k):
            diag[1] += 1
        diag[0] += n > 0
        m = 0.0
        for i in range(n):
            m += alpha[i] * k[i]
        yt = y[t]
        mistakes[t] = (m > 0.0) != (yt > 0.0)
        margins[t] = yt * m
        if yt * m >= 1.0:
            continue
        chi = a * kernel_value(kind, sq_t, sq_t, sq_t, sigma, degree, coef0)
        for i in range(n):
            acc = 0.0
            for j in range(n):
                acc += B[i, j] * k[j]
            Bk[i] = acc
            chi += k[i] * acc
        if chi <= 0.0:  # phi(x) = 0: nothing to learn
            continue
        beta = 1.0 / (chi + r)
        step = (1.0 - yt * m) * beta * yt
        for i in range(n):
            alpha[i] += step * Bk[i]
            bi = beta * Bk[i]
            for j in range(n):
                B[i, j] -= bi * Bk[j]
            B[i, n] = -bi * a
            B[n, i] = -bi * a
        B[n, n] = -beta * a * a
        alpha[n] = step * a
        store_put(S, n, X, t)
        sv_sq[n] = sq_t
        n += 1
        n_updates += 1
        if max_support > 0 and n > max_support:
            support_kernel_row(kind, sigma, degree, coef0, S, n, sv_sq, 0, work,
                               k)
            forget_oldest(n, alpha, B, sv_sq, k, a, Bk)
            store_drop_first(S, n)
            n -= 1
    size[0] = n
    return y.shape[0], n_updates


class KernelAROW(KernelClassifier):
    """AROW with a kernel (see the module docstring; beyond the paper).

    Parameters
    ----------
    r : float, default=1.0
        AROW's ``r > 0``.
    a : float, default=1.0
        ``Sigma_0 = a I``.
    kernel : {"rbf", "linear", "poly"}, default="rbf"
        ``exp(-||x - x'||^2 / (2 sigma^2))``, ``x.x'`` or
        ``(x.x' + coef0)^degree``, as every kernel learner of olearn
        (callables are not supported).
    sigma : float, default=8.0
        Width of the Gaussian kernel (``gamma = 1 / (2 sigma^2)`` in
        scikit-learn's ``exp(-gamma ||x - x'||^2)``).
    degree : int, default=3; coef0 : float, default=1.0
    max_support : int or None, default=None
        Budget (ours): keep at most this many support vectors, forgetting the
        oldest (see the module docstring).  Memory is about
        ``8 max_support^2`` bytes.
    n_epochs, shuffle, random_state, record
        As in :class:`olearn.Perceptron`.

    Attributes
    ----------
    support_vectors_ : the rows of the update rounds, ``(n_support_, d)``,
        dense or CSR as the stream
    dual_coef_ : ``alpha``, shape ``(1, n_support_)``

    Examples
    --------
    >>> from olearn import KernelAROW
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = KernelAROW(r=1.0, kernel="linear").fit(X, y)   # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 6)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    _frozen_params = ("kernel", "sigma", "degree", "coef0", "a")
    _accepts_callable = False

    def __init__(self, r=1.0, a=1.0, *, kernel="rbf", sigma=8.0, degree=3,
                 coef0=1.0, max_support=None, n_epochs=1, shuffle=False,
                 random_state=None, record="full"):
        self.r = r
        self.a = a
        super().__init__(kernel=kernel, sigma=sigma, degree=degree, coef0=coef0,
                         max_support=max_support, n_epochs=n_epochs,
                         shuffle=shuffle, random_state=random_state,
                         record=record)

    def _check_rule_params(self):
        check_positive("r", self.r)
        check_positive("a", self.a)

    def _quadratic_bytes(self, cap):
        return 8 * cap * cap

    def _init_state(self, n_features):
        self._B = np.zeros((0, 0))
        super()._init_state(n_features)

    def _extra_alloc(self, cap, n):
        B = np.zeros((cap, cap))
        m = min(n, self._B.shape[0])
        B[:m, :m] = self._B[:m, :m]
        self._B = B

    def _compiled_learn(self, X, y, mistakes, margins):
        kind, sigma, degree, coef0 = self._kernel_args()
        budget = 0 if self.max_support is None else int(self.max_support)
        t, total = 0, 0
        while t < y.shape[0]:
            t, n_updates = kernel_arow_pass(
                X, y, t, self._S, self._sv_sq, self._beta, self._B, self._size,
                mistakes, margins, kind, sigma, degree, coef0, float(self.r),
                float(self.a), budget, self._work, self._row, self._row2,
                self._diag)
            total += n_updates
            if t < y.shape[0]:
                self._grow(X, t)
        return total

    def _model_arrays(self):
        n = int(self._size[0])
        return (self._beta[:n], self._B[:n, :n])
