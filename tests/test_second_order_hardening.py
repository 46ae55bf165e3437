"""Issue 26, items 1, 9, 10 and 13: the second-order learners on extreme rows.

* Item 1: every variance stays positive, for every rule, both diagonal
  readings and the full layout (:mod:`olearn.second_order._variance`).
* Item 9: SCW on a row of ``||x||^2 ~ 1e120`` raises ``NonFiniteModelError``
  naming the row, with the model of the rounds before (not a bare
  ``ZeroDivisionError`` and a fresh model).
* Item 10: a matrix whose pass would stop on an overflow before reaching a
  row the up-front scan refuses raises the scan's error and leaves the
  estimator as it was, in every layout.
* Item 13: the overflow error names one round, numbered as the base numbers
  rounds.
"""
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone

from olearn import AROW, CW, NAROW, SCW, SOP
from olearn._checks import FeatureRangeError
from olearn.base import NonFiniteModelError
from olearn.second_order import rules


def every_rule():
    return [AROW(), NAROW(), SOP(), CW(), CW(version="stdev"), SCW(),
            SCW(variant="II")]


def layouts(est):
    """The learner with diagonal covariance (both readings) and full."""
    return [clone(est).set_params(covariance="diag", diagonal="covariance"),
            clone(est).set_params(covariance="diag", diagonal="precision"),
            clone(est).set_params(covariance="full")]


def label(est):
    extra = {k: v for k, v in est.get_params().items()
             if k in ("version", "variant", "covariance", "diagonal")}
    return type(est).__name__ + "-" + "-".join(map(str, extra.values()))


CASES = [e for rule in every_rule() for e in layouts(rule)]
IDS = [label(e) for e in CASES]


def variances(est):
    Sigma = est.covariance_
    return np.diag(Sigma) if Sigma.ndim == 2 else Sigma


# -- item 1 ----------------------------------------------------------------
@pytest.mark.parametrize("value", [1e8, -1.2e10, -8335519708.024438, 3e12])
@pytest.mark.parametrize("est", CASES, ids=IDS)
def test_one_extreme_feature_leaves_a_positive_variance(est, value):
    """A single nonzero value carries all of ``chi``: the covariance reading
    cancelled to exactly 0 (1e8) or to -2.2e-16 (-8.3e9); every reading and
    layout now gives the exact ``Sigma_00 / (1 + gamma Sigma_00 x^2)`` (to
    rounding: the precision reading computes it directly)."""
    X = np.array([[value, 0.0], [0.0, 1.0]])
    model = clone(est).fit(X, [1, 0])
    Sigma = variances(model)
    assert (Sigma > 0).all(), Sigma
    exact = variances(clone(est).set_params(covariance="diag",
                                            diagonal="precision").fit(X, [1, 0]))
    assert_allclose(Sigma, exact, rtol=1e-12)


def dominated_stream():
    """The issue's stream: one row with a feature of -8.3e9 (its variance
    then cancelled to -2.2e-16), then 200 label-1 rows using that feature at
    1e8 and a second one at about 1."""
    rng = np.random.default_rng(1)
    for _ in range(5):    # the draws before this stream in the search that found it
        rng.normal(size=(201, 2))
    X = np.abs(rng.normal(size=(201, 2))) * [1e8, 1.0]
    X[0] = [-8335519708.024438, 0.5]
    return X, np.ones(201, dtype=int)


@pytest.mark.parametrize("make", [AROW, NAROW, SOP])
def test_the_covariance_reading_learns_after_an_extreme_feature(make):
    """Before: ``x' Sigma x < 0`` on every later row, no update, 67-69
    mistakes of 201 with ``diagonal="covariance"`` against 3 with
    ``"precision"``.  Now both readings learn alike."""
    X, y = dominated_stream()
    cov = make(covariance="diag", diagonal="covariance").partial_fit(X, y, classes=[0, 1])
    prec = make(covariance="diag", diagonal="precision").partial_fit(X, y, classes=[0, 1])
    assert (cov.covariance_ > 0).all()
    assert prec.n_mistakes_ <= 5
    assert cov.n_mistakes_ == prec.n_mistakes_
    # the dominant feature's variance: the two projections agree on it
    assert_allclose(cov.covariance_[0], prec.covariance_[0], rtol=1e-2)


