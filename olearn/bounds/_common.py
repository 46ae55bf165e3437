"""Shared pieces of the bound checks: the finished run, the competitor, the result.

A *finished run* is a fitted olearn estimator together with the stream
``(X, y)`` it saw, in that order, in one pass from ``w = 0`` (``fit`` with
``n_epochs=1, shuffle=False``, or ``partial_fit`` calls on consecutive
chunks).  Its online record (``margins_``, ``mistakes_``, ``n_updates_``)
gives the learner's side of a bound; a competitor ``u`` gives the other side.
Every bound function first replays the record: the final weight vector must
equal ``sum_t b_t x_t`` with the update coefficients ``b_t`` that the record
implies, which fails if the run saw another stream or another order.

Degenerate runs (:func:`refuse_degenerate`, the one check every bound calls):
an empty stream, a stream whose every row is zero, a competitor with no
positive margin on any round, and a run of another learner are refused with
an error that names the fix; no bound is ever returned as NaN or inf.
"""
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.svm import LinearSVC
from sklearn.utils.validation import check_array, check_is_fitted

#: Relative slack of ``holds`` for float round-off in the bound's terms.
ROUNDOFF = 1e-9


@dataclass(frozen=True)
class BoundCheck:
    """One bound evaluated on a finished run.

    Attributes
    ----------
    name : str
        The bound and its source, e.g. ``"PA-II: sum l_t^2 (Crammer et al.
        2006, Thm 5)"``.
    observed : float
        The learner's quantity on the run (updates, mistakes, sum of squared
        losses).
    bound : float
        The theorem's right-hand side for the given competitor.
    holds : bool
        ``observed <= bound`` up to a relative round-off of 1e-9.
    terms : dict
        The ingredients (``R``, ``||u||``, competitor losses, ``gamma``...).
    """

    name: str
    observed: float
    bound: float
    holds: bool
    terms: dict = field(default_factory=dict)

    @property
    def ratio(self):
        """``observed / bound`` (1 means tight)."""
        return self.observed / self.bound if self.bound > 0 else np.inf

    def as_row(self):
        """A flat dict (name, observed, bound, ratio, holds, terms...)."""
        return {"name": self.name, "observed": self.observed,
                "bound": self.bound, "ratio": self.ratio, "holds": self.holds,
                **self.terms}


def make_check(name, observed, bound, **terms):
    """A :class:`BoundCheck` with ``holds`` computed with the round-off slack."""
    observed, bound = float(observed), float(bound)
    holds = bool(observed <= bound + ROUNDOFF * max(1.0, abs(bound)))
    return BoundCheck(name, observed, bound, holds, terms)


def checks_frame(checks):
    """A pandas DataFrame with one row per :class:`BoundCheck` (none: an empty frame)."""
    checks = list(checks)
    wrong = [type(c).__name__ for c in checks if not isinstance(c, BoundCheck)]
    if wrong:
        raise TypeError(f"checks_frame takes BoundChecks (what the bound functions "
                        f"return); got {wrong[0]}. Pass the results of e.g. "
                        f"perceptron_bound(run, X, y, u).")
    return pd.DataFrame([c.as_row() for c in checks])


@dataclass(frozen=True)
class Stream:
    """A finished run's stream in the learner's coding."""

    X: object           # float64 array or CSR matrix, rows in the order seen
    y: np.ndarray       # +-1 (classes_[1] is +1)
    margins: np.ndarray  # y_t w_t.x_t before each update, from the record
    sq_norms: np.ndarray  # ||x_t||^2

    @property
    def R(self):
        """``max_t ||x_t||``."""
        return float(np.sqrt(self.sq_norms.max()))

    def competitor_margins(self, u):
        """``y_t u.x_t`` for every round."""
        return self.y * np.asarray(self.X @ u).ravel()


#: what :func:`refuse_degenerate` says of a competitor with no positive margin, by default
VACUOUS = ("a competitor that is wrong or undecided on every round pays at least its "
           "margin on every mistake, so the bound is at least the number of mistakes "
           "it counts")


