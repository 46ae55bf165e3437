"""The FGM diagnosis of Figure 1 (issue 28 item 7): the converged reference and the
stand-in's duality gap."""
import numpy as np
import pytest
import scipy.sparse as sp

from olearn import SBCW
from olearn.experiments import sparse_cw as e
from olearn.second_order._sbcw_prox import omega

pytest.importorskip("cvxpy")


def _split(seed=0, n=120, d=40):
    rng = np.random.default_rng(seed)
    X = sp.random(2 * n, d, density=0.2, random_state=seed, format="csr")
    w = np.zeros(d)
    w[:6] = rng.normal(size=6) * 5
    y = np.where(X @ w + 0.05 * rng.normal(size=2 * n) > 0, 1.0, -1.0)
    return e.Split("toy", X[:n], y[:n], X[n:], y[n:], "toy")


def _primal(mu, groups, X, y, C, sigma=1e-3):
    w = np.concatenate([mu[g] for g in groups])
    ptr = np.cumsum([0] + [g.size for g in groups])
    hinge = np.maximum(0.0, 1.0 - y * (X @ mu)).sum()
    return omega(w, ptr, sigma) + C * hinge


def test_reference_solves_the_stand_ins_subproblem():
    """On the groups one cutting-plane iteration selects, the reference's objective lies
    between the stand-in's dual and primal values (weak duality), and is optimal: no
    lower than the stand-in's primal by more than the solver's tolerance."""
    data = _split()
    X, y = data.X_train, data.y_train
    stand_in = SBCW(C=10.0, r=5, m_iter=1, tol=0, covariance=False, step="exact",
                    n_inner_passes=50).fit(X, y)
    mu, groups = e.fgm_converged(X, y, C=10.0, p=75, m_iter=1)  # r = 5
    assert [g.tolist() for g in groups] == [g.tolist() for g in stand_in.groups_]
    value = _primal(mu, groups, X, y, 10.0)
    assert stand_in.theta_[-1] - 1e-6 <= value <= stand_in.primal_[-1] + 1e-6


def test_diagnosis_rows_and_the_stalled_stand_in():
    """One row per (solver, budget); with one pass over 15 groups the stand-in's gap stays
    open while the reference fits the training part at least as well."""
    data = _split(1)
    frame = e.figure1_fgm_diagnosis(data, C=100.0, budgets=(30,), passes=(1,))
    assert list(frame["solver"]) == ["stand-in, 1 passes", "converged"]
    stand_in, converged = frame.iloc[0], frame.iloc[1]
    assert stand_in["relative gap"] > 0.01 and np.isnan(converged["relative gap"])
    assert converged["train accuracy"] >= stand_in["train accuracy"]
    assert converged["nonzero weights"] >= stand_in["nonzero weights"]


def test_board_cause_of_the_fgm_row_rests_on_the_stored_run():
    """The board's FGM row judges the converged FGM of the stored Figure 1 run; its cause says
    FGM is solved to a tolerance and names the stalled stand-in, and the stored runs back it."""
    from pathlib import Path

    import pandas as pd

    from olearn.experiments import scoreboard as sb

    cause = sb.CAUSE_NOTES["tan2016:5:sbcw-accuracy-vs-fgm"]
    assert cause.startswith(sb.CAUSES) and "to a tolerance" in cause and "stand-in" in cause
    results = Path(__file__).parents[1] / "book" / "results" / "sparse_cw"
    fgm, _ = e.load_frame(results, "figure1_fgm")
    stand_in = fgm[fgm.solver == "stand-in, 3 passes"]
    assert set(stand_in.dataset) == set(e.FIGURE1_SETS)
    assert (stand_in["relative gap"] > 0.3).all()
    fig1 = pd.read_csv(results / "figure1.csv")
    rows = sb.tan_claims(results.parent)
    row = next(r for r in rows if r["id"] == "tan2016:5:sbcw-accuracy-vs-fgm")
    ahead = [n for n in e.FIGURE1_SETS
             if sb._sbcw_ahead(fig1[fig1.dataset == n], ("FGM",)) == "reproduces"]
    assert row["ours_key"] == f"{len(ahead)} of 3 sets"
    assert row["verdict"] == sb._by_count(len(ahead), 3)
    for name in e.FIGURE1_SETS:
        part = fig1[fig1.dataset == name]
        fgm_acc = part[part.method == "FGM"].sort_values("setting").accuracy
        assert fgm_acc.is_monotonic_increasing
        assert fgm_acc.max() > part[part.method == "SBCW"].accuracy.max()


