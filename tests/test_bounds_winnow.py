"""Littlestone's Winnow bound (olearn.bounds.winnow) on finished PositiveWinnow runs.

Synthetic k-sparse disjunctions (noise-free and noisy), two binary real data
sets (a1a, w7a; w7a in one fixed random order), and small streams on which a
part of the bound is attained or nearly attained, so that a broken constant
fails.
"""
import numpy as np
import pytest

import olearn
from olearn.bounds import disjunction_stream, greedy_disjunction, winnow_bound


@pytest.mark.parametrize("d", [20, 200, 2000])
@pytest.mark.parametrize("noise", [0.0, 0.05])
def test_bound_holds_on_disjunctions(d, noise):
    X, y, relevant = disjunction_stream(2000, d, k=5, noise=noise, random_state=d)
    run = olearn.PositiveWinnow().fit(X, y)
    check = winnow_bound(run, X, y, relevant)
    assert check.holds, check
    assert check.observed == run.n_mistakes_
    assert check.terms["promotions"] <= check.terms["promotion_bound"]
    if noise == 0.0:  # a clean disjunction has no attribute errors
        assert check.terms["uncovered_positives"] == 0
        assert check.terms["relevant_on_negatives"] == 0


def test_grows_like_log_d_while_perceptron_grows_with_d():
    bounds, winnow = [], []
    for d in (100, 10_000):
        X, y, relevant = disjunction_stream(3000, d, k=5, random_state=1)
        run = olearn.PositiveWinnow().fit(X, y)
        check = winnow_bound(run, X, y, relevant)
        bounds.append(check.terms["promotion_bound"])
        winnow.append(check.observed)
    # 100x more features: the promotion part grows by k log_alpha(100) at most
    assert bounds[1] - bounds[0] <= 5 * (np.log(100 * 1.1) / np.log(1.5) + 1)
    assert winnow[1] < 3 * winnow[0]


@pytest.mark.parametrize("name", ["a1a", "w7a"])
def test_bound_holds_on_real_binary_data(name):
    from olearn.datasets import load
    X, y = load(name, download=False)
    order = np.random.default_rng(0).permutation(X.shape[0])
    X, y = (X[order] > 0).astype(float), np.asarray(y)[order]
    run = olearn.PositiveWinnow().fit(X, y)
    relevant = greedy_disjunction(X, y, run)
    check = winnow_bound(run, X, y, relevant)
    assert check.holds, check
    assert 0.0 < check.ratio < 1.0


def test_promotion_part_is_attained():
    """Two promotions, and the promotion bound is exactly 2: dropping the
    ``1 +`` of the cap, or using a_min for a_max, gives 1 and fails."""
    X = np.array([[0, 1], [1, 0], [0, 0], [1, 0], [1, 1], [0, 0], [0, 0],
                  [0, 0], [0, 1], [1, 0], [0, 1]], dtype=float)
    y = np.where(X[:, 0] > 0, 1, -1)
    run = olearn.PositiveWinnow(alpha=3.0, beta=0.25, theta=2.0, theta0=1.0).fit(X, y)
    check = winnow_bound(run, X, y, [0])
    assert check.terms["promotions"] == check.terms["promotion_bound"] == 2
    assert check.terms["a_max"] == 3.0 and check.terms["a_min"] == 1.0
    assert check.holds


def test_demotion_part_counts_the_always_on_weight():
    """An all-zero negative row: only the always-on weight (theta0 = 1 > theta)
    is demoted, once.  The bound is 1/((1 - beta) theta) = 1.02; without the
    always-on weight in W0 it would be 0 < 1."""
    X = np.zeros((5, 3))
    y = -np.ones(5, dtype=int)
    run = olearn.PositiveWinnow(beta=0.01, theta=0.99, theta0=1.0)
    run.partial_fit(X, y, classes=[-1, 1])
    check = winnow_bound(run, X, y, [0])
    assert check.observed == check.terms["demotions"] == 1
    assert check.terms["initial_weight"] == 1.0
    assert check.bound == pytest.approx(1.0 / (0.99 * 0.99))
    assert check.ratio > 0.97


def test_hand_computed_terms():
    """Every term of a 4-row stream, by hand: a_t = 1 + active features."""
    X = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1], [0, 0, 1]], dtype=float)
    y = np.array([1, -1, 1, -1])
    run = olearn.PositiveWinnow(alpha=2.0, beta=0.5, theta=1.0, theta0=1.0).fit(X, y)
    check = winnow_bound(run, X, y, [0])
    t = check.terms
    assert (t["a_max"], t["a_min"], t["n_active_features"]) == (4.0, 2.0, 3)
    assert t["uncovered_positives"] == 0 and t["relevant_on_negatives"] == 0
    # cap of feature 0: floor(1 + log2(1 * 4 / 1)) = 3
    assert t["promotion_bound"] == 3.0
    # ((3 + 1) * 1 / (0.5 * 1) + (2 - 1) / 0.5 * 4 * 3) / 2 = (8 + 24) / 2 = 16
    assert t["demotion_bound"] == 16.0
    assert check.bound == 19.0


def test_refuses_what_the_theorem_does_not_cover():
    X, y, relevant = disjunction_stream(200, 30, k=3, random_state=0)
    run = olearn.PositiveWinnow().fit(X, y)
    with pytest.raises(ValueError, match="0/1 rows"):
        winnow_bound(run, 2.0 * X, y, relevant)
    with pytest.raises(ValueError, match="record implies"):
        winnow_bound(run, X[::-1], y[::-1], relevant)
    with pytest.raises(TypeError, match="PositiveWinnow"):
        winnow_bound(olearn.BalancedWinnow().fit(X, y), X, y, relevant)
    with pytest.raises(ValueError, match="relevant"):
        winnow_bound(run, X, y, [30])
