"""Voting (averaging) of any linear online learner and of the Winnow learners.

Two weightings of the intermediate hypotheses (``weights=``):

``"rounds"`` (default, olearn's original rule)
    every hypothesis weighted by the number of rounds it was the hypothesis
    *after* a round -- Freund and Schapire's (1999) survival weighting,
    averaged:  ``w_avg = (1/T) sum_{t=1..T} w_{t+1}``;

``"correct"`` (Carvalho and Cohen 2006, section 3; the single-pass reproduction)
    ``w_a = (1/Z) sum_i c_i w_i`` where ``c_i`` counts the rounds on which the
    hypothesis ``w_i`` was *not* updated -- the "success counter" of their
    Tables 1 and 2 (for mistake-driven learners: its correct predictions; for
    MBW and loss-driven PA: the rounds without a margin error) -- and
    ``Z = sum_i c_i``.  A round that fires the learner's update rule counts as
    an update even if it leaves ``w`` unchanged (an all-zero row), as in Table 1.
    Before any credited round (``Z = 0``) the current hypothesis is used.

Both are kept in O(nnz(x_t)) per round, never by storing hypotheses:

* Winnow learners keep the vote per coordinate lazily, as mantissa/exponent sums
  (:mod:`olearn.linear.winnow`), either weighting;
* linear learners keep ``"rounds"`` lazily in their own pass
  (:mod:`olearn.linear.core`); for ``"correct"`` they run a *shadow* copy of the
  learner on the update rounds only.  Since a round without update leaves the
  state unchanged, the shadow retraces the learner's hypotheses exactly, and
  ``sum_{t not updated} w_t = sum_t w_t - sum_{t updated} w_t`` is the
  difference of the two learners' lazy sums of pre-round hypotheses.  The update
  rounds are identified from the record by the learner's update rule
  (:data:`UPDATE_RULES`); after every call the shadow must reproduce the
  learner's margins on those rounds and its final ``w`` bit for bit, else a
  clear error is raised.  Learners whose rule is not a function of the margin
  (ALMA, NORMA, the regularized learners) are refused with ``"correct"``.
"""
import contextlib

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils import _safe_indexing, check_random_state
from sklearn.utils.validation import _num_samples, check_is_fitted

from .._rows import csr_dot_average, csr_dot_vote, dense_scores, sparse_scores
from ..base import (_PER_ROUND, FrozenParameterError, NonFiniteModelError,
                    OnlineClassifier, checked_scores, validate_rows)
from .core import SCALE, SUM_SCALE, LinearClassifier
from .pa import PA
from .perceptron import Perceptron
from .romma import ROMMA, AggressiveROMMA
from .winnow import WinnowClassifier, finite_scores

_RECORD = ("classes_", "n_features_in_", "n_rounds_", "n_mistakes_",
           "n_updates_") + _PER_ROUND
WEIGHTS = ("rounds", "correct")

#: update rule of each linear learner as a function of the recorded margin
#: ``y_t w_t.x_t`` (exact class match; a learner may instead define
#: ``_update_rule(margins)``).
UPDATE_RULES = {
    Perceptron: lambda learner, m: m <= 0.0,
    ROMMA: lambda learner, m: m <= 0.0,
    AggressiveROMMA: lambda learner, m: m < 1.0,
    # every PA variant updates iff the hinge loss eps - y w.x is positive
    PA: lambda learner, m: m < learner.epsilon,
}


def _same(a, b):
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except (TypeError, ValueError):
        return False


