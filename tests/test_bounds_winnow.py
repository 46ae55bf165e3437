"""Littlestone's Winnow bound (olearn.bounds.winnow) on finished PositiveWinnow runs,
and the potential bound for BalancedWinnow (balanced_winnow_bound, at the end).

Synthetic k-sparse disjunctions (noise-free and noisy), two binary real data
sets (a1a, w7a; w7a in one fixed random order), and small streams on which a
part of the bound is attained or nearly attained, so that a broken constant
fails.
"""
import math

import numpy as np
import pytest

import olearn
from olearn.bounds import (balanced_winnow_bound, disjunction_stream,
                           greedy_disjunction, winnow_bound)


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


# -- Balanced Winnow: balanced_winnow_bound ---------------------------------------------
def test_balanced_hand_computed_stream():
    """alpha = 1.5, beta = 0.4 (alpha - 1 != 1 - beta, so swapping them fails).

    Rows (1,0)+, (0,1)-, (1,0)+, (0,1)-, each with a_t = 2 (one feature and
    the always-on one).  Row 1: net (2-1)*2 = 2 <= theta a = 2, a mistake;
    u0, ub -> 3, v0, vb -> 0.4.  Row 2: net (2-1) + (3-0.4) = 3.6 > 2, a
    mistake; u1 -> 0.8, ub -> 1.2, v1 -> 1.5, vb -> 0.6.  Rows 3, 4: nets 3.2
    and -0.1, right.  M = 2.
    """
    X = np.array([[1, 0], [0, 1], [1, 0], [0, 1]], dtype=float)
    y = np.array([1, -1, 1, -1])
    run = olearn.BalancedWinnow(alpha=1.5, beta=0.4, theta=1.0, theta0_pos=2.0,
                                theta0_neg=1.0).fit(X, y)
    c = 2.0 / math.log(1.5)
    check = balanced_winnow_bound(run, X, y, competitor=[c, 0.0, 0.0])
    t = check.terms
    assert check.observed == 2 and (t["promotions"], t["demotions"]) == (1, 1)
    # h on positive rows: c ln 1.5 - (alpha - 1) theta a = 2 - 0.5 * 2 = 1;
    # on negative rows: (1 - beta) theta a = 0.6 * 2 = 1.2
    assert t["h_min"] == pytest.approx(1.0)
    # Phi_0 = D(c, 2) + [v0: 1] + [feature 1: 2 + 1] + [b: 2 + 1]
    phi0 = c * math.log(c / 2.0) - c + 2.0 + 1.0 + 3.0 + 3.0
    assert t["initial_potential"] == pytest.approx(phi0)
    # gamma = 1: Phi_0 / 1; gamma = 1.2: (Phi_0 + 2 * 0.2) / 1.2, smaller
    assert t["gamma"] == pytest.approx(1.2)
    assert check.bound == pytest.approx((phi0 + 0.4) / 1.2)
    assert check.bound == pytest.approx(7.4334, abs=1e-4)
    fixed = balanced_winnow_bound(run, X, y, competitor=[c, 0.0, 0.0], gamma=1.0)
    assert fixed.bound == pytest.approx(phi0)


def test_balanced_bound_attained_to_two_percent():
    """All-zero negative rows: only the always-on pair moves.  Net weight
    1 - 1e-6 > theta = 0.99: one demotion, then 0.01 - 1.01e-6 < theta.  With
    the zero competitor h_t = (1 - beta) theta = 0.9801 and Phi_0 = 1 + 1e-6:
    the bound is 1.0203.  With (alpha - 1) for (1 - beta) it would be 101,
    without the potential of v it would be 1.0203 - 1e-6 (caught by approx)."""
    X = np.zeros((5, 3))
    y = -np.ones(5, dtype=int)
    run = olearn.BalancedWinnow(alpha=1.01, beta=0.01, theta=0.99,
                                theta0_pos=1.0, theta0_neg=1e-6)
    run.partial_fit(X, y, classes=[-1, 1])
    check = balanced_winnow_bound(run, X, y, competitor=np.zeros(4))
    assert check.observed == check.terms["demotions"] == 1
    assert check.bound == pytest.approx((1.0 + 1e-6) / (0.99 * 0.99), rel=1e-12)
    assert check.ratio > 0.97


def _balanced_potential(mu_pos, mu_neg, u, v):
    def D(m, w):
        return np.where(m > 0, m * np.log(np.where(m > 0, m, 1.0) / w) - m + w, w)
    return float(D(mu_pos, u).sum() + D(mu_neg, v).sum())


