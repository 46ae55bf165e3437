"""olearn against River (0.26) on the same streams, round by round.

River learns from dicts one example at a time; we ask ``predict_one`` before
every ``learn_one`` and compare these online predictions, and the final
weights, with olearn's online record (``margins_`` gives the score before
each update; positive iff score > 0, as River's ``predict_one``, whose tie at
probability 1/2 goes to ``False``).

What is the same and what is not (from River's source, ``river/linear_model``):

``PAClassifier(C, mode, learn_intercept=False)``
    modes 0/1/2 are PA / PA-I / PA-II with the hinge loss ``max(0, 1 - y w.x)``
    and ``tau = l/||x||^2``, ``min(C, l/||x||^2)``, ``l/(||x||^2 + 1/(2C))``:
    identical to ``olearn.PA(C, variant)``.  With River's default
    ``learn_intercept=True`` the intercept moves by ``tau y`` but ``tau`` still
    uses ``||x||^2`` alone, so it is *not* PA on ``[x, 1]`` (that would use
    ``||x||^2 + 1``); no olearn configuration reproduces it.
``Perceptron()``
    logistic-regression machinery with ``SGD(1)``, ``Hinge(threshold=0)``
    (gradient ``-y`` when ``y f <= 0``, River 0.26) and an intercept with
    learning rate 1: it is olearn's Perceptron on ``[x, 1]`` (the intercept is
    the last weight).  ``LogisticRegression(SGD(1), Hinge(0), intercept_lr=0)``
    is olearn's Perceptron on ``x``.
``ALMAClassifier(p, alpha, B, C)``
    Gentile's ALMA_p with four departures: (1) no normalisation of ``x``
    (Gentile uses ``x / ||x||_p``); (2) after an update only the coordinates
    present in the dict ``x`` are divided by ``max(1, ||w||)``, not all of ``w``;
    (3) that norm is ``||w||_p``, and there is no p-norm link, so for ``p != 2``
    it is a different algorithm (Gentile: ``||w||_q`` and ``f^{-1}(f(w) + ...)``);
    (4) the update test is ``<`` instead of ``<=``: ties happen at ``w = 0``,
    where both update if ``alpha < 1``; with ``alpha = 1`` the threshold is 0 and
    River never leaves ``w = 0``.  Hence, for ``alpha < 1``, ``p = 2``, rows of
    unit norm and dicts that list every feature, River's ALMA is Gentile's, and
    olearn's ALMA on any rows equals River's on the normalised rows (olearn only
    uses ``x / ||x||`` in the update, and the sign of a prediction does not
    depend on the norm).
    On sparse dicts (2) makes River's ``w`` leave the unit ball.
"""
import math
import os
from pathlib import Path

import numpy as np
import pytest
import river.linear_model as rlm
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from river import optim
from sklearn.datasets import load_svmlight_file

from olearn.linear.alma import ALMA
from olearn.linear.pa import PA
from olearn.linear.perceptron import Perceptron

DATA_HOME = Path(os.environ.get("OLEARN_DATA_HOME", "/work/shared/datasets"))


@pytest.fixture(scope="module")
def german():
    """german.numer, columns scaled to [-1, 1]; labels -1/+1."""
    X, y = load_svmlight_file(str(DATA_HOME / "german.numer" / "german.numer.gz"),
                              n_features=24)
    X = X.toarray()
    return X / np.abs(X).max(axis=0), y


@pytest.fixture(scope="module")
def sparse():
    """400 CSR rows over 200 features (~6 nonzeros each), noisy hyperplane labels."""
    rng = np.random.default_rng(5)
    X = sp.random(400, 200, density=0.03, format="csr", random_state=rng,
                  data_rvs=rng.standard_normal)
    y = np.where(X @ rng.standard_normal(200) > 0, 1.0, -1.0)
    y[rng.random(400) < 0.1] *= -1
    return X, y


def rows_as_dicts(X, every_feature):
    """River's input: one dict per row, either every column or only the nonzeros."""
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        if not every_feature:
            return [dict(zip(X.indices[a:b].tolist(), X.data[a:b].tolist()))
                    for a, b in zip(X.indptr[:-1], X.indptr[1:])]
        X = X.toarray()
    return [dict(enumerate(row.tolist())) for row in X]


def river_run(model, X, y, every_feature=True):
    """Online predictions (+1 / -1) of a River classifier, predicting before learning."""
    predictions = []
    for x, label in zip(rows_as_dicts(X, every_feature), y):
        predictions.append(1.0 if model.predict_one(x) else -1.0)
        model.learn_one(x, bool(label > 0))
    return np.array(predictions)


def online_predictions(est, y):
    """olearn's prediction on each round, before its update (classes are -1, +1)."""
    return np.where(est.margins_ * y > 0, 1.0, -1.0)


def weights(river_dict, d):
    w = np.zeros(d)
    for j, value in river_dict.items():
        w[j] = value
    return w


# -- Passive-Aggressive ---------------------------------------------------------------
PA_MODES = [("PA", 0, 1.0), ("PA-I", 1, 0.1), ("PA-I", 1, 5.0), ("PA-II", 2, 0.1),
            ("PA-II", 2, 5.0)]


@pytest.mark.parametrize("data", ["german", "sparse"])
@pytest.mark.parametrize("variant, mode, C", PA_MODES)
def test_pa_is_river_pa_without_intercept(variant, mode, C, data, request):
    X, y = request.getfixturevalue(data)
    est = PA(C=C, variant=variant).fit(X, y)
    river = rlm.PAClassifier(C=C, mode=mode, learn_intercept=False)
    predictions = river_run(river, X, y, every_feature=False)
    assert_array_equal(predictions, online_predictions(est, y))
    assert est.n_mistakes_ == np.sum(predictions != y) > 20
    assert_allclose(weights(river.weights, X.shape[1]), est.coef_.ravel(),
                    rtol=1e-10, atol=1e-12)


