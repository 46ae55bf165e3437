"""sparDCA: proximal stochastic dual coordinate ascent (Shalev-Shwartz and
Zhang 2012) for the l1-regularised hinge-loss SVM, a baseline of Figure 1 of
Tan et al. (AAAI 2016) ("l1-norm SVM by dual coordinate ascent").

Problem (our parametrisation):

    min_w  (1/n) sum_i max(0, 1 - y_i w.x_i) + lam (1/2 ||w||^2 + kappa ||w||_1).

Prox-SDCA keeps dual variables ``beta_i = alpha_i y_i`` with ``alpha_i in
[0, 1]``, ``v = (1 / (lam n)) sum_i alpha_i y_i x_i`` and
``w = grad g*(v) = soft_threshold(v, kappa)`` (``g = 1/2||w||^2 +
kappa||w||_1`` is 1-strongly convex).  The coordinate step for the hinge
loss (its closed form for a 1-smooth ``g*``) is
``alpha_i <- clip(alpha_i + lam n (1 - y_i w.x_i) / ||x_i||^2, 0, 1)``.
``w`` is never stored: ``w.x_i`` soft-thresholds the touched coordinates of
``v`` on the fly, so a round costs O(nnz(x_i)).
"""
import numbers
import time

import numpy as np
import scipy.sparse as sp
from numba import njit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import check_positive


@njit(cache=True)
def _soft(v, kappa):
    if v > kappa:
        return v - kappa
    if v < -kappa:
        return v + kappa
    return 0.0


@njit(cache=True)
def spardca_epoch(data, indices, indptr, y, order, alpha, v, lam, kappa):
    """One pass of prox-SDCA in the order ``order``; returns the dual gain."""
    n = y.shape[0]
    scale = 1.0 / (lam * n)
    for idx in range(order.shape[0]):
        i = order[idx]
        dot = 0.0
        sq = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            xk = data[k]
            dot += _soft(v[indices[k]], kappa) * xk
            sq += xk * xk
        if sq <= 0.0:
            continue
        new = alpha[i] + (1.0 - y[i] * dot) / (sq * scale)
        new = min(max(new, 0.0), 1.0)
        delta = new - alpha[i]
        if delta != 0.0:
            alpha[i] = new
            b = delta * y[i] * scale
            for k in range(indptr[i], indptr[i + 1]):
                v[indices[k]] += b * data[k]
    return 0.0


class SparDCA(ClassifierMixin, BaseEstimator):
    """l1-regularised SVM by prox-SDCA (batch baseline, see the module docstring).

    Parameters
    ----------
    lam : float > 0
    kappa : float >= 0
        l1 weight relative to the l2 term; larger gives fewer features.
    n_epochs : int, default=10
    random_state : int or None

    Examples
    --------
    >>> from olearn import SparDCA
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 20))
    >>> y = np.where(X[:, 0] + X[:, 1] > 0, 1, -1)      # only features 0 and 1 matter
    >>> clf = SparDCA(lam=0.01, kappa=20.0).fit(X, y)   # batch, 10 epochs of prox-SDCA
    >>> np.flatnonzero(np.abs(clf.coef_.ravel()) > 1e-12).tolist()   # the l1 term keeps two
    [0, 1]
    >>> round(clf.score(X, y), 3)
    0.985
    """

    def __init__(self, lam=1e-4, kappa=0.0, n_epochs=10, random_state=0):
        self.lam = lam
        self.kappa = kappa
        self.n_epochs = n_epochs
        self.random_state = random_state

    def fit(self, X, y):
        check_positive("lam", self.lam)
        check_positive("kappa", self.kappa, allow_zero=True)
        if (not isinstance(self.n_epochs, numbers.Integral)
                or self.n_epochs < 1):
            raise ValueError(f"n_epochs must be a positive integer, "
                             f"got {self.n_epochs!r}.")
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        self.classes_ = np.unique(y)
        if self.classes_.size != 2:
            raise ValueError("SparDCA needs exactly two classes.")
        X = sp.csr_matrix(X)
        X.sum_duplicates()
        ypm = np.where(y == self.classes_[1], 1.0, -1.0)
        rng = np.random.default_rng(self.random_state)
        alpha = np.zeros(X.shape[0])
        v = np.zeros(X.shape[1])
        tic = time.perf_counter()
        for _ in range(int(self.n_epochs)):
            order = rng.permutation(X.shape[0]).astype(np.int64)
            spardca_epoch(X.data, X.indices, X.indptr, ypm, order, alpha, v,
                          float(self.lam), float(self.kappa))
        self.fit_time_ = time.perf_counter() - tic
        w = np.sign(v) * np.maximum(np.abs(v) - self.kappa, 0.0)
        self.coef_ = w[np.newaxis, :]
        self.intercept_ = np.zeros(1)
        self.dual_coef_ = alpha
        return self

    @property
    def selected_features_(self):
        return np.flatnonzero(self.coef_[0])

    def decision_function(self, X):
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64,
                          reset=False)
        return np.asarray(X @ self.coef_[0]).ravel()

    def predict(self, X):
        return self.classes_[(self.decision_function(X) > 0).astype(int)]
