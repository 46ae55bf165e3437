"""Feature-selection baselines of section 4 of the regularized online paper.

The paper ("Feature Selection Effect", Figure 2) compares the implicit
feature selection of its L1/L2-constrained Passive-Aggressive learners with
two explicit methods run inside the online loop: "When updating the model, we
first perform feature selection and then carry out the model update."

Information gain
    of the label ``y`` given one binarised feature ``b_j = [x_j > threshold]``,

        IG(j) = I(y; b_j) = H(y) - H(y | b_j)                           (nats),

    computed from counts: with ``n_ce`` the number of rows of class ``c`` in
    cell ``e`` of the feature(s), ``n_c`` and ``n_e`` the margins, ``n`` the
    total,

        I = (1/n) [ sum_ce n_ce log n_ce - sum_e n_e log n_e
                    - sum_c n_c log n_c + n log n ].

    Ties.  A table with ``n_ce n = n_c n_e`` in every cell (the feature is
    independent of the label on the rows seen) has ``I = 0`` exactly (tested
    in integers), and the sums are taken in an order fixed by the multiset of
    counts, so equal tables (a feature, its complement, a copy) have equal
    gains.  Features of equal gain are ranked by lower index.

Game-theoretic selection (problem 4.20)
    The learner (row player) picks a feature ``i`` and predicts the label
    from ``x_i``; the environment (column player) picks ``j``; the reward
    ``M(i, j)`` is the information gain of the pair ``(x_i, x_j)`` (one of
    the choices the paper suggests): ``M[i, j] = I(y; (b_i, b_j))``, four
    cells per pair, so ``M`` is symmetric and ``M[i, i] = IG(i)``.  The
    relaxed problem

        max_u min_v u^T M v   s.t.  0 <= u, v <= 1,  sum u = sum v = k

    becomes one LP: for fixed ``u`` the inner minimum of ``c . v`` with
    ``c = M^T u`` over ``{0 <= v <= 1, sum v = k}`` (the sum of the ``k``
    smallest ``c_j``) equals, by LP duality,

        max_{lam, mu}  k lam - sum_j mu_j   s.t.  lam - mu_j <= c_j,  mu >= 0,

    so the game is the LP

        max_{u, lam, mu}  k lam - sum_j mu_j
        s.t.  lam - mu_j <= (M^T u)_j,  mu >= 0,  0 <= u <= 1,  sum u = k.

    The ``k`` features with the largest ``u_i`` are selected (ties: larger
    ``M[i, i]``, then lower index).

The LP is solved with HiGHS through ``highspy`` (a dependency of cvxpy) rather
than through a cvxpy model: an online run solves it after every block, the
previous optimal basis warm-starts the next solve (the statistics change
little between blocks), and cvxpy's per-solve compilation alone costs more
than the warm solve.  The tests check the LP against a cvxpy model of the
equivalent min-max form and against brute force.
"""
import numbers

import highspy
import numpy as np
import scipy.sparse as sp
from numba import njit
from scipy.special import xlogy
from sklearn.base import clone
from sklearn.utils.validation import check_array, check_consistent_length
from threadpoolctl import ThreadpoolController

from .base import OnlineClassifier, _same
from .linear.pa import PA

METHODS = ("info_gain", "game")
# Full per-class pair co-occurrence counts (2 d^2 floats) are kept up to this
# many features (16 MB); above it the binarised rows are kept instead and the
# counts of the candidate pairs are recomputed at each selection.
FULL_PAIR_COUNTS_MAX_FEATURES = 1024
_PM = np.array([-1.0, 1.0])
_THREADPOOLS = []
_NLOGN = [np.zeros(1)]


def _single_threaded_blas():
    """Context limiting BLAS to one thread.

    The per-block products are tiny, and on a busy machine threaded BLAS is
    ten times slower on them than one thread.
    """
    if not _THREADPOOLS:
        _THREADPOOLS.append(ThreadpoolController())
    return _THREADPOOLS[0].limit(limits=1, user_api="blas")


