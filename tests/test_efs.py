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