def refuse_degenerate(n_rows, sq_norms=None, margins_u=None, *, vacuous=VACUOUS,
                      competitor="u", learner=None, learner_type=None):
    """Raise the error of a degenerate run; the one validation of every bound.

    Decided once for every bound (each docstring says which checks it makes):

    * ``n_rows == 0`` (an empty stream): ``ValueError``.  A run of 0 rounds
      makes 0 mistakes, and no theorem is needed for that; a bound function
      that returned ``0 <= 0`` would hide a stream that was lost on the way.
    * ``sq_norms`` all 0 (every row zero): ``ValueError``.  The linear
      learners never move (``R = 0``: the theorems' ratios are ``0/0``), a
      Winnow sees its always-on feature alone; nothing is learned to bound.
    * ``margins_u`` (``y_t u.x_t``) with no positive entry (``u = 0``, ``-u``
      of a separator, a disjunction covering no positive row): ``ValueError``
      saying why the bound is vacuous (``vacuous``), never an infinite or
      trivially-true bound.  Non-finite margins: ``ValueError``.
    * ``learner`` not a ``learner_type`` (a PA run given to the Perceptron's
      bound): ``TypeError``.
    """
    if learner_type is not None and not isinstance(learner, learner_type):
        types = [learner_type] if isinstance(learner_type, type) else list(learner_type)
        names = ", ".join(t.__name__ for t in types[:-1])
        names = f"{names} and {types[-1].__name__}" if names else types[-1].__name__
        raise TypeError(f"This function is about {names}; got a "
                        f"{type(learner).__name__}. Pass "
                        f"{'a ' + names if len(types) == 1 else 'one of these'} "
                        f"(a run: fitted in one pass over the stream).")
    if n_rows == 0:
        raise ValueError(
            "The stream is empty (0 rows): there is nothing to bound (a run of 0 "
            "rounds makes 0 mistakes). Pass the X, y of a run of at least one round.")
    if sq_norms is not None and not np.any(np.asarray(sq_norms) > 0.0):
        raise ValueError(
            "Every row of X is zero: the learner learns nothing from this stream "
            "(R = max ||x_t|| = 0, so the bound's terms are 0/0). Pass a stream "
            "with at least one nonzero row.")
    if margins_u is not None:
        margins_u = np.asarray(margins_u, dtype=np.float64)
        if not np.all(np.isfinite(margins_u)):
            raise ValueError(f"The competitor {competitor} has non-finite margins "
                             f"y_t {competitor}.x_t: pass a finite competitor.")
        if not np.any(margins_u > 0.0):
            raise ValueError(
                f"The competitor {competitor} has no positive margin on any round "
                f"(max_t y_t {competitor}.x_t = {margins_u.max(initial=0.0):.3g} <= 0): "
                f"the bound against it is vacuous ({vacuous}). Pass a competitor "
                f"that classifies part of the stream with a positive margin, e.g. "
                f"olearn.bounds.svm_competitor(X, y).")


def row_sq_norms(X):
    """``||x_t||^2`` of every row of a float array or CSR matrix."""
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel()
    X = np.asarray(X, dtype=np.float64)
    return np.einsum("ij,ij->i", X, X)