# -- binarisation and information gain ----------------------------------------
def binarize(X, threshold=0.0):
    """0/1 indicators ``[x_j > threshold]``, dense or CSR like ``X``.

    ``threshold=0`` gives ``x_j != 0`` for non-negative data (0/1 or counts
    of text) and "ink" (darker than mid-grey) for USPS grey levels in [-1, 1].
    A negative threshold would turn the implicit zeros of a sparse matrix on,
    so it is refused for CSR input.
    """
    if sp.issparse(X):
        if threshold < 0:
            raise ValueError(
                f"threshold={threshold!r} < 0 would make every implicit zero "
                f"of the sparse input 'on' (a dense indicator matrix); pass "
                f"dense X or a threshold >= 0.")
        B = sp.csr_matrix(X, dtype=np.float64, copy=True)
        B.data = (B.data > threshold).astype(np.float64)
        B.eliminate_zeros()
        return B
    return (np.asarray(X) > threshold).astype(np.float64)


def _nlogn_table(class_totals):
    """``[c log c for c = 0, 1, ..., >= n]``: the kernels' counts are integers.

    Kept between calls and grown by doubling, so a long stream builds it
    O(log n) times.
    """
    n = int(round(np.sum(class_totals)))
    if _NLOGN[0].size <= n:
        counts = np.arange(max(n + 1, 2 * _NLOGN[0].size), dtype=np.float64)
        _NLOGN[0] = xlogy(counts, counts)
    return _NLOGN[0]


@njit(cache=True)
def _class_term(class_totals, nlogn):
    """``(n log n - sum_c n_c log n_c, n)``: the cell-free part of ``n I``."""
    n = 0
    term = 0.0
    for c in range(class_totals.shape[0]):
        n += int(class_totals[c])
        term -= nlogn[int(class_totals[c])]
    return term + nlogn[n], n


@njit(cache=True)
def _sorted_sum(values, n):
    """``sum(values[:n])`` added in increasing order (sorts ``values[:n]`` in place).

    The order is a function of the multiset of values only, so two tables with
    the same cell counts give bit-identical sums.
    """
    for i in range(1, n):
        v = values[i]
        j = i - 1
        while j >= 0 and values[j] > v:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = v
    total = 0.0
    for i in range(n):
        total += values[i]
    return total


@njit(cache=True)
def _table_ig(cells, class_totals, margins, n_cells, n, base, nlogn, terms):
    """``I`` of one contingency table, exactly 0 for an independent table.

    ``cells[c * n_cells + e]`` counts class ``c`` in cell ``e``, ``margins[e]``
    the cell totals.  Independence (``n_ce n = n_c n_e`` for every cell, in
    integers) gives 0 exactly; otherwise the count formula is summed in a
    canonical order (:func:`_sorted_sum`), so equal tables -- up to a
    relabelling of the cells, e.g. a feature and its complement -- give equal
    gains, not gains that differ by rounding.
    """
    n_classes = class_totals.shape[0]
    independent = True
    k = 0
    for c in range(n_classes):
        for e in range(n_cells):
            count = cells[c * n_cells + e]
            if count * n != int(class_totals[c]) * margins[e]:
                independent = False
            terms[k] = nlogn[count]
            k += 1
    if independent:
        return 0.0
    acc = _sorted_sum(terms, k)
    for e in range(n_cells):
        terms[e] = nlogn[margins[e]]
    acc -= _sorted_sum(terms, n_cells)
    return max((acc + base) / n, 0.0)


@njit(cache=True)
def _single_ig_kernel(class_totals, ones, nlogn):
    """``IG(j) = I(y; b_j)`` by the count formula, two cells per feature."""
    base, n = _class_term(class_totals, nlogn)
    n_classes, d = ones.shape
    ig = np.zeros(d)
    if n == 0:
        return ig
    cells = np.zeros(2 * n_classes, dtype=np.int64)
    margins = np.zeros(2, dtype=np.int64)
    terms = np.zeros(2 * n_classes)
    for j in range(d):
        margins[0] = 0
        for c in range(n_classes):
            on = int(ones[c, j])
            cells[2 * c] = on
            cells[2 * c + 1] = int(class_totals[c]) - on
            margins[0] += on
        margins[1] = n - margins[0]
        ig[j] = _table_ig(cells, class_totals, margins, 2, n, base, nlogn,
                          terms)
    return ig


