"""olearn.bounds.regret_lemma: the OMD lemma's terms on finished runs of every family."""
import numpy as np
import pytest

from olearn import (AROW, NORMA, PA, BalancedWinnow, L2ConstrainedPA, ModifiedBalancedWinnow,
                    ObjectiveRegularizedPA, Perceptron, PositiveWinnow)
from olearn.bounds import disjunction_stream, drifting_stream, regret_lemma


@pytest.fixture(scope="module")
def stream():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X @ np.arange(1.0, 7.0) + 0.5 * rng.normal(size=300) > 0, 1, -1)
    return X, y


@pytest.mark.parametrize("learner", [
    Perceptron(), PA(), PA(C=0.3, variant="PA-I"), PA(C=0.3, variant="PA-II"), NORMA(),
    ObjectiveRegularizedPA(0.02), L2ConstrainedPA(3.0), AROW(), AROW(covariance="diag")],
    ids=lambda learner: repr(learner))
def test_the_lemma_on_euclidean_and_quadratic_runs(stream, learner):
    X, y = stream
    run = learner.fit(X, y)
    u = np.linspace(-1.0, 1.0, 6)
    check = regret_lemma(run, X, y, u)
    assert check.terms["max_weight_diff"] < 1e-10
    assert check.terms["identity_gap"] < 1e-9 * max(1.0, abs(check.observed))
    assert check.terms["mistakes"] == run.n_mistakes_
    if not isinstance(run, ObjectiveRegularizedPA):      # the composite term may be negative
        assert check.holds
    # PA's Lemma 1 (Crammer et al.) is the identity with eta_t = tau_t: check one number of it
    if isinstance(run, Perceptron):
        assert np.isclose(check.terms["stability"], 0.5 * (X[run.margins_ <= 0] ** 2).sum())


def test_the_lemma_on_winnow_runs():
    X, y, relevant = disjunction_stream(500, 30, k=3, noise=0.05, random_state=0)
    for run, size in ((PositiveWinnow().fit(X, y), 31), (BalancedWinnow().fit(X, y), 62)):
        u = np.ones(size)
        u[relevant] = 3.0
        check = regret_lemma(run, X, y, u)
        assert check.holds and check.terms["max_weight_diff"] < 1e-10
        assert check.terms["growth"] == 0 and abs(check.terms["correction"]) < 1e-9


def test_what_is_not_an_instance_is_refused(stream):
    X, y = stream
    with pytest.raises(ValueError, match="Truncation"):
        regret_lemma(ObjectiveRegularizedPA(0.02, truncate_sigma=1e-3).fit(X, y), X, y,
                     np.zeros(6))
    Xb, yb, _ = disjunction_stream(200, 10, k=2, random_state=0)
    with pytest.raises(ValueError, match="not an instance"):
        regret_lemma(ModifiedBalancedWinnow().fit(Xb, yb), Xb, yb, np.ones(22))
    with pytest.raises(ValueError, match="gamma=None"):
        regret_lemma(PA(gamma=0.1).fit(X, y), X, y, np.zeros(6))
    run = Perceptron().fit(X, y)
    with pytest.raises(ValueError, match="not the run"):
        regret_lemma(run, X[::-1], y[::-1], np.zeros(6))
