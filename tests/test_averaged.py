"""Averaged (voted) learners against the average computed naively.

``Averaged(L)`` keeps ``(1/T) sum_t w_{t+1}`` lazily (``olearn.linear``).  The
naive value runs ``L`` itself with ``partial_fit`` one example at a time and
averages the ``coef_`` seen after every round; the two must agree for every
linear learner, on dense and CSR input, across several ``partial_fit`` calls
and through the rescaling path that folds an underflowing scale.  For the
Perceptron the average is also checked against Freund and Schapire's voted
Perceptron written out with its (hypothesis, survival count) pairs.
"""
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone

from olearn.linear.alma import ALMA
from olearn.linear.averaged import Averaged
from olearn.linear import SCALE
from olearn.linear.norma import NORMA
from olearn.linear.pa import PA
from olearn.linear.perceptron import Perceptron
from olearn.linear.romma import ROMMA, AggressiveROMMA

LEARNERS = {
    "Perceptron": Perceptron(),
    "PA": PA(),
    "PA-I": PA(C=0.3, variant="PA-I"),
    "PA-II": PA(C=0.3, variant="PA-II"),
    "PA(gamma, epsilon)": PA(gamma=0.5, epsilon=0.5),
    "ROMMA": ROMMA(),
    "AggressiveROMMA": AggressiveROMMA(),
    "ALMA2": ALMA(),
    "ALMA3": ALMA(p=3, alpha=0.7),
    "NORMA": NORMA(eta=0.2, lam=0.1),
    "NORMA(sqrt)": NORMA(eta=0.5, lam=0.5, schedule="sqrt"),
}
CHUNKS = ((0, 1), (1, 70), (70, 71), (71, 180), (180, 240))


