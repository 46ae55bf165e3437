"""Sigma stays symmetric positive definite over 10^5 updates on a real stream.

Raw spambase (57 features, values up to 15841, so Sigma's condition number
reaches about 1e9) is passed repeatedly, in order, until the learner has
made 100,000 updates; after every pass Sigma must be exactly symmetric and
Cholesky-factorisable with a positive smallest eigenvalue (full), or
positive (diagonal).
"""
import numpy as np
import pytest
from sklearn.preprocessing import MaxAbsScaler

from olearn import AROW, CW, SCW, datasets

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
