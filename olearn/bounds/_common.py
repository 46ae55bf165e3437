"""Shared pieces of the bound checks: the finished run, the competitor, the result.

A *finished run* is a fitted olearn estimator together with the stream
``(X, y)`` it saw, in that order, in one pass from ``w = 0`` (``fit`` with
``n_epochs=1, shuffle=False``, or ``partial_fit`` calls on consecutive
chunks).  Its online record (``margins_``, ``mistakes_``, ``n_updates_``)
gives the learner's side of a bound; a competitor ``u`` gives the other side.
Every bound function first replays the record: the final weight vector must
equal ``sum_t b_t x_t`` with the update coefficients ``b_t`` that the record
implies, which fails if the run saw another stream or another order.
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
    """A pandas DataFrame with one row per :class:`BoundCheck`."""
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


def finished_run(run, X, y, learner_type):
    """Check that ``run`` is a fitted ``learner_type`` that saw exactly ``(X, y)``.

    Returns the :class:`Stream`.  Raises ``TypeError`` for another learner and
    ``ValueError`` for an unfitted run, a shuffled or multi-epoch run, or a
    stream of another length or with labels outside ``run.classes_``.  The
    order itself is checked afterwards by :func:`check_replay`.
    """
    if not isinstance(run, learner_type):
        raise TypeError(f"This bound is about {learner_type.__name__}; got a "
                        f"{type(run).__name__}.")
    check_is_fitted(run, "n_rounds_")
    if getattr(run, "shuffle", False):
        raise ValueError("The bound is for the stream in the order given; the "
                         "run has shuffle=True, so its order is unknown. Fit "
                         "with shuffle=False.")
    X = check_array(X, accept_sparse="csr", dtype=np.float64)
    y = np.asarray(y).ravel()
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
    if sp.issparse(X):
        sq_norms = np.asarray(X.multiply(X).sum(axis=1)).ravel()
    else:
        sq_norms = np.einsum("ij,ij->i", X, X)
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
    coordinate order (liblinear shuffles), so ``u`` is reproducible.
    """
    svm = LinearSVC(C=C, loss=loss, fit_intercept=False, dual=True,
                    max_iter=max_iter, tol=tol, random_state=random_state)
    svm.fit(X, y)
    return svm.coef_.ravel().astype(np.float64)
