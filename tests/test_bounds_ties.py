"""The bounds count what their theorems count: ``y_t f_t(x_t) <= 0`` (issue 7, section 2).

``mistakes_`` (and ``n_mistakes_``) count a zero score as a prediction of
the negative class, as ``predict``; the mistake-bound theorems count every
round with ``y_t w_t.x_t <= 0``.  On a stream with empty rows labelled -1 the
two differ, and the bounds must use the theorem's count.
"""
import numpy as np
import pytest

from olearn import PA, Perceptron
from olearn.bounds import pa_bound, pa_mistake_bound, perceptron_bound, svm_competitor


def stream_with_empty_rows(n=300, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    empty = np.arange(0, n, 7)
    X[empty] = 0.0
    y[empty] = -1          # a zero score predicts -1: correct for mistakes_, a tie for the theorem
    return X, y


def ties(run):
    return int(np.count_nonzero(run.margins_ <= 0))


def test_perceptron_bound_counts_ties():
    X, y = stream_with_empty_rows()
    run = Perceptron().fit(X, y)
    assert ties(run) > run.n_updates_ and ties(run) > run.n_mistakes_
    check = perceptron_bound(run, X, y, svm_competitor(X, y))
    assert check.observed == ties(run)
    assert check.terms["mistakes"] == ties(run)
    assert check.terms["sign_errors"] == run.n_mistakes_
    assert check.terms["model_changes"] == run.n_updates_
    assert check.holds


@pytest.mark.parametrize("variant", ["PA", "PA-I", "PA-II"])
def test_pa_bounds_count_ties(variant):
    X, y = stream_with_empty_rows()
    X = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-300) \
        if variant == "PA" else X
    run = PA(variant=variant, C=0.5).fit(X, y)
    assert ties(run) > run.n_mistakes_
    u = svm_competitor(X, y, C=0.5)
    theorem = 3 if variant == "PA" else None
    if variant == "PA":
        # Theorem 3 needs ||x_t|| = 1: empty rows break it, so only PA-I/II here
        with pytest.raises(ValueError, match="Theorem 3 needs"):
            pa_bound(run, X, y, u, theorem=theorem)
        return
    check = pa_mistake_bound(run, X, y, u)
    assert check.observed == ties(run)
    assert check.terms["mistakes"] == ties(run)
    assert check.terms["sign_errors"] == run.n_mistakes_
    assert check.holds