@pytest.mark.parametrize("est", CASES, ids=IDS)
def test_variances_stay_positive_on_rows_of_mixed_scales(est):
    """Rows mixing features of 1e6-1e10 with features of about 1: every
    variance stays positive after every call, in every layout."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((60, 4))
    X[:, 0] *= 10.0 ** rng.uniform(6, 10, 60)
    y = np.where(X[:, 1] > 0, 1, 0)
    model = clone(est)
    for part in np.array_split(np.arange(60), 6):
        try:
            model.partial_fit(X[part], y[part], classes=[0, 1])
        except NonFiniteModelError:   # refused, with the model of the round before
            pass
        assert (variances(model) > 0).all()


@pytest.mark.parametrize("diagonal", ["precision", "covariance"])
def test_a_variance_that_underflows_is_an_error_not_a_zero(diagonal):
    """``gamma Sigma_jj x_j^2`` overflowing (``r = 1e-300``) left
    ``Sigma_jj = 0`` in silence; it is now refused as a non-finite round, the
    model kept as before it."""
    est = AROW(r=1e-300, covariance="diag", diagonal=diagonal)
    X = np.array([[1.0, 1.0], [1e30, 0.0]])
    with pytest.raises(NonFiniteModelError, match="underflowed to 0") as error:
        est.fit(X, [1, 0])
    assert error.value.round == 2 and error.value.row == 1
    assert est.n_rounds_ == 1 and (est.covariance_ > 0).all()


def test_a_full_covariance_that_lost_positive_definiteness_is_an_error():
    """Full covariance, a feature at 1e6-1e12 beside features of about 1: the
    rank-one updates cancel to all 16 digits and ``x' Sigma x`` comes out
    <= 0 on a later row, which the pass skipped in silence (no update, a
    prediction from a meaningless score).  It now stops there, names the
    cause and the fix, and keeps the model of the rounds before."""
    rng = np.random.default_rng(2)
    X = rng.standard_normal((60, 4))
    X[:, 0] *= 10.0 ** rng.uniform(6, 12, 60)
    y = np.where(X[:, 1] > 0, 1, 0)
    est = AROW()
    with pytest.raises(NonFiniteModelError, match="positive definiteness") as error:
        est.fit(X, y)
    t = error.value.round - 1
    assert est.n_rounds_ == t and t > 0
    prefix = AROW().fit(X[:t], y[:t])
    assert_array_equal(est.coef_, prefix.coef_)
    x = X[t]
    assert x @ prefix.covariance_ @ x <= 0      # the row it stopped on


def test_the_variance_form_is_the_plain_one_on_a_normal_stream():
    """Where the subtraction keeps more than half of ``Sigma_jj`` the pass
    writes it as before: on a stream whose rows spread ``chi`` over many
    features the covariance reading is bit for bit the plain form's."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 40))
    y = np.where(X @ rng.standard_normal(40) > 0, 1, 0)
    est = AROW(r=10.0, covariance="diag", diagonal="covariance").fit(X, y)
    mu, Sigma = np.zeros(40), np.ones(40)
    for x, label_ in zip(X, 2 * y - 1):
        m, chi = mu @ x, Sigma @ (x * x)
        if label_ * m < 1.0:
            beta = 1.0 / (chi + 10.0)
            s = Sigma * x
            mu += max(0.0, 1.0 - label_ * m) * beta * label_ * s
            Sigma = Sigma - beta * s * s
    assert_allclose(est.covariance_, Sigma, rtol=1e-12)
    assert_allclose(est.coef_.ravel(), mu, rtol=1e-9, atol=1e-12)


# -- item 9 ----------------------------------------------------------------
def test_every_rule_sets_numpys_error_model():
    """numba compiles a callee with its caller's error model unless it sets
    one: the rules raised ``ZeroDivisionError`` or returned ``inf`` depending
    on which pass compiled them first.  Each sets ``error_model="numpy"``."""
    for name in ("arow_step", "narow_step", "cw_variance_step", "_stdev_cov",
                 "_stdev_alpha", "cw_stdev_step", "scw1_step", "scw2_step",
                 "sop_step", "rule_step"):
        assert getattr(rules, name).targetoptions.get("error_model") == "numpy", name
    gamma = rules.scw1_step(-1e160, 1e160, 1.0, 1.6448536269514722, 1.0)[2]
    assert not np.isfinite(gamma)        # inf, for the pass to stop on


def huge_row_stream():
    rng = np.random.default_rng(3)
    X0 = rng.standard_normal((5, 3))
    y0 = np.array([0, 1, 0, 1, 1])
    X = np.vstack([X0, [[1e60, 0.0, 0.0]], X0])
    return X, np.r_[y0, 0, y0]


@pytest.mark.parametrize("fmt", [np.asarray, sp.csr_matrix])
@pytest.mark.parametrize("covariance", ["full", "diag"])
def test_scw_on_a_huge_row_raises_nonfinite_and_keeps_the_prefix(covariance, fmt):
    """SCW-II, row 5 with ``||x||^2 = 1e120`` (accepted by the input check):
    its ``w^2`` overflows, ``sqrt(u) = 0``.  Before: a bare
    ``ZeroDivisionError`` and, from ``fit``, a fresh all-zero model (when the
    full pass compiled the rules first, as here run alone; after the diagonal
    pass had, the rules inherited its error model and the old code passed:
    the test above is the one that does not depend on the order).  Now
    ``NonFiniteModelError`` at round 6 (row 5), the fix named, the model
    of the first five rounds kept."""
    X, y = huge_row_stream()
    est = SCW(variant="II", covariance=covariance)
    est.fit(fmt(X[:3]), y[:3])                      # a previous fit
    with pytest.raises(NonFiniteModelError, match="Scale the features") as error:
        est.fit(fmt(X), y)
    assert (error.value.round, error.value.row) == (6, 5)
    prefix = SCW(variant="II", covariance=covariance).fit(fmt(X[:5]), y[:5])
    assert est.n_rounds_ == 5
    assert_array_equal(est.coef_, prefix.coef_)
    assert np.abs(est.coef_).max() > 0
    assert_array_equal(est.predict(X[:5]), prefix.predict(X[:5]))