@njit(cache=True)
def _pair_ig_kernel(class_totals, ones, pairs, nlogn):
    """``M[i, j] = I(y; (b_i, b_j))`` by the count formula, 4 cells a pair."""
    base, n = _class_term(class_totals, nlogn)
    n_classes, m = ones.shape
    M = np.zeros((m, m))
    if n == 0:
        return M
    cells = np.zeros(4 * n_classes, dtype=np.int64)
    margins = np.zeros(4, dtype=np.int64)
    terms = np.zeros(4 * n_classes)
    for i in range(m):
        for j in range(i, m):
            margins[:] = 0
            for c in range(n_classes):
                both = int(pairs[c, i, j])
                only_i = int(ones[c, i]) - both
                only_j = int(ones[c, j]) - both
                neither = int(class_totals[c]) - both - only_i - only_j
                cells[4 * c] = both
                cells[4 * c + 1] = only_i
                cells[4 * c + 2] = only_j
                cells[4 * c + 3] = neither
                margins[0] += both
                margins[1] += only_i
                margins[2] += only_j
                margins[3] += neither
            M[i, j] = M[j, i] = _table_ig(cells, class_totals, margins, 4, n,
                                          base, nlogn, terms)
    return M


def _single_ig(class_totals, ones):
    """IG (d,) from ``n_c`` (C,) and per-class on-counts ``ones`` (C, d)."""
    class_totals = np.asarray(class_totals, dtype=np.float64)
    return _single_ig_kernel(class_totals, np.ascontiguousarray(ones),
                             _nlogn_table(class_totals))


def _pair_ig(class_totals, ones, pairs):
    """``M`` (m, m) from ``n_c`` (C,), ``ones`` (C, m), ``pairs`` (C, m, m)."""
    class_totals = np.asarray(class_totals, dtype=np.float64)
    return _pair_ig_kernel(class_totals, np.ascontiguousarray(ones),
                           np.ascontiguousarray(pairs),
                           _nlogn_table(class_totals))


def _top_features(scores, k):
    """The ``k`` largest scores' indices (ties: lower index), sorted; O(d)."""
    if k >= scores.size:
        return np.arange(scores.size)
    cut = np.partition(scores, scores.size - k)[scores.size - k]
    above = np.flatnonzero(scores > cut)
    at_cut = np.flatnonzero(scores == cut)[:k - above.size]
    return np.sort(np.r_[above, at_cut])


def _check_threshold(threshold):
    if (not isinstance(threshold, numbers.Real) or isinstance(threshold, bool)
            or not np.isfinite(threshold)):
        raise ValueError(f"threshold must be a finite number, got "
                         f"{threshold!r}.")


def _class_counts(X, y, threshold):
    """Binarised ``X``, per-class row masks, ``n_c`` and on-counts (C, d)."""
    _check_threshold(threshold)
    X = check_array(X, accept_sparse="csr", dtype=np.float64)
    y = np.asarray(y).ravel()
    check_consistent_length(X, y)
    B = binarize(X, threshold)
    rows = [y == label for label in np.unique(y)]
    class_totals = np.array([r.sum() for r in rows], dtype=np.float64)
    ones = np.vstack([np.asarray(B[r].sum(axis=0)).ravel() for r in rows])
    return B, rows, class_totals, ones


def information_gain(X, y, *, threshold=0.0):
    """Information gain (nats) of the label given each binarised feature.

    Parameters
    ----------
    X : array or CSR matrix, shape (n_samples, n_features)
        Sparse input stays sparse (counts are column sums).
    y : array, shape (n_samples,)
        Class labels (any number of classes; the paper's are binary).
    threshold : float, default=0.0
        A feature is "on" iff ``x_j > threshold`` (see :func:`binarize`).

    Returns
    -------
    ig : ndarray, shape (n_features,)
        ``I(y; [x_j > threshold])`` in nats (divide by ``log 2`` for bits);
        equals ``sklearn.feature_selection.mutual_info_classif`` with
        ``discrete_features=True`` on the binarised features.
    """
    _, _, class_totals, ones = _class_counts(X, y, threshold)
    return _single_ig(class_totals, ones)


