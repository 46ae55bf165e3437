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
                          ranked_best, HOLDS, TIE, FAILS, POINTS, Judged)



# -- Zhao, Hoi and Jin (2009) -----------------------------------------------------------------
SINGLE_UPDATE = ("Perceptron", "ROMMA", "agg-ROMMA", "ALMA2(0.9)", "PA-I", "PA-II")


def zhao_claims(results):
    from .. import duol

    key = "zhao2009duol"
    names = ["german.numer", "splice", "spambase", "w7a", "a1a"]
    fewer, paper_fewer, ours_text = [], [], []
    for name in names:
        s = pd.read_csv(Path(results) / "duol" / name / "summary.csv").set_index("learner")
        others = s.loc[list(SINGLE_UPDATE)]
        if s.loc["DUOL", "ci_high"] < others["ci_low"].min():
            fewer.append(name)
        p = duol.paper_table(name)["paper_mistake_%"]
        if p["DUOL"] < p[list(SINGLE_UPDATE)].min():
            paper_fewer.append(name)
        ours_text.append(f"{name} {100 * s.loc['DUOL', 'mistake_rate_mean']:.1f}% vs "
                         f"{100 * others['mistake_rate_mean'].min():.1f}%")
    return [
        _row(key, "Tables 1-3, 5-6", "table", "DUOL makes fewer mistakes than every "
             "single-updating kernel learner.",
             f"DUOL fewest among these learners on {len(paper_fewer)} of {len(names)} sets",
             "; ".join(ours_text) + f" (DUOL vs best other; significant on {len(fewer)})",
             _by_count(len(fewer), len(names)),
             "95% intervals over 20 permutations must not overlap; a1a stands in for a7a",
             "duol/reproduction"),
        _row(key, "Table 4", "table", "The results on MITFace.", "Table 4", "—",
             "cannot be tested here", "MITFace is not available here", "duol/reproduction"),
        _theorem(key, "Theorems 1-2", "A double update on a mistake gains at least 1/(1-rho) "
                 "in the dual (Theorem 1) and the best double step at least 1/2 + min((1+rho)^2, "
                 "(C - gamma_b)^2)/2 (Theorem 2).", "duol/theory", "asserted on every update of "
                 "the page's runs where the hypotheses hold"),
        _row(key, "Theorem 3", "theorem", "DUOL's mistake bound M <= 2 min_f P(f) - "
             "(1+rho)/(1-rho) M_d (C sufficiently large).", "proved in the paper (the proof "
             "assumes that updates on margin errors never lower the dual)",
             "refuted: a seven-point stream found by the page's search makes more mistakes "
             "(y f <= 0) than the bound allows, with P* certified by an exact bracket; the bound "
             "holds on the two real streams", "does not", "a counterexample found and asserted on the page (the "
             "bound fails for the upper bound of P*)", "duol/theory",
             cause="the theorem is false as stated: Algorithm 1's single updates on margin "
                   "errors lower the dual, which the proof does not count",
             alternative="strict count (y f < 0): no counterexample in the page's search, not "
                         "proved; corrected Theorem 3 (ours, proved on the page: the margin "
                         "errors charged) holds on every checked stream"),
    ] + _zhao_more(key, duol, Path(results) / "duol", names)


