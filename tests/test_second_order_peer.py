"""The same stream through olpy (1.0.0.dev3, PyPI) and olearn.

olpy's ``fit`` shuffles, so both are fed with ``partial_fit`` in order.

* AROW: olpy and olearn agree to round-off (mean and full covariance).
* CW (olpy's CW is the exact "stdev" version) and SCW-I/II: olpy computes the
  confidence as ``x' diag(Sigma) x`` but updates the full ``Sigma``.  While
  ``Sigma`` is diagonal (axis-aligned rows) the two agree; on general rows
  olpy's step is not the solution of the per-round program, which cvxpy
  shows, while olearn's is.
* SCW-II: olpy's alpha has ``v*2`` and ``phi*2`` where the paper has
  ``v**2`` and ``phi**2``.
* NAROW: olpy writes ``r_t = -inf`` when ``chi_t <= 1/b``; then
  ``beta = 1/(chi - inf) = -0`` and the round changes nothing.  In Orabona
  and Crammer's framework the matrix stays fixed there but the mean still
  takes ``y_t Sigma x_t`` (``theta`` receives ``y_t x_t``), as in the first
  author's own ``narow_train.m`` (DOGMA toolbox).
* SOP: olpy updates ``Sigma`` on every round (the paper: only on mistakes),
  starts from ``a I`` (the paper: ``A_0 = a I``, so ``Sigma_0 = I/a``) and
  predicts with ``theta . x`` instead of ``x' (A + x x')^{-1} theta``.
"""
import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import norm

from olearn import AROW, CW, NAROW, SCW, SOP
from olearn.verify.second_order import library_round, stdev_program

olpy = pytest.importorskip("olpy.classifiers")   # a dev dependency (pyproject)


def stream(n=200, d=6, seed=0, axis_aligned=False):
    rng = np.random.default_rng(seed)
    if axis_aligned:
        X = np.zeros((n, d))
        X[np.arange(n), rng.integers(0, d, n)] = rng.standard_normal(n)
    else:
        X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    y[rng.random(n) < 0.1] *= -1
    return X, y


def feed(peer, X, y):
    peer.partial_fit(X, y)
    return peer


@pytest.mark.parametrize("r", [0.1, 1.0, 7.0])
def test_arow_equals_olpy(r):
    X, y = stream()
    ours = AROW(r=r).fit(X, y)
    theirs = feed(olpy.AROW(r=r), X, y)
    assert_allclose(ours.coef_.ravel(), theirs.weights, rtol=1e-10, atol=1e-12)
    assert_allclose(ours.covariance_, theirs._sigma, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("make_ours, make_theirs", [
    (lambda: CW(eta=0.7, version="stdev"), lambda: olpy.CW(eta=0.7)),
    (lambda: SCW(C=1.0, eta=0.7), lambda: olpy.SCW(C=1.0, eta=0.7)),
], ids=["CW", "SCW-I"])
def test_cw_family_agrees_with_olpy_only_while_sigma_is_diagonal(make_ours, make_theirs):
    X, y = stream(axis_aligned=True)
    ours, theirs = make_ours().fit(X, y), feed(make_theirs(), X, y)
    assert_allclose(ours.coef_.ravel(), theirs.weights, rtol=1e-10, atol=1e-12)
    assert_allclose(ours.covariance_, theirs._sigma, rtol=1e-10, atol=1e-12)
    X, y = stream()
    ours, theirs = make_ours().fit(X, y), feed(make_theirs(), X, y)
    assert np.abs(ours.coef_.ravel() - theirs.weights).max() > 1e-3   # not round-off


def test_olpy_scw2_step_has_two_typos():
    """olpy's SCW-II alpha squares v and phi with ``*2`` instead of ``**2``
    inside gamma: it agrees with the paper's formula exactly when v = 2 and
    phi = 2 (where x*2 = x**2), and not otherwise."""
    from olearn.second_order.rules import scw2_step
    peer = olpy.SCW2(C=0.8, eta=float(norm.cdf(2.0)))
    peer._setup(np.zeros((1, 2)))
    assert peer._phi == pytest.approx(2.0)
    for m, v, same in ((0.3, 2.0, True), (-0.5, 2.0, True), (0.3, 0.7, False),
                       (-0.5, 5.0, False)):
        ours = scw2_step(m, v, 1.0, 2.0, 0.8)[1]
        theirs = peer._get_alpha(m, v)
        assert (abs(ours - theirs) < 1e-12) == same, (m, v, ours, theirs)


def test_olpy_cw_step_misses_the_program_olearn_solves():
    """One round from a non-diagonal Sigma: cvxpy's solution of the exact CW
    program equals olearn's step, not olpy's (x' diag(Sigma) x != x' Sigma x)."""
    rng = np.random.default_rng(3)
    d, eta = 4, 0.7
    A = rng.standard_normal((d, d))
    Sigma = A @ A.T / d + 0.3 * np.eye(d)
    mu, x, y = rng.standard_normal(d) * 0.1, rng.standard_normal(d), 1
    assert abs(x @ Sigma @ x - x @ np.diag(np.diag(Sigma)) @ x) > 0.1
    mu_prog, S_prog = stdev_program(mu, Sigma, x, y, norm.ppf(eta))
    mu_ours, S_ours, updated = library_round(CW(eta=eta, version="stdev"), mu, Sigma, x, y)
    assert updated
    peer = olpy.CW(eta=eta)
    peer._setup(x[np.newaxis, :])
    peer.weights, peer._sigma = mu.copy(), Sigma.copy()
    peer._update(x, y)
    assert np.abs(mu_ours - mu_prog).max() < 1e-4
    assert np.abs(S_ours - S_prog).max() < 1e-4
    assert np.abs(peer.weights - mu_prog).max() > 1e-2


def test_olpy_narow_does_not_move_when_r_is_minus_infinity():
    X = np.array([[0.6, 0.8, 0.0]])            # ||x|| = 1, chi_1 = 1 <= 1/b
    y = np.array([1])
    peer = feed(olpy.NAROW(a=0.5), X, y)
    assert_allclose(peer.weights, 0.0)        # -inf: beta = -0, no step
    ours = NAROW(b=0.5).partial_fit(X, y, classes=[-1, 1])
    assert_allclose(ours.coef_.ravel(), X[0])  # theta = y x, Sigma = I
    assert_allclose(ours.covariance_, np.eye(3))


def test_olpy_sop_is_not_the_second_order_perceptron():
    X, y = stream(n=100, d=5, seed=4)
    ours = SOP(a=2.0).fit(X, y)
    peer = feed(olpy.SecondOrderPerceptron(a=2.0), X, y)
    # olpy's Sigma has absorbed every row (not only the mistakes) from 2 I
    everything = np.linalg.inv(np.eye(5) / 2.0 + X.T @ X)
    assert_allclose(peer._sigma, everything, rtol=1e-8, atol=1e-10)
    mistakes_only = np.linalg.inv(2.0 * np.eye(5) + X[ours.margins_ <= 0].T
                                  @ X[ours.margins_ <= 0])
    assert_allclose(ours.covariance_, mistakes_only, rtol=1e-8, atol=1e-10)
    assert np.abs(peer._sigma - ours.covariance_).max() > 1e-2
