"""SOFS: second-order online feature selection (Wu, Hoi, Mei 2014), a
baseline of Figure 1 of Tan et al. (AAAI 2016).

Our reading (the SOFS paper is not among the shared papers; the abstract
says it keeps "the most confident weights" of a CW learner): a diagonal
AROW learner, ``r`` its regulariser,

    if y_t mu.x_t < 1:  beta = 1 / (x_t' Sigma x_t + r),
                        mu += (1 - y_t mu.x_t) beta y_t Sigma x_t,
                        Sigma_jj^{-1} += x_tj^2 / r      (every j in x_t),

followed by truncation to the ``B`` features of largest confidence
``Sigma_jj^{-1}``: a feature outside them has ``mu_j = 0``.  The active set
is an indexed min-heap on the confidence (O(log B) per touched feature), so
a round costs O(nnz(x_t) log B) and the model O(d) memory.
"""
import numbers

import numpy as np
import scipy.sparse as sp
from numba import njit

from .._rows import csr_dot, dense_scores, sparse_scores
from ..base import OnlineClassifier, check_positive


@njit(cache=True)
def _sift_down(heap, pos, key, i, size):
    while True:
        left = 2 * i + 1
        small = i
        if left < size and key[heap[left]] < key[heap[small]]:
            small = left
        if left + 1 < size and key[heap[left + 1]] < key[heap[small]]:
            small = left + 1
        if small == i:
            return
        heap[i], heap[small] = heap[small], heap[i]
        pos[heap[i]] = i
        pos[heap[small]] = small
        i = small


@njit(cache=True)
def _sift_up(heap, pos, key, i):
    while i > 0:
        parent = (i - 1) // 2
        if key[heap[parent]] <= key[heap[i]]:
            return
        heap[i], heap[parent] = heap[parent], heap[i]
        pos[heap[i]] = i
        pos[heap[parent]] = parent
        i = parent


@njit(cache=True)
def sofs_pass(X, y, mu, prec, heap, pos, size, mistakes, margins, r, B):
    """One pass of SOFS over CSR rows ``X``; ``prec`` = diag(Sigma^{-1}).

    ``pos[j] = -1`` for features outside the active set.  ``size[0]`` is the
    number of active features.  Returns the number of updates.
    """
    data, indices, indptr = X
    n_updates = 0
    for t in range(y.shape[0]):
        dot = 0.0
        v = 0.0
        for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
            j = np.uintp(indices[k])
            xk = data[k]
            dot += mu[j] * xk
            v += xk * xk / prec[j]
        margins[t] = y[t] * dot
        mistakes[t] = (dot > 0.0) != (y[t] > 0.0)
        if y[t] * dot >= 1.0 or v <= 0.0:
            continue
        beta = 1.0 / (v + r)
        a = (1.0 - y[t] * dot) * beta * y[t]
        n_updates += 1
        for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
            j = np.uintp(indices[k])
            xk = data[k]
            mu[j] += a * xk / prec[j]
            prec[j] += xk * xk / r
            if pos[j] >= 0:
                _sift_down(heap, pos, prec, pos[j], size[0])
            elif size[0] < B:
                heap[size[0]] = j
                pos[j] = size[0]
                size[0] += 1
                _sift_up(heap, pos, prec, size[0] - 1)
            elif prec[j] > prec[heap[0]]:
                out = heap[0]
                mu[out] = 0.0
                pos[out] = -1
                heap[0] = j
                pos[j] = 0
                _sift_down(heap, pos, prec, 0, size[0])
            else:
                mu[j] = 0.0
    return n_updates


class SOFS(OnlineClassifier):
    """Second-order online feature selection (baseline; see the module docstring).

    Parameters
    ----------
    B : int >= 1
        Number of features kept.
    r : float > 0, default=1.0
        AROW's regulariser.

    Examples
    --------
    >>> from olearn import SOFS
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = SOFS(B=2, r=1.0).fit(X, y)   # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 6)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    _frozen_params = ("B",)

    def __init__(self, B=10, r=1.0, *, n_epochs=1, shuffle=False,
                 random_state=None, record="full"):
        self.B = B
        self.r = r
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    def _check_params(self):
        if (not isinstance(self.B, numbers.Integral) or isinstance(self.B, bool)
                or self.B < 1):
            raise ValueError(f"B must be a positive integer, got {self.B!r}.")
        check_positive("r", self.r)

    def _init_state(self, n_features):
        self._mu = np.zeros(n_features)
        self._prec = np.ones(n_features)
        self._heap = np.zeros(min(self.B, n_features), dtype=np.int64)
        self._pos = -np.ones(n_features, dtype=np.int64)
        self._size = np.zeros(1, dtype=np.int64)

    def _model_arrays(self):
        """The whole model, arrays of fixed shape updated in place: ``mu``,
        the precisions, and the active set (heap, positions, size)."""
        return (self._mu, self._prec, self._heap, self._pos, self._size)

    @property
    def coef_(self):
        return self._mu[np.newaxis, :]

    @property
    def selected_features_(self):
        return np.sort(self._heap[:self._size[0]])

    def _decision(self, X):
        # one order of the sums for every layout (csr_dot's)
        if sp.issparse(X):
            return sparse_scores(csr_dot, sp.csr_matrix(X), self._mu)
        return dense_scores(X, self._mu)

    def _learn(self, X, y, mistakes, margins):
        self._check_params()   # also on later partial_fit calls
        if not isinstance(X, tuple):
            X = sp.csr_matrix(X)
            X = (X.data, X.indices, X.indptr)
        B = min(int(self.B), self._mu.shape[0])
        return sofs_pass(X, y, self._mu, self._prec, self._heap, self._pos,
                         self._size, mistakes, margins, float(self.r), B)
