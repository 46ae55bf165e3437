"""Scoring from the stored model in O(nnz(x)) (issue 26, item 14).

``decision_function`` used to build the full coefficient vector on every
call (``coef_ = s v``; the running average; the vote; SparDCA's
soft-threshold; a copy of AROW's strided mean; SBCW's ``X[:, idx]``), so
scoring one sparse row cost O(d): 25-250 ms at d = 10^7.  CSR rows are now
scored from the stored representation, each weight of the row formed by
the operations numpy applied to the whole vector and summed in scipy's
order: the scores are bit for bit those of the old path.  Dense rows (O(d)
each anyway) keep the old path, BLAS on the full vector.

The cost is checked by counting, not timing: the minor page faults of one
call at d = 10^7.  A fresh 80 MB vector (the old ``coef_``) faults its
19,532 pages in, and reading a model vector that was never written (zeros
from ``calloc``) maps each page once; scoring a row of 20 nonzeros touches
a handful.
"""
import gc
import resource
import warnings
import weakref

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.utils.extmath import safe_sparse_dot

import olearn
from olearn.linear.winnow import WinnowClassifier

LINEAR = ["Perceptron", "PA", "ROMMA", "AggressiveROMMA", "ALMA", "NORMA",
          "ObjectiveRegularizedPA", "L2ConstrainedPA", "L1ConstrainedPA"]
WINNOWS = ["PositiveWinnow", "BalancedWinnow", "ModifiedBalancedWinnow"]
DIAGONAL = ["AROW", "NAROW", "CW", "SCW", "SOP"]


def make(name):
    """``name`` is a class of olearn, ``Averaged[weights](Learner)`` or
    ``AROW(diag)``."""
    if name.startswith("Averaged"):
        weights, inner = name[len("Averaged["):-1].split("](")
        return olearn.Averaged(getattr(olearn, inner)(), weights=weights)
    if name.endswith("(diag)"):
        return getattr(olearn, name[:-len("(diag)")])(covariance="diag")
    params = {"SBCW": dict(r=3), "SparDCA": dict(random_state=0, kappa=1e-3),
              "SOFS": dict(B=20)}.get(name, {})
    return getattr(olearn, name)(**params)


CASES = (LINEAR + WINNOWS + [f"{n}(diag)" for n in DIAGONAL] + DIAGONAL
         + ["SOFS", "SparDCA", "SBCW"]
         + [f"Averaged[{w}]({n})" for w in ("rounds", "correct")
            for n in ("Perceptron", "PA", "AggressiveROMMA") + tuple(WINNOWS)])


