"""olearn's Perceptron, PA-I and PA-II are scikit-learn's, round by round.

scikit-learn's ``Perceptron`` (no intercept, no shuffle, one epoch) and
``SGDClassifier(loss="hinge", penalty=None, learning_rate="pa1"/"pa2",
eta0=C)`` run the same online rules as olearn's ``Perceptron`` and
``PA(variant="PA-I"/"PA-II", C=C)``.  Fed the same stream, they must end with
the same weights and make the same mistakes on the same rounds.

scikit-learn does not record per-round mistakes, so we rebuild them: feed it
one example at a time with ``partial_fit`` and ask ``predict`` before each
call (after first checking that this sequence ends where its one-pass ``fit``
does).  That costs about a millisecond a round, so round-by-round mistakes are
compared on streams of ``N_ROUNDS`` rows; final weights on the full data sets.

Data: german.numer (dense, standardised), w7a (sparse binary, 300 features)
from the data home (``OLEARN_DATA_HOME``, else the shared data folder beside
the repository), and synthetic dense and sparse streams.
"""
import os
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.linear_model import SGDClassifier
from sklearn.preprocessing import StandardScaler

from olearn import PA, Perceptron, datasets

N_ROUNDS = 100
RTOL = 1e-12
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def data_home():
    """``OLEARN_DATA_HOME`` if set (olearn.datasets reads it), else the shared folder."""
    if os.environ.get("OLEARN_DATA_HOME") or not SHARED_DATA.is_dir():
        return None
    return SHARED_DATA


# -- the learners, in olearn and in scikit-learn ----------------------------------
def sklearn_perceptron():
    return SklearnPerceptron(penalty=None, eta0=1.0, fit_intercept=False,
                             shuffle=False, max_iter=1, tol=None)


def sklearn_pa(learning_rate, C):
    return SGDClassifier(loss="hinge", penalty=None, learning_rate=learning_rate,
                         eta0=C, fit_intercept=False, shuffle=False,
                         max_iter=1, tol=None)


def pa_pair(variant, learning_rate, C):
    return (lambda: PA(C=C, variant=variant),
            lambda: sklearn_pa(learning_rate, C))


PAIRS = {"Perceptron": (Perceptron, sklearn_perceptron)}
for _C in (0.01, 1.0, 10.0):
    PAIRS[f"PA-I C={_C:g}"] = pa_pair("PA-I", "pa1", _C)
    PAIRS[f"PA-II C={_C:g}"] = pa_pair("PA-II", "pa2", _C)
ONE_EACH = ["Perceptron", "PA-I C=1", "PA-II C=1"]


# -- the streams ------------------------------------------------------------------
def german():
    ds = datasets.load("german.numer", data_home=data_home())
    return StandardScaler().fit_transform(ds.X.toarray()), ds.y


def w7a():
    ds = datasets.load("w7a", data_home=data_home())
    return sp.csr_matrix(ds.X), ds.y