# -- item 10 ---------------------------------------------------------------
#: SOP(a=1e-200): row 0 turns the mean NaN, so the step of round 2 (row 1) is
#: not finite; row 3 underflows (the up-front scan refuses it)
OVERFLOW_THEN_REFUSED = np.array([
    [-6.24627639896314e+60, 0.0],
    [-1.1095086140482477e-112, -2.7132425564404304e+109],
    [-6.90630064458995e-133, -1.7027562900813525e-36],
    [1e-170, 0.0],
    [0.0, -5.0974905642712406e+82]])


def non_canonical(X):
    """CSR with every value split into two duplicate entries."""
    data, indices, indptr = [], [], [0]
    for row in X:
        for j, v in enumerate(row):
            if v != 0.0:
                data += [v / 2, v / 2]
                indices += [j, j]
        indptr.append(len(data))
    return sp.csr_matrix((data, indices, indptr), shape=X.shape)


LAYOUTS = {"dense": (np.asarray, "diag"), "csr": (sp.csr_matrix, "diag"),
           "non-canonical csr": (non_canonical, "diag"),
           "full": (np.asarray, "full")}


@pytest.mark.parametrize("previous", [False, True])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_every_layout_raises_the_scans_error_and_keeps_the_estimator(layout, previous):
    """Before: dense and canonical CSR raised ``NonFiniteModelError`` (round
    2) and left the estimator fitted on round 1; non-canonical CSR and full
    covariance raised the scan's ``FeatureRangeError`` (row 3) and left it
    untouched.  Now every layout raises the latter and keeps the estimator."""
    make, covariance = LAYOUTS[layout]
    est = SOP(covariance=covariance, a=1e-200)
    if previous:
        est.fit(np.array([[1.0, 2.0], [2.0, 1.0]]), [0, 1])
        before = (est.coef_.copy(), est.covariance_.copy(), est.n_rounds_)
    with pytest.raises(FeatureRangeError, match="Row 3 of X"):
        est.fit(make(OVERFLOW_THEN_REFUSED), [1, 0, 1, 0, 1])
    if previous:
        assert_array_equal(est.coef_, before[0])
        assert_array_equal(est.covariance_, before[1])
        assert est.n_rounds_ == before[2]
    else:
        assert not hasattr(est, "classes_")
    with pytest.raises(FeatureRangeError, match="Row 3 of X"):
        est.partial_fit(make(OVERFLOW_THEN_REFUSED), [1, 0, 1, 0, 1],
                        classes=[0, 1])


# -- item 13 ---------------------------------------------------------------
def test_the_overflow_error_names_one_round():
    """Exact CW, diagonal: the error said "round 4 of this call" (the row of
    a bisection slice) and "round 257"; it names one round now, the base's
    (1-based over every round seen), equal to ``error.round``."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2_000, 50))
    y = np.where(X @ rng.standard_normal(50) > 0, 1, 0)
    est = CW(version="stdev", covariance="diag")
    est.partial_fit(X[:100], y[:100])
    with pytest.raises(NonFiniteModelError, match="diverges") as error:
        est.partial_fit(X[100:], y[100:])
    text = str(error.value)
    assert "of this call overflowed" not in text
    rounds = {int(part.split()[0].strip(",.:;()")) for part in text.split("round ")[1:]
              if part.split()[0].strip(",.:;()").isdigit()}
    assert error.value.round in rounds
    assert rounds <= {error.value.round, error.value.round - 1}   # and "after round t-1"
    assert error.value.row == error.value.round - 101


def test_a_rule_that_diverges_whatever_the_scale_is_not_told_to_scale():
    """Exact CW, diagonal: the learner's message says its projection diverges
    whatever the scale of the features; the base's generic ending ("The values
    of X ... leave float64's range ... scale the features") contradicted it.
    The error keeps the learner's cause and fix and adds no generic advice."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2_000, 50))
    y = np.where(X @ rng.standard_normal(50) > 0, 1, 0)
    est = CW(version="stdev", covariance="diag")
    with pytest.raises(NonFiniteModelError, match="diverges whatever the scale") as error:
        est.fit(X, y)
    text = str(error.value)
    assert "leave float64's range" not in text
    assert "version='variance'" in text          # the learner's own fix is kept
