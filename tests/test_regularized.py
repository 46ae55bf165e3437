"""The regularized PA learners (Shen and Dietterich 2009) as online learners.

The library's compiled runs are compared with pure-numpy reference loops
written here.  The references do not share the library's closed forms for the
constrained learners: they solve problems (3.9) and (3.10) by bisection on the
margin multiplier ``tau`` around a sort-based ball projection,
``w = P_ball(w_t + tau y x)``, with the infeasible-round convention written
out.  Also: scikit-learn's checks, dense vs CSR, parameter validation,
averaging, the truncation record, infeasible streams and the speed of the L1
learner on a 20 Newsgroups-sized stream.
"""
import time

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.datasets import make_blobs
from sklearn.preprocessing import StandardScaler
from sklearn.utils import shuffle as sk_shuffle
from sklearn.utils.estimator_checks import (check_classifiers_train,
                                            parametrize_with_checks)

from olearn.linear.averaged import Averaged
from olearn.linear.regularized import (L1ConstrainedPA, L2ConstrainedPA,
                                ObjectiveRegularizedPA)

SMALL_ALPHA_REASON = (
    "with alpha=0.01 the objective-regularized PA is nearly plain PA (hard "
    "margin, no bias): 0.79 training accuracy on the standardised blobs of "
    "this check, below its 0.83 threshold; test_small_alpha_blobs_accuracy "
    "pins this down")


def expected_failed_checks(estimator):
    if isinstance(estimator, ObjectiveRegularizedPA) and estimator.alpha < 0.3:
        return {"check_classifiers_train": SMALL_ALPHA_REASON}
    return {}


@parametrize_with_checks(
    [ObjectiveRegularizedPA(), ObjectiveRegularizedPA(alpha=1.0),
     L2ConstrainedPA(), L2ConstrainedPA(truncate_sigma=0.0, update_on="mistake"),
     L1ConstrainedPA(), L1ConstrainedPA(truncate_sigma=1e-4)],
    expected_failed_checks=expected_failed_checks, xfail_strict=True)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_small_alpha_blobs_accuracy():
    X, y = make_blobs(n_samples=300, random_state=0)
    X, y = sk_shuffle(X, y, random_state=7)
    X = StandardScaler().fit_transform(X)
    X, y = X[y != 2], y[y != 2]
    assert ObjectiveRegularizedPA().fit(X, y).score(X, y) == pytest.approx(0.79)
    with pytest.raises(AssertionError):
        check_classifiers_train("ObjectiveRegularizedPA", ObjectiveRegularizedPA())
    check_classifiers_train("ObjectiveRegularizedPA", ObjectiveRegularizedPA(1.0))


# -- pure-numpy references --------------------------------------------------------
def proj_l2(v, beta):
    norm = np.linalg.norm(v)
    return v if norm <= beta else v * (beta / norm)


def proj_l1(v, beta):
    """Duchi et al. (2008): sort ``|v|``, find the threshold."""
    if np.abs(v).sum() <= beta:
        return v.copy()
    u = np.sort(np.abs(v))[::-1]
    css = np.cumsum(u)
    k = np.arange(1, v.size + 1)
    rho = k[u - (css - beta) / k > 0][-1]
    theta = (css[rho - 1] - beta) / rho
    return np.sign(v) * np.maximum(np.abs(v) - theta, 0.0)


def simplex(b, beta):
    """Projection of ``b`` onto ``{a >= 0, sum a = beta}`` by sorting."""
    u = np.sort(b)[::-1]
    css = np.cumsum(u)
    k = np.arange(1, b.size + 1)
    rho = k[u - (css - beta) / k > 0][-1]
    return np.maximum(b - (css[rho - 1] - beta) / rho, 0.0)


