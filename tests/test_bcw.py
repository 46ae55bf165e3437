"""BCW (Tan et al. 2016, Algorithm 1): estimator checks, eq. (6) on both
Woodbury branches, the pass against a numpy reference, batching, bad input."""
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.utils.estimator_checks import parametrize_with_checks

from olearn import BCW


@parametrize_with_checks([BCW(), BCW(q=2, batch_size=5),
                          BCW(sigma_method="woodbury", batch_size=3)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def stream(n=200, d=6, seed=0, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) > 0, 1.0, -1.0)
    y[rng.random(n) < noise] *= -1
    return X, y


def reference_pass(Xh, y, w, C, q):
    """Algorithm 1's inner loop as printed (numpy)."""
    w = w.copy()
    margins = []
    for x, label in zip(Xh, y):
        margins.append(label * (w @ x))
        xi = max(1 - label * (w @ x), 0.0)
        if xi > 0:
            sq = x @ x
            alpha = min(xi / sq, C) if q == 1 else xi / (sq + 0.5 / C)
            w = w + alpha * label * x
    return w, np.array(margins)


@pytest.mark.parametrize("q", [1, 2])
@pytest.mark.parametrize("method", ["inverse", "woodbury"])
def test_one_batch_matches_algorithm_1(q, method):
    X, y = stream(n=40, d=6)
    C = 0.3
    model = BCW(C=C, q=q, sigma_method=method).fit(X, y)
    Sigma = np.linalg.inv(np.eye(6) + C * X.T @ X)
    lam, V = np.linalg.eigh(np.linalg.inv(Sigma))
    U = V @ np.diag(lam ** -0.5) @ V.T
    w, margins = reference_pass(X @ U, y, np.zeros(6), C, q)
    assert_allclose(model.coef_[0], U @ w, atol=1e-10)
    assert_allclose(model.margins_, margins, atol=1e-10)
    assert model.sigma_branches_ == [method]


@pytest.mark.parametrize("method", ["inverse", "woodbury"])
def test_sigma_satisfies_kkt_of_eq5_over_batches(method):
    """Sigma^{-1} = Sigma_hat^{-1} + C X_h X_h^T after each batch."""
    X, y = stream(n=30, d=8)
    C = 0.7
    model = BCW(C=C, sigma_method=method, batch_size=4).fit(X, y)
    precision = np.eye(8)
    for start in range(0, 30, 4):
        Xb = X[start:start + 4]
        precision = precision + C * Xb.T @ Xb
    assert_allclose(np.linalg.inv(model.covariance_), precision, rtol=1e-8,
                    atol=1e-8)
    assert set(model.sigma_branches_) == {method}


def test_auto_takes_the_cheaper_inversion():
    X, y = stream(n=50, d=8)
    model = BCW(batch_size=5).fit(X, y)          # N_h = 5 < d = 8
    assert set(model.sigma_branches_) == {"woodbury"}
    model = BCW(batch_size=20).fit(X, y)         # N_h = 20 >= d (last: 10)
    assert model.sigma_branches_ == ["inverse"] * 2 + ["inverse"]
    both = [BCW(batch_size=5, sigma_method=m).fit(X, y) for m in
            ("inverse", "woodbury")]
    assert_allclose(both[0].coef_, both[1].coef_, atol=1e-9)
    assert_allclose(both[0].covariance_, both[1].covariance_, atol=1e-10)


def test_times_recorded_per_batch():
    X, y = stream(n=50)
    model = BCW(batch_size=10).fit(X, y)
    assert len(model.sigma_times_) == len(model.pass_times_) == 5
    assert model.sigma_time_ == pytest.approx(sum(model.sigma_times_))
    assert all(t >= 0 for t in model.sigma_times_ + model.pass_times_)


def test_fit_batches_equal_partial_fit_calls():
    X, y = stream(n=53)
    fitted = BCW(batch_size=10, q=2).fit(X, y)
    online = BCW(q=2)
    for start in range(0, 53, 10):
        online.partial_fit(X[start:start + 10], y[start:start + 10],
                           classes=[-1, 1])
    assert_allclose(fitted.coef_, online.coef_, atol=1e-12)
    assert_array_equal(fitted.mistakes_, online.mistakes_)


def test_dense_and_sparse_agree():
    X, y = stream(n=80)
    X[np.abs(X) < 0.5] = 0
    a = BCW(batch_size=16).fit(X, y)
    b = BCW(batch_size=16).fit(sp.csr_matrix(X), y)
    assert_allclose(a.coef_, b.coef_, atol=1e-12)
    assert_array_equal(a.mistakes_, b.mistakes_)


def test_single_row_batches_work():
    X, y = stream(n=12)
    model = BCW(batch_size=1).fit(X, y)
    assert model.n_rounds_ == 12 and len(model.sigma_branches_) == 12
    model = BCW().partial_fit(X[:1], y[:1], classes=[-1, 1])
    model.partial_fit(X[1:2], y[1:2])
    assert model.n_rounds_ == 2 and np.all(np.isfinite(model.coef_))


def test_zero_rows_are_not_updates():
    X, y = stream(n=10)
    X[:] = 0
    for q in (1, 2):
        model = BCW(q=q).fit(X, y)
        assert model.n_updates_ == 0
        assert_array_equal(model.coef_, 0)


@pytest.mark.parametrize("params, match", [
    ({"q": 3}, "q must be 1"), ({"q": True}, "q must be 1"),
    ({"q": 0}, "q must be 1"), ({"C": 0.0}, "C must be"),
    ({"C": -1.0}, "C must be"), ({"C": np.nan}, "C must be"),
    ({"batch_size": 0}, "batch_size"), ({"batch_size": 2.5}, "batch_size"),
    ({"sigma_method": "qr"}, "sigma_method"), ({"n_inner_passes": 0}, "n_inner_passes"),
])
def test_bad_parameters(params, match):
    X, y = stream(n=10)
    with pytest.raises(ValueError, match=match):
        BCW(**params).fit(X, y)
    model = BCW().partial_fit(X, y)
    model.set_params(**params)
    with pytest.raises(ValueError, match=match):
        model.partial_fit(X, y)


def test_covariance_too_large_raises_before_allocating():
    n, d = 20, 1_000_000
    X = sp.random(n, d, density=1e-4, format="csr", random_state=0)
    y = np.tile([-1.0, 1.0], n // 2)
    tracemalloc.start()
    with pytest.raises(MemoryError, match="SBCW"):
        BCW().fit(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 50e6       # far below one d x d float64 matrix (8 TB)
    X, y = stream(n=10, d=30)
    with pytest.raises(MemoryError, match="diagonal"):
        BCW(max_covariance_bytes=10_000).fit(X, y)
    BCW(max_covariance_bytes=100_000).fit(X, y)    # 3 * 8 * 30^2 = 21,600


def test_learns_a_separable_stream():
    X, y = stream(n=2000, d=10, noise=0.0)
    for q in (1, 2):
        assert BCW(q=q, batch_size=200).fit(X, y).score(X, y) > 0.95


def test_record_counts():
    X, y = stream(n=40)
    full = BCW(batch_size=10).fit(X, y)
    counts = BCW(batch_size=10, record="counts").fit(X, y)
    assert counts.n_mistakes_ == full.n_mistakes_ and counts.n_updates_ == full.n_updates_
    assert_allclose(counts.coef_, full.coef_)
    with pytest.raises(AttributeError, match="counts"):
        counts.mistakes_


@pytest.mark.parametrize("method", ["inverse", "woodbury"])
def test_overflowing_batch_raises_and_keeps_the_model(method):
    """X^T X overflowing (rows within the range check) used to give a finite, meaningless eigendecomposition
    (mu = 0, Sigma = 4.5e307 I: a model that predicts, silently)."""
    from olearn.base import NonFiniteModelError

    X, y = stream(n=300, d=5)
    model = BCW(sigma_method=method).partial_fit(X[:100], y[:100])
    mu, cov, rounds = model.coef_.copy(), model.covariance_, model.n_rounds_
    with pytest.raises(NonFiniteModelError, match="rounds 101 to 200.*scale"):
        model.partial_fit(X[100:200] * 3e153, y[100:200])  # rows pass the range check, X^T X overflows
    assert_array_equal(model.coef_, mu)
    assert_array_equal(model.covariance_, cov)
    assert model.n_rounds_ == rounds
    assert model.score(X[200:], y[200:]) > 0.8


def test_model_arrays_are_updated_in_place():
    X, y = stream()
    model = BCW().partial_fit(X[:50], y[:50])
    arrays = model._model_arrays()
    model.partial_fit(X[50:], y[50:])
    assert all(a is b for a, b in zip(arrays, model._model_arrays()))
    assert len(arrays) == 3
    assert_allclose(model.covariance_, (arrays[1] * arrays[2]) @ arrays[1].T)
    assert_array_equal(model.coef_[0], arrays[0])