def finished_run(run, X, y, learner_type, *, zero_rows=False):
    """Check that ``run`` is a fitted ``learner_type`` that saw exactly ``(X, y)``.

    Returns the :class:`Stream`.  Raises ``TypeError`` for another learner and
    ``ValueError`` for an unfitted run, a shuffled or multi-epoch run, an
    empty stream, a stream of zero rows only (unless ``zero_rows``), or a
    stream of another length or with labels outside ``run.classes_``
    (:func:`refuse_degenerate`).  The order itself is checked afterwards by
    :func:`check_replay`.
    """
    refuse_degenerate(1, learner=run, learner_type=learner_type)
    check_is_fitted(run, "n_rounds_")
    if getattr(run, "shuffle", False):
        raise ValueError("The bound is for the stream in the order given; the "
                         "run has shuffle=True, so its order is unknown. Fit "
                         "with shuffle=False.")
    y = np.asarray(y).ravel()
    refuse_degenerate(min(X.shape[0] if hasattr(X, "shape") else len(X), y.shape[0]))
    X = check_array(X, accept_sparse="csr", dtype=np.float64)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}.")
    if X.shape[1] != run.n_features_in_:
        raise ValueError(f"X has {X.shape[1]} features; the run saw "
                         f"{run.n_features_in_}.")
    if run.n_rounds_ != y.shape[0]:
        raise ValueError(
            f"The run made {run.n_rounds_} rounds but the stream has "
            f"{y.shape[0]} examples: the bounds are for one pass from w = 0 "
            f"over exactly this stream (n_epochs={getattr(run, 'n_epochs', 1)}).")
    unknown = np.setdiff1d(np.unique(y), run.classes_)
    if unknown.size:
        raise ValueError(f"y has labels {list(unknown)} that are not among the "
                         f"run's classes {list(run.classes_)}.")
    y_pm = np.where(y == run.classes_[1], 1.0, -1.0)
    sq_norms = row_sq_norms(X)
    refuse_degenerate(X.shape[0], None if zero_rows else sq_norms)
    return Stream(X, y_pm, np.asarray(run.margins_, np.float64), sq_norms)


def theorem_mistakes(stream):
    """Rounds with ``y_t w_t.x_t <= 0``: the mistakes the bound theorems count.

    A zero score is a mistake here (the learner's ``n_mistakes_`` counts it
    as a prediction of the negative class, as ``predict`` does).
    """
    return int(np.count_nonzero(stream.margins <= 0.0))


def check_replay(run, stream, coefficients):
    """Raise unless ``coef_ = sum_t coefficients_t x_t`` (the run saw this stream).

    ``coefficients_t`` is the ``b_t`` of ``w_{t+1} = w_t + b_t x_t`` that the
    record implies.  The tolerance is relative to ``sum_t |b_t| ||x_t||``.
    """
    replayed = np.asarray(stream.X.T @ coefficients).ravel()
    scale = float(np.abs(coefficients) @ np.sqrt(stream.sq_norms))
    error = float(np.max(np.abs(run.coef_.ravel() - replayed), initial=0.0))
    if error > 1e-8 * max(1.0, scale):
        raise ValueError(
            f"The run's weight vector is not the one its record implies for "
            f"this stream (max deviation {error:.3g}): pass the X, y the run "
            f"saw, in the same order, from a single pass started at w = 0.")


def svm_competitor(X, y, C=1.0, loss="hinge", max_iter=200_000, tol=1e-6,
                   random_state=0):
    """A competitor ``u`` from a batch linear SVM without intercept.

    ``loss="hinge"`` minimises ``1/2 ||u||^2 + C sum_t max(0, 1 - y_t u.x_t)``
    (the best ``u`` for the PA-I bound with the same ``C``);
    ``loss="squared_hinge"`` minimises ``1/2 ||u||^2 + C sum_t max(0, 1 -
    y_t u.x_t)^2`` (the best ``u`` for the PA-II bound with the same ``C``).
    Both are solved by ``sklearn.svm.LinearSVC(fit_intercept=False,
    dual=True)``.  The labels are ordered as in olearn (the larger label is
    +1), so ``u`` is directly comparable with a run's ``coef_``.  The bounds
    hold for any ``u``, so an SVM stopped before convergence is still a valid
    competitor, only a weaker one.  ``random_state`` seeds the dual
    coordinate order (liblinear shuffles), so ``u`` is reproducible.  An
    empty stream or one of zero rows only raises ``ValueError``
    (:func:`refuse_degenerate`): its SVM is ``u = 0``, which no bound takes.
    """
    X = check_array(X, accept_sparse="csr", dtype=np.float64, ensure_min_samples=0)
    refuse_degenerate(X.shape[0], row_sq_norms(X))
    svm = LinearSVC(C=C, loss=loss, fit_intercept=False, dual=True,
                    max_iter=max_iter, tol=tol, random_state=random_state)
    svm.fit(X, y)
    return svm.coef_.ravel().astype(np.float64)
