"""Second-order learners (AROW, CW, SCW, SOP, NAROW): scikit-learn checks, the
updates against pure-numpy loops written from the papers, dense = CSR,
exact symmetry of Sigma, diagonal projections, bad input."""
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import norm
from sklearn.utils.estimator_checks import parametrize_with_checks

import olearn
from olearn import AROW, CW, NAROW, SCW, SOP
from olearn.second_order.core import check_full_fits

ALL = [AROW(), AROW(covariance="diag"), CW(), CW(version="stdev"),
       CW(covariance="diag"), SCW(), SCW(variant="II"),
       SCW(covariance="diag", diagonal="covariance"), SOP(),
       SOP(covariance="diag"), NAROW(), NAROW(covariance="diag")]


CW_STDEV_BLOBS_REASON = (
    "exact (stdev) CW with eta=0.95 reaches 0.785 training accuracy on the "
    "standardised blobs of this check (no bias term), below its 0.83 "
    "threshold; its update matches cvxpy's solution of the per-round program "
    "(test_verify_second_order); test_cw_stdev_blobs_accuracy pins the number")


def expected_failed_checks(estimator):
    if isinstance(estimator, CW) and estimator.version == "stdev":
        return {"check_classifiers_train": CW_STDEV_BLOBS_REASON}
    return {}


@parametrize_with_checks(ALL, expected_failed_checks=expected_failed_checks,
                         xfail_strict=True)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_cw_stdev_blobs_accuracy():
    from sklearn.datasets import make_blobs
    from sklearn.preprocessing import StandardScaler
    from sklearn.utils import shuffle as sk_shuffle
    X, y = make_blobs(n_samples=300, random_state=0)
    X, y = sk_shuffle(X, y, random_state=7)
    X = StandardScaler().fit_transform(X)
    X, y = X[y != 2], y[y != 2]
    assert CW(version="stdev").fit(X, y).score(X, y) == pytest.approx(0.785)
    for est in ALL:
        if not (isinstance(est, CW) and est.version == "stdev"):
            assert est.fit(X, y).score(X, y) > 0.83, est


def stream(n=300, d=8, noise=0.1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) > 0, 1.0, -1.0)
    y[rng.random(n) < noise] *= -1
    return X, y


# -- pure-numpy references, one round each, written from the papers --------------
def ref_arow(mu, S, x, y, r):
    m, v = mu @ x, x @ S @ x
    if y * m < 1:
        beta = 1 / (v + r)
        alpha = max(0, 1 - y * m) * beta
        return m, mu + alpha * y * S @ x, S - beta * np.outer(S @ x, x @ S)
    return m, mu, S


def ref_cw_variance(mu, S, x, y, phi):
    M, V = y * (mu @ x), x @ S @ x
    g = (-(1 + 2 * phi * M) + np.sqrt((1 + 2 * phi * M) ** 2
                                      - 8 * phi * (M - phi * V))) / (4 * phi * V)
    alpha = max(0.0, g)
    if alpha == 0:
        return mu @ x, mu, S
    Sinv = np.linalg.inv(S) + 2 * alpha * phi * np.outer(x, x)   # Dredze et al.
    return mu @ x, mu + alpha * y * S @ x, np.linalg.inv(Sinv)


def _stdev_update(mu, S, x, y, phi, alpha):
    V = x @ S @ x
    u = 0.25 * (-alpha * V * phi + np.sqrt(alpha ** 2 * V ** 2 * phi ** 2 + 4 * V)) ** 2
    beta = alpha * phi / (np.sqrt(u) + V * alpha * phi)
    return mu + alpha * y * S @ x, S - beta * np.outer(S @ x, S @ x)


def ref_cw_stdev(mu, S, x, y, phi, C=None, variant=None):
    M, V = y * (mu @ x), x @ S @ x
    psi, zeta = 1 + phi ** 2 / 2, 1 + phi ** 2
    if variant is not None and phi * np.sqrt(V) - M <= 0:
        return mu @ x, mu, S
    if variant == "II":
        n = V + 1 / (2 * C)
        gam = phi * np.sqrt(phi ** 2 * M ** 2 * V ** 2 + 4 * n * V * (n + V * phi ** 2))
        alpha = max(0, (-(2 * M * n + phi ** 2 * M * V) + gam)
                    / (2 * (n ** 2 + n * V * phi ** 2)))
    else:
        alpha = max(0, (-M * psi + np.sqrt(M ** 2 * phi ** 4 / 4 + V * phi ** 2 * zeta))
                    / (V * zeta))
        if variant == "I":
            alpha = min(C, alpha)
    if alpha == 0:
        return mu @ x, mu, S
    return (mu @ x,) + _stdev_update(mu, S, x, y, phi, alpha)


