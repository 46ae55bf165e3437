"""Winnow against exact rational arithmetic (issue 26, item 6).

A Winnow predicts positive iff its score is > 0, so a score exactly at the
threshold must predict negative.  On short 0/1 streams with ``alpha = 3/2``,
``beta = 1/2`` and a threshold equal to the initial score, such exact ties
are common, and every float olearn computes is exact (dyadic rationals with
few significant bits, divisions by ``1 + sum x`` a power of two or giving the
threshold exactly): the float learner must make the mistakes the exact
learner makes, round by round, and end with the exact weights.  Before the
fix the initial weight was ``exp(log theta0)`` (3.0000000000000004 for 3) and
20 of 200 Positive Winnow streams and 27 of 300 Balanced Winnow streams
disagreed.

:func:`winnow_reference.exact_winnow` is the rule of Carvalho and Cohen (2006,
section 2.2) in ``fractions.Fraction``; :func:`winnow_reference.exact_vote` the
vote of :class:`olearn.Averaged` (both weightings) from the exact hypotheses
(``tests/winnow_reference.py``, shared with ``tests/test_winnow_fraction.py``).
"""
import warnings
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from olearn import Averaged, BalancedWinnow, ModifiedBalancedWinnow, PositiveWinnow
from winnow_reference import exact_scores, exact_vote, exact_winnow

#: (class, its parameters); the thresholds put the first rounds on a tie
SETTINGS = {
    "PW": (PositiveWinnow, dict(theta0=3.0, theta=3.0)),
    "BW": (BalancedWinnow, dict(theta0_pos=3.0, theta0_neg=1.0, theta=2.0)),
    "MBW": (ModifiedBalancedWinnow,
            dict(theta0_pos=3.0, theta0_neg=1.0, theta=2.0, margin=0.0)),
    "MBW-margin": (ModifiedBalancedWinnow,
                   dict(theta0_pos=3.0, theta0_neg=1.0, theta=1.5, margin=0.5)),
}


def binary_stream(seed, kind):
    """A short 0/1 stream.  For MBW every row has 1, 3 or 7 ones, so that
    ``x~_j = 1 / (1 + sum x)`` and its factors are exact in binary."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(4, 13)), 8
    if kind.startswith("MBW"):
        X = np.zeros((n, d))
        for row in X:
            row[rng.choice(d, rng.choice([1, 3, 7]), replace=False)] = 1.0
    else:
        X = (rng.random((n, d)) < 0.4).astype(float)
    y = np.where(rng.random(n) < 0.5, 1, -1)
    y[rng.integers(n)] *= -1 if np.all(y == y[0]) else 1   # both labels
    return X, y


def as_floats(weights):
    return np.array([float(w) for w in weights])


def check_exact(kind, seed):
    """Whether the float learner retraces the exact one on stream ``seed``:
    ``(same, exact)`` with the float weights required to be exact first."""
    cls, params = SETTINGS[kind]
    X, y = binary_stream(seed, kind)
    mistakes, updated, hypotheses, (u, v) = exact_winnow(kind, params, X, y)
    est = cls(alpha=1.5, beta=0.5, **params).fit(sp.csr_matrix(X), y)
    exact_u = np.array_equal(est.u_, as_floats(u))
    exact_v = kind == "PW" or np.array_equal(est.v_, as_floats(v))
    same = (est.mistakes_.tolist() == mistakes
            and int(est.n_updates_) == sum(updated) and exact_u and exact_v)
    return same, est, (X, y, updated, hypotheses)


@pytest.mark.parametrize("kind", list(SETTINGS))
def test_mistakes_equal_exact_arithmetic(kind):
    """Round by round the mistakes, the number of updates and the final
    weights of exact arithmetic, on 200 streams full of exact ties."""
    wrong = [seed for seed in range(200) if not check_exact(kind, seed)[0]]
    assert wrong == [], f"{kind}: {len(wrong)} of 200 streams differ: {wrong[:10]}"


@pytest.mark.parametrize("kind", list(SETTINGS))
def test_streams_are_full_of_ties(kind):
    """The test above is about ties: most streams have a round whose exact
    score is exactly at the threshold (MBW: at the margin)."""
    cls, params = SETTINGS[kind]
    with_tie = 0
    for seed in range(200):
        X, y = binary_stream(seed, kind)
        _, _, hypotheses, _ = exact_winnow(kind, params, X, y)
        seen = np.zeros(X.shape[1], dtype=bool)
        for t in range(X.shape[0]):
            seen |= X[t] != 0
            score = exact_scores(kind, params, hypotheses[t], X[t:t + 1], seen)[0]
            if score == 0 or (kind.startswith("MBW") and abs(score) == Fraction(params["margin"])):
                with_tie += 1
                break
    assert with_tie >= 100


@pytest.mark.parametrize("theta0", [3.0, 0.1, 1e-300, 5e-324, 1e300, 2.0 ** 256,
                                    2.0 ** -256, 7.0 * 2.0 ** 600])
def test_initial_weight_is_theta0_exactly(theta0):
    """Any theta0 > 0 is stored exactly (``math.frexp``), in range or not."""
    est = PositiveWinnow(theta0=theta0)
    est._init_state(3)
    m, e = np.abs(est._u), est._ue
    value = [Fraction(float(mj)) * Fraction(2) ** (256 * int(ej)) for mj, ej in zip(m, e)]
    assert value == [Fraction(theta0)] * 4
    assert np.all((m >= 2.0 ** -256) & (m < 2.0 ** 256))
    plain = 2.0 ** -256 <= theta0 < 2.0 ** 256
    assert np.all((e == 0) == plain)
    assert np.all((est._u < 0) == (e != 0))     # negated iff exponent != 0


@pytest.mark.parametrize("kind", ["PW", "BW", "MBW"])
@pytest.mark.parametrize("weights", ["rounds", "correct"])
def test_voted_learners_equal_exact_arithmetic(kind, weights):
    """The voted learners: the learner inside retraces the exact one, and the
    vote's scores have the sign of the exact vote's (where that is not 0) and
    are within rounding of it (the vote divides by the credits)."""
    cls, params = SETTINGS[kind]
    checked = 0
    for seed in range(60):
        X, y = binary_stream(seed, kind)
        mistakes, updated, hypotheses, _ = exact_winnow(kind, params, X, y)
        voted = Averaged(cls(alpha=1.5, beta=0.5, **params), weights=weights)
        voted.fit(sp.csr_matrix(X), y)
        assert voted.mistakes_.tolist() == mistakes, seed
        vote = exact_vote(hypotheses, updated, weights)
        seen = np.any(X != 0, axis=0)
        exact = exact_scores(kind, params, vote, X, seen)
        got = voted.decision_function(X)
        for g, s in zip(got, exact):
            assert abs(Fraction(float(g)) - s) <= Fraction(1, 2 ** 48) * (1 + abs(s)), seed
            if s != 0:
                assert (g > 0) == (s > 0), seed
                checked += 1
    assert checked > 100
