"""Regularized PA: one library round against the cvxpy programs (3.1), (3.9), (3.10).

The programs are the independent formulation (olearn.verify.regularized); the
library side is one round of the compiled code started at a random ``w``
(olearn.verify.library_step).  200 rounds per learner cover the margin
constraint inactive and active, the norm constraint inactive and active, both
active, and infeasible rounds (the max-margin convention); the counts are
taken from the cvxpy solutions, not from the generator's labels.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from olearn.linear.pa import PA
from olearn.linear.regularized import (L1ConstrainedPA, L2ConstrainedPA,
                                ObjectiveRegularizedPA)
from olearn.verify._common import library_step
from olearn.verify.regularized import (CONSTRAINED_CASES,
                                       check_l1_constrained,
                                       check_l2_constrained,
                                       check_objective_regularized,
                                       l1_constrained_program,
                                       l2_constrained_program,
                                       objective_regularized_program,
                                       random_constrained_round,
                                       random_objective_round)

N_ROUNDS = 200
TOL = 1e-8   # relative to max(1, ||w_{t+1}||_inf); the solvers reach ~1e-11


@pytest.fixture(scope="module")
def objective_table():
    return check_objective_regularized(n_rounds=N_ROUNDS, random_state=11)


@pytest.fixture(scope="module", params=["l2", "l1"])
def constrained_table(request):
    check = check_l2_constrained if request.param == "l2" else check_l1_constrained
    return request.param, check(n_rounds=N_ROUNDS, random_state=12)


def test_lemma_3_1_is_the_argmin(objective_table):
    df = objective_table
    assert len(df) == N_ROUNDS
    assert df["rel_diff"].max() < TOL, df.sort_values("rel_diff").tail()
    counts = {"margin active": int(df["margin_active"].sum()),
              "margin inactive": int((~df["margin_active"]).sum()),
              "mistake": int((df["margin_before"] <= 0).sum()),
              "1 < margin < 1 + alpha": int(((df["margin_before"] > 1)
                                             & df["margin_active"]).sum())}
    assert counts["margin active"] >= 90 and counts["margin inactive"] >= 90, counts
    assert counts["mistake"] >= 30 and counts["1 < margin < 1 + alpha"] >= 5, counts
    assert (df["margin_active"] == (df["case"] == "margin active")).all()
    assert df["feasible"].all()


def test_constrained_update_is_the_argmin(constrained_table):
    norm, df = constrained_table
    assert len(df) == N_ROUNDS
    assert df["rel_diff"].max() < TOL, (norm, df.sort_values("rel_diff").tail())


def test_rounds_cover_every_pattern_of_active_constraints(constrained_table):
    norm, df = constrained_table
    feasible, margin, ball = df["feasible"], df["margin_active"], df["norm_active"]
    patterns = {
        "feasible": feasible & ~margin & ~ball,
        "margin only": feasible & margin & ~ball,
        "norm only": feasible & ~margin & ball,
        "both active": feasible & margin & ball,
        "infeasible": ~feasible,
    }
    counts = {name: int(mask.sum()) for name, mask in patterns.items()}
    assert counts == {name: N_ROUNDS // 5 for name in CONSTRAINED_CASES}, counts
    for name, mask in patterns.items():
        assert (mask == (df["case"] == name)).all(), name
    # mistakes, and starts both inside and outside the ball
    assert ((df["margin_before"] <= 0) & margin).sum() >= 20
    both = df[patterns["both active"]]
    assert (both["norm_before"] > both["beta"]).sum() >= 10
    assert (both["norm_before"] < both["beta"]).sum() >= 10


def test_infeasible_rounds_reach_the_largest_margin(constrained_table):
    """The convention: margin beta ||x||_* < 1 on the sphere of the ball."""
    norm, df = constrained_table
    bad = df[~df["feasible"]]
    assert len(bad) == N_ROUNDS // 5
    assert (bad["margin_after"] < 1).all() and bad["norm_active"].all()
    if norm == "l1":
        # ties in |x_j|: the face has several points, so w_t matters
        assert (bad["support_after"] >= 2).sum() >= 10


@pytest.mark.parametrize("norm, learner, program", [
    ("l2", L2ConstrainedPA, l2_constrained_program),
    ("l1", L1ConstrainedPA, l1_constrained_program)])
def test_zero_row_keeps_the_projection_onto_the_ball(norm, learner, program):
    rng = np.random.default_rng(3)
    size = np.linalg.norm if norm == "l2" else (lambda v: np.abs(v).sum())
    x = np.zeros(6)
    for beta_factor in (2.0, 0.5):           # w_t inside, then outside
        w = rng.standard_normal(6)
        beta = beta_factor * size(w)
        sol = program(w, x, 1.0, beta)
        assert sol.status == "infeasible"
        w_lib = library_step(learner(beta=beta), w, x, 1.0)
        np.testing.assert_allclose(w_lib, sol.w, atol=1e-8)
        if beta_factor > 1:
            np.testing.assert_array_equal(w_lib, w)
        else:
            assert size(w_lib) == pytest.approx(beta)


def test_zero_row_only_shrinks_the_objective_regularized_learner():
    w = np.random.default_rng(4).standard_normal(5)
    sol = objective_regularized_program(w, np.zeros(5), -1.0, 0.25)
    assert sol.status == "infeasible"
    np.testing.assert_allclose(sol.w, w / 1.25, atol=1e-9)
    w_lib = library_step(ObjectiveRegularizedPA(alpha=0.25), w, np.zeros(5), -1.0)
    np.testing.assert_allclose(w_lib, w / 1.25, rtol=1e-15)


def test_sparse_rows_take_the_same_step():
    rng = np.random.default_rng(5)
    for t in range(30):
        case = CONSTRAINED_CASES[t % 5]
        for learner, norm in ((L2ConstrainedPA, "l2"), (L1ConstrainedPA, "l1")):
            w, x, y, beta = random_constrained_round(rng, case, norm)
            x = x * (rng.random(x.size) < 0.6)
            dense = library_step(learner(beta=beta, update_on="round"), w, x, y)
            sparse = library_step(learner(beta=beta, update_on="round"), w,
                                  sp.csr_matrix(x[None, :]), y)
            np.testing.assert_array_equal(dense, sparse)


def test_the_comparison_can_fail():
    """Closed forms of other rules are not the argmin of these programs."""
    rng = np.random.default_rng(6)
    for _ in range(8):
        w, x, y, beta = random_constrained_round(rng, "both active", "l2")
        pa = library_step(PA(), w, x, y)
        assert np.abs(pa - l2_constrained_program(w, x, y, beta).w).max() > 1e-3
        w, x, y, beta = random_constrained_round(rng, "both active", "l1")
        l2 = library_step(L2ConstrainedPA(beta=beta, update_on="round"), w, x, y)
        assert np.abs(l2 - l1_constrained_program(w, x, y, beta).w).max() > 1e-3
        w, x, y, alpha = random_objective_round(rng, "margin active")
        if w.size == 1:       # one dimension: the margin alone fixes w
            continue
        assert np.abs(library_step(PA(), w, x, y)
                      - objective_regularized_program(w, x, y, alpha).w).max() > 1e-4


def test_update_on_mistake_solves_only_on_mistakes():
    rng = np.random.default_rng(7)
    for t in range(20):
        w, x, y, beta = random_constrained_round(rng, "both active", "l1")
        margin = y * (w @ x)
        step = library_step(L1ConstrainedPA(beta=beta, update_on="mistake"), w, x, y)
        if margin > 0:
            np.testing.assert_array_equal(step, w)
        else:
            np.testing.assert_allclose(
                step, l1_constrained_program(w, x, y, beta).w, atol=1e-8)


@pytest.mark.parametrize("call", [
    lambda: objective_regularized_program(np.ones(3), np.ones(3), 1, -0.5),
    lambda: l2_constrained_program(np.ones(3), np.ones(3), 1, 0.0),
    lambda: l1_constrained_program(np.ones(3), np.ones(3), 2, 1.0),
    lambda: l1_constrained_program(np.ones(3), np.ones(4), 1, 1.0),
    lambda: random_constrained_round(np.random.default_rng(0), "neither", "l1"),
])
def test_bad_arguments_raise_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_dense_entry_point_of_the_l1_solver():
    """olearn.linear._l1ball.l1_constrained_solution (all coordinates as candidates)."""
    from olearn.linear._l1ball import (BALL_ONLY, FEASIBLE, INFEASIBLE,
                                MARGIN_ACTIVE, l1_constrained_solution)
    expected = {"feasible": FEASIBLE, "margin only": MARGIN_ACTIVE,
                "norm only": BALL_ONLY, "both active": MARGIN_ACTIVE,
                "infeasible": INFEASIBLE}
    rng = np.random.default_rng(9)
    for t in range(25):
        case = CONSTRAINED_CASES[t % 5]
        w, x, y, beta = random_constrained_round(rng, case, "l1")
        w_new, status, tau = l1_constrained_solution(w, x, y, beta)
        assert status == expected[case]
        assert (tau > 0) == (case in ("margin only", "both active", "infeasible"))
        np.testing.assert_allclose(
            w_new, l1_constrained_program(w, x, y, beta).w, atol=1e-8)
