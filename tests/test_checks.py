"""The estimator base's fast input checks against numpy's reference answers."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from olearn import PA, Perceptron
from olearn._checks import assert_finite, distinct_labels

SPECIAL = [np.nan, np.inf, -np.inf]


@given(hnp.arrays(np.float64, hnp.array_shapes(max_dims=2, max_side=30)))
def test_assert_finite_agrees_with_numpy(values):
    if np.isfinite(values).all():
        assert_finite(values)
    else:
        with pytest.raises(ValueError, match="NaN|infinity"):
            assert_finite(values)


@pytest.mark.parametrize("bad", SPECIAL)
@pytest.mark.parametrize("layout", ["C", "F", "csr"])
def test_a_single_bad_value_is_found_anywhere(bad, layout):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 7)) * 1e300          # huge but finite values pass
    assert_finite(X)
    X[rng.integers(40), rng.integers(7)] = bad
    X = sp.csr_matrix(X) if layout == "csr" else np.asarray(X, order=layout)
    word = "NaN" if np.isnan(bad) else "infinity"
    with pytest.raises(ValueError, match=word):
        assert_finite(X)


@pytest.mark.parametrize("bad", SPECIAL)
def test_fit_partial_fit_and_predict_reject_non_finite_values(bad):
    X = np.random.default_rng(1).normal(size=(30, 4))
    y = np.arange(30) % 2
    model = PA().fit(X, y)
    before = model.coef_.copy()
    X_bad = X.copy()
    X_bad[17, 2] = bad
    for call in (lambda: Perceptron().fit(X_bad, y),
                 lambda: model.partial_fit(X_bad, y),
                 lambda: model.partial_fit(sp.csr_matrix(X_bad), y),
                 lambda: model.predict(X_bad),
                 lambda: Perceptron().fit(X_bad.astype(np.float32), y)):
        with pytest.raises(ValueError, match="NaN|infinity"):
            call()
    np.testing.assert_array_equal(model.coef_, before)  # untouched


@given(hnp.arrays(np.int64, st.integers(1, 40), elements=st.integers(0, 3)),
       st.sampled_from([np.int8, np.int64, np.uint16, np.float32, np.float64, bool]),
       st.sampled_from([0.0, 0.5, -2.0]))
def test_distinct_labels_equals_np_unique(codes, dtype, shift):
    y = codes.astype(dtype)
    if np.dtype(dtype).kind == "f":
        y = (y + shift).astype(dtype)
    got = distinct_labels(y)
    np.testing.assert_array_equal(got, np.unique(y))
    assert got.dtype == y.dtype


def test_distinct_labels_of_strings_and_objects():
    np.testing.assert_array_equal(distinct_labels(np.array(["b", "a", "b"])), ["a", "b"])
    np.testing.assert_array_equal(distinct_labels(np.array(["x", 1], dtype=object)[:1]), ["x"])


# -- squared norms in float64's range (issue 16, item 8) --------------------------------
SCALES = [0.0, 1e-200, 1e-155, 1e-150, 1.0, 1e150, 1e155, 1e200]


def reference_bad_row(X):
    """First nonzero row whose sequential sum of squares is < tiny or inf."""
    tiny = np.finfo(np.float64).tiny
    for t, row in enumerate(X):
        sq = 0.0
        with np.errstate(over="ignore", under="ignore"):
            for v in row:
                sq += v * v
        if (row != 0).any() and sq < tiny or sq == np.inf:
            return t
    return None


@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 5)),
                  elements=st.sampled_from(SCALES)),
       hnp.arrays(np.float64, 30, elements=st.sampled_from([-1.0, 1.0, 3.0])))
def test_check_values_agrees_with_the_row_norms(X, signs):
    from olearn._checks import FeatureRangeError, check_values
    X = X * signs[:X.size].reshape(X.shape)
    bad = reference_bad_row(X)
    for layout in (X, sp.csr_matrix(X)):
        if bad is None:
            check_values(layout)
        else:
            with pytest.raises(FeatureRangeError, match=f"Row {bad} .*[Rr]escale"):
                check_values(layout)
