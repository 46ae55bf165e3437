"""The scoreboard's rows for Zhao, Hoi and Jin (2009), *DUOL: a double updating approach for online learning*.

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
                          ranked_best, COMPARABLE_TIME, HOLDS, TIE, FAILS, POINTS, Judged)



# -- Zhao, Hoi and Jin (2009) -----------------------------------------------------------------
SINGLE_UPDATE = ("Perceptron", "ROMMA", "agg-ROMMA", "ALMA2(0.9)", "PA-I", "PA-II")


def _frames(folder, duol, names):
    """Ours and the paper's per-set tables with one set of columns: ``sv``, ``m`` (mistake
    rate, %), ``sd`` (its standard deviation over the 20 permutations, %) and ``t`` (seconds);
    ours also keep the per-permutation mistake rates (``runs``: permutation x learner, %) for
    the paired noise test. The paper's tables give mean +- std over 20 runs, no pairs."""
    ours, paper, runs = {}, {}, {}
    for n in names:
        s = pd.read_csv(folder / n / "summary.csv").set_index("learner")
        ours[n] = pd.DataFrame({"sv": s["n_support_mean"], "m": 100 * s["mistake_rate_mean"],
                                "sd": 100 * s["mistake_rate_std"], "t": s["seconds_mean"]})
        table = pd.read_csv(folder / n / "table.csv")
        runs[n] = 100 * table.pivot(index="permutation", columns="learner", values="mistake_rate")
        p = duol.paper_table(n)
        paper[n] = pd.DataFrame({"sv": p["paper_SVs"], "m": p["paper_mistake_%"],
                                 "sd": p["paper_mistake_std"], "t": p["paper_seconds"]})
    return ours, paper, runs


#: how the paper's a7a column is counted: for our a1a, which stands in for it
_A7A = "its a7a column counted for our a1a"


def _label(name):
    """A set's name in the paper's column: the paper's a7a stands where our a1a is."""
    return "a7a (paper) / a1a (ours)" if name == "a1a" else name


#: the permutations behind each mean of the paper's tables (and ours)
N_PERMUTATIONS = 20


def fewer_mistakes(f, a, b, runs=None):
    """One case of "A makes fewer mistakes than B" (``a``, ``b``: learners, or lists whose
    worst resp. best member by mean counts), by the board's one noise test: with ``runs``
    (our per-permutation rates) the paired 95% interval of the difference
    (:func:`paired_interval`); for the paper's tables (mean +- std over 20 runs, no pairs)
    the interval of the difference of the means (:func:`unpaired_interval`). Below zero
    holds, above fails, containing zero a tie (:func:`beats` with ``half``)."""
    a = [a] if isinstance(a, str) else list(a)
    b = [b] if isinstance(b, str) else list(b)
    worst_a = f.loc[a, "m"].idxmax()
    best_b = f.loc[b, "m"].idxmin()
    if runs is not None:
        d, half = paired_interval(runs[worst_a] - runs[best_b])
    else:
        d, half = unpaired_interval(f.loc[worst_a, "m"], f.loc[worst_a, "sd"],
                                    f.loc[best_b, "m"], f.loc[best_b, "sd"], N_PERMUTATIONS)
    return beats(d, half=half, higher=False)


def fewer_mistakes_text(f, a, b, runs=None):
    """The difference and its 95% half-width that :func:`fewer_mistakes` judges (points)."""
    a = [a] if isinstance(a, str) else list(a)
    b = [b] if isinstance(b, str) else list(b)
    worst_a, best_b = f.loc[a, "m"].idxmax(), f.loc[b, "m"].idxmin()
    if runs is not None:
        d, half = paired_interval(runs[worst_a] - runs[best_b])
    else:
        d, half = unpaired_interval(f.loc[worst_a, "m"], f.loc[worst_a, "sd"],
                                    f.loc[best_b, "m"], f.loc[best_b, "sd"], N_PERMUTATIONS)
    return f"{d:+.2f} +- {half:.2f}"


