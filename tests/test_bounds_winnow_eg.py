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