def constrained_step(w, x, y, beta, norm):
    """Problem (3.9)/(3.10) by bisection on ``tau`` (module docstring)."""
    proj, size = ((proj_l2, np.linalg.norm) if norm == "l2"
                  else (proj_l1, lambda v: np.abs(v).sum()))
    a = y * x
    inside = size(w) <= beta * (1 + 1e-12)     # rounding allowance on the sphere
    if inside and a @ w >= 1:
        return w, False
    if not np.any(a):
        return proj(w, beta), not inside
    if norm == "l2" and beta * np.linalg.norm(a) <= 1:
        return beta * a / np.linalg.norm(a), True
    if norm == "l1" and beta * np.abs(a).max() <= 1:
        top = np.abs(a) == np.abs(a).max()
        new = np.zeros_like(w)
        new[top] = np.sign(a[top]) * simplex(np.sign(a[top]) * w[top], beta)
        return new, True
    if a @ proj(w, beta) >= 1:
        return proj(w, beta), True
    lo, hi = 0.0, 1.0
    while a @ proj(w + hi * a, beta) < 1:
        lo, hi = hi, 2 * hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        if a @ proj(w + mid * a, beta) < 1:
            lo = mid
        else:
            hi = mid
    return proj(w + hi * a, beta), True


def objective_step(w, x, y, alpha):
    """Lemma 3.1; returns (w, changed)."""
    q = x @ x
    tau = max(0.0, (1 + alpha - y * (w @ x)) / q) if q > 0 else 0.0
    return (w + tau * y * x) / (1 + alpha), tau > 0 or np.any(w)


def truncate(w, sigma):
    """Section 3.3: zero the smallest |w_j| (ties: lower j) with sum w_j^2 <= sigma."""
    nz = np.flatnonzero(w)
    order = nz[np.lexsort((nz, w[nz] ** 2))]
    k = np.searchsorted(np.cumsum(w[order] ** 2), sigma, side="right")
    w = w.copy()
    w[order[:k]] = 0.0
    return w


def reference_run(kind, param, X, y, update_on="round", sigma=None):
    """Margins, mistakes, sizes, n_updates and final ``w`` of one pass."""
    w = np.zeros(X.shape[1])
    margins, mistakes, sizes, n_updates = [], [], [], 0
    for x, label in zip(X, y):
        score = w @ x
        margins.append(label * score)
        mistakes.append((score > 0) != (label > 0))
        if not (update_on == "mistake" and label * score > 0):
            if kind == "objective":
                new, changed = objective_step(w, x, label, param)
            else:
                new, changed = constrained_step(w, x, label, param, kind)
            if changed:
                n_updates += 1
                w = new if sigma is None else truncate(new, sigma)
        sizes.append(np.count_nonzero(w))
    return np.array(margins), np.array(mistakes), np.array(sizes), n_updates, w


KINDS = {"objective": ObjectiveRegularizedPA, "l2": L2ConstrainedPA,
         "l1": L1ConstrainedPA}


def make(kind, param, **kwargs):
    return (KINDS[kind](alpha=param, **kwargs) if kind == "objective"
            else KINDS[kind](beta=param, **kwargs))