class Averaged(OnlineClassifier):
    """Averaged (voted) version of a linear or Winnow learner.

    The wrapped ``learner`` runs unchanged (its updates use its own current
    hypothesis), so the online record -- ``mistakes_``, ``margins_``,
    ``n_updates_`` -- is the learner's; ``predict`` and ``decision_function``
    use the vote (``coef_`` too, for linear learners).  ``fit`` options
    (``n_epochs``, ``shuffle``) are the learner's.  Hyper-parameters of the
    learner changed with ``set_params(learner__C=...)`` between ``partial_fit``
    calls are followed (and validated); a new learner class or a new
    ``weights`` raises.

    Parameters
    ----------
    learner : LinearClassifier or Winnow learner, default=Perceptron()
    weights : {"rounds", "correct"}, default="rounds"
        How hypotheses are weighted (see the module docstring); ``"correct"``
        is Carvalho and Cohen's voting.

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

    def __init__(self, learner=None, weights="rounds"):
        self.learner = learner
        self.weights = weights

    def __getattr__(self, name):
        learner = self.__dict__.get("learner_")
        if (name in _PER_ROUND and learner is not None
                and learner.__dict__.get("record") == "counts"):
            raise AttributeError(
                f"Averaged: its learner {type(learner).__name__} has "
                f"record='counts', which keeps only n_rounds_, n_mistakes_ and "
                f"n_updates_; {name} is not recorded. Use record='full' (the "
                f"default) on the learner for the per-round record.")
        return super().__getattr__(name)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if isinstance(self.learner, WinnowClassifier):
            tags.input_tags.positive_only = True
        return tags

    # -- construction and parameters ------------------------------------------
    def _template(self):
        return Perceptron() if self.learner is None else self.learner

    def _check_params(self):
        if self.weights not in WEIGHTS:
            raise ValueError(f"weights must be one of {WEIGHTS}, got "
                             f"{self.weights!r}.")
        template = self._template()
        if not isinstance(template, (LinearClassifier, WinnowClassifier)):
            raise ValueError(
                f"Averaged needs a linear olearn learner (a weight vector) or a "
                f"Winnow learner, got {type(template).__name__}.")
        if (self.weights == "correct" and isinstance(template, LinearClassifier)
                and not hasattr(template, "_update_rule")
                and type(template) not in UPDATE_RULES):
            raise ValueError(
                f"weights='correct' needs the learner's update rule as a function "
                f"of the margin; {type(template).__name__} has none (supported: "
                f"{sorted(c.__name__ for c in UPDATE_RULES)}, the Winnow learners "
                f"and learners defining _update_rule).")

    def _make_learner(self):
        self._check_params()
        learner = clone(self._template())
        learner._averaging = True
        if isinstance(learner, WinnowClassifier):
            learner._vote_correct = self.weights == "correct"
        self._made_with = (type(self._template()), self.weights,
                           self._template().get_params(deep=False))
        return learner

    def _follow_params(self):
        """Apply ``set_params`` changes made since the learner was built."""
        self._check_params()   # learner=3 gets the validation message first
        cls, weights, params = self._made_with
        template = self._template()
        if type(template) is not cls:
            raise FrozenParameterError(
                f"the learner changed from {cls.__name__} to "
                f"{type(template).__name__} between partial_fit calls; call fit "
                f"to start again.")
        if self.weights != weights:
            raise FrozenParameterError(
                f"weights changed from {weights!r} to {self.weights!r} between "
                f"partial_fit calls: the vote so far cannot be re-weighted; "
                f"call fit to start again.")
        new = template.get_params(deep=False)
        changed = {k: v for k, v in new.items() if not _same(v, params.get(k))}
        if changed:
            for est in (self.learner_, getattr(self, "shadow_", None)):
                if est is not None:
                    est.set_params(**changed)
                    est._check_params()
                    if isinstance(est, WinnowClassifier):
                        est._check_frozen()
            self._made_with = (cls, weights, new)

    @property
    def _shadowed(self):
        return (self.weights == "correct"
                and isinstance(self._template(), LinearClassifier))

    # -- learning -----------------------------------------------------------
    def fit(self, X, y):
        """Reset and learn online; the model is the vote."""
        self.learner_ = self._make_learner()
        if not self._shadowed:
            with self._recording():
                self.learner_.fit(X, y)
            return self
        self._make_shadow()
        learner = self.learner_
        learner._check_run_params()   # n_epochs, shuffle, random_state
        rng = check_random_state(learner.random_state)
        with self._recording():
            for _ in range(learner.n_epochs):   # as OnlineClassifier.fit
                if learner.shuffle and y is not None:
                    order = rng.permutation(_num_samples(X))
                    self._learn_shadowed(_safe_indexing(X, order),
                                         _safe_indexing(y, order))
                else:
                    self._learn_shadowed(X, y)
        return self

    def partial_fit(self, X, y, classes=None):
        """Continue learning online; the vote covers every round seen."""
        if not hasattr(self, "learner_"):
            return self._first_partial_fit(X, y, classes)
        self._follow_params()
        with self._recording():
            if self._shadowed:
                self._learn_shadowed(X, y, classes)
            else:
                self.learner_.partial_fit(X, y, classes=classes)
        return self

    def _first_partial_fit(self, X, y, classes):
        self.learner_ = self._make_learner()
        with self._recording():
            if self._shadowed:
                self._make_shadow()
                self._learn_shadowed(X, y, classes)
            else:
                self.learner_.partial_fit(X, y, classes=classes)
        return self

    def _make_shadow(self):
        self.shadow_ = clone(self.learner_)
        self.shadow_._averaging = True
        self._n_update_rounds = 0
        # with record="counts" the margins of a call are read from its scratch
        self.learner_._keeps_call_scratch = True
        self.shadow_._keeps_call_scratch = True

    @staticmethod
    def _call_margins(learner, start):
        """The learner's margins of the rounds from ``start`` (this call's)."""
        if learner._full_record():
            return learner.margins_[start:]
        margins, first = learner._call_scratch[1], learner._call_scratch[2]
        return margins[start - first:learner.n_rounds_ - first]

    def _learn_shadowed(self, X, y, classes=None):
        learner, shadow = self.learner_, self.shadow_
        start = getattr(learner, "n_rounds_", 0)
        failure = None
        try:
            learner.partial_fit(X, y, classes=classes)
        except NonFiniteModelError as error:
            # the learner kept its finite prefix: the vote follows it, then raise
            failure = error
        if not hasattr(learner, "classes_"):
            raise failure
        margins = self._call_margins(learner, start)
        rule = getattr(learner, "_update_rule", None)
        mask = (rule(margins) if rule is not None
                else UPDATE_RULES[type(learner)](learner, margins))
        rows = np.flatnonzero(mask)
        if not hasattr(shadow, "classes_"):
            # same classes and state as the learner, no rounds yet
            shadow._set_classes(learner.classes_)
            shadow._init_state(learner.n_features_in_)
            shadow._reset_record()
            shadow.n_features_in_ = learner.n_features_in_
            if hasattr(learner, "feature_names_in_"):
                shadow.feature_names_in_ = learner.feature_names_in_
        if rows.size:
            if sp.issparse(X):
                X = sp.csr_matrix(X)   # any sparse format the learner accepted
            elif not hasattr(X, "iloc"):  # keep a DataFrame's column names
                X = np.asarray(X)
            s_start = shadow.n_rounds_
            shadow.partial_fit(_safe_indexing(X, rows), _safe_indexing(np.asarray(y), rows))
            same = (np.array_equal(self._call_margins(shadow, s_start), margins[rows])
                    and np.array_equal(shadow.coef_, learner.coef_))
            if not same:
                raise RuntimeError(
                    f"weights='correct': the shadow run of {type(learner).__name__} "
                    f"on its update rounds did not retrace the learner (its update "
                    f"rule is not the one in olearn.linear.averaged.UPDATE_RULES, "
                    f"or a round without update changed its state).")
        self._n_update_rounds += int(rows.size)
        if failure is not None:
            raise failure

    @contextlib.contextmanager
    def _recording(self):
        """Copy the learner's record after the call, also when it raised."""
        try:
            yield
        finally:
            if hasattr(self.learner_, "classes_"):
                self._copy_record()

    def _copy_record(self):
        for name in _RECORD:
            if name in self.learner_.__dict__:
                setattr(self, name, getattr(self.learner_, name))
            else:
                self.__dict__.pop(name, None)
        if hasattr(self.learner_, "feature_names_in_"):
            self.feature_names_in_ = self.learner_.feature_names_in_
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    # -- the vote -------------------------------------------------------------
    @staticmethod
    def _pre_round_sum(learner):
        """``sum_t w_t`` over the rounds seen, ``w_t`` the hypothesis before round t."""
        state = learner._state
        return state[SUM_SCALE] * learner._v - learner._z

    @property
    def coef_(self):
        """The voted weight vector as a ``(1, n_features)`` array (linear learners)."""
        check_is_fitted(self, "learner_")
        learner = self.learner_
        if isinstance(learner, WinnowClassifier):
            raise AttributeError(
                "a voted Winnow has no single weight vector: its score is "
                "<x~, u> - <x~, v> - theta on the normalised row; use "
                "decision_function.")
        if not self._shadowed:
            return learner._average()[np.newaxis, :]
        credits = learner.n_rounds_ - self._n_update_rounds
        if credits == 0:
            return learner.coef_
        total = self._pre_round_sum(learner) - self._pre_round_sum(self.shadow_)
        return (total / credits)[np.newaxis, :]

    def decision_function(self, X):
        """Score of each row under the vote."""
        check_is_fitted(self, "learner_")
        X = validate_rows(self, X)
        if isinstance(self.learner_, WinnowClassifier):
            return finite_scores(self, checked_scores(
                self, self.learner_._averaged_decision(X)))
        if sp.issparse(X):
            return checked_scores(self, self._sparse_decision(X))
        return checked_scores(self, dense_scores(X, self.coef_.ravel()))

    def predict(self, X):
        """Class label of each row: ``classes_[1]`` iff the vote's score is > 0
        (a Winnow's exact sign also when its score is beyond float64)."""
        check_is_fitted(self, "learner_")
        if isinstance(self.learner_, WinnowClassifier):
            scores = checked_scores(
                self, self.learner_._averaged_decision(validate_rows(self, X)))
            return self.classes_[(scores > 0).astype(int)]
        return super().predict(X)

    def _sparse_decision(self, X):
        """The vote's scores of CSR rows in O(nnz(X)): each weight of a row
        formed from the lazy sums as :attr:`coef_` forms it (bit for bit
        ``X @ coef_``), the full vector never built."""
        learner = self.learner_
        if not self._shadowed:
            state = learner._state
            return sparse_scores(csr_dot_average, X, learner._v, learner._z,
                                 state[SUM_SCALE] + state[SCALE],
                                 float(max(learner.n_rounds_, 1)))
        credits = learner.n_rounds_ - self._n_update_rounds
        if credits == 0:
            return learner._decision(X)
        shadow = self.shadow_
        return sparse_scores(csr_dot_vote, X, learner._v, learner._z,
                             learner._state[SUM_SCALE], shadow._v, shadow._z,
                             shadow._state[SUM_SCALE], float(credits))