def test_balanced_per_round_lemma_on_a_replay():
    """The proof's lemma, round by round: a mistake lowers the potential by at
    least h_t, a right prediction leaves it unchanged (replay in plain Python,
    checked against the library's mistakes and final weights)."""
    X, y, R = disjunction_stream(300, 25, k=3, noise=0.05, random_state=3)
    alpha, beta, theta, p0, n0 = 1.5, 0.45, 1.0, 2.0, 1.0
    run = olearn.BalancedWinnow(alpha=alpha, beta=beta, theta=theta,
                                theta0_pos=p0, theta0_neg=n0).fit(X, y)
    Xa = np.hstack([X.toarray(), np.ones((X.shape[0], 1))]) > 0
    mu_pos = np.zeros(26)
    mu_pos[R] = 6.0
    mu_neg = np.zeros(26)
    mu_neg[-1] = 1.0
    u, v = np.full(26, p0), np.full(26, n0)
    phi = phi0 = _balanced_potential(mu_pos, mu_neg, u, v)
    hs = []
    for t in range(X.shape[0]):
        S, a = Xa[t], Xa[t].sum()
        net = (u[S] - v[S]).sum()
        mistake = (net > theta * a) != (y[t] > 0)
        assert mistake == run.mistakes_[t]
        if mistake:
            fu, fv = (alpha, beta) if y[t] > 0 else (beta, alpha)
            u[S] *= fu
            v[S] *= fv
        new = _balanced_potential(mu_pos, mu_neg, u, v)
        if y[t] > 0:
            h = (math.log(alpha) * mu_pos[S].sum() - math.log(1 / beta) * mu_neg[S].sum()
                 - (alpha - 1) * theta * a)
        else:
            h = (math.log(alpha) * mu_neg[S].sum() - math.log(1 / beta) * mu_pos[S].sum()
                 + (1 - beta) * theta * a)
        hs.append(h)
        if mistake:
            assert phi - new >= h - 1e-9 * max(1.0, abs(h))
        else:
            assert new == phi
        phi = new
    np.testing.assert_allclose(np.log(u), run.log_u_, rtol=0, atol=1e-9)
    # the library's h_t and bound (gamma = 1) are the replay's
    check = balanced_winnow_bound(run, X.toarray(), y,
                                  competitor=mu_pos - mu_neg, gamma=1.0)
    assert check.terms["h_min"] == pytest.approx(min(hs))
    assert check.terms["initial_potential"] == pytest.approx(phi0)
    assert check.bound == pytest.approx(phi0 + np.maximum(0.0, 1.0 - np.array(hs)).sum())
    assert check.holds


@pytest.mark.parametrize("d", [20, 200, 2000])
@pytest.mark.parametrize("noise", [0.0, 0.05])
def test_balanced_bound_holds_on_disjunctions(d, noise):
    X, y, relevant = disjunction_stream(2000, d, k=5, noise=noise, random_state=d)
    run = olearn.BalancedWinnow().fit(X, y)
    check = balanced_winnow_bound(run, X, y, relevant)
    assert check.holds, check
    assert check.observed == run.n_mistakes_
    assert 0.05 < check.ratio < 1.0


@pytest.mark.parametrize("name", ["a1a", "w7a"])
def test_balanced_bound_holds_on_real_binary_data(name):
    from olearn.datasets import load
    X, y = load(name, download=False)
    order = np.random.default_rng(0).permutation(X.shape[0])
    X, y = (X[order] > 0).astype(float), np.asarray(y)[order]
    run = olearn.BalancedWinnow().fit(X, y)
    relevant = greedy_disjunction(X, y, olearn.PositiveWinnow())
    check = balanced_winnow_bound(run, X, y, relevant)
    assert check.holds, check
    assert 0.0 < check.ratio < 1.0


def test_balanced_refuses_what_the_theorem_does_not_cover():
    X, y, relevant = disjunction_stream(200, 30, k=3, random_state=0)
    run = olearn.BalancedWinnow().fit(X, y)
    with pytest.raises(ValueError, match="0/1 rows"):
        balanced_winnow_bound(run, 2.0 * X, y, relevant)
    with pytest.raises(ValueError, match="record implies"):
        balanced_winnow_bound(run, X[::-1], y[::-1], relevant)
    with pytest.raises(TypeError, match="ModifiedBalancedWinnow"):
        balanced_winnow_bound(olearn.ModifiedBalancedWinnow().fit(X, y), X, y, relevant)
    with pytest.raises(TypeError, match="BalancedWinnow"):
        balanced_winnow_bound(olearn.PositiveWinnow().fit(X, y), X, y, relevant)
    with pytest.raises(ValueError, match="alpha \\+ beta <= 2"):
        balanced_winnow_bound(olearn.BalancedWinnow(alpha=2.0).fit(X, y), X, y, relevant)
    with pytest.raises(ValueError, match="exactly one"):
        balanced_winnow_bound(run, X, y)
    with pytest.raises(ValueError, match="competitor must be 31"):
        balanced_winnow_bound(run, X, y, competitor=np.ones(30))
    with pytest.raises(ValueError, match="relevant"):
        balanced_winnow_bound(run, X, y, [30])
    with pytest.raises(ValueError, match="gamma"):
        balanced_winnow_bound(run, X, y, relevant, gamma=0.0)