def stream(n=160, d=8, seed=0, scale=1.0, density=0.6):
    """Gaussian rows (two of them zero) labelled by a hyperplane, 10% noise."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * scale * (rng.random((n, d)) < density)
    X[[7, 50] if n > 50 else [7]] = 0.0
    y = np.where(X @ rng.standard_normal(d) > 0, 1.0, -1.0)
    y[rng.random(n) < 0.1] *= -1
    return X, y


CASES = [("objective", 0.05), ("objective", 0.5), ("l2", 0.8), ("l2", 3.0),
         ("l1", 0.9), ("l1", 2.5), ("l1", 40.0)]


@pytest.mark.parametrize("update_on", ["round", "mistake"])
@pytest.mark.parametrize("sigma", [None, 0.02])
@pytest.mark.parametrize("kind, param", CASES)
def test_record_matches_reference_loop(kind, param, sigma, update_on):
    X, y = stream(seed=CASES.index((kind, param)))
    est = make(kind, param, update_on=update_on, truncate_sigma=sigma).fit(X, y)
    margins, mistakes, sizes, n_updates, w = reference_run(
        kind, param, X, y, update_on, sigma)
    assert_allclose(est.margins_, margins, rtol=1e-9, atol=1e-9)
    assert_array_equal(est.mistakes_, mistakes)
    assert est.n_updates_ == n_updates
    assert_allclose(est.coef_.ravel(), w, rtol=1e-9, atol=1e-10)
    if sigma is None:
        assert est.support_sizes_ is None
    else:
        assert_array_equal(est.support_sizes_, sizes)
        assert sizes.min() < X.shape[1]        # truncation did something


def test_references_meet_every_regime():
    """The streams above exercise both constraints and infeasible rounds."""
    seen = {"l2": set(), "l1": set()}
    for kind, beta in CASES[2:]:
        X, y = stream(seed=CASES.index((kind, beta)))
        w = np.zeros(X.shape[1])
        size = np.linalg.norm if kind == "l2" else (lambda v: np.abs(v).sum())
        dual = np.linalg.norm if kind == "l2" else (lambda v: np.abs(v).max())
        for x, label in zip(X, y):
            new, changed = constrained_step(w, x, label, beta, kind)
            if changed and np.any(x):
                if beta * dual(x) <= 1:
                    seen[kind].add("infeasible")
                elif abs(size(new) - beta) < 1e-9:
                    seen[kind].add("norm active")
                else:
                    seen[kind].add("margin only")
            w = new
    assert seen == {k: {"infeasible", "norm active", "margin only"} for k in seen}


@pytest.mark.parametrize("sigma", [None, 0.01])
@pytest.mark.parametrize("kind, param", CASES)
def test_csr_gives_the_dense_model(kind, param, sigma):
    X, y = stream(n=200, d=30, density=0.3, seed=3)
    dense = make(kind, param, truncate_sigma=sigma).fit(X, y)
    for index_dtype in (np.int32, np.int64):
        Xs = sp.csr_matrix(X)
        Xs.indices, Xs.indptr = (Xs.indices.astype(index_dtype),
                                 Xs.indptr.astype(index_dtype))
        sparse = make(kind, param, truncate_sigma=sigma).fit(Xs, y)
        assert_array_equal(sparse.coef_, dense.coef_)
        assert_array_equal(sparse.margins_, dense.margins_)
        assert sparse.n_updates_ == dense.n_updates_


@pytest.mark.parametrize("kind, param", CASES)
def test_partial_fit_in_chunks_equals_fit(kind, param):
    X, y = stream(n=150, d=12, density=0.5, seed=4)
    whole = make(kind, param, truncate_sigma=0.01).fit(X, y)
    pieces = make(kind, param, truncate_sigma=0.01)
    for start, stop in ((0, 1), (1, 40), (40, 41), (41, 150)):
        pieces.partial_fit(X[start:stop], y[start:stop], classes=[-1, 1])
    assert_allclose(pieces.coef_, whole.coef_, rtol=1e-12, atol=1e-13)
    assert_array_equal(pieces.support_sizes_, whole.support_sizes_)
    assert pieces.n_updates_ == whole.n_updates_


@pytest.mark.parametrize("kind, param", CASES + [("l2", 0.05), ("l1", 0.05)])
@pytest.mark.parametrize("sigma", [None, 0.01])
def test_averaged_matches_the_naive_average(kind, param, sigma):
    """Every write (scale_add, move_coord, rescale) keeps the average right."""
    X, y = stream(n=120, d=10, density=0.5, seed=5)
    learner = make(kind, param, truncate_sigma=sigma)
    est = clone(learner)
    total = np.zeros(X.shape[1])
    for t in range(X.shape[0]):
        est.partial_fit(X[t:t + 1], y[t:t + 1], classes=[-1, 1])
        total += est.coef_.ravel()
    averaged = Averaged(learner).fit(X, y)
    assert_allclose(averaged.coef_.ravel(), total / X.shape[0], rtol=1e-9,
                    atol=1e-12)
    assert_allclose(averaged.learner_.coef_, est.coef_, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("kind, beta", [("l2", 2.0), ("l1", 2.0)])
def test_iterates_stay_in_the_ball_and_reach_the_margin(kind, beta):
    X, y = stream(n=120, d=6, seed=6)
    size = np.linalg.norm if kind == "l2" else (lambda v: np.abs(v).sum())
    dual = np.linalg.norm if kind == "l2" else (lambda v: np.abs(v).max())
    est = make(kind, beta)
    n_checked = 0
    for t in range(X.shape[0]):
        before = est.n_updates_ if t else 0
        est.partial_fit(X[t:t + 1], y[t:t + 1], classes=[-1, 1])
        w = est.coef_.ravel()
        assert size(w) <= beta * (1 + 1e-12)
        if est.n_updates_ > before and beta * dual(X[t]) > 1:
            assert y[t] * (w @ X[t]) == pytest.approx(1.0, abs=1e-10)
            n_checked += 1
    assert n_checked > 20


@pytest.mark.parametrize("kind", ["l2", "l1"])
def test_an_infeasible_stream_follows_the_convention(kind):
    """beta ||x||_* < 1 on every round: max-margin point closest to w_t."""
    rng = np.random.default_rng(8)
    X = rng.standard_normal((40, 5))
    X[::3] = np.round(X[::3])           # ties in |x_j| for the L1 face
    X[np.all(X == 0, axis=1)] = 1.0
    y = np.where(rng.random(40) < 0.5, 1.0, -1.0)
    dual = np.linalg.norm if kind == "l2" else (lambda v: np.abs(v).max())
    beta = 0.9 / max(dual(x) for x in X)
    est = make(kind, beta, update_on="round")
    w = np.zeros(5)
    changed = 0
    for t in range(40):
        before = est.coef_.ravel().copy() if t else np.zeros(5)
        est.partial_fit(X[t:t + 1], y[t:t + 1], classes=[-1, 1])
        changed += not np.array_equal(est.coef_.ravel(), before)
        w, _ = constrained_step(w, X[t], y[t], beta, kind)
        assert_allclose(est.coef_.ravel(), w, atol=1e-12)
        # the largest margin the ball allows: beta ||x||_*
        assert y[t] * (w @ X[t]) == pytest.approx(beta * dual(X[t]), rel=1e-12)
    # n_updates_ counts the rounds that changed w (the L1 face can repeat w)
    assert est.n_updates_ == changed >= 36
    assert np.all(est.margins_[1:] < 1)


def test_objective_regularized_shrinks_every_round():
    X, y = stream(n=50, d=4, seed=9)
    alpha = 0.1
    est = ObjectiveRegularizedPA(alpha=alpha, update_on="round").fit(X, y)
    assert est.n_updates_ == 50        # w != 0 after round 0: every round moves w
    # a round with a large margin is a pure shrink
    w = est.coef_.ravel().copy()
    x = 10 * w / (w @ w)
    est.partial_fit(x[None, :], np.array([1.0]))
    assert_allclose(est.coef_.ravel(), w / (1 + alpha), rtol=1e-14)


def test_update_on_mistake_skips_correct_rounds():
    X, y = stream(n=200, d=6, seed=10)
    for kind, param in (("objective", 0.05), ("l2", 3.0), ("l1", 2.5)):
        est = make(kind, param, update_on="mistake").fit(X, y)
        wrong_or_tied = np.count_nonzero(est.margins_ <= 0)
        assert 0 < est.n_updates_ <= wrong_or_tied
        every = make(kind, param, update_on="round").fit(X, y)
        assert every.n_updates_ > est.n_updates_


def test_truncation_drops_at_most_sigma_per_update():
    X, y = stream(n=120, d=20, seed=11)
    sigma = 0.05
    for kind, param in (("objective", 0.05), ("l2", 3.0), ("l1", 2.5)):
        est = make(kind, param, truncate_sigma=sigma)
        plain = make(kind, param)
        for t in range(X.shape[0]):
            est.partial_fit(X[t:t + 1], y[t:t + 1], classes=[-1, 1])
            w = est.coef_.ravel()
            assert est.support_sizes_[-1] == np.count_nonzero(w)
        plain.fit(X, y)
        assert est.support_sizes_.mean() < np.count_nonzero(plain.coef_)


def test_truncate_sigma_zero_records_without_changing_the_model():
    X, y = stream(n=100, d=10, density=0.4, seed=12)
    for kind, param in (("objective", 0.05), ("l2", 3.0), ("l1", 2.5)):
        plain = make(kind, param).fit(X, y)
        counted = make(kind, param, truncate_sigma=0.0).fit(X, y)
        assert_array_equal(counted.coef_, plain.coef_)
        assert counted.support_sizes_.shape == (100,)
        assert counted.support_sizes_[-1] == np.count_nonzero(plain.coef_)


BAD_PARAMS = [
    (ObjectiveRegularizedPA, {"alpha": -0.1}),
    (ObjectiveRegularizedPA, {"alpha": np.nan}),
    (ObjectiveRegularizedPA, {"alpha": "0.1"}),
    (L2ConstrainedPA, {"beta": 0.0}),
    (L2ConstrainedPA, {"beta": np.inf}),
    (L1ConstrainedPA, {"beta": -1.0}),
    (L1ConstrainedPA, {"beta": True}),
    (L1ConstrainedPA, {"update_on": "always"}),
    (L2ConstrainedPA, {"truncate_sigma": -1e-3}),
    (ObjectiveRegularizedPA, {"truncate_sigma": np.nan}),
    (L1ConstrainedPA, {"n_epochs": 0}),
]


@pytest.mark.parametrize("cls, params", BAD_PARAMS)
def test_invalid_params_raise_value_error(cls, params):
    X, y = stream(n=10, d=3)
    (name, _), = params.items()
    with pytest.raises(ValueError, match=name):
        cls(**params).fit(X, y)
    with pytest.raises(ValueError, match=name):
        cls(**params).partial_fit(X, y)


def newsgroups_like_stream(n=3200, d=10000, nnz=100, seed=0):
    """0/1 rows, ~``nnz`` words each from a Zipf vocabulary, class-tilted."""
    rng = np.random.default_rng(seed)
    freq = 1.0 / np.arange(1, d + 1) ** 0.8
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    tilt = np.ones((2, d))
    words = rng.choice(d, 400, replace=False)
    tilt[0, words[:200]] = tilt[1, words[200:]] = 8.0
    rows = []
    for label in (0, 1):
        p = freq * tilt[label]
        p /= p.sum()
        count = int(np.count_nonzero((y > 0) == label))
        draws = rng.choice(d, size=(count, nnz), p=p)
        rows.append((np.flatnonzero((y > 0) == label), draws))
    data = np.zeros((n, d), dtype=bool)
    for index, draws in rows:
        data[index[:, None], draws] = True
    return sp.csr_matrix(data.astype(np.float64)), y


def test_l1_is_fast_on_a_newsgroups_sized_stream():
    """Paper: < 10 minutes for 3200 20 Newsgroups documents; target < 10 s."""
    X, y = newsgroups_like_stream()
    L1ConstrainedPA(beta=5.0).fit(X[:20], y[:20])          # compile
    start = time.perf_counter()
    est = L1ConstrainedPA(beta=5.0, update_on="round").fit(X, y)
    elapsed = time.perf_counter() - start
    assert elapsed < 10.0
    assert est.n_updates_ > 1000
    assert np.abs(est.coef_).sum() == pytest.approx(5.0)
    assert est.n_mistakes_ < 0.2 * X.shape[0]
