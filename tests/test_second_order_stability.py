"""Sigma stays symmetric positive definite over 10^5 updates on a real stream.

Raw spambase (57 features, values up to 15841, so Sigma's condition number
reaches about 1e9) is passed repeatedly, in order, until the learner has
made 100,000 updates; after every pass Sigma must be exactly symmetric and
Cholesky-factorisable with a positive smallest eigenvalue (full), or
positive (diagonal).
"""
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.preprocessing import MaxAbsScaler

from olearn import AROW, CW, SCW, datasets
from olearn.base import compiled_rows

N_UPDATES = 100_000


@pytest.fixture(scope="module")
def spambase():
    return datasets.load("spambase")


@pytest.mark.parametrize("make", [lambda: AROW(), lambda: SCW(C=0.5)],
                         ids=["AROW", "SCW-I"])
def test_full_sigma_spd_over_1e5_updates(spambase, make):
    X, y = spambase
    est = make()
    smallest = []
    while est.n_updates_ if hasattr(est, "n_updates_") else True:
        est.partial_fit(X, y, classes=[0, 1])
        S = est.covariance_
        assert np.array_equal(S, S.T)
        np.linalg.cholesky(S)
        smallest.append(np.linalg.eigvalsh(S)[0])
        assert smallest[-1] > 0
        if est.n_updates_ >= N_UPDATES:
            break
    assert est.n_updates_ >= N_UPDATES
    assert np.isfinite(est.coef_).all()
    # Sigma's eigenvalues only shrink (eqs. 8-9): the smallest one decreases
    assert smallest[-1] < smallest[0] and smallest[-1] > 0


@pytest.mark.parametrize("make, scaled", [
    (lambda: AROW(covariance="diag"), False),
    (lambda: SCW(covariance="diag", diagonal="covariance"), False),
    (lambda: CW(covariance="diag"), True)],
    ids=["AROW", "SCW-I-covariance-projection", "CW-maxabs-scaled"])
def test_diag_sigma_positive_over_1e5_updates(spambase, make, scaled):
    X, y = spambase
    if scaled:
        X = MaxAbsScaler().fit_transform(X)
    est = make()
    while True:
        est.partial_fit(X, y, classes=[0, 1])
        assert (est.covariance_ > 0).all()
        if est.n_updates_ >= N_UPDATES:
            break
    assert np.isfinite(est.coef_).all()


def test_variance_cw_overflow_on_raw_spambase_is_a_clear_error(spambase):
    """Diagonal variance CW drives some variances to ~1e-306 on the raw
    features (values up to 15841); the round that then asks for a margin
    needs alpha ~ |M| / V, which overflows.  The learner stops and says so
    instead of filling the model with NaN."""
    X, y = spambase
    est = CW(covariance="diag")
    with pytest.raises(FloatingPointError, match="Scale the features"):
        for _ in range(30):
            est.partial_fit(X, y, classes=[0, 1])
    assert np.isfinite(est.coef_).all() and (est.covariance_ >= 0).all()


def noisy_gaussian_stream(n=100_000, d=50, noise=0.1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) > 0, 1.0, -1.0)
    clean = y.copy()
    y[rng.random(n) < noise] *= -1
    return X, y, clean


def test_exact_cw_full_renormalises_and_finishes_a_noisy_stream():
    """Exact (stdev) CW shrinks mu and Sigma together under label noise; left
    alone (renormalisation off: the pass called with threshold 0) the step
    overflows after some 35,000 rounds of 100,000.  The learner rescales by
    powers of two, so it finishes, and on the prefix the unrescaled rule
    covered its mistakes are the same and its margins are the unrescaled
    ones times a power of two (exactly while the latter are normal floats)."""
    from olearn.second_order._passes import full_pass
    X, y, _ = noisy_gaussian_stream()
    est = CW(version="stdev").fit(X, y)
    assert est.n_rounds_ == len(y)
    assert np.isfinite(est.coef_).all() and np.abs(est.coef_).max() > 0
    ref = CW(version="stdev")
    ref._check_params()
    ref._init_state(X.shape[1])
    mistakes, margins = np.zeros(len(y), dtype=bool), np.zeros(len(y))
    params = np.array([ref._rule_params()[0], 0.0])   # renormalisation off
    _, t0, _ = full_pass(compiled_rows(X), y, ref._mu, ref._Sigma, ref._p, ref._s, ref._xbuf,
                         ref._state, mistakes, margins, ref._rule, params,
                         np.zeros(1, dtype=np.int64), np.empty((0, 0)))
    assert 20_000 < t0 < len(y)
    assert_array_equal(est.mistakes_[:t0], mistakes[:t0])
    nonzero = margins[:t0] != 0
    log2 = np.log2(est.margins_[:t0][nonzero] / margins[:t0][nonzero])
    assert log2.max() > 100                      # it did rescale
    head = int(0.95 * log2.size)                 # the reference still normal
    assert_array_equal(log2[:head], np.round(log2[:head]))
    assert_allclose(log2, np.round(log2), atol=1e-6)


def test_exact_cw_diagonal_error_says_the_rule_diverges():
    """The diagonal projection of exact CW diverges on noise-free standard
    normal rows (no scale problem): the error says so and names what works."""
    X, _, y = noisy_gaussian_stream(n=2_000)
    with pytest.raises(FloatingPointError, match="diverges whatever the scale") \
            as error:
        CW(version="stdev", covariance="diag").fit(X, y)
    assert "Scale the features" not in str(error.value)
    assert "version='variance'" in str(error.value)
    for works in (CW(covariance="diag"), AROW(covariance="diag"),
                  SCW(covariance="diag"), CW(version="stdev")):
        assert works.fit(X, y).n_rounds_ == len(y)
