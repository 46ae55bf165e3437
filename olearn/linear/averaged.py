"""Voting (averaging) of any linear online learner.

Carvalho and Cohen (2006, section 3) replace the last hypothesis by the
average of all intermediate ones, each weighted by the number of rounds it
survived -- Freund and Schapire's (1999) voted Perceptron, averaged.  With
``w_{t+1}`` the hypothesis after round ``t`` the averaged classifier is

    w_avg = (1/T) sum_{t=1..T} w_{t+1},

kept lazily in O(nnz(x_t)) per round (see :mod:`olearn.linear`), never by
storing hypotheses.
"""
from sklearn.base import clone
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted

import numpy as np

from ..base import OnlineClassifier, validate_rows
from .core import LinearClassifier
from .perceptron import Perceptron

_RECORD = ("classes_", "n_features_in_", "mistakes_", "margins_",
           "n_rounds_", "n_mistakes_", "n_updates_")


class Averaged(OnlineClassifier):
    """Averaged (voted) version of a linear learner.

    The wrapped ``learner`` runs unchanged (its updates use its own current
    hypothesis), so the online record -- ``mistakes_``, ``margins_``,
    ``n_updates_`` -- is the learner's; ``coef_``, ``predict`` and
    ``decision_function`` use the average ``w_avg``.  ``fit`` options
    (``n_epochs``, ``shuffle``) are the learner's.

    Parameters
    ----------
    learner : LinearClassifier, default=Perceptron()
        Any olearn learner whose model is a weight vector.

    Examples
    --------
    >>> from olearn import Averaged, Perceptron
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = Averaged(Perceptron()).fit(X, y)          # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 3)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    def __init__(self, learner=None):
        self.learner = learner

    def _make_learner(self):
        learner = Perceptron() if self.learner is None else clone(self.learner)
        if not isinstance(learner, LinearClassifier):
            raise ValueError(
                f"Averaged needs a linear olearn learner (a weight vector), "
                f"got {type(learner).__name__}.")
        learner._averaging = True
        return learner

    def fit(self, X, y):
        """Reset and learn online; the model is the running average."""
        self.learner_ = self._make_learner()
        self.learner_.fit(X, y)
        return self._copy_record()

    def partial_fit(self, X, y, classes=None):
        """Continue learning online; the average covers every round seen."""
        if not hasattr(self, "learner_"):
            self.learner_ = self._make_learner()
        self.learner_.partial_fit(X, y, classes=classes)
        return self._copy_record()

    def _copy_record(self):
        for name in _RECORD:
            setattr(self, name, getattr(self.learner_, name))
        return self

    @property
    def coef_(self):
        """The averaged weight vector as a ``(1, n_features)`` array."""
        return self.learner_._average()[np.newaxis, :]

    def decision_function(self, X):
        """Score of each row under the averaged hypothesis."""
        check_is_fitted(self, "learner_")
        X = validate_rows(self, X)
        return np.asarray(safe_sparse_dot(X, self.coef_.ravel())).ravel()
