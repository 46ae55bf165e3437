"""Online-batch confidence-weighted learning, BCW (Tan et al., AAAI 2016, Algorithm 1).

For each batch ``{X_h, y_h}`` of ``N_h`` rows (paper's notation; ``X_h`` is
d x N_h there, the rows of ``X`` here):

1. **Sigma step** (eqs. 5-6).  The covariance solves
   ``min_Sigma KL(N(mu, Sigma) || N(mu_hat, Sigma_hat)) + C/2 sum_i x_i^T Sigma x_i``
   whose KKT condition is ``Sigma^{-1} = Sigma_hat^{-1} + C X_h X_h^T``;
   eq. (6) writes it with the Woodbury identity.  Of the two inversions the
   cheaper one runs (d x d when ``d <= N_h``, else N_h x N_h; recorded in
   ``sigma_branches_``).  ``Upsilon`` (``Upsilon^2 = Sigma``) comes from the
   eigendecomposition of ``Sigma_hat^{-1} + C X_h X_h^T``.
2. **Pass** (eqs. 7-8).  With ``w = Upsilon^{-1} mu`` and whitened rows
   ``x_hat_i = Upsilon x_i`` the mean step is the linear SVM (8); Algorithm 1
   makes one online dual-coordinate pass from ``w^0 = Upsilon^{-1} mu_hat``:
   ``xi_i = max(0, 1 - y_i w.x_hat_i)`` and, if ``xi_i > 0``,
   ``alpha_i = min(xi_i / ||x_hat_i||^2, C)`` (``q = 1``) or
   ``alpha_i = xi_i / (||x_hat_i||^2 + 0.5/C)`` (``q = 2``), ``w += alpha_i y_i x_hat_i``.
   Finally ``mu = Upsilon w``.

The time of step 1 and of step 2 are kept apart (``sigma_times_``,
``pass_times_``), as the paper's Table 2 reports them.

Ours, not the paper's (options, off by default): ``n_inner_passes > 1``
repeats the dual-coordinate pass over the batch (Hsieh et al.'s DCD, which then
converges to the minimiser of ``1/2 ||w - w^0||^2 + C/q' sum xi_i^q``; for the
first batch ``w^0 = 0`` and this is eq. (8); see ``olearn.verify.sparse_cw``
for the loss scaling of ``q = 2``).

Whitening makes every row dense (``Upsilon`` is a full matrix): sparse rows
are whitened one at a time inside the compiled pass (O(nnz(x) d) a row),
dense rows in blocks by BLAS.  BCW is for low- and medium-dimensional data; it keeps a d x d eigenbasis and refuses,
before allocating, a covariance that does not fit in memory (use
:class:`olearn.SBCW` or a diagonal learner then).
"""
import numbers
import time

import numpy as np
import scipy.sparse as sp
from numba import njit

from .._rows import csr_dot, dense_scores, sparse_scores
from ..base import NonFiniteModelError, OnlineClassifier, check_positive
from ._bcw_common import (as_matrix, available_memory, dcd_step, sigma_update,
                          upsilon)

#: rows whitened at a time in the pass (bounds the dense copy of the batch)
CHUNK_ROWS = 8192


@njit(cache=True)
def bcw_pass(Xh, y, w, alpha, offset, mistakes, margins, record, C, q):
    """One dual-coordinate pass of Algorithm 1 over whitened rows ``Xh``.

    ``alpha`` holds the dual variables of the batch (``offset`` is the index
    of ``Xh``'s first row in it).  With ``record`` the margin before the
    step is written to ``margins`` and the mistake flag to ``mistakes``.
    Returns the number of rounds on which ``w`` moved.
    """
    n, d = Xh.shape
    n_updates = 0
    for t in range(n):
        dot = 0.0
        sq = 0.0
        for j in range(d):
            xj = Xh[t, j]
            dot += w[j] * xj
            sq += xj * xj
        margin = y[t] * dot
        if record:
            margins[t] = margin
            mistakes[t] = (dot > 0.0) != (y[t] > 0.0)
        i = offset + t
        a = dcd_step(margin, sq, alpha[i], C, q)
        delta = a - alpha[i]
        alpha[i] = a
        if delta != 0.0 and sq > 0.0:
            b = delta * y[t]
            for j in range(d):
                w[j] += b * Xh[t, j]
            n_updates += 1
    return n_updates


