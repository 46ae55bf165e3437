"""KernelAROW (olearn/kernel/arow.py): equals linear AROW with the linear kernel."""
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.utils.estimator_checks import parametrize_with_checks

from olearn import AROW
from olearn.kernel.arow import KernelAROW


@parametrize_with_checks([KernelAROW()])
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
    assert ker.n_updates_ == lin.n_updates_ == len(ker.dual_coef_)
    mu = ker.support_vectors_.T @ ker.dual_coef_
    assert_allclose(mu, lin.coef_.ravel(), rtol=1e-9, atol=1e-10)
    Xt, _ = stream(n=50, seed=1)
    assert_allclose(ker.decision_function(Xt), lin.decision_function(Xt), rtol=1e-9, atol=1e-10)
    sparse = KernelAROW(r=r, a=a, kernel="linear").fit(sp.csr_matrix(X), y)
    assert_allclose(sparse.margins_, ker.margins_, rtol=1e-12, atol=1e-12)


def test_bad_kernel_parameters():
    X, y = stream(n=20)
    for bad in (KernelAROW(r=0), KernelAROW(kernel="sigmoid"), KernelAROW(gamma=-1),
                KernelAROW(degree=0), KernelAROW(a=0)):
        with pytest.raises(ValueError):
            bad.fit(X, y)
