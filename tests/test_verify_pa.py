"""PA, PA-I, PA-II: the library's closed forms against the cvxpy programs.

The programs (Crammer et al. 2006, eqs. 2, 8, 9) are the independent
formulation; the library side is one round of the compiled code, started at a
random ``w``.  Rounds are built to cover a zero loss, PA-I's cap active and
inactive, ``epsilon != 1`` and norms of ``x`` over two decades.
"""
import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.verify import (check_pa, library_step, pa_program, random_pa_round,
                           start_from)

N_ROUNDS = 210
TOL = 1e-7  # relative to max(1, ||w_{t+1}||_inf); Clarabel reaches ~1e-9


@pytest.fixture(scope="module", params=["PA", "PA-I", "PA-II"])
def table(request):
    return request.param, check_pa(request.param, n_rounds=N_ROUNDS,
                                   random_state=7)


def test_closed_form_is_the_argmin(table):
    variant, df = table
    assert len(df) == N_ROUNDS
    assert df["rel_diff"].max() < TOL, df.sort_values("rel_diff").tail()


def test_rounds_cover_every_case(table):
    _, df = table
    loss_zero = df["loss"] == 0.0
    cap_active = ~loss_zero & (df["step"] > df["C"])
    cap_inactive = ~loss_zero & (df["step"] < df["C"])
    mistakes = df["loss"] > df["epsilon"]
    counts = {"loss zero": loss_zero.sum(), "cap active": cap_active.sum(),
              "cap inactive": cap_inactive.sum(), "mistake": mistakes.sum(),
              "epsilon = 1": (df["epsilon"] == 1.0).sum(),
              "epsilon != 1": (df["epsilon"] != 1.0).sum()}
    assert min(counts.values()) >= 30, counts
    # the case labels say what the instances are
    assert (loss_zero == (df["case"] == "loss zero")).all()
    assert (cap_active == (df["case"] == "cap active")).all()
    assert df["norm_x"].min() < 0.2 and df["norm_x"].max() > 5.0
    assert set(df["d"]) >= {1, 30}


@pytest.mark.parametrize("variant", ["PA", "PA-I", "PA-II"])
def test_zero_loss_leaves_w_exactly(variant):
    rng = np.random.default_rng(1)
    for _ in range(20):
        w, x, y, C, epsilon = random_pa_round(rng, "loss zero")
        learner = olearn.PA(C=C, variant=variant, epsilon=epsilon)
        assert np.array_equal(library_step(learner, w, x, y), w)
        np.testing.assert_allclose(
            pa_program(w, x, y, C, variant, epsilon).w, w, atol=1e-8)


def test_program_slack_matches_the_cases():
    """Independent of the library: the KKT structure of eqs. 8 and 9."""
    rng = np.random.default_rng(2)
    for _ in range(15):
        w, x, y, C, epsilon = random_pa_round(rng, "cap active")
        loss = epsilon - y * (w @ x)
        sol = pa_program(w, x, y, C, "PA-I", epsilon)
        # tau = C, so the margin reached is epsilon - (loss - C ||x||^2)
        assert sol.slack == pytest.approx(loss - C * (x @ x), rel=1e-6)
        sol2 = pa_program(w, x, y, C, "PA-II", epsilon)
        tau2 = loss / (x @ x + 0.5 / C)
        assert sol2.slack == pytest.approx(tau2 / (2 * C), rel=1e-6)
        assert pa_program(w, x, y, C, "PA", epsilon).slack is None

        w, x, y, C, epsilon = random_pa_round(rng, "cap inactive")
        assert abs(pa_program(w, x, y, C, "PA-I", epsilon).slack) < 1e-8


def test_programs_tell_the_variants_apart():
    """The comparison can fail: PA's closed form is not PA-I's argmin when capped."""
    rng = np.random.default_rng(3)
    w, x, y, C, epsilon = random_pa_round(rng, "cap active")
    pa_step = library_step(olearn.PA(C=C, variant="PA", epsilon=epsilon), w, x, y)
    for variant in ("PA-I", "PA-II"):
        argmin = pa_program(w, x, y, C, variant, epsilon).w
        assert np.max(np.abs(pa_step - argmin)) > 1e-3 * max(1, np.abs(argmin).max())


@pytest.mark.parametrize("variant", ["PA", "PA-I", "PA-II"])
def test_csr_round_equals_dense_round(variant):
    rng = np.random.default_rng(4)
    for t in range(30):
        w, x, y, C, epsilon = random_pa_round(rng, ("cap active", "cap inactive",
                                                   "loss zero")[t % 3])
        x = np.where(rng.random(x.size) < 0.4, 0.0, x)  # some explicit zeros
        if not np.any(x):
            continue
        learner = olearn.PA(C=C, variant=variant, epsilon=epsilon)
        dense = library_step(learner, w, x, y)
        sparse = library_step(learner, w, sp.csr_matrix(x), y)
        np.testing.assert_allclose(sparse, dense, rtol=1e-14, atol=1e-14)
        np.testing.assert_allclose(
            dense, pa_program(w, x, y, C, variant, epsilon).w,
            atol=TOL * max(1.0, np.abs(dense).max()))


def test_start_from_sets_the_model():
    w = np.array([0.5, -2.0, 3.0])
    est = start_from(olearn.PA(), w)
    X = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    np.testing.assert_array_equal(est.decision_function(X), X @ w)
    assert est.n_rounds_ == 0 and list(est.classes_) == [-1, 1]
    # the tracked ||w||^2 is the one the model starts with
    assert est._state[1] == w @ w


def test_bad_input_is_refused():
    w, x = np.zeros(3), np.ones(3)
    with pytest.raises(ValueError, match="variant"):
        pa_program(w, x, 1, variant="PA-III")
    with pytest.raises(ValueError, match="C"):
        pa_program(w, x, 1, C=0.0, variant="PA-I")
    with pytest.raises(ValueError, match="y must be"):
        pa_program(w, x, 0)
    with pytest.raises(ValueError, match="features"):
        pa_program(w, np.ones(4), 1)
    with pytest.raises(ValueError, match="infeasible"):
        pa_program(w, np.zeros(3), 1, variant="PA")
    with pytest.raises(ValueError, match="y must be"):
        library_step(olearn.PA(), w, x, 2)
    with pytest.raises(ValueError, match="C"):
        library_step(olearn.PA(C=-1.0), w, x, 1)
    with pytest.raises(TypeError, match="linear"):
        library_step(object(), w, x, 1)
