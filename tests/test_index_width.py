"""CSR input with 64-bit indices is learned through the 32-bit loops
(:func:`olearn.base.narrow_index_width`): the same model bit for bit, one
compiled specialisation per loop instead of two, and the caller's matrix
untouched.  A matrix whose indices do not fit 32 bits keeps its own."""
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

import olearn
import olearn.base
from olearn.base import canonical, narrow_index_width


def wide(X):
    """``X`` with 64-bit ``indices`` and ``indptr`` (as scikit-learn's checks build it)."""
    X = X.copy()
    X.indices = X.indices.astype(np.int64)
    X.indptr = X.indptr.astype(np.int64)
    return X


@pytest.fixture(scope="module")
def stream():
    rng = np.random.default_rng(3)
    X = sp.random(120, 9, density=0.3, format="csr", random_state=3)
    y = np.where(rng.random(120) < 0.5, -1, 1)
    return X, y


@pytest.mark.parametrize("name", ["Perceptron", "PA", "AROW", "BalancedWinnow"])
def test_wide_indices_learn_the_same_model(stream, name):
    X, y = stream
    X64 = wide(X)
    narrow = getattr(olearn, name)().fit(X, y)
    wide_fit = getattr(olearn, name)().fit(X64, y)
    assert_array_equal(wide_fit.decision_function(X), narrow.decision_function(X))
    assert_array_equal(narrow.decision_function(X64), narrow.decision_function(X))
    assert X64.indices.dtype == np.int64 and X64.indptr.dtype == np.int64  # untouched


def test_canonical_narrows_and_keeps_the_values_and_flags(stream):
    X64 = wide(stream[0])
    X64.has_canonical_format = True
    Z = canonical(X64)
    assert Z.indices.dtype == np.int32 and Z.indptr.dtype == np.int32
    assert type(Z) is type(X64) and Z.shape == X64.shape
    assert Z.data is X64.data                    # the values are shared, not copied
    assert Z.has_canonical_format
    assert_array_equal(Z.toarray(), X64.toarray())


def test_mixed_widths_are_narrowed_too(stream):
    X = stream[0].copy()
    X.indptr = X.indptr.astype(np.int64)         # int32 indices, int64 indptr
    Z = narrow_index_width(X)
    assert Z.indices.dtype == np.int32 and Z.indptr.dtype == np.int32
    assert_array_equal(Z.toarray(), X.toarray())


def test_a_large_matrix_keeps_its_indices(stream, monkeypatch):
    """Above NARROW_AT_MOST stored entries no copy is made (the 64-bit loops run),
    and the model is the same."""
    X, y = stream
    X64 = wide(X)
    monkeypatch.setattr(olearn.base, "NARROW_AT_MOST", X64.nnz - 1)
    assert narrow_index_width(X64) is X64
    assert_array_equal(olearn.Perceptron().fit(X64, y).coef_, olearn.Perceptron().fit(X, y).coef_)


def test_indices_that_do_not_fit_are_kept():
    n_cols = 2 ** 31 + 5                         # a column beyond int32
    X = sp.csr_matrix((np.array([1.0, 2.0]), np.array([0, n_cols - 1], np.int64),
                       np.array([0, 1, 2], np.int64)), shape=(2, n_cols))
    assert narrow_index_width(X) is X
    X32 = sp.csr_matrix(np.eye(3))
    assert narrow_index_width(X32) is X32        # already 32-bit: no copy
    D = np.eye(3)
    assert narrow_index_width(D) is D            # dense: unchanged
