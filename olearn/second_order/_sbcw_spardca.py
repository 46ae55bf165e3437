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

``fit`` is the batch method: ``n_epochs`` passes over the ``n`` rows, each in
a fresh random order (``shuffle=True``, prox-SDCA's sampling) or in the
given order, the dual variables kept across passes.  ``partial_fit`` (ours:
the online form, as Algorithm 3 of Tan et al. is prox-SDCA in one pass)
visits each row of the call once, in order, as a new dual coordinate of the
problem over all ``N`` rows seen so far: ``v`` is rescaled by ``N_old / N``
(the old rows keep their ``alpha``), then the rows are passed.  One
``partial_fit`` call on fresh rows equals ``fit`` with ``n_epochs=1,
shuffle=False``.

Each visit is a round of the online record (``mistakes_``, ``margins_``: the
prediction ``w.x_i`` before the step).
"""
import time

import numpy as np
import scipy.sparse as sp
from numba import njit

from .._rows import csr_dot_soft_threshold, dense_scores, sparse_scores
from ..base import OnlineClassifier, check_positive


@njit(cache=True)
def _soft(v, kappa):
    if v > kappa:
        return v - kappa
    if v < -kappa:
        return v + kappa
    return 0.0


@njit(cache=True)
def spardca_epoch(data, indices, indptr, y, order, alpha, v, lam, kappa, n,
                  mistakes, margins):
    """One pass of prox-SDCA over the rows ``order`` of a problem of ``n`` rows.

    ``mistakes[t]``, ``margins[t]`` record the ``t``-th visit (before its step).
    Returns the number of visits whose ``alpha`` changed.
    """
    scale = 1.0 / (lam * n)
    n_updates = 0
    for t in range(order.shape[0]):
        i = order[t]
        dot = 0.0
        sq = 0.0
        for k in range(np.uintp(indptr[i]), np.uintp(indptr[i + 1])):
            xk = data[k]
            dot += _soft(v[np.uintp(indices[k])], kappa) * xk
            sq += xk * xk
        margins[t] = y[i] * dot
        mistakes[t] = (dot > 0.0) != (y[i] > 0.0)
        if sq <= 0.0:
            continue
        new = alpha[i] + (1.0 - y[i] * dot) / (sq * scale)
        new = min(max(new, 0.0), 1.0)
        delta = new - alpha[i]
        if delta != 0.0:
            alpha[i] = new
            b = delta * y[i] * scale
            for k in range(np.uintp(indptr[i]), np.uintp(indptr[i + 1])):
                v[np.uintp(indices[k])] += b * data[k]
            n_updates += 1
    return n_updates


def _generator(random_state):
    """The permutations' source: ``numpy.random.default_rng(random_state)``
    (a Generator or RandomState is used as given)."""
    if isinstance(random_state, (np.random.Generator, np.random.RandomState)):
        return random_state
    try:
        return np.random.default_rng(random_state)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"random_state must be None, a non-negative integer, or a numpy "
            f"Generator or RandomState, got {random_state!r}.") from error


class SparDCA(OnlineClassifier):
    """l1-regularised SVM by prox-SDCA (batch baseline, see the module docstring).

    Parameters
    ----------
    lam : float > 0, default=1e-4
    kappa : float >= 0, default=0.0
        l1 weight relative to the l2 term; larger gives fewer features.
    n_epochs : int >= 1, default=10
        Passes of ``fit`` over the rows.
    shuffle : bool, default=True
        ``fit`` visits the rows of each pass in a fresh random order
        (prox-SDCA's sampling); False: in the given order.
    random_state : None, int, numpy Generator or RandomState, default=None
        Source of the orders (``numpy.random.default_rng(random_state)``).
    record : {"full", "counts"}, default="full"
        As in :class:`olearn.Perceptron`; one round per visit of a row.

    Attributes
    ----------
    coef_ : array (1, n_features)
        ``w = soft_threshold(v, kappa)``.
    intercept_ : array (1,), zero
    dual_coef_ : array (n_samples,)
        ``alpha`` of the rows of the last ``fit``.  Any ``partial_fit`` removes
        it, also a valid one, by design: the call's rows join the problem as
        new dual coordinates (``v`` is rescaled to the larger ``n``), so the
        dual vector of the problem now learned has ``n_fit + n_new`` entries;
        keeping them would make memory grow with the stream (every other
        incremental learner's memory is flat), and keeping only the ``fit``
        rows' entries would describe a problem that is no longer the one
        learned.

    Examples
    --------
    >>> from olearn import SparDCA
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 20))
    >>> y = np.where(X[:, 0] + X[:, 1] > 0, 1, -1)      # only features 0 and 1 matter
    >>> clf = SparDCA(lam=0.01, kappa=20.0, random_state=0).fit(X, y)   # 10 epochs
    >>> np.flatnonzero(np.abs(clf.coef_.ravel()) > 1e-12).tolist()   # the l1 term keeps two
    [0, 1]
    >>> round(clf.score(X, y), 3)
    0.985
    """

    def __init__(self, lam=1e-4, kappa=0.0, n_epochs=10, *, shuffle=True,
                 random_state=None, record="full"):
        self.lam = lam
        self.kappa = kappa
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    def _check_params(self):
        check_positive("lam", self.lam)
        check_positive("kappa", self.kappa, allow_zero=True)

    def _init_state(self, n_features):
        self._v = np.zeros(n_features)
        self._n_seen = np.zeros(1, dtype=np.int64)   # rows of the problem
        # kappa of the last pass: w = soft_threshold(v, kappa) as fitted, not
        # as a later set_params(kappa=...) would make it
        self._kappa = np.zeros(1)
        self.__dict__.pop("dual_coef_", None)

    def _model_arrays(self):
        """The whole model, arrays updated in place: ``v``, the number of rows
        of the problem it belongs to and the ``kappa`` it was learned with."""
        return (self._v, self._n_seen, self._kappa)

    @property
    def coef_(self):
        v = self._v
        kappa = self._kappa[0]
        return (np.sign(v) * np.maximum(np.abs(v) - kappa, 0.0))[np.newaxis, :]

    @property
    def intercept_(self):
        return np.zeros(1)

    @property
    def selected_features_(self):
        return np.flatnonzero(self.coef_[0])

    def _decision(self, X):
        # CSR in O(nnz(X)): the soft-thresholded weights of the row's features only
        if sp.issparse(X):
            return sparse_scores(csr_dot_soft_threshold, X, self._v, float(self._kappa[0]))
        return dense_scores(X, self.coef_[0])     # csr_dot_soft_threshold's order

    def fit(self, X, y):
        """Prox-SDCA on the rows of ``X``: ``n_epochs`` passes (see the class)."""
        self._check_run_params()
        X, y, labels = self._validate(X, y, reset=True)
        self._set_classes(labels)
        self._init_state(X.shape[1])
        self._reset_record()
        X = sp.csr_matrix(X)
        y_pm = self._encode(y)
        n = X.shape[0]
        rng = _generator(self.random_state) if self.shuffle else None
        alpha = np.zeros(n)
        self._n_seen[0] = n
        tic = time.perf_counter()
        for _ in range(int(self.n_epochs)):
            order = (rng.permutation(n) if self.shuffle
                     else np.arange(n)).astype(np.int64)
            self._pending = (order, alpha)
            self._run(X, y_pm)
        self.fit_time_ = time.perf_counter() - tic
        self.dual_coef_ = alpha
        return self

    def partial_fit(self, X, y, classes=None):
        """One online pass of prox-SDCA over the rows of ``X`` (see the class)."""
        self.__dict__.pop("dual_coef_", None)
        return super().partial_fit(X, y, classes=classes)

    def _learn(self, X, y, mistakes, margins):
        if not isinstance(X, tuple):
            X = sp.csr_matrix(X)
            X = (X.data, X.indices, X.indptr)
        pending = self.__dict__.pop("_pending", None)
        n = y.shape[0]
        if pending is None:          # partial_fit: new dual coordinates
            order, alpha = np.arange(n, dtype=np.int64), np.zeros(n)
            old = int(self._n_seen[0])
            self._n_seen[0] = old + n
            if old:
                self._v *= old / (old + n)
        else:
            order, alpha = pending
        self._kappa[0] = self.kappa
        return spardca_epoch(*X, y, order, alpha, self._v, float(self.lam),
                             float(self.kappa), int(self._n_seen[0]),
                             mistakes, margins)