def stream(n=240, d=40, density=0.2, seed=0):
    """Sparse Gaussian rows (row 5 empty) labelled by a hyperplane with 10% noise."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    X[5] = 0.0
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    y[rng.random(n) < 0.1] *= -1
    return X, y


def naive_average(learner, X, y):
    """Run ``learner`` one example at a time; average ``coef_`` after every round."""
    est = clone(learner)
    total = np.zeros(X.shape[1])
    for t in range(X.shape[0]):
        est.partial_fit(X[t:t + 1], y[t:t + 1], classes=[-1, 1])
        total += est.coef_.ravel()
    return total / X.shape[0], est


def averaged_in_chunks(learner, X, y):
    avg = Averaged(learner)
    for start, stop in CHUNKS:
        avg.partial_fit(X[start:stop], y[start:stop], classes=[-1, 1])
    return avg


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("name", LEARNERS)
def test_averaged_equals_naive_average(name, fmt):
    X, y = stream()
    if fmt == "csr":
        X = sp.csr_matrix(X)
    learner = LEARNERS[name]
    expected, last = naive_average(learner, X, y)
    avg = averaged_in_chunks(learner, X, y)
    assert avg.n_rounds_ == X.shape[0] and avg.n_updates_ > 10
    assert_allclose(avg.coef_.ravel(), expected, rtol=1e-10,
                    atol=1e-12 * np.abs(expected).max())
    # the wrapped learner ran unchanged: same last hypothesis, same record
    assert_allclose(avg.learner_.coef_, last.coef_, rtol=1e-12)
    assert_array_equal(avg.mistakes_, last.mistakes_)
    assert avg.n_updates_ == last.n_updates_
    assert_allclose(avg.decision_function(X), X @ expected, rtol=1e-9,
                    atol=1e-12 * np.abs(expected).max())
    # the average is not the last hypothesis (the comparison is not vacuous)
    assert not np.allclose(avg.coef_, last.coef_)


@pytest.mark.parametrize("name", LEARNERS)
def test_averaged_fit_equals_chunks_dense_and_csr(name):
    X, y = stream(seed=1)
    learner = LEARNERS[name]
    chunks = averaged_in_chunks(learner, X, y).coef_
    for X_in in (X, sp.csr_matrix(X)):
        assert_allclose(Averaged(learner).fit(X_in, y).coef_, chunks,
                        rtol=1e-10, atol=1e-14)


def voted_perceptron(X, y):
    """Freund and Schapire's voted Perceptron: pairs (v_k, c_k), c_k = rounds survived.

    Update rule as olearn's Perceptron (y v.x <= 0).  Returns sum_k c_k v_k / T.
    """
    hypotheses, counts = [np.zeros(X.shape[1])], [0]
    for x, yt in zip(X, y):
        v = hypotheses[-1]
        if yt * (v @ x) <= 0:
            hypotheses.append(v + yt * x)
            counts.append(1)
        else:
            counts[-1] += 1
    assert sum(counts) == len(y)
    return sum(c * v for c, v in zip(counts, hypotheses)) / len(y)


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_averaged_perceptron_is_the_voted_perceptron_average(fmt):
    X, y = stream(n=400, d=30, seed=2)
    expected = voted_perceptron(X, y)
    avg = Averaged(Perceptron())
    X_in = sp.csr_matrix(X) if fmt == "csr" else X
    for start, stop in ((0, 150), (150, 151), (151, 400)):
        avg.partial_fit(X_in[start:stop], y[start:stop], classes=[-1, 1])
    assert_allclose(avg.coef_.ravel(), expected, rtol=1e-12, atol=1e-13)
    assert_array_equal(avg.predict(X), np.where(X @ expected > 0, 1, -1))


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_averaged_through_scale_underflow(fmt):
    """NORMA with ``1 - eta lam = 0.05``: the scale of ``w = s v`` halves its
    exponent fast (0.05**500 ~ 1e-651), so :func:`olearn.linear.rescale` must fold
    it into ``v`` and restart the average's accumulators, several times per run.
    """
    X, y = stream(n=500, d=20, density=0.5, seed=3)
    learner = NORMA(eta=0.5, lam=1.9, rho=1.0)
    X_in = sp.csr_matrix(X) if fmt == "csr" else X
    expected, last = naive_average(learner, X_in, y)
    avg = Averaged(learner)
    for start, stop in ((0, 200), (200, 201), (201, 500)):
        avg.partial_fit(X_in[start:stop], y[start:stop], classes=[-1, 1])
    assert_allclose(avg.learner_.coef_, last.coef_, rtol=1e-12)
    assert_allclose(avg.coef_.ravel(), expected, rtol=1e-9,
                    atol=1e-12 * np.abs(expected).max())
    # unfolded, the scale would be 0.05**500; it is not, so the fold ran
    assert 0.05 ** 500 == 0.0
    assert 1e-100 <= avg.learner_._state[SCALE] <= 1.0
    assert np.abs(expected).max() > 0


def test_learner_change_between_partial_fit_calls_follows_the_meta_estimator_rule():
    # one rule for every meta-estimator (FeatureSelected, ExtremalFeatureSelection,
    # Averaged): another class is refused as a frozen parameter, an invalid learner
    # gets its validation message, the model is left as it was
    import pytest
    from olearn import PA, Averaged, Perceptron
    from olearn.base import FrozenParameterError

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = np.where(X[:, 0] > 0, 1, -1)
    model = Averaged(Perceptron()).partial_fit(X[:30], y[:30])
    coef = model.coef_.copy()
    model.set_params(learner=PA())
    with pytest.raises(FrozenParameterError, match="Perceptron to PA"):
        model.partial_fit(X[30:], y[30:])
    model.set_params(learner=3)
    with pytest.raises(ValueError, match="linear olearn learner"):
        model.partial_fit(X[30:], y[30:])
    np.testing.assert_array_equal(model.coef_, coef)
    model.set_params(learner=Perceptron())
    model.partial_fit(X[30:], y[30:])
    assert model.n_rounds_ == 60
