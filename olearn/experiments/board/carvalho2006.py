"""The scoreboard's rows for Carvalho and Cohen (2006), *Single-pass online learning: performance, voting schemes and online feature selection*.

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

_STAND_IN_CC = ("stand-in data: our 3 NLP tasks differ from the report's (20newsgroup's topic "
                "is our choice, MovieReviews is v2.0, Reuters' 'money' is read as money-fx) and "
                "the positive classes are our reading (issue 28 item 9)")


# -- Carvalho and Cohen (2006) ----------------------------------------------------------------
def carvalho_claims(results, folds=None, run_missing=False):
    """``folds`` (default: the stored ``cv_folds.csv``) the per-fold F1 the rows read;
    ``run_missing`` runs the claims no stored run covers (:func:`efs_lowest_features`)."""
    from .. import single_pass as sp

    key = "carvalho2006single"
    if folds is None:
        folds = pd.read_csv(Path(results) / "single_pass" / "cv_folds.csv")
    table = sp.f1_table(folds)
    online = list(sp.PAPER_TABLE4.columns)
    ours4 = sp.summary(table[online])
    ours5 = sp.summary(table[list(sp.PAPER_TABLE5.columns)])
    paper4, paper5 = sp.PAPER_TABLE4_SUMMARY, sp.PAPER_TABLE5_SUMMARY
    # the paper's own Tables 4 and 5 restricted to the data sets we have (same rules)
    sub4 = sp.summary(sp.PAPER_TABLE4.loc[table.index])
    sub5 = sp.summary(sp.PAPER_TABLE5.loc[table.index])
    rows = []

    rank, prank = ours4["NLP"].loc["avg rank"], sub4["NLP"].loc["avg rank"]
    rank5, prank5 = ours5["NLP"].loc["avg rank"], sub5["NLP"].loc["avg rank"]
    non_ranks = paper4["non-NLP"]["rank"]
    non_place = 1 + sum(v < non_ranks["MBW"] for v in non_ranks.values())
    all_ranks = table[online].rank(axis=1, ascending=False, method="average").mean()
    # one claim, said twice (issue 28 item 4: rows 0, 7 and 13 merged): section 1 and
    # section 4.3.1 on Table 4 (the online learners), section 4.3.1 on Tables 4 and 5
    # ("including SVM"); the evidence of both tables, a condition each
    rows.append(_row(
        key, "Tables 4-5, sections 1 and 4.3.1", "table",
        "On the text (NLP) tasks MBW outperforms all other learners: the single-pass online "
        "learners of Table 4 and the batch SVM and Naive Bayes of Table 5 (on the other tasks "
        f"the paper's Table 4 ranks it {non_place} of 10).",
        "'MBW outperformed all other online learners for NLP datasets' and 'outperforming all "
        "other learners, including SVM' (section 4.3.1; section 1: 'outperforms all other "
        f"single-pass online learners'): best NLP average rank in Table 4 "
        f"({paper4['NLP']['rank']['MBW']:.2f}) and Table 5 "
        f"({paper5['NLP']['rank']['MBW']:.2f}), all 8 NLP sets; on our 3 NLP sets the "
        f"paper's F1 ranks {', '.join(_best(prank))} first in Table 4 ({prank.min():.2f}; MBW "
        f"{prank['MBW']:.2f}) and {', '.join(_best(prank5))} in Table 5 ({prank5.min():.2f}; "
        f"MBW {prank5['MBW']:.2f})",
        f"MBW's average rank on our 3 NLP sets: {rank['MBW']:.2f} among Table 4's learners "
        f"(best: {', '.join(_best(rank))}, {rank.min():.2f}), {rank5['MBW']:.2f} among Table "
        f"5's (best: {', '.join(_best(rank5))}, {rank5.min():.2f}); over all our sets in "
        f"Table 4: {', '.join(_best(all_ranks))} ({all_ranks.min():.2f}; MBW "
        f"{all_ranks['MBW']:.2f})",
        _judge(_combined(_best_verdict(rank, "MBW"), _best_verdict(rank5, "MBW")),
               _combined(_best_verdict(prank, "MBW"), _best_verdict(prank5, "MBW"))),
        "two conditions: MBW alone the best average F1 rank among Table 4's 10 online "
        "learners and among Table 5's learners, on our 3 of the paper's 8 NLP sets (a tie for "
        "the best is 'in part'); the same rule on the paper's F1 of those 3 sets",
        "single_pass/tables"))

    rank_non = ours4["non-NLP"].loc["avg rank"]
    bases = ["MBW", "PW", "BW", "PA", "ROMMA"]
    better = [b for b in bases if rank_non[f"v-{b}"] < rank_non[b]]
    paper_better = [b for b in bases if paper4["non-NLP"]["rank"][f"v-{b}"] < paper4["non-NLP"]["rank"][b]]
    rows.append(_row(
        key, "Table 4, section 3", "table",
        "Voting improves every online learner on the non-NLP tasks.",
        f"voted version ranks better for {len(paper_better)} of 5 learners",
        f"voted version ranks better for {len(better)} of 5 ({', '.join(better) or 'none'})",
        _by_count(len(better), len(bases)),
        "average F1 rank on our 5 of the paper's 7 non-NLP sets", "single_pass/tables"))

    nlp_sets = [k for k in table.index if sp.DATASETS[k][0] == "NLP"]

    def several(f1):
        near = [k for k in nlp_sets if f1.loc[k, "MBW"] >= f1.loc[k, "SVM"] - COMPARABLE_POINTS]
        return near, ("reproduces" if len(near) >= 2 else "in part" if near else "does not")

    near, mine = several(table)
    pnear, theirs = several(sp.PAPER_TABLE5)
    rows.append(_row(
        key, "Table 5, abstract", "prose",
        "MBW can reach results comparable to a linear SVM for several NLP tasks, in a single pass.",
        "'can reach results comparable to linear SVM for several NLP tasks' (abstract; section "
        "7: 'competitive with linear SVM for several NLP tasks'): a weaker claim than the "
        "row above (comparable, on several tasks), judged apart; "
        f"MBW within {COMPARABLE_POINTS:g} F1 point of the SVM or above on {len(pnear)} of our "
        f"{len(nlp_sets)} NLP sets ({', '.join(pnear)})",
        f"on {len(near)} of {len(nlp_sets)} ({', '.join(near) or 'none'}); MBW minus SVM: "
        + ", ".join(f"{k} {table.loc[k, 'MBW'] - table.loc[k, 'SVM']:+.1f}" for k in nlp_sets),
        _judge(mine, theirs),
        f"'comparable': F1 at most {COMPARABLE_POINTS:g} point below the SVM's; 'several': at "
        "least 2 of our 3 NLP sets", "single_pass/tables"))

    missing = sum(len(v) for v in sp.NOT_AVAILABLE.values())
    rows.append(_row(
        key, "Tables 4-5, Figures 2-4, 7-8", "table",
        f"The results on {', '.join(n for v in sp.NOT_AVAILABLE.values() for n in v)}.",
        f"{missing} of 15 data sets (and 5 of the 8 NLP sets of Figures 2-4 and 7-8)", "—",
        "cannot be tested here",
        "the report's own e-mail sets (RequestAct, Spam, Scam, Webmaster, Sig, Reply) are not "
        "published; Ads (UCI Internet Advertisements) is public, but it is not in the data "
        "store the book reads (OLEARN_DATA_HOME, whose MANIFEST lists every set with its "
        "checksum), so no run of it exists",
        "single_pass/tables"))
    rows += _carvalho_tables(key, sp, table, ours4, ours5)
    rows += _carvalho_figures(key, sp, table, pd.read_csv(Path(results) / "single_pass" / "curves.csv"),
                              pd.read_csv(Path(results) / "single_pass" / "efs.csv"), folds,
                              run_missing, results)
    return rows


#: Table 3 of Carvalho and Cohen: the parameters of the online learners (olearn's names)
CARVALHO_TABLE3 = {
    "PA": {"epsilon": 1.0, "gamma": 0.1},
    "PW": {"alpha": 1.5, "beta": 0.5, "theta": 1.0, "theta0": 1.0},
    "BW": {"alpha": 1.5, "beta": 0.5, "theta": 1.0, "theta0_pos": 2.0, "theta0_neg": 1.0},
    "MBW": {"alpha": 1.5, "beta": 0.5, "theta": 1.0, "theta0_pos": 2.0, "theta0_neg": 1.0,
            "margin": 1.0},
}


def _carvalho_tables(key, sp, table, ours4, ours5):
    """Tables 1-3 and the prose of section 4.3.1 about Tables 4 and 5."""
    page = "single_pass/tables"
    learners = sp.online_learners()
    params_ok = [name for name, want in CARVALHO_TABLE3.items()
                 if all(learners[name].get_params()[k] == v for k, v in want.items())]
    groups = {g: [k for k in table.index if sp.DATASETS[k][0] == g] for g in ("NLP", "non-NLP")}
    rows = [
        _definition(key, "Table 1, section 3", "The mistake-driven online classifier with "
                    "voting: hypotheses weighted by their success counters.", "single_pass/voting",
                    "olearn's Averaged(weights='correct') equals the stored-hypotheses definition"),
        _definition(key, "Table 2, section 2.2.3", "Modified Balanced Winnow (normalisation, "
                    "margin, promotion and demotion).", "single_pass/winnow",
                    "olearn's MBW weights equal the update computed by hand"),
        _row(key, "Table 3, section 4.2", "setting", "The parameters of the online learners.",
             "PA eps=1, gamma=0.1; Winnows alpha=1.5, beta=0.5, theta=1, ...",
             f"our runs use them for {len(params_ok)} of {len(CARVALHO_TABLE3)} learners "
             f"({', '.join(params_ok)})", _by_count(len(params_ok), len(CARVALHO_TABLE3)),
             "checked against single_pass.online_learners (the learners of our runs)", page)]

    # "the non-voted Winnow variants performed better (higher Median F1 and lower Avg. Rank)
    # than non-voted PA or non-voted ROMMA on both types": every (group, Winnow, rival) pair
    pairs = [(g, w, r) for g in groups for w in ("MBW", "PW", "BW") for r in ("PA", "ROMMA")]
    paper4 = sp.PAPER_TABLE4_SUMMARY
    sub4 = sp.summary(sp.PAPER_TABLE4.loc[table.index])
    paper_held = [p for p in pairs if sub4[p[0]].loc["median F1", p[1]] > sub4[p[0]].loc["median F1", p[2]]
                  and sub4[p[0]].loc["avg rank", p[1]] < sub4[p[0]].loc["avg rank", p[2]]]
    held = [p for p in pairs if ours4[p[0]].loc["median F1", p[1]] > ours4[p[0]].loc["median F1", p[2]]
            and ours4[p[0]].loc["avg rank", p[1]] < ours4[p[0]].loc["avg rank", p[2]]]
    online = list(sp.PAPER_TABLE4.columns)
    rows.append(_row(key, "Table 4, section 4.3.1", "prose", "The non-voted Winnows beat "
                     "non-voted PA and ROMMA (median F1 and average rank) on both types of data.",
                     f"{len(paper_held)} of {len(pairs)} (group, Winnow, rival) pairs (the paper's "
                     "F1 on our sets)", f"{len(held)} of {len(pairs)} pairs",
                     _judge(_by_count(len(held), len(pairs)), _by_count(len(paper_held), len(pairs))),
                     "both the median F1 and the average rank must be better, per group", page))
    pa_wins = int((table["PA"] > table["ROMMA"]).sum())
    p4 = sp.PAPER_TABLE4.dropna()
    rows.append(_row(key, "Table 4, section 4.3.1", "prose", "PA typically beats ROMMA.",
                     f"PA > ROMMA on {int((p4['PA'] > p4['ROMMA']).sum())} of our {len(p4)} sets (the paper's F1)", f"PA > ROMMA on {pa_wins} of {len(table)} sets",
                     _judge(_majority(pa_wins, len(table)),
                            _majority(int((p4['PA'] > p4['ROMMA']).sum()), len(p4))),
                     "'typically': on more than half of our sets", page))
    bw_wins = int((table["BW"] > table["PW"]).sum())
    rows.append(_row(key, "Table 4, section 4.3.1", "prose", "Balanced Winnow beats Positive "
                     "Winnow in almost all tests.", f"BW > PW on {int((p4['BW'] > p4['PW']).sum())} of our {len(p4)} sets (the paper's F1)",
                     f"BW > PW on {bw_wins} of {len(table)} sets",
                     _judge(_almost_all(bw_wins, len(table)),
                            _almost_all(int((p4['BW'] > p4['PW']).sum()), len(p4))),
                     "'almost all': all sets but at most one", page))
    plain = ["MBW", "PW", "BW", "PA", "ROMMA"]
    ranks_plain = ours4["non-NLP"].loc["avg rank", plain]
    paper_plain = sub4["non-NLP"].loc["avg rank", plain]
    rows.append(_row(key, "Table 4, section 4.3.1", "prose", "MBW beats the other non-voted "
                     "learners on the non-NLP sets.", "MBW's rank 5.57, best of the non-voted; on "
                     f"our non-NLP sets the paper's F1 ranks {', '.join(_best(paper_plain))} best",
                     f"best non-voted average rank on non-NLP: {', '.join(_best(ranks_plain))} "
                     f"({ranks_plain.min():.2f}; MBW {ranks_plain['MBW']:.2f})",
                     _judge(_best_verdict(ranks_plain, "MBW"), _best_verdict(paper_plain, "MBW")),
                     "average F1 rank among the 10 online learners, our non-NLP sets; a tie for "
                     "the best is 'in part'", page))
    winnow_nlp = [w for w in ("MBW", "PW", "BW")
                  if ours4["NLP"].loc["median F1", w] > ours4["non-NLP"].loc["median F1", w]]
    paper_nlp = [w for w in ("MBW", "PW", "BW")
                 if sub4["NLP"].loc["median F1", w] > sub4["non-NLP"].loc["median F1", w]]
    rows.append(_row(key, "Table 4, section 4.3.1", "prose", "The non-voted Winnows do better "
                     "on NLP than on non-NLP data.", f"median F1 higher on NLP for 3 of 3 (on our "
                     f"sets: {len(paper_nlp)} of 3)",
                     f"median F1 higher on NLP for {len(winnow_nlp)} of 3 "
                     f"({', '.join(winnow_nlp) or 'none'})",
                     _judge(_by_count(len(winnow_nlp), 3), _by_count(len(paper_nlp), 3)),
                     "Table 4's median F1 per group", page))

    r5 = ours5.copy()
    sub5 = sp.summary(sp.PAPER_TABLE5.loc[table.index])
    nlp, non = r5["NLP"].loc["avg rank"], r5["non-NLP"].loc["avg rank"]
    pnlp, pnon = sub5["NLP"].loc["avg rank"], sub5["non-NLP"].loc["avg rank"]
    online5 = ["v-Perceptron", "MBW", "v-MBW"]
    conditions = [non.idxmin() == "SVM", non[online5].idxmax() == "MBW"]
    rows.append(_row(key, "Table 5, section 4.3.1", "prose", "On the non-NLP sets the SVM is "
                     "much better than all others and MBW is not competitive.",
                     "SVM rank 1.71; MBW 4.00, the worst online learner",
                     f"non-NLP average ranks: " + ", ".join(f"{k} {v:.2f}" for k, v in non.items()),
                     _by_count(sum(conditions), 2), "two conditions: the SVM has the best rank; "
                     "MBW the worst of the online learners (MBW, v-MBW, v-Perceptron)", page))
    conditions = [_best(non[online5]) == ["v-Perceptron"], _best(nlp, lower=False) == ["v-Perceptron"]]
    pconditions = [_best(pnon[online5]) == ["v-Perceptron"], _best(pnlp, lower=False) == ["v-Perceptron"]]
    rows.append(_row(key, "Table 5, section 4.3.1", "prose", "The voted Perceptron is the best "
                     "single-pass online learner on non-NLP data and poor on NLP data.",
                     "v-P rank 3.00 (non-NLP, tied with v-MBW), 4.25 (NLP, worst); on our sets "
                     f"the paper's F1 meets {sum(pconditions)} of the 2 conditions",
                     f"v-P's rank {non['v-Perceptron']:.2f} (non-NLP, best online: "
                     f"{non[online5].idxmin()}), {nlp['v-Perceptron']:.2f} (NLP, worst: {nlp.idxmax()})",
                     _judge(_by_count(sum(conditions), 2), _by_count(sum(pconditions), 2)),
                     "two conditions: v-P alone the best online learner on non-NLP; alone the worst "
                     "of Table 5 on NLP", page))
    return rows


def _carvalho_figures(key, sp, table, curves, efs, folds_seconds=None, run_missing=False,
                      results=None):
    """Figures 1-8 (sections 3, 4.3.3 and 5) as read by the voting, curves and EFS pages."""
    per = sp.voting_effect(table)
    rows = []
    non = per.xs("non-NLP")
    most = [n for n in non.index if 2 * non.loc[n, "voting_helps"] > non.loc[n, "sets"]]
    rows.append(_row(key, "Figure 1, section 4.3.2", "figure", "Voting improves every online "
                     "learner on non-NLP data: most points above the x = y line.",
                     "most points above the line for all 5 learners",
                     f"voting raises F1 on most non-NLP sets for {len(most)} of 5 learners "
                     f"({', '.join(most) or 'none'}); pairs above the line: "
                     f"{int(non.voting_helps.sum())} of {int(non.sets.sum())}",
                     _by_count(len(most), len(non)), "a learner counts when voting raises its F1 "
                     "on more than half of our non-NLP sets", "single_pass/voting"))
    nlp = per.xs("NLP")
    pper = sp.voting_effect(sp.PAPER_TABLE4.loc[table.index])
    pnlp, pnon = pper.xs("NLP"), pper.xs("non-NLP")
    conditions = {"BW helped": nlp.loc["BW", "mean_change"] > 0,
                  "ROMMA hurt": nlp.loc["ROMMA", "mean_change"] < 0,
                  "MBW hurt": nlp.loc["MBW", "mean_change"] < 0}
    pconditions = [pnlp.loc["BW", "mean_change"] > 0, pnlp.loc["ROMMA", "mean_change"] < 0,
                   pnlp.loc["MBW", "mean_change"] < 0]
    rows.append(_row(key, "Figure 1, section 4.3.2", "figure", "On NLP data voting helps BW a "
                     "little, visibly hurts ROMMA and slightly hurts MBW (PW and PA unclear).",
                     "BW up, ROMMA down, MBW slightly down; Table 4 on our NLP sets: " + ", ".join(
                         f"{k} {v:+.2f}" for k, v in pnlp.mean_change.items()),
                     "mean F1 change on our NLP sets: " + ", ".join(
                         f"{k} {v:+.2f}" for k, v in nlp.mean_change.items()),
                     _judge(_by_count(sum(conditions.values()), len(conditions)),
                            _by_count(sum(pconditions), len(pconditions))),
                     "three conditions on the sign of the mean change (PW and PA make no claim)",
                     "single_pass/voting"))
    allsets = {n: float((table["v-" + n] - table[n]).mean()) for n in sp.VOTING_LEARNERS}
    conditions = [allsets[w] > 0 for w in ("MBW", "PW", "BW")] + \
                 [non.loc[n, "mean_change"] > 0 for n in ("ROMMA", "PA")]
    p4 = sp.PAPER_TABLE4.loc[table.index]
    pconditions = [float((p4["v-" + w] - p4[w]).mean()) > 0 for w in ("MBW", "PW", "BW")] + \
                  [pnon.loc[n, "mean_change"] > 0 for n in ("ROMMA", "PA")]
    rows.append(_row(key, "Section 7, abstract", "prose", "Voting considerably improves the "
                     "Winnow learners, and ROMMA and PA on non-NLP data.",
                     "improves 3 Winnows (all data) and ROMMA, PA (non-NLP)",
                     "mean F1 change, all our sets: " + ", ".join(
                         f"{w} {allsets[w]:+.2f}" for w in ("MBW", "PW", "BW"))
                     + "; non-NLP: " + ", ".join(f"{n} {non.loc[n, 'mean_change']:+.2f}"
                                                 for n in ("ROMMA", "PA")),
                     _judge(_by_count(sum(conditions), len(conditions)),
                            _by_count(sum(pconditions), len(pconditions))),
                     "five conditions: a positive mean change in F1 (the same on Table 4's F1 of "
                     f"our sets: {sum(pconditions)} of 5)", "single_pass/voting"))
    weaker = [n for n in nlp.index if nlp.loc[n, "mean_change"] < non.loc[n, "mean_change"]]
    pweaker = [n for n in pnlp.index if pnlp.loc[n, "mean_change"] < pnon.loc[n, "mean_change"]]
    rows.append(_row(key, "Section 4.3.2", "prose", "In NLP tasks voting does not seem to bring "
                     "the same benefits (as on non-NLP tasks).",
                     f"Table 4 on our sets: the mean gain smaller on NLP for {len(pweaker)} of "
                     f"{len(pnlp)} learners", f"mean gain of voting smaller on our NLP sets than on "
                     f"our non-NLP sets for {len(weaker)} of {len(nlp)} learners (" + ", ".join(
                         f"{n} {nlp.loc[n, 'mean_change']:+.1f} vs {non.loc[n, 'mean_change']:+.1f}"
                         for n in nlp.index) + ")",
                     _judge(_majority(len(weaker), len(nlp)), _majority(len(pweaker), len(pnlp))),
                     "per learner, the mean F1 change of voting on NLP below the one on non-NLP; "
                     "'does not seem to bring the same': for more than half of the 5 learners",
                     "single_pass/voting"))

    c = sp.curve_claims(curves)
    if folds_seconds is not None and "seconds" in folds_seconds.columns:
        per_set = folds_seconds.groupby(["dataset", "learner"])["seconds"].mean().unstack()
        online_cols = [n for n in per_set.columns if n not in ("SVM", "Naive Bayes")]
        faster = [k for k in per_set.index
                  if _time_order(per_set.loc[k, online_cols].max(), per_set.loc[k, "SVM"]) < 0]
        ratio = (per_set["SVM"] / per_set[online_cols].max(axis=1))
        rows.append(_row(key, "Abstract, sections 1 and 2", "prose", "Online learning methods "
                         "are typically faster than batch learning methods.",
                         "stated (the report gives no times)",
                         f"the slowest online learner faster than the SVM on {len(faster)} of "
                         f"{len(per_set)} sets; SVM time / slowest online: "
                         f"{ratio.min():.0f}x to {ratio.max():.0f}x",
                         _majority(len(faster), len(per_set)),
                         "mean training time over the 5 folds of the stored runs (one pass of "
                         f"olearn's compiled learners, scikit-learn's LinearSVC); a tie within "
                         f"{TIME_TOLERANCE:.0%}", "single_pass/tables"))
    n = len(c)
    lowest = [k for k in c.index if c.loc[k, "most_often_lowest"] == "v-Perceptron"]
    rows.append(_row(key, "Figures 2-3, section 4.3.3", "figure", "The voted Perceptron "
                     "typically has the lowest performance along the stream.",
                     "v-P lowest on the 8 NLP sets",
                     "learner lowest most often: " + ", ".join(
                         f"{k} {w} (v-P {100 * v:.0f}% of checkpoints)"
                         for k, w, v in zip(c.index, c.most_often_lowest, c.vP_lowest)),
                     _majority(len(lowest), n), "per set, the learner alone lowest in test F1 "
                     "at most checkpoints; 'typically': on more than half of our sets",
                     "single_pass/curves"))
    peaks = [k for k in c.index if c.loc[k, "drops_MBW"] > c.loc[k, "drops_vMBW"]]
    rows.append(_row(key, "Figures 2-3, section 4.3.3", "figure", "MBW shows more peaks than "
                     "voted MBW, particularly early.", "visible in the curves",
                     "; ".join(f"{k} {a} vs {b}" for k, a, b in zip(c.index, c.drops_MBW, c.drops_vMBW))
                     + " drops of F1 > 2 points, first half (MBW vs v-MBW)",
                     _by_count(len(peaks), n), "per set, more F1 drops of over 2 points in the "
                     "first half of the stream", "single_pass/curves"))
    closer = [k for k in c.index if c.loc[k, "MBW_to_SVM"] < c.loc[k, "MBW_to_vP"]
              and c.loc[k, "vMBW_to_SVM"] < c.loc[k, "vMBW_to_vP"]]
    rows.append(_row(key, "Figures 2-3, section 4.3.3", "figure", "MBW and voted MBW are much "
                     "closer to the SVM than to the voted Perceptron.", "visible in the curves",
                     f"both closer to the SVM on {len(closer)} of {n} sets",
                     _by_count(len(closer), n), "mean absolute F1 distance over the checkpoints",
                     "single_pass/curves"))
    fewer = [k for k in c.index if c.loc[k, "mistakes_MBW"] < c.loc[k, "mistakes_vP"]]
    rows.append(_row(key, "Figure 4, section 4.3.3", "figure", "The voted Perceptron needs more "
                     "training examples (makes more training mistakes) than MBW.",
                     "v-P's mistake curve on top",
                     "final training mistakes MBW vs v-P: " + ", ".join(
                         f"{k} {a:.0f} vs {b:.0f}" for k, a, b in
                         zip(c.index, c.mistakes_MBW, c.mistakes_vP)),
                     _by_count(len(fewer), n), "per set, MBW ends with fewer training mistakes",
                     "single_pass/curves"))

    e = sp.efs_claims(efs)
    wide = e["wide"]
    sets = list(e["per_set"])
    rows.append(_definition(key, "Figure 5, section 5.2", "EFS keeps T top and B bottom "
                            "features of the score |u - v|.", "single_pass/efs",
                            "olearn's selection equals the one computed by hand"))
    rising = [s for s in sets if wide.xs(s)["EFS P=0.7"].mean() > wide.xs(s)["EFS P=0.8"].mean()
              > wide.xs(s)["EFS P=0.9"].mean()]
    rows.append(_row(key, "Figure 6, section 5.2", "figure", "Performance improves as P "
                     "increases (20newsgroup, and all other NLP sets).", "error falls with P",
                     "mean error over the budgets, P = 0.7 / 0.8 / 0.9: " + "; ".join(
                         f"{s} " + " / ".join(f"{wide.xs(s)[f'EFS P={p}'].mean():.1f}"
                                              for p in ("0.7", "0.8", "0.9")) for s in sets),
                     _by_count(len(rising), len(sets)), "per set, the mean error over the budgets "
                     "falls from P = 0.7 to 0.8 to 0.9", "single_pass/efs"))
    big = e["p09_beats_p1"][e["large"]]
    at_large = [s for s in sets if 2 * big.xs(s).sum() > len(big.xs(s))]
    rows.append(_row(key, "Figures 6-7, section 5.2", "figure", "P = 0.9 beats P = 1, "
                     "specially for non-aggressive selection, on most NLP sets.",
                     "P = 0.9 below P = 1 at large k",
                     f"P = 0.9 below P = 1 in {int(big.sum())} of {len(big)} cells with k >= 1000 "
                     f"and {int(e['p09_beats_p1'][~e['large']].sum())} of {int((~e['large']).sum())} "
                     "with k < 1000", _majority(len(at_large), len(sets)),
                     "a set counts when P = 0.9 is below P = 1 at most budgets k >= 1000; "
                     "'most sets': more than half", "single_pass/efs"))
    ratio = wide["EFS P=0.9"] - e["batch_best"]
    comparable = {s: int((ratio.xs(s) <= COMPARABLE_POINTS).sum()) for s in sets}
    ok = [s for s in sets if 2 * comparable[s] > len(ratio.xs(s))]
    relative = wide["EFS P=0.9"] / e["batch_best"]
    ok_rel = [s for s in sets if 2 * int((relative.xs(s) <= 1.1).sum()) > len(relative.xs(s))]
    rows.append(_row(key, "Figures 7-8, abstract, section 7", "figure", "EFS with P = 0.9 "
                     "performs comparably to information gain and chi-square.", "comparable",
                     f"budgets where EFS's error is within {COMPARABLE_POINTS:g} point of the better "
                     "batch ranking's: "
                     + ", ".join(f"{s} {comparable[s]} of {len(ratio.xs(s))}" for s in sets),
                     _Verdict(_by_count(len(ok), len(sets)), _by_count(len(ok_rel), len(sets)),
                              "with the former 10% relative tolerance"),
                     f"'comparable': EFS's error (%) at most {COMPARABLE_POINTS:g} point above "
                     "min(IG, CHI) at more than half of the budgets", "single_pass/efs"))
    if "MovieReviews" in sets:
        won, total = e["per_set"]["MovieReviews"]
        rows.append(_row(key, "Figures 7-8, section 5.3", "figure", "On MovieReviews EFS beats "
                         "IG and CHI in almost all selection ranges.", "EFS below both",
                         f"EFS at or below both at {won} of {total} budgets",
                         _almost_all(won, total), "'almost all': all budgets but at most one",
                         "single_pass/efs"))
    reuters_large = e["efs_ok"].xs("Reuters")[~e["reuters_small"]]
    others = [s for s in sets if s != "Reuters"]
    conditions = [e["reuters_batch"] < e["reuters_efs"], 2 * reuters_large.sum() > len(reuters_large)] + \
                 [2 * e["per_set"][s][0] > e["per_set"][s][1] for s in others]
    rows.append(_row(key, "Figures 7-8, section 5.3", "figure", "Reuters is the only set where "
                     "IG and CHI beat EFS, and only at very aggressive selection.",
                     "batch better on Reuters at small k only",
                     f"Reuters k <= 100: batch {e['reuters_batch']:.2f}% vs EFS {e['reuters_efs']:.2f}%; "
                     f"EFS at or below batch at {int(reuters_large.sum())} of {len(reuters_large)} "
                     "larger Reuters budgets; elsewhere: " + ", ".join(
                         f"{s} {e['per_set'][s][0]} of {e['per_set'][s][1]}" for s in others),
                     _by_count(sum(conditions), len(conditions)), "conditions: the batch rankings "
                     "win on Reuters at k <= 100; EFS ties or wins at most larger Reuters budgets "
                     "and at most budgets of every other set", "single_pass/efs"))
    rows += _carvalho_preliminary(key, results)
    if run_missing:
        words, share = efs_lowest_features()
        rows.append(_row(key, "Section 5.2", "prose", "The lowest-scoring features of "
                         "20newsgroup are stop words.", "as, you, what, they, are, do, was, be, "
                         "no, have, to, not", f"the {len(words)} lowest EFS scores of MBW on our "
                         f"20newsgroup stand-in: {', '.join(words)} ({share:.0%} in "
                         "scikit-learn's English stop-word list)",
                         _majority(int(round(share * len(words))), len(words)),
                         "run on the book's page (efs_lowest_features): most of the lowest "
                         "features in the stop-word list", "single_pass/efs"))
    else:
        rows.append(_untestable(key, "Section 5.2", "prose", "The lowest-scoring features of "
                                "20newsgroup are stop words.", "as, you, what, they, ...",
                                "run on the scoreboard page (scoreboard(..., run_missing=True)); "
                                "the stored runs keep only the test errors", "single_pass/efs"))
    return rows


def _changes_text(changes):
    return ", ".join(f"{r.dataset} {r.change:+.1f}±{r.half:.1f}" for r in changes.itertuples())


def _carvalho_preliminary(key, results):
    """Section 2.2 (the Winnows with and without the augmentation and normalisation steps)
    and section 7 (external regret over Positive Winnows), read from the stored runs of
    :mod:`olearn.experiments.missing_claims` (``results/missing_claims``)."""
    from .. import missing_claims as mc

    folder = Path(results) / mc.FOLDER
    steps = pd.read_csv(folder / "winnow_steps.csv")
    # PW and BW: both steps against neither; MBW (defined on normalised rows only): both
    # steps against normalisation alone
    pairs = [(kind, f"{kind}, both steps", f"{kind}, neither step") for kind in ("PW", "BW")] \
        + [("MBW", "MBW, both steps", "MBW, no augmentation")]
    changes = mc.paired_changes(steps, pairs)
    better, worse, _ = mc.consistent_change(changes)
    held = changes[changes["change"] - changes["half"] > 0]
    inside = bool(((changes["change"]).abs() <= changes["half"]).all())
    verdict = _Verdict("inconclusive" if inside else _by_count(len(held), len(changes)),
                       _by_count(int((changes["change"] > 0).sum()), len(changes)),
                       "the mean F1 alone, without the fold noise")
    text = "; ".join(f"{kind}: " + _changes_text(changes[changes["pair"] == kind])
                     for kind in ("PW", "BW", "MBW"))
    rows = [_row(key, "Section 2.2", "prose", "In preliminary experiments the Winnows did "
                 "better with the augmentation and normalisation steps.",
                 "'the Winnow variants performed better if we applied an augmentation and a "
                 "normalization preprocessing step' (no numbers given)",
                 f"mean F1 with both steps minus without (95% interval over the 5 folds): "
                 f"{text}; better beyond the noise on {better} of {len(changes)} (set, "
                 f"Winnow) pairs ({', '.join(f'{r.pair} on {r.dataset}' for r in held.itertuples())}), "
                 f"worse beyond it on {worse}",
                 verdict, "per data set and Winnow (PW, BW: both steps against neither; MBW, "
                 "whose factors need normalised rows: both against normalisation alone), the "
                 "95% interval of the paired F1 change over the report's 5 folds above zero; "
                 "all the intervals containing zero: inconclusive; a reference Winnow "
                 "equal to olearn's with both steps (missing_claims.WinnowSteps)",
                 "scoreboard",
                 cause="protocol difference: the report's preliminary experiments are not "
                       "described (data, protocol); we run its section 4 protocol on our 8 "
                       "sets, where the steps matter beyond the fold noise only for PW on text"
                 if verdict in ("in part", "does not") else "")]

    regret = pd.read_csv(folder / "regret.csv")
    changes = mc.paired_changes(regret, [("regret", "regret PW", "PW")])
    up, down, total = mc.consistent_change(changes)
    verdict = "reproduces" if 2 * up <= total and 2 * down <= total else "does not"
    rows.append(_row(key, "Section 7", "prose", "Blum's external regret minimisation with "
                     "Positive Winnow gives no consistent improvement or deterioration.",
                     "'no consistent improvement or deterioration in performance was "
                     "observed' (no numbers given)",
                     "F1 of polynomial weights over 6 Positive Winnows minus Table 3's "
                     f"Positive Winnow (95% interval over the 5 folds): {_changes_text(changes)}; "
                     f"better on {up}, worse on {down} of {total} sets",
                     verdict, "'no consistent' change: neither the sets where the 95% interval "
                     "of the paired change lies above zero nor those where it lies below zero "
                     "are more than half of our sets; the scheme is our reading (the report "
                     "describes none): Blum and Mansour's polynomial weights over Positive "
                     f"Winnows with (alpha, beta) in {list(mc.REGRET_POOL)} "
                     "(missing_claims.RegretWinnow)", "scoreboard",
                     cause="protocol difference: the report does not describe its scheme; "
                           "ours combines a pool of Positive Winnows by polynomial weights"
                     if verdict == "does not" else ""))
    return rows


def efs_lowest_features(key="20newsgroup", n=12, seed=0):
    """Carvalho and Cohen's section 5.2 run: MBW trained on the training part of
    :func:`single_pass.efs_curves`'s split of ``key`` (a random 80%), the ``n`` features it
    has seen with the lowest EFS score ``|u - v|``, and the share of them in scikit-learn's
    English stop-word list. Returns ``(words, share)``."""
    import warnings

    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from .. import single_pass as sp
    from ... import datasets
    from ...linear.winnow import ModifiedBalancedWinnow
    from ...selection.extremal import extremal_scores

    X, y = sp.load_task(key)
    names = np.asarray(datasets.load(sp.DATASETS[key][1]).feature_names)
    order = np.random.default_rng(seed).permutation(len(y))
    train = order[len(order) // 5:]
    with warnings.catch_warnings():
        # MBW's note on all-zero rows (see olearn.linear.winnow): expected on short posts
        warnings.simplefilter("ignore", RuntimeWarning)
        mbw = ModifiedBalancedWinnow().fit(X[train], y[train])
    scores = extremal_scores(mbw)
    seen = np.flatnonzero(mbw.seen_)
    low = seen[np.lexsort((seen, scores[seen]))][:n]
    words = [str(names[i]) for i in low]
    return words, float(np.mean([w in ENGLISH_STOP_WORDS for w in words]))


def flipped_folds(keys=("Congressional", "WiscBreast"), learners=None):
    """Carvalho and Cohen's cross-validation (Tables 4 and 5's learners, the stored run's
    folds and seeds) on the data sets ``keys`` with the *other* class as the positive one
    (issue 28 item 9: the report does not say which class is positive, and F1 depends on it).
    The SVM runs as in the stored run (scaled on :data:`single_pass.SVM_SCALED`);
    ``learners`` (names) keeps a subset of the learners."""
    from .. import single_pass as sp
    from ... import datasets

    frames = []
    for key in keys:
        group, name, positive, note = sp.DATASETS[key]
        labels = np.unique(np.asarray(datasets.load(name).y))
        other = next(v for v in labels if v != positive)
        chosen = {**sp.online_learners(), **sp.batch_learners(svm_scaled=key in sp.SVM_SCALED)}
        if learners is not None:
            chosen = {k: v for k, v in chosen.items() if k in learners}
        sp.DATASETS[key] = (group, name, other, note)
        try:
            frames.append(sp.cross_validate(key, chosen))
        finally:
            sp.DATASETS[key] = (group, name, positive, note)
    return pd.concat(frames, ignore_index=True)


def positive_class_sensitivity(results, flipped):
    """The F1 of each learner on the data sets of ``flipped`` (:func:`flipped_folds`) with the
    stored run's positive class and with the other one, beside the report's (Tables 4-5), and
    the Carvalho and Cohen rows whose verdict changes when those sets use the other class.
    Returns ``(f1, changed)``."""
    from .. import single_pass as sp

    stored = pd.read_csv(Path(results) / "single_pass" / "cv_folds.csv")
    keys = list(flipped["dataset"].unique())
    ours, other = sp.f1_table(stored).loc[keys], sp.f1_table(flipped).loc[keys]
    paper = pd.concat([sp.PAPER_TABLE4, sp.PAPER_TABLE5.drop(columns=["MBW", "v-MBW"])],
                      axis=1).loc[keys]
    f1 = pd.DataFrame({"stored positive class": ours.stack(), "other class": other.stack(),
                       "paper": paper[ours.columns].stack()})
    swapped = pd.concat([stored[~stored["dataset"].isin(keys)], flipped], ignore_index=True)
    before = pd.DataFrame(carvalho_claims(results))
    after = pd.DataFrame(carvalho_claims(results, folds=swapped))
    changed = before.loc[before["verdict"] != after["verdict"], ["claim", "verdict"]]
    changed["with the other positive class"] = after.loc[changed.index, "verdict"]
    return f1, changed


#: the cause of each "does not" / "in part": start of the claim -> cause
CAUSE_NOTES = {
    ("carvalho2006single", "MBW can reach results"): _STAND_IN_CC,
    ("carvalho2006single", "The non-voted Winnows beat"): _STAND_IN_CC,
    ("carvalho2006single", "The non-voted Winnows do better"): _STAND_IN_CC,
    ("carvalho2006single", "MBW beats the other non-voted"): "real non-reproduction: on the "
        "same UCI sets with Table 3's parameters MBW only ties BW",
    ("carvalho2006single", "Voting considerably improves"): "real non-reproduction: voting PA "
        "does not raise its mean F1 on the same non-NLP sets",
    ("carvalho2006single", "The voted Perceptron typically"): _STAND_IN_CC,
    ("carvalho2006single", "MBW and voted MBW"): _STAND_IN_CC,
    ("carvalho2006single", "Performance improves as P"): "protocol difference: one 80/20 split "
        "per set and our budgets; the differences are a few tenths of a point",
    ("carvalho2006single", "Reuters is the only set"): _STAND_IN_CC,
    ("carvalho2006single", "EFS with P = 0.9"): _STAND_IN_CC,
}