def sample_with_positives(X, y, n, seed=0):
    """``n`` rows drawn in a seeded order, a third of them positive.

    (w7a begins with hundreds of negatives and is 3% positive overall.)
    """
    rng = np.random.default_rng(seed)
    pos = rng.choice(np.flatnonzero(y > 0), n // 3, replace=False)
    neg = rng.choice(np.flatnonzero(y < 0), n - n // 3, replace=False)
    rows = rng.permutation(np.concatenate([pos, neg]))
    return X[rows], y[rows]


def row_norms(n, rng):
    """Log-uniform row norms in [0.05, 2]: the PA-I cap binds at every C tested."""
    return np.exp(rng.uniform(np.log(0.05), np.log(2.0), n))


def synthetic_dense(n=N_ROUNDS, d=20, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X *= (row_norms(n, rng) / np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    y[rng.random(n) < 0.1] *= -1
    return X, y


def synthetic_sparse(n=N_ROUNDS, d=500, density=0.02, seed=1):
    """Text-like: positive counts on few columns, rows rescaled; two empty rows.

    The rows come out with unsorted column indices: olearn sorts them (and sums
    duplicates) first, scikit-learn sums in stored order, so here the weights
    agree to rounding rather than bit for bit.
    """
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=seed,
                  data_rvs=lambda k: rng.integers(1, 4, k).astype(float))
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    scale = row_norms(n, rng) / np.maximum(norms, 1e-300)
    scale[[7, 40]] = 0.0
    X = sp.csr_matrix(sp.diags(scale) @ X)
    X.eliminate_zeros()
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    y[rng.random(n) < 0.1] *= -1
    return X, y


@pytest.fixture(scope="module")
def full_streams():
    return {"german.numer (dense)": german(), "w7a (CSR)": w7a(),
            "german.numer (CSR)": tuple_csr(german())}


def tuple_csr(Xy):
    return sp.csr_matrix(Xy[0]), Xy[1]


SHORT_STREAMS = ["german.numer (dense)", "w7a (CSR)", "synthetic (dense)", "synthetic (CSR)"]


@pytest.fixture(scope="module")
def short_streams(full_streams):
    X, y = full_streams["german.numer (dense)"]
    return {
        "german.numer (dense)": (X[:N_ROUNDS], y[:N_ROUNDS]),
        "w7a (CSR)": sample_with_positives(*full_streams["w7a (CSR)"], N_ROUNDS),
        "synthetic (dense)": synthetic_dense(),
        "synthetic (CSR)": synthetic_sparse(),
    }


# -- scikit-learn, one example at a time ------------------------------------------
def fit_quietly(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one epoch with tol=None "did not converge"
        return est.fit(X, y)


def sklearn_mistakes(make_peer, X, y):
    """Per-round mistakes of scikit-learn, fed one example at a time."""
    classes = np.unique(y)
    peer = make_peer()
    mistakes = np.zeros(len(y), dtype=bool)
    with sklearn.config_context(skip_parameter_validation=True):
        for t in range(len(y)):
            if t == 0:  # w = 0 scores 0, which predicts classes[0]
                predicted = classes[0]
            else:
                predicted = peer.predict(X[t:t + 1])[0]
            mistakes[t] = predicted != y[t]
            peer.partial_fit(X[t:t + 1], y[t:t + 1], classes=classes)
    return peer, mistakes


def relative_tolerance(reference):
    return dict(rtol=RTOL, atol=RTOL * np.max(np.abs(reference)))


ROUND_BY_ROUND = [(stream, pair) for stream in SHORT_STREAMS for pair in PAIRS]


@pytest.mark.parametrize("stream, pair", ROUND_BY_ROUND)
def test_same_mistakes_round_by_round(short_streams, stream, pair):
    X, y = short_streams[stream]
    make_ours, make_peer = PAIRS[pair]
    peer, peer_mistakes = sklearn_mistakes(make_peer, X, y)
    one_pass = fit_quietly(make_peer(), X, y)
    assert_array_equal(peer.coef_, one_pass.coef_)  # the rebuild is sklearn's own pass

    ours = make_ours().fit(X, y)
    assert 0 < ours.n_mistakes_ < len(y)
    assert_array_equal(ours.mistakes_, peer_mistakes)
    assert_allclose(ours.coef_, one_pass.coef_, **relative_tolerance(one_pass.coef_))


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("stream", ["german.numer (dense)", "german.numer (CSR)", "w7a (CSR)"])
def test_same_weights_after_one_pass(full_streams, stream, pair):
    X, y = full_streams[stream]
    make_ours, make_peer = PAIRS[pair]
    peer = fit_quietly(make_peer(), X, y)
    ours = make_ours().fit(X, y)
    assert np.count_nonzero(peer.coef_) > 0
    assert_allclose(ours.coef_, peer.coef_, **relative_tolerance(peer.coef_))
    assert_array_equal(ours.predict(X), peer.predict(X))


@pytest.mark.parametrize("stream", [synthetic_dense, synthetic_sparse])
@pytest.mark.parametrize("variant", ["PA-I", "PA-II"])
def test_the_c_sweep_is_not_vacuous(stream, variant):
    """On the synthetic streams each C gives its own model (the PA-I cap binds)."""
    X, y = stream()
    models = [PA(C=C, variant=variant).fit(X, y).coef_ for C in (0.01, 1.0, 10.0)]
    assert not np.allclose(models[0], models[1])
    assert not np.allclose(models[1], models[2])
