"""First-order learners of issue 3: ROMMA, aggressive ROMMA, ALMA_p(alpha), NORMA.

Each compiled learner is compared with a pure-numpy loop written here from the
paper's formulas (weights, mistakes, number of updates) on german.numer and on
a synthetic sparse stream; dense and CSR input give the same run; several
``partial_fit`` calls equal one ``fit``; bad parameters raise ``ValueError``;
scikit-learn's estimator checks pass (one documented exception).  ROMMA's
closed form is checked against its cvxpy program in ``tests/test_verify_romma.py``.
"""
import math
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.datasets import load_svmlight_file, make_blobs
from sklearn.preprocessing import StandardScaler
from sklearn.utils import shuffle as sk_shuffle
from sklearn.utils.estimator_checks import (check_classifiers_train,
                                            parametrize_with_checks)

from olearn.linear.alma import ALMA
from olearn.linear.norma import NORMA
from olearn.linear.romma import ROMMA, AggressiveROMMA, romma_coefficients

DATA_HOME = Path(os.environ.get("OLEARN_DATA_HOME", "/work/shared/datasets"))


# -- data -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def german():
    """german.numer (1000 x 24), every column scaled to [-1, 1] by its max |value|."""
    X, y = load_svmlight_file(str(DATA_HOME / "german.numer" / "german.numer.gz"),
                              n_features=24)
    X = X.toarray()
    return X / np.abs(X).max(axis=0), y


def sparse_stream(n=500, d=300, density=0.03, noise=0.05, seed=0):
    """CSR rows labelled by a sparse hyperplane, some labels flipped; row 7 is empty."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=rng,
                  data_rvs=rng.standard_normal)
    keep = np.ones(n)
    keep[7] = 0.0
    X = sp.csr_matrix(sp.diags(keep) @ X)
    X.eliminate_zeros()
    teacher = np.zeros(d)
    teacher[rng.choice(d, 30, replace=False)] = rng.standard_normal(30)
    y = np.where(X @ teacher > 0, 1.0, -1.0)
    y[rng.random(n) < noise] *= -1
    return X, y


@pytest.fixture(scope="module")
def sparse():
    return sparse_stream()


# -- pure-numpy references (dense vectors, every norm recomputed) -------------------
def ref_romma(X, y, aggressive):
    """Li and Long's ROMMA / aggressive ROMMA, eqs. 2-3 of Carvalho and Cohen."""
    w = np.zeros(X.shape[1])
    mistakes, updates = [], 0
    for x, yt in zip(X, y):
        s = w @ x
        mistakes.append((s > 0) != (yt > 0))
        if not ((yt * s < 1) if aggressive else (yt * s <= 0)) or not x.any():
            continue
        xx, ww = x @ x, w @ w
        denom = xx * ww - s * s
        if yt * s >= xx * ww or denom <= 1e-12 * xx * ww:
            w = yt * x / xx
        else:
            w = ((xx * ww - yt * s) * w + ww * (yt - s) * x) / denom
        updates += 1
    return w, np.array(mistakes), updates


def pnorm(v, p):
    return np.sum(np.abs(v) ** p) ** (1.0 / p)


def link(v, r):
    """Gradient of (1/2)||v||_r^2: sign(v) |v|^{r-1} / ||v||_r^{r-2} (0 at v = 0)."""
    n = pnorm(v, r)
    return np.zeros_like(v) if n == 0 else np.sign(v) * np.abs(v) ** (r - 1) / n ** (r - 2)


