"""olearn's Winnows against an exact rational replay at extreme settings (issue 36).

:func:`winnow_reference.exact_winnow` (the reference shared with
``tests/test_winnow_ties.py``) replays Positive, Balanced and Modified Balanced
Winnow in ``fractions.Fraction`` with every product rounded as
:mod:`olearn.linear.winnow` documents its state: a weight is a float mantissa
times ``2**(256 e)``, so each update ``w <- w f`` is one rounding to 53
significant bits and never overflows or underflows.  On short 0/1 streams with

* extreme factors: ``alpha = 1 + 1e-12``, ``beta = 1 - 1e-12`` (as the floats
  they are), ``alpha = 1e6``, ``beta = 1e-6``, and the paper's 1.5, 0.5;
* thresholds near underflow and overflow: ``theta = 1e-300``, ``1e300`` (and 1);
* the initial weights at the threshold, so that the first rounds are exact ties
  (``score = 0`` must predict negative),

the library must make the replay's mistakes and updates round by round, and
every weight of it, read as the exact rational ``|m| 2**(256 e)``, must *equal*
the replay's (not approximately).  A decision is the exact sign of the exact
score of the (rounded) weights, except where the library's float formula is not
exact on the row and the exact score is within that formula's rounding of the
threshold: there the replay follows the library (the library claims the sign
"exact to rounding", no more).  With ``alpha = 1 + 1e-12`` and ``beta = 1 -
1e-12`` such rounds are frequent: a weight promoted and demoted once is ``1.0``
again (the exact product of the two floats, ``1 + 2**-53 - 1e-24``, rounds to
1), and two weights ``alpha``, ``beta`` sum to ``2 + 2**-53`` exactly (the floats'
representation errors), which the float sum rounds to 2 (a tie, to even): the
exact score is below the float score's resolution.
The weights are compared exactly all the same.

The voted forms (:class:`olearn.Averaged`, both weightings) divide sums of
credits times weights by the credits, in floats: their weights must be within
the rounding of those sums of the exact vote of the replay's hypotheses.
"""
import warnings
from fractions import Fraction

import numpy as np
import pytest

from olearn import Averaged, BalancedWinnow, ModifiedBalancedWinnow, PositiveWinnow
from winnow_reference import UNIT, exact_vote, exact_winnow, round_double

CLASSES = {"PW": PositiveWinnow, "BW": BalancedWinnow, "MBW": ModifiedBalancedWinnow}

#: (alpha, beta): the floats the learner multiplies by
FACTORS = {"paper": (1.5, 0.5), "near-1": (1 + 1e-12, 1 - 1e-12), "extreme": (1e6, 1e-6)}
THETAS = {"1": 1.0, "1e-300": 1e-300, "1e300": 1e300}
SEEDS = range(4)


def params(kind, theta):
    """Initial weights at the threshold: the first rounds are exact ties."""
    if kind == "PW":
        return dict(theta=theta, theta0=theta)
    out = dict(theta=theta, theta0_pos=2.0 * theta, theta0_neg=theta)
    if kind == "MBW":
        out["margin"] = 0.0
    return out


def stream(seed, kind):
    """20-60 rows of 5 features, 0/1.  MBW's rows have 1 or 3 ones (``1 + sum x``
    a power of two, so ``x~`` is exact and the factors' roundings come from
    ``alpha``, ``beta`` only); never an empty row (MBW would zero the always-on
    weight, a warned degenerate case)."""
    rng = np.random.default_rng([36, seed])
    n, d = int(rng.integers(20, 61)), 5
    X = np.zeros((n, d))
    for row in X:
        k = rng.choice([1, 3]) if kind == "MBW" else rng.integers(1, d + 1)
        row[rng.choice(d, k, replace=False)] = 1.0
    y = np.where(rng.random(n) < 0.5, 1, -1)
    y[0], y[1] = 1, -1
    return X, y


def library_weights(est):
    """The learner's weights as exact rationals ``|m| 2**(256 e)``."""
    def read(m, e):
        return [Fraction(float(abs(mj))) * Fraction(2) ** (256 * int(ej)) for mj, ej in zip(m, e)]
    u = read(est._u, est._ue)
    v = read(est._v, est._ve) if est._m.shape[1] == 2 else None
    return u, v


def replay(kind, factors, theta, seed):
    X, y = stream(seed, kind)
    alpha, beta = FACTORS[factors]
    p = params(kind, THETAS[theta])
    est = CLASSES[kind](alpha=alpha, beta=beta, **p)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no weight zeroed, no overflow warned
        est.fit(X, y)
    mistakes, updated, hypotheses, final = exact_winnow(
        kind, p, X, y, alpha=alpha, beta=beta, rounded=True,
        library=(est.mistakes_, _updates(est, X, y)))
    return est, (X, y, p), (mistakes, updated, hypotheses, final,
                            list(exact_winnow.ambiguous), list(exact_winnow.ties))


