"""What the OMD regret lemma yields for AROW (olearn.bounds.arow_regret_lemma)."""
import numpy as np
import pytest

from olearn import AROW
from olearn.bounds import arow_regret_lemma, regret_lemma


def _stream(n=300, d=20, norm=17.0, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X *= norm / np.linalg.norm(X, axis=1, keepdims=True)
    return X, rng.choice([-1, 1], size=n), rng.normal(size=d)


@pytest.mark.parametrize("r, a", [(1.0, 1.0), (0.3, 2.0)])
def test_lemma_identity_and_the_omd_stability(r, a):
    X, y, u = _stream(norm=3.0)
    run = AROW(r=r, a=a).fit(X, y)
    check = arow_regret_lemma(run, X, y, u)
    t = check.terms
    # left + dropped final distance = right, up to round-off
    assert t["identity_gap"] < 1e-8 * check.bound
    assert check.holds and t["M"] <= t["mistake_bound"]
    # the stability is the one the one OMD loop computes for the same run
    assert np.isclose(regret_lemma(run, X, y, u).terms["stability"], t["stability"],
                      rtol=1e-8)


def test_the_stability_is_not_bounded_by_the_log_determinant():
    X, y, _ = _stream()
    run = AROW(r=1.0).fit(X, y)
    t = arow_regret_lemma(run, X, y, np.zeros(X.shape[1])).terms
    assert t["stability"] > t["half_logdet_over_r"]


def test_refuses_another_stream_and_the_diagonal():
    X, y, u = _stream(norm=3.0)
    run = AROW().fit(X, y)
    with pytest.raises(ValueError, match="record implies"):
        arow_regret_lemma(run, X[::-1], y[::-1], u)
    with pytest.raises(ValueError, match="full covariance"):
        arow_regret_lemma(AROW(covariance="diag").fit(X, y), X, y, u)
