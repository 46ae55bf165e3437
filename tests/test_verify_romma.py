"""ROMMA and aggressive ROMMA: the library's closed form against the cvxpy program.

The program ``argmin ||w||^2 s.t. w.w_t >= ||w_t||^2, y w.x >= 1`` (Li and
Long 2002) is the independent formulation; the library side is one round of
the compiled code started at a random ``w_t``.  Rounds cover both constraints
active (mistakes, and margin errors for the aggressive variant), the first
update from ``w = 0``, the aggressive margin-only case, the anti-parallel
(infeasible) round and rounds without update.
"""
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

import olearn
from olearn.linear import SQNORM
from olearn.verify import library_step, start_from
from olearn.verify.romma import (CASES, ROMMA_CASES, check_romma,
                                 random_romma_round, romma_program)

N_ROUNDS = 210
TOL = 1e-7  # relative to max(1, ||w_{t+1}||_inf); Clarabel reaches ~1e-9


@pytest.fixture(scope="module", params=[False, True], ids=["ROMMA", "aggressive"])
def table(request):
    return request.param, check_romma(request.param, n_rounds=N_ROUNDS,
                                      random_state=11)


def test_closed_form_is_the_argmin(table):
    _, df = table
    assert len(df) == N_ROUNDS
    assert df["rel_diff"].max() < TOL, df.sort_values("rel_diff").tail()
    # the tracked ||w||^2 the next round reads is the new weight's
    assert df["sqnorm_drift"].max() < 1e-12
    # the library updates exactly on the rounds its rule says
    assert (df["n_updates"] == df["update"]).all()


def test_rounds_cover_every_case(table):
    aggressive, df = table
    cases = CASES if aggressive else ROMMA_CASES
    counts = df["case"].value_counts()
    assert set(counts.index) == set(cases)
    assert counts.min() >= 30, counts
    assert df["csr"].sum() >= 60 and (~df["csr"]).sum() >= 60
    # the case labels say what the program's argmin is (independent of the library)
    by = {case: df[df["case"] == case] for case in cases}
    both = by["both active"]
    assert (both["margin_active"] & both["halfspace_active"]).all()
    assert (both["status"] == "optimal").all() and (both["norm_w"] > 0).all()
    first = by["first update"]
    assert (first["norm_w"] == 0).all() and first["update"].all()
    assert first["margin_active"].all()
    anti = by["anti-parallel"]
    assert (anti["status"] == "infeasible").all() and anti["margin_active"].all()
    assert (anti["margin_before"] < 0).all()
    passive = by["passive"]
    assert not passive["update"].any() and (passive["margin_before"] > 0).all()
    assert (df[df["case"] != "passive"]["update"]).all()
    if aggressive:
        only = by["margin only"]
        assert only["margin_active"].all() and not only["halfspace_active"].any()
        assert (only["halfspace_slack"] > 0).all()
        assert (only["margin_before"] > 0).all()
        # both-active rounds include mistakes and margin errors
        assert (both["margin_before"] <= 0).sum() >= 10
        assert (both["margin_before"] > 0).sum() >= 10
    else:
        assert (both["margin_before"] <= 0).all()
        # ROMMA stays passive on margin errors 0 < y w.x < 1
        assert ((passive["margin_before"] < 1) & passive["margin_active"]).sum() >= 5
    assert df["norm_x"].min() < 0.2 and df["norm_x"].max() > 5.0
    assert set(df["d"]) >= {1, 2, 30}


def test_only_aggressive_romma_updates_on_margin_errors():
    rng = np.random.default_rng(0)
    for _ in range(20):
        w, x, y = random_romma_round(rng, "margin only", aggressive=True)
        assert 0 < y * (w @ x) < 1
        assert_array_equal(library_step(olearn.ROMMA(), w, x, y), w)
        step = library_step(olearn.AggressiveROMMA(), w, x, y)
        assert_allclose(step, romma_program(w, x, y).w, rtol=1e-7, atol=1e-9)
        assert_allclose(step, y * x / (x @ x), rtol=1e-12)