def _zhao_more(key, duol, folder, names):
    """The support-vector and time columns of Tables 1-3, 5, 6, Online-SVM and Figures 2-6."""
    aggressive, plain = ["agg-ROMMA", "PA-I", "PA-II"], ["Perceptron", "ROMMA", "ALMA2(0.9)"]
    ours = {n: pd.read_csv(folder / n / "summary.csv").set_index("learner") for n in names}
    paper = {n: duol.paper_table(n) for n in names}
    rows = []

    def count(test):
        held = [n for n in names if test(ours[n]["n_support_mean"], ours[n]["mistake_rate_mean"],
                                         ours[n]["seconds_mean"])]
        in_paper = [n for n in names if test(paper[n]["paper_SVs"], paper[n]["paper_mistake_%"],
                                             paper[n]["paper_seconds"])]
        return held, in_paper

    def add(where, claim, test, rule, verdict_rule=_by_count, note="", ties=None):
        held, in_paper = count(test)
        verdict = _judge(verdict_rule(len(held), len(names)), verdict_rule(len(in_paper), len(names)))
        tied = [n for n in names if ties is not None and n not in held
                and ties(ours[n]["seconds_mean"])]
        if tied and verdict in ("does not", "in part") and len(held) + len(tied) == len(names):
            # the sets where it fails are ties within the tolerance
            verdict = _Verdict("inconclusive", str(verdict), "without the timing tolerance")
        rows.append(_row(key, where, "table", claim, f"holds on {len(in_paper)} of {len(names)} "
                         "sets (the paper's tables)", f"holds on {len(held)} of {len(names)} "
                         f"({', '.join(held) or 'none'})" + (f"; a tie within {TIME_TOLERANCE:.0%} "
                                                               f"on {', '.join(tied)}" if tied else ""),
                         verdict, rule + note, "duol/reproduction"))

    add("Tables 1-3, 5-6, section 4.2", "The aggressive learners (agg-ROMMA, PA-I, PA-II) make "
        "fewer mistakes than the other three (Perceptron, ROMMA, ALMA) in most cases.",
        lambda sv, m, t: m[aggressive].max() < m[plain].min(),
        "per set, the worst aggressive learner's mean mistake rate below the best other's; "
        "'most cases': more than half of the sets", _majority)
    add("Tables 1-3, 5-6, section 4.2", "The aggressive learners keep considerably more support "
        "vectors than the other three.", lambda sv, m, t: sv[aggressive].min() > sv[plain].max(),
        "per set, the fewest support vectors of an aggressive learner above the most of the others")
    add("Tables 1-3, 5-6, section 4.2", "DUOL is sparser than the three aggressive learners and "
        "denser than the three others.", lambda sv, m, t: sv[aggressive].min() > sv["DUOL"] > sv[plain].max(),
        "per set, DUOL's mean support vectors strictly between the two groups")
    timing = " (times: olearn's compiled code against the paper's Matlab; same machine for all learners)"
    single = plain + aggressive + ["DUOL"]
    add("Tables 1-3, 5-6, section 4.2", "The Perceptron is clearly the fastest learner.",
        lambda sv, m, t: t[single].idxmin() == "Perceptron", "per set, the least mean time over "
        f"the 20 permutations; a set where it is within {TIME_TOLERANCE:.0%} of the fastest is a tie",
        note=timing, ties=lambda t: _time_order(t["Perceptron"], t[single].min()) == 0)
    add("Tables 1-3, 5-6, section 4.2", "agg-ROMMA is significantly slower than the others "
        "(Online-SVM aside).", lambda sv, m, t: t[single].idxmax() == "agg-ROMMA",
        "per set, the largest mean time among the single-updating learners and DUOL (20 "
        f"permutations); within {TIME_TOLERANCE:.0%} of the slowest is a tie", note=timing,
        ties=lambda t: _time_order(t["agg-ROMMA"], t[single].max()) == 0)
    add("Tables 1-3, 5-6, section 4.2", "DUOL's efficiency is comparable to PA and ROMMA.",
        lambda sv, m, t: t["DUOL"] <= 2 * t[["PA-I", "PA-II", "ROMMA"]].max(),
        "per set, DUOL's mean time at most twice the slowest of PA-I, PA-II and ROMMA", note=timing)

    with_svm = [n for n in ("german.numer", "splice", "spambase")
                if (folder / n / "online_svm" / "summary.csv").is_file()]
    better, slower, text, paper_better, paper_slower = [], [], [], 0, 0
    for n in with_svm:
        svm = pd.read_csv(folder / n / "online_svm" / "summary.csv").set_index("learner").loc["Online-SVM"]
        s = ours[n]
        if svm["ci_high"] < s.loc[single, "ci_low"].min():
            better.append(n)
        ratio = svm["seconds_mean"] / s.loc[single, "seconds_mean"].median()
        p = paper[n]
        paper_better += p.loc["Online-SVM", "paper_mistake_%"] < p.loc[single, "paper_mistake_%"].min()
        paper_slower += p.loc["Online-SVM", "paper_seconds"] >= 100 * p.loc[single, "paper_seconds"].median()
        slower.append(ratio >= 100)
        text.append(f"{n} {100 * svm['mistake_rate_mean']:.1f}% vs DUOL "
                    f"{100 * s.loc['DUOL', 'mistake_rate_mean']:.1f}%, time x{ratio:.0f}")
    rows.append(_row(key, "Tables 1-3, section 4.2", "table", "Online-SVM makes considerably "
                     "fewer mistakes than every other learner (german, splice, spambase).",
                     f"fewest mistakes on {paper_better} of {len(with_svm)} of these sets "
                     "(and on MITFace)", "; ".join(text),
                     _by_count(len(better), len(with_svm)), "95% intervals must not overlap "
                     "with any other learner's (DUOL included)", "duol/reproduction"))
    rows.append(_row(key, "Tables 1-3, section 4.2", "table", "Online-SVM's running time is two, "
                     "sometimes three orders of magnitude above the others'.",
                     f"at least x100 on {paper_slower} of {len(with_svm)} of these sets",
                     "; ".join(text),
                     _by_count(sum(slower), len(with_svm)), "per set, Online-SVM's mean time at "
                     "least 100 times the median of the other learners'" + timing,
                     "duol/reproduction"))

    lowest = []
    for n in names:
        t = pd.read_csv(folder / n / "traces.csv")
        m = t.groupby(["learner", "round"])["mistake_rate"].mean().unstack(0)
        half = m[m.index >= m.index.max() / 2]
        lowest.append(float((half["DUOL"] < half[list(SINGLE_UPDATE)].min(axis=1)).mean()))
    held = sum(share == 1.0 for share in lowest)
    rows.append(_row(key, "Figures 2-6, section 4.2", "figure", "Along the stream DUOL's mistake "
                     "rate stays below the single-updating learners'.", "DUOL's curve lowest",
                     "share of the second-half checkpoints where DUOL is lowest: " + ", ".join(
                         f"{n} {100 * v:.0f}%" for n, v in zip(names, lowest)),
                     _by_count(held, len(names)), "mean over 5 orders; a set counts when DUOL is "
                     "lowest at every checkpoint of the second half of the stream",
                     "duol/reproduction"))
    rows.append(_definition(key, "Figure 1, section 3", "The DUOL algorithm (double update with "
                            "the most conflicting support vector).", "duol/derivation",
                            "olearn's dual coefficients equal the hand-worked example"))
    return rows


#: the cause of each "does not" / "in part": start of the claim -> cause
CAUSE_NOTES = {
    ("zhao2009duol", "The aggressive learners (agg-ROMMA, PA-I, PA-II) make"): "real "
        "non-reproduction: the same LIBSVM/UCI sets and the paper's parameters (a1a for a7a)",
    ("zhao2009duol", "agg-ROMMA is significantly slower"): _TIMING,
    ("zhao2009duol", "Online-SVM's running time"): _TIMING,
}
