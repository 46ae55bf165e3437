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
same stream).  A round costs O(|S| d + |S|^2); memory is O(|S|^2).
"""
import numpy as np
from numba import njit
from sklearn.metrics.pairwise import pairwise_kernels

from ..base import OnlineClassifier, check_positive

KERNELS = ("linear", "rbf", "poly")
_LINEAR, _RBF, _POLY = 0, 1, 2


@njit(cache=True)
def _kernel(kind, u, v, gamma, degree, coef0):
    if kind == _RBF:
        sq = 0.0
        for j in range(u.shape[0]):
            diff = u[j] - v[j]
            sq += diff * diff
        return np.exp(-gamma * sq)
    dot = 0.0
    for j in range(u.shape[0]):
        dot += u[j] * v[j]
    if kind == _POLY:
        return (gamma * dot + coef0) ** degree
    return dot


@njit(cache=True)
def kernel_arow_round(x, y, sv, alpha, B, n, k, Bk, r, a, kind, gamma, degree, coef0):
    """One round of kernel AROW; returns ``(m, n_new)`` (``n_new = n + 1``
    when ``x`` joins the support set)."""
    for i in range(n):
        k[i] = _kernel(kind, sv[i], x, gamma, degree, coef0)
    m = 0.0
    for i in range(n):
        m += alpha[i] * k[i]
    if y * m >= 1.0:
        return m, n
    chi = a * _kernel(kind, x, x, gamma, degree, coef0)
    for i in range(n):
        acc = 0.0
        for j in range(n):
            acc += B[i, j] * k[j]
        Bk[i] = acc
        chi += k[i] * acc
    if chi <= 0.0:
        return m, n
    beta = 1.0 / (chi + r)
    step = (1.0 - y * m) * beta * y
    for i in range(n):
        alpha[i] += step * Bk[i]
        bi = beta * Bk[i]
        for j in range(n):
            B[i, j] -= bi * Bk[j]
        B[i, n] = -bi * a
        B[n, i] = -bi * a
    B[n, n] = -beta * a * a
    alpha[n] = step * a
    sv[n, :] = x
    return m, n + 1


@njit(cache=True)
def kernel_arow_pass(X, y, sv, alpha, B, count, mistakes, margins, buf,
                     r, a, kind, gamma, degree, coef0):
    """One pass over dense rows ``X`` (a CSR pass scatters each row into
    ``buf`` first, see :meth:`KernelAROW._learn`)."""
    n = count[0]
    k = np.zeros(sv.shape[0])
    Bk = np.zeros(sv.shape[0])
    start = n
    for t in range(y.shape[0]):
        m, n = kernel_arow_round(X[t], y[t], sv, alpha, B, n, k, Bk, r, a, kind,
                                 gamma, degree, coef0)
        mistakes[t] = (m > 0.0) != (y[t] > 0.0)
        margins[t] = y[t] * m
    count[0] = n
    return n - start


@njit(cache=True)
def kernel_arow_pass_csr(data, indices, indptr, y, sv, alpha, B, count, mistakes,
                         margins, buf, r, a, kind, gamma, degree, coef0):
    """The CSR version: row ``t`` is scattered into ``buf`` (O(nnz)) and
    cleared after the round."""
    n = count[0]
    k = np.zeros(sv.shape[0])
    Bk = np.zeros(sv.shape[0])
    start = n
    for t in range(y.shape[0]):
        for p in range(indptr[t], indptr[t + 1]):
            buf[indices[p]] = data[p]
        m, n = kernel_arow_round(buf, y[t], sv, alpha, B, n, k, Bk, r, a, kind,
                                 gamma, degree, coef0)
        mistakes[t] = (m > 0.0) != (y[t] > 0.0)
        margins[t] = y[t] * m
        for p in range(indptr[t], indptr[t + 1]):
            buf[indices[p]] = 0.0
    count[0] = n
    return n - start


class KernelAROW(OnlineClassifier):
    """AROW with a kernel (see the module docstring; beyond the paper).

    Parameters
    ----------
    r : float, default=1.0
        AROW's ``r > 0``.
    kernel : {"linear", "rbf", "poly"}, default="rbf"
        ``x.z``, ``exp(-gamma ||x - z||^2)`` or ``(gamma x.z + coef0)^degree``.
    gamma : float, default=1.0
    degree : int, default=3
    coef0 : float, default=1.0
    a : float, default=1.0
        ``Sigma_0 = a I``.
    n_epochs, shuffle, random_state
        As in :class:`olearn.Perceptron`.

    Attributes
    ----------
    support_vectors_ : the rows of the update rounds, shape (n_support, d)
    dual_coef_ : ``alpha``, shape (n_support,)

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

    _frozen_params = ("kernel", "gamma", "degree", "coef0", "a")

    def __init__(self, r=1.0, kernel="rbf", *, gamma=1.0, degree=3, coef0=1.0,
                 a=1.0, n_epochs=1, shuffle=False, random_state=None):
        self.r = r
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.a = a
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state

    def _check_params(self):
        check_positive("r", self.r)
        check_positive("a", self.a)
        if self.kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS}, got {self.kernel!r}.")
        check_positive("gamma", self.gamma)
        check_positive("coef0", self.coef0, allow_zero=True)
        if (not isinstance(self.degree, (int, np.integer)) or isinstance(self.degree, bool)
                or self.degree < 1):
            raise ValueError(f"degree must be a positive integer, got {self.degree!r}.")

    def _init_state(self, n_features):
        self._sv = np.zeros((0, n_features))
        self._alpha = np.zeros(0)
        self._B = np.zeros((0, 0))
        self._count = np.zeros(1, dtype=np.int64)
        self._buf = np.zeros(n_features)
        self._frozen_values = {p: getattr(self, p) for p in self._frozen_params}

    def _reserve(self, extra):
        n = int(self._count[0])
        need = n + extra
        if need > self._alpha.shape[0]:
            cap = max(need, 2 * self._alpha.shape[0])
            sv = np.zeros((cap, self._sv.shape[1]))
            sv[:n] = self._sv[:n]
            alpha = np.zeros(cap)
            alpha[:n] = self._alpha[:n]
            B = np.zeros((cap, cap))
            B[:n, :n] = self._B[:n, :n]
            self._sv, self._alpha, self._B = sv, alpha, B

    def _learn(self, X, y, mistakes, margins):
        self._check_params()
        now = {p: getattr(self, p) for p in self._frozen_params}
        if now != self._frozen_values:
            raise ValueError(f"KernelAROW: {sorted(k for k in now if now[k] != self._frozen_values[k])}"
                             f" changed since the model was initialised; call fit.")
        self._reserve(y.shape[0])
        args = (self._sv, self._alpha, self._B, self._count, mistakes, margins,
                self._buf, float(self.r), float(self.a), KERNELS.index(self.kernel),
                float(self.gamma), float(self.degree), float(self.coef0))
        if isinstance(X, tuple):
            return kernel_arow_pass_csr(X[0], X[1], X[2], y, *args)
        return kernel_arow_pass(X, y, *args)

    @property
    def support_vectors_(self):
        return self._sv[:int(self._count[0])].copy()

    @property
    def dual_coef_(self):
        return self._alpha[:int(self._count[0])].copy()

    def _decision(self, X):
        n = int(self._count[0])
        if n == 0:
            return np.zeros(X.shape[0])
        params = {"linear": {}, "rbf": {"gamma": self.gamma},
                  "poly": {"gamma": self.gamma, "degree": self.degree,
                           "coef0": self.coef0}}[self.kernel]
        K = pairwise_kernels(X, self._sv[:n], metric=self.kernel, **params)
        return K @ self._alpha[:n]

    def _model_arrays(self):
        n = int(self._count[0])
        return (self._alpha[:n], self._B[:n, :n])
