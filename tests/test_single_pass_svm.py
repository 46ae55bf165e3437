"""The single-pass chapter's SVM baseline (libsvm, default C, min-max scaling only
where the raw attributes are not 0/1) and the paper-vs-ours summary."""
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

from olearn.experiments import single_pass as spx


def test_svm_is_default_libsvm_and_scaled_only_on_adult_and_credit():
    for key in spx.DATASETS:
        svm = spx.table_learners(key)["SVM"]
        svc = svm[-1] if isinstance(svm, Pipeline) else svm
        assert isinstance(svc, SVC)
        assert svc.kernel == "linear" and svc.C == 1.0 and svc.max_iter == -1   # no iteration cap
        if key in spx.SVM_SCALED:
            assert isinstance(svm, Pipeline) and isinstance(svm[0], MinMaxScaler)
            assert svm[0].feature_range == (0, 1)
        else:
            assert not isinstance(svm, Pipeline)
    assert set(spx.SVM_SCALED) == {"Adult", "Credit"}


@pytest.mark.parametrize("key", ["Congressional", "WiscBreast", "Nursery", "Adult", "Credit"])
def test_only_the_scaled_sets_leave_zero_one(key):
    """Scaling is needed exactly where attributes are not 0/1 (the text sets are
    0/1 bags of words by construction of their loaders; not loaded here)."""
    X, _ = spx.load_task(key)
    values = np.unique(X.data if hasattr(X, "data") and not isinstance(X, np.ndarray) else X)
    zero_one = bool(np.isin(values, [0.0, 1.0]).all())
    assert zero_one == (key not in spx.SVM_SCALED)


def test_scaler_is_fitted_on_the_training_fold_only():
    rng = np.random.default_rng(0)
    X = rng.random((60, 3)) * [1.0, 1e5, 10.0]
    y = np.where(X[:, 0] > 0.5, 1, -1)
    svm = spx.linear_svm(scaled=True).fit(X[:40], y[:40])
    np.testing.assert_array_equal(svm[0].data_min_, X[:40].min(0))
    np.testing.assert_array_equal(svm[0].data_max_, X[:40].max(0))
    assert not np.array_equal(svm[0].data_max_, X.max(0))   # the test rows did not leak in


def test_raw_credit_does_not_converge_scaled_does():
    demo = spx.svm_convergence("Credit", max_iter=20_000)
    raw, scaled = demo.iloc[0], demo.iloc[1]
    assert not raw.converged and raw.iterations == 20_000 and "max_iter" in raw.warning
    assert scaled.converged and scaled.iterations < 10**6 and scaled.warning == ""
    assert raw.max_abs_feature >= 1e5 and scaled.max_abs_feature == 1.0


def test_convergence_warning_is_an_error_in_the_runs():
    X = np.random.default_rng(1).random((50, 2)) * [1.0, 1e5]
    y = np.where(X[:, 0] > 0.5, 1, -1)
    with spx._quiet():
        warnings.warn("MBW on an empty row", UserWarning)        # silenced
        with pytest.raises(ConvergenceWarning):
            SVC(kernel="linear", max_iter=5).fit(X, y)


def test_summary_side_by_side_recomputes_the_paper_on_our_sets():
    table = spx.PAPER_TABLE4.copy()
    s = spx.summary_side_by_side(spx.summary(table), spx.PAPER_TABLE4_SUMMARY, spx.PAPER_TABLE4)
    mbw = s[(s.group == "NLP") & (s.learner == "MBW")].iloc[0]
    assert mbw.median_paper == 91.1                        # the report, over its 8 NLP sets
    assert mbw.median_paper_our_sets == 93.7               # median(95.9, 93.7, 75.1)
    assert mbw.median_ours_minus_paper == 0.0 and mbw.rank_ours_minus_paper == 0.0
    ranks = s[s.group == "NLP"].set_index("learner").rank_paper_our_sets
    assert ranks.sum() == pytest.approx(sum(range(1, 11)))  # ten learners ranked on each set
