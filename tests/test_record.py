"""``record="counts"``: constant memory on an endless stream (issue 7, section 3)."""
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from olearn import (ALMA, NORMA, PA, AggressiveROMMA, FeatureSelected,
                    L1ConstrainedPA, L2ConstrainedPA, ObjectiveRegularizedPA,
                    Perceptron, ROMMA)
from olearn.base import FrozenParameterError

ESTIMATORS = [Perceptron, PA, ROMMA, AggressiveROMMA, ALMA, NORMA,
              ObjectiveRegularizedPA, L2ConstrainedPA, L1ConstrainedPA,
              FeatureSelected]


def stream(n=300, d=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0,
                 1, -1)
    return X, y


def make(cls, **params):
    if cls is FeatureSelected:
        params.setdefault("k", 4)
        params.setdefault("refresh", 20)
    return cls(**params)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_learner_takes_record(cls):
    assert make(cls).get_params()["record"] == "full"


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_counts_equal_the_full_record(cls, sparse):
    X, y = stream()
    X = sp.csr_matrix(X) if sparse else X
    full = make(cls)
    counts = make(cls, record="counts")
    for start in range(0, 300, 70):
        full.partial_fit(X[start:start + 70], y[start:start + 70], classes=[-1, 1])
        counts.partial_fit(X[start:start + 70], y[start:start + 70],
                           classes=[-1, 1])
    assert counts.n_rounds_ == full.n_rounds_ == 300
    assert counts.n_mistakes_ == full.n_mistakes_ == full.mistakes_.sum()
    assert counts.n_updates_ == full.n_updates_
    assert_array_equal(counts.decision_function(X), full.decision_function(X))
    fitted = make(cls, record="counts", n_epochs=2).fit(X, y)
    ref = make(cls, n_epochs=2).fit(X, y)
    assert (fitted.n_rounds_, fitted.n_mistakes_, fitted.n_updates_) == (
        ref.n_rounds_, ref.n_mistakes_, ref.n_updates_)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_counts_record_is_absent_with_a_clear_error(cls):
    X, y = stream()
    est = make(cls, record="counts").fit(X, y)
    for name in ("mistakes_", "margins_"):
        assert not hasattr(est, name)
        with pytest.raises(AttributeError, match="record='counts'"):
            getattr(est, name)
    # a full record left from an earlier fit is dropped too
    est = make(cls).fit(X, y)
    est.set_params(record="counts").fit(X, y)
    assert not hasattr(est, "mistakes_")
    with pytest.raises(AttributeError, match="has no attribute 'nothing_'"):
        est.nothing_


def test_support_sizes_absent_with_counts():
    X, y = stream()
    est = L2ConstrainedPA(truncate_sigma=1e-3, record="counts").fit(X, y)
    with pytest.raises(AttributeError, match="record='counts'"):
        est.support_sizes_


def test_counts_memory_does_not_grow():
    """10^6 rounds in 1000 calls: no buffer grows with the rounds seen."""
    X, y = stream(n=1000)
    est = PA(record="counts")
    for _ in range(1000):
        est.partial_fit(X, y, classes=[-1, 1])
    assert est.n_rounds_ == 10**6
    arrays = [v for v in vars(est).values() if isinstance(v, np.ndarray)]
    assert max(a.nbytes for a in arrays) <= 8 * X.shape[1] + 64
    full = PA().partial_fit(X, y)
    assert full._mistake_buffer.shape[0] >= 1000


@pytest.mark.parametrize("cls", [PA, FeatureSelected], ids=lambda c: c.__name__)
def test_record_cannot_change_mid_stream(cls):
    X, y = stream()
    est = make(cls).partial_fit(X[:100], y[:100])
    est.set_params(record="counts")
    with pytest.raises(FrozenParameterError, match="record"):
        est.partial_fit(X[100:], y[100:])


def test_bad_record_value():
    X, y = stream()
    with pytest.raises(ValueError, match="record must be one of"):
        PA(record="none").fit(X, y)


@pytest.mark.parametrize("weights", ["rounds", "correct"])
@pytest.mark.parametrize("learner", [Perceptron, PA, ROMMA], ids=lambda c: c.__name__)
def test_averaged_over_a_counts_learner(learner, weights):
    """Issue 16 item 13: Averaged raised the counts AttributeError."""
    from olearn import Averaged
    X, y = stream()
    full = Averaged(learner(), weights=weights)
    counts = Averaged(learner(record="counts"), weights=weights)
    for est in (full, counts):
        est.fit(X[:200], y[:200]).partial_fit(X[200:], y[200:])
    assert (counts.n_rounds_, counts.n_mistakes_, counts.n_updates_) == \
        (full.n_rounds_, full.n_mistakes_, full.n_updates_)
    assert_array_equal(counts.coef_, full.coef_)
    assert_array_equal(counts.decision_function(X), full.decision_function(X))
    with pytest.raises(AttributeError, match="record='counts'"):
        counts.margins_
    # no per-round buffer: the learners' record stays empty
    for inner in (counts.learner_, getattr(counts, "shadow_", None)):
        if inner is not None:
            assert inner._margin_buffer.size == 0
            scratch = vars(inner).get("_call_scratch")   # weights="correct"
            assert scratch is None or scratch[1].shape[0] <= X.shape[0]
