"""The diagonal second-order pass checks the input values itself (issue 19).

With ``covariance="diag"`` AROW, NAROW, CW, SCW and SOP skip the up-front scan
of every value (:func:`olearn._checks.check_values`, about 4 ms of a 50 ms
``fit`` on the sparse benchmark stream) and test each row in the pass instead
(:func:`olearn.second_order._passes.diag_pass`): from ``chi = x' Sigma x``
and bounds ``low <= Sigma_jj <= high``, re-reading a row only when ``chi``
leaves a band inside which no row can fail.  These tests hold that pass to
the up-front check's contract: the same error for the same input, the call
undone, and no row refused that the check accepts.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.base import clone

from olearn import AROW, CW, NAROW, SCW, SOP
from olearn._checks import FeatureRangeError, check_values
from olearn.second_order._passes import HIGH, LOW


def diag_learners():
    out = []
    for diagonal in ("precision", "covariance"):
        for est in (AROW(r=0.5), CW(), SCW(), SCW(variant="II"), SOP(), NAROW(b=0.5)):
            out.append(est.set_params(covariance="diag", diagonal=diagonal))
    return out


LEARNERS = diag_learners()
IDS = [f"{type(e).__name__}-{e.diagonal}" + (f"-{e.variant}" if hasattr(e, "variant") else "")
       for e in LEARNERS]


def stream(n=200, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    y[rng.random(n) < 0.1] *= -1
    X[::7] = 0.0   # all-zero rows: chi = 0, re-read and accepted
    return X, y


#: (format, fault): float32 cannot hold 1e200 or 1e-160 (they are inf and 0)
CASES = [(fmt, kind) for fmt in ("dense", "csr", "csr32")
         for kind in ("nan", "inf", "overflow", "underflow")
         if fmt != "csr32" or kind in ("nan", "inf")]


@pytest.mark.parametrize("fmt,kind", CASES, ids=[f"{f}-{k}" for f, k in CASES])
@pytest.mark.parametrize("est", LEARNERS, ids=IDS)
def test_the_pass_refuses_a_faulty_row_as_the_upfront_check_did(est, fmt, kind,
                                                                assert_refused_as_upfront):
    """A faulty row 130 stops the pass there (``_learn`` returns -1 - 130),
    the error is the one ``check_values`` raises, and the model is left as
    before the call: after ``partial_fit`` rounds 0..129 are undone, after
    ``fit`` the previous fit is kept (``conftest._assert_refused_as_upfront``,
    the linear learners' contract).  float32 CSR input is checked as the
    float64 values it stands for."""
    X, y = stream()
    convert = {"dense": np.asarray, "csr": sp.csr_matrix,
               "csr32": lambda A: sp.csr_matrix(A, dtype=np.float32)}[fmt]
    model = clone(est).fit(convert(X[:100]), y[:100])
    assert_refused_as_upfront(model, X, y, kind, convert)
    model.partial_fit(convert(X[100:]), y[100:])   # and learning goes on
    assert model.n_rounds_ == 200


@pytest.mark.parametrize("est", LEARNERS, ids=IDS)
def test_a_huge_row_is_refused_where_small_variances_keep_chi_finite(est):
    """The case a finiteness test of ``chi`` alone would miss: after the
    variances of two features have shrunk, a row of two values 1e154 has
    ``||x||^2 = 2e308`` (overflows) while ``chi = Sigma_00 1e308 + Sigma_11
    1e308`` stays finite; the bound ``low`` on the variances sends it to the
    exact test, and it is refused as ``check_values`` refuses it."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((400, 3))
    X[:, :2] *= 30.0
    y = np.where(X @ [1.0, -1.0, 0.5] > 0, 1, -1)
    y[rng.random(400) < 0.2] *= -1   # noise: the learners keep updating
    model = clone(est).fit(X, y)
    Sigma = model.covariance_
    assert Sigma[:2].max() < 0.25, Sigma
    row = np.array([[1e154, 1e154, 0.0]])
    assert np.isfinite(row @ (Sigma * row.ravel()))     # chi does not overflow
    with pytest.raises(FeatureRangeError):
        check_values(row)
    before = model.coef_.copy()
    with pytest.raises(FeatureRangeError):
        model.partial_fit(row, [1])
    assert_array_equal(model.coef_, before)


@pytest.mark.parametrize("scale", [1e-150, 1e-100, 1e100, 1e150])
@pytest.mark.parametrize("est", LEARNERS, ids=IDS)
def test_extreme_but_accepted_rows_learn_as_with_the_upfront_check(est, scale,
                                                                   monkeypatch):
    """Rows the up-front check accepts (values of 1e-150 or 1e150 whose squared
    norms stay in float64's range) are learned, and exactly as the run that
    scans the values first (``_values_checked_in_pass`` off) learns them."""
    X, y = stream(d=4)
    X = X * scale
    check_values(X)   # accepted
    for make in (np.asarray, sp.csr_matrix):
        inpass = clone(est)
        try:
            inpass.fit(make(X), y)
        except FloatingPointError as error:  # the rule's own overflow: alike below
            inpass = error
        upfront = clone(est)
        monkeypatch.setattr(type(upfront), "_values_checked_in_pass", False)
        try:
            upfront.fit(make(X), y)
        except FloatingPointError as error:
            assert str(error) == str(inpass)
            monkeypatch.undo()
            continue
        monkeypatch.undo()
        assert_array_equal(inpass.margins_, upfront.margins_)
        assert_array_equal(inpass.coef_, upfront.coef_)
        assert_array_equal(inpass.covariance_, upfront.covariance_)


@pytest.mark.parametrize("est", LEARNERS, ids=IDS)
def test_the_variance_bounds_hold(est):
    """``_state`` bounds every variance, after ``fit``, ``partial_fit`` and
    ``_set_model`` (the per-round checks set the model from outside)."""
    X, y = stream(n=300)
    model = clone(est).fit(X[:150], y[:150])
    for part in (None, slice(150, 300)):
        if part is not None:
            model.partial_fit(X[part], y[part])
        Sigma = model.covariance_
        assert model._state[LOW] <= Sigma.min() and Sigma.max() <= model._state[HIGH]
    Sigma = np.linspace(1e-3, 4.0, X.shape[1])
    model._set_model(np.zeros(X.shape[1]), Sigma)
    assert (model._state[LOW], model._state[HIGH]) == (Sigma.min(), Sigma.max())
    model.partial_fit(X[:50], y[:50])
    assert model._state[LOW] <= model.covariance_.min()


def test_full_covariance_still_scans_first(monkeypatch, with_fault):
    """The full-covariance pass does not test rows: its values are scanned
    before it runs, and a faulty X never reaches it."""
    model = AROW(covariance="full")
    assert not model._values_checked_in_pass
    monkeypatch.setattr(AROW, "_learn", lambda *a: pytest.fail("pass reached"))
    X, y = stream()
    with pytest.raises(ValueError, match="NaN"):
        model.fit(with_fault(X, "nan", 3), y)
