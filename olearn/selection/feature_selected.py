"""``FeatureSelected``: an online learner on features re-selected from the stream.

The feature-selection baselines of section 4 of Shen and Dietterich (2009)
("Feature Selection Effect", Figure 2) run inside the online loop: "When
updating the model, we first perform feature selection and then carry out the
model update."  The selectors are information gain
(:mod:`olearn.selection.scores`) and the game (4.20)
(:mod:`olearn.selection.game_theoretic`).
"""
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from threadpoolctl import ThreadpoolController

from ..base import OnlineClassifier, _same
from ..linear.pa import PA
from .game_theoretic import _check_k, _GameLP, _top_k_strategy
from .scores import (_check_threshold, _cooccurrence, _pair_ig, _single_ig,
                     _top_features, binarize)

METHODS = ("info_gain", "game")
# Full per-class pair co-occurrence counts (2 d^2 floats) are kept up to this
# many features (16 MB); above it the binarised rows are kept instead and the
# counts of the candidate pairs are recomputed at each selection.
FULL_PAIR_COUNTS_MAX_FEATURES = 1024
_PM = np.array([-1.0, 1.0])
_THREADPOOLS = []


def _single_threaded_blas():
    """Context limiting BLAS to one thread.

    The per-block products are tiny, and on a busy machine threaded BLAS is
    ten times slower on them than one thread.
    """
    if not _THREADPOOLS:
        _THREADPOOLS.append(ThreadpoolController())
    return _THREADPOOLS[0].limit(limits=1, user_api="blas")


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

    Notes
    -----
    ``method`` and ``threshold`` cannot change between ``partial_fit`` calls
    either (the counts so far depend on them), nor can the learner's class
    (``set_params(learner=Perceptron())`` on a PA raises
    :class:`olearn.base.FrozenParameterError`); changes of the learner's
    parameters (``set_params(learner__C=...)``, or a new learner of the same
    class) reach the fitted learner at the next call and are validated there.

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

    _frozen_params = ("k", "method", "threshold", "learner")
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

    def _template(self):
        return PA() if self.learner is None else self.learner

    def _frozen_param_values(self):
        # the learner's class is frozen (learner_ is a model of that class); its
        # hyper-parameters are followed by _sync_learner
        values = super()._frozen_param_values()
        learner = type(self._template())
        values["learner"] = f"{learner.__module__}.{learner.__qualname__}"
        return values

    def _check_params(self):
        if self.learner is not None and not isinstance(self.learner,
                                                       OnlineClassifier):
            what = (f"the class {self.learner.__name__} (pass an instance, "
                    f"{self.learner.__name__}())" if isinstance(self.learner, type)
                    else repr(self.learner))
            raise ValueError(f"learner must be an olearn online learner (an "
                             f"instance with partial_fit and the online record), "
                             f"or None for PA(); got {what}.")
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
        self.learner_ = clone(self._template())
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
        for name, value in self._template().get_params(deep=False).items():
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
