"""Extremal feature selection (Carvalho and Cohen 2006, section 5) and its baselines."""
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import chi2_contingency
from sklearn.feature_selection import chi2, mutual_info_classif

from olearn import ExtremalFeatureSelection, ModifiedBalancedWinnow, information_gain
from olearn.selection import chi_square, extremal_scores, extremal_selection


def binary_text(n=300, d=60, seed=0):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.15).astype(float)
    y = np.where(X[:, :5].sum(1) > X[:, 5:10].sum(1), 1, -1)
    X[:, -2:] = 0.0                              # never seen
    return X, y


def test_scores_are_log_abs_difference():
    X, y = binary_text()
    mbw = ModifiedBalancedWinnow().fit(X, y)
    expected = np.log(np.abs(mbw.u_ - mbw.v_))[:-1]
    assert_allclose(extremal_scores(mbw), expected, rtol=1e-12)


def test_selection_top_and_bottom_of_seen_features():
    scores = np.array([5.0, 1.0, 3.0, -1.0, 4.0, 2.0, 0.0, 9.0])
    seen = np.array([1, 1, 1, 1, 1, 1, 1, 0], dtype=bool)    # feature 7 unseen
    # k = 4, P = 0.75: three from the top (0, 4, 2), one from the bottom (3)
    assert_array_equal(extremal_selection(scores, seen, 4, 0.75), [0, 2, 3, 4])
    assert_array_equal(extremal_selection(scores, seen, 4, 1.0), [0, 2, 4, 5])
    assert_array_equal(extremal_selection(scores, seen, 100, 0.9), np.arange(7))


def test_probe_is_mbw_without_the_dropped_features():
    X, y = binary_text()
    efs = ExtremalFeatureSelection(n_features=10, P=0.9).fit(X, y)
    assert efs.get_support().sum() == 10
    assert efs.transform(X).shape == (X.shape[0], 10)
    # deleting a feature from the model = zeroing that column at test time
    Xz = X.copy()
    Xz[:, ~efs.get_support()] = 0.0
    assert_allclose(efs.decision_function(X), efs.learner_.decision_function(Xz), rtol=1e-14)
    # the full model is untouched
    full = ModifiedBalancedWinnow().fit(X, y)
    assert_allclose(efs.learner_.decision_function(X), full.decision_function(X))
    # online: partial_fit continues the MBW and re-selects
    online = ExtremalFeatureSelection(n_features=10, P=0.9)
    online.partial_fit(X[:150], y[:150], classes=[-1, 1]).partial_fit(X[150:], y[150:])
    assert_array_equal(online.selected_, efs.selected_)


def test_chi_square_is_the_2x2_statistic_not_sklearns_chi2():
    X, y = binary_text()
    ours = chi_square(sp.csr_matrix(X), y)
    assert_allclose(chi_square(X, y), ours)
    for j in range(10):
        a = np.sum((X[:, j] > 0) & (y > 0)); b = np.sum((X[:, j] > 0) & (y < 0))
        c = np.sum((X[:, j] == 0) & (y > 0)); d = np.sum((X[:, j] == 0) & (y < 0))
        stat = chi2_contingency([[a, b], [c, d]], correction=False)[0]
        assert ours[j] == pytest.approx(stat, rel=1e-10)
    sk, _ = chi2(X, y)
    assert not np.allclose(np.nan_to_num(sk), ours)     # a different quantity


def test_information_gain_is_mutual_info_classif():
    X, y = binary_text()
    mi = mutual_info_classif(X, y, discrete_features=True)
    assert_allclose(information_gain(X, y), mi, atol=1e-12)


def test_bad_parameters():
    X, y = binary_text()
    with pytest.raises(ValueError, match="P must be"):
        ExtremalFeatureSelection(P=1.5).fit(X, y)
    with pytest.raises(ValueError, match="n_features"):
        ExtremalFeatureSelection(n_features=0).fit(X, y)


