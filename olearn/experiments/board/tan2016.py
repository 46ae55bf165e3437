"""The scoreboard's rows for Tan et al. (2016), *Sparse confidence-weighted learning* (BCW, SBCW).

Each row is judged by a rule of :data:`olearn.experiments.scoreboard.RULES` (named in the
row's ``rule`` column); this module only reads the stored runs and states the claims.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..scoreboard import *  # noqa: F401,F403  (the rule table and the row builders)
from ..scoreboard import (_Verdict, _almost_all, _best, _best_verdict, _by_count,  # noqa: F401
                          _combined, _definition, _either_reading, _judge, _majority, _row,
                          _tested_definition, _theorem, _time_order, _untestable, _add_causes,
                          _TIMING, _CLAIMS_WORDS, beside, all_cases, most_cases,
                          almost_all_cases, conditions, beats, comparable, faster, trend,
                          ranked_best, HOLDS, TIE, FAILS, POINTS, Judged)

_TAN_STAND_IN = ("stand-in data: the paper's six data sets are not available; stand-ins of "
                 "similar shape")
_SBCW = ("real non-reproduction with the paper's algorithm as written: its one C for the loss "
         "and the covariance keeps most margins below 1, so their dual variables sit at the "
         "bound, eq. (14) ranks the words once and the model is a ridge fit of the labels on "
         "the first group, frequent words carrying the class prior (the majority rate on the "
         "imbalanced 20 Newsgroups and Reuters stand-ins; a converged solver, an intercept or "
         "another C does not change it, a covariance constant 100 times smaller does: "
         "sparse_cw/figure1, issue 28 item 7); and stand-in data (tf-idf text)")
_FGM = (_SBCW + "; FGM solves its subproblems to a tolerance (cvxpy), as the paper's FGM does, "
        "and its accuracy rises with the budget on every set; the FGM stand-in of earlier rounds "
        "(three passes of Algorithm 3, ours) stalled and understated it (sparse_cw/figure1, "
        "issue 28 item 7)")


# -- Tan et al. (2016) ------------------------------------------------------------------------
SECOND_ORDER = ("AROW", "CW", "NAROW", "SCW", "SCW2", "SOP")


def _sbcw_ahead(part, rivals=("SOFS", "sparDCA"), column="accuracy"):
    """SBCW wins most comparisons with the baselines at equal numbers of features (a higher
    accuracy, or with ``column="time"`` a shorter time)."""
    sbcw = part[part["method"] == "SBCW"]
    wins = comparisons = 0
    for rival in rivals:
        curve = part[(part["method"] == rival) & (part["n_features"] > 0)].sort_values("n_features")
        lo, hi = curve["n_features"].min(), curve["n_features"].max()
        for k, value in zip(sbcw["n_features"], sbcw[column]):
            if lo <= k <= hi:
                at_k = np.interp(np.log(k), np.log(curve["n_features"]), curve[column])
                comparisons += 1
                wins += value >= at_k if column == "accuracy" else value <= at_k
    return comparisons > 0 and wins > comparisons / 2


def tan_claims(results):
    key = "tan2016sparse"
    folder = Path(results) / "sparse_cw"
    runs = pd.concat([pd.read_csv(folder / "table2_main.csv"),
                      pd.read_csv(folder / "table2_second.csv")])
    mean = runs.groupby(["dataset", "learner"])[["test_error", "time"]].mean()
    sets = sorted(runs["dataset"].unique())
    faster, accurate = [], []
    for name in sets:
        m = mean.loc[name]
        fastest_so = m.loc[list(SECOND_ORDER), "time"].min()
        if _time_order(m.loc["BCW-L1", "time"], fastest_so) < 0:
            faster.append(name)
        if min(m.loc["BCW-L1", "test_error"], m.loc["BCW-L2", "test_error"]) <= \
                m.loc[list(SECOND_ORDER), "test_error"].min() + COMPARABLE_POINTS / 100:
            accurate.append(name)
    fig1 = pd.read_csv(folder / "figure1.csv")
    datasets1 = sorted(fig1["dataset"].unique())
    better = [name for name in datasets1
              if _sbcw_ahead(fig1[fig1["dataset"] == name], ("SOFS", "sparDCA", "L1-SVM"))]
    return [
        _row(key, "Table 2, section 5", "table", "BCW is much faster than the online "
             "second-order learners.", "BCW-L1 0.47 s (0.41 + 0.06) against 19-22 s on covtype; "
             "6.12 s (5.73 + 0.39) against 3,381-3,512 s on epsilon-50k",
             f"BCW-L1 faster than the fastest second-order learner on {len(faster)} of "
             f"{len(sets)} sets ({', '.join(faster)})", _by_count(len(faster), len(sets)),
             f"mean time over the stored orders, faster by more than {TIME_TOLERANCE:.0%}; "
             "stand-ins of the paper's data sets",
             "sparse_cw/table2"),
        _row(key, "Table 2", "table", "BCW is about as accurate as the best online "
             "second-order learner.", "BCW-L1 0.2402, best (SCW) 0.2382 on covtype",
             f"best BCW within {COMPARABLE_POINTS / 100:g} of the best second-order test error on {len(accurate)} "
             f"of {len(sets)} sets", _by_count(len(accurate), len(sets)),
             "mean test error over the stored orders", "sparse_cw/table2"),
        _row(key, "Figure 1", "figure", "SBCW selects features better than the sparse "
             "baselines (SOFS, sparDCA, L1-SVM).", "SBCW's curve on top on every data set",
             f"SBCW at least as accurate as the three baselines at equal budgets on {len(better)} "
             f"of {len(datasets1)} sets ({', '.join(better) or 'none'})",
             _by_count(len(better), len(datasets1)),
             "at each SBCW budget inside a baseline's range, the baseline's accuracy "
             "interpolated in log(features); a set counts when SBCW wins most comparisons "
             "(with SOFS, sparDCA and L1-SVM together); tf-idf text standing in for real-sim, "
             "rcv1, astro-ph and URL",
             "sparse_cw/figure1"),
        _theorem(key, "Theorem 1", "SBCW's cutting plane converges (the bound of Theorem 1).",
                 "sparse_cw/sbcw", "asserted on every iteration of the page's runs"),
    ] + _tan_algorithms(key) + _tan_more(key, folder, mean, sets, fig1)


def _tan_algorithms(key):
    """Algorithms 1-3 of Tan et al. as definition rows, each with the tests that assert
    olearn's BCW and SBCW steps equal the algorithm as printed (issue 28 item 6)."""
    return [
        _tested_definition(
            key, "Algorithm 1, section 3", "Online-batch CW learning (BCW): Sigma by eq. (6) "
            "per batch, the whitened rows, one online pass of the clipped (q = 1) or smoothed "
            "(q = 2) step.", "sparse_cw/bcw",
            "olearn's BCW mean and margins equal Algorithm 1's inner loop transcribed in numpy "
            "(both q, both inversions); Sigma satisfies the KKT condition of eq. (5) after "
            "every batch",
            ["tests/test_bcw.py::test_one_batch_matches_algorithm_1",
             "tests/test_bcw.py::test_sigma_satisfies_kkt_of_eq5_over_batches"]),
        _tested_definition(
            key, "Algorithm 2, section 4", "Sparse CW learning (SBCW): the cutting plane that "
            "adds the most violated constraint (eq. 14: the r features of largest score) and "
            "solves subproblem (13) over the active set.", "sparse_cw/sbcw",
            "olearn's first group equals eq. (14)'s r features of largest |sum_i y_i x_ij|; "
            "the selected groups are disjoint and carry the model; theta_t decreases "
            "(Theorem 1); the stopping rules",
            ["tests/test_scoreboard.py::test_sbcw_first_group_is_eq14",
             "tests/test_sbcw.py::test_groups_disjoint_and_coef_on_selected_features",
             "tests/test_sbcw.py::test_theorem1_and_recorded_bounds",
             "tests/test_sbcw.py::test_stopping_rules"]),
        _tested_definition(
            key, "Algorithm 3, section 4", "Online proximal primal-dual coordinate ascent for "
            "subproblem (13): z += C alpha_i y_i x_i, w = grad Omega*(z).", "sparse_cw/sbcw",
            "grad Omega*(z) equals the argmax computed by cvxpy; the pass solves subproblem "
            "(16) to cvxpy's solution",
            ["tests/test_sbcw.py::test_grad_omega_star_is_the_argmax",
             "tests/test_sbcw.py::test_algorithm3_solves_subproblem16"]),
    ]