def run_ref(step, X, y, S0, *args):
    mu, S = np.zeros(X.shape[1]), S0.copy()
    scores = []
    for x, yy in zip(X, y):
        f, mu, S = step(mu, S, x, yy, *args)
        scores.append(f)
    return mu, S, np.array(scores)


def ref_sop(X, y, a):
    """CCG 2005, Figure 2, in its own terms: A = aI + sum x x', v = sum y x."""
    d = X.shape[1]
    A, v = a * np.eye(d), np.zeros(d)
    scores = []
    for x, yy in zip(X, y):
        f = x @ np.linalg.solve(A + np.outer(x, x), v)
        scores.append(f)
        if yy * f <= 0:
            A += np.outer(x, x)
            v += yy * x
    return np.linalg.solve(A, v), np.linalg.inv(A), np.array(scores)


def ref_narow(X, y, b, a):
    """The framework form: A_t = A_{t-1} + x x'/r_t, theta += y x, w = A^{-1} theta."""
    d = X.shape[1]
    A, theta = np.eye(d) / a, np.zeros(d)
    scores = []
    for x, yy in zip(X, y):
        chi = x @ np.linalg.solve(A, x)
        r = chi / (b * chi - 1) if chi > 1 / b else np.inf
        A_t = A + np.outer(x, x) / r
        f = x @ np.linalg.solve(A_t, theta)
        scores.append(f)
        if yy * f < 1:
            A, theta = A_t, theta + yy * x
    return np.linalg.solve(A, theta), np.linalg.inv(A), np.array(scores)


@pytest.mark.parametrize("make, ref", [
    (lambda: AROW(r=0.7, a=1.5), lambda X, y: run_ref(ref_arow, X, y, 1.5 * np.eye(X.shape[1]), 0.7)),
    (lambda: CW(eta=0.9), lambda X, y: run_ref(ref_cw_variance, X, y, np.eye(X.shape[1]), norm.ppf(0.9))),
    (lambda: CW(eta=0.8, version="stdev", a=0.5),
     lambda X, y: run_ref(ref_cw_stdev, X, y, 0.5 * np.eye(X.shape[1]), norm.ppf(0.8))),
    (lambda: SCW(C=0.3, eta=0.75),
     lambda X, y: run_ref(ref_cw_stdev, X, y, np.eye(X.shape[1]), norm.ppf(0.75), 0.3, "I")),
    (lambda: SCW(C=0.3, eta=0.75, variant="II"),
     lambda X, y: run_ref(ref_cw_stdev, X, y, np.eye(X.shape[1]), norm.ppf(0.75), 0.3, "II")),
    (lambda: SOP(a=2.0), lambda X, y: ref_sop(X, y, 2.0)),
    (lambda: NAROW(b=0.5, a=1.0), lambda X, y: ref_narow(X, y, 0.5, 1.0)),
    (lambda: NAROW(b=3.0, a=0.2), lambda X, y: ref_narow(X, y, 3.0, 0.2)),
], ids=["AROW", "CW-variance", "CW-stdev", "SCW-I", "SCW-II", "SOP", "NAROW", "NAROW-b3"])
def test_full_updates_equal_numpy_reference(make, ref):
    X, y = stream()
    est = make().fit(X, y)
    mu, S, scores = ref(X, y)
    assert_allclose(est.coef_.ravel(), mu, rtol=1e-9, atol=1e-9)
    assert_allclose(est.covariance_, S, rtol=1e-9, atol=1e-9)
    assert_allclose(est.margins_, y * scores, rtol=1e-9, atol=1e-9)
    assert_array_equal(est.mistakes_, (scores > 0) != (y > 0))
    assert 0 < est.n_updates_ < len(y)
    # the same model from CSR rows, and from partial_fit in pieces
    sparse = make().fit(sp.csr_matrix(X), y)
    assert_allclose(sparse.coef_, est.coef_, rtol=1e-12, atol=1e-13)
    assert_allclose(sparse.covariance_, est.covariance_, rtol=1e-12, atol=1e-13)
    pieces = make()
    for part in np.array_split(np.arange(len(y)), 7):
        pieces.partial_fit(X[part], y[part], classes=[-1, 1])
    assert_allclose(pieces.coef_, est.coef_, rtol=1e-12, atol=1e-13)
    assert_allclose(pieces.covariance_, est.covariance_, rtol=1e-12, atol=1e-13)


