"""olearn.oco: the OMD loop reproduces the library's learners and its lemma is an identity."""
import numpy as np
import pytest

from olearn import (AROW, NORMA, PA, BalancedWinnow, KernelPA, KernelPerceptron,
                    L2ConstrainedPA, ObjectiveRegularizedPA, Perceptron, PositiveWinnow)
from olearn import oco


@pytest.fixture(scope="module")
def stream():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 8))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    u = rng.normal(size=8)
    y = np.where(X @ u + 0.3 * rng.normal(size=300) > 0, 1, -1)
    return X, y


LINEAR = [
    ("Perceptron", Perceptron(), oco.Euclidean, oco.perceptron_rule),
    ("PA", PA(), oco.Euclidean, oco.pa_rule()),
    ("PA-I", PA(C=0.2, variant="PA-I"), oco.Euclidean, oco.pa_rule(0.2, "PA-I")),
    ("PA-II", PA(C=0.2, variant="PA-II"), oco.Euclidean, oco.pa_rule(0.2, "PA-II")),
    ("NORMA", NORMA(eta=0.1, lam=0.01, rho=1.0), oco.Euclidean, oco.norma_rule(0.1, 0.01, 1.0)),
    ("objective-regularized PA", ObjectiveRegularizedPA(0.05), oco.Euclidean,
     oco.objective_regularized_rule(0.05)),
    ("L2-constrained PA", L2ConstrainedPA(2.0), oco.Euclidean, oco.l2_constrained_rule(2.0)),
]


@pytest.mark.parametrize("name, learner, mirror, rule", LINEAR, ids=[c[0] for c in LINEAR])
def test_euclidean_instances_equal_library(stream, name, learner, mirror, rule):
    X, y = stream
    lib = learner.fit(X, y)
    u = lib.coef_.ravel() * 0.5
    run = oco.omd(X, y, mirror(), rule, np.zeros(X.shape[1]), u=u)
    assert np.max(np.abs(run.w - lib.coef_.ravel())) < 1e-12
    assert np.array_equal(run.mistakes, lib.mistakes_.astype(bool))
    assert run.updates.any()
    assert run.identity_gap < 1e-9 * max(1.0, abs(run.linear_regret))
    # the lemma's bound: the final divergence and the projection terms are dropped
    assert run.final >= 0 and run.correction >= -1e-9
    assert run.linear_regret <= run.lemma_bound + 1e-9


@pytest.mark.parametrize("diagonal", [False, True])
def test_arow_is_omd_with_a_growing_quadratic(stream, diagonal):
    X, y = stream
    lib = AROW(r=0.5, covariance="diag" if diagonal else "full").fit(X, y)
    mirror = oco.Quadratic(X.shape[1], a=1.0, r=0.5, diagonal=diagonal)
    run = oco.omd(X, y, mirror, oco.arow_rule(0.5), np.zeros(X.shape[1]), u=lib.coef_.ravel())
    assert np.max(np.abs(run.w - lib.coef_.ravel())) < 1e-10
    assert np.array_equal(run.mistakes, lib.mistakes_.astype(bool))
    cov = 1.0 / mirror.A if diagonal else np.linalg.inv(mirror.A)
    assert np.max(np.abs(cov - lib.covariance_)) < 1e-10
    assert run.growth > 0 and run.identity_gap < 1e-9 * max(1.0, abs(run.linear_regret))


@pytest.mark.parametrize("balanced", [False, True])
@pytest.mark.parametrize("alpha, beta", [(1.5, 0.5), (1.5, 1 / 1.5)])
def test_winnow_is_exponentiated_gradient(stream, balanced, alpha, beta):
    X, y = stream
    X = np.abs(X)
    d = X.shape[1] + 1
    if balanced:
        lib = BalancedWinnow(alpha=alpha, beta=beta).fit(X, y)
        w1 = np.concatenate([np.full(d, lib.theta0_pos), np.full(d, lib.theta0_neg)])
        log_lib = np.concatenate([lib.log_u_, lib.log_v_])
    else:
        lib = PositiveWinnow(alpha=alpha, beta=beta).fit(X, y)
        w1, log_lib = np.full(d, lib.theta0), lib.log_u_
    run = oco.omd(X, y, oco.Entropic(), oco.winnow_rule(alpha, beta, lib.theta, balanced),
                  w1, u=np.ones_like(w1))
    assert np.array_equal(run.mistakes, lib.mistakes_.astype(bool))
    assert run.mistakes.sum() > 5
    assert np.max(np.abs(np.log(run.w) - log_lib)) < 1e-10
    assert run.identity_gap < 1e-9 * max(1.0, abs(run.linear_regret))


