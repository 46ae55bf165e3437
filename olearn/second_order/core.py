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
    ``s_{t+1} = Sigma x_{t+1}``: one read and one write of d(d+1)/2 numbers per
    round, where a symmetric matrix-vector product followed by a symmetric
    rank-one update (BLAS ``dsymv`` + ``dsyr``) reads the triangle twice and
    writes it once.  No ``x x'`` or ``s s'`` temporary is ever formed.  The
    pending update is applied before ``covariance_`` is read.
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
import os

import numpy as np
from numba import njit
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
    ``x`` is dense.  Row ``i`` of the triangle is updated and scattered into
    ``s`` (``s_j += S_ij x_i``, j >= i) in one loop, then dotted with ``x``
    (``s_i += S_ij x_j``, j > i) while it is still in cache.  The loops run
    over slices (0-based, so numba's index wraparound check vanishes and LLVM
    vectorises them); ``reassoc`` lets LLVM vectorise the dot product, which
    changes only the order in which its terms are added.
    """
    d = x.shape[0]
    for i in range(d):
        s[i] = 0.0
    for i in range(d):
        Si = S[i, i:]
        pv = p[i:]
        xv = x[i:]
        sv = s[i:]
        xi = x[i]
        bpi = beta * p[i]
        n = Si.shape[0]
        if beta != 0.0:
            for j in range(n):
                v = Si[j] - bpi * pv[j]
                Si[j] = v
                sv[j] += v * xi
        else:
            for j in range(n):
                sv[j] += Si[j] * xi
        acc = 0.0
        for j in range(1, n):
            acc += Si[j] * xv[j]
        s[i] += acc


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
        if self.covariance == "full":
            result = full_pass(X, y, self._mu, self._Sigma, self._p, self._s,
                               self._xbuf, self._state, mistakes, margins,
                               self._rule, params)
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