def stream(n=300, d=60, seed=0):
    """A non-negative CSR stream (every learner takes it), with explicit zeros."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.15, format="csr", random_state=seed,
                  data_rvs=lambda k: rng.exponential(size=k))
    X.data[::11] = 0.0
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    return X, y


def old_scores(est, X):
    """The scores as every learner computed them before: from the full vector."""
    if isinstance(est, olearn.Averaged) and isinstance(est.learner_, WinnowClassifier):
        return est.learner_._scores(X, *est.learner_._average_state())
    if isinstance(est, WinnowClassifier):
        return est._scores(X, est._m, est._e)
    if isinstance(est, olearn.SBCW):
        idx = est.selected_features_
        return X[:, idx] @ np.concatenate(est._mu_blocks)
    coef = est.coef_
    coef = coef.toarray() if sp.issparse(coef) else coef
    return safe_sparse_dot(X, np.ascontiguousarray(coef).ravel())


def fitted(name, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make(name).fit(X, y)


@pytest.mark.parametrize("name", CASES)
def test_scores_bit_identical_to_the_full_vector(name):
    """CSR (sorted or not, int32 or int64 indices, explicit zeros) and dense
    rows score bit for bit as CSR ``X @ coef_`` did (the vote, the test-time
    Winnow rule, SBCW's selected columns: each learner's former path)."""
    X, y = stream()
    est = fitted(name, X, y)
    test, _ = stream(n=80, seed=1)
    expected = old_scores(est, test)
    assert np.count_nonzero(expected) > 20
    assert_array_equal(est.decision_function(test), expected)
    wide = sp.csr_matrix((test.data, test.indices.astype(np.int64),
                          test.indptr.astype(np.int64)), shape=test.shape)
    assert_array_equal(est.decision_function(wide), expected)
    # dense rows: in the CSR order too (issue 36 item 6; BLAS's order, the
    # former dense path, depended on the layout and the number of rows)
    assert_array_equal(est.decision_function(test.toarray()), expected)
    # a partial_fit later (the lazy sums and the scale move on)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if hasattr(est, "partial_fit"):
            est.partial_fit(*stream(n=50, seed=2))
    assert_array_equal(est.decision_function(test), old_scores(est, test))


def test_sbcw_subset_scores_with_repeated_columns():
    """The subset kernel follows scipy's ``X[:, idx] @ mu`` also when a column
    appears twice in ``idx`` (added at each position, in argsort's order)."""
    from olearn._rows import csr_dot_subset, sparse_scores
    X, _ = stream(n=40, d=30, seed=3)
    idx = np.array([5, 2, 29, 5, 0, 17, 2, 11])
    mu = np.random.default_rng(3).standard_normal(idx.size)
    order = np.argsort(idx)
    assert_array_equal(sparse_scores(csr_dot_subset, X, idx[order], order, mu),
                       X[:, idx] @ mu)


def minor_faults(f):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    f()
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


D = 10 ** 7
PAGES = D * 8 // 4096        # 19,531 pages of 4 KiB in one vector of d floats


@pytest.fixture(scope="module")
def small_pages():
    """numpy asks for huge pages (2 MiB) for large arrays, which fault in
    512 at a time; counted in 4 KiB pages, a pass over d floats is 19,531."""
    try:
        from numpy._core.multiarray import _set_madvise_hugepage
    except ImportError:  # numpy < 2
        from numpy.core.multiarray import _set_madvise_hugepage
    before = _set_madvise_hugepage(False)
    yield
    _set_madvise_hugepage(before)


@pytest.fixture(scope="module")
def wide_stream(small_pages):
    rng = np.random.default_rng(0)
    n = 40
    cols = np.concatenate([np.sort(rng.choice(D, 20, replace=False)) for _ in range(n)])
    X = sp.csr_matrix((rng.random(cols.size) + 0.1, cols.astype(np.int32),
                       np.arange(0, 20 * n + 1, 20, dtype=np.int32)), shape=(n, D))
    y = np.where(np.arange(n) % 3 == 0, 1, -1)
    return X, y


def test_the_fault_count_sees_a_pass_over_the_features(small_pages):
    """The counter below is not vacuous on this host: a fresh d-vector
    faults in at least half its pages."""
    assert minor_faults(lambda: np.ones(D)) > PAGES // 2


@pytest.mark.parametrize("name", [c for c in CASES if c not in DIAGONAL])
def test_one_row_costs_no_pass_over_the_features(name, wide_stream):
    """Scoring one CSR row (20 nonzeros) at d = 10^7 takes fewer than 200
    minor page faults, where the former path (a d-vector built on every
    call) took about 19,500 or more."""
    X, y = wide_stream
    est = fitted(name, X, y)
    row = X[:1]
    est.decision_function(row)            # compiled and warm
    faults = minor_faults(lambda: est.decision_function(row))
    model = weakref.ref(est)
    del est                   # frees the 80 MB model at once, unless a reference cycle holds it
    if model() is not None:   # a full collection costs ~0.7 s in a worker's large heap
        gc.collect()
    assert faults < 200, faults
    print(f"{name}: {faults} faults")


def test_predict_one_row_benchmark_runs(capsys):
    """``benchmarks/predict_one_row.py`` runs (tiny sizes) and checks that the
    two paths it times give the same scores."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "predict_one_row.py"
    spec = importlib.util.spec_from_file_location("predict_one_row", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.main(["--dims", "1e3", "--rows", "2", "--repeats", "1", "--only",
                "Perceptron", "Averaged(MBW)", "SBCW"])
    out = capsys.readouterr().out
    assert "model name" not in out and "load average" in out
    assert out.count("| 1e+03 |") == 3