@njit(cache=True)
def bcw_pass_csr(data, indices, indptr, U, y, w, alpha, xh, mistakes, margins,
                 record, C, q):
    """:func:`bcw_pass` over CSR rows, whitening each row on the fly:
    ``x_hat = Upsilon x = sum_k x_k Upsilon[j_k, :]`` (``Upsilon`` symmetric),
    O(nnz(x) d) per row, into the buffer ``xh``; no whitened copy of the batch.
    """
    d = U.shape[0]
    n_updates = 0
    for t in range(y.shape[0]):
        for j in range(d):
            xh[j] = 0.0
        for k in range(indptr[t], indptr[t + 1]):
            row = indices[k]
            v = data[k]
            for j in range(d):
                xh[j] += v * U[row, j]
        dot = 0.0
        sq = 0.0
        for j in range(d):
            dot += w[j] * xh[j]
            sq += xh[j] * xh[j]
        margin = y[t] * dot
        if record:
            margins[t] = margin
            mistakes[t] = (dot > 0.0) != (y[t] > 0.0)
        a = dcd_step(margin, sq, alpha[t], C, q)
        delta = a - alpha[t]
        alpha[t] = a
        if delta != 0.0 and sq > 0.0:
            b = delta * y[t]
            for j in range(d):
                w[j] += b * xh[j]
            n_updates += 1
    return n_updates


def check_covariance_fits(n_features, max_bytes=None):
    """Raise ``MemoryError`` (a clear one) if BCW's d x d matrices do not fit.

    BCW holds about three d x d float64 arrays at once (the eigenbasis, the
    precision or covariance being decomposed, and ``Upsilon``).
    """
    need = 3 * 8 * int(n_features) ** 2
    limit = available_memory() if max_bytes is None else max_bytes
    if limit is not None and need > limit:
        raise MemoryError(
            f"BCW keeps a full {n_features} x {n_features} covariance: about "
            f"{need / 2**30:.1f} GiB, more than the {limit / 2**30:.1f} GiB "
            f"available. Use olearn.SBCW (block-diagonal covariance over "
            f"selected features) or a learner with a diagonal covariance.")


