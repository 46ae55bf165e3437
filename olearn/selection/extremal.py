"""Extremal feature selection (Carvalho and Cohen 2006, section 5).

EFS ranks the features of a trained Modified Balanced Winnow by

    ``I^j = |u^j - v^j|``

and keeps, of ``k`` features, the ``T = round(P k)`` with the largest score and
the ``B = k - T`` with the smallest (their Figure 5; ``P = T / (T + B)``).  The
candidates are the features present in the model (seen in training, see
:mod:`olearn.linear.winnow`); the always-on feature is not a candidate and is
always kept.  Equal scores are taken lowest column index first.  The scores are
compared in the log domain, so weights beyond float range rank correctly.

The *test probe* of their Figure 6 is the trained MBW with the non-selected
features deleted from the model: at test time the MBW rule drops features not
present in the model before normalising, so a deleted feature is simply not
present (:attr:`ExtremalFeatureSelection.probe_`).

Its batch baselines (their Figures 7-8, following Yang and Pedersen 1997) are
:func:`olearn.information_gain` and :func:`olearn.chi_square`
(:mod:`olearn.selection.scores`).
"""
import numbers

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import ClassifierTags
from sklearn.utils.validation import check_is_fitted

from ..base import FrozenParameterError, _same
from ..linear.winnow import BalancedWinnow, ModifiedBalancedWinnow, WinnowClassifier


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
    """Indices (increasing) of the ``round(P k)`` top and ``k - round(P k)`` bottom candidates.

    Equal scores are taken in column index order, lowest index first, at the
    top as at the bottom (the paper does not say how ties are broken); the
    bottom is taken from the candidates the top left, so ``k`` distinct
    features are kept whenever ``k`` candidates exist.
    """
    idx = np.flatnonzero(candidates)
    k = min(int(k), idx.size)
    top = int(round(P * k))
    descending = idx[np.lexsort((idx, -scores[idx]))]
    rest = descending[top:]
    ascending = rest[np.lexsort((rest, scores[rest]))]
    return np.unique(np.concatenate([descending[:top], ascending[:k - top]]))


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
        The paper's learner (MBW) is the default.  Like every Winnow learner it
        needs ``X >= 0`` (section 2.2 of the paper; the ``positive_only`` tag):
        term counts, presence, TF-IDF.  Its hyper-parameters changed with
        ``set_params(learner__alpha=...)`` between ``partial_fit`` calls are
        followed (and validated); a learner of another class raises
        :class:`olearn.base.FrozenParameterError`.

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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # the tags of every olearn learner: two classes, CSR input ...
        tags.classifier_tags = ClassifierTags(multi_class=False)
        tags.input_tags.sparse = True
        # ... and the Winnow learners' requirement x >= 0 (the paper's section 2.2):
        # EFS is defined on the positive and negative models u, v of (M)BW
        tags.input_tags.positive_only = True
        return tags

    def _template(self):
        return ModifiedBalancedWinnow() if self.learner is None else self.learner

    def _check(self):
        if (not isinstance(self.n_features, numbers.Integral)
                or isinstance(self.n_features, bool) or self.n_features < 1):
            raise ValueError(f"n_features must be a positive integer, got {self.n_features!r}.")
        if (not isinstance(self.P, numbers.Real) or isinstance(self.P, bool)
                or not 0.0 <= self.P <= 1.0):
            raise ValueError(f"P must be a number in [0, 1], got {self.P!r}.")
        if self.learner is not None and not isinstance(self.learner, BalancedWinnow):
            what = (f"the class {self.learner.__name__}" if isinstance(self.learner, type)
                    else repr(self.learner))
            raise ValueError(
                f"learner must be a BalancedWinnow or ModifiedBalancedWinnow instance "
                f"(EFS ranks the features by |u - v| of its positive and negative "
                f"models), or None for ModifiedBalancedWinnow(); got {what}.")

    def _follow_learner(self):
        """Pass ``set_params`` changes of ``learner`` to ``learner_``.

        The learner's class is frozen between ``partial_fit`` calls (the
        fitted model is one of that class); its hyper-parameters are followed
        and validated by the learner itself, which refuses those its state
        cannot follow (:class:`olearn.FrozenParameterError`).
        """
        template, fitted = self._template(), self.learner_
        if type(template) is not type(fitted):
            raise FrozenParameterError(
                f"{type(self).__name__}: learner changed from "
                f"{type(fitted).__name__} to {type(template).__name__} between "
                f"partial_fit calls, but the fitted state cannot follow it. Set it "
                f"back, or call fit (which starts afresh) to learn with the new "
                f"learner.")
        current = fitted.get_params(deep=False)
        changed = {name: value for name, value in template.get_params(deep=False).items()
                   if not _same(value, current[name])}
        if changed:
            fitted.set_params(**changed)

    def fit(self, X, y):
        """Train a fresh copy of ``learner`` on ``(X, y)`` (one online pass) and select."""
        self._check()
        learner = clone(self._template())
        learner.fit(X, y)
        self.learner_ = learner
        return self._select()

    def partial_fit(self, X, y, classes=None):
        """Continue training ``learner_`` on ``(X, y)`` and select again."""
        self._check()
        if hasattr(self, "learner_"):
            self._follow_learner()
            self.learner_.partial_fit(X, y, classes=classes)
        else:
            learner = clone(self._template())
            learner.partial_fit(X, y, classes=classes)
            self.learner_ = learner
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
