"""The opt-in multi-threaded full-covariance sweep (``n_jobs``, ours).

``n_jobs=2`` must give the serial run's mistakes and its mean and covariance
up to rounding (only the order of the additions in ``Sigma x`` differs); the
default path (``n_jobs=None`` or ``1``) must stay bit-for-bit the serial
:func:`sweep` (checked against the serial pass ``full_pass`` called
directly); bad ``n_jobs`` is rejected; diagonal learners ignore it."""
import numba
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.utils.estimator_checks import parametrize_with_checks

from olearn import AROW, CW, NAROW, SCW, SOP
from olearn.base import compiled_rows
from olearn.second_order._passes import full_pass
from olearn.second_order._covariance_sweep import (STATE_SIZE, flush, sweep,
                                                  sweep_bounds, sweep_parallel)

LEARNERS = {
    "AROW": lambda **kw: AROW(r=0.5, **kw),
    "NAROW": lambda **kw: NAROW(b=2.0, **kw),
    "CW-variance": lambda **kw: CW(eta=0.9, **kw),
    "CW-stdev": lambda **kw: CW(eta=0.9, version="stdev", **kw),
    "SCW-I": lambda **kw: SCW(C=1.0, eta=0.9, **kw),
    "SCW-II": lambda **kw: SCW(C=1.0, eta=0.9, variant="II", **kw),
    "SOP": lambda **kw: SOP(a=1.0, **kw),
}
DIMS = [2, 3, 50, 301]      # even and odd d