def _updates(est, X, y):
    """The rounds on which the learner updated, from its own record: one round
    at a time (``n_updates_`` after each ``partial_fit``)."""
    twin = type(est)(**est.get_params())
    out, before = [], 0
    for t in range(X.shape[0]):
        twin.partial_fit(X[t:t + 1], y[t:t + 1], classes=[-1, 1])
        out.append(twin.n_updates_ > before)
        before = twin.n_updates_
    return out


def test_round_double_is_the_float_product():
    """The reference's rounding is IEEE's on products in range (so rounding the
    replay's rationals is rounding as the learner does)."""
    rng = np.random.default_rng(0)
    a = rng.uniform(0.5, 2.0, 2000) * 2.0 ** rng.integers(-60, 60, 2000)
    b = rng.uniform(0.5, 2.0, 2000) * 2.0 ** rng.integers(-60, 60, 2000)
    assert all(round_double(Fraction(x) * Fraction(z)) == Fraction(x * z) for x, z in zip(a, b))
    assert round_double(Fraction(1) + Fraction(1, 2 ** 53)) == 1          # a tie: to even
    assert round_double(Fraction(1) + Fraction(3, 2 ** 53)) == 1 + Fraction(4, 2 ** 53)
    assert round_double(Fraction(10) ** 400) > 0        # any exponent


@pytest.mark.parametrize("theta", list(THETAS))
@pytest.mark.parametrize("factors", list(FACTORS))
@pytest.mark.parametrize("kind", list(CLASSES))
def test_the_learner_is_the_rounded_rational_replay(kind, factors, theta):
    ties = 0
    for seed in SEEDS:
        est, (X, y, p), (mistakes, updated, hypotheses, (u, v), amb, tie) = replay(
            kind, factors, theta, seed)
        assert est.mistakes_.tolist() == mistakes, seed
        assert _updates(est, X, y) == updated, seed
        assert int(est.n_updates_) == sum(updated), seed
        lib_u, lib_v = library_weights(est)
        assert lib_u == u, seed                     # exact equality of rationals
        if kind != "PW":
            assert lib_v == v, seed
        ties += len(tie)
    # the streams are about ties: the first rounds are exact ties of the threshold
    assert ties >= len(SEEDS)


@pytest.mark.parametrize("kind", list(CLASSES))
def test_the_first_tie_predicts_negative(kind):
    """Round 0 has ``score = 0`` exactly at every threshold: a mistake iff ``y = +1``
    (the stream's first row is positive), and the weights it changes are the
    initial ones times the factors, rounded once."""
    for theta in THETAS:
        for factors in FACTORS:
            est, (X, y, p), (mistakes, *_rest, amb, tie) = replay(kind, factors, theta, 0)
            assert 0 in tie and 0 not in amb
            assert bool(est.mistakes_[0]) and mistakes[0]


def _voted_weights(voted):
    m_u, e_u, m_v, e_v = voted.learner_._average_arrays()

    def read(m, e):
        return [Fraction(float(abs(mj))) * Fraction(2) ** (256 * int(ej)) for mj, ej in zip(m, e)]
    return read(m_u, e_u), (read(m_v, e_v) if len(m_v) else None)


@pytest.mark.parametrize("weights", ["rounds", "correct"])
@pytest.mark.parametrize("theta", list(THETAS))
@pytest.mark.parametrize("factors", list(FACTORS))
@pytest.mark.parametrize("kind", list(CLASSES))
def test_the_voted_learner_is_the_vote_of_the_replay(kind, factors, theta, weights):
    """The learner inside the vote retraces the replay; the vote's weights are the
    exact vote of the replay's hypotheses to the rounding of its float sums: each of
    the ``k`` products and sums that build a weight's sum rounds once, and the
    division once, so the relative error is at most ``(k + 2) 2**-53``."""
    for seed in SEEDS:
        X, y = stream(seed, kind)
        alpha, beta = FACTORS[factors]
        p = params(kind, THETAS[theta])
        voted = Averaged(CLASSES[kind](alpha=alpha, beta=beta, **p), weights=weights)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            voted.fit(X, y)
        inner = voted.learner_
        mistakes, updated, hypotheses, (u, v) = exact_winnow(
            kind, p, X, y, alpha=alpha, beta=beta, rounded=True,
            library=(inner.mistakes_, _updates(CLASSES[kind](alpha=alpha, beta=beta, **p),
                                               X, y)))
        assert inner.mistakes_.tolist() == mistakes, seed
        assert library_weights(inner)[0] == u, seed
        vote = exact_vote(hypotheses, updated, weights)
        got_u, got_v = _voted_weights(voted)
        k = X.shape[0] + 2
        for got, want in ((got_u, vote[0]), (got_v, vote[1] if kind != "PW" else None)):
            if got is None:
                continue
            for g, w in zip(got, want):
                assert abs(g - w) <= 2 * (k + 2) * UNIT * w, (seed, float(g), float(w))