def test_narow_moves_the_mean_when_r_is_infinite():
    """With chi <= 1/b, r_t = +inf: Sigma stays, the mean takes y Sigma x."""
    X, y = stream(n=50, d=4)
    X = X / np.linalg.norm(X, axis=1, keepdims=True)        # chi_1 = a = 1 <= 1/b
    est = NAROW(b=0.5).partial_fit(X[:1], y[:1], classes=[-1, 1])
    assert_allclose(est.coef_.ravel(), y[0] * X[0])
    assert_array_equal(est.covariance_, np.eye(4))
    assert est.n_updates_ == 1


def test_narow_threshold_cases():
    """The three cases of r_t, as in the first author's DOGMA ``narow_train.m``:
    chi = 1/b exactly and chi < 1/b give r_t = +inf (Sigma kept, mean += y Sigma x,
    prediction m); chi > 1/b gives r_t = chi/(b chi - 1), prediction r m/(r + chi)."""
    x = np.array([[0.6, 0.8, 0.0]])                          # |x| = 1, chi_1 = a
    for a, b in ((1.0, 1.0), (0.5, 1.0)):                    # chi = 1/b, chi < 1/b
        est = NAROW(b=b, a=a).partial_fit(x, [1], classes=[-1, 1])
        assert_allclose(est.coef_.ravel(), a * x[0], rtol=1e-15)
        assert_array_equal(est.covariance_, a * np.eye(3))
        second = est.partial_fit(x, [1])                      # m = a |x|^2 = a, f = m
        assert_allclose(second.margins_[-1], a, rtol=1e-15)       # y f, y = +1
    a, b = 2.0, 1.0                                          # chi = 2 > 1/b: r = 2
    est = NAROW(b=b, a=a).partial_fit(x, [1], classes=[-1, 1])
    r, chi = 2.0, 2.0
    assert_allclose(est.covariance_, a * np.eye(3) - a * a * np.outer(x[0], x[0]) / (r + chi))
    assert_allclose(est.coef_.ravel(), r / (r + chi) * a * x[0])     # m = 0: (y r - m)/(r+chi)


@pytest.mark.parametrize("cls", [AROW, CW, SCW, SOP, NAROW])
def test_full_sigma_exactly_symmetric_and_positive(cls):
    X, y = stream(n=500, d=12, seed=3)
    S = cls().fit(X, y).covariance_
    assert_array_equal(S, S.T)
    assert np.linalg.eigvalsh(S).min() > 0


def ref_diag(X, y, r, precision):
    """AROW with a diagonal Sigma: each projection written out."""
    d = X.shape[1]
    mu, s2 = np.zeros(d), np.ones(d)
    for x, yy in zip(X, y):
        m, chi = mu @ x, s2 @ (x * x)
        if yy * m < 1 and chi > 0:
            beta = 1 / (chi + r)
            mu = mu + max(0, 1 - yy * m) * beta * yy * s2 * x
            if precision:
                s2 = 1 / (1 / s2 + x * x / r)
            else:
                s2 = s2 - beta * (s2 * x) ** 2
    return mu, s2


@pytest.mark.parametrize("diagonal", ["precision", "covariance"])
def test_diagonal_projections(diagonal):
    X, y = stream(n=400, d=30, seed=5)
    X[np.abs(X) < 0.8] = 0.0                          # sparse rows
    est = AROW(r=0.4, covariance="diag", diagonal=diagonal).fit(sp.csr_matrix(X), y)
    mu, s2 = ref_diag(X, y, 0.4, diagonal == "precision")
    assert_allclose(est.coef_.ravel(), mu, rtol=1e-10, atol=1e-12)
    assert_allclose(est.covariance_, s2, rtol=1e-10)
    assert est.covariance_.min() > 0
    dense = AROW(r=0.4, covariance="diag", diagonal=diagonal).fit(X, y)
    assert_allclose(dense.coef_, est.coef_, rtol=1e-12, atol=1e-14)


def test_diagonal_equals_full_on_axis_aligned_rows():
    """Rows with one nonzero keep Sigma diagonal: both projections are exact."""
    rng = np.random.default_rng(0)
    n, d = 200, 6
    X = np.zeros((n, d))
    X[np.arange(n), rng.integers(0, d, n)] = rng.standard_normal(n)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    for make in (lambda c, g: AROW(covariance=c, diagonal=g),
                 lambda c, g: CW(covariance=c, diagonal=g),
                 lambda c, g: SCW(variant="II", covariance=c, diagonal=g)):
        full = make("full", "precision").fit(X, y)
        for g in ("precision", "covariance"):
            diag = make("diag", g).fit(X, y)
            assert_allclose(diag.coef_, full.coef_, rtol=1e-10, atol=1e-12)
            assert_allclose(diag.covariance_, np.diag(full.covariance_), rtol=1e-10)


