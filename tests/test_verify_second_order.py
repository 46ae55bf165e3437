"""The closed forms of AROW, CW (both versions) and SCW-I/II against cvxpy's
solutions of their per-round programs, on random active and inactive rounds."""
import numpy as np
import pytest

from olearn.verify.second_order import (RULES, arow_covariance_closed_form,
                                        arow_mean_program, check_second_order,
                                        library_round, random_round)
from olearn import AROW

TOL = {"mu_error": 1e-4, "Sigma_error": 2e-4}


@pytest.mark.parametrize("rule", RULES)
def test_closed_form_solves_the_program(rule):
    table = check_second_order(rule, n_rounds=6, random_state=1)
    assert set(table["case"]) == {"active", "inactive"}
    assert (table["updated"] == (table["case"] == "active")).all()
    for column, tol in TOL.items():
        assert table[column].max() < tol, table
    if rule == "AROW":
        assert table["Sigma_error_eq8"].max() < 1e-12


def test_check_detects_a_wrong_update():
    """The check can fail: AROW run with the wrong r misses the program's mean."""
    rng = np.random.default_rng(0)
    mu, Sigma, x, y, params = random_round(rng, "AROW", "active")
    right, _, _ = library_round(AROW(r=params["r"]), mu, Sigma, x, y)
    wrong, _, _ = library_round(AROW(r=2 * params["r"]), mu, Sigma, x, y)
    target = arow_mean_program(mu, Sigma, x, y, params["r"])
    assert np.abs(right - target).max() < 1e-6
    assert np.abs(wrong - target).max() > 1e-3
    S_wrong = library_round(AROW(r=2 * params["r"]), mu, Sigma, x, y)[1]
    assert np.abs(S_wrong - arow_covariance_closed_form(Sigma, x, params["r"])).max() > 1e-3