def pair_information_gain(X, y, *, threshold=0.0, features=None):
    """Reward matrix of problem (4.20): IG of the label given feature pairs.

    ``M[i, j] = I(y; (b_i, b_j))`` in nats with ``b = [x > threshold]``, from
    the per-class co-occurrence counts ``B_c^T B_c``.  ``M`` is symmetric and
    its diagonal is :func:`information_gain`.  Memory is O(m^2) for ``m``
    features: restrict ``features`` (e.g. to the top features by single IG)
    when ``n_features`` is large.

    Parameters
    ----------
    features : array of int or None
        Column indices to build ``M`` on (all columns if None).

    Returns
    -------
    M : ndarray, shape (m, m)
    """
    B, rows, class_totals, ones = _class_counts(X, y, threshold)
    if features is None:
        features = np.arange(B.shape[1])
    features = np.asarray(features, dtype=np.intp)
    pairs = np.stack([_cooccurrence(B[r][:, features]) for r in rows])
    return _pair_ig(class_totals, ones[:, features], pairs)


def _cooccurrence(B):
    """``B^T B`` as a dense array (B dense or CSR)."""
    P = B.T @ B
    return P.toarray() if sp.issparse(P) else np.asarray(P)


# -- the game of problem (4.20) ---------------------------------------------
class _GameLP:
    """The relaxed game (4.20) as one LP, solved with HiGHS; warm-started.

    Columns ``u_0..u_{m-1}, lam, mu_0..mu_{m-1}``; rows ``j < m``:
    ``-(M^T u)_j + lam - mu_j <= 0``; row ``m``: ``sum u = k``; HiGHS
    minimises ``-(k lam - sum mu)``.
    """

    def __init__(self):
        self._highs = highspy.Highs()
        self._highs.setOptionValue("output_flag", False)
        self._highs.setOptionValue("presolve", "off")  # small dense LP
        self._basis = None
        self._m = None

    def solve(self, M, k):
        """Optimal ``u`` (m,) and the game value ``max_u min_v u^T M v``."""
        m = M.shape[0]
        inf = highspy.kHighsInf
        cost = np.r_[np.zeros(m), -float(k), np.ones(m)]
        col_lower = np.r_[np.zeros(m), -inf, np.zeros(m)]
        col_upper = np.r_[np.ones(m), inf, np.full(m, inf)]
        row_lower = np.r_[np.full(m, -inf), float(k)]
        row_upper = np.r_[np.zeros(m), float(k)]
        # column u_i holds -M[i, j] in row j and 1 in row m (zeros dropped)
        u_cols = np.empty((m, m + 1))
        u_cols[:, :m] = -M
        u_cols[:, m] = 1.0
        nonzero = u_cols != 0.0
        counts = np.r_[nonzero.sum(axis=1), m, np.ones(m, dtype=np.intp)]
        start = np.r_[0, np.cumsum(counts)[:-1]].astype(np.int32)
        index = np.r_[np.nonzero(nonzero)[1], np.arange(m),
                      np.arange(m)].astype(np.int32)
        value = np.r_[u_cols[nonzero], np.ones(m), -np.ones(m)]
        h = self._highs
        h.passModel(2 * m + 1, m + 1, value.size,
                    int(highspy.MatrixFormat.kColwise),
                    int(highspy.ObjSense.kMinimize), 0.0, cost, col_lower,
                    col_upper, row_lower, row_upper, start, index, value,
                    np.zeros(2 * m + 1, dtype=np.int32))  # continuous
        if self._basis is not None and self._m == m:
            h.setBasis(self._basis)
        h.run()
        status = h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"HiGHS did not solve the game LP: "
                               f"{h.modelStatusToString(status)}.")
        self._basis, self._m = h.getBasis(), m
        u = np.clip(np.asarray(h.getSolution().col_value[:m]), 0.0, 1.0)
        return u, -h.getInfo().objective_function_value