class BCW(OnlineClassifier):
    """Online-batch confidence-weighted classifier (Algorithm 1 of Tan et al. 2016).

    Parameters
    ----------
    C : float > 0, default=1.0
        Trade-off of eqs. (5) and (7): weight of the confidence term and of
        the loss.
    q : {1, 2}, default=1
        Hinge (BCW-L1) or squared hinge (BCW-L2) loss.
    batch_size : int >= 1 or None, default=None
        ``fit`` splits each epoch into batches of this many rows; None makes
        the rows of one ``fit`` epoch or one ``partial_fit`` call one batch
        (the paper loads each data set as one batch).  ``partial_fit`` takes
        its rows as one batch when ``batch_size`` is None, else splits them too.
    sigma_method : {"auto", "inverse", "woodbury"}, default="auto"
        Which inversion of eq. (6): the cheaper (paper), or forced.
    n_inner_passes : int >= 1, default=1
        Dual-coordinate passes over each whitened batch (the mean step's
        solver); 1 is Algorithm 1 (more is ours, not the paper's).  Not
        ``n_epochs``, which repeats the whole stream, covariance step included.
    max_covariance_bytes : int or None
        Memory allowed for the d x d matrices; None: the memory available.
    n_epochs, shuffle, random_state, record
        As in :class:`olearn.Perceptron` (``record="counts"`` keeps only the
        counts of the online record).

    Attributes
    ----------
    coef_ : array (1, n_features)
        The mean ``mu``.
    covariance_ : array (n_features, n_features)
        ``Sigma`` after the last batch.
    sigma_branches_, sigma_times_, pass_times_ : lists, one entry per batch
        Which inversion ran and the seconds of the Sigma step and of the pass
        (a per-batch record: absent with ``record="counts"``).
    sigma_time_, pass_time_ : float
        Their totals (kept with either ``record``).

    Examples
    --------
    >>> from olearn import BCW
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = BCW(C=1.0, q=1).fit(X, y)   # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 6)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    def __init__(self, C=1.0, q=1, batch_size=None, *, sigma_method="auto",
                 n_inner_passes=1, max_covariance_bytes=None, n_epochs=1,
                 shuffle=False, random_state=None, record="full"):
        self.C = C
        self.q = q
        self.batch_size = batch_size
        self.sigma_method = sigma_method
        self.n_inner_passes = n_inner_passes
        self.max_covariance_bytes = max_covariance_bytes
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    # -- parameters -------------------------------------------------------------
    def _check_params(self):
        check_positive("C", self.C)
        if isinstance(self.q, bool) or self.q not in (1, 2):
            raise ValueError(f"q must be 1 (hinge loss) or 2 (squared hinge "
                             f"loss), got {self.q!r}.")
        if self.batch_size is not None and (
                not isinstance(self.batch_size, numbers.Integral)
                or isinstance(self.batch_size, bool) or self.batch_size < 1):
            raise ValueError(f"batch_size must be a positive integer or None, "
                             f"got {self.batch_size!r}.")
        if self.sigma_method not in ("auto", "inverse", "woodbury"):
            raise ValueError(f"sigma_method must be 'auto', 'inverse' or "
                             f"'woodbury', got {self.sigma_method!r}.")
        if (not isinstance(self.n_inner_passes, numbers.Integral)
                or isinstance(self.n_inner_passes, bool)
                or self.n_inner_passes < 1):
            raise ValueError(f"n_inner_passes must be a positive integer, "
                             f"got {self.n_inner_passes!r}.")
        if self.max_covariance_bytes is not None:
            check_positive("max_covariance_bytes", self.max_covariance_bytes)

    # -- model --------------------------------------------------------------------
    def _init_state(self, n_features):
        check_covariance_fits(n_features, self.max_covariance_bytes)
        self._mu = np.zeros(n_features)
        self._V = np.eye(n_features)      # Sigma = V diag(s) V^T, Sigma_0 = I
        self._s = np.ones(n_features)
        self._seconds = np.zeros(2)       # totals of the Sigma step and of the pass
        if self._full_record():
            self.sigma_branches_ = []
            self.sigma_times_ = []
            self.pass_times_ = []

    def _model_arrays(self):
        """The whole model (``mu`` and ``Sigma = V diag(s) V^T``), arrays of
        fixed shape that every batch overwrites in place."""
        return (self._mu, self._V, self._s)

    @property
    def coef_(self):
        """The mean ``mu`` as a ``(1, n_features)`` array."""
        return self._mu[np.newaxis, :]

    @property
    def covariance_(self):
        """``Sigma = V diag(s) V^T`` after the last batch."""
        return (self._V * self._s) @ self._V.T

    @property
    def sigma_time_(self):
        return float(self._seconds[0])

    @property
    def pass_time_(self):
        return float(self._seconds[1])

    def _decision(self, X):
        # one order of the sums for every layout (csr_dot's)
        if sp.issparse(X):
            return sparse_scores(csr_dot, sp.csr_matrix(X), self._mu)
        return dense_scores(X, self._mu)

    # -- learning -----------------------------------------------------------------
    def _learn(self, X, y, mistakes, margins):
        self._check_params()   # also on later partial_fit calls
        X = as_matrix(X, self._mu.shape[0])
        n = y.shape[0]
        size = n if self.batch_size is None else int(self.batch_size)
        n_updates = 0
        for start in range(0, n, size):
            stop = min(start + size, n)
            if start == 0 and stop == n:
                batch = (X, y, mistakes, margins)
            else:
                batch = (X[start:stop], y[start:stop], mistakes[start:stop],
                         margins[start:stop])
            try:
                n_updates += self._learn_batch(*batch)
            except (FloatingPointError, np.linalg.LinAlgError) as error:
                # LinAlgError: a Cholesky factor of a matrix that is positive
                # definite in exact arithmetic failed, which only overflow does
                if isinstance(error, NonFiniteModelError):
                    raise
                raise NonFiniteModelError(
                    f"BCW, batch of rounds {self.n_rounds_ + start + 1} to "
                    f"{self.n_rounds_ + stop}: {error}; raised before the batch "
                    f"changed the model.") from error
        return n_updates

    def _learn_batch(self, X, y, mistakes, margins):
        """Algorithm 1 on one batch; returns the updates of its first pass."""
        C, q = float(self.C), int(self.q)
        tic = time.perf_counter()
        V, s, branch = sigma_update(self._V, self._s, X, C, self.sigma_method)
        U = upsilon(V, s)                                  # Upsilon = Sigma^{1/2}
        sigma_seconds = time.perf_counter() - tic

        tic = time.perf_counter()
        # w^0 = Upsilon^{-1} mu_hat = V diag(s^{-1/2}) V^T mu_hat
        w = V @ ((V.T @ self._mu) / np.sqrt(s))
        alpha = np.zeros(y.shape[0])
        n_updates = 0
        sparse = sp.issparse(X)
        if sparse:
            X = sp.csr_matrix(X)
            xh = np.zeros(U.shape[0])
        for p in range(int(self.n_inner_passes)):
            if sparse:
                count = bcw_pass_csr(X.data, X.indices, X.indptr, U, y, w, alpha, xh,
                                     mistakes, margins, p == 0, C, q)
                if p == 0:
                    n_updates += count
                continue
            for start in range(0, y.shape[0], CHUNK_ROWS):
                stop = min(start + CHUNK_ROWS, y.shape[0])
                Xh = np.ascontiguousarray(X[start:stop] @ U)   # rows Upsilon x_i
                count = bcw_pass(Xh, y[start:stop], w, alpha, start,
                                 mistakes[start:stop], margins[start:stop],
                                 p == 0, C, q)
                if p == 0:
                    n_updates += count
        # committed in place (the arrays of _model_arrays stay the same objects)
        self._V[...] = V
        self._s[...] = s
        self._mu[...] = U @ w
        pass_seconds = time.perf_counter() - tic
        self._seconds += (sigma_seconds, pass_seconds)
        if self._full_record():
            self.sigma_times_.append(sigma_seconds)
            self.sigma_branches_.append(branch)
            self.pass_times_.append(pass_seconds)
        return n_updates
