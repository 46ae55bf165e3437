"""Sparse online-batch confidence-weighted learning, SBCW (Tan et al., AAAI 2016).

Algorithm 2 (cutting plane over feature groups) on each batch ``{X_h, y_h}``:

1. start from ``alpha^0 = 1`` (at ``mu = 0`` every hinge loss is active);
2. feature scores (eq. 14): ``s = sum_i alpha_i y_i x_i``, score ``s_j^2``;
   the ``r`` features of largest score not yet selected form a new group
   ``eta_t`` (the most violated constraint of (11), with ``Sigma(eta)``
   taken as the identity as the paper does);
3. the group gets its own covariance block (eq. 6 restricted to its
   features, ``O(r^3 + N_h^2 r)``: Remark 1), ``Sigma_k = (Sigma_hat_k^{-1} +
   C X_k X_k^T)^{-1}`` and ``Upsilon_k^2 = Sigma_k``; the whitened block
   ``x_hat_i^k = Upsilon_k x_i^k`` is appended;
4. subproblem (13), i.e. the l2,1^2-regularised SVM (15) smoothed to (16), is
   solved by Algorithm 3 (``_sbcw_prox.prox_pass``) giving ``alpha^t``,
   ``z`` and ``w = grad Omega*(z)``;
5. stop on the paper's three rules, the first applied to the recorded dual
   value: ``|D_t - D_{t-1}| / |D_t| <= tol`` (the paper states it on
   ``theta_t``, the optimum of (15); ``D_t`` is what one pass of Algorithm 3
   reaches, and it need not decrease); the memory for the next group's block
   would exceed ``max_memory``; ``m_iter`` iterations.  (Also when no
   unselected feature has a nonzero score: no violated constraint is left.)

``theta_`` records ``D_t = D(alpha^t)``, the dual value of (16) reached by
the solver, and ``primal_`` the primal value ``P_t = P(w^t)`` beside it.
Neither is the paper's ``theta_t`` (the optimum of (15)).  With ``opt_t`` the
optimum of (16) over the first ``t`` groups, weak duality and the nesting of
the groups (adding a group adds variables to the minimisation) give
``D_{t+1} <= opt_{t+1} <= opt_t <= P_t`` whatever the solver's accuracy; this
is not Theorem 1, and ``D_t <= theta_t`` need not hold (the smoothing term
raises ``opt_t`` above ``theta_t``).  ``D_{t+1} <= P_t`` is checked after
every iteration of every run (a violation raises ``AssertionError``).

The groups are disjoint (the paper's ``Sigma`` is block diagonal with ``K``
blocks of size ``r``): the top ``r`` are taken among features not selected
yet.  Memory: ``O(d + N_h K r + K r^2)`` besides the data, never d x d.

``covariance=False`` gives FGM (Tan, Tsang, Wang 2014) as the paper
compares it: the same cutting plane with ``Sigma = I`` (Algorithm 3 as the
subproblem solver; FGM's own solver is an accelerated proximal gradient
method, so this is our stand-in, not FGM's code).

Batches after the first (the paper details the first batch, ``mu_hat = 0``;
the rest is derived from Algorithm 1, which starts each batch's pass from
``w^0 = Upsilon^{-1} mu_hat``): the active groups are kept, each block is
updated by eq. (6) with the previous block as ``Sigma_hat_k``, and

* Algorithm 3 starts from ``w^0_k = Upsilon_k^{-1} mu_hat_k`` (0 on new
  groups), i.e. from ``z^0 in d Omega(w^0)`` (``w = grad Omega*(z)`` is
  Algorithm 3's own invariant; ``mu_hat = 0`` gives the printed
  ``z^0 = 0``).  It then ascends the dual of ``Omega(w) - z^0.w + C sum_i
  l_i``, the Bregman form of (16) around ``w^0`` (for BCW's
  ``Omega = 1/2||w||^2`` this is ``1/2||w - w^0||^2 + C sum_i l_i``, the
  objective of Algorithm 1's warm-started pass);
* Algorithm 2's iteration ``t = 0`` solves that subproblem over the
  carried-over groups (``theta_[0]``), and ``alpha^0`` of eq. (14) is its
  solution, so new groups are scored on what the current model gets wrong
  (the first batch starts from ``alpha^0 = 1``, as at ``mu = 0``).

So a batch that adds no group still learns on the carried-over groups, and a
batch with no active group at all leaves the model as it was.
"""
import numbers
import time

