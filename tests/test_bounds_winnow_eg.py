"""Balanced Winnow's bound and EG+- (beta = 1/alpha): where the proof's step fails."""
import numpy as np
import pytest

from olearn import BalancedWinnow
from olearn.bounds import balanced_winnow_bound, balanced_winnow_steps, disjunction_stream


@pytest.fixture(scope="module")
def stream():
    X, y, relevant = disjunction_stream(800, 40, k=3, noise=0.05, random_state=0)
    return X, y, relevant


def test_the_step_holds_under_the_assumption_and_fails_for_eg(stream):
    X, y, _ = stream
    covered = balanced_winnow_steps(BalancedWinnow(alpha=1.5, beta=0.5).fit(X, y), X, y)
    eg = balanced_winnow_steps(BalancedWinnow(alpha=1.5, beta=1 / 1.5).fit(X, y), X, y)
    assert len(covered) > 10 and (covered["excess"] <= 1e-9).all()
    assert (eg["excess"] > 1e-9).any()


def test_the_steps_replay_the_weights(stream):
    X, y, _ = stream
    run = BalancedWinnow().fit(X, y)
    table = balanced_winnow_steps(run, X, y)
    assert np.array_equal(table["t"].to_numpy(), np.flatnonzero(run.mistakes_))
    # the first mistake sees the initial weights: U = theta0+ a, V = theta0- a
    first = table.iloc[0]
    assert np.isclose(first["U"], 2.0 * first["a"]) and np.isclose(first["V"], first["a"])
    with pytest.raises(ValueError, match="record implies"):
        balanced_winnow_steps(run, X[::-1], y[::-1])


def test_outside_the_assumption_only_on_request(stream):
    X, y, relevant = stream
    run = BalancedWinnow(alpha=1.5, beta=1 / 1.5).fit(X, y)
    with pytest.raises(ValueError, match="alpha \\+ beta <= 2"):
        balanced_winnow_bound(run, X, y, relevant)
    check = balanced_winnow_bound(run, X, y, relevant, outside_assumption=True)
    assert not check.terms["assumption_holds"] and "not a theorem" in check.name
    inside = balanced_winnow_bound(BalancedWinnow().fit(X, y), X, y, relevant)
    assert inside.terms["assumption_holds"] and inside.holds


def _one_row_counterexample(alpha, beta):
    # the library's defaults theta = 1, theta0+ = 2, theta0- = 1; one positive row (a tie,
    # so a mistake); the competitor = the weights after that update, on the row's features
    X = np.array([[1.0, 0.0, 1.0]])
    run = BalancedWinnow(alpha=alpha, beta=beta).partial_fit(X, [1], classes=[-1, 1])
    on = np.array([True, False, True, True])             # the row's features and b
    pair = np.vstack([np.where(on, 2.0 * alpha, 0.0), np.where(on, 1.0 * beta, 0.0)])
    return run, balanced_winnow_bound(run, X, [1], competitor=pair, outside_assumption=True)


def test_one_row_refutes_the_formula_exactly_when_alpha_plus_beta_exceeds_2():
    for alpha, beta in ((1.5, 1 / 1.5), (2.5, 0.4), (1.05, 1 / 1.05)):
        run, check = _one_row_counterexample(alpha, beta)
        assert run.n_mistakes_ == 1 and not check.holds, (alpha, beta, check.bound)
    run, eg = _one_row_counterexample(1.5, 1 / 1.5)
    a = 3.0
    phi0 = a * ((3 * np.log(1.5) - 3 + 2) + (2 / 3 * np.log(2 / 3) - 2 / 3 + 1))
    h = a * ((3 - 2 / 3) * np.log(1.5) - 0.5)
    assert np.isclose(eg.bound, phi0 / h) and np.isclose(eg.bound, 0.6264, atol=1e-4)
    # at alpha + beta = 2 the construction is tight (bound = M), below 2 it holds
    for alpha, beta in ((1.5, 0.5), (1.2, 0.6)):
        _, check = _one_row_counterexample(alpha, beta)
        assert check.holds
    assert np.isclose(_one_row_counterexample(1.5, 0.5)[1].bound, 1.0)


def test_a_competitor_pair_is_the_signed_vector_when_disjoint(stream):
    X, y, relevant = stream
    run = BalancedWinnow().fit(X, y)
    rng = np.random.default_rng(0)
    z = rng.normal(size=X.shape[1] + 1)
    pair = np.vstack([np.maximum(z, 0), np.maximum(-z, 0)])
    one = balanced_winnow_bound(run, X, y, competitor=z)
    two = balanced_winnow_bound(run, X, y, competitor=pair)
    assert one.bound == two.bound and one.terms["h_min"] == two.terms["h_min"]
    with pytest.raises(ValueError, match="non-negative"):
        balanced_winnow_bound(run, X, y, competitor=np.vstack([z, z]))
