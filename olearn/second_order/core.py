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

    Both keep ``Sigma_jj > 0``, in floating point too.  The first divides by
    ``1 + gamma Sigma_jj x_j^2 >= 1``.  In the second ``beta Sigma_jj x_j^2
    <= beta chi < 1``, but the subtraction cancels when one feature carries
    nearly all of ``chi`` (a feature of -8.3e9 left ``Sigma_jj = -2.2e-16``,
    and every later row using it had ``x' Sigma x < 0`` and was never
    learned); where it would lose more than half of ``Sigma_jj`` the pass
    writes it as ``Sigma_jj (1/(1 + gamma chi) + beta (chi - Sigma_jj
    x_j^2))``, equal in exact arithmetic and a sum of nonnegative terms
    (:mod:`._variance`).  The full layout's sweep treats its diagonal alike;
    a row on which the full matrix has nevertheless lost its positive
    definiteness to rounding (``x' Sigma x <= 0``) raises
    :class:`olearn.base.NonFiniteModelError`, as does a variance that
    underflows to 0, with the model of the round before.
"""
import numbers

import numba
import numpy as np
import scipy.sparse as sp

from .._checks import assert_finite, check_csr, check_values
from .._rows import csr_dot, dense_scores, sparse_scores
from .._checks import available_memory as _available_memory
from ..base import (OnlineClassifier, _every_value_read, check_positive,
                    narrow_index_width)
from . import rules
from ._covariance_sweep import STATE_SIZE, flush, mirror, sweep_bounds
from ._passes import NOT_POSITIVE, VARIANCE_ZERO, diag_pass, full_pass

COVARIANCES = ("full", "diag")
DIAGONALS = ("precision", "covariance")


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


class SecondOrderClassifier(OnlineClassifier):
    """Base of the learners whose model is a Gaussian ``N(mu, Sigma)``.

    Subclasses set ``_rule`` (an index of :mod:`olearn.second_order.rules`)
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
            self._mu = np.zeros(n_features)
            self.__dict__.pop("_pairs", None)
        else:
            self._pairs = np.zeros((n_features, 2))
            self._pairs[:, 1] = self._sigma0()
            self._diag_views()
        self._p = np.zeros(n_features if self.covariance == "full" else 0)
        self._s = np.zeros(n_features if self.covariance == "full" else 0)
        self._xbuf = np.zeros(n_features if self.covariance == "full" else 0)
        # full: the pending step (_covariance_sweep.PENDING...); diag: bounds
        # on every Sigma_jj (diag_pass)
        self._state = (np.zeros(STATE_SIZE) if self.covariance == "full"
                       else np.full(2, self._sigma0()))
        self._frozen_values = self._frozen()

    def _diag_views(self):
        """Diagonal covariance: ``mu_j`` and ``Sigma_jj`` side by side in one
        d x 2 array ``_pairs`` (the pass reads both for every nonzero: one
        cache line instead of two); ``_mu`` and ``_Sigma`` are its columns."""
        self._mu = self._pairs[:, 0]
        self._Sigma = self._pairs[:, 1]

    def __getstate__(self):
        state = super().__getstate__()
        if "_pairs" in state:      # the views are rebuilt, not pickled as copies
            state = {k: v for k, v in state.items() if k not in ("_mu", "_Sigma")}
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        if "_pairs" in self.__dict__:
            self._diag_views()
        pending = self.__dict__.get("_state")
        if ("_pairs" not in self.__dict__ and pending is not None
                and pending.shape[0] < STATE_SIZE):
            # a full-covariance model pickled before the pending chi and gamma
            # were kept: apply its pending update as it was then (plain form)
            self._state = np.zeros(STATE_SIZE)
            self._state[0] = pending[0]

    def _restore(self, snapshot):
        # the snapshot holds _pairs only (from __getstate__): rebuild its views
        super()._restore(snapshot)
        if "_pairs" in self.__dict__:
            self._diag_views()

    @property
    def _values_checked_in_pass(self):
        """The diagonal pass makes the value checks itself (:func:`diag_pass`)."""
        return self.covariance == "diag"

    def _refuse_values(self, X, row):
        super()._refuse_values(self._float64(X), row)

    @staticmethod
    def _float64(X):
        """check_values reads float64 values: float32 CSR input is checked as
        the float64 values it stands for (only when the pass stopped)."""
        if sp.issparse(X) and X.dtype == np.float32:
            return X.astype(np.float64)
        return X

    def _validate(self, X, y, reset):
        """The base's checks; float32 CSR input (canonical) keeps its values.

        Ours: the passes take every product of a value of ``X`` in float64,
        and every float32 is exactly a float64, so learning from the float32
        values gives the results of ``X.astype(np.float64)`` bit for bit,
        without the copy (15 million values for the sparse benchmark stream).
        ``y``, its labels and the number of features are validated by the
        base on an empty CSR matrix of the same shape; the structure of ``X``
        is checked here as the base checks it, and its values as the base
        does: by the diagonal pass, row by row, or else by a scan first.
        """
        if not (sp.issparse(X) and X.format == "csr" and X.dtype == np.float32
                and X.has_canonical_format):
            return super()._validate(X, y, reset)
        _, y, labels = super()._validate(sp.csr_matrix(X.shape), y, reset)
        check_csr(X)
        if not (self._values_checked_in_pass and _every_value_read(X)):
            bad = ~np.isfinite(X.data)
            if bad.any():
                assert_finite(X.data[bad].astype(np.float64))   # the base's error
        return narrow_index_width(X), y, labels

    def _frozen(self):
        return {name: getattr(self, name) for name in self._frozen_params}

    def _learn(self, X, y, mistakes, margins):
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
            n_updates, failed, why = result
            if failed >= 0:
                raise self._failure(why)
            return n_updates
        result, refused, failed, why = diag_pass(
            X, y, self._pairs, mistakes, margins, self._rule, params,
            self.diagonal == "precision", self._state)
        if failed >= 0:
            raise self._failure(why)
        return -1 - refused if refused >= 0 else result

    def _run(self, X, y_pm):
        """The base's pass; a pass that stops on a failing round before
        reaching a row the up-front scan refuses raises the scan's error.

        The diagonal pass tests each row's values as it reaches it
        (``_values_checked_in_pass``), so on such a matrix it could stop
        earlier, on an overflow, where the layouts that scan first (full
        covariance, non-canonical CSR) raise the scan's ``FeatureRangeError``
        and leave the estimator untouched: the scan runs here, once the pass
        has failed (issue 26, item 10), so every layout raises the same error
        and leaves the same state.
        """
        try:
            super()._run(X, y_pm)
        except FloatingPointError:
            if self._values_checked_in_pass and _every_value_read(X):
                try:
                    check_values(self._float64(X), row_norms=self._checks_row_norms)
                except ValueError as error:
                    error.refused_input = True
                    raise error from None
            raise

    def _failure(self, why):
        """The pass's error for the failure ``why``: its message names the
        cause and the fix, so the base's error gives no generic advice after
        it (``names_fix``: a rule that diverges whatever the scale is not told
        to scale its features)."""
        error = FloatingPointError(self._failure_message(why))
        error.names_fix = True
        return error

    def _failure_message(self, why):
        """Why a round could not be learned, and the fix (the estimator's
        error names the round: :meth:`olearn.base.OnlineClassifier._raise_nonfinite`)."""
        name = type(self).__name__
        if why == NOT_POSITIVE:
            return (
                f"{name}: x' Sigma x <= 0 on a nonzero row: the full covariance "
                f"has lost its positive definiteness to rounding, after an "
                f"update on a row whose features' scales differ by a factor of "
                f"about 1e8 or more (the entries of Sigma - beta s s' are then "
                f"differences of numbers equal to all 16 digits). Scale the "
                f"features (e.g. sklearn's MaxAbsScaler or StandardScaler), or "
                f"use covariance='diag', whose variances stay positive.")
        if why == VARIANCE_ZERO:
            return (
                f"{name}: a variance Sigma_jj underflowed to 0 (below float64's "
                f"smallest number), so the feature could no longer be learned. "
                f"Scale the features (e.g. sklearn's MaxAbsScaler) or use a "
                f"larger a (the initial variance) or regulariser.")
        head = f"{name}: the step overflowed; the pass stopped before applying it. "
        if (self._rule == rules.CW_STDEV and self.covariance == "diag"
                and self.diagonal == "precision"):
            return head + (
                "The diagonal projection of the exact (stdev) CW update "
                "diverges whatever the scale of the features: on a mistake the "
                "full update shrinks Sigma only along x_t, but its diagonal "
                "projection shrinks the variance of every feature of x_t by "
                "the same large factor, so x' Sigma x collapses on later rows "
                "(to about its square at each mistake) while the mean keeps "
                "its size, until the step overflows. Use "
                "version='variance' (the diagonal CW of Dredze et al.), SCW or "
                "AROW, or this rule with covariance='full'.")
        return head + (
            "x' Sigma x has become too small for the margin the round asks "
            "for, e.g. after many updates on features of very different "
            "scales. Scale the features (e.g. sklearn's MaxAbsScaler) and fit "
            "again.")

    def _decision(self, X):
        # CSR in O(nnz(X)): scipy would first copy the strided view _mu (O(d))
        if sp.issparse(X):
            return sparse_scores(csr_dot, X, self._mu)
        return dense_scores(X, self._mu)     # csr_dot's order

    def _model_arrays(self):
        return (self._mu, self._Sigma)

    # -- the model -------------------------------------------------------------
    @property
    def coef_(self):
        """The mean ``mu`` as a ``(1, n_features)`` array."""
        return self._mu[np.newaxis, :].copy()

    @property
    def covariance_(self):
        """``Sigma``: a symmetric d x d matrix (full) or a vector (diag), as
        fitted (a later ``set_params(covariance=...)`` does not change it)."""
        if self._Sigma.ndim == 2:
            flush(self._Sigma, self._p, self._state)
            return mirror(self._Sigma)
        return self._Sigma.copy()

    def _set_model(self, mu, Sigma):
        """Set ``(mu, Sigma)`` of a fitted learner (for the per-round checks)."""
        self._mu[:] = mu
        if self._Sigma.ndim == 2:
            flush(self._Sigma, self._p, self._state)
            self._Sigma[:] = np.triu(Sigma)
        else:
            self._Sigma[:] = Sigma
            self._state[:] = self._Sigma.min(), self._Sigma.max()
