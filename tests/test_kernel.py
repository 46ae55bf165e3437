"""Kernel learners: kernels, the linear-kernel equivalences, dense vs CSR,
tracked quantities, callables, budgets, bad input and sklearn's checks."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel
from sklearn.utils.estimator_checks import parametrize_with_checks

import olearn
from olearn import (ALMA, DUOL, PA, ROMMA, AggressiveROMMA, KernelALMA,
                    KernelAggressiveROMMA, KernelPA, KernelPerceptron,
                    KernelROMMA, OnlineSVM, Perceptron)
from olearn.kernel import kernel_matrix


def stream(n=300, d=8, seed=0, sparse=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random(size=X.shape) < 0.4] = 0.0
    w = rng.normal(size=d)
    y = np.where(X @ w + 0.5 * rng.normal(size=n) > 0, 1, -1)
    return (sp.csr_matrix(X) if sparse else X), y


PAIRS = [
    (KernelPerceptron(kernel="linear"), Perceptron()),
    (KernelROMMA(kernel="linear"), ROMMA()),
    (KernelAggressiveROMMA(kernel="linear"), AggressiveROMMA()),
    (KernelALMA(kernel="linear"), ALMA(p=2, alpha=0.9)),
    (KernelPA(C=0.3, variant="PA-I", kernel="linear"), PA(C=0.3, variant="PA-I")),
    (KernelPA(C=0.3, variant="PA-II", kernel="linear"), PA(C=0.3, variant="PA-II")),
    (KernelPA(variant="PA", kernel="linear"), PA(variant="PA")),
]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: type(p[0]).__name__)
def test_linear_kernel_equals_linear_learner(pair, sparse):
    kern, lin = pair
    X, y = stream(sparse=sparse)
    kern.fit(X, y)
    lin.fit(X, y)
    assert_array_equal(kern.mistakes_, lin.mistakes_)
    assert kern.n_updates_ == lin.n_updates_
    w = kern.dual_coef_ @ kern.support_vectors_
    assert_allclose(np.asarray(w).ravel(), lin.coef_.ravel(), rtol=1e-9, atol=1e-9)
    assert_allclose(kern.margins_, lin.margins_, rtol=1e-8, atol=1e-9)


def test_kernel_rows_match_sklearn():
    X, _ = stream(50)
    assert_allclose(kernel_matrix(X, X, "rbf", sigma=2.0),
                    rbf_kernel(X, gamma=1 / 8.0), atol=1e-12)
    assert_allclose(kernel_matrix(X, X, "poly", degree=3, coef0=0.5),
                    polynomial_kernel(X, degree=3, gamma=1.0, coef0=0.5))


LEARNERS = [KernelPerceptron(), KernelROMMA(), KernelAggressiveROMMA(),
            KernelALMA(), KernelPA(), KernelPA(variant="PA-II"), DUOL(),
            DUOL(update="exact"), OnlineSVM()]


@pytest.mark.parametrize("est", LEARNERS, ids=repr)
@pytest.mark.parametrize("kernel", [dict(kernel="rbf", sigma=2.0),
                                    dict(kernel="poly", degree=2, coef0=1.0)])
def test_dense_csr_and_decision_agree(est, kernel):
    X, y = stream(200, seed=1)
    X = X / 3.0
    a = est.set_params(**kernel).fit(X, y)
    dense_coef = a.dual_coef_.copy()
    dense_mist = a.mistakes_.copy()
    b = olearn.base.clone(est).fit(sp.csr_matrix(X), y) if hasattr(olearn.base, "clone") else None
    from sklearn.base import clone
    b = clone(est).fit(sp.csr_matrix(X), y)
    assert_array_equal(dense_mist, b.mistakes_)
    assert_allclose(dense_coef, b.dual_coef_, rtol=1e-9, atol=1e-12)
    # the score of a new row is the online score of partial_fit on it
    x_new, y_new = X[:5] * 0.7, y[:5]
    scores = a.decision_function(x_new)
    a.partial_fit(x_new[:1], y_new[:1])
    assert_allclose(a.margins_[-1], (1 if y_new[0] == a.classes_[1] else -1) * scores[0],
                    rtol=1e-9, atol=1e-12)
    # ||f||^2 tracked along the updates (not OnlineSVM, which does not track it)
    if not isinstance(a, OnlineSVM):
        assert_allclose(a._st[1], a.norm_squared_(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("update", ["paper", "exact"])
@pytest.mark.parametrize("max_support", [None, 40])
def test_duol_scores_are_maintained(update, max_support):
    X, y = stream(300, seed=2)
    est = DUOL(update=update, sigma=2.0, max_support=max_support).fit(X, y)
    f = est.decision_function(est.support_vectors_)
    sv_y = np.sign(est.dual_coef_.ravel())
    assert_allclose(est.scores_, sv_y * f, rtol=1e-8, atol=1e-9)
    assert est.n_double_updates_ > 0
    if max_support:
        assert est.n_support_ == max_support
    gammas = np.abs(est.dual_coef_.ravel())
    assert gammas.max() <= est.C + 1e-12


@pytest.mark.parametrize("est", [KernelPerceptron(), KernelPA(), DUOL(), KernelROMMA()], ids=repr)
def test_budget_keeps_newest(est):
    X, y = stream(300, seed=3)
    est.set_params(max_support=25, sigma=2.0).fit(X, y)
    assert est.n_support_ <= 25
    assert_allclose(est._st[1], est.norm_squared_(), rtol=1e-7, atol=1e-9)


def test_callable_kernel_equals_builtin():
    X, y = stream(150, seed=4)

    def gauss(A, B):
        return rbf_kernel(A, B, gamma=1 / 8.0)

    for cls in (KernelPerceptron, KernelPA, DUOL):
        a = cls(sigma=2.0).fit(X, y)
        b = cls(kernel=gauss).fit(X, y)
        assert_array_equal(a.mistakes_, b.mistakes_)
        assert_allclose(a.dual_coef_, b.dual_coef_, rtol=1e-9, atol=1e-12)
        assert_allclose(a.decision_function(X[:7]), b.decision_function(X[:7]),
                        rtol=1e-9, atol=1e-12)
    c = DUOL(kernel=gauss, max_support=10).fit(X, y)
    assert c.n_support_ == 10


def test_online_svm_reaches_the_batch_optimum():
    """After the last trial the weights satisfy the bias-free SVM KKT conditions to tol."""
    X, y = stream(120, seed=5)
    est = OnlineSVM(C=1.0, sigma=2.0, tol=1e-6, max_sweeps=100000).fit(X, y)
    K = kernel_matrix(X, X, "rbf", sigma=2.0)
    ypm = np.where(y == est.classes_[1], 1.0, -1.0)
    gamma = np.zeros(len(y))
    n = est._size[0]
    gamma[:n] = est._beta[:n] * est._sv_y[:n]
    g = 1 - ypm * (K @ (gamma * ypm))
    free = (gamma > 1e-12) & (gamma < 1.0 - 1e-12)
    assert np.abs(g[free]).max() <= 1e-5
    assert (g[gamma <= 1e-12] <= 1e-5).all()
    assert (g[gamma >= 1.0 - 1e-12] >= -1e-5).all()
    assert est.n_support_ == np.count_nonzero(gamma)


def test_online_svm_max_sweeps_warns():
    X, y = stream(200, seed=6)
    with pytest.warns(Warning, match="max_sweeps=1"):
        est = OnlineSVM(sigma=1.0, max_sweeps=1, tol=1e-9).fit(X, y)
    assert est.n_nonconverged_ > 0


BAD = [
    (KernelPerceptron(sigma=0.0), "sigma"),
    (KernelPerceptron(sigma=1e-300), "sigma"),
    (KernelPerceptron(sigma=-1.0), "sigma"),
    (DUOL(rho=1.0), "rho"),
    (DUOL(rho=-0.1), "rho"),
    (DUOL(C=0.0), "C must"),
    (KernelPA(C=-1.0), "C must"),
    (OnlineSVM(C=0.0), "C must"),
    (KernelPerceptron(kernel="poly", degree=0), "degree"),
    (KernelPerceptron(kernel="poly", degree=1.5), "degree"),
    (KernelPerceptron(kernel="gaussian"), "kernel must be"),
    (KernelPerceptron(max_support=0), "max_support"),
    (KernelALMA(p=3), "p=2"),
    (DUOL(update="fast"), "update"),
    (OnlineSVM(max_sweeps=0), "max_sweeps"),
]


@pytest.mark.parametrize("est,match", BAD, ids=lambda v: repr(v) if not isinstance(v, str) else "")
def test_bad_parameters(est, match):
    X, y = stream(20)
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


def test_bad_callable_kernels_are_named():
    X, y = stream(20)

    def wrong_shape(A, B):
        return np.ones((A.shape[0] + 1, B.shape[0]))

    def not_finite(A, B):
        return np.full((A.shape[0], B.shape[0]), np.nan)

    with pytest.raises(ValueError, match="wrong_shape.*shape"):
        KernelPerceptron(kernel=wrong_shape).fit(X, y)
    with pytest.raises(ValueError, match="not_finite.*non-finite"):
        DUOL(kernel=not_finite).fit(X, y)


def test_kernel_change_between_partial_fit_calls():
    X, y = stream(40)
    est = DUOL().partial_fit(X[:20], y[:20])
    est.set_params(sigma=3.0)
    with pytest.raises(ValueError, match="sigma changed from 8.0 to 3.0"):
        est.partial_fit(X[20:], y[20:])
    est.set_params(sigma=8.0, rho=2.0)
    with pytest.raises(ValueError, match="rho"):
        est.partial_fit(X[20:], y[20:])


def test_partial_fit_chunks_equal_fit():
    X, y = stream(200, seed=7)
    a = DUOL(sigma=2.0).fit(X, y)
    b = DUOL(sigma=2.0)
    for lo in range(0, 200, 37):
        b.partial_fit(X[lo:lo + 37], y[lo:lo + 37], classes=[-1, 1])
    assert_array_equal(a.mistakes_, b.mistakes_)
    assert_allclose(a.dual_coef_, b.dual_coef_)


@parametrize_with_checks([KernelPerceptron(), KernelROMMA(), KernelAggressiveROMMA(),
                          KernelALMA(), KernelPA(), KernelPA(variant="PA-II"),
                          DUOL(), DUOL(update="exact"), OnlineSVM()])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("first_sparse", [False, True])
def test_mixed_dense_and_csr_batches(first_sparse):
    """The store keeps the layout of the first batch; later batches are converted."""
    X, y = stream(120, seed=8)
    ref = DUOL(sigma=2.0).fit(X, y)
    est = DUOL(sigma=2.0)
    a, b = (sp.csr_matrix(X[:60]), X[60:]) if first_sparse else (X[:60], sp.csr_matrix(X[60:]))
    est.partial_fit(a, y[:60], classes=[-1, 1]).partial_fit(b, y[60:])
    assert_array_equal(ref.mistakes_, est.mistakes_)
    assert_allclose(ref.dual_coef_, est.dual_coef_, rtol=1e-9, atol=1e-12)
    assert sp.issparse(est.support_vectors_) == first_sparse


@pytest.mark.parametrize("cls", [KernelPerceptron, KernelPA, DUOL, OnlineSVM],
                         ids=lambda c: c.__name__)
def test_record_counts_equals_full(cls):
    X, y = stream(150, seed=9)
    full = cls(sigma=2.0).fit(X, y)
    counts = cls(sigma=2.0, record="counts").fit(X, y)
    assert cls().get_params()["record"] == "full"
    assert (counts.n_mistakes_, counts.n_updates_) == (full.n_mistakes_, full.n_updates_)
    assert_allclose(counts.dual_coef_, full.dual_coef_)
    with pytest.raises(AttributeError, match="record='counts'"):
        counts.mistakes_


# -- issue 16 (items 8, 11, 14, 20) and issue 19 (dense rows) --------------------
ALL_KERNEL = [KernelPerceptron, KernelROMMA, KernelAggressiveROMMA, KernelALMA,
              KernelPA, DUOL, OnlineSVM, olearn.KernelAROW]
COMMON = dict(kernel="rbf", sigma=8.0, degree=3, coef0=1.0, max_support=None,
              n_epochs=1, shuffle=False, random_state=None, record="full")


@pytest.mark.parametrize("cls", ALL_KERNEL, ids=lambda c: c.__name__)
def test_every_kernel_learner_takes_the_common_parameters(cls):
    """One vocabulary and one default for every kernel learner (sigma, max_support, record)."""
    params = cls().get_params()
    assert {k: params[k] for k in COMMON} == COMMON
    assert issubclass(cls, olearn.kernel.KernelClassifier)


@pytest.mark.parametrize("sigma", [1e-300, 1e-160, 1e160, 1e300])
@pytest.mark.parametrize("cls", ALL_KERNEL, ids=lambda c: c.__name__)
def test_sigma_out_of_float_range_is_refused(cls, sigma):
    """sigma=1e-300 made 2 sigma^2 = 0: ZeroDivisionError in compiled code."""
    X, y = stream(20)
    with pytest.raises(ValueError, match=r"sigma .*2 sigma\^2.*\[5.27e-155, 9.48e\+153\]"):
        cls(sigma=sigma).fit(X, y)
    with pytest.warns(olearn.kernel.NumericRangeWarning, match="underflowed"):
        cls(sigma=1e-150).fit(X, y)  # the edges of the range are usable
    cls(sigma=1e150).fit(X, y)


@pytest.mark.parametrize("cls", ALL_KERNEL, ids=lambda c: c.__name__)
def test_gaussian_kernel_underflowing_everywhere_warns(cls):
    """Features ~1e3 with sigma = 1e-3: k(x, x') = 0 for every pair, the model
    memorises its support vectors only; a warning names the fix."""
    X, y = stream(60, seed=10)
    with pytest.warns(olearn.kernel.NumericRangeWarning,
                      match="underflowed to 0 .*Rescale X .*increase sigma"):
        cls(sigma=1e-3).fit(1e3 * X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", olearn.kernel.NumericRangeWarning)
        cls(sigma=2.0).fit(X, y)
        # far points legitimately give zero rows on some rounds: no warning
        far = np.vstack([X, 1e3 * X[:5]])
        cls(sigma=2.0).fit(far, np.r_[y, y[:5]])


@pytest.mark.parametrize("cls", ALL_KERNEL, ids=lambda c: c.__name__)
def test_overflowing_rows_are_refused_before_learning(cls):
    # ||x||^2 out of range: refused by the base's range check (FeatureRangeError,
    # one rule for every estimator); the polynomial bound (||x||^2 + |coef0|)^degree
    # of a row inside that range: refused by the kernel learner before the pass
    X, y = stream(60, seed=11)
    est = cls(sigma=2.0).partial_fit(X[:30], y[:30])
    coef = est.dual_coef_.copy()
    bad = X[30:].copy()
    bad[4] *= 1e200
    with pytest.raises(olearn.base.FeatureRangeError, match="Row 4 .*overflows"):
        est.partial_fit(bad, y[30:])
    assert est.n_rounds_ == 30
    assert_array_equal(est.dual_coef_, coef)
    with pytest.raises(olearn.base.NonFiniteModelError, match="polynomial"):
        cls(kernel="poly", degree=3).fit(1e60 * X, y)


@pytest.mark.parametrize("cls", ALL_KERNEL, ids=lambda c: c.__name__)
def test_underflowing_squared_norms_are_refused(cls):
    X, y = stream(30, seed=12)
    with pytest.raises(olearn.base.FeatureRangeError, match="underflows"):
        cls(kernel="linear").fit(1e-300 * X, y)


def test_online_svm_gram_matrix_that_cannot_fit_is_refused(monkeypatch):
    monkeypatch.setattr(olearn.kernel.core, "available_memory", lambda: 2**20)
    X, y = stream(400, seed=13)
    with pytest.raises(MemoryError, match="OnlineSVM keeps a 40[0-9] x 40[0-9].*fewer rows"):
        OnlineSVM().fit(X, y)


BUDGETED = LEARNERS + [DUOL(max_support=30), KernelPA(max_support=30),
                       KernelROMMA(max_support=30), olearn.KernelAROW(),
                       olearn.KernelAROW(max_support=30)]


@pytest.mark.parametrize("est", BUDGETED, ids=repr)
@pytest.mark.parametrize("kernel", [dict(kernel="rbf", sigma=2.0),
                                    dict(kernel="poly", degree=2, coef0=1.0),
                                    dict(kernel="linear")])
def test_dense_rows_equal_csr_rows_bit_for_bit(est, kernel):
    """Issue 19: the dense store is transposed and skips zero features; each
    inner product still adds its terms in feature order, so dense and CSR
    streams give the same model to the last bit (as the former scalar loop)."""
    from sklearn.base import clone

    X, y = stream(200, d=30, seed=14)
    X = X / 3.0
    a = clone(est).set_params(**kernel).fit(X, y)
    b = clone(est).set_params(**kernel).fit(sp.csr_matrix(X), y)
    assert_array_equal(a.margins_, b.margins_)
    assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert_array_equal(a.support_vectors_, b.support_vectors_.toarray())


def _csr(X, index_dtype):
    M = sp.csr_matrix(X)
    M.indices = M.indices.astype(index_dtype)
    M.indptr = M.indptr.astype(index_dtype)
    return M


@pytest.mark.parametrize("est", BUDGETED, ids=repr)
@pytest.mark.parametrize("kernel", [dict(kernel="rbf", sigma=2.0),
                                    dict(kernel="poly", degree=2, coef0=1.0),
                                    dict(kernel="linear")])
def test_every_layout_scores_a_row_as_fit_does(est, kernel):
    """Issue 36 item 6: decision_function scored ``K(X, S) @ coef`` through
    BLAS, whose order of the sums follows the layout, the number of rows and
    the host. Now a row is scored as a round of fit scores it, so the score
    of a row is the same bits for a dense (C or F) or CSR (int32 or int64
    indices) row, alone or among others, from a model with a dense or a CSR
    store, and it is the score fit gives the row when it comes next."""
    from sklearn.base import clone

    X, y = stream(200, d=30, seed=14)
    X = X / 3.0
    Z, _ = stream(25, d=30, seed=15)
    Z = Z / 3.0
    # rows much sparser than the support rows (a CSR store finds their
    # columns by binary search) and an empty row
    Z[:4] = 0.0
    Z[1, 7], Z[2, [0, 29]], Z[3, [3, 4, 28]] = 0.4, [-0.3, 0.5], [0.2, -0.1, 0.6]
    models = {"dense store": clone(est).set_params(**kernel).fit(X, y),
              "CSR store": clone(est).set_params(**kernel).fit(_csr(X, np.int32), y),
              "CSR store, int64 stream": clone(est).set_params(**kernel).fit(
                  _csr(X, np.int64), y)}
    reference = models["dense store"].decision_function(Z)
    for store, model in models.items():
        layouts = {
            "C": model.decision_function(Z),
            "F": model.decision_function(np.asfortranarray(Z)),
            "CSR int32": model.decision_function(_csr(Z, np.int32)),
            "CSR int64": model.decision_function(_csr(Z, np.int64)),
            "dense rows one by one": np.concatenate(
                [model.decision_function(Z[i:i + 1]) for i in range(len(Z))]),
            "CSR rows one by one": np.concatenate(
                [model.decision_function(_csr(Z[i:i + 1], np.int64)) for i in range(len(Z))]),
            "inside a larger matrix": model.decision_function(np.vstack([X[:7], Z]))[7:],
        }
        for layout, scores in layouts.items():
            assert_array_equal(scores, reference, err_msg=f"{store}, {layout}")
    # a refit scores with the new support set (the CSR store's columns are rebuilt)
    model = models["CSR store"].fit(_csr(Z, np.int32), np.r_[y[:12], -y[12:25]])
    fresh = clone(est).set_params(**kernel).fit(Z, np.r_[y[:12], -y[12:25]])
    assert_array_equal(model.decision_function(X[:20]), fresh.decision_function(X[:20]))
    # the score of the next row is the one its round of fit uses (margins_)
    for sparse in (False, True):
        model = clone(est).set_params(**kernel)
        for t in range(60):
            row = _csr(X[t:t + 1], np.int32) if sparse else X[t:t + 1]
            score = model.decision_function(row)[0] if t else 0.0
            model.partial_fit(row, y[t:t + 1], classes=[-1, 1])
            assert model.margins_[-1] == y[t] * score, (sparse, t)
