"""Second-order learners: the model is a mean ``mu`` and a covariance ``Sigma``.

Every learner of this family (AROW, CW, SCW, SOP, NAROW) makes the same kind
of round.  With ``m_t = mu . x_t``, ``s_t = Sigma x_t`` and the confidence
``chi_t = x_t' Sigma x_t`` (``v_t`` or ``V_t`` in the CW papers), a rule of the
learner's paper returns

``f``
    the score it predicts with (``m_t`` except for SOP and NAROW, which put
    ``x_t`` into the matrix before predicting: ``f = m_t r_t / (r_t + chi_t)``),
``alpha``
    the mean step, ``mu <- mu + alpha s_t`` (``alpha`` includes the sign ``y_t``),
``gamma``
    the precision step, ``Sigma^{-1} <- Sigma^{-1} + gamma x_t x_t'``,
``beta``
    the same step written for ``Sigma`` (Woodbury),
    ``Sigma <- Sigma - beta s_t s_t'`` with ``beta = gamma / (1 + gamma chi_t)``;
    each rule computes ``beta`` in its paper's own form.

Full covariance (``covariance="full"``)
    ``Sigma`` is a d x d array of which only the upper triangle is kept
    (``covariance_`` mirrors it, so the matrix the user sees is exactly
    symmetric).  The rank-one update of round t is not applied at once: it is
    kept pending (the vector ``s_t`` and the scalar ``beta_t``) and applied in
    round t+1 by the same sweep over the triangle that computes
    ``s_{t+1} = Sigma x_{t+1}`` (:func:`sweep`): one read and one write of
    d(d+1)/2 numbers per round, where a symmetric matrix-vector product
    followed by a symmetric rank-one update (BLAS ``dsymv`` + ``dsyr``) reads
    the triangle twice and writes it once.  No ``x x'`` or ``s s'`` temporary is ever formed.  The
    pending update is applied before ``covariance_`` is read.
    ``n_jobs`` (ours, opt-in; default ``None`` = the serial sweep above,
    unchanged) runs :func:`sweep_parallel` instead: the row pairs are cut
    into ``T`` chunks of about equal numbers of triangle entries
    (:func:`sweep_bounds`), one numba thread per chunk, each scattering into
    its own partial ``s``; the partials are summed at the end.  Only the
    order of the additions in ``s`` differs from the serial sweep.
Diagonal covariance (``covariance="diag"``)
    ``Sigma`` is a vector; the round runs the full-covariance formulas with
    ``Sigma`` replaced by its diagonal, then projects the covariance update
    onto diagonal matrices, touching only the nonzeros of ``x_t`` (O(nnz)).
    Two projections occur in the literature:

    ``diagonal="precision"`` (default)
        project the update of ``Sigma^{-1}``:
        ``1/Sigma_jj <- 1/Sigma_jj + gamma x_tj^2``.  This is the projection of
        Dredze, Crammer and Pereira (ICML 2008, Section 5, the "diagonal"
        Variance algorithm, ``Sigma^{-1} + 2 alpha phi diag(x)``) that the AROW
        paper follows (its footnote 2: "projecting onto the set of diagonal
        matrices, following the approach of [6]").
    ``diagonal="covariance"`` (ours, not the papers')
        project the update of ``Sigma``:
        ``Sigma_jj <- Sigma_jj - beta (Sigma_jj x_tj)^2``, the form several
        public implementations use for AROW, CW and SCW.

    Both keep ``Sigma_jj > 0`` (the first divides by ``1 + gamma Sigma_jj x_j^2
    >= 1``; in the second ``beta Sigma_jj x_j^2 <= beta chi < 1``).
"""
import numbers
import os

import numba
import numpy as np
from numba import njit, prange
from sklearn.utils.extmath import safe_sparse_dot

from .._rows import row_dot
from ..base import OnlineClassifier, check_positive

COVARIANCES = ("full", "diag")
DIAGONALS = ("precision", "covariance")
PENDING = 0      # state[PENDING]: beta of the rank-one update not yet applied