def zhao_claims(results):
    from .. import duol

    key = "zhao2009duol"
    names = ["german.numer", "splice", "spambase", "w7a", "a1a"]
    folder = Path(results) / "duol"
    ours, paper, runs = _frames(folder, duol, names)
    single = list(SINGLE_UPDATE)
    v = all_cases([fewer_mistakes(ours[n], "DUOL", single, runs[n]) for n in names], "sets")
    pv = all_cases([fewer_mistakes(paper[n], "DUOL", single) for n in names], "sets")
    return [
        _row(key, "Tables 1-3, 5-6, section 4.2", "table", "DUOL 'achieves significantly smaller "
             "mistake rates than the other single-updating algorithms in all cases'.",
             "DUOL vs the best single-updating learner (mistakes, %): " + "; ".join(
                 f"{_label(n)} {paper[n].loc['DUOL', 'm']:.1f} vs {paper[n].loc[single, 'm'].min():.1f}"
                 for n in names),
             "DUOL vs the best single-updating learner (mistakes, %, DUOL minus it with the "
             "95% interval of the paired difference over the 20 permutations): " + "; ".join(
                 f"{n} {ours[n].loc['DUOL', 'm']:.1f} vs {ours[n].loc[single, 'm'].min():.1f} "
                 f"({fewer_mistakes_text(ours[n], 'DUOL', single, runs[n])})" for n in names),
             beside(v, pv), "per set, DUOL minus the best single-updating learner: the 95% "
             "interval of the paired difference over our 20 permutations below zero holds, "
             "above fails, containing zero a tie; the paper's tables (mean +- std over 20 runs, "
             "no pairs): the same test on the difference of the means; a1a stands in for a7a",
             "duol/reproduction",
             id="zhao2009:4.2:duol-fewest-mistakes", rule="beats"),
        _untestable(key, "Table 4", "table", "The results on MITFace.", "Table 4",
                    "MITFace is not available here", "duol/reproduction",
                    id="zhao2009:4.2:mitface-not-available"),
        _theorem(key, "Theorems 1-2", "A double update on a mistake gains at least 1/(1-rho) "
                 "in the dual (Theorem 1) and the best double step at least 1/2 + min((1+rho)^2, "
                 "(C - gamma_b)^2)/2 (Theorem 2).", "duol/theory", "asserted on every update of "
                 "the page's runs where the hypotheses hold", id="zhao2009:3:dual-gain-theorems"),
        _row(key, "Theorem 3", "theorem", "DUOL's mistake bound M <= 2 min_f P(f) - "
             "(1+rho)/(1-rho) M_d (C sufficiently large).", "proved in the paper (the proof "
             "assumes that updates on margin errors never lower the dual)",
             "refuted: a seven-example stream found by the page's search makes more mistakes "
             "(y f <= 0) than the bound allows, with P* certified by an exact bracket; the bound "
             "holds on the two real streams", "does not", "a counterexample found and asserted "
             "on the page (the bound fails for the upper bound of P*)", "duol/theory",
             cause="the theorem is false as stated: Algorithm 1's single updates on margin "
                   "errors lower the dual, which the proof does not count",
             alternative="strict count (y f < 0): no counterexample in the page's search, not "
                         "proved; corrected Theorem 3 (ours, proved on the page: the margin "
                         "errors charged) holds on every checked stream",
             id="zhao2009:3:mistake-bound", rule="asserted", paper_key="proved",
             ours_key="counterexample"),
    ] + _zhao_more(key, duol, folder, names, ours, paper, runs)