def test_kernel_instances(stream):
    X, y = stream
    sigma = 1.0
    sq = (X ** 2).sum(1)
    K = np.exp(-(sq[:, None] + sq[None, :] - 2 * X @ X.T) / (2 * sigma ** 2))
    a, _ = oco.kernel_omd(K, y, lambda s, yt, k: 1.0 if yt * s <= 0 else 0.0)
    lib = KernelPerceptron(sigma=sigma).fit(X, y)
    assert np.allclose(K @ a, lib.decision_function(X), atol=1e-10)
    C = 0.5
    a, _ = oco.kernel_omd(K, y, lambda s, yt, k: min(C, max(0.0, 1 - yt * s) / k))
    lib = KernelPA(C=C, variant="PA-I", sigma=sigma).fit(X, y)
    assert np.allclose(K @ a, lib.decision_function(X), atol=1e-10)


def test_lemma_terms_have_their_closed_forms(stream):
    """Euclidean, unconstrained: stability_t = eta_t^2 ||g_t||^2 / 2 and D(u, w) = ||u - w||^2 / 2
    (for the Perceptron: half the sum of ||x_t||^2 over the mistakes)."""
    X, y = stream
    u = np.ones(8)
    run = oco.omd(X, y, oco.Euclidean(), oco.perceptron_rule, np.zeros(8), u=u)
    lib = Perceptron().fit(X, y)
    updated = lib.margins_ <= 0
    assert np.isclose(run.stability, 0.5 * (X[updated] ** 2).sum())
    assert np.isclose(run.final, 0.5 * np.sum((u - lib.coef_.ravel()) ** 2))
    assert np.isclose(run.initial, 4.0) and run.growth == 0 and run.correction == 0


def test_per_round_terms_add_up(stream):
    X, y = stream
    run = oco.omd(X, y, oco.Euclidean(), oco.objective_regularized_rule(0.05), np.zeros(8),
                  u=np.ones(8))
    rounds = run.per_round
    assert len(rounds["t"]) == run.updates.sum()
    assert np.isclose(rounds["linear"].sum(), run.linear_regret)
    assert np.isclose(rounds["correction"].sum(), run.correction)
    # the composite term: c_t.(w_t+1 - u) >= r(w_t+1) - r(u) on every round, r = alpha/2 ||w||^2
    assert (rounds["correction"] >= 0.025 * (rounds["w_next_sq"] - 8.0) - 1e-12).all()


def test_romma_is_a_hinge_step_and_a_projection_onto_its_halfspace():
    # mistake-driven ROMMA = hinge step + Euclidean projection onto H_t = {w : w.w_t >= W}
    from olearn import ROMMA
    rng = np.random.default_rng(3)
    X = rng.normal(size=(2000, 10))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    u0 = rng.normal(size=10)
    u0 /= np.linalg.norm(u0)
    keep = np.abs(X @ u0) > 0.1
    X = X[keep]
    y = np.where(X @ u0 > 0, 1, -1)
    u = u0 / 0.1                                  # margin 1 on every row: u is in every H_t
    lib = ROMMA().fit(X, y)
    run = oco.omd(X, y, oco.Euclidean(), oco.romma_rule, np.zeros(10), u=u)
    assert np.array_equal(run.mistakes, lib.mistakes_.astype(bool))
    assert np.max(np.abs(run.w - lib.coef_.ravel())) < 1e-10 * np.linalg.norm(run.w)
    assert (run.per_round["correction"] >= -1e-9).all()      # the lemma's sign condition
    assert (run.per_round["correction"] > 0).sum() >= run.updates.sum() - 2
    with pytest.raises(ValueError, match="not linearly separable"):
        oco.romma_rule(np.array([1.0, 0.0]), np.array([2.0, 0.0]), -1, oco.Euclidean())