def test_any_two_labels_and_zero_rows():
    X, y = stream(n=100, d=5)
    X[::10] = 0.0
    labels = np.where(y > 0, "spam", "ham")
    est = AROW().fit(X, labels)
    ref = AROW().fit(X, y)
    assert_array_equal(est.classes_, ["ham", "spam"])
    assert_allclose(est.coef_, ref.coef_)
    # a zero row changes nothing and is not an update; its zero score
    # predicts the negative class (a mistake for y = +1, as predict says)
    for cls in (AROW, CW, SCW, SOP, NAROW):
        one = cls().partial_fit(np.zeros((1, 5)), [1], classes=[-1, 1])
        assert one.n_updates_ == 0 and one.n_mistakes_ == 1
        assert_array_equal(one.coef_, 0.0)


@pytest.mark.parametrize("make, message", [
    (lambda: AROW(r=0), "r must be"), (lambda: AROW(r=-1.0), "r must be"),
    (lambda: AROW(a=0), "a must be"), (lambda: SOP(a=-2), "a must be"),
    (lambda: CW(eta=0.5), "eta must be"), (lambda: CW(eta=1.0), "eta must be"),
    (lambda: SCW(eta=1.2), "eta must be"), (lambda: SCW(C=0), "C must be"),
    (lambda: NAROW(b=0), "b must be"), (lambda: AROW(covariance="low-rank"), "covariance"),
    (lambda: CW(version="exact"), "version"), (lambda: SCW(variant="III"), "variant"),
    (lambda: AROW(diagonal="both"), "diagonal"), (lambda: AROW(r=np.nan), "r must be"),
])
def test_bad_parameters(make, message):
    X, y = stream(n=20, d=3)
    with pytest.raises(ValueError, match=message):
        make().fit(X, y)
    est = AROW().fit(X, y)
    bad = make()
    est.set_params(**{k: v for k, v in bad.get_params().items()
                      if k in est.get_params()})
    if type(bad) is AROW:
        with pytest.raises(ValueError, match=message):
            est.partial_fit(X, y)


def test_full_covariance_too_large_fails_before_allocating():
    X = sp.csr_matrix(([1.0, 2.0], ([0, 1], [0, 3])), shape=(2, 2_000_000))
    with pytest.raises(MemoryError, match="covariance='diag'") as info:
        AROW().fit(X, [1, -1])
    assert "2000000 x 2000000" in str(info.value)
    est = AROW(covariance="diag").fit(X, [1, -1])
    assert est.covariance_.shape == (2_000_000,)
    with pytest.raises(MemoryError, match="GiB"):
        check_full_fits("CW", 10 ** 7)


def test_frozen_parameters_between_partial_fit_calls():
    X, y = stream(n=40, d=4)
    for name, value in (("covariance", "diag"), ("a", 2.0), ("diagonal", "covariance")):
        est = AROW().partial_fit(X[:20], y[:20])
        est.set_params(**{name: value})
        with pytest.raises(ValueError, match=name):
            est.partial_fit(X[20:], y[20:])
    est = AROW().partial_fit(X[:20], y[:20])
    est.set_params(r=3.0).partial_fit(X[20:], y[20:])      # r may change
    assert est.n_rounds_ == 40


def test_public_names():
    for name in ("AROW", "CW", "SCW", "SOP", "NAROW"):
        assert name in olearn.__all__ and hasattr(olearn, name)


@pytest.mark.parametrize("est", ALL, ids=repr)
def test_record_counts(est):
    """record="counts" (the base's meaning): the same counts and model as
    record="full", no per-round record, and it cannot change mid-stream."""
    from sklearn.base import clone
    from olearn.base import FrozenParameterError
    X, y = stream(n=120, d=6)
    full = clone(est).fit(X, y)
    counts = clone(est).set_params(record="counts").fit(X, y)
    assert (counts.n_rounds_, counts.n_mistakes_, counts.n_updates_) == \
        (full.n_rounds_, full.n_mistakes_, full.n_updates_)
    assert_array_equal(counts.coef_, full.coef_)
    with pytest.raises(AttributeError, match="record='counts'"):
        counts.mistakes_
    part = clone(est).set_params(record="counts").partial_fit(X[:60], y[:60])
    part.set_params(record="full")
    with pytest.raises(FrozenParameterError, match="record"):
        part.partial_fit(X[60:], y[60:])


