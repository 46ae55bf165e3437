"""Extremal feature selection (Carvalho and Cohen 2006, section 5).

EFS ranks the features of a trained Modified Balanced Winnow by

    ``I^j = |u^j - v^j|``

and keeps, of ``k`` features, the ``T = round(P k)`` with the largest score and
the ``B = k - T`` with the smallest (their Figure 5; ``P = T / (T + B)``).  The
candidates are the features present in the model (seen in training, see
:mod:`olearn.linear.winnow`); the always-on feature is not a candidate and is
always kept.  Ties are broken by column index (stable sort).  The scores are
compared in the log domain, so weights beyond float range rank correctly.

The *test probe* of their Figure 6 is the trained MBW with the non-selected
features deleted from the model: at test time the MBW rule drops features not
present in the model before normalising, so a deleted feature is simply not
present (:attr:`ExtremalFeatureSelection.probe_`).

Its batch baselines (their Figures 7-8, following Yang and Pedersen 1997) are
:func:`olearn.information_gain` and :func:`olearn.chi_square`
(:mod:`olearn.selection.scores`).
"""
import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

from ..linear.winnow import ModifiedBalancedWinnow, WinnowClassifier


def extremal_scores(mbw):
    """``log |u^j - v^j|`` of a fitted balanced Winnow, one per feature (no always-on).

    ``-inf`` where ``u^j = v^j``.
    """
    check_is_fitted(mbw, "classes_")
    if not isinstance(mbw, WinnowClassifier) or mbw._v.shape[0] == 0:
        raise ValueError("extremal_scores needs a fitted BalancedWinnow or "
                         "ModifiedBalancedWinnow (a positive and a negative model).")
    lu, lv = mbw.log_u_[:-1], mbw.log_v_[:-1]
    high, low = np.maximum(lu, lv), np.minimum(lu, lv)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = high + np.log(-np.expm1(low - high))
    out[high == low] = -np.inf
    return out


def extremal_selection(scores, candidates, k, P):
    """Indices of the ``round(P k)`` top and ``k - round(P k)`` bottom candidates."""
    idx = np.flatnonzero(candidates)
    k = min(int(k), idx.size)
    top = int(round(P * k))
    order = idx[np.argsort(scores[idx], kind="stable")]   # ascending
    chosen = np.concatenate([order[::-1][:top], order[:k - top]])
    return np.unique(chosen)


class ExtremalFeatureSelection(SelectorMixin, BaseEstimator):
    """Extremal feature selection: MBW weights, ``P`` from the top, ``1 - P`` from the bottom.

    ``fit`` trains ``learner`` (one pass; default the paper's MBW) and selects
    ``n_features`` features; ``partial_fit`` continues the MBW and re-selects
    (the online use of section 5).  ``transform`` keeps the selected columns;
    ``predict`` / ``decision_function`` use :attr:`probe_`, the trained MBW with
    the other features deleted.

    Parameters
    ----------
    n_features : int, default=100
        ``k``, the number of features kept (at most the number seen).
    P : float in [0, 1], default=0.9
        Fraction of the ``k`` taken from the top of ``|u - v|``.
    learner : BalancedWinnow or ModifiedBalancedWinnow, default=ModifiedBalancedWinnow()

    Examples
    --------
    >>> import numpy as np
    >>> from olearn import ExtremalFeatureSelection
    >>> rng = np.random.default_rng(0)
    >>> y = rng.choice([-1, 1], size=400)
    >>> X = (rng.random(size=(400, 20)) < 0.2).astype(float)   # 18 noise features
    >>> X[:, 0] = (y == 1) & (rng.random(400) < 0.8)           # fires on positives
    >>> X[:, 1] = (y == -1) & (rng.random(400) < 0.8)          # fires on negatives
    >>> efs = ExtremalFeatureSelection(n_features=2, P=1.0).fit(X, y)
    >>> np.flatnonzero(efs.get_support()).tolist()             # the two largest |u - v|
    [0, 1]
    >>> efs.transform(X).shape
    (400, 2)
    """

    def __init__(self, n_features=100, P=0.9, learner=None):
        self.n_features = n_features
        self.P = P
        self.learner = learner

    def _check(self):
        if not (isinstance(self.n_features, (int, np.integer)) and self.n_features >= 1):
            raise ValueError(f"n_features must be a positive integer, got {self.n_features!r}.")
        if not (0.0 <= float(self.P) <= 1.0):
            raise ValueError(f"P must be in [0, 1], got {self.P!r}.")

    def fit(self, X, y):
        self._check()
        self.learner_ = clone(self.learner if self.learner is not None
                              else ModifiedBalancedWinnow())
        self.learner_.fit(X, y)
        return self._select()

    def partial_fit(self, X, y, classes=None):
        self._check()
        if not hasattr(self, "learner_"):
            self.learner_ = clone(self.learner if self.learner is not None
                                  else ModifiedBalancedWinnow())
        self.learner_.partial_fit(X, y, classes=classes)
        return self._select()

    def _select(self):
        learner = self.learner_
        self.scores_ = extremal_scores(learner)
        self.selected_ = extremal_selection(self.scores_, learner.seen_,
                                            self.n_features, self.P)
        self.n_features_in_ = learner.n_features_in_
        if hasattr(learner, "feature_names_in_"):
            self.feature_names_in_ = learner.feature_names_in_
        probe = clone(learner)
        for name, value in vars(learner).items():
            setattr(probe, name, value)
        keep = np.zeros(learner.n_features_in_, dtype=np.uint8)
        keep[self.selected_] = 1
        probe._seen = learner._seen & keep          # deleted = not in the model
        self.probe_ = probe
        self.classes_ = learner.classes_
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "selected_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_] = True
        return mask

    def decision_function(self, X):
        check_is_fitted(self, "probe_")
        return self.probe_.decision_function(X)

    def predict(self, X):
        check_is_fitted(self, "probe_")
        return self.probe_.predict(X)