def test_zero_score_counts_as_a_mistake():
    """w_t orthogonal to x_t (score exactly 0): ROMMA updates, both constraints active."""
    w, x, y = np.array([2.0, 0.0, 0.0]), np.array([0.0, 1.0, -1.0]), -1.0
    step = library_step(olearn.ROMMA(), w, x, y)
    sol = romma_program(w, x, y)
    assert_allclose(step, sol.w, atol=1e-9)
    assert_allclose(step, w + y * x / (x @ x), rtol=1e-14)  # c = 1, d = y / X here
    assert sol.objective == pytest.approx(step @ step, rel=1e-8)


def test_anti_parallel_mistake_keeps_the_new_constraint():
    """y x = -mu w_t: the literal program is infeasible; both sides restart."""
    w = np.array([1.0, -2.0, 0.5])
    for y, mu in ((1.0, 0.3), (-1.0, 4.0)):
        x = -y * mu * w
        sol = romma_program(w, x, y)
        assert sol.status == "infeasible"
        assert_allclose(sol.w, y * x / (x @ x), rtol=1e-8)
        for learner in (olearn.ROMMA(), olearn.AggressiveROMMA()):
            step = library_step(learner, w, sp.csr_matrix(x), y)
            assert_allclose(step, sol.w, rtol=1e-8)
            assert y * (step @ x) == pytest.approx(1.0)


def test_zero_row_changes_nothing():
    """x = 0: no w reaches the margin; the convention keeps the old halfspace alone."""
    w, x = np.array([0.5, -1.0]), np.zeros(2)
    sol = romma_program(w, x, 1)
    assert sol.status == "infeasible"
    assert_allclose(sol.w, w, atol=1e-9)
    assert_array_equal(library_step(olearn.AggressiveROMMA(), w, x, 1), w)


def test_start_from_sets_the_tracked_norm():
    """ROMMA reads ||w_t||^2 from its state: start_from must set it (the check can fail)."""
    rng = np.random.default_rng(5)
    w, x, y = random_romma_round(rng, "both active")
    est = start_from(olearn.ROMMA(), w)
    assert est._state[SQNORM] == w @ w
    # the library sums w_j x_j in its own fixed order, numpy's BLAS in a host-dependent one:
    # equal to rounding (1 ulp apart on an Intel Xeon), a wrong w would be far off
    np.testing.assert_allclose(est.decision_function(x[None, :]), [w @ x], rtol=1e-14, atol=0)
    # the same w with a stale ||w||^2 gives a step that is not the argmin
    est._state[SQNORM] = 0.0
    est.partial_fit(x[None, :], [y])
    wrong = est.coef_.ravel()
    argmin = romma_program(w, x, y).w
    assert np.max(np.abs(wrong - argmin)) > 1e-3 * max(1, np.abs(argmin).max())


def test_program_tells_the_cases_apart():
    """On a both-active round the margin-only step is feasible for y w.x >= 1 only."""
    rng = np.random.default_rng(6)
    w, x, y = random_romma_round(rng, "both active", aggressive=True)
    margin_only = y * x / (x @ x)
    assert margin_only @ w < w @ w - 1e-6
    argmin = romma_program(w, x, y).w
    assert np.max(np.abs(margin_only - argmin)) > 1e-3 * max(1, np.abs(argmin).max())


def test_bad_input_is_refused():
    rng = np.random.default_rng(0)
    w, x = np.ones(3), np.ones(3)
    with pytest.raises(ValueError, match="y must be"):
        romma_program(w, x, 0)
    with pytest.raises(ValueError, match="features"):
        romma_program(w, np.ones(4), 1)
    with pytest.raises(ValueError, match="finite"):
        romma_program(w, np.array([1.0, np.nan, 0.0]), 1)
    with pytest.raises(ValueError, match="case must be"):
        random_romma_round(rng, "margin only")          # not a ROMMA round
    with pytest.raises(ValueError, match="case must be"):
        random_romma_round(rng, "both", aggressive=True)