def _top_k_strategy(u, M, k):
    """The ``k`` largest ``u_i`` (ties: larger ``M[i, i]``, then lower i)."""
    order = np.lexsort((np.arange(u.size), -np.diag(M), -np.round(u, 9)))
    return np.sort(order[:k])


def _check_k(k, n_features):
    if not isinstance(k, numbers.Integral) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}.")
    if k > n_features:
        raise ValueError(f"k={k} exceeds the number of features, "
                         f"{n_features}.")


def game_theoretic_selection(M, k, *, return_strategy=False):
    """Select ``k`` features by the relaxed game (4.20) (module docstring).

    Parameters
    ----------
    M : array, shape (m, m)
        Reward matrix, e.g. :func:`pair_information_gain`.
    k : int
        Number of features to select, ``1 <= k <= m``.
    return_strategy : bool, default=False
        Also return the learner's relaxed strategy ``u`` and the game value.

    Returns
    -------
    selected : ndarray of int, shape (k,)
        The ``k`` indices with the largest ``u_i``, in increasing order.
    u : ndarray, shape (m,)   (only with ``return_strategy``)
    value : float             (only with ``return_strategy``)
        ``max_u min_v u^T M v`` over the relaxed constraints.
    """
    M = check_array(M, dtype=np.float64)
    if M.shape[0] != M.shape[1]:
        raise ValueError(f"M must be square, got shape {M.shape}.")
    _check_k(k, M.shape[0])
    u, value = _GameLP().solve(M, k)
    selected = _top_k_strategy(u, M, k)
    return (selected, u, value) if return_strategy else selected


# -- online use -------------------------------------------------------------
class _RunningCounts:
    """Per-class counts of the binarised rows seen so far (class 0: -1, 1: +1).

    ``pairs`` is ``"full"`` (all ``B_c^T B_c``, updated per block), ``"rows"``
    (keep the binarised rows, recompute candidate pairs on demand) or None.
    """

    def __init__(self, n_features, pairs):
        self.class_totals = np.zeros(2)
        self.ones = np.zeros((2, n_features))
        self.mode = pairs
        if pairs == "full":
            self.pairs = np.zeros((2, n_features, n_features))
        self._rows = [[], []]

    def add(self, B, y_pm):
        for c, rows in enumerate((y_pm < 0, y_pm > 0)):
            Bc = B[rows]
            self.class_totals[c] += np.count_nonzero(rows)
            self.ones[c] += np.asarray(Bc.sum(axis=0)).ravel()
            if self.mode == "full":
                self.pairs[c] += _cooccurrence(Bc)
            elif self.mode == "rows":
                self._rows[c].append(sp.csr_matrix(Bc))

    def pair_counts(self, features):
        if self.mode == "full":
            if np.array_equal(features, np.arange(self.ones.shape[1])):
                return self.pairs
            return self.pairs[:, features[:, np.newaxis], features]
        stacked = []
        for c in range(2):
            if len(self._rows[c]) > 1:
                self._rows[c] = [sp.vstack(self._rows[c], format="csr")]
            H = (self._rows[c][0] if self._rows[c]
                 else sp.csr_matrix((0, self.ones.shape[1])))
            stacked.append(_cooccurrence(H[:, features]))
        return np.stack(stacked)


def _positive_int(name, value):
    if (not isinstance(value, numbers.Integral) or isinstance(value, bool)
            or value < 1):
        raise ValueError(f"{name} must be a positive integer, got {value!r}.")


