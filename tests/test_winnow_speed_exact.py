"""The fast Winnow loops give bit-for-bit the results of the reference loops.

``olearn.linear.winnow`` trains with one compiled loop per learner (plain
mantissas in the score, one multiply and one range test per updated weight,
renormalisation queued).  These tests pin its results to those of the
general per-round code it replaced (commit 8bd0b38: ``winnow_score`` then
``winnow_update`` on every round): SHA-256 digests of the per-round record
(``mistakes_``, ``margins_``), the exact state (mantissas, exponents, the
seen mask) and test-time scores, computed with that code on four streams --
the quick benchmark stream of ``benchmarks/throughput.py``, a stream whose
weights leave the plain-float range with explicit zeros stored in the CSR
structure, one with factors 1e20 / 1e-20 (exponents of both signs, the
scaled score), a dense one, and CSR rows of 0 to 9 nonzeros (the ragged
stream: MBW's update takes two features a step, so odd and even lengths and
empty rows; digests added later, computed by the code of the same commit).
Past the initial weights (``exp(log theta0)``, exact for the default
theta0 = 1, 2 -- checked below), only IEEE
+, *, / and ldexp enter these numbers, so the digests do not depend on the
platform's libm.

A second, independent check: the voted learners update through the general
``winnow_update`` (their log-domain bookkeeping needs it); the learner inside
``Averaged`` must retrace the plain learner exactly.
"""
import hashlib
import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from olearn import Averaged, BalancedWinnow, ModifiedBalancedWinnow, PositiveWinnow
from test_winnow import extreme_stream, text_like

ROOT = Path(__file__).resolve().parents[1]
LEARNERS = {"PW": PositiveWinnow, "BW": BalancedWinnow, "MBW": ModifiedBalancedWinnow}

# digests computed by the reference loops of commit 8bd0b38 (see the docstring)
STORED = {
    'bench_quick/PW': {'n_mistakes': 8547, 'n_updates': 8547, 'record': 'efaf5caa65fbda69', 'state': '85ef2d552b9f5dbb', 'decision': '5dfe9ccc972b353a'},
    'bench_quick/BW': {'n_mistakes': 8548, 'n_updates': 8548, 'record': '198ba4bdab75e51c', 'state': '10d3aa1685d0e742', 'decision': 'c1f59c025e1e1d0f'},
    'bench_quick/MBW': {'n_mistakes': 9110, 'n_updates': 17734, 'record': 'dd52cd74f8095508', 'state': 'd77598ba8bfbb3fe', 'decision': '860ee532bc202f21'},
    'extreme_csr_zeros/PW': {'n_mistakes': 11915, 'n_updates': 11915, 'record': '13efe6ee2e856380', 'state': 'abbb576dcce3f9af', 'decision': '34cc356e8b40d835'},
    'extreme_csr_zeros/BW': {'n_mistakes': 11378, 'n_updates': 11378, 'record': '5d12c53b4ef76e4c', 'state': 'd76e177184435f74', 'decision': 'b5526bbb32160ca2'},
    'extreme_csr_zeros/MBW': {'n_mistakes': 14226, 'n_updates': 19431, 'record': '1317ee087ab3d787', 'state': 'c9657e0d6932325d', 'decision': '933c52795d2e6026'},
    'extreme_big_factors/PW': {'n_mistakes': 2447, 'n_updates': 2447, 'record': 'aca8ed26a07536d5', 'state': 'e8187bcb2766364c', 'decision': 'c2ee20ba300fcd6e'},
    'extreme_big_factors/BW': {'n_mistakes': 1658, 'n_updates': 1658, 'record': '7e5b29a94c4d0950', 'state': 'c0f720ab735bb43c', 'decision': '23d9e0d61d132d12'},
    'extreme_big_factors/MBW': {'n_mistakes': 1845, 'n_updates': 1968, 'record': '19d69895821cfc63', 'state': 'a2ebb7caff728487', 'decision': '3b3f89a1d03ebbf6'},
    'ragged/PW': {'n_mistakes': 1186, 'n_updates': 1186, 'record': 'cd8c1698ce5654c0', 'state': 'eaedd674b9aaba56', 'decision': 'f9e403c5ac6b5f67'},
    'ragged/BW': {'n_mistakes': 1046, 'n_updates': 1046, 'record': '0c53566dfb932660', 'state': '8251801225498042', 'decision': '7c362e326f170b1b'},
    'ragged/MBW': {'n_mistakes': 1117, 'n_updates': 2919, 'record': '3c4b05424b97ece2', 'state': '7c4dd983693f15d0', 'decision': 'e2d2c6c0c3140ec2'},
    'text_dense/PW': {'n_mistakes': 791, 'n_updates': 791, 'record': '30c31951438d0d7b', 'state': 'fad691b8b94fdda8', 'decision': 'bf5ccc1c5c53863c'},
    'text_dense/BW': {'n_mistakes': 790, 'n_updates': 790, 'record': '4f8360522436b817', 'state': 'f41d2270b863e8a5', 'decision': '2cb4ca227f3d7371'},
    'text_dense/MBW': {'n_mistakes': 1119, 'n_updates': 2241, 'record': '3f73eeb91dcd47ee', 'state': 'b7f2fd39c044222d', 'decision': '7c826bee13d41c69'},
}


def digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def bench_quick():
    spec = importlib.util.spec_from_file_location(
        "throughput", ROOT / "benchmarks" / "throughput.py")
    throughput = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(throughput)
    return throughput.make_stream("sparse 200k x 50k, 75 nnz/row", True)


def stream(name):
    if name == "bench_quick":
        return bench_quick()
    if name == "extreme_csr_zeros":
        X, y = extreme_stream(30000, seed=3)
        X = sp.csr_matrix(X)
        X.data[::7] = 0.0                   # explicit zeros: not features of the row
        return X, y
    if name == "extreme_big_factors":
        X, y = extreme_stream(5000, seed=4)
        return sp.csr_matrix(X), y
    if name == "text_dense":
        return text_like(n=3000, d=40, seed=5)
    if name == "ragged":
        return ragged_stream()
    raise KeyError(name)


def ragged_stream():
    """CSR rows of 0 to 9 nonzeros, no stored zeros: odd and even lengths
    and empty rows for MBW's update two features a step (the last one of an
    odd row alone), 590 of 6,000 rows empty."""
    rng = np.random.default_rng(11)
    n, d = 6000, 40
    lengths = rng.integers(0, 10, n)
    indices = np.concatenate([np.sort(rng.choice(d, k, replace=False))
                              for k in lengths]).astype(np.int32)
    indptr = np.r_[0, np.cumsum(lengths)].astype(np.int32)
    X = sp.csr_matrix((rng.exponential(size=indices.size), indices, indptr),
                      shape=(n, d))
    return X, np.where(X @ rng.standard_normal(d) > 0, 1, -1)


def params(name):
    return dict(alpha=1e20, beta=1e-20) if name == "extreme_big_factors" else {}


STREAMS = sorted({key.split("/")[0] for key in STORED})


