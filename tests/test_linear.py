"""The Perceptron, PA and NORMA loops spell out ``scale_add``: the two forms agree bit for bit."""
import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit

from olearn.base import compiled_rows
from olearn.linear import predict_round, scale_add
import math

from olearn.linear.norma import norma_coefficients, norma_pass
from olearn.linear.pa import pa_pass, pa_tau
from olearn.linear.perceptron import perceptron_pass, perceptron_step


@njit
def perceptron_with_scale_add(X, y, v, z, state, mistakes, margins):
    n = 0
    for t in range(y.shape[0]):
        score, sq = predict_round(X, t, y[t], v, state, mistakes, margins)
        b = perceptron_step(score, y[t])
        if b != 0.0:
            scale_add(X, t, 1.0, b, v, z, state, score, sq)
            n += 1
    return n


@njit
def pa_with_scale_add(X, y, v, z, state, mistakes, margins, C, capped, gamma, epsilon,
                      on_mistake):
    n = 0
    for t in range(y.shape[0]):
        score, sq = predict_round(X, t, y[t], v, state, mistakes, margins)
        if on_mistake and y[t] * score > 0.0:
            continue
        tau = pa_tau(max(0.0, epsilon - y[t] * score), sq, C, capped, gamma)
        if tau != 0.0:
            scale_add(X, t, 1.0, tau * y[t], v, z, state, score, sq)
            n += 1
    return n


@njit
def norma_with_scale_add(X, y, v, z, state, mistakes, margins, eta, lam, rho, decay, t0):
    n = 0
    for t in range(y.shape[0]):
        score, sq = predict_round(X, t, y[t], v, state, mistakes, margins)
        eta_t = eta / math.sqrt(t0 + t + 1.0) if decay else eta
        a, b = norma_coefficients(y[t] * score, eta_t, lam, rho, y[t])
        if (a != 1.0 and state[1] > 0.0) or (b != 0.0 and sq > 0.0):
            n += 1
        scale_add(X, t, a, b, v, z, state, score, sq)
    return n


def run(loop, X, y, averaging, *params):
    d = X.shape[1]
    v, z = np.zeros(d), np.zeros(d if averaging else 0)
    state = np.array([1.0, 0.0, 0.0])
    mistakes, margins = np.zeros(len(y), bool), np.zeros(len(y))
    rows = compiled_rows(X)   # as the estimators hand X over (one specialisation)
    n = loop(rows, y, v, z, state, mistakes, margins, *params)
    return n, v, z, state, mistakes, margins


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("averaging", [False, True])
@pytest.mark.parametrize("learner", ["Perceptron", "PA", "PA-I", "PA-II", "PA-mistake",
                                     "NORMA", "NORMA-sqrt"])
def test_spelled_out_update_equals_scale_add(learner, sparse, averaging):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(400, 30)) * (rng.random((400, 30)) < 0.3)
    y = np.where(X @ rng.normal(size=30) + 0.3 * rng.normal(size=400) > 0, 1.0, -1.0)
    X = sp.csr_matrix(X) if sparse else X
    if learner == "Perceptron":
        ours = run(perceptron_pass, X, y, averaging)
        reference = run(perceptron_with_scale_add, X, y, averaging)
    elif learner.startswith("NORMA"):
        params = (0.1, 0.01, 1.0, learner.endswith("sqrt"), 0.0)
        ours = run(norma_pass, X, y, averaging, *params)
        reference = run(norma_with_scale_add, X, y, averaging, *params)
    else:
        params = {"PA": (np.inf, False, 0.0, 1.0, False),
                  "PA-I": (0.1, True, 0.0, 1.0, False),
                  "PA-II": (np.inf, False, 1 / (2 * 0.1), 1.0, False),
                  # Carvalho and Cohen's PA: eq. (1), gamma = 0.1, on mistakes
                  "PA-mistake": (np.inf, False, 0.1, 1.0, True)}[learner]
        ours = run(pa_pass, X, y, averaging, *params)
        reference = run(pa_with_scale_add, X, y, averaging, *params)
    assert ours[0] == reference[0] > 10
    for a, b in zip(ours[1:], reference[1:]):
        np.testing.assert_array_equal(a, b)