def sparse_stream32(n=600, d=40, seed=3):
    X, y = stream(n=n, d=d, seed=seed)
    X[np.abs(X) < 0.9] = 0.0
    return sp.csr_matrix(X.astype(np.float32)), y


@pytest.mark.parametrize("covariance", ["diag", "full"])
def test_float32_csr_learns_without_a_float64_copy(covariance):
    """float32 CSR is not copied to float64 (issue 19) and every learner's
    results equal those of the same values in float64, bit for bit."""
    X32, y = sparse_stream32()
    X64 = X32.astype(np.float64)
    assert AROW(covariance=covariance)._validate(X32, y, reset=True)[0] is X32
    for est in ALL:
        if est.covariance != covariance:
            continue
        try:
            a = est.fit(X32, y)
        except FloatingPointError:   # exact CW's diagonal projection diverges
            with pytest.raises(FloatingPointError, match="diverges"):
                est.fit(X64, y)
            continue
        coef, cov, margins = a.coef_, a.covariance_, a.margins_.copy()
        b = est.fit(X64, y)
        assert_array_equal(coef, b.coef_)
        assert_array_equal(cov, b.covariance_)
        assert_array_equal(margins, b.margins_)
    bad = X32.copy()
    bad.data[5] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        AROW(covariance=covariance).fit(bad, y)
    bad = X32.copy()
    bad.indices[5] = 10 ** 6
    with pytest.raises(ValueError, match="malformed CSR"):
        AROW(covariance=covariance).fit(bad, y)


def ref_diag_pass(X, y, rule, params, precision):
    """The diagonal pass written out with left-to-right sums (the rules
    themselves from olearn.second_order.rules, run as Python)."""
    from olearn.second_order.rules import rule_step
    d = X.shape[1]
    mu, s2 = np.zeros(d), np.full(d, 1.0)
    mistakes = []
    for x, yy in zip(X, y):
        nz = np.flatnonzero(x)
        m = chi = 0.0
        for j in nz:
            m += mu[j] * x[j]
            chi += s2[j] * x[j] * x[j]
        f, alpha, gamma, beta = rule_step.py_func(rule, params, m, chi, yy)
        mistakes.append((f > 0) != (yy > 0))
        if chi > 0 and (alpha != 0 or gamma != 0):
            for j in nz:
                sj = s2[j] * x[j]
                mu[j] += alpha * sj
                s2[j] = (s2[j] / (1 + gamma * s2[j] * x[j] ** 2) if precision
                         else s2[j] - beta * sj * sj)
    return mu, s2, np.array(mistakes)


@pytest.mark.parametrize("diagonal", ["precision", "covariance"])
def test_diagonal_pass_equals_left_to_right_sums(diagonal):
    """The diagonal pass sums m and chi as two interleaved partial sums (issue
    19, speed): equal to the left-to-right pass within round-off, for every
    rule, with the same mistakes."""
    X32, y = sparse_stream32(n=400)
    X = X32.toarray().astype(np.float64)
    for est in (AROW(r=0.5), CW(), SCW(), SCW(variant="II"), SOP(), NAROW(b=0.5)):
        est.set_params(covariance="diag", diagonal=diagonal).fit(sp.csr_matrix(X), y)
        params = np.asarray(est._rule_params(), dtype=np.float64)
        mu, s2, mistakes = ref_diag_pass(X, np.where(y > 0, 1.0, -1.0),
                                         est._rule, params, diagonal == "precision")
        assert_array_equal(est.mistakes_, mistakes)
        assert_allclose(est.coef_.ravel(), mu, rtol=1e-11, atol=1e-14)
        assert_allclose(est.covariance_, s2, rtol=1e-11)


def test_diagonal_model_survives_pickling_mid_stream():
    """mu and Sigma (diagonal) are columns of one array: after pickling they
    are columns of the unpickled array again, and learning goes on alike."""
    import copy
    import pickle
    X32, y = sparse_stream32()
    est = AROW(covariance="diag").partial_fit(X32[:300], y[:300])
    twins = [pickle.loads(pickle.dumps(est)), copy.deepcopy(est)]
    for model in [est] + twins:
        model.partial_fit(X32[300:], y[300:])
    for twin in twins:
        assert np.shares_memory(twin._mu, twin._pairs)
        assert_array_equal(twin.coef_, est.coef_)
        assert_array_equal(twin.covariance_, est.covariance_)
    refit = AROW(covariance="diag").fit(X32, y).set_params(covariance="full").fit(X32, y)
    assert "_pairs" not in refit.__dict__
    assert_array_equal(pickle.loads(pickle.dumps(refit)).coef_, refit.coef_)