def fit(cls, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # MBW zero-row warning
        return cls(**kw).fit(X, y)


@pytest.mark.parametrize("name", STREAMS)
def test_bit_identical_to_reference_loops(name):
    X, y = stream(name)
    for short, cls in LEARNERS.items():
        est = fit(cls, X, y, **params(name))
        got = dict(n_mistakes=int(est.n_mistakes_), n_updates=int(est.n_updates_),
                   record=digest(est.mistakes_, est.margins_),
                   state=digest(est._u, est._ue, est._v, est._ve, est._seen),
                   decision=digest(est.decision_function(X[:min(2000, X.shape[0])])))
        assert got == STORED[f"{name}/{short}"], short


def test_initial_weights_exact():
    """The digests start from the exact theta0 (the state is built through
    exp(log theta0)): a libm that rounds it otherwise fails here first."""
    for cls in LEARNERS.values():
        est = cls()
        est._init_state(40)
        theta_u, theta_v = est._initial()
        assert np.all(est._u == theta_u) and np.all(est._ue == 0)
        if theta_v is not None:
            assert np.all(est._v == theta_v) and np.all(est._ve == 0)


def test_streams_exercise_the_slow_paths():
    """The stored streams reach what the fast loop must hand over: weights
    below and above the plain range (negative and positive exponents) and
    explicit zeros."""
    X, y = stream("extreme_big_factors")
    est = fit(BalancedWinnow, X, y, **params("extreme_big_factors"))
    assert est._ve.max() > 0 and est._ue.min() < 0
    X, y = stream("extreme_csr_zeros")
    assert np.count_nonzero(X.data == 0.0) > 1000
    est = fit(ModifiedBalancedWinnow, X, y)
    assert est._ve.min() < 0


@pytest.mark.parametrize("name", ["extreme_csr_zeros", "extreme_big_factors",
                                  "text_dense", "ragged"])
@pytest.mark.parametrize("weights", ["rounds", "correct"])
def test_voted_learner_retraces_plain_learner(name, weights):
    """The voted learner (its pending votes added before each update, in the
    same compiled pass) retraces the plain learner bit for bit."""
    X, y = stream(name)
    for cls in LEARNERS.values():
        plain = fit(cls, X, y, **params(name))
        voted = Averaged(cls(**params(name)), weights=weights)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            voted.fit(X, y)
        inner = voted.learner_
        assert_array_equal(inner.mistakes_, plain.mistakes_)
        assert_array_equal(inner.margins_, plain.margins_)
        for a, b in zip((inner._u, inner._ue, inner._v, inner._ve, inner._seen),
                        (plain._u, plain._ue, plain._v, plain._ve, plain._seen)):
            assert_array_equal(a, b)
        assert inner.n_updates_ == plain.n_updates_


def test_csr_with_zeros_equals_csr_without():
    """Explicit zeros change nothing: neither the score, nor the update, nor
    the seen mask."""
    X, y = stream("extreme_csr_zeros")
    Xc = X.copy()
    Xc.eliminate_zeros()
    for cls in LEARNERS.values():
        a, b = fit(cls, X, y), fit(cls, Xc, y)
        assert_array_equal(a.margins_, b.margins_)
        assert_array_equal(a._u, b._u)
        assert_array_equal(a._seen, b._seen)


def log_domain_vote(cls, X, y, weights, **kw):
    """The vote of the former implementation, in the log domain: every
    hypothesis ``(log u, log v)`` and its credit, summed with logaddexp."""
    est = cls(**kw)
    lz, terms_u, terms_v = 0, [], []
    balanced = cls is not PositiveWinnow
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for t in range(X.shape[0]):
            if t == 0:
                est.partial_fit(X[:1], y[:1], classes=[-1, 1])
                probe = cls(**kw)
                probe._init_state(X.shape[1])
                before = (probe.log_u_, probe.log_v_ if balanced else None)
            else:
                before = (est.log_u_, est.log_v_ if balanced else None)
                est.partial_fit(X[t:t + 1], y[t:t + 1])
            if cls is ModifiedBalancedWinnow:
                fired = est.margins_[-1] <= est.margin
            else:
                fired = est.mistakes_[-1]
            hyp = before if weights == "correct" else (
                est.log_u_, est.log_v_ if balanced else None)
            if weights == "rounds" or not fired:
                terms_u.append(hyp[0])
                terms_v.append(hyp[1])
                lz += 1
    with np.errstate(divide="ignore"):
        log_u = np.logaddexp.reduce(np.array(terms_u), axis=0) - np.log(lz)
        log_v = (np.logaddexp.reduce(np.array(terms_v), axis=0) - np.log(lz)
                 if balanced else None)
    return log_u, log_v


@pytest.mark.parametrize("weights", ["rounds", "correct"])
@pytest.mark.parametrize("short", list(LEARNERS))
def test_vote_sums_equal_the_log_domain_vote(short, weights):
    """The vote is kept as mantissa/exponent sums (one multiply and add per
    changed weight) instead of log-domain sums (a log, log1p and exp each):
    equal within round-off, with weights and vote sums beyond 2**256."""
    from olearn.linear.winnow import _to_log
    X, y = stream("extreme_big_factors")
    cls = LEARNERS[short]
    kw = params("extreme_big_factors")
    voted = Averaged(cls(**kw), weights=weights)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        voted.fit(X, y)
    u, ue, v, ve = voted.learner_._average_arrays()
    log_u, log_v = log_domain_vote(cls, X, y, weights, **kw)
    inner = voted.learner_      # weights with exponents: the vote's slow path
    assert (inner._ue != 0).any() or (inner._ve != 0).any()
    assert_allclose(_to_log(u, ue), log_u, rtol=1e-12, atol=1e-9)
    if log_v is not None:
        assert_allclose(_to_log(v, ve), log_v, rtol=1e-12, atol=1e-9)


def test_chunks_is_ldexp_at_the_underflow_edge():
    """The score skips ``math.ldexp`` where a weight scaled by 2**(CHUNK k)
    rounds to 0 (``k <= ZERO_BELOW``); at that edge and above it, with
    mantissas across their range, the result is ldexp's bit for bit."""
    import math
    from olearn.linear.winnow import CHUNK, HI, LO, ZERO_BELOW, _chunks
    mantissas = [LO, 1.0, 3.0, 2.0 ** 200 * 1.7, math.nextafter(HI, 0.0)]
    for k in range(ZERO_BELOW - 3, 3):
        for x in mantissas:
            got, want = _chunks(x, k), math.ldexp(x, CHUNK * k)
            assert np.float64(got).view(np.uint64) == np.float64(want).view(np.uint64), (x, k)
    # the edge is tight: one chunk above it, the largest mantissa is not 0
    assert math.ldexp(math.nextafter(HI, 0.0), CHUNK * (ZERO_BELOW + 1)) > 0.0


def test_scaled_is_ldexp_for_every_chunk_exponent():
    """The row score of weights with nonzero exponents multiplies by exact
    powers of two (``_scaled``) instead of calling ``math.ldexp``: bit for
    bit the compiled ldexp's result (C's, which overflows to inf where
    Python's raises), for mantissas across and below their range, results
    that round into the subnormals or to 0 at every edge, and inf and NaN."""
    import math

    from numba import njit

    from olearn.linear.winnow import CHUNK, HI, LO, _scaled

    @njit
    def ldexp(x, k):
        return math.ldexp(x, CHUNK * k)

    rng = np.random.default_rng(0)
    mantissas = [0.0, LO, 1.0, 3.0, 2.0 ** 200 * 1.7, math.nextafter(HI, 0.0),
                 2.0 ** -766, 1.5 * 2.0 ** -767, 2.0 ** -300, 5e-324, math.inf, math.nan]
    mantissas += list(rng.uniform(1.0, 2.0, 400) * 2.0 ** rng.integers(-1074, 256, 400))
    for k in range(-12, 10):
        for x in mantissas:
            got, want = _scaled(x, k), ldexp(x, k)
            assert np.float64(got).view(np.uint64) == np.float64(want).view(np.uint64), (x, k)


def with_absent_column(X):
    """``X`` and one more column that is zero in every row (never present)."""
    if sp.issparse(X):
        return sp.hstack([X, sp.csr_matrix((X.shape[0], 1))], format="csr")
    return np.hstack([X, np.zeros((X.shape[0], 1))])


@pytest.mark.parametrize("name", ["bench_quick", "extreme_csr_zeros",
                                  "extreme_big_factors", "text_dense", "ragged"])
def test_fast_score_loop_equals_the_general_one(name):
    """The score pass has two loops: the general one (marks the row's features
    present, flags weights with a nonzero exponent) and one without either,
    taken while every feature is present and no feature weight has a nonzero
    exponent.  A feature that never occurs keeps the pass in the general loop
    throughout: the results must be the same bit for bit."""
    X, y = stream(name)
    for cls in LEARNERS.values():
        fast = fit(cls, X, y, **params(name))
        general = fit(cls, with_absent_column(X), y, **params(name))
        assert fast._seen.all() and not general._seen[-1]   # both loops taken
        assert_array_equal(fast.mistakes_, general.mistakes_)
        assert_array_equal(fast.margins_, general.margins_)
        keep = np.r_[np.arange(X.shape[1]), -1]            # the always-on last
        for a, b in ((fast._m, general._m), (fast._e, general._e)):
            assert_array_equal(a, b[keep])
        assert_array_equal(fast._seen, general._seen[:-1])


def test_streams_switch_between_the_score_loops():
    """The extreme streams move feature weights out of the plain range and
    back within one fit (chunks of partial_fit show both states with every
    feature present), so the test above covers the switch both ways."""
    X, y = stream("extreme_big_factors")
    est = ModifiedBalancedWinnow(**params("extreme_big_factors"))
    states = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for rows in np.array_split(np.arange(X.shape[0]), 50):
            est.partial_fit(X[rows], y[rows], classes=[-1, 1])
            if est._seen.all():
                states.add(bool((est._e[:-1] != 0).any()))
    assert states == {False, True}