def _zhao_more(key, duol, folder, names, ours, paper, runs):
    """The support-vector and time columns of Tables 1-3, 5, 6, Online-SVM and Figures 2-6."""
    aggressive, plain = ["agg-ROMMA", "PA-I", "PA-II"], ["Perceptron", "ROMMA", "ALMA2(0.9)"]
    single = plain + aggressive + ["DUOL"]
    rows = []
    timing = (" (times: olearn's compiled code against the paper's Matlab; same machine for all "
              "learners)")

    def add(id, claim, case, rule_name, quantifier, why, unit="sets"):
        v = quantifier([case(ours[n], runs[n]) for n in names], unit)
        pv = quantifier([case(paper[n], None) for n in names], unit)
        rows.append(_row(key, "Tables 1-3, 5-6, section 4.2", "table", claim,
                         f"the paper's tables: holds on {pv.key} ({_A7A})", f"holds on {v.key}",
                         beside(v, pv), why, "duol/reproduction", id=id, rule=rule_name))

    add("zhao2009:4.2:aggressive-fewer-mistakes", "The aggressive learners (agg-ROMMA, PA-I, "
        "PA-II) 'perform considerably better than the other three algorithms (i.e., Perceptron, "
        "ROMMA, and ALMA) in most cases'.", lambda f, r: fewer_mistakes(f, aggressive, plain, r),
        "most", most_cases,
        "per set, the worst aggressive learner minus the best other: the 95% interval of the "
        "paired difference over our 20 permutations (the paper's: of the difference of its "
        "means +- std over 20 runs) below zero holds, above fails, containing zero a tie; 'most "
        "cases': more than half of the sets ('considerably' is not tested beyond the noise)")
    add("zhao2009:4.2:aggressive-more-support-vectors", "The aggressive learners keep "
        "'considerably more support vectors' than the other three.",
        lambda f, r: beats(f.loc[aggressive, "sv"].min(), f.loc[plain, "sv"].max(), tol=0),
        "beats", all_cases, "per set, the fewest support vectors of an aggressive learner "
        "above the most of the others (counts: equal a tie)")
    add("zhao2009:4.2:duol-sparsity-between", "DUOL is sparser than the three aggressive "
        "learners and denser than the three others.",
        lambda f, r: min(beats(f.loc[aggressive, "sv"].min(), f.loc["DUOL", "sv"], tol=0),
                      beats(f.loc["DUOL", "sv"], f.loc[plain, "sv"].max(), tol=0)),
        "conditions", all_cases, "per set two conditions (counts): DUOL's support vectors "
        "below the aggressive learners' and above the others'")
    add("zhao2009:4.2:perceptron-fastest", "The Perceptron, 'for its simplicity, is clearly "
        "the most efficient algorithm'.",
        lambda f, r: faster(f.loc["Perceptron", "t"], f.loc[[x for x in single if x != "Perceptron"], "t"].min()),
        "timing", all_cases, "per set, the Perceptron's mean time over the 20 permutations "
        f"against the fastest other (timing rule: a tie within {TIME_TOLERANCE:.0%})" + timing)
    add("zhao2009:4.2:agg-romma-slowest", "'The agg-ROMMA algorithm is significantly "
        "slower than the others (except for Online-SVM)'.",
        lambda f, r: faster(f.loc[[x for x in single if x != "agg-ROMMA"], "t"].max(), f.loc["agg-ROMMA", "t"]),
        "timing", all_cases, "per set, the slowest other learner against agg-ROMMA (timing "
        f"rule: a tie within {TIME_TOLERANCE:.0%})" + timing)
    add("zhao2009:4.2:duol-efficiency-comparable", "Although DUOL requires double updating, 'its "
        "efficiency is comparable to the PA and ROMMA algorithms'.", lambda f, r: HOLDS if f.loc["DUOL", "t"] <= COMPARABLE_TIME * f.loc[
            ["PA-I", "PA-II", "ROMMA"], "t"].max() else FAILS,
        "comparable", all_cases, "per set, DUOL's mean time at most "
        f"{COMPARABLE_TIME:g} times the slowest of PA-I, PA-II and ROMMA ('comparable' time)"
        + timing)

    # agg-ROMMA's time against its support vectors (the cause of the timing row)
    fewer_sv = [n for n in names if ours[n].loc["agg-ROMMA", "sv"] < ours[n].loc[["PA-I", "PA-II"], "sv"].min()]
    slowest = next(r for r in rows if r["id"] == "zhao2009:4.2:agg-romma-slowest")
    if slowest["verdict"] in ("does not", "in part"):
        slowest["cause"] = (
            "real non-reproduction: in our runs agg-ROMMA keeps fewer support vectors than PA-I "
            f"and PA-II on {len(fewer_sv)} of {len(names)} sets (the support-vector columns), "
            "and a kernel learner's time grows with its support vectors, so on these sets "
            "being faster than the aggressive PA learners is what the algorithm predicts; no "
            "experiment here compares implementations")

    with_svm = [n for n in ("german.numer", "splice", "spambase")
                if (folder / n / "online_svm" / "summary.csv").is_file()]
    better, slower, pbetter, pslower, text, ratios, each = [], [], [], [], [], [], []
    for n in with_svm:
        s = pd.read_csv(folder / n / "online_svm" / "summary.csv").set_index("learner").loc["Online-SVM"]
        f = pd.concat([ours[n], pd.DataFrame({"sv": [s["n_support_mean"]], "m": [100 * s["mistake_rate_mean"]],
                                              "sd": [100 * s["mistake_rate_std"]],
                                              "t": [s["seconds_mean"]]}, index=["Online-SVM"])])
        svm_runs = 100 * pd.read_csv(folder / n / "online_svm" / "table.csv").pivot(
            index="permutation", columns="learner", values="mistake_rate")["Online-SVM"]
        r = runs[n].assign(**{"Online-SVM": svm_runs})
        better.append(fewer_mistakes(f, "Online-SVM", single, r))
        pbetter.append(fewer_mistakes(paper[n], "Online-SVM", single))
        median = f.loc[single, "t"].median()
        slower.append(faster(median, f.loc["Online-SVM", "t"], factor=100))
        pslower.append(faster(paper[n].loc[single, "t"].median(), paper[n].loc["Online-SVM", "t"],
                              factor=100))
        ratios.append(f.loc["Online-SVM", "t"] / median)
        each.append((f.loc["Online-SVM", "t"] / f.loc[single, "t"].max(),
                     paper[n].loc["Online-SVM", "t"] / paper[n].loc[single, "t"].max()))
        text.append(f"{n} {f.loc['Online-SVM', 'm']:.1f}% vs DUOL {f.loc['DUOL', 'm']:.1f}%, "
                    f"time x{ratios[-1]:.0f}")
    rows.append(_row(key, "Tables 1-3, section 4.2", "table", "Online-SVM makes 'considerably "
                     "fewer mistakes' than every other learner (german, splice, spambase).",
                     f"the paper's tables: holds on {all_cases(pbetter, 'sets').key} (and on MITFace)",
                     "; ".join(text), beside(all_cases(better, "sets"), all_cases(pbetter, "sets")),
                     "per set, Online-SVM minus the best other learner (DUOL included): the 95% "
                     "interval of the paired difference over our 20 permutations (the paper's: of "
                     "the difference of its means +- std over 20 runs) below zero holds, above "
                     "fails, containing zero a tie", "duol/reproduction", id="zhao2009:4.2:online-svm-fewest-mistakes",
                     rule="beats"))
    rows.append(_row(key, "Tables 1-3, section 4.2", "table", "'For most cases, the running time of "
                     "Online-SVM is two order, sometimes three order, higher than the other online "
                     "learning algorithms'.", "the paper's tables: time / median of the others: " + ", ".join(
                         f"{n} x{paper[n].loc['Online-SVM', 't'] / paper[n].loc[single, 't'].median():.0f}"
                         for n in with_svm),
                     "; ".join(text), beside(most_cases(slower, "sets"), most_cases(pslower, "sets")),
                     "our reading of 'than the other algorithms': per set, Online-SVM's mean time "
                     "against 100 times the median of the other learners' (timing rule: "
                     f"x{100 * (1 - TIME_TOLERANCE):.0f} to x{100 / (1 - TIME_TOLERANCE):.0f} is a "
                     "tie); 'for most cases': more than half of the sets" + timing,
                     "duol/reproduction", id="zhao2009:4.2:online-svm-orders-slower", rule="most",
                     alternative="against each other learner (Online-SVM's time over the slowest "
                                 "other's, timing rule at x100): paper " + ", ".join(
                                     f"x{p_:.0f}" for _, p_ in each) + ", ours " + ", ".join(
                                     f"x{o_:.0f}" for o_, _ in each) + ": ours "
                                 f"{most_cases([faster(1, o_, factor=100) for o_, _ in each])}, "
                                 "the paper's "
                                 f"{most_cases([faster(1, p_, factor=100) for _, p_ in each])}"))

    cases, shares = [], []
    for n in names:
        t = pd.read_csv(folder / n / "traces.csv")
        t = t[t["round"] >= t["round"].max() / 2]
        at = []
        for _, c in t.groupby("round"):
            w = 100 * c.pivot(index="permutation", columns="learner", values="mistake_rate")
            best = w[list(SINGLE_UPDATE)].mean().idxmin()
            d, half = paired_interval(w[best] - w["DUOL"])     # above zero: DUOL lower
            at.append(beats(d, half=half))
        shares.append(at.count(HOLDS) / len(at))
        cases.append(HOLDS if all(x == HOLDS for x in at) else FAILS if FAILS in at else TIE)
    rows.append(_row(key, "Figures 2-6, section 4.2", "figure", "Along the stream DUOL's mistake "
                     "rate stays below the single-updating learners'.", "DUOL's curve lowest",
                     "share of the second-half checkpoints where DUOL is below the best "
                     "single-updating learner beyond the noise: " + ", ".join(f"{n} {100 * v:.0f}%" for n, v in zip(names, shares)),
                     all_cases(cases, "sets"), "per second-half checkpoint, the best single-updating "
                     "learner (by mean) minus DUOL with the 95% interval of the paired difference "
                     "over the 5 stored orders; a set holds when DUOL is below beyond the noise at "
                     "every checkpoint, fails when above beyond it at some checkpoint, otherwise a "
                     "tie", "duol/reproduction",
                     id="zhao2009:4.2:duol-curve-lowest", rule="beats"))
    rows.append(_definition(key, "Figure 1, section 3", "The DUOL algorithm (double update with "
                            "the most conflicting support vector).", "duol/derivation",
                            "olearn's dual coefficients equal the hand-worked example",
                            id="zhao2009:3:duol-definition"))
    return rows