def _tan_more(key, folder, mean, sets, fig1):
    rows = []
    from ..sparse_cw import PAPER_TABLE2

    def _seconds(text):
        return sum(float(v) for v in __import__("re").findall(r"\d+\.\d+", str(text)))

    paper_time = {c: PAPER_TABLE2[f"{c}_time"].map(_seconds) for c in ("covtype", "epsilon50k")}
    paper_err = {c: PAPER_TABLE2[f"{c}_error"] for c in ("covtype", "epsilon50k")}
    tol = COMPARABLE_POINTS / 100
    dcd = [n for n in sets if min(mean.loc[n].loc[["BCW-L1", "BCW-L2"], "time"]) < mean.loc[n].loc["DCD", "time"]
           and min(mean.loc[n].loc[["BCW-L1", "BCW-L2"], "test_error"]) <= mean.loc[n].loc["DCD", "test_error"] + tol]
    paper_dcd = [c for c in paper_time if paper_time[c][["BCW-L1", "BCW-L2"]].min() < paper_time[c]["DCD"]
                 and paper_err[c][["BCW-L1", "BCW-L2"]].min() <= paper_err[c]["DCD"] + tol]
    rows.append(_row(key, "Table 2, section 5", "table", "BCW is faster than the batch DCD, with "
                     "comparable or better accuracy.", "Table 2: DCD 29.85 s against BCW-L1 0.47 s "
                     "on covtype, but DCD 2.62 s against BCW-L1 6.12 s on epsilon-50k: the rule "
                     f"holds on {len(paper_dcd)} of the paper's 2 sets",
                     f"holds on {len(dcd)} of {len(sets)} ({', '.join(dcd) or 'none'})",
                     _judge(_by_count(len(dcd), len(sets)), _by_count(len(paper_dcd), 2)),
                     "per set, the faster BCW below DCD's mean time and the better BCW within "
                     f"{COMPARABLE_POINTS:g} point of DCD's test error; the same rule on the "
                     "paper's Table 2 (Sigma time plus pass time)", "sparse_cw/table2"))
    fastest = [n for n in sets if mean.loc[n]["time"].idxmin().startswith("BCW")]
    paper_fastest = [c for c in paper_time if paper_time[c].idxmin().startswith("BCW")]
    rows.append(_row(key, "Table 2, section 5", "table", "BCW achieves the fastest training "
                     "speed.", "'BCW achieves the fastest training speed' (section 5); Table 2's "
                     "fastest: " + ", ".join(f"{c} {paper_time[c].idxmin()} ({paper_time[c].min():.2f} s)"
                                             for c in paper_time),
                     f"fastest learner per set: " + ", ".join(f"{n} {mean.loc[n]['time'].idxmin()}"
                                                            for n in sets),
                     _judge(_by_count(len(fastest), len(sets)), _by_count(len(paper_fastest), 2)),
                     "per set, the least mean time of all learners (PA and DCD included); the "
                     "same rule on the paper's Table 2", "sparse_cw/table2"))
    pa_worse = [n for n in sets if mean.loc[n].loc["PA", "test_error"]
                > min(mean.loc[n].loc[["BCW-L1", "BCW-L2"], "test_error"])]
    rows.append(_row(key, "Table 2, section 5", "table", "PA, ignoring the covariance, converges "
                     "slowly and is less accurate than BCW.", "PA's error above BCW's",
                     f"PA's test error above the better BCW's on {len(pa_worse)} of {len(sets)}",
                     _by_count(len(pa_worse), len(sets)), "mean test error over the stored orders",
                     "sparse_cw/table2"))
    datasets1 = sorted(fig1["dataset"].unique())
    # FGM's times are cvxpy's (Clarabel on each subproblem), not FGM's: not compared
    faster = [n for n in datasets1 if _sbcw_ahead(fig1[fig1["dataset"] == n],
                                                  ("L1-SVM", "sparDCA", "SOFS"), "time")]
    rows.append(_row(key, "Figure 1(d-f)", "figure", "SBCW trains as fast as or faster than the "
                     "competing feature selection methods.", "comparable or better training time",
                     f"SBCW at least as fast as L1-SVM, sparDCA and SOFS in most comparisons on "
                     f"{len(faster)} of {len(datasets1)} sets ({', '.join(faster) or 'none'}); "
                     "against FGM not comparable",
                     _by_count(len(faster), len(datasets1)), "at each SBCW budget, its time against "
                     "each rival's interpolated in log(features); tf-idf stand-ins; FGM left out: "
                     "its times are cvxpy's (Clarabel solving each subproblem), not FGM's "
                     "accelerated proximal gradient, so not comparable", "sparse_cw/figure1"))
    fgm = [n for n in datasets1 if _sbcw_ahead(fig1[fig1["dataset"] == n], ("FGM",))]
    rows.append(_row(key, "Figure 1(a-c)", "figure", "SBCW is more accurate than FGM (which "
                     "ignores the covariance).", "better accuracy than FGM",
                     f"SBCW ahead of FGM on {len(fgm)} of {len(datasets1)} sets",
                     _by_count(len(fgm), len(datasets1)), "as for the SOFS/sparDCA/L1-SVM row",
                     "sparse_cw/figure1"))
    rows.append(_untestable(key, "Table 1, Table 2, Figure 1", "table", "The results on the "
                            "paper's data sets (covtype, epsilon, real-sim, rcv1, astro-ph, URL; "
                            "URL's two day splits).", "Table 1's six sets",
                            "not available here; our rows use stand-ins of similar shape",
                            "sparse_cw/table2"))
    return rows


#: the cause of each "does not" / "in part": start of the claim -> cause
CAUSE_NOTES = {
    ("tan2016sparse", "BCW is much faster"): _TAN_STAND_IN + "; " + _TIMING,
    ("tan2016sparse", "BCW is about as accurate"): _TAN_STAND_IN,
    ("tan2016sparse", "PA, ignoring the covariance"): _TAN_STAND_IN,
    ("tan2016sparse", "SBCW selects features"): _SBCW,
    ("tan2016sparse", "SBCW is more accurate than FGM"): _FGM,
    ("tan2016sparse", "SBCW trains as fast"): _TIMING + "; " + _TAN_STAND_IN,
}