def test_river_pa_intercept_is_not_pa_on_augmented_rows(german):
    """River's intercept step uses tau from ||x||^2, PA on [x, 1] from ||x||^2 + 1."""
    X, y = german
    X1 = np.hstack([X, np.ones((X.shape[0], 1))])
    est = PA(variant="PA-I", C=1.0).fit(X1, y)
    river = rlm.PAClassifier(C=1.0, mode=1, learn_intercept=True)
    river_run(river, X, y)
    river_w = np.append(weights(river.weights, X.shape[1]), river.intercept)
    assert np.abs(river_w - est.coef_.ravel()).max() > 1e-3


# -- Perceptron -----------------------------------------------------------------------
@pytest.mark.parametrize("data", ["german", "sparse"])
def test_river_perceptron_is_perceptron_with_a_constant_feature(data, request):
    X, y = request.getfixturevalue(data)
    X1 = sp.hstack([X, np.ones((X.shape[0], 1))], format="csr") if sp.issparse(X) \
        else np.hstack([X, np.ones((X.shape[0], 1))])
    est = Perceptron().fit(X1, y)
    river = rlm.Perceptron()
    predictions = river_run(river, X, y, every_feature=False)
    assert_array_equal(predictions, online_predictions(est, y))
    river_w = np.append(weights(river.weights, X.shape[1]), river.intercept)
    assert_allclose(river_w, est.coef_.ravel(), rtol=1e-12, atol=1e-12)
    assert river.intercept != 0.0


@pytest.mark.parametrize("data", ["german", "sparse"])
def test_river_sgd_hinge0_without_intercept_is_perceptron(data, request):
    X, y = request.getfixturevalue(data)
    est = Perceptron().fit(X, y)
    river = rlm.LogisticRegression(optimizer=optim.SGD(1.0),
                                   loss=optim.losses.Hinge(threshold=0.0),
                                   intercept_lr=0.0)
    predictions = river_run(river, X, y, every_feature=False)
    assert_array_equal(predictions, online_predictions(est, y))
    assert_allclose(weights(river.weights, X.shape[1]), est.coef_.ravel(),
                    rtol=1e-12, atol=1e-12)


# -- ALMA -----------------------------------------------------------------------------
def unit_rows(X):
    X = X.toarray() if sp.issparse(X) else X
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(norms > 0, norms, 1.0)


ALMA_PARAMS = [dict(alpha=0.9, B=1 / 0.9, C=2 ** 0.5),   # River's defaults = olearn's
               dict(alpha=0.5, B=3.0, C=1.0),
               dict(alpha=0.2, B=1.0, C=2.0)]


@pytest.mark.parametrize("data", ["german", "sparse"])
@pytest.mark.parametrize("params", ALMA_PARAMS)
def test_alma2_is_river_alma_on_unit_rows(params, data, request):
    """Unit rows, dicts listing every feature: River's ALMA_2 is Gentile's."""
    X, y = request.getfixturevalue(data)
    U = unit_rows(X)
    est = ALMA(p=2, **params).fit(U, y)
    river = rlm.ALMAClassifier(p=2, **params)
    predictions = river_run(river, U, y, every_feature=True)
    assert_array_equal(predictions, online_predictions(est, y))
    assert river.k == est.k_ > 20
    assert_allclose(weights(river.w, X.shape[1]), est.coef_.ravel(),
                    rtol=1e-10, atol=1e-13)
    # olearn normalises inside the update: the raw rows give the same run
    raw = ALMA(p=2, **params).fit(X, y)
    assert_array_equal(online_predictions(raw, y), predictions)
    assert_allclose(raw.coef_, est.coef_, rtol=1e-10, atol=1e-13)


def test_river_alma_with_alpha_1_never_starts(german):
    """alpha = 1: olearn updates on y w.x^ <= 0 (from w = 0 too), River on < 0 only."""
    X, y = german
    U = unit_rows(X)
    est = ALMA(alpha=1.0).fit(U, y)
    river = rlm.ALMAClassifier(alpha=1.0, B=1.0)
    predictions = river_run(river, U, y)
    assert river.k == 1 and not any(river.w.values())
    assert (predictions == -1).all()
    assert est.k_ > 100


def test_river_alma_on_sparse_dicts_leaves_the_unit_ball(sparse):
    """River rescales only the coordinates of x: ||w|| > 1, unlike Gentile's (and olearn's)."""
    X, y = sparse
    U = unit_rows(X)
    est = ALMA(p=2).fit(U, y)
    river = rlm.ALMAClassifier(p=2)
    river_run(river, sp.csr_matrix(U), y, every_feature=False)
    river_w = weights(river.w, X.shape[1])
    assert np.linalg.norm(est.coef_) <= 1.0 + 1e-12
    assert np.linalg.norm(river_w) > 1.05
    assert np.abs(river_w - est.coef_.ravel()).max() > 1e-3


def test_river_alma_p3_is_not_gentiles(german):
    """No p-norm link in River: ALMA_3 runs differ (olearn follows Gentile's Figure 1)."""
    X, y = german
    U = X / np.sum(np.abs(X) ** 3, axis=1, keepdims=True) ** (1 / 3)
    est = ALMA(p=3).fit(U, y)
    river = rlm.ALMAClassifier(p=3)
    river_run(river, U, y)
    q = 1.5
    assert np.sum(np.abs(est.coef_) ** q) ** (1 / q) <= 1.0 + 1e-12
    assert np.abs(weights(river.w, X.shape[1]) - est.coef_.ravel()).max() > 1e-3
    assert math.isclose(river.B, 1 / 0.9)