#: the cause of each "does not" / "in part": row id -> cause (:data:`CAUSES`)
CAUSE_NOTES = {
    "zhao2009:4.2:aggressive-fewer-mistakes": "real non-reproduction: the same LIBSVM/UCI sets "
        "and the paper's parameters (a1a for a7a)",
    "zhao2009:4.2:duol-sparsity-between": "real non-reproduction: the same LIBSVM/UCI sets "
        "and the paper's parameters (a1a for a7a)",
    "zhao2009:4.2:perceptron-fastest": _TIMING,
    "zhao2009:4.2:agg-romma-slowest": "real non-reproduction: the same LIBSVM/UCI sets (a1a "
        "for a7a)",
    "zhao2009:4.2:online-svm-orders-slower": _TIMING,
    "zhao2009:4.2:duol-fewest-mistakes": "real non-reproduction: the same LIBSVM/UCI sets (a1a "
        "for a7a)",
    "zhao2009:4.2:online-svm-fewest-mistakes": "real non-reproduction: the same UCI sets",
    "zhao2009:4.2:duol-curve-lowest": "real non-reproduction: the same LIBSVM/UCI sets (a1a "
        "for a7a)",
    "zhao2009:4.2:aggressive-more-support-vectors": "real non-reproduction: the same LIBSVM/UCI "
        "sets",
    "zhao2009:4.2:duol-efficiency-comparable": _TIMING,
}
