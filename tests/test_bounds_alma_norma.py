"""The ALMA and NORMA bounds of olearn.bounds (our derivations) on random and real streams.

Besides "the bound holds" for several competitors, each bound has a case in
which it is an equality, so that a wrong constant (in the bound or in the
schedule the bound assumes) fails a test:

* ALMA_2 with a step so small that the projection never acts: the potential
  inequality is then an identity;
* NORMA with ``lam = 0``, a margin ``rho`` that no round reaches and the
  competitor ``g = w_{T+1}``: the loss bound is attained.
"""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.preprocessing import MaxAbsScaler

from olearn import ALMA, NORMA, Perceptron
from olearn.bounds import alma_bound, norma_bound, norma_mistake_bound, svm_competitor
from olearn.bounds.alma import alma_mistake_bound_value


def _noisy_stream(seed, n=600, d=8, noise=0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    u = rng.normal(size=d)
    y = np.sign(X @ u + noise * rng.normal(size=n))
    y[y == 0] = 1.0
    return X, y, u


def _competitors(run, X, y, u_true):
    return {"svm": svm_competitor(X, y, C=1.0), "final w": run.coef_.ravel().copy(),
            "generating u": u_true}


@pytest.fixture(scope="module", params=["german.numer", "spambase"])
def real_stream(request, real_data):
    X, y = real_data(request.param)
    X = MaxAbsScaler().fit_transform(X)
    if sp.issparse(X):
        X = X.toarray()
    order = np.random.default_rng(0).permutation(len(y))[:1500]
    return request.param, np.asarray(X[order], dtype=np.float64), np.asarray(y)[order]


# --- ALMA ------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [2.0, 3.0, 8.0])
@pytest.mark.parametrize("alpha", [0.9, 0.5, 1.0])
def test_alma_bound_holds_on_random_streams(p, alpha):
    X, y, u = _noisy_stream(int(10 * p + 100 * alpha))
    run = ALMA(p=p, alpha=alpha).fit(X, y)
    for name, competitor in _competitors(run, X, y, u).items():
        check = alma_bound(run, X, y, competitor)
        assert check.holds, (name, check)
        t = check.terms
        assert t["sum_form_lhs"] <= t["sum_form_rhs"] + 1e-9, (name, t)
        assert t["potential_lhs"] <= t["potential_rhs"] + 1e-9, (name, t)
        assert t["mistakes"] <= check.observed == run.n_updates_
        assert check.bound == min(t["bound_2a"], t["bound_2b"])


@pytest.mark.parametrize("p", [2.0, 4.0])
def test_alma_bound_holds_on_real_streams(real_stream, p):
    name, X, y = real_stream
    run = ALMA(p=p, alpha=0.9).fit(X, y)
    for label, competitor in (("svm", svm_competitor(X, y, C=0.1)),
                              ("final w", run.coef_.ravel())):
        check = alma_bound(run, X, y, competitor)
        assert check.holds, (name, label, check)
        assert check.terms["potential_lhs"] <= check.terms["potential_rhs"] + 1e-9
        # gamma given explicitly: still a bound (and never better than the optimised one)
        fixed = alma_bound(run, X, y, competitor, gamma=0.05)
        assert fixed.holds and fixed.bound >= check.bound


def test_alma_potential_is_an_identity_without_projection():
    # p = 2, C tiny: ||w|| stays below 1, the projection never acts and the
    # smoothness step is an equality, so sum_k [eta_k (y u.x^ - y w.x^) - eta_k^2/2]
    # equals 1/2 - D(u, w_{m+1}) exactly; a wrong (p - 1)/2 or eta_k breaks it.
    X, y, u = _noisy_stream(3, n=200)
    run = ALMA(p=2, alpha=0.9, B=1.0, C=0.01).fit(X, y)
    assert np.linalg.norm(run.coef_) < 1.0 and run.n_updates_ > 100
    for competitor in (u, run.coef_.ravel(), svm_competitor(X, y)):
        t = alma_bound(run, X, y, competitor).terms
        assert t["potential_lhs"] == pytest.approx(t["potential_rhs"], rel=1e-10, abs=1e-12)
    # with the smoothness constant doubled the identity would fail
    eta = 0.01 / np.sqrt(np.arange(1, run.n_updates_ + 1))
    assert abs(0.5 * np.sum(eta ** 2)) > 1e-4


def test_alma_explicit_bound_by_hand():
    # gamma = 1, D = 0, p = 2, alpha = 1, B = C = 1: c = 1, K = 1/2, so (2) is
    # 2 (sqrt(m+1) - 1) <= 1/2 + (1 + ln m)/2 = 1 + ln(m)/2:
    # m = 1: 0.828 <= 1; m = 2: 1.464 <= 1.347 fails, and so does every larger m -> 1.
    assert alma_mistake_bound_value(1.0, 0.0, 2.0, 1.0, 1.0, 1.0) == 1.0
    # and in general the value is the last m with h(m) <= 0
    for gamma, D, D2, p, alpha in [(0.1, 0.0, 0.0, 2.0, 0.9), (0.05, 3.0, 0.0, 3.0, 0.5),
                                   (0.3, 10.0, 0.0, 6.0, 1.0), (0.05, 0.0, 2.0, 2.0, 0.9),
                                   (0.2, 0.0, 7.0, 4.0, 0.5)]:
        B, C = 1 / alpha, math.sqrt(2)
        m = alma_mistake_bound_value(gamma, D, p, alpha, B, C, D2=D2)
        c, K = C / math.sqrt(p - 1), (1 - alpha) * B * C + C * C / 2

        def h(n):
            log = 1 + math.log(n)
            return 2 * gamma * (math.sqrt(n + 1) - 1) - D - D2 * math.sqrt(log) - (0.5 + K * log) / c
        assert m >= 1 and h(m) <= 0 < h(m + 1)
        assert all(h(n) > 0 for n in (m + 2, 2 * m, 10 * m))


def test_alma_bound_on_a_separable_stream_is_finite_and_holds():
    # margin-separated stream: D_gamma = 0 at the true margin, bound ~ ((1/2 + K(1+ln m))/(2 c gamma))^2
    rng = np.random.default_rng(5)
    u = rng.normal(size=6)
    u /= np.linalg.norm(u)
    X = rng.normal(size=(4000, 6))
    X = X[np.abs(X @ u) / np.linalg.norm(X, axis=1) > 0.2]
    y = np.sign(X @ u)
    run = ALMA(p=2, alpha=0.9).fit(X, y)
    check = alma_bound(run, X, y, u, gamma=0.2)
    assert check.terms["D_gamma"] == 0.0 and check.holds and check.bound < len(y)


def test_alma_bound_refuses_another_stream():
    X, y, u = _noisy_stream(1)
    run = ALMA(p=2).fit(X, y)
    with pytest.raises(ValueError):
        alma_bound(run, X[::-1], y[::-1], u)
    with pytest.raises(TypeError):
        alma_bound(Perceptron().fit(X, y), X, y, u)


# --- NORMA -----------------------------------------------------------------------------

@pytest.mark.parametrize("schedule", ["constant", "sqrt"])
@pytest.mark.parametrize("eta, lam, rho", [(0.5, 0.0, 1.0), (0.5, 0.01, 1.0),
                                           (0.1, 0.5, 2.0), (1.0, 0.9, 0.5)])
def test_norma_bound_holds_on_random_streams(schedule, eta, lam, rho):
    X, y, u = _noisy_stream(int(100 * eta + 10 * lam))
    run = NORMA(eta=eta, lam=lam, rho=rho, schedule=schedule).fit(X, y)
    for name, g in {**_competitors(run, X, y, u),
                    "svm at rho": rho * svm_competitor(X, y, C=1.0)}.items():
        check = norma_bound(run, X, y, g)
        assert check.holds, (name, check)
        assert check.terms["regret_lhs"] <= check.terms["regret_rhs"] + 1e-9 * max(
            1.0, abs(check.terms["regret_rhs"]))
        assert norma_mistake_bound(run, X, y, g).holds


@pytest.mark.parametrize("schedule", ["constant", "sqrt"])
def test_norma_bound_holds_on_real_streams(real_stream, schedule):
    name, X, y = real_stream
    run = NORMA(eta=0.2, lam=0.01, rho=1.0, schedule=schedule).fit(X, y)
    for label, g in (("svm", svm_competitor(X, y, C=0.1)), ("final w", run.coef_.ravel())):
        check = norma_mistake_bound(run, X, y, g)
        assert check.holds, (name, label, check)


def test_norma_bound_is_attained_when_nothing_is_dropped():
    # lam = 0, rho far above every margin: sigma_t = 1 and the hinge is linear for w_t
    # and for g on every round; with g = w_{T+1} the dropped term ||w_{T+1} - g||^2/(2 eta)
    # is zero, so observed == bound.  A factor eta instead of eta/2, or a wrong
    # 1/(2 eta), would break the equality.
    X, y, _ = _noisy_stream(7, n=300)
    run = NORMA(eta=0.3, lam=0.0, rho=1e4).fit(X, y)
    check = norma_bound(run, X, y, run.coef_.ravel())
    assert check.terms["margin_errors"] == len(y)
    assert check.observed == pytest.approx(check.bound, rel=1e-12)
    assert check.terms["regret_lhs"] == pytest.approx(check.terms["regret_rhs"], rel=1e-12)


def test_norma_a_priori_case_by_hand():
    # one example x = (1,), y = +1, eta = 0.5, lam = 0.5, rho = 1 (so ||x||^2 = 1 <= 2 lam rho):
    # l_1(w_1 = 0) = 1; with g = (2,): L(g) = 0, T lam/2 ||g||^2 = 1, Phi = ||g||^2/(2 eta) = 4,
    # margin term eta (1/2 - lam rho) = 0; bound = (0 + 1 + 4 + 0) / (1 - 1/4) = 20/3.
    run = NORMA(eta=0.5, lam=0.5, rho=1.0).partial_fit([[1.0]], [1], classes=[-1, 1])
    check = norma_bound(run, [[1.0]], [1], [2.0])
    assert check.observed == 1.0
    assert check.bound == pytest.approx(20.0 / 3.0, rel=1e-14)
    assert check.terms["a_priori"] and check.terms["margin_term"] == 0.0


def test_alma_zero_rows_are_neither_updates_nor_mistakes():
    X, y, u = _noisy_stream(11, n=300)
    X[::7] = 0.0
    run = ALMA(p=3, alpha=0.9).fit(sp.csr_matrix(X), y)
    check = alma_bound(run, sp.csr_matrix(X), y, u)
    assert check.holds and check.terms["zero_rows"] == len(range(0, 300, 7))
    assert check.terms["mistakes"] <= check.observed == run.n_updates_


def test_norma_a_priori_case_on_a_real_stream(real_stream):
    # unit rows and lam rho = 1/2: ||x_t||^2 <= 2 lam rho, the learner-side sum is <= 0
    from sklearn.preprocessing import Normalizer
    name, X, y = real_stream
    X = Normalizer().fit_transform(X)
    run = NORMA(eta=0.5, lam=0.5, rho=1.0).fit(X, y)
    g = svm_competitor(X, y, C=0.1)
    check = norma_mistake_bound(run, X, y, g)
    assert check.terms["a_priori"] and check.terms["margin_term"] <= 1e-9
    assert check.holds, (name, check)
    # the competitor-only form of the theorem holds as well
    T, lam, eta = len(y), 0.5, 0.5
    competitor_only = (check.terms["sum_loss_g"] + (T * lam / 2 + 1 / (2 * eta)) * g @ g) / (1 - eta * lam)
    assert check.terms["mistakes"] <= check.terms["sum_loss"] <= competitor_only


@pytest.mark.parametrize("p", [2.0, 4.0])
def test_alma_slack_terms_split_the_slack_of_the_sum_form(p):
    # the five slack terms are each >= 0 and sum to rhs - lhs of (1); for p = 2 the
    # smoothness term is 0, and with a tiny step the projection term is 0 too
    X, y, u = _noisy_stream(5, n=400)
    names = ("slack_final_divergence", "slack_smoothness", "slack_projection",
             "slack_below_target", "slack_above_gamma")
    for run in (ALMA(p=p, alpha=0.9).fit(X, y), ALMA(p=p, alpha=0.9, C=0.01).fit(X, y)):
        for competitor in (u, run.coef_.ravel(), svm_competitor(X, y)):
            t = alma_bound(run, X, y, competitor).terms
            parts = [t[n] for n in names]
            assert min(parts) >= -1e-10, dict(zip(names, parts))
            assert sum(parts) == pytest.approx(t["sum_form_rhs"] - t["sum_form_lhs"], rel=1e-9, abs=1e-10)
            if p == 2.0:
                assert abs(t["slack_smoothness"]) < 1e-10
            if run.C == 0.01 and p == 2.0:
                assert t["slack_projection"] == 0.0
    # for p = 4 the smoothness inequality is strict: a positive term
    run = ALMA(p=4.0, alpha=0.9).fit(X, y)
    assert alma_bound(run, X, y, u).terms["slack_smoothness"] > 1e-3


def test_alma_slack_replay_refuses_a_changed_record():
    X, y, u = _noisy_stream(6, n=300)
    run = ALMA(p=4.0, alpha=0.9).fit(X, y)
    assert alma_bound(run, X, y, u).holds
    changed = X.copy()
    changed[:, 0] += 0.01 * np.sign(changed[:, 0])    # same record, other rows: another path
    with pytest.raises(ValueError, match="same order"):
        alma_bound(run, changed, y, u)
