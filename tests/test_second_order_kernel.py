"""KernelAROW (olearn/kernel/arow.py): equals linear AROW with the linear kernel,
names its Gaussian width ``sigma`` as every kernel learner, stores CSR rows
sparsely, keeps ``B = -a^2 (r I + a K_S)^-1`` (also under a budget) and refuses
up front a batch whose ``B`` cannot fit."""
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.utils.estimator_checks import parametrize_with_checks

import olearn.kernel.core
from olearn import AROW
from olearn.kernel import kernel_matrix
from olearn.kernel.arow import KernelAROW


@parametrize_with_checks([KernelAROW(), KernelAROW(max_support=50)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def stream(n=250, d=7, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    y[rng.random(n) < 0.1] *= -1
    return X, y


@pytest.mark.parametrize("r, a", [(1.0, 1.0), (0.2, 3.0)])
def test_linear_kernel_equals_linear_arow(r, a):
    X, y = stream()
    lin = AROW(r=r, a=a).fit(X, y)
    ker = KernelAROW(r=r, a=a, kernel="linear").fit(X, y)
    assert_array_equal(ker.mistakes_, lin.mistakes_)
    assert_allclose(ker.margins_, lin.margins_, rtol=1e-9, atol=1e-10)
    assert ker.n_updates_ == lin.n_updates_ == ker.dual_coef_.shape[1]
    mu = ker.dual_coef_ @ ker.support_vectors_
    assert_allclose(mu.ravel(), lin.coef_.ravel(), rtol=1e-9, atol=1e-10)
    Xt, _ = stream(n=50, seed=1)
    assert_allclose(ker.decision_function(Xt), lin.decision_function(Xt), rtol=1e-9, atol=1e-10)
    sparse = KernelAROW(r=r, a=a, kernel="linear").fit(sp.csr_matrix(X), y)
    assert_array_equal(sparse.margins_, ker.margins_)


def reference_gamma_arow(X, y, r, a, gamma):
    """The former KernelAROW (gamma= parameter), written out in numpy:
    k(x, z) = exp(-gamma ||x - z||^2) on dense rows; margins of every round."""
    sv, alpha, B, margins = [], np.zeros(0), np.zeros((0, 0)), []
    for x, yt in zip(X, np.where(y > 0, 1.0, -1.0)):
        k = np.array([np.exp(-gamma * np.sum((s - x) ** 2)) for s in sv])
        m = float(alpha @ k) if sv else 0.0
        margins.append(yt * m)
        if yt * m >= 1.0:
            continue
        Bk = B @ k if sv else np.zeros(0)
        chi = a + float(k @ Bk) if sv else a
        beta = 1.0 / (chi + r)
        c = np.r_[Bk, a]
        alpha = np.r_[alpha, 0.0] + (1.0 - yt * m) * beta * yt * c
        B = np.pad(B, ((0, 1), (0, 1))) - beta * np.outer(c, c)
        sv.append(x)
    return np.array(margins), alpha


@pytest.mark.parametrize("sparse", [False, True])
def test_sigma_is_the_width_of_the_other_kernel_learners(sparse):
    """KernelAROW(sigma=s) is the former KernelAROW(gamma=1/(2 s^2)) (issue 16
    item 14): exp(-||x - x'||^2 / (2 sigma^2)), as KernelPerceptron and DUOL."""
    X, y = stream(n=120, d=5, seed=2)
    sigma = 1.5
    ref_margins, ref_alpha = reference_gamma_arow(X, y, 0.5, 2.0, 1 / (2 * sigma ** 2))
    est = KernelAROW(r=0.5, a=2.0, sigma=sigma).fit(sp.csr_matrix(X) if sparse else X, y)
    assert_allclose(est.margins_, ref_margins, rtol=1e-9, atol=1e-12)
    assert_allclose(est.dual_coef_.ravel(), ref_alpha, rtol=1e-9, atol=1e-12)
    assert set(est.get_params()) >= {"sigma", "max_support", "record"}
    assert "gamma" not in est.get_params()
    with pytest.raises(TypeError):
        KernelAROW(gamma=1.0)


def test_csr_rows_are_stored_sparsely():
    X, y = stream(n=80, d=400, seed=3)
    X[np.random.default_rng(0).random(X.shape) < 0.97] = 0.0
    est = KernelAROW(sigma=4.0).fit(sp.csr_matrix(X), y)
    assert sp.issparse(est.support_vectors_)
    data = est._S[0]
    assert data.shape[0] < 0.2 * est._cap * X.shape[1]  # nnz-sized, not dense
    dense = KernelAROW(sigma=4.0).fit(X, y)
    assert_array_equal(est.margins_, dense.margins_)


@pytest.mark.parametrize("max_support", [None, 30])
@pytest.mark.parametrize("sparse", [False, True])
def test_covariance_coefficients_are_the_woodbury_form(max_support, sparse):
    """B = -a^2 (r I + a K_S)^-1 on the final support set, with and without a
    budget (the budget forgets the oldest row's rank-one update exactly)."""
    X, y = stream(n=200, d=6, seed=4)
    r, a, sigma = 0.5, 2.0, 2.0
    est = KernelAROW(r=r, a=a, sigma=sigma, max_support=max_support).fit(
        sp.csr_matrix(X) if sparse else X, y)
    n = est.n_support_
    if max_support:
        assert n == max_support
    S = est.support_vectors_
    K = kernel_matrix(S, S, "rbf", sigma=sigma)
    B = -a * a * np.linalg.inv(r * np.eye(n) + a * K)
    assert_allclose(est._B[:n, :n], B, rtol=1e-9, atol=1e-11)
    assert np.linalg.eigvalsh(np.eye(n) / a + K / r).min() > 0


def test_budget_keeps_memory_flat_and_partial_fit_equals_fit():
    X, y = stream(n=300, seed=5)
    full = KernelAROW(sigma=2.0, max_support=20).fit(X, y)
    parts = KernelAROW(sigma=2.0, max_support=20)
    for lo in range(0, 300, 70):
        parts.partial_fit(X[lo:lo + 70], y[lo:lo + 70], classes=[-1, 1])
    assert_array_equal(parts.margins_, full.margins_)
    assert parts._cap <= 24


def test_record_counts():
    X, y = stream(n=150, seed=6)
    full = KernelAROW(sigma=2.0).fit(X, y)
    counts = KernelAROW(sigma=2.0, record="counts").fit(X, y)
    assert (counts.n_mistakes_, counts.n_updates_, counts.n_rounds_) == \
        (full.n_mistakes_, full.n_updates_, full.n_rounds_)
    assert_array_equal(counts.dual_coef_, full.dual_coef_)
    with pytest.raises(AttributeError, match="record='counts'"):
        counts.margins_


def test_a_batch_that_cannot_fit_is_refused_up_front(monkeypatch):
    """One partial_fit of 10^5 rows would need a 10^5 x 10^5 matrix (74.5 GiB):
    refused before anything is allocated, naming the size and the fix; the
    model is left as it was; with max_support it runs."""
    monkeypatch.setattr(olearn.kernel.core, "available_memory", lambda: 2**30)
    X, y = stream(n=40, d=2, seed=7)
    est = KernelAROW(sigma=2.0).partial_fit(X, y)
    before = (est.n_rounds_, est.dual_coef_.copy())
    big = np.tile(X, (2500, 1))
    with pytest.raises(MemoryError, match=r"100,0\d\d x 100,0\d\d .*GiB.*max_support"):
        est.partial_fit(big, np.tile(y, 2500))
    assert est.n_rounds_ == before[0]
    assert_array_equal(est.dual_coef_, before[1])
    small = KernelAROW(sigma=2.0, max_support=50).partial_fit(big[:4000], np.tile(y, 100))
    assert small.n_support_ == 50


def test_growth_stays_within_the_memory_that_was_checked(monkeypatch):
    """The buffers double as the support set grows; when doubling would pass
    the memory available they grow only to the rows the batch can still add,
    so the up-front estimate holds (a 512 x 512 B for 300 rows otherwise)."""
    monkeypatch.setattr(olearn.kernel.core, "available_memory", lambda: 10**6)
    X, y = stream(n=300, seed=8)
    est = KernelAROW(sigma=2.0).fit(X, y)
    assert est.n_support_ > 256 and est._cap <= 300 + 4
    assert_array_equal(est.margins_, KernelAROW(sigma=2.0).fit(X, y).margins_)


BAD = [
    (KernelAROW(r=0), "r must"),
    (KernelAROW(a=0), "a must"),
    (KernelAROW(kernel="sigmoid"), "kernel must be"),
    (KernelAROW(sigma=-1), "sigma"),
    (KernelAROW(sigma=1e-300), "sigma"),
    (KernelAROW(kernel="poly", degree=0), "degree"),
    (KernelAROW(max_support=0), "max_support"),
    (KernelAROW(kernel=lambda A, B: A @ B.T), "built-in kernels only"),
]


@pytest.mark.parametrize("est,match", BAD, ids=[m for _, m in BAD])
def test_bad_parameters(est, match):
    X, y = stream(n=20)
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)