def test_stored_figure1_fgm_is_the_converged_fgm():
    """The stored Figure 1 FGM rows are the converged solver's (every selected feature weighted;
    on movie reviews, validated at the diagnosis' C, the diagnosis' converged accuracies), the
    stand-in rows the stalled solver's; the merged run names a clean commit."""
    from pathlib import Path

    import pandas as pd

    results = Path(__file__).parents[1] / "book" / "results" / "sparse_cw"
    fig1, prov = e.load_frame(results, "figure1")
    diagnosis, _ = e.load_frame(results, "figure1_fgm")
    fgm, stand_in = fig1[fig1.method == "FGM"], fig1[fig1.method == e.FGM_STAND_IN]
    assert len(fgm) == len(stand_in) == 15
    assert (fgm.n_features == fgm.setting).all()
    assert (stand_in.n_features < stand_in.setting).all()
    mr = fgm[fgm.dataset == "movie-reviews"].sort_values("setting")
    ref = diagnosis[(diagnosis.dataset == "movie-reviews") & (diagnosis.solver == "converged")]
    assert diagnosis.loc[ref.index, "C"].iloc[0] == 100.0
    np.testing.assert_allclose(mr.accuracy.values, ref.sort_values("p")["test accuracy"].values,
                               atol=2e-3)
    partial = prov["partial_runs"][-1]
    assert set(partial["methods"]) == {"FGM", e.FGM_STAND_IN}
    assert partial["git_dirty"] is False and len(partial["commit"]) == 40


def test_figure1_fgm_is_the_converged_solver_and_the_stand_in_is_labelled():
    """Figure 1's FGM solves its subproblems to a tolerance (issue 28 item 7); the stalled
    Algorithm-3 stand-in is an extra curve labelled ours."""
    methods = e.figure1_methods(60, {"FGM": {"C": 10.0}, e.FGM_STAND_IN: {"C": 100.0}})
    fgm, stand_in = methods["FGM"], methods[e.FGM_STAND_IN]
    assert isinstance(fgm, e.FGMConverged) and (fgm.C, fgm.p, fgm.m_iter) == (10.0, 60, 15)
    assert isinstance(stand_in, SBCW) and stand_in.covariance is False
    assert (stand_in.C, stand_in.n_inner_passes, stand_in.r) == (100.0, 3, 4)
    assert "(ours)" in e.FGM_STAND_IN and set(e.FIGURE1_GRIDS) == set(methods)


def test_fgm_converged_estimator_is_fgm_converged_with_any_two_labels():
    data = _split(2)
    X, y = data.X_train, data.y_train
    labels = np.where(y > 0, "pos", "neg")
    model = e.FGMConverged(C=10.0, p=30, m_iter=4).fit(X, labels)
    mu, groups = e.fgm_converged(X, y, C=10.0, p=30, m_iter=4)
    big = np.abs(mu) > 1e-6 * np.abs(mu).max()
    np.testing.assert_allclose(model.coef_[big], mu[big], rtol=1e-6)
    assert np.count_nonzero(model.coef_) == np.count_nonzero(big)
    assert [g.tolist() for g in model.groups_] == [g.tolist() for g in groups]
    expected = np.where(X @ model.coef_ > 0, "pos", "neg")
    assert (model.predict(X) == expected).all() and model.score(X, labels) > 0.8
    with pytest.raises(ValueError, match="two labels"):
        e.FGMConverged().fit(X[:3], np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="C > 0"):
        e.FGMConverged(C=0.0).fit(X, y)


def test_make_figure1_only_replaces_the_named_methods():
    """``make_figure1.py --only`` keeps the other methods' rows and parameters."""
    import importlib.util
    from pathlib import Path

    import pandas as pd

    path = Path(__file__).parents[1] / "book" / "results" / "sparse_cw" / "make_figure1.py"
    spec = importlib.util.spec_from_file_location("make_figure1", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    stored = pd.DataFrame({"dataset": ["a", "a", "a"], "method": ["SBCW", "FGM", "SOFS"],
                           "accuracy": [0.7, 0.5, 0.6]})
    new = pd.DataFrame({"dataset": ["a", "a"], "method": ["FGM", e.FGM_STAND_IN],
                        "accuracy": [0.8, 0.5]})
    merged, params = module.merge(stored, {"a": {"SBCW": {"C": 1}, "FGM": {"C": 100}}}, new,
                                  {"a": {"FGM": {"C": 10}, e.FGM_STAND_IN: {"C": 100}}},
                                  ["FGM", e.FGM_STAND_IN])
    assert sorted(merged.method) == sorted(["SBCW", "SOFS", "FGM", e.FGM_STAND_IN])
    assert merged.set_index("method").accuracy["FGM"] == 0.8
    assert params == {"a": {"SBCW": {"C": 1}, "FGM": {"C": 10}, e.FGM_STAND_IN: {"C": 100}}}


def test_board_timing_row_does_not_judge_fgm_on_cvxpy_times():
    """FGM's times are cvxpy's: the timing row leaves FGM out and says why."""
    from pathlib import Path

    from olearn.experiments import scoreboard as sb

    rows = sb.tan_claims(Path(__file__).parents[1] / "book" / "results")
    timing = next(r for r in rows if r["id"] == "tan2016:5:sbcw-speed-comparable-or-better")
    assert "against FGM not compared" in timing["ours"] and "cvxpy" in timing["why"]
