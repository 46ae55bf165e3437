"""Averaged(weights="correct"): Carvalho and Cohen's voting (section 3) against a
naive reference that stores every hypothesis w_i with its success counter c_i
(Table 1: c_i += 1 on a round without update; a new hypothesis on an update),
for the linear learners and the Winnows; and the "rounds" vote of the Winnows.
"""
import functools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from olearn import (ALMA, NORMA, PA, Averaged, BalancedWinnow, ModifiedBalancedWinnow,
                    Perceptron, PositiveWinnow, ROMMA, AggressiveROMMA)

CHUNKS = ((0, 1), (1, 70), (70, 71), (71, 180), (180, 240))


def stream(n=240, d=40, density=0.2, seed=0, positive=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    if positive:
        X = np.abs(X)
    X[5] = 0.0
    w = rng.standard_normal(d)
    y = np.where(X @ w > (0.2 if positive else 0.0), 1, -1)
    y[rng.random(n) < 0.1] *= -1
    return X, y


# -- linear learners ---------------------------------------------------------------
LINEAR = {
    "Perceptron": (Perceptron(), lambda m: m <= 0),
    "PA": (PA(), lambda m: m < 1.0),
    "PA(eps=1, gamma=0.1)": (PA(epsilon=1.0, gamma=0.1), lambda m: m < 1.0),
    "PA-I": (PA(C=0.3, variant="PA-I"), lambda m: m < 1.0),
    "PA(update_on=mistake)": (PA(update_on="mistake", gamma=0.1), lambda m: m <= 0),
    "ROMMA": (ROMMA(), lambda m: m <= 0),
    "AggressiveROMMA": (AggressiveROMMA(), lambda m: m < 1.0),
}


def naive_vote_linear(learner, rule, X, y):
    """Every hypothesis and its c_i; the update decided from the score computed here."""
    est = clone(learner)
    hypotheses, counts = [np.zeros(X.shape[1])], [0]
    for t in range(X.shape[0]):
        w = hypotheses[-1]
        margin = y[t] * float(X[t] @ w)
        est.partial_fit(X[t:t + 1], y[t:t + 1], classes=[-1, 1])
        if rule(margin):
            hypotheses.append(est.coef_.ravel().copy())
            counts.append(0)
        else:
            counts[-1] += 1
        assert_allclose(est.coef_.ravel(), hypotheses[-1], rtol=1e-12, atol=1e-15)
    counts = np.array(counts, dtype=float)
    return (counts[:, None] * np.array(hypotheses)).sum(0) / counts.sum()


@functools.cache
def naive_linear(name):
    """The naive vote of ``LINEAR[name]`` on :func:`stream` (computed from the dense rows:
    the same for the dense and the CSR case of the test below, so computed once)."""
    learner, rule = LINEAR[name]
    return naive_vote_linear(learner, rule, *stream())


@pytest.mark.parametrize("name", list(LINEAR))
@pytest.mark.parametrize("sparse", [False, True])
def test_linear_correct_vote_matches_naive(name, sparse):
    learner, _ = LINEAR[name]
    X, y = stream()
    expected = naive_linear(name)
    data = sp.csr_matrix(X) if sparse else X
    est = Averaged(learner, weights="correct")
    for a, b in CHUNKS:
        est.partial_fit(data[a:b], y[a:b], classes=[-1, 1])
    assert_allclose(est.coef_.ravel(), expected, rtol=1e-9, atol=1e-12)
    fitted = Averaged(learner, weights="correct").fit(data, y)
    assert_allclose(fitted.coef_.ravel(), expected, rtol=1e-9, atol=1e-12)
    assert_allclose(fitted.decision_function(X), X @ expected, rtol=1e-9, atol=1e-12)


def test_correct_differs_from_rounds():
    X, y = stream()
    a = Averaged(Perceptron(), weights="rounds").fit(X, y).coef_
    b = Averaged(Perceptron(), weights="correct").fit(X, y).coef_
    assert not np.allclose(a, b)


def test_correct_refuses_learners_without_margin_rule():
    X, y = stream()
    for learner in (ALMA(), NORMA()):
        with pytest.raises(ValueError, match="weights='correct' needs"):
            Averaged(learner, weights="correct").fit(X, y)
    with pytest.raises(ValueError, match="weights must be"):
        Averaged(Perceptron(), weights="votes").fit(X, y)


def test_correct_epochs_and_shuffle_follow_the_learner():
    X, y = stream()
    learner = Perceptron(n_epochs=3, shuffle=True, random_state=4)
    est = Averaged(learner, weights="correct").fit(X, y)
    plain = clone(learner).fit(X, y)
    np.testing.assert_array_equal(est.mistakes_, plain.mistakes_)
    rng = np.random.RandomState(4)
    order = np.concatenate([rng.permutation(len(y)) for _ in range(3)])
    expected = naive_vote_linear(Perceptron(), LINEAR["Perceptron"][1], X[order], y[order])
    assert_allclose(est.coef_.ravel(), expected, rtol=1e-9)


# -- Winnows -----------------------------------------------------------------------
WINNOWS = {"PW": PositiveWinnow(), "BW": BalancedWinnow(), "MBW": ModifiedBalancedWinnow()}


def naive_vote_winnow(learner, X, y, weights):
    """Store (u_i, v_i) and c_i; the update decided from the recorded margin."""
    est = clone(learner)
    balanced = not isinstance(learner, PositiveWinnow)
    hyps, counts = [], []
    for t in range(X.shape[0]):
        before = (est.u_.copy(), est.v_.copy() if balanced else None) if t else None
        est.partial_fit(X[t:t + 1], y[t:t + 1], classes=[-1, 1])
        if t == 0:
            d = X.shape[1] + 1
            u0 = np.full(d, 1.0 if not balanced else learner.theta0_pos)
            before = (u0, np.full(d, learner.theta0_neg) if balanced else None)
        margin = est.margins_[-1]
        if isinstance(learner, ModifiedBalancedWinnow):
            updated = margin <= learner.margin
        else:
            updated = est.mistakes_[-1]
        after = (est.u_.copy(), est.v_.copy() if balanced else None)
        if weights == "correct":
            if not updated:
                hyps.append(before)
                counts.append(1)
        else:
            hyps.append(after)
            counts.append(1)
    counts = np.array(counts, float)
    u = sum(c * h[0] for c, h in zip(counts, hyps)) / counts.sum()
    v = sum(c * h[1] for c, h in zip(counts, hyps)) / counts.sum() if balanced else None
    return u, v, est.seen_


def winnow_stream():
    X, y = stream(positive=True)
    X[5] = 0.3                      # keep MBW away from its zero-row rule here
    X[:, -3:] = 0.0                 # columns never seen in training ...
    return X, y


@functools.cache
def naive_winnow(name, weights):
    """The naive vote of ``WINNOWS[name]`` on :func:`winnow_stream` (the same for the
    dense and the CSR case of the test below, so computed once)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return naive_vote_winnow(WINNOWS[name], *winnow_stream(), weights)


def winnow_scores(X, u, v, seen, theta=1.0):
    keep = X[:, seen]
    total = keep.sum(1) + 1.0
    w = u - v if v is not None else u
    return (keep @ w[:-1][seen] + w[-1]) / total - theta


@pytest.mark.parametrize("name", list(WINNOWS))
@pytest.mark.parametrize("weights", ["correct", "rounds"])
@pytest.mark.parametrize("sparse", [False, True])
def test_winnow_vote_matches_naive(name, weights, sparse):
    learner = WINNOWS[name]
    X, y = winnow_stream()
    u, v, seen = naive_winnow(name, weights)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        data = sp.csr_matrix(X) if sparse else X
        est = Averaged(learner, weights=weights)
        for a, b in CHUNKS:
            est.partial_fit(data[a:b], y[a:b], classes=[-1, 1])
    Xt = np.abs(np.random.default_rng(9).standard_normal((50, X.shape[1])))  # ... but at test time
    assert_allclose(est.decision_function(Xt), winnow_scores(Xt, u, v, seen),
                    rtol=1e-9, atol=1e-12)


# -- issue 7: feature names and set_params mid-stream ------------------------------
def test_reordered_dataframe_columns_raise():
    pd = pytest.importorskip("pandas")
    X, y = stream()
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    for weights in ("rounds", "correct"):
        est = Averaged(PA(), weights=weights).fit(frame, y)
        est.predict(frame)
        with pytest.raises(ValueError, match="feature names"):
            est.predict(frame[frame.columns[::-1]])
    est = Averaged(PA()).fit(frame, y)
    est.fit(X, y)                                   # refit on an array forgets names
    assert not hasattr(est, "feature_names_in_")


@pytest.mark.parametrize("weights", ["rounds", "correct"])
def test_set_params_of_learner_followed_mid_stream(weights):
    X, y = stream()
    est = Averaged(PA(C=1.0, variant="PA-I"), weights=weights)
    est.partial_fit(X[:120], y[:120], classes=[-1, 1])
    est.set_params(learner__C=0.01)
    est.partial_fit(X[120:], y[120:])
    plain = PA(C=1.0, variant="PA-I").partial_fit(X[:120], y[:120], classes=[-1, 1])
    plain.set_params(C=0.01)
    plain.partial_fit(X[120:], y[120:])
    assert_allclose(est.learner_.coef_, plain.coef_, rtol=1e-12)
    assert est.learner_.C == 0.01
    est.set_params(learner__C=-1.0)
    with pytest.raises(ValueError, match="C must be"):
        est.partial_fit(X[:10], y[:10])
    est.set_params(learner=Perceptron())
    with pytest.raises(ValueError, match="learner changed"):
        est.partial_fit(X[:10], y[:10])
    est.set_params(learner=PA(C=0.01, variant="PA-I"),
                   weights="correct" if weights == "rounds" else "rounds")
    with pytest.raises(ValueError, match="weights changed"):
        est.partial_fit(X[:10], y[:10])


def test_winnow_frozen_param_change_raises_through_averaged():
    X, y = stream(positive=True)
    est = Averaged(ModifiedBalancedWinnow(), weights="correct").partial_fit(X, y)
    est.set_params(learner__margin=0.5)              # followed
    est.partial_fit(X, y)
    assert est.learner_.margin == 0.5
    est.set_params(learner__theta0_pos=5.0)
    with pytest.raises(ValueError, match="theta0_pos changed"):
        est.partial_fit(X, y)


@parametrize_with_checks([Averaged(Perceptron(), weights="correct"),
                          Averaged(PA(update_on="mistake", gamma=0.1), weights="correct"),
                          PA(update_on="mistake", gamma=0.1)])
def test_sklearn_checks_linear(estimator, check):
    check(estimator)


BLOBS = "one pass of a Winnow on the shifted blobs predicts one class (see test_winnow)"


@parametrize_with_checks([Averaged(ModifiedBalancedWinnow(), weights="correct"),
                          Averaged(BalancedWinnow(), weights="rounds")],
                         expected_failed_checks=lambda e: {"check_classifiers_train": BLOBS},
                         xfail_strict=False)
def test_sklearn_checks_winnow(estimator, check):
    check(estimator)
