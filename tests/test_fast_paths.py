"""Speed work that must not change a result (issue 19).

* The compiled CSR loops index with unsigned positions and columns
  (``olearn/_rows.py``, ``olearn/second_order/_row_access.py``): same
  arithmetic in the same order, so every learner's margins and weights are
  bit-identical to those of commit 02cfa6e (before the change), pinned below
  as digests computed by that commit's code on this stream, for int32 and
  int64 indices and a dense copy.  (Full covariance is left out: its sweep
  lets LLVM order the dot products (``fastmath`` reassoc), and a fresh
  compile and a cached one were seen to differ in the last bits; it is
  checked within round-off by the second-order tests.)
* Plain input (a C-contiguous float64 array or a float64 CSR matrix, a 1-D
  numeric ``y``) skips scikit-learn's ``validate_data``; its bookkeeping and
  its errors must stay those of scikit-learn's path.
"""
import hashlib
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.utils.validation

import olearn
import olearn.base


def stream(index_dtype):
    rng = np.random.default_rng(7)
    X = sp.random(600, 300, density=0.05, format="csr", random_state=rng)
    X.data = rng.exponential(size=X.nnz)
    X.indices = X.indices.astype(index_dtype)
    X.indptr = X.indptr.astype(index_dtype)
    y = np.where(X @ rng.standard_normal(300)
                 + 0.3 * rng.standard_normal(600) > 0, 1, -1)
    return X, y


def digest(est):
    h = hashlib.sha256()
    for name in ("margins_", "coef_"):
        if hasattr(est, name):
            h.update(np.ascontiguousarray(getattr(est, name),
                                          dtype=np.float64).tobytes())
    return h.hexdigest()[:16]


LEARNERS = {
    "Perceptron": lambda: olearn.Perceptron(),
    "PA-I": lambda: olearn.PA(C=0.5, variant="PA-I"),
    "NORMA": lambda: olearn.NORMA(eta=0.1, lam=0.01),
    "ROMMA": lambda: olearn.ROMMA(),
    "ALMA": lambda: olearn.ALMA(p=2, alpha=0.9),
    "Averaged": lambda: olearn.Averaged(olearn.Perceptron()),
    "AROW-diag": lambda: olearn.AROW(r=1.0, covariance="diag"),
    "CW-diag": lambda: olearn.CW(eta=0.7, covariance="diag"),
    "SOP-diag": lambda: olearn.SOP(a=1.0, covariance="diag"),
    "SCW-diag": lambda: olearn.SCW(covariance="diag"),
}

#: computed by the code of commit 02cfa6e (signed indexing) on ``stream``
PINNED = {
    "Perceptron/int32": "5c0db712957424fe",
    "PA-I/int32": "b15d0ec0e16ccc63",
    "NORMA/int32": "d96d02be501ac08e",
    "ROMMA/int32": "46f1718a03703632",
    "ALMA/int32": "f73bfb61917c8565",
    "Averaged/int32": "f2598012dcd1c746",
    "AROW-diag/int32": "98f58a4e3b65a84a",
    "CW-diag/int32": "d96bc017ecf67f8d",
    "SOP-diag/int32": "507845a7f9b6f986",
    "SCW-diag/int32": "2ec16c7c70535b27",
    "Perceptron-dense/int32": "5c0db712957424fe",
    "Perceptron/int64": "5c0db712957424fe",
    "PA-I/int64": "b15d0ec0e16ccc63",
    "NORMA/int64": "d96d02be501ac08e",
    "ROMMA/int64": "46f1718a03703632",
    "ALMA/int64": "f73bfb61917c8565",
    "Averaged/int64": "f2598012dcd1c746",
    "AROW-diag/int64": "98f58a4e3b65a84a",
    "CW-diag/int64": "d96bc017ecf67f8d",
    "SOP-diag/int64": "507845a7f9b6f986",
    "SCW-diag/int64": "2ec16c7c70535b27",
    "Perceptron-dense/int64": "5c0db712957424fe",
}


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_unsigned_indexing_is_bit_identical(name, index_dtype):
    X, y = stream(index_dtype)
    key = f"{name}/{np.dtype(index_dtype).name}"
    assert digest(LEARNERS[name]().fit(X, y)) == PINNED[key]


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_dense_rows_unchanged(index_dtype):
    X, y = stream(index_dtype)
    key = f"Perceptron-dense/{np.dtype(index_dtype).name}"
    assert digest(olearn.Perceptron().fit(X.toarray(), y)) == PINNED[key]


@pytest.fixture
def validate_data_calls(monkeypatch):
    calls = []
    original = olearn.base.validate_data

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(olearn.base, "validate_data", counting)
    return calls


@pytest.mark.parametrize("sparse", [False, True])
def test_plain_input_skips_validate_data(validate_data_calls, sparse):
    X, y = stream(np.int32)
    X = X if sparse else X.toarray()
    est = olearn.PA().fit(X, y)
    est.partial_fit(X[:10], y[:10])
    est.decision_function(X[:5])
    assert validate_data_calls == []
    assert est.n_features_in_ == X.shape[1]
    # anything else goes through scikit-learn
    olearn.PA().fit(X.tolist() if not sparse else X.tocoo(), y)
    assert len(validate_data_calls) == 1


def test_fast_path_results_equal_scikit_learns_path():
    X, y = stream(np.int32)
    dense = X.toarray()
    fast = olearn.AROW().fit(dense, y)
    slow = olearn.AROW().fit(np.asfortranarray(dense), list(y))
    assert np.array_equal(fast.margins_, slow.margins_)
    assert np.array_equal(fast.coef_, slow.coef_)


def test_fast_path_keeps_scikit_learns_bookkeeping():
    pd = pytest.importorskip("pandas")
    X, y = stream(np.int32)
    dense = X.toarray()[:, :4]
    frame = pd.DataFrame(dense, columns=list("abcd"))
    est = olearn.Perceptron().fit(frame, y)
    assert list(est.feature_names_in_) == list("abcd")
    with pytest.warns(UserWarning, match="feature names"):
        est.partial_fit(dense, y)         # fitted with names: sklearn warns
    est.fit(dense, y)                     # a refit on an array drops them
    assert not hasattr(est, "feature_names_in_")
    with pytest.raises(ValueError, match="X has 3 features, but Perceptron "
                                         "is expecting 4 features"):
        est.partial_fit(dense[:, :3], y)
    with pytest.raises(ValueError, match="X has 3 features"):
        est.predict(dense[:, :3])


@pytest.mark.parametrize("y, message", [
    (np.linspace(0, 1, 600), "Unknown label type: continuous"),
    (np.r_[np.nan, np.ones(599)], "Input y contains NaN"),
    (np.r_[np.inf, np.ones(599)], "Input y contains infinity"),
])
def test_fast_path_label_errors_are_scikit_learns(y, message):
    X, _ = stream(np.int32)
    for Xin in (X, X.toarray()):
        with pytest.raises(ValueError, match=message):
            olearn.Perceptron().fit(Xin, y)
