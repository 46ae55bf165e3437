"""olearn.bounds.kernel_regret_lemma: the OMD lemma in the RKHS and weak duality on kernel runs."""
import numpy as np
import pytest

from olearn import DUOL, PA, KernelPA, KernelPerceptron, Perceptron
from olearn.bounds import kernel_regret_lemma, regret_lemma, svm_dual_competitor


@pytest.fixture(scope="module")
def stream():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 3))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=150) > 0, 1, -1)
    return X, y


@pytest.fixture(scope="module")
def beta(stream):
    X, y = stream
    return svm_dual_competitor(X, y, 5.0, sigma=1.0)


@pytest.mark.parametrize("learner", [
    KernelPerceptron(sigma=1.0), KernelPA(C=0.5, sigma=1.0),
    KernelPA(C=0.5, variant="PA-II", sigma=1.0), KernelPA(variant="PA", sigma=1.0),
    DUOL(C=5.0, rho=0.2, sigma=1.0), DUOL(C=1.5, rho=0.5, sigma=1.0)],
    ids=lambda learner: repr(learner))
def test_the_lemma_and_weak_duality_on_kernel_runs(stream, beta, learner):
    X, y = stream
    run = learner.fit(X, y)
    check = kernel_regret_lemma(run, X, y, beta)
    t = check.terms
    assert t["max_coef_diff"] == 0.0 and t["updates"] == run.n_support_
    assert t["identity_gap"] < 1e-9 * max(1.0, abs(check.observed))
    assert check.holds                                   # no projection: the lemma holds
    # the dual ascent view: the gains add up to D, which is the telescoped lemma ...
    assert np.isclose(t["sum_of_gains"], t["dual"], rtol=1e-9, atol=1e-9)
    assert np.isclose(t["dual"], t["initial"] - t["final"] + t["competitor_term"], rtol=1e-9)
    # ... and weak duality D <= P(u) with the run's box
    assert t["min_gamma"] >= 0 and t["max_gamma"] <= t["C"] + 1e-12
    assert t["dual"] <= t["primal"] + 1e-9
    if isinstance(run, DUOL):
        assert np.isclose(t["dual"], run.dual_objective_, rtol=1e-9)
        assert t["C"] == run.C
    if isinstance(run, KernelPerceptron):
        assert np.isclose(t["stability"], 0.5 * t["updates"])   # k(x, x) = 1, one step of 1


def test_the_linear_kernel_is_the_linear_lemma(stream, beta):
    # with the linear kernel the RKHS is R^d and u = X' beta: the same terms as regret_lemma
    X, y = stream
    u = X.T @ beta
    for kernel_run, linear_run in (
            (KernelPerceptron(kernel="linear").fit(X, y), Perceptron().fit(X, y)),
            (KernelPA(C=0.5, variant="PA-I", kernel="linear").fit(X, y),
             PA(C=0.5, variant="PA-I").fit(X, y))):
        kernel = kernel_regret_lemma(kernel_run, X, y, beta).terms
        linear = regret_lemma(linear_run, X, y, u).terms
        for key in ("linear_regret", "initial", "final", "stability"):
            assert np.isclose(kernel[key], linear[key], rtol=1e-8, atol=1e-8), key


def test_what_is_not_covered_is_refused(stream, beta):
    X, y = stream
    with pytest.raises(TypeError, match="KernelPerceptron, KernelPA and DUOL"):
        kernel_regret_lemma(Perceptron().fit(X, y), X, y, beta)
    with pytest.raises(ValueError, match="budget"):
        kernel_regret_lemma(KernelPA(sigma=1.0, max_support=20).fit(X, y), X, y, beta)
    run = DUOL(sigma=1.0).fit(X, y)
    with pytest.raises(ValueError, match="not the run"):
        kernel_regret_lemma(run, X[::-1], y[::-1], beta)
    with pytest.raises(ValueError, match="one coefficient per row"):
        kernel_regret_lemma(run, X, y, beta[:-1])