def _available_memory():
    """Bytes of physical memory available now (None if unknown)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_full_fits(name, n_features):
    """Raise before allocating a d x d ``Sigma`` that cannot fit in memory."""
    need = 8 * n_features * n_features
    available = _available_memory()
    if available is not None and need > available:
        raise MemoryError(
            f"{name}(covariance='full') needs a {n_features} x {n_features} "
            f"float64 covariance matrix ({need / 2**30:.1f} GiB), more than the "
            f"{available / 2**30:.1f} GiB of memory available. Use "
            f"covariance='diag' (a vector of {n_features} variances) for "
            f"high-dimensional data.")


# -- the full-covariance sweep -------------------------------------------------
@njit(cache=True, fastmath={"reassoc", "contract", "nsz"})
def sweep(S, p, beta, x, s):
    """Apply ``S <- S - beta p p'`` and return ``s = S x`` in one sweep.

    ``S`` holds the upper triangle of a symmetric matrix (``S[i, j]``, j >= i);
    ``x`` is dense.  Rows are taken two at a time: rows ``i`` and ``i+1`` of
    the triangle are updated, scattered into ``s`` (``s_j += S_ij x_i +
    S_{i+1,j} x_{i+1}``) and dotted with ``x`` in one loop, so ``s``, ``p``
    and ``x`` are streamed once per pair of rows.  The loops run over slices
    (0-based: numba's index wraparound check vanishes and LLVM vectorises
    them); ``reassoc`` lets LLVM vectorise the dot products, which changes
    only the order in which their terms are added.  With ``beta == 0`` the
    triangle is only read.
    """
    d = x.shape[0]
    _sweep_pairs(S, p, beta, x, s, 0, d // 2)
    if d % 2 == 1:
        i = d - 1
        v = S[i, i] - beta * p[i] * p[i]
        S[i, i] = v
        s[i] += v * x[i]


@njit(cache=True, fastmath={"reassoc", "contract", "nsz"})
def _sweep_pairs(S, p, beta, x, s, q0, q1):
    """The loop of :func:`sweep` over the row pairs ``q0 <= q < q1`` (rows
    ``2q`` and ``2q+1``), scattering into ``s``; ``s[2 q0:]`` is zeroed first
    (a chunk never writes below its first row)."""
    d = x.shape[0]
    for j in range(2 * q0, d):
        s[j] = 0.0
    for q in range(q0, q1):
        i = 2 * q
        k = i + 1
        bpi = beta * p[i]
        bpk = beta * p[k]
        xi = x[i]
        xk = x[k]
        a00 = S[i, i] - bpi * p[i]
        a01 = S[i, k] - bpi * p[k]
        a11 = S[k, k] - bpk * p[k]
        Si = S[i, i + 2:]
        Sk = S[k, i + 2:]
        pv = p[i + 2:]
        xv = x[i + 2:]
        sv = s[i + 2:]
        acc_i = a00 * xi + a01 * xk
        acc_k = a01 * xi + a11 * xk
        if beta != 0.0:
            S[i, i] = a00
            S[i, k] = a01
            S[k, k] = a11
            for j in range(Si.shape[0]):
                vi = Si[j] - bpi * pv[j]
                vk = Sk[j] - bpk * pv[j]
                Si[j] = vi
                Sk[j] = vk
                sv[j] += vi * xi + vk * xk
                acc_i += vi * xv[j]
                acc_k += vk * xv[j]
        else:
            for j in range(Si.shape[0]):
                vi = Si[j]
                vk = Sk[j]
                sv[j] += vi * xi + vk * xk
                acc_i += vi * xv[j]
                acc_k += vk * xv[j]
        s[i] += acc_i
        s[k] += acc_k


def sweep_bounds(d, n_chunks):
    """Pair indices ``0 = b_0 <= ... <= b_T = d // 2`` that cut the row pairs
    of a d x d triangle into ``T = n_chunks`` chunks of about the same number
    of entries (pair ``q``, rows ``2q`` and ``2q+1``, holds ``2d - 1 - 4q``)."""
    n_pairs = d // 2
    sizes = 2 * d - 1 - 4 * np.arange(n_pairs, dtype=np.int64)
    cum = np.concatenate(([0], np.cumsum(sizes)))
    targets = cum[-1] * np.arange(1, n_chunks) / n_chunks
    inner = np.searchsorted(cum, targets)
    return np.concatenate(([0], inner, [n_pairs])).astype(np.int64)


@njit(cache=True, parallel=True, fastmath={"reassoc", "contract", "nsz"})
def sweep_parallel(S, p, beta, x, s, bounds, parts):
    """:func:`sweep` on ``T = len(bounds) - 1`` threads (opt-in, ``n_jobs``).

    Chunk ``c`` takes the row pairs ``bounds[c] <= q < bounds[c+1]`` (from
    :func:`sweep_bounds`: about the same number of triangle entries each),
    updates them and scatters ``S x`` into its own row ``parts[c]`` (a T x d
    buffer: no two threads write the same number); the partial vectors are
    then summed into ``s``.  Each entry of ``S`` and ``s`` is computed by the
    same operations as in :func:`sweep` (same fastmath flags); only the order
    in which the terms of ``s_j`` are added differs (the chunks' partial sums
    are added at the end), so results differ from the serial sweep by
    rounding only.
    """
    d = x.shape[0]
    n_chunks = bounds.shape[0] - 1
    for c in prange(n_chunks):
        _sweep_pairs(S, p, beta, x, parts[c], bounds[c], bounds[c + 1])
    for j in range(d):
        s[j] = 0.0
    for c in range(n_chunks):
        lo = 2 * bounds[c]
        if 2 * bounds[c + 1] > lo:
            pc = parts[c, lo:]
            sv = s[lo:]
            for j in range(pc.shape[0]):
                sv[j] += pc[j]
    if d % 2 == 1:
        i = d - 1
        v = S[i, i] - beta * p[i] * p[i]
        S[i, i] = v
        s[i] += v * x[i]


@njit(cache=True)
def flush(S, p, state):
    """Apply the pending rank-one update to the triangle."""
    beta = state[PENDING]
    if beta != 0.0:
        d = p.shape[0]
        for i in range(d):
            bpi = beta * p[i]
            for j in range(i, d):
                S[i, j] -= bpi * p[j]
        state[PENDING] = 0.0


@njit(cache=True)
def mirror(S):
    """The symmetric matrix whose upper triangle is ``S`` (a copy)."""
    d = S.shape[0]
    out = np.empty((d, d))
    for i in range(d):
        for j in range(i, d):
            out[i, j] = S[i, j]
            out[j, i] = S[i, j]
    return out


def _is_csr(X):
    return isinstance(X, tuple)


class SecondOrderClassifier(OnlineClassifier):
    """Base of the learners whose model is a Gaussian ``N(mu, Sigma)``.

    Subclasses set ``_rule`` (an index of :mod:`olearn.second_order._passes`)
    and ``_rule_params()``; ``_sigma0()`` gives the initial variance.
    """

    _frozen_params = ("covariance", "diagonal", "a")

    def _check_common(self):
        if self.covariance not in COVARIANCES:
            raise ValueError(f"covariance must be one of {COVARIANCES}, "
                             f"got {self.covariance!r}.")
        if self.diagonal not in DIAGONALS:
            raise ValueError(f"diagonal must be one of {DIAGONALS}, "
                             f"got {self.diagonal!r}.")
        check_positive("a", self.a)
        self._check_n_jobs()

    def _check_n_jobs(self):
        n_jobs = getattr(self, "n_jobs", None)
        ok = n_jobs is None or (
            isinstance(n_jobs, numbers.Integral) and not isinstance(n_jobs, bool)
            and (n_jobs >= 1 or n_jobs == -1))
        if not ok:
            raise ValueError(f"n_jobs must be None, -1 or an integer >= 1, "
                             f"got {n_jobs!r}.")

    def _n_threads(self):
        """Threads of the full-covariance sweep: 1 (the serial :func:`sweep`)
        for ``n_jobs`` None or 1; ``-1`` means all of numba's threads; more
        than numba's ``NUMBA_NUM_THREADS`` is capped there (``n_jobs`` is
        validated by :meth:`_check_params`, which every pass runs first)."""
        n_jobs = getattr(self, "n_jobs", None)
        if n_jobs is None or n_jobs == 1:
            return 1
        limit = numba.config.NUMBA_NUM_THREADS
        return limit if n_jobs == -1 else min(int(n_jobs), limit)

    def _sigma0(self):
        return float(self.a)

    def _init_state(self, n_features):
        if self.covariance == "full":
            check_full_fits(type(self).__name__, n_features)
            self._Sigma = self._sigma0() * np.eye(n_features)
        else:
            self._Sigma = np.full(n_features, self._sigma0())
        self._mu = np.zeros(n_features)
        self._p = np.zeros(n_features if self.covariance == "full" else 0)
        self._s = np.zeros(n_features)
        self._xbuf = np.zeros(n_features if self.covariance == "full" else 0)
        self._state = np.zeros(1)
        self._frozen_values = self._frozen()

    def _frozen(self):
        return {name: getattr(self, name) for name in self._frozen_params}

    def _learn(self, X, y, mistakes, margins):
        from ._passes import diag_pass, full_pass
        self._check_params()
        now = self._frozen()
        if now != self._frozen_values:
            changed = [f"{k}={self._frozen_values[k]!r} -> {now[k]!r}"
                       for k in now if now[k] != self._frozen_values[k]]
            raise ValueError(
                f"{type(self).__name__}: {', '.join(changed)} changed since the "
                f"model was initialised; the fitted mean and covariance cannot "
                f"follow. Call fit to start again.")
        params = np.asarray(self._rule_params(), dtype=np.float64)
        n_threads = self._n_threads()
        if self.covariance == "full":
            d = self._mu.shape[0]
            if n_threads > 1:
                bounds = sweep_bounds(d, n_threads)
                parts = np.empty((n_threads, d))
            else:  # the serial sweep (bounds and parts unused)
                bounds = np.zeros(1, dtype=np.int64)
                parts = np.empty((0, 0))
            previous = numba.get_num_threads()
            if n_threads > 1:
                numba.set_num_threads(n_threads)
            try:
                result = full_pass(X, y, self._mu, self._Sigma, self._p, self._s,
                                   self._xbuf, self._state, mistakes, margins,
                                   self._rule, params, bounds, parts)
            finally:
                numba.set_num_threads(previous)
        else:
            result = diag_pass(X, y, self._mu, self._Sigma, self._s, mistakes,
                               margins, self._rule, params,
                               self.diagonal == "precision")
        if result < 0:
            t = -1 - result
            raise FloatingPointError(
                f"{type(self).__name__}: the step of round {t} of this call "
                f"overflowed (x' Sigma x has become too small for the "
                f"margin the round asks for, e.g. after many updates on "
                f"features of very different scales); the pass stopped before "
                f"applying it (the online record does not cover this call). "
                f"Scale the features (e.g. sklearn's MaxAbsScaler) and fit "
                f"again.")
        return result

    def _decision(self, X):
        return safe_sparse_dot(X, self._mu)

    def _model_arrays(self):
        return (self._mu, self._Sigma)

    # -- the model -------------------------------------------------------------
    @property
    def coef_(self):
        """The mean ``mu`` as a ``(1, n_features)`` array."""
        return self._mu[np.newaxis, :].copy()

    @property
    def covariance_(self):
        """``Sigma``: a symmetric d x d matrix (full) or a vector (diag)."""
        if self.covariance == "full":
            flush(self._Sigma, self._p, self._state)
            return mirror(self._Sigma)
        return self._Sigma.copy()

    def _set_model(self, mu, Sigma):
        """Set ``(mu, Sigma)`` of a fitted learner (for the per-round checks)."""
        flush(self._Sigma, self._p, self._state)
        self._mu[:] = mu
        if self.covariance == "full":
            self._Sigma[:] = np.triu(Sigma)
        else:
            self._Sigma[:] = Sigma