def test_ties_are_taken_lowest_index_first():
    """The docstring says column index order; the top was taken highest index first."""
    scores = np.array([2.0, 2.0, 2.0, 0.0, 0.0, 1.0])
    seen = np.ones(6, dtype=bool)
    assert_array_equal(extremal_selection(scores, seen, 2, 1.0), [0, 1])
    assert_array_equal(extremal_selection(scores, seen, 1, 0.0), [3])
    assert_array_equal(extremal_selection(scores, seen, 3, 2 / 3), [0, 1, 3])
    # every score equal: still k distinct features, the first k
    for k in range(1, 7):
        for P in (0.0, 0.5, 0.9, 1.0):
            assert_array_equal(extremal_selection(np.zeros(6), seen, k, P), np.arange(k))
    # end to end: a copied column has the same weights, so the same score
    X, y = binary_text()
    d = X.shape[1]
    efs = ExtremalFeatureSelection(n_features=1, P=1.0).fit(np.hstack([X, X]), y)
    assert_array_equal(efs.scores_[:d], efs.scores_[d:])    # column d + j copies j
    best = int(np.argmax(efs.scores_[:d]))
    assert_array_equal(efs.selected_, [best])


def test_learner_of_another_class_is_refused_mid_stream():
    """set_params(learner=...) between partial_fit calls was ignored (and learner=3 accepted)."""
    from olearn import BalancedWinnow
    from olearn.base import FrozenParameterError
    X, y = binary_text()
    efs = ExtremalFeatureSelection(n_features=10).partial_fit(X[:150], y[:150])
    selected, log_u = efs.selected_.copy(), efs.learner_.log_u_.copy()
    efs.set_params(learner=BalancedWinnow())
    with pytest.raises(FrozenParameterError, match="from ModifiedBalancedWinnow to BalancedWinnow"):
        efs.partial_fit(X[150:], y[150:])
    for bad in (3, ModifiedBalancedWinnow, "MBW"):
        efs.set_params(learner=bad)
        with pytest.raises(ValueError, match="learner must be a BalancedWinnow or "
                           "ModifiedBalancedWinnow instance"):
            efs.partial_fit(X[150:], y[150:])
    assert_array_equal(efs.selected_, selected)
    assert_array_equal(efs.learner_.log_u_, log_u)
    # a learner of the same class: its hyper-parameters are followed
    efs.set_params(learner=ModifiedBalancedWinnow(alpha=2.0)).partial_fit(X[150:], y[150:])
    reference = ModifiedBalancedWinnow().partial_fit(X[:150], y[:150])
    reference.set_params(alpha=2.0).partial_fit(X[150:], y[150:])
    assert_array_equal(efs.learner_.log_u_, reference.log_u_)
    assert_array_equal(efs.learner_.log_v_, reference.log_v_)
    # what its state cannot follow is refused by the learner itself
    efs.set_params(learner=ModifiedBalancedWinnow(alpha=2.0, theta0_pos=3.0))
    with pytest.raises(ValueError, match="theta0_pos changed"):
        efs.partial_fit(X[150:], y[150:])


def test_negative_x_is_refused_with_the_fix_and_tagged():
    X, y = binary_text()
    efs = ExtremalFeatureSelection()
    assert efs.__sklearn_tags__().input_tags.positive_only
    assert not efs.__sklearn_tags__().classifier_tags.multi_class
    with pytest.raises(ValueError, match="x >= 0"):
        efs.fit(X - 0.5, y)


def test_a_failed_fit_keeps_the_fitted_selection():
    X, y = binary_text()
    efs = ExtremalFeatureSelection(n_features=10).fit(X, y)
    learner, selected = efs.learner_, efs.selected_.copy()
    with pytest.raises(ValueError):
        efs.fit(X - 0.5, y)
    assert efs.learner_ is learner
    assert_array_equal(efs.selected_, selected)