def ref_alma(X, y, p=2.0, alpha=0.9, B=None, C=None):
    """Gentile's ALMA_p(alpha; B, C), Figure 1, with the links written from w."""
    B = 1.0 / alpha if B is None else B
    C = math.sqrt(2.0) if C is None else C
    q = p / (p - 1.0)
    w = np.zeros(X.shape[1])
    k, mistakes, updates = 1, [], 0
    for x, yt in zip(X, y):
        s = w @ x
        mistakes.append((s > 0) != (yt > 0))
        nx = pnorm(x, p)
        if nx == 0:
            continue
        gamma = B * math.sqrt(p - 1) / math.sqrt(k)
        eta = C / (math.sqrt(p - 1) * math.sqrt(k))
        if yt * s / nx <= (1 - alpha) * gamma:
            w_prime = link(link(w, q) + eta * yt * x / nx, p)   # f^{-1}(f(w) + ...)
            w = w_prime / max(1.0, pnorm(w_prime, q))
            k += 1
            updates += 1
    return w, np.array(mistakes), updates


def ref_norma(X, y, eta=0.1, lam=0.01, rho=1.0, schedule="constant"):
    """Kivinen, Smola and Williamson's NORMA, soft-margin loss, as a weight vector."""
    w = np.zeros(X.shape[1])
    mistakes, updates = [], 0
    for t, (x, yt) in enumerate(zip(X, y), start=1):
        s = w @ x
        mistakes.append((s > 0) != (yt > 0))
        eta_t = eta / math.sqrt(t) if schedule == "sqrt" else eta
        sigma = 1.0 if yt * s < rho else 0.0
        w_new = (1 - eta_t * lam) * w + eta_t * sigma * yt * x
        updates += int(not np.array_equal(w_new, w))   # rounds that changed w
        w = w_new
    return w, np.array(mistakes), updates


CASES = {
    "ROMMA": (ROMMA(), lambda X, y: ref_romma(X, y, aggressive=False)),
    "AggressiveROMMA": (AggressiveROMMA(), lambda X, y: ref_romma(X, y, aggressive=True)),
    "ALMA2(0.9)": (ALMA(), ref_alma),
    "ALMA2(0.5;B=2,C=1)": (ALMA(alpha=0.5, B=2.0, C=1.0),
                           lambda X, y: ref_alma(X, y, alpha=0.5, B=2.0, C=1.0)),
    "ALMA3(0.9)": (ALMA(p=3), lambda X, y: ref_alma(X, y, p=3.0)),
    "ALMA7.5(0.7)": (ALMA(p=7.5, alpha=0.7), lambda X, y: ref_alma(X, y, p=7.5, alpha=0.7)),
    "NORMA": (NORMA(), ref_norma),
    "NORMA(sqrt)": (NORMA(eta=0.5, lam=0.1, rho=0.5, schedule="sqrt"),
                    lambda X, y: ref_norma(X, y, 0.5, 0.1, 0.5, "sqrt")),
}


def assert_matches_reference(est, reference, X, y):
    w_ref, mistakes_ref, updates_ref = reference(X, y)
    assert_array_equal(est.mistakes_, mistakes_ref)
    assert est.n_updates_ == updates_ref
    assert est.n_mistakes_ == mistakes_ref.sum()
    assert_allclose(est.coef_.ravel(), w_ref, rtol=1e-8,
                    atol=1e-10 * max(1.0, np.abs(w_ref).max()))


@pytest.mark.parametrize("name", CASES)
def test_matches_reference_german(name, german):
    X, y = german
    est, reference = CASES[name]
    est = clone(est).fit(X, y)
    assert est.n_updates_ > 100          # the run exercises the update
    assert_matches_reference(est, reference, X, y)


@pytest.mark.parametrize("name", CASES)
def test_matches_reference_sparse(name, sparse):
    X, y = sparse
    est, reference = CASES[name]
    est = clone(est).fit(X, y)
    assert_matches_reference(est, reference, X.toarray(), y)