import numpy as np
import scipy.sparse as sp

from .._rows import csr_dot_subset, dense_scores, sparse_scores
from ..base import NonFiniteModelError, OnlineClassifier, check_positive
from ._bcw_common import (available_memory, inverse_upsilon, sigma_update,
                          upsilon)
from ._sbcw_prox import (dual_value, grad_omega_star, omega_subgradient,
                         primal_value, prox_pass)

STOP_REASONS = ("tol", "memory", "m_iter", "no violated constraint")


def _positive_int(name, value):
    if (not isinstance(value, numbers.Integral) or isinstance(value, bool)
            or value < 1):
        raise ValueError(f"{name} must be a positive integer, got {value!r}.")


class SBCW(OnlineClassifier):
    """Sparse online-batch CW classifier (Algorithms 2 and 3 of Tan et al. 2016).

    Parameters
    ----------
    C : float > 0, default=1.0
    q : {1, 2}, default=1
        Hinge or squared hinge loss.
    r : int >= 1, default=10
        Features added per cutting-plane iteration (group size): the ``r``
        unselected features of largest score, or all unselected features
        with a nonzero score when there are fewer (so any ``r`` is valid for
        any number of features; ``r >= n_features`` selects them in one
        group).
    m_iter : int >= 1, default=15
        Maximum cutting-plane iterations (the paper's experiments: 15, with
        ``r = ceil(p / 15)`` to select ``p`` features).
    tol : float >= 0, default=1e-3
        Relative change of the recorded dual value ``D_t`` (``theta_``) that
        stops the cutting plane (0: rule off).
    sigma : float > 0, default=1e-3
        Smoothing of (16) (``sigma << 1``).
    n_inner_passes : int >= 1, default=1
        Passes of Algorithm 3 (the subproblem solver) over the batch for each
        subproblem (1 is the paper's online pass; more is ours, used by the
        verification).  Not ``n_epochs``, which repeats the whole stream.
    step : {"paper", "exact"}, default="paper"
        Algorithm 3's coordinate step as printed, or the exact maximiser of
        the dual along the coordinate (ours, not the paper's; see
        :func:`olearn.second_order._sbcw_prox.prox_pass`).
    covariance : bool, default=True
        False: FGM (``Sigma = I``, see the module docstring).
    C_sigma : float > 0 or None, default=None
        The constant of the confidence term that gives each block its
        covariance, ``Sigma_k = (Sigma_hat_k^{-1} + C_sigma X_k X_k^T)^{-1}``.
        None (the paper's reading): ``C_sigma = C``, the one ``C`` that the
        paper writes in (5), (7) and ``Sigma(eta)``.  A number is an
        alternative reading (ours): Algorithm 1's ``Require`` lists a
        parameter ``r`` that its body never uses, which may be a separate
        constant of the covariance such as AROW's ``r = 1 / C_sigma``.  With
        ``C_sigma = C`` the subproblem over one group is ``1/2||mu||^2 +
        C sum_i ((mu.x_i)^2 / 2 + xi_i)`` (``||w||^2 = mu' Sigma^{-1} mu``),
        whose per-example optimum is the margin 1 exactly: on a few features
        most margins stay below 1 and the dual variables sit at their bound
        (measured on the Figure 1 page); a smaller ``C_sigma`` lets margins
        pass 1.
    batch_size : int or None, default=None
        Rows per batch in ``fit`` (None: one batch, the paper's setting).
    max_memory : int or None
        Bytes allowed for the whitened blocks (stopping rule 2); None: the
        memory available.
    n_epochs, shuffle, random_state, record
        As in :class:`olearn.Perceptron` (``record="counts"`` keeps only the
        counts of the online record).

    ``covariance`` cannot change between ``partial_fit`` calls (the blocks
    are covariances or absent); every other parameter takes effect on the
    next batch.

    Attributes
    ----------
    coef_ : scipy.sparse CSR (1, n_features)
        ``mu``, nonzero only on selected features.
    selected_features_ : int array
        Features of the active groups, in the order they were added.
    groups_ : list of int arrays
    theta_, primal_ : lists of float, one per subproblem of the last batch
        ``D(alpha^t)`` and ``P(w^t)``; on a batch with carried-over groups
        the first entry is the subproblem over those groups (``t = 0``).
    stop_reason_ : str
    n_iter_ : int
        Cutting-plane iterations of the last batch (groups it added).
    iter_times_ : list of float

    Examples
    --------
    >>> from olearn import SBCW
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 20))
    >>> y = np.where(X[:, 0] + X[:, 1] > 0, 1, -1)      # only features 0 and 1 matter
    >>> clf = SBCW(C=1.0, r=2).fit(X, y)                # keep r = 2 features
    >>> clf.coef_.nonzero()[1].tolist()                 # coef_ is sparse
    [0, 1]
    >>> round(clf.score(X, y), 3)
    0.985
    """

    _frozen_params = ("covariance",)
    #: the model and the diagnostics of its last batch
    _STATE = ("groups_", "_blocks", "_mu_blocks", "_selected_mask", "theta_",
              "primal_", "iter_times_", "stop_reason_", "n_iter_")

    def __init__(self, C=1.0, q=1, r=10, m_iter=15, tol=1e-3, *, sigma=1e-3,
                 n_inner_passes=1, step="paper", covariance=True, C_sigma=None,
                 batch_size=None, max_memory=None, n_epochs=1, shuffle=False,
                 random_state=None, record="full"):
        self.C = C
        self.q = q
        self.r = r
        self.m_iter = m_iter
        self.tol = tol
        self.sigma = sigma
        self.n_inner_passes = n_inner_passes
        self.step = step
        self.covariance = covariance
        self.C_sigma = C_sigma
        self.batch_size = batch_size
        self.max_memory = max_memory
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    def _check_params(self):
        check_positive("C", self.C)
        if isinstance(self.q, bool) or self.q not in (1, 2):
            raise ValueError(f"q must be 1 (hinge loss) or 2 (squared hinge "
                             f"loss), got {self.q!r}.")
        _positive_int("r", self.r)
        _positive_int("m_iter", self.m_iter)
        _positive_int("n_inner_passes", self.n_inner_passes)
        check_positive("tol", self.tol, allow_zero=True)
        check_positive("sigma", self.sigma)
        if self.step not in ("paper", "exact"):
            raise ValueError(f"step must be 'paper' or 'exact', "
                             f"got {self.step!r}.")
        if self.C_sigma is not None:
            check_positive("C_sigma", self.C_sigma)
        if self.batch_size is not None:
            _positive_int("batch_size", self.batch_size)
        if self.max_memory is not None:
            check_positive("max_memory", self.max_memory)
        if not isinstance(self.covariance, (bool, np.bool_)):
            raise ValueError(f"covariance must be True or False, "
                             f"got {self.covariance!r}.")

    # -- state ----------------------------------------------------------------
    def _init_state(self, n_features):
        self._d = n_features
        self.groups_ = []
        self._blocks = []          # (V, s) of each Sigma_k
        self._mu_blocks = []       # mu_k of each group
        self._selected_mask = np.zeros(n_features, dtype=bool)
        self.theta_, self.primal_, self.iter_times_ = [], [], []
        self.stop_reason_ = None
        self.n_iter_ = 0

    def _model_arrays(self):
        """Every array of the model: the mean blocks, the eigenpairs of the
        covariance blocks and the selection mask (each batch replaces them by
        new arrays; a call that reaches NaN or infinity restores those of its
        start: see ``_learn``)."""
        blocks = [a for block in self._blocks if block is not None
                  for a in block]
        return (*self._mu_blocks, *blocks, self._selected_mask)

    @property
    def selected_features_(self):
        if not self.groups_:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate(self.groups_)

    @property
    def coef_(self):
        """``mu`` as a sparse ``(1, n_features)`` CSR matrix."""
        idx = self.selected_features_
        mu = (np.concatenate(self._mu_blocks) if self._mu_blocks
              else np.zeros(0))
        order = np.argsort(idx)
        return sp.csr_matrix((mu[order], idx[order], [0, idx.size]),
                             shape=(1, self._d))

    def _decision(self, X):
        idx = self.selected_features_
        if idx.size == 0:
            return np.zeros(X.shape[0])
        mu = np.concatenate(self._mu_blocks)
        if sp.issparse(X):   # O(nnz(X) log |idx|): scipy's X[:, idx] is O(d)
            order = np.argsort(idx)
            return sparse_scores(csr_dot_subset, X, idx[order], order, mu)
        order = np.argsort(idx, kind="stable")   # csr_dot_subset's order
        return dense_scores(np.asarray(X)[:, idx[order]], mu[order])

    # -- learning ---------------------------------------------------------------
    def _learn(self, X, y, mistakes, margins):
        self._check_params()   # also on later partial_fit calls
        if isinstance(X, tuple):
            data, indices, indptr = X
            X = sp.csr_matrix((data, indices, indptr),
                              shape=(indptr.shape[0] - 1, self._d))
        n = y.shape[0]
        size = n if self.batch_size is None else int(self.batch_size)
        n_updates = 0
        # each batch replaces these objects (never mutates them): keeping the
        # references is a snapshot of the model at the start of the call
        saved = {name: getattr(self, name) for name in self._STATE}
        for start in range(0, n, size):
            stop = min(start + size, n)
            Xb, yb = X[start:stop], y[start:stop]
            # the online record: each row scored by the model of the previous
            # batches, before this batch is learned
            scores = np.asarray(self._decision(Xb)).ravel()
            margins[start:stop] = yb * scores
            mistakes[start:stop] = (scores > 0) != (yb > 0)
            try:
                n_updates += self._learn_batch(Xb, yb)
            except FloatingPointError as error:
                self.__dict__.update(saved)
                raise NonFiniteModelError(
                    f"SBCW reached a non-finite model on the batch of rounds "
                    f"{self.n_rounds_ + start + 1} to {self.n_rounds_ + stop}: "
                    f"{error}") from error   # the base keeps the batches before it
        return n_updates

    def _block(self, Xk, prior):
        """``(V, s)`` of ``Sigma_k`` and the whitened block ``X_k Upsilon_k``."""
        r = Xk.shape[1]
        if not self.covariance:
            return None, Xk.toarray() if sp.issparse(Xk) else np.array(Xk)
        V0, s0 = prior if prior is not None else (np.eye(r), np.ones(r))
        c = self.C if self.C_sigma is None else self.C_sigma
        V, s, _ = sigma_update(V0, s0, Xk, float(c))
        Xh = Xk @ upsilon(V, s)
        return (V, s), np.asarray(Xh)

    def _solve(self, Xh, y, ptr, z0):
        """Subproblem (13) over the groups ``ptr`` by Algorithm 3 from ``z0``:
        ``(alpha, w, D(alpha), P(w))``."""
        ptr_arr = np.asarray(ptr, dtype=np.int64)
        sigma, C, q = float(self.sigma), float(self.C), int(self.q)
        z = z0.copy()
        alpha = np.zeros(y.shape[0])
        scales = np.zeros(ptr_arr.shape[0] - 1)
        for _ in range(int(self.n_inner_passes)):
            prox_pass(Xh, y, z, alpha, ptr_arr, scales, sigma, C, q,
                      self.step == "exact")
        w, _ = grad_omega_star(z, ptr_arr, sigma)
        theta = dual_value(z, alpha, ptr_arr, sigma, C, q)
        primal = primal_value(w, Xh, y, ptr_arr, sigma, C, q, z0)
        return alpha, w, theta, primal

    def _record_iteration(self, theta, primal, tic):
        if self.primal_ and np.isfinite(theta) and np.isfinite(self.primal_[-1]):
            # weak duality and nesting, for (16): D_t <= opt_t <= opt_{t-1} <= P_{t-1}
            # (not Theorem 1, and not through theta_t, the optimum of (15))
            slack = 1e-9 * max(1.0, abs(self.primal_[-1]))
            assert theta <= self.primal_[-1] + slack, (
                f"weak duality violated: D_t = {theta} > P_(t-1) = "
                f"{self.primal_[-1]}")
        self.theta_.append(theta)
        self.primal_.append(primal)
        self.iter_times_.append(time.perf_counter() - tic)

    def _learn_batch(self, X, y):
        r = int(self.r)
        n = X.shape[0]
        Xc = X.tocsc() if sp.issparse(X) else X
        limit = available_memory() if self.max_memory is None else self.max_memory
        self.theta_, self.primal_, self.iter_times_ = [], [], []
        tic = time.perf_counter()
        # carried-over groups: eq. (6) with the previous block as prior, and
        # Algorithm 3's start w^0_k = Upsilon_k^{-1} mu_hat_k
        cols, ptr, blocks, w0 = [], [0], [], []
        for g, prior, mu_k in zip(self.groups_, self._blocks, self._mu_blocks):
            block, Xh = self._block(Xc[:, g], prior)
            blocks.append(block)
            cols.append(Xh)
            ptr.append(ptr[-1] + g.size)
            w0.append(mu_k if block is None else inverse_upsilon(*block) @ mu_k)
        groups = list(self.groups_)
        selected = self._selected_mask.copy()
        Xh = np.ascontiguousarray(np.hstack(cols)) if cols else np.zeros((n, 0))
        z0 = omega_subgradient(np.concatenate(w0) if w0 else np.zeros(0), ptr,
                               float(self.sigma))
        if groups:
            # t = 0: subproblem (13) over the carried-over active set
            alpha, w, theta, primal = self._solve(Xh, y, ptr, z0)
            self._record_iteration(theta, primal, tic)
        else:
            alpha = np.ones(n)      # at mu = 0 every hinge loss is active
        n_carried = len(self.theta_)
        self.stop_reason_ = "m_iter"
        for t in range(int(self.m_iter)):
            tic = time.perf_counter()
            # eq. (14): s = sum_i alpha_i y_i x_i, scores s_j^2
            s = np.asarray(X.T @ (alpha * y)).ravel()
            score = s * s
            score[selected] = -1.0
            k = min(r, int(np.count_nonzero(score > 0)))
            if k == 0:
                self.stop_reason_ = "no violated constraint"
                break
            need = 8 * n * (Xh.shape[1] + k) + 8 * 4 * k * k
            if limit is not None and need > limit:
                self.stop_reason_ = "memory"
                break
            top = np.argpartition(-score, k - 1)[:k]
            top = top[np.argsort(-score[top], kind="stable")]
            selected[top] = True
            groups.append(top)
            block, Xk = self._block(Xc[:, top], None)
            blocks.append(block)
            Xh = np.ascontiguousarray(np.hstack([Xh, Xk]))
            ptr.append(ptr[-1] + k)
            z0 = np.concatenate([z0, np.zeros(k)])   # w^0 = 0 on a new group
            alpha, w, theta, primal = self._solve(Xh, y, ptr, z0)
            self._record_iteration(theta, primal, tic)
            if (len(self.theta_) > 1 and self.tol > 0
                    and abs(theta - self.theta_[-2]) <= self.tol * abs(theta)):
                self.stop_reason_ = "tol"
                break
        self.n_iter_ = len(self.theta_) - n_carried
        if not groups:
            return 0        # no active group: the model stays as it was
        # mu_k = Upsilon_k w_k
        mu_blocks = []
        for k, block in enumerate(blocks):
            wk = w[ptr[k]:ptr[k + 1]]
            mu_blocks.append(wk.copy() if block is None
                             else upsilon(*block) @ wk)
        finite = all(np.isfinite(m).all() for m in mu_blocks) and all(
            np.isfinite(b[1]).all() and np.isfinite(b[0]).all()
            for b in blocks if b is not None)
        if not finite:
            raise FloatingPointError(
                "mu or Sigma reached NaN or infinity (the values of X leave "
                "float64's range): scale the features (e.g. sklearn."
                "preprocessing.MaxAbsScaler or StandardScaler)")
        self.groups_ = groups
        self._blocks = blocks
        self._mu_blocks = mu_blocks
        self._selected_mask = selected
        return int(np.count_nonzero(alpha > 0))