def stream(d, n=120, seed=0):
    """Gaussian rows / sqrt(d), a noisy linear target, some zero rows and
    some sparse rows (so the CSR pass skips entries)."""
    rng = np.random.default_rng(seed + d)
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    X[rng.random((n, d)) < 0.3] = 0.0
    X[[0, 7, 8, n // 2]] = 0.0                       # rows of zeros
    w = rng.standard_normal(d)
    y = np.where(X @ w + 0.3 * rng.standard_normal(n) > 0, 1, -1)
    return X, y


def rel(a, b):
    """Largest entry of |a - b| relative to the largest entry of |a|."""
    scale = max(float(np.max(np.abs(a))), 1e-300)
    return float(np.max(np.abs(a - b))) / scale


@pytest.mark.parametrize("name", list(LEARNERS))
@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("csr", [False, True])
def test_two_threads_match_serial(name, d, csr):
    make = LEARNERS[name]
    X, y = stream(d)
    Xin = sp.csr_matrix(X) if csr else X
    serial = make().fit(Xin, y)
    for n_jobs in (2, -1):
        par = make(n_jobs=n_jobs).fit(Xin, y)
        assert_array_equal(par.mistakes_, serial.mistakes_)
        assert par.n_updates_ == serial.n_updates_
        assert rel(serial.coef_, par.coef_) <= 1e-10
        assert rel(serial.covariance_, par.covariance_) <= 1e-10
        assert_array_equal(par.covariance_, par.covariance_.T)


def reference_fit(make, Xin, y):
    """The serial pass :func:`full_pass` called directly on fresh state (no
    thread bounds: the serial sweep)."""
    est = make()
    n, d = Xin.shape
    S = est._sigma0() * np.eye(d)
    mu, p, s, xbuf = np.zeros(d), np.zeros(d), np.zeros(d), np.zeros(d)
    state = np.zeros(STATE_SIZE)
    mistakes = np.zeros(n, dtype=bool)
    margins = np.zeros(n)
    params = np.asarray(est._rule_params(), dtype=np.float64)
    full_pass(compiled_rows(Xin), y.astype(np.float64), mu, S, p, s, xbuf,
              state, mistakes, margins, est._rule, params,
              np.zeros(1, dtype=np.int64), np.empty((0, 0)))
    flush(S, p, state)                               # as covariance_ does
    return mistakes, mu, np.triu(S) + np.triu(S, 1).T


@pytest.mark.parametrize("name", list(LEARNERS))
@pytest.mark.parametrize("d", [3, 50, 301])
@pytest.mark.parametrize("csr", [False, True])
def test_default_is_the_serial_sweep_bit_for_bit(name, d, csr):
    """``sweep`` inlined in ``full_pass`` and ``sweep`` called from Python are
    compiled separately and may round differently (``reassoc``), so the
    reference is ``full_pass`` itself, called without thread bounds."""
    make = LEARNERS[name]
    X, y = stream(d, n=80, seed=1)
    Xin = sp.csr_matrix(X) if csr else X
    mistakes, mu, Sigma = reference_fit(make, Xin, y)
    for kw in ({}, {"n_jobs": None}, {"n_jobs": 1}):
        est = make(**kw).fit(Xin, y)
        assert_array_equal(est.mistakes_, mistakes)
        assert np.array_equal(est.coef_.ravel(), mu)         # bit-for-bit
        assert np.array_equal(est.covariance_, Sigma)
    # the two-thread run agrees up to rounding only
    par = make(n_jobs=2).fit(Xin, y)
    assert rel(par.covariance_, Sigma) <= 1e-10


@pytest.mark.parametrize("d", [1, 2, 3, 4, 9, 50, 301])
@pytest.mark.parametrize("n_chunks", [2, 3, 5])
@pytest.mark.parametrize("beta", [0.0, 0.7])
def test_sweep_parallel_kernel(d, n_chunks, beta):
    rng = np.random.default_rng(d)
    A = rng.standard_normal((d, d))
    S = np.triu(A @ A.T + d * np.eye(d))
    p = rng.standard_normal(d) / d
    x = rng.standard_normal(d)
    x[::4] = 0.0
    S1, S2 = S.copy(), S.copy()
    s1, s2 = np.full(d, np.nan), np.full(d, np.nan)
    # the pending step: beta, and the chi and gamma of its round
    # (beta = gamma / (1 + gamma chi), chi = 1)
    state = np.array([beta, 1.0, beta / (1.0 - beta)])
    sweep(S1, p, state, x, s1)
    bounds = sweep_bounds(d, n_chunks)
    assert bounds[0] == 0 and bounds[-1] == d // 2
    assert np.all(np.diff(bounds) >= 0)
    sweep_parallel(S2, p, state, x, s2, bounds, np.full((n_chunks, d), np.nan))
    assert_array_equal(S2, S1)                  # same operations per entry
    assert rel(s1, s2) <= 1e-12
    assert np.array_equal(np.tril(S2, -1), np.tril(S, -1))   # lower untouched


def test_chunks_balance_the_triangle():
    d, T = 2000, 2
    bounds = sweep_bounds(d, T)
    q = np.arange(d // 2)
    sizes = 2 * d - 1 - 4 * q
    per_chunk = [sizes[bounds[c]:bounds[c + 1]].sum() for c in range(T)]
    assert sum(per_chunk) == d * (d + 1) // 2 - (d % 2)
    assert max(per_chunk) - min(per_chunk) <= 2 * (2 * d)   # within a pair or so


def test_n_jobs_may_change_between_partial_fits_and_threads_restored():
    X, y = stream(50, n=100, seed=3)
    serial = AROW().fit(X, y)
    before = numba.get_num_threads()
    est = AROW()
    est.partial_fit(X[:40], y[:40], classes=[-1, 1])
    est.set_params(n_jobs=2)
    est.partial_fit(X[40:70], y[40:70])
    assert numba.get_num_threads() == before
    est.set_params(n_jobs=None)
    est.partial_fit(X[70:], y[70:])
    assert rel(serial.coef_, est.coef_) <= 1e-10
    assert rel(serial.covariance_, est.covariance_) <= 1e-10


def test_more_jobs_than_threads_is_capped():
    X, y = stream(50, n=60, seed=4)
    serial = SOP().fit(X, y)
    par = SOP(n_jobs=numba.config.NUMBA_NUM_THREADS + 3).fit(X, y)
    assert_array_equal(par.mistakes_, serial.mistakes_)
    assert rel(serial.covariance_, par.covariance_) <= 1e-10


@pytest.mark.parametrize("cls", [AROW, CW, SCW, SOP, NAROW])
def test_diag_ignores_n_jobs(cls):
    X, y = stream(50, n=80, seed=5)
    a = cls(covariance="diag").fit(sp.csr_matrix(X), y)
    b = cls(covariance="diag", n_jobs=2).fit(sp.csr_matrix(X), y)
    assert_array_equal(a.coef_, b.coef_)
    assert_array_equal(a.covariance_, b.covariance_)


@pytest.mark.parametrize("cls", [AROW, CW, SCW, SOP, NAROW])
@pytest.mark.parametrize("bad", [0, -2, 1.5, "2", True, np.nan])
@pytest.mark.parametrize("covariance", ["full", "diag"])
def test_bad_n_jobs(cls, bad, covariance):
    X, y = stream(3, n=10)
    with pytest.raises(ValueError, match="n_jobs must be"):
        cls(covariance=covariance, n_jobs=bad).fit(X, y)


@parametrize_with_checks([AROW(n_jobs=2), CW(n_jobs=2), SCW(variant="II", n_jobs=2),
                          SOP(n_jobs=-1), NAROW(n_jobs=2)])
def test_sklearn_checks_with_threads(estimator, check):
    check(estimator)