@pytest.mark.parametrize("name", CASES)
def test_dense_and_csr_give_the_same_run(name, german, sparse):
    est = CASES[name][0]
    for X, y in (german, sparse):
        X_csr, X_dense = sp.csr_matrix(X), (X.toarray() if sp.issparse(X) else X)
        dense, csr = clone(est).fit(X_dense, y), clone(est).fit(X_csr, y)
        assert_array_equal(dense.mistakes_, csr.mistakes_)
        assert_array_equal(dense.margins_, csr.margins_)
        assert dense.n_updates_ == csr.n_updates_
        assert_allclose(dense.coef_, csr.coef_, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", CASES)
def test_partial_fit_chunks_equal_one_fit(name, german):
    """State that lives across calls (ALMA's k, NORMA's t, ||w||^2) carries over."""
    X, y = german
    est = CASES[name][0]
    whole = clone(est).fit(X, y)
    parts = clone(est)
    for start, stop in ((0, 1), (1, 250), (250, 251), (251, 1000)):
        parts.partial_fit(X[start:stop], y[start:stop], classes=[-1, 1])
    assert_array_equal(parts.mistakes_, whole.mistakes_)
    assert_allclose(parts.coef_, whole.coef_, rtol=1e-12)


def test_two_epochs_continue_the_run(german):
    """n_epochs=2 is the stream passed twice: NORMA's eta/sqrt(t) keeps counting."""
    X, y = german
    twice = NORMA(eta=0.5, lam=0.1, schedule="sqrt", n_epochs=2).fit(X, y)
    w_ref, mistakes_ref, _ = ref_norma(np.vstack([X, X]), np.concatenate([y, y]),
                                       0.5, 0.1, 1.0, "sqrt")
    assert_array_equal(twice.mistakes_, mistakes_ref)
    assert_allclose(twice.coef_.ravel(), w_ref, rtol=1e-9)


def test_romma_zero_row_and_first_update():
    est = ROMMA().partial_fit(np.zeros((1, 3)), [1], classes=[-1, 1])
    assert est.n_updates_ == 0 and not est.coef_.any()
    x = np.array([[3.0, 0.0, 4.0]])
    est.partial_fit(x, [-1])
    assert_allclose(est.coef_, -x / 25.0)        # y x / ||x||^2: y w.x = 1
    assert romma_coefficients(0.0, 0.0, 1.0, 1.0) == (1.0, 0.0)


# -- ALMA specifics -----------------------------------------------------------------
@pytest.mark.parametrize("p", [2, 3, 7.5])
def test_alma_stays_in_the_unit_q_ball_and_counts_k(p, sparse):
    X, y = sparse
    X = X[:200]
    est = ALMA(p=p)
    q = p / (p - 1.0)
    for t in range(X.shape[0]):
        est.partial_fit(X[t], y[t:t + 1], classes=[-1, 1])
        assert pnorm(est.coef_.ravel(), q) <= 1.0 + 1e-12
    assert est.k_ == est.n_updates_ + 1
    assert est.n_updates_ > 50


def test_alma_skips_zero_rows():
    est = ALMA().partial_fit(np.zeros((3, 4)), [1, -1, 1], classes=[-1, 1])
    assert est.n_updates_ == 0 and est.k_ == 1 and not est.coef_.any()


# -- NORMA specifics ----------------------------------------------------------------
def test_norma_shrinks_every_round():
    """With no loss (y w.x >= rho) a round is w <- (1 - eta lam) w exactly."""
    est = NORMA(eta=0.5, lam=0.2, rho=1.0)
    est.partial_fit(np.array([[2.0, 0.0]]), [1], classes=[-1, 1])     # w = (1, 0)
    assert_allclose(est.coef_, [[1.0, 0.0]])
    est.partial_fit(np.array([[5.0, 0.0], [5.0, 0.0]]), [1, 1])       # margins 5, 4.5
    assert est.n_updates_ == 3        # the two shrinks change w too
    assert_allclose(est.coef_, [[0.81, 0.0]])


# -- parameters ---------------------------------------------------------------------
BAD_PARAMS = [
    (ALMA, {"p": 1.5}, r"p must be in \[2, 100\]"),
    (ALMA, {"p": "2"}, "p must be"),
    (ALMA, {"alpha": 0.0}, "alpha must be"),
    (ALMA, {"alpha": 1.5}, r"alpha must be in \(0, 1\]"),
    (ALMA, {"alpha": np.nan}, "alpha must be"),
    (ALMA, {"B": -1.0}, "B must be"),
    (ALMA, {"C": 0.0}, "C must be"),
    (NORMA, {"eta": 0.0}, "eta must be"),
    (NORMA, {"eta": -1.0}, "eta must be"),
    (NORMA, {"lam": -0.1}, "lam must be"),
    (NORMA, {"rho": 0.0}, "rho must be"),
    (NORMA, {"eta": 2.0, "lam": 0.5}, "eta \\* lam must be < 1"),
    (NORMA, {"schedule": "linear"}, "schedule must be"),
    (ROMMA, {"n_epochs": 0}, "n_epochs must be"),
    (AggressiveROMMA, {"n_epochs": 1.5}, "n_epochs must be"),
]


@pytest.mark.parametrize("cls, params, message", BAD_PARAMS)
def test_invalid_parameters_raise_value_error(cls, params, message):
    X, y = np.eye(3), np.array([1, -1, 1])
    with pytest.raises(ValueError, match=message):
        cls(**params).fit(X, y)
    with pytest.raises(ValueError, match=message):
        cls(**params).partial_fit(X, y)


# -- scikit-learn ---------------------------------------------------------------------
ROMMA_BLOBS_REASON = (
    "ROMMA and aggressive ROMMA (one pass, no bias) classify exactly 166 of the "
    "200 training points of this check, accuracy 0.830, and the check requires "
    "> 0.83; test_romma_blobs_accuracy pins this down")


def expected_failed_checks(estimator):
    if isinstance(estimator, ROMMA):
        return {"check_classifiers_train": ROMMA_BLOBS_REASON}
    return {}


@parametrize_with_checks(
    [ROMMA(), AggressiveROMMA(), ALMA(), ALMA(p=3), NORMA(),
     NORMA(schedule="sqrt")],
    expected_failed_checks=expected_failed_checks, xfail_strict=True)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_romma_blobs_accuracy():
    """The exempted check: its binary blobs give ROMMA 166/200 = 0.830, not > 0.83."""
    X, y = make_blobs(n_samples=300, random_state=0)
    X, y = sk_shuffle(X, y, random_state=7)
    X = StandardScaler().fit_transform(X)
    X, y = X[y != 2], y[y != 2]
    for est in (ROMMA(), AggressiveROMMA()):
        assert est.fit(X, y).score(X, y) == pytest.approx(0.83)
        with pytest.raises(AssertionError):
            check_classifiers_train(type(est).__name__, est)


def test_paired_difference_on_a_small_table():
    import pandas as pd

    from olearn.experiments.duol_baselines import paired_difference

    # a is 1 point better on every permutation but one, where it is 1 point worse
    rows = []
    for perm, (ra, rb) in enumerate([(0.10, 0.11), (0.20, 0.21), (0.30, 0.31), (0.40, 0.39),
                                     (0.15, 0.16)]):
        rows += [{"learner": "a", "permutation": perm, "mistake_rate": ra},
                 {"learner": "b", "permutation": perm, "mistake_rate": rb}]
    d = paired_difference(pd.DataFrame(rows), "a", "b")
    diffs = np.array([-1.0, -1.0, -1.0, 1.0, -1.0])
    assert d["mean"] == pytest.approx(diffs.mean())
    from scipy import stats
    half = stats.t.ppf(0.975, 4) * diffs.std(ddof=1) / np.sqrt(5)
    assert d["low"] == pytest.approx(diffs.mean() - half) and d["high"] == pytest.approx(diffs.mean() + half)
    assert (d["wins"], d["ties"], d["losses"], d["n"]) == (4, 0, 1, 5)
    assert not d["below_zero"] and not d["above_zero"]         # the interval contains 0
    with pytest.raises(ValueError, match="no learner"):
        paired_difference(pd.DataFrame(rows), "a", "c")