class FeatureSelected(OnlineClassifier):
    """Online learner on ``k`` features re-selected from the stream so far.

    The stream is cut into blocks of ``refresh`` rounds (counted from the
    first round of ``fit``, across epochs and ``partial_fit`` calls).  Before
    each block, ``k`` features are selected from the label/feature counts of
    all rows seen so far -- by information gain, or by the game (4.20) on the
    pair information gain of the ``m`` best features by information gain --
    and the block is passed to ``learner.partial_fit`` with the other columns
    set to zero; predictions use the same masked ``x``.  So every round of a
    block is "select, then update" with a selection at most ``refresh - 1``
    rounds old (``refresh=1`` is the paper's literal per-round selection;
    the paper does not state how often it re-selects).  Before the first row
    there are no statistics and no feature is selected (the learner sees zero
    vectors in the first block), except with ``k = n_features`` where every
    feature is always kept and the run equals the plain learner's.

    The online record (``mistakes_``, ``margins_``, ``n_mistakes_``,
    ``n_updates_``, ``n_rounds_``) is the learner's on the masked stream.

    Cost: the counts are updated once per block (per-class column sums, plus
    the pair co-occurrences ``B_c^T B_c`` for the game); a selection is O(d)
    for information gain and one warm-started LP with ``m^2`` nonzeros for the
    game (about 10 ms for ``m = 256``).  On the 2000-round USPS stream with
    ``k = 64`` and ``refresh = 50`` a run takes about 0.03 s (information gain)
    and 0.3 s (game); ``refresh=1`` costs one ``partial_fit`` call per round.

    Parameters
    ----------
    learner : OnlineClassifier, default=PA()
        Any olearn learner; it is cloned.  Its ``n_epochs``/``shuffle`` are
        not used (it is fed by ``partial_fit``): use this estimator's.
    method : {"info_gain", "game"}, default="info_gain"
    k : int or None, default=None
        Number of features kept, ``1 <= k <= n_features``; ``None`` keeps
        ``min(64, n_features)`` (64 as in the paper's USPS experiment; all
        features of narrower data).  Cannot change between ``partial_fit``
        calls.
    refresh : int, default=50
        Rounds between two selections.
    threshold : float, default=0.0
        A feature is "on" iff ``x_j > threshold`` for the counts
        (:func:`binarize`); must be >= 0 for sparse input.
    n_candidates : int, default=256
        The game is played on the ``m = min(n_features, max(n_candidates,
        2k))`` features of largest information gain, by both players (so a
        smaller ``m`` also narrows the environment's choices).  This bounds
        the LP (``m^2`` nonzeros) and the pair statistics; with the default
        the 256-pixel USPS game is played on all features, and on text
        (tens of thousands of words) on the top 256, or ``2k``.
    n_epochs, shuffle, random_state, record
        As in :class:`olearn.Perceptron` (``record`` is passed on to the
        learner).

    ``method`` and ``threshold`` cannot change between ``partial_fit`` calls
    either (the counts so far depend on them); changes of the learner's
    parameters (``set_params(learner__C=...)``) reach the fitted learner at
    the next call and are validated there.

    Attributes
    ----------
    learner_ : the fitted clone of ``learner``.
    k_ : int
        The number of features kept (``k``, or its default).
    selected_ : ndarray of int
        Features used by the latest block (increasing order).
    n_features_selected_ : int

    Examples
    --------
    >>> from olearn import FeatureSelected, PA
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 20))
    >>> y = np.where(X[:, 0] + X[:, 1] > 0, 1, -1)      # only features 0 and 1 matter
    >>> clf = FeatureSelected(PA(), method="info_gain", k=2).fit(X, y)   # one online pass
    >>> sorted(int(j) for j in clf.selected_)
    [0, 1]
    >>> int(clf.n_mistakes_)
    53
    """

    _frozen_params = ("k", "method", "threshold")
    #: k when None is given
    DEFAULT_K = 64

    def __init__(self, learner=None, method="info_gain", k=None, *, refresh=50,
                 threshold=0.0, n_candidates=256, n_epochs=1, shuffle=False,
                 random_state=None, record="full"):
        self.learner = learner
        self.method = method
        self.k = k
        self.refresh = refresh
        self.threshold = threshold
        self.n_candidates = n_candidates
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    def _k(self, n_features):
        return min(self.DEFAULT_K, n_features) if self.k is None else self.k

    def _check_params(self):
        if self.learner is not None and not isinstance(self.learner,
                                                       OnlineClassifier):
            raise ValueError(f"learner must be an olearn online learner, got "
                             f"{type(self.learner).__name__}.")
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got "
                             f"{self.method!r}.")
        if self.k is not None:
            _check_k(self.k, np.inf)
        _positive_int("refresh", self.refresh)
        _positive_int("n_candidates", self.n_candidates)
        _check_threshold(self.threshold)

    @property
    def n_features_selected_(self):
        return int(self.selected_.size)

    def _init_state(self, n_features):
        _check_k(self._k(n_features), n_features)
        self.learner_ = clone(PA() if self.learner is None else self.learner)
        self._sync_learner()
        pairs = None
        if self.method == "game":
            pairs = ("full" if n_features <= FULL_PAIR_COUNTS_MAX_FEATURES
                     else "rows")
        self._game = None
        self._counts = _RunningCounts(n_features, pairs)
        self.k_ = self._k(n_features)
        keep_all = self.k_ == n_features
        self.selected_ = np.arange(n_features if keep_all else 0)
        self._mask = None if keep_all else np.zeros(n_features)

    def _select(self):
        counts = self._counts
        ig = _single_ig(counts.class_totals, counts.ones)
        if self.method == "info_gain":
            selected = _top_features(ig, self.k_)
        else:
            m = min(ig.size, max(self.n_candidates, 2 * self.k_))
            candidates = _top_features(ig, m)
            M = _pair_ig(counts.class_totals, counts.ones[:, candidates],
                         counts.pair_counts(candidates))
            if self._game is None:
                self._game = _GameLP()
            u, _ = self._game.solve(M, self.k_)
            selected = np.sort(candidates[_top_k_strategy(u, M, self.k_)])
        self.selected_ = selected
        self._mask[:] = 0.0
        self._mask[selected] = 1.0

    def _masked(self, X):
        """``X`` with the non-selected columns set to zero (O(nnz) for CSR)."""
        if self._mask is None:
            return X
        if sp.issparse(X):
            X = X.copy()
            X.data *= self._mask[X.indices]
            X.eliminate_zeros()
            return X
        return X * self._mask

    def _sync_learner(self):
        """Pass the learner's changed parameters and ``record`` to ``learner_``.

        Only values that differ are set (a nested estimator as a clone, so the
        user's object is never fitted in place); ``learner_`` validates them.
        """
        current = self.learner_.get_params(deep=False)
        changed = {}
        if self.learner is not None:
            for name, value in self.learner.get_params(deep=False).items():
                if name == "record":
                    continue
                if hasattr(value, "get_params"):
                    old = current.get(name)
                    if (type(old) is not type(value) or not all(
                            _same(a, b) for a, b in zip(
                                value.get_params(deep=True).values(),
                                old.get_params(deep=True).values()))):
                        changed[name] = clone(value)
                elif not _same(value, current.get(name)):
                    changed[name] = value
        if "record" in current and current["record"] != getattr(self, "record", "full"):
            changed["record"] = getattr(self, "record", "full")
        if changed:
            self.learner_.set_params(**changed)

    def _run(self, X, y_pm):
        # replaces the base's compiled pass: blocks go to learner.partial_fit
        self._sync_learner()
        if sp.issparse(X) and self.threshold < 0:
            binarize(X, self.threshold)  # raises the explanation
        refresh, first, start = self.refresh, self.n_rounds_, 0
        with _single_threaded_blas():
            while start < y_pm.shape[0]:
                t = first + start
                if t % refresh == 0 and t > 0 and self._mask is not None:
                    self._select()
                stop = min(y_pm.shape[0], start + refresh - t % refresh)
                X_block, y_block = X[start:stop], y_pm[start:stop]
                self.learner_.partial_fit(self._masked(X_block), y_block,
                                          classes=_PM)
                self._counts.add(binarize(X_block, self.threshold), y_block)
                start = stop
        self.n_rounds_ = self.learner_.n_rounds_
        names = ("n_mistakes_", "n_updates_")
        if self._full_record():
            names += ("mistakes_", "margins_")
        for name in names:
            setattr(self, name, getattr(self.learner_, name))

    def _decision(self, X):
        return self.learner_.decision_function(self._masked(X))

    def __getstate__(self):
        # the HiGHS instance cannot be pickled; it only holds a warm start
        state = dict(super().__getstate__())
        if state.get("_game") is not None:
            state["_game"] = None
        return state
