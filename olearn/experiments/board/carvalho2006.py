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
                          ranked_best, cv_interval, cv_test_to_train, unpaired_interval, HOLDS, TIE, FAILS, POINTS, Judged)

_STAND_IN_CC = ("stand-in data: our 3 NLP tasks differ from the report's (20newsgroup's topic "
                "is our choice, MovieReviews is v2.0, Reuters' 'money' is read as money-fx); "
                "the positive classes are our reading, but flipping them on Congressional and "
                "WiscBreast changes no verdict of these rows (issue 28 item 9)")


# -- Carvalho and Cohen (2006) ----------------------------------------------------------------
def fold_change(folds, sets, a, b, others=None):
    """The F1 change ``a`` minus ``b`` (learners), averaged over the data sets ``sets`` in each
    of the report's 5 folds (minus the same change over ``others`` when given): the mean over
    the folds and its 95% half-width (the stored per-fold F1 are the noise estimate). The
    folds of one cross-validation share most of their training rows: the interval is the
    corrected one of :func:`olearn.experiments.scoreboard.cv_interval` (Nadeau and Bengio's
    correction, ``test_to_train`` 1/4 for the 5 folds), not the plain t-interval."""
    f1 = folds.pivot_table(index=["dataset", "fold"], columns="learner", values="f1")

    def per_fold(keys):
        part = f1.loc[list(keys)]
        return (part[a] - part[b]).groupby(level="fold").mean()

    change = per_fold(sets) if others is None else per_fold(sets) - per_fold(others)
    m, h = cv_interval(change.to_numpy())
    return float(m), float(h)


def paper_se_change(dataset, a, b):
    """The paper's Table 5 F1 of learner ``a`` minus ``b`` on ``dataset`` and the half-width
    of its 95% interval from the published standard errors (standard deviation = se * sqrt(5)
    over the report's 5 folds): the board's interval for a paper's published mean +- spread
    (:func:`unpaired_interval`, as for Zhao, Hoi and Jin's tables). Table 5's units are the
    folds of one cross-validation, so the noise rule's fold correction applies as it does to
    ours (``test_to_train`` = :func:`cv_test_to_train` of the 5 folds, 1/4: the half-width
    1.5 times the plain one)."""
    from .. import single_pass as sp

    m, se, n = sp.PAPER_TABLE5, sp.PAPER_TABLE5_SE, 5
    return unpaired_interval(m.loc[dataset, a], se.loc[dataset, a] * np.sqrt(n),
                             m.loc[dataset, b], se.loc[dataset, b] * np.sqrt(n), n,
                             test_to_train=cv_test_to_train(n))


def _nb_per_set(per_set, online_cols):
    """Per text set: how many online learners Naive Bayes is faster than, and how many tie."""
    from .. import single_pass as sp

    out = []
    for k in per_set.index:
        if sp.DATASETS[k][0] == "NLP":
            c = [faster(per_set.loc[k, "Naive Bayes"], per_set.loc[k, o]) for o in online_cols]
            out.append((k, c.count(HOLDS), c.count(TIE)))
    return out


def noisy(mean_half, higher=True):
    """One case of the "beats" rule on a (mean difference, 95% half-width) pair."""
    m, h = mean_half
    return beats(m, half=h, higher=higher)


#: the batch learners of Table 5 (the others of the stored runs are online)
BATCH = ("SVM", "Naive Bayes")


def warm_seconds(folds):
    """Mean training seconds per (data set, learner) over folds 1-4, and the largest ratio of
    a fold-0 time to the same learner's median over folds 1-4. Fold 0 is each learner's first
    call on a set, where numba compiles (or loads) the compiled loops: its times are left out
    for every learner alike."""
    sec = folds.pivot_table(index=["dataset", "learner"], columns="fold", values="seconds")
    ratio = float((sec[0] / sec.drop(columns=0).median(axis=1)).max())
    return sec.drop(columns=0).mean(axis=1).unstack(), ratio


#: a mean and a half-width closer than this are printed with two decimals (:func:`_plus`):
#: at one decimal "+3.9±3.9" would not show on which side of the noise the case falls
PLUS_CLOSE = 0.1


def _plus(m, h):
    """A mean difference and its 95% half-width as the rows print them: one decimal, two
    where ``|m|`` and ``h`` differ by less than :data:`PLUS_CLOSE` (a boundary case)."""
    d = 2 if abs(abs(m) - h) < PLUS_CLOSE else 1
    return f"{m:+.{d}f}±{h:.{d}f}"


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
    ours_v = all_cases([ranked_best(rank, "MBW"), ranked_best(rank5, "MBW")], "rankings")
    paper_v = all_cases([ranked_best(prank, "MBW"), ranked_best(prank5, "MBW")], "rankings")
    rows.append(_row(
        key, "Tables 4-5, sections 1 and 4.3.1", "table",
        "'MBW outperformed all other online learners for NLP datasets' and 'outperforming all "
        "other learners, including SVM' (on the other tasks the paper's Table 4 ranks it "
        f"{non_place} of 10).",
        "section 4.3.1; section 1: 'outperforms all other single-pass online learners': best "
        f"NLP average rank in Table 4 ({paper4['NLP']['rank']['MBW']:.2f}) and Table 5 "
        f"({paper5['NLP']['rank']['MBW']:.2f}), all 8 NLP sets; on our 3 NLP sets the "
        f"paper's F1 ranks {', '.join(_best(prank))} first in Table 4 ({prank.min():.2f}; MBW "
        f"{prank['MBW']:.2f}) and {', '.join(_best(prank5))} in Table 5 ({prank5.min():.2f}; "
        f"MBW {prank5['MBW']:.2f})",
        f"MBW's average rank on our 3 NLP sets: {rank['MBW']:.2f} among Table 4's learners "
        f"(best: {', '.join(_best(rank))}, {rank.min():.2f}), {rank5['MBW']:.2f} among Table "
        f"5's (best: {', '.join(_best(rank5))}, {rank5.min():.2f}); over all our sets in "
        f"Table 4: {', '.join(_best(all_ranks))} ({all_ranks.min():.2f}; MBW "
        f"{all_ranks['MBW']:.2f})",
        beside(ours_v, paper_v),
        "two rankings, each a case: MBW alone the best average F1 rank among Table 4's 10 "
        "online learners, and among Table 5's learners, on our 3 of the paper's 8 NLP sets; "
        "the same rule on the paper's F1 of those 3 sets",
        "single_pass/tables", id="carvalho2006:4.3.1:mbw-best-on-nlp", rule="ranking",
        paper_key=f"MBW rank {prank['MBW']:.2f} (best {prank.min():.2f})",
        ours_key=f"MBW rank {rank['MBW']:.2f} (best {rank.min():.2f})"))

    nlp_sets = [k for k in table.index if sp.DATASETS[k][0] == "NLP"]
    non_sets = [k for k in table.index if sp.DATASETS[k][0] == "non-NLP"]

    def several(f1):
        return most_cases([comparable(f1.loc[k, "MBW"], f1.loc[k, "SVM"], or_better=True)
                           for k in nlp_sets], "NLP sets")

    mine, theirs = several(table), several(sp.PAPER_TABLE5)
    rows.append(_row(
        key, "Table 5, abstract", "prose",
        "MBW 'can reach results comparable to linear SVM for several NLP tasks', in a single "
        "pass.",
        "abstract; section 7: 'competitive with linear SVM for several NLP tasks' (a weaker "
        "claim than the row above, judged apart); on our NLP sets, the paper's MBW minus SVM: "
        + ", ".join(f"{k} {sp.PAPER_TABLE5.loc[k, 'MBW'] - sp.PAPER_TABLE5.loc[k, 'SVM']:+.1f}"
                    for k in nlp_sets),
        "MBW minus SVM (F1): " + ", ".join(
            f"{k} {table.loc[k, 'MBW'] - table.loc[k, 'SVM']:+.1f}" for k in nlp_sets),
        beside(mine, theirs),
        f"'comparable': F1 at most {POINTS:g} point below the SVM's (or above); 'several': "
        "more than half of our 3 NLP sets, i.e. at least 2", "single_pass/tables",
        id="carvalho2006:abstract:mbw-comparable-to-svm", rule="most"))

    missing = sum(len(v) for v in sp.NOT_AVAILABLE.values())
    rows.append(_untestable(
        key, "Tables 4-5, Figures 2-4, 7-8",  "table",
        f"The results on {', '.join(n for v in sp.NOT_AVAILABLE.values() for n in v)}.",
        f"{missing} of 15 data sets (and 5 of the 8 NLP sets of Figures 2-4 and 7-8)",
        "the report's own e-mail sets (RequestAct, Spam, Scam, Webmaster, Sig, Reply) are not "
        "published; Ads (UCI Internet Advertisements) is public, but it is not in the data "
        "store the book reads (OLEARN_DATA_HOME, whose MANIFEST lists every set with its "
        "checksum), so no run of it exists",
        "single_pass/tables", id="carvalho2006:4.1:data-not-available"))
    rows += _carvalho_tables(key, sp, table, ours4, ours5, folds)
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


def _per_set(folds, sets, a, b):
    """One case per data set: ``a`` beats ``b`` by the corrected paired 95% interval over the 5
    folds (:func:`fold_change`)."""
    return [noisy(fold_change(folds, [k], a, b)) for k in sets]


def _carvalho_tables(key, sp, table, ours4, ours5, folds):
    """Tables 1-3 and the prose of section 4.3.1 about Tables 4 and 5."""
    page = "single_pass/tables"
    learners = sp.online_learners()
    params_ok = [name for name, want in CARVALHO_TABLE3.items()
                 if all(learners[name].get_params()[k] == v for k, v in want.items())]
    groups = {g: [k for k in table.index if sp.DATASETS[k][0] == g] for g in ("NLP", "non-NLP")}
    rows = [
        _definition(key, "Table 1, section 3", "The mistake-driven online classifier with "
                    "voting: hypotheses weighted by their success counters.", "single_pass/voting",
                    "olearn's Averaged(weights='correct') equals the stored-hypotheses definition",
                    id="carvalho2006:3:voting-definition"),
        _definition(key, "Table 2, section 2.2.3", "Modified Balanced Winnow (normalisation, "
                    "margin, promotion and demotion).", "single_pass/winnow",
                    "olearn's MBW weights equal the update computed by hand",
                    id="carvalho2006:2.2.3:mbw-definition"),
        _row(key, "Table 3, section 4.2", "setting", "The parameters of the online learners.",
             "PA eps=1, gamma=0.1; Winnows alpha=1.5, beta=0.5, theta=1, ...",
             f"our runs use them for {len(params_ok)} of {len(CARVALHO_TABLE3)} learners "
             f"({', '.join(params_ok)})", _by_count(len(params_ok), len(CARVALHO_TABLE3), "learners"),
             "checked against single_pass.online_learners (the learners of our runs)", page,
             id="carvalho2006:4.2:parameters", rule="asserted", paper_key="Table 3")]

    # "the non-voted Winnow variants performed better (higher Median F1 and lower Avg. Rank)
    # than non-voted PA or non-voted ROMMA on both types": every (group, Winnow, rival) pair
    pairs = [(g, w, r) for g in groups for w in ("MBW", "PW", "BW") for r in ("PA", "ROMMA")]
    sub4 = sp.summary(sp.PAPER_TABLE4.loc[table.index])

    def pair_case(summary, g, w, r):
        median = beats(summary[g].loc["median F1", w], summary[g].loc["median F1", r])
        ranked = summary[g].loc["avg rank", w] < summary[g].loc["avg rank", r]
        return FAILS if median == FAILS or not ranked else median

    ours_v = all_cases([pair_case(ours4, *p) for p in pairs], "pairs")
    paper_v = all_cases([pair_case(sub4, *p) for p in pairs], "pairs")
    rows.append(_row(key, "Table 4, section 4.3.1", "prose", "'The non-voted Winnow variants "
                     "performed better (higher Median F1 and lower Avg. Rank) than non-voted PA "
                     "or non-voted ROMMA' on both types of data.",
                     f"the paper's F1 on our sets: {paper_v.key}",
                     f"{ours_v.key}", beside(ours_v, paper_v),
                     "per (group, Winnow, rival) pair: the median F1 higher by more than "
                     f"{POINTS:g} point (within it a tie) and the average rank lower", page,
                     id="carvalho2006:4.3.1:winnows-beat-pa-romma", rule="beats"))
    p4 = sp.PAPER_TABLE4.loc[table.index]
    ours_v = most_cases(_per_set(folds, table.index, "PA", "ROMMA"), "sets")
    paper_v = most_cases([beats(p4.loc[k, "PA"], p4.loc[k, "ROMMA"]) for k in table.index], "sets")
    rows.append(_row(key, "Table 4, section 4.3.1", "prose", "'PA typically beats ROMMA'.",
                     f"PA minus ROMMA (F1) on our sets: " + ", ".join(
                         f"{k} {p4.loc[k, 'PA'] - p4.loc[k, 'ROMMA']:+.1f}" for k in table.index),
                     "PA minus ROMMA (F1, corrected 95% interval over the 5 folds): " + ", ".join(
                         f"{k} {_plus(*fold_change(folds, [k], 'PA', 'ROMMA'))}" for k in table.index),
                     beside(ours_v, paper_v),
                     "'typically': on more than half of our sets; a set holds when the paired "
                     "corrected interval over the folds lies above zero (the paper's F1: by more than "
                     f"{POINTS:g} point)", page, id="carvalho2006:4.3.1:pa-beats-romma", rule="most"))
    ours_v = almost_all_cases(_per_set(folds, table.index, "BW", "PW"), "sets")
    paper_v = almost_all_cases([beats(p4.loc[k, "BW"], p4.loc[k, "PW"]) for k in table.index], "sets")
    rows.append(_row(key, "Table 4, section 4.3.1", "prose", "'Balanced Winnow beats Positive "
                     "Winnow in almost all tests'.",
                     "BW minus PW (F1) on our sets: " + ", ".join(
                         f"{k} {p4.loc[k, 'BW'] - p4.loc[k, 'PW']:+.1f}" for k in table.index),
                     "BW minus PW (F1, corrected 95% interval over the 5 folds): " + ", ".join(
                         f"{k} {_plus(*fold_change(folds, [k], 'BW', 'PW'))}" for k in table.index),
                     beside(ours_v, paper_v), "'almost all': all our sets but at most one; a set "
                     "holds when the corrected paired interval lies above zero (the paper's F1: by more "
                     f"than {POINTS:g} point)", page,
                     id="carvalho2006:4.3.1:bw-beats-pw", rule="almost all"))
    plain = ["MBW", "PW", "BW", "PA", "ROMMA"]
    ranks_plain = ours4["non-NLP"].loc["avg rank", plain]
    paper_plain = sub4["non-NLP"].loc["avg rank", plain]
    rows.append(_row(key, "Table 4, section 4.3.1", "prose", "MBW beats the other non-voted "
                     "learners on the non-NLP sets.", "MBW's rank 5.57, best of the non-voted; on "
                     f"our non-NLP sets the paper's F1 ranks {', '.join(_best(paper_plain))} best",
                     f"best non-voted average rank on non-NLP: {', '.join(_best(ranks_plain))} "
                     f"({ranks_plain.min():.2f}; MBW {ranks_plain['MBW']:.2f})",
                     beside(all_cases([ranked_best(ranks_plain, "MBW")], "rankings"),
                            all_cases([ranked_best(paper_plain, "MBW")], "rankings")),
                     "average F1 rank among the 10 online learners, our non-NLP sets; MBW alone "
                     "best holds, tied for the best is a tie", page,
                     id="carvalho2006:4.3.1:mbw-best-non-voted-non-nlp", rule="ranking",
                     paper_key=f"MBW {paper_plain['MBW']:.2f} (best {paper_plain.min():.2f})",
                     ours_key=f"MBW {ranks_plain['MBW']:.2f} (best {ranks_plain.min():.2f})"))

    def nlp_cases(summary):
        return all_cases([beats(summary["NLP"].loc["median F1", w],
                                summary["non-NLP"].loc["median F1", w])
                          for w in ("MBW", "PW", "BW")], "Winnows")

    ours_v, paper_v = nlp_cases(ours4), nlp_cases(sub4)
    rows.append(_row(key, "Table 4, section 4.3.1", "prose", "The non-voted Winnows do better "
                     "on NLP than on non-NLP data.", "median F1 NLP minus non-NLP, the paper's F1 "
                     "on our sets: " + ", ".join(
                         f"{w} {sub4['NLP'].loc['median F1', w] - sub4['non-NLP'].loc['median F1', w]:+.1f}"
                         for w in ("MBW", "PW", "BW")),
                     "median F1 NLP minus non-NLP: " + ", ".join(
                         f"{w} {ours4['NLP'].loc['median F1', w] - ours4['non-NLP'].loc['median F1', w]:+.1f}"
                         for w in ("MBW", "PW", "BW")),
                     beside(ours_v, paper_v), "per Winnow, Table 4's median F1 on NLP above the "
                     f"one on non-NLP by more than {POINTS:g} point", page,
                     id="carvalho2006:4.3.1:winnows-better-on-nlp", rule="beats"))

    r5 = ours5.copy()
    sub5 = sp.summary(sp.PAPER_TABLE5.loc[table.index])
    nlp, non = r5["NLP"].loc["avg rank"], r5["non-NLP"].loc["avg rank"]
    pnlp, pnon = sub5["NLP"].loc["avg rank"], sub5["non-NLP"].loc["avg rank"]
    online5 = ["v-Perceptron", "MBW", "v-MBW"]

    table5 = list(sp.PAPER_TABLE5.columns)
    rivals = [n for n in table5 if n != "SVM"]
    non_sets = groups["non-NLP"]
    p5 = sp.PAPER_TABLE5.loc[table.index]
    # "SVM shows much better results than all other learners": the beats rule, one case per
    # (non-NLP set, other learner of Table 5), the corrected paired 95% interval over the 5 folds (the
    # paper's F1: by more than POINTS)
    svm_ours = all_cases([noisy(fold_change(folds, [k], "SVM", o)) for k in non_sets
                          for o in rivals], "(set, learner) pairs")
    svm_paper = all_cases([noisy(paper_se_change(k, "SVM", o)) for k in non_sets
                           for o in rivals], "(set, learner) pairs")
    svm_paper_points = all_cases([beats(p5.loc[k, "SVM"], p5.loc[k, o]) for k in non_sets
                                  for o in rivals], "(set, learner) pairs")
    svm_paper_fails = [f"{k} {o} {p5.loc[k, 'SVM'] - p5.loc[k, o]:+.1f}" for k in non_sets
                       for o in rivals if beats(p5.loc[k, "SVM"], p5.loc[k, o]) == FAILS]
    svm_fails = [f"{k} SVM minus {o} {_plus(*fold_change(folds, [k], 'SVM', o))}"
                 for k in non_sets for o in rivals
                 if noisy(fold_change(folds, [k], "SVM", o)) == FAILS]

    def mbw_worst(n):
        return ranked_best(n[online5], "MBW", lower=False)

    # the cause, from the cases above: the failing pairs are ours on the sets whose positive
    # class the report does not name; the scoreboard page reruns them with the other class
    # (positive_class_sensitivity) and asserts they fall inside the fold noise
    svm_cause = ("protocol difference: the report does not say which class is positive on "
                 "Congressional and WiscBreast; with our reading (republican, malignant) the "
                 "SVM is worse beyond the fold noise in "
                 + ("; ".join(svm_fails) or "no pair")
                 + "; with the other class positive, which brings our F1 closer to the "
                 f"report's, {'that pair is' if len(svm_fails) == 1 else 'these pairs are'} inside the "
                 "fold noise and the verdict is "
                 "inconclusive, the paper's own outcome (the scoreboard page reruns it); the "
                 "claim also overstates Table 5 on these sets: with its standard errors (the "
                 f"fold-corrected interval) the SVM is better in {svm_paper.held} of "
                 f"{svm_paper.total} pairs, tied in {svm_paper.tied}, worse in "
                 f"{svm_paper.failed} ({svm_paper}), and by {POINTS:g} point it is worse in "
                 f"{len(svm_paper_fails)} (" + "; ".join(svm_paper_fails) + ")")

    ours_v = conditions(svm_ours, mbw_worst(non))
    paper_v = conditions(svm_paper, mbw_worst(pnon))
    paper_points_v = conditions(svm_paper_points, mbw_worst(pnon))
    ranking_v = conditions(ranked_best(non, "SVM"), mbw_worst(non))
    rows.append(_row(key, "Table 5, section 4.3.1", "prose", "On the non-NLP sets 'SVM shows "
                     "much better results than all other learners and MBW is not competitive'.",
                     "SVM rank 1.71; MBW 4.00, the worst online learner (all 7 non-NLP sets); "
                     f"the paper's F1 on our {len(non_sets)} non-NLP sets: the SVM better "
                     f"beyond Table 5's standard errors in {svm_paper.key}, worse in none",
                     f"SVM better beyond the fold noise in {svm_ours.key}; SVM worse beyond it: "
                     + ("; ".join(svm_fails) or "none") + "; non-NLP average ranks: "
                     + ", ".join(f"{k} {v:.2f}" for k, v in non.items()),
                     beside(ours_v, paper_v), "two conditions: the SVM beats every other "
                     "learner of Table 5 on every non-NLP set (the beats rule: one case per "
                     "(set, learner), the corrected paired 95% interval of the F1 difference over the 5 "
                     "folds; the paper's F1: the 95% interval of the difference from Table 5's "
                     "mean +- standard error over the report's 5 folds, the board's interval "
                     "for a published mean +- spread, unpaired_interval, with the same fold "
                     "correction as ours, since these units are folds of one cross-validation "
                     "too); MBW alone the worst of the online learners (MBW, v-MBW, "
                     "v-Perceptron) by average rank",
                     page, id="carvalho2006:4.3.1:svm-best-non-nlp", rule="conditions",
                     cause=svm_cause,
                     alternative="'the SVM ranks first' (the SVM alone the best average rank, "
                     f"a weaker claim than 'much better'): {ranking_v}; the paper's F1 by "
                     f"{POINTS:g} point instead of its standard errors: {paper_points_v} "
                     f"({svm_paper_points.key}; the SVM worse: "
                     + "; ".join(svm_paper_fails) + ")",
                     ours_key=f"SVM beats the others in {svm_ours.key}"))

    def vp_case(nn, nl):
        return conditions(ranked_best(nn[online5], "v-Perceptron"),
                          ranked_best(nl, "v-Perceptron", lower=False))

    rows.append(_row(key, "Table 5, section 4.3.1", "prose", "The voted Perceptron is the best "
                     "single-pass online learner on non-NLP data and poor on NLP data.",
                     "v-P rank 3.00 (non-NLP, tied with v-MBW), 4.25 (NLP, worst)",
                     f"v-P's rank {non['v-Perceptron']:.2f} (non-NLP, best online: "
                     f"{', '.join(_best(non[online5]))}), {nlp['v-Perceptron']:.2f} (NLP, worst: "
                     f"{', '.join(_best(nlp, lower=False))})",
                     beside(vp_case(non, nlp), vp_case(pnon, pnlp)),
                     "two conditions: v-P alone the best online learner on non-NLP; alone the "
                     "worst of Table 5 on NLP", page, id="carvalho2006:4.3.1:voted-perceptron-best-non-nlp",
                     rule="conditions"))
    return rows


def _carvalho_figures(key, sp, table, curves, efs, folds=None, run_missing=False,
                      results=None):
    """Figure 1 and the voting prose (sections 3, 4.3.2, 7), Figures 2-8 (sections 4.3.3 and
    5) as read by the voting, curves and EFS pages."""
    rows = []
    groups = {g: [k for k in table.index if sp.DATASETS[k][0] == g] for g in ("NLP", "non-NLP")}
    p4 = sp.PAPER_TABLE4.loc[table.index]
    learners = list(sp.VOTING_LEARNERS)

    # one claim said twice (section 3 on Table 4, section 4.3.2 on Figure 1): merged
    def voting_most(case_of):
        per = {n: most_cases([case_of(k, n) for k in groups["non-NLP"]], "sets") for n in learners}
        return all_cases([HOLDS if v == "reproduces" else TIE if v == "inconclusive" else FAILS
                          for v in per.values()], "learners"), per

    ours_v, ours_per = voting_most(lambda k, n: noisy(fold_change(folds, [k], "v-" + n, n)))
    paper_v, paper_per = voting_most(lambda k, n: beats(p4.loc[k, "v-" + n], p4.loc[k, n]))
    rows.append(_row(key, "Table 4, Figure 1, sections 3 and 4.3.2", "figure", "Voting "
                     "improves every online learner on the non-NLP tasks: 'most points above "
                     "the x = y line' (Figure 1).",
                     "all 7 non-NLP sets: most points above the line for all 5 learners; the "
                     "paper's F1 on our 5 sets: " + ", ".join(f"{n} {v.key}" for n, v in paper_per.items()),
                     "voting beyond the fold noise: " + ", ".join(f"{n} {v.key}" for n, v in ours_per.items()),
                     beside(ours_v, paper_v), "per learner, voting raises F1 on most of our "
                     "non-NLP sets (a set holds when the corrected paired 95% interval over the 5 folds "
                     f"lies above zero; the paper's F1: by more than {POINTS:g} point); every "
                     "learner must hold (a learner whose majority the ties decide is a tie)",
                     "single_pass/voting", id="carvalho2006:4.3.2:voting-improves-non-nlp",
                     rule="most"))

    nlp = groups["NLP"]
    pchange = {n: float((p4.loc[nlp, "v-" + n] - p4.loc[nlp, n]).mean()) for n in learners}
    change = {n: fold_change(folds, nlp, "v-" + n, n) for n in learners}
    want = {"BW": True, "ROMMA": False, "MBW": False}
    ours_v = conditions(*[("reproduces" if noisy(change[n], higher=up) == HOLDS else
                           "inconclusive" if noisy(change[n], higher=up) == TIE else "does not")
                          for n, up in want.items()])
    paper_v = conditions(*[("reproduces" if beats(pchange[n], 0.0, higher=up) == HOLDS else
                            "inconclusive" if beats(pchange[n], 0.0, higher=up) == TIE else "does not")
                           for n, up in want.items()])
    rows.append(_row(key, "Figure 1, section 4.3.2", "figure", "On NLP data voting 'helps BW a "
                     "little', visibly hurts ROMMA and 'slightly' hurts MBW (PW and PA unclear).",
                     "the paper's mean F1 change on our NLP sets: " + ", ".join(
                         f"{n} {pchange[n]:+.2f}" for n in learners),
                     "mean F1 change on our NLP sets (corrected 95% interval over the 5 folds): " + ", ".join(
                         f"{n} {_plus(*change[n])}" for n in learners),
                     beside(ours_v, paper_v),
                     "three conditions on the sign of the mean change of BW, ROMMA and MBW, "
                     "each beyond the fold noise (the paper's F1: beyond "
                     f"{POINTS:g} point); inside it a tie (PW and PA make no claim)",
                     "single_pass/voting", id="carvalho2006:4.3.2:voting-on-nlp", rule="conditions"))

    allsets = list(table.index)
    conds = {**{w: fold_change(folds, allsets, "v-" + w, w) for w in ("MBW", "PW", "BW")},
             **{n + " (non-NLP)": fold_change(folds, groups["non-NLP"], "v-" + n, n)
                for n in ("ROMMA", "PA")}}
    pconds = {**{w: float((p4["v-" + w] - p4[w]).mean()) for w in ("MBW", "PW", "BW")},
              **{n + " (non-NLP)": float((p4.loc[groups["non-NLP"], "v-" + n]
                                          - p4.loc[groups["non-NLP"], n]).mean()) for n in ("ROMMA", "PA")}}
    ours_v = all_cases([noisy(v) for v in conds.values()], "conditions")
    paper_v = all_cases([beats(v, 0.0) for v in pconds.values()], "conditions")
    rows.append(_row(key, "Section 7, abstract", "prose", "Voting 'considerably improves' the "
                     "Winnow learners, and ROMMA and PA on non-NLP data.",
                     "the paper's mean F1 change on our sets: " + ", ".join(
                         f"{k} {v:+.2f}" for k, v in pconds.items()),
                     "mean F1 change, all our sets for the Winnows, non-NLP for ROMMA and PA "
                     "(corrected 95% interval over the 5 folds): " + ", ".join(
                         f"{k} {_plus(*v)}" for k, v in conds.items()),
                     beside(ours_v, paper_v),
                     "five conditions: the mean change in F1 above zero beyond the fold noise "
                     f"(the paper's F1: by more than {POINTS:g} point); inside the noise a tie",
                     "single_pass/voting", id="carvalho2006:7:voting-improves-winnows", rule="beats"))

    weaker = {n: fold_change(folds, groups["non-NLP"], "v-" + n, n, others=nlp) for n in learners}
    pweaker = {n: float((p4.loc[groups["non-NLP"], "v-" + n] - p4.loc[groups["non-NLP"], n]).mean()
                        - (p4.loc[nlp, "v-" + n] - p4.loc[nlp, n]).mean()) for n in learners}
    ours_v = most_cases([noisy(v) for v in weaker.values()], "learners")
    paper_v = most_cases([beats(v, 0.0) for v in pweaker.values()], "learners")
    rows.append(_row(key, "Section 4.3.2", "prose", "'In NLP tasks voting does not seem to bring "
                     "the same benefits' (as on non-NLP tasks).",
                     "the paper's F1 on our sets, gain on non-NLP minus gain on NLP: " + ", ".join(
                         f"{n} {v:+.1f}" for n, v in pweaker.items()),
                     "gain of voting on non-NLP minus gain on NLP (corrected 95% interval over the 5 "
                     "folds): " + ", ".join(f"{n} {_plus(*v)}" for n, v in weaker.items()),
                     beside(ours_v, paper_v),
                     "per learner, the mean F1 gain of voting on non-NLP above the one on NLP "
                     "beyond the fold noise; 'does not seem to bring the same': for more than "
                     "half of the 5 learners", "single_pass/voting",
                     id="carvalho2006:4.3.2:voting-less-on-nlp", rule="most"))

    if folds is not None and "seconds" in folds.columns:
        per_set, first_call = warm_seconds(folds)
        batch = [n for n in BATCH if n in per_set.columns]
        online_cols = [n for n in per_set.columns if n not in BATCH]
        slowest = per_set[online_cols].max(axis=1)
        cases = [faster(slowest[k], per_set.loc[k, b]) for k in per_set.index for b in batch]
        judged = most_cases(cases, "(set, batch learner) pairs")
        rows.append(_row(key, "Abstract, sections 1 and 2", "prose", "'Online learning methods "
                         "are typically faster than batch learning methods'.",
                         "stated (the report gives no times)",
                         "mean seconds over folds 1-4, slowest online learner vs SVM / Naive "
                         "Bayes: " + ", ".join(
                             f"{k} {slowest[k]:.3f} vs {per_set.loc[k, 'SVM']:.3f} / "
                             f"{per_set.loc[k, 'Naive Bayes']:.3f}" for k in per_set.index)
                         + f"; fold 0 (each learner's first call on a set) is left out for every "
                         f"learner: it holds numba's compilation, up to {first_call:.0f} times "
                         "a learner's median over the other folds",
                         judged,
                         "training time of the stored runs (one pass of olearn's compiled "
                         "learners; scikit-learn's SVC(kernel='linear') (libsvm, as the "
                         "paper) and MultinomialNB, the two batch learners of Table 5), the "
                         "mean over folds 1-4 for every learner (fold 0 includes the first "
                         "call's numba compilation); one case per (set, batch learner): the "
                         "slowest online learner against that batch learner (the strictest "
                         "case: 'online methods' are faster only if the slowest of them is) "
                         f"by the timing rule (a tie within {TIME_TOLERANCE:.0%}, and when both "
                         f"times are below {TIME_RESOLUTION:g} s, timer noise); 'typically': "
                         "more than half of the cases",
                         "single_pass/tables", id="carvalho2006:abstract:online-faster-than-batch",
                         rule="most", paper_key="no times",
                         alternative="against the SVM alone: " + str(most_cases(
                             [faster(slowest[k], per_set.loc[k, "SVM"]) for k in per_set.index],
                             "sets")) + "; every online learner as a case (set, batch learner, "
                         "online learner): " + str(most_cases(
                             [faster(per_set.loc[k, o], per_set.loc[k, b]) for k in per_set.index
                              for b in batch for o in online_cols], "cases")) + ", but Naive "
                         "Bayes is faster than most online learners on the text sets ("
                         + ", ".join(f"{k}: {h} of {len(online_cols)} faster, {t} tied" for k, h, t
                                     in _nb_per_set(per_set, online_cols)) + ")"))

    c = sp.curve_claims(curves)
    n = len(c)
    lowest_table = vp_lowest(curves)
    lowest = {r.dataset: (r.case, r.lowest, r.checkpoints) for r in lowest_table.itertuples()}
    rows.append(_row(key, "Figures 2-3, section 4.3.3", "figure", "'The voted Perceptron "
                     "typically has the lowest performance' along the stream.",
                     "v-P lowest on the 8 NLP sets",
                     f"checkpoints from {CURVE_START} documents on where v-P is lowest by more "
                     f"than {POINTS:g} point: " + ", ".join(f"{k} {h} of {t}" for k, (_, h, t) in lowest.items())
                     + "; over all checkpoints, the learner lowest most often: " + ", ".join(
                         f"{k} {w}" for k, w in zip(c.index, c.most_often_lowest)),
                     most_cases([v for v, _, _ in lowest.values()], "sets"),
                     f"per set, v-P lowest in test F1 (by more than {POINTS:g} point) at most "
                     f"checkpoints from {CURVE_START} documents on (before, MBW and v-MBW have "
                     "F1 about 0 while they make their first mistakes; within the tolerance a "
                     "tie); 'typically': more than half of our sets",
                     "single_pass/curves", id="carvalho2006:4.3.3:voted-perceptron-lowest", rule="most"))
    rows.append(_row(key, "Figures 2-3, section 4.3.3", "figure", "MBW shows 'more peaks' than "
                     "voted MBW, 'particularly early'.", "visible in the curves",
                     "; ".join(f"{k} {a} vs {b}" for k, a, b in
                               zip(c.index, c.drops_MBW_started, c.drops_vMBW_started))
                     + " drops of F1 > 2 points, first half, from each learner's first non-zero "
                     "F1 (MBW vs v-MBW; first non-zero F1 at " + "; ".join(
                         f"{k} {a} vs {b}" for k, a, b in zip(c.index, c.first_f1_MBW, c.first_f1_vMBW))
                     + " examples)",
                     all_cases([beats(a, b, tol=0) for a, b in
                                zip(c.drops_MBW_started, c.drops_vMBW_started)], "sets"),
                     "per set, more F1 drops of over 2 points in the first half of the stream "
                     "(counts: equal counts a tie), counted from each learner's first non-zero "
                     "F1 (before it a learner has no F1 to drop from); one split per set, no "
                     "noise estimate", "single_pass/curves",
                     id="carvalho2006:4.3.3:mbw-more-peaks", rule="beats"))
    cases = [conditions(beats(c.loc[k, "MBW_to_vP"], c.loc[k, "MBW_to_SVM"]),
                        beats(c.loc[k, "vMBW_to_vP"], c.loc[k, "vMBW_to_SVM"]))
             for k in c.index]
    rows.append(_row(key, "Figures 2-3, section 4.3.3", "figure", "MBW and voted MBW are 'much "
                     "closer' to the SVM than to the voted Perceptron.", "visible in the curves",
                     "mean |F1 distance| to SVM vs to v-P, MBW / v-MBW: " + "; ".join(
                         f"{k} {c.loc[k, 'MBW_to_SVM']:.1f} vs {c.loc[k, 'MBW_to_vP']:.1f} / "
                         f"{c.loc[k, 'vMBW_to_SVM']:.1f} vs {c.loc[k, 'vMBW_to_vP']:.1f}" for k in c.index),
                     all_cases([as_case(v) for v in cases], "sets"),
                     "per set, both MBW and v-MBW closer to the SVM than to v-P by more than "
                     f"{POINTS:g} point (mean absolute F1 distance over the checkpoints)",
                     "single_pass/curves", id="carvalho2006:4.3.3:mbw-closer-to-svm", rule="beats"))
    levels = sp.examples_to_level(curves)
    level_cases = {k: most_cases([HOLDS if r.first > r.other_first else FAILS if r.first < r.other_first
                                  else TIE for r in part.itertuples()], "(level, learner) pairs")
                   for k, part in levels.groupby("dataset", sort=False)}
    proxy = all_cases([beats(b, a, tol=0) for a, b in zip(c.mistakes_MBW, c.mistakes_vP)], "sets")
    rows.append(_row(key, "Figures 2-4, section 4.3.3", "figure", "The voted Perceptron is "
                     "'usually requiring more training examples than the other learners to reach "
                     "the same performance levels'.",
                     "v-P's curves reach a level last",
                     "(F1 level, other learner) pairs where v-P reaches the level at a later "
                     "checkpoint than the other learner (MBW, v-MBW, SVM), levels 10, 15, ... "
                     "points: " + ", ".join(f"{k} {v.key}" for k, v in level_cases.items())
                     + "; Figure 4's final training mistakes MBW vs v-P: " + ", ".join(
                         f"{k} {a:.0f} vs {b:.0f}" for k, a, b in
                         zip(c.index, c.mistakes_MBW, c.mistakes_vP)),
                     most_cases([as_case(v) for v in level_cases.values()], "sets"),
                     "per set and test-F1 level reached by every learner of Figure 2 (10, 15, "
                     "... points), one case per other learner: v-P's first checkpoint at that "
                     "level later than the other's holds, earlier fails, the same checkpoint a "
                     "tie; a set holds when more than half of its cases hold; 'usually': more "
                     "than half of our 3 sets; one split per set",
                     "single_pass/curves", id="carvalho2006:4.3.3:voted-perceptron-more-mistakes",
                     rule="most",
                     alternative="Figure 4 alone, 'v-P ends with more training mistakes than "
                     f"MBW' (the only other learner whose mistakes are stored): {proxy}"))

    e = sp.efs_claims(efs)
    wide = e["wide"]
    sets = list(e["per_set"])
    rows.append(_definition(key, "Figure 5, section 5.2", "EFS keeps T top and B bottom "
                            "features of the score |u - v|.", "single_pass/efs",
                            "olearn's selection equals the one computed by hand",
                            id="carvalho2006:5.2:efs-definition"))
    means = {s: [wide.xs(s)[f"EFS P={p}"].mean() for p in ("0.7", "0.8", "0.9")] for s in sets}
    rows.append(_row(key, "Figure 6, section 5.2", "figure", "'Performance improves as P "
                     "increases' (20newsgroup, 'and all other NLP sets').", "error falls with P",
                     "mean error (%) over the budgets, P = 0.7 / 0.8 / 0.9: " + "; ".join(
                         f"{s} " + " / ".join(f"{v:.1f}" for v in means[s]) for s in sets),
                     all_cases([trend(means[s], increasing=False) for s in sets], "sets"),
                     "per set, the mean error over the budgets from P = 0.7 to 0.8 to 0.9 (the "
                     f"trend rule: the last below the first by more than {POINTS:g} point and no "
                     f"step back up by more than {POINTS:g} point holds; the last above the first "
                     f"by more than {POINTS:g} point fails; else a tie). One "
                     "random 80/20 split per set, as in the paper (which also used one split): "
                     "no noise estimate", "single_pass/efs",
                     id="carvalho2006:5.2:error-falls-with-p", rule="trend"))
    large = e["large"]

    def budgets(s, a, b, small=False):
        """Cases over the budgets of set ``s``: method ``a``'s error below ``b``'s."""
        w = wide.xs(s)
        keep = w.index < 1000 if small else w.index >= 1000
        return [beats(w.loc[k, b], w.loc[k, a]) for k in w.index[keep]]

    at_large = {s: most_cases(budgets(s, "EFS P=0.9", "EFS P=1.0"), "budgets") for s in sets}
    rows.append(_row(key, "Figures 6-7, section 5.2", "figure", "P = 0.9 beats P = 1, "
                     "'specially for non-aggressive selection', on most NLP sets.",
                     "P = 0.9 below P = 1 at large k",
                     "budgets k >= 1000 where P = 0.9's error is below P = 1's by more than "
                     f"{POINTS:g} point: " + ", ".join(f"{s} {v.key}" for s, v in at_large.items()),
                     most_cases([HOLDS if v == "reproduces" else TIE if v == "inconclusive" else FAILS
                                 for v in at_large.values()], "sets"),
                     "a set holds when P = 0.9 beats P = 1 (error lower by more than "
                     f"{POINTS:g} point) at most budgets k >= 1000; 'most sets': more than half; "
                     "one split per set", "single_pass/efs", id="carvalho2006:5.2:p09-beats-p1",
                     rule="most"))
    comp = {s: [comparable(wide.xs(s).loc[k, "EFS P=0.9"], e["batch_best"].xs(s).loc[k],
                           or_better=True, higher=False) for k in wide.xs(s).index] for s in sets}
    per_comp = {s: all_cases(c, "budgets") for s, c in comp.items()}
    most_comp = all_cases([as_case(most_cases(c)) for c in comp.values()], "sets")
    worse = [f"{s} k={k} {wide.xs(s).loc[k, 'EFS P=0.9'] - e['batch_best'].xs(s).loc[k]:+.2f}"
             for s in sets for k in wide.xs(s).index
             if comparable(wide.xs(s).loc[k, "EFS P=0.9"], e["batch_best"].xs(s).loc[k],
                           or_better=True, higher=False) == FAILS]
    rows.append(_row(key, "Figures 7-8, abstract, section 7", "figure", "EFS with P = 0.9 "
                     "'performs comparably' to information gain and chi-square.", "comparable",
                     f"budgets where EFS's error is within {POINTS:g} point of the better batch "
                     "ranking's (or below): " + ", ".join(f"{s} {v.key}" for s, v in per_comp.items())
                     + "; EFS worse by more than that: " + (", ".join(worse) or "none"),
                     all_cases([c for cs in comp.values() for c in cs], "budgets"),
                     f"'comparable' (or better): EFS's error (%) at most {POINTS:g} point above "
                     "min(IG, CHI), at every budget of every set (the paper's sentence has no "
                     "quantifier: the comparable rule's all cases); one split per set",
                     "single_pass/efs", id="carvalho2006:abstract:efs-comparable-to-ig-chi",
                     rule="comparable", alternative="comparable at more than half of the "
                     f"budgets of every set (a 'most' the sentence does not state): {most_comp}"))
    if "MovieReviews" in sets:
        w = wide.xs("MovieReviews")
        cases = [beats(e["batch_best"].xs("MovieReviews").loc[k], w.loc[k, "EFS P=0.9"])
                 for k in w.index]
        rows.append(_row(key, "Figures 7-8, section 5.3", "figure", "On MovieReviews 'the EFS "
                         "performance was generally better than IG or CHI in almost all feature "
                         "selection ranges'.", "EFS below both",
                         "EFS P = 0.9 minus the better batch ranking (error, points): " + ", ".join(
                             f"k={k} {w.loc[k, 'EFS P=0.9'] - e['batch_best'].xs('MovieReviews').loc[k]:+.1f}"
                             for k in w.index),
                         almost_all_cases(cases, "budgets"),
                         "'almost all': all budgets but at most one; a budget holds when EFS's "
                         f"error is below both by more than {POINTS:g} point (within it a tie); "
                         "one split", "single_pass/efs", id="carvalho2006:5.3:efs-beats-batch-on-movie-reviews",
                         rule="almost all"))
    others = [s for s in sets if s != "Reuters"]
    r = wide.xs("Reuters")
    rb = e["batch_best"].xs("Reuters")
    small = [beats(r.loc[k, "EFS P=0.9"], rb.loc[k], higher=False) == FAILS for k in r.index if k <= 100]
    wins_elsewhere = {s: int(sum(beats(wide.xs(s).loc[k, "EFS P=0.9"], e["batch_best"].xs(s).loc[k],
                                       higher=False) == FAILS for k in wide.xs(s).index)) for s in others}
    reuters_large = int(sum(beats(r.loc[k, "EFS P=0.9"], rb.loc[k], higher=False) == FAILS
                            for k in r.index if k > 100))
    cond = [beats(e["reuters_batch"], e["reuters_efs"], higher=False), reuters_large == 0] + \
           [wins_elsewhere[s] == 0 for s in others]
    rows.append(_row(key, "Figures 7-8, section 5.3", "figure", "'Reuters is the only set where "
                     "IG and CHI beat EFS', and only at very aggressive selection.",
                     "batch better on Reuters at small k only",
                     f"Reuters k <= 100: batch {e['reuters_batch']:.2f}% vs EFS {e['reuters_efs']:.2f}% "
                     f"(batch better by more than {POINTS:g} point at {sum(small)} of {len(small)} "
                     f"budgets); larger Reuters budgets where the batch is better by more than "
                     f"{POINTS:g} point: {reuters_large}; elsewhere: " + ", ".join(
                         f"{s} {v}" for s, v in wins_elsewhere.items()),
                     conditions(*cond), "conditions: the batch rankings beat EFS on Reuters at "
                     f"k <= 100 (mean error lower by more than {POINTS:g} point); they beat it "
                     f"(by more than {POINTS:g} point) at no larger Reuters budget and at no "
                     "budget of another set; a batch win within the tolerance is a tie, not a "
                     "win (the board's one 'beats' rule); one split per set", "single_pass/efs",
                     id="carvalho2006:5.3:reuters-only-batch-wins", rule="conditions"))
    rows += _carvalho_preliminary(key, results)
    if run_missing:
        words, share = efs_lowest_features()
        rows.append(_row(key, "Section 5.2", "prose", "The lowest-scoring features of "
                         "20newsgroup are stop words.", "as, you, what, they, are, do, was, be, "
                         "no, have, to, not", f"the {len(words)} lowest EFS scores of MBW on our "
                         f"20newsgroup stand-in: {', '.join(words)} ({share:.0%} in "
                         "scikit-learn's English stop-word list)",
                         _majority(int(round(share * len(words))), len(words), "words"),
                         "run on the book's page (efs_lowest_features): most of the lowest "
                         "features in the stop-word list", "single_pass/efs",
                         id="carvalho2006:5.2:lowest-features-stop-words", rule="most",
                         paper_key="12 of 12 words"))
    else:
        rows.append(_row(key, "Section 5.2", "prose", "The lowest-scoring features of "
                         "20newsgroup are stop words.", "as, you, what, they, ...", "—",
                         "cannot be tested here", "run on the scoreboard page (scoreboard(..., "
                         "run_missing=True)); the stored runs keep only the test errors",
                         "single_pass/efs", id="carvalho2006:5.2:lowest-features-stop-words",
                         rule="most"))
    return rows


#: the voted-Perceptron curve row reads the checkpoints from this many documents on
CURVE_START = 200


def vp_lowest(curves, start=None):
    """The board's reading of "the voted Perceptron typically has the lowest performance":
    per data set, the checkpoints from ``start`` (default :data:`CURVE_START`) documents on
    where v-P's test F1 is below every other learner's by more than :data:`POINTS` (``lowest``)
    and within it of the lowest other (``tied``), and the case of the set (more than half
    lowest holds; the ties could make it: a tie; else fails). Returns a DataFrame."""
    from .. import single_pass as sp

    start = CURVE_START if start is None else start
    late = curves[curves["examples"] >= start]
    rows = []
    for k in dict.fromkeys(late["dataset"]):
        f1 = late[late.dataset == k].pivot(index="examples", columns="learner", values="f1")
        others = f1[[x for x in sp.CURVE_LEARNERS if x != "v-Perceptron"]].min(axis=1)
        gap = f1["v-Perceptron"] - others                   # below zero: v-P lowest
        hold, tie = int((gap < -POINTS).sum()), int((gap.abs() <= POINTS).sum())
        case = HOLDS if 2 * hold > len(gap) else TIE if 2 * (hold + tie) > len(gap) else FAILS
        rows.append(dict(dataset=k, lowest=hold, tied=tie, checkpoints=len(gap), case=case))
    return pd.DataFrame(rows)


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
    verdict = _Verdict(all_cases([beats(m, half=h) for m, h in
                                  zip(changes["change"], changes["half"])], "pairs"),
                       _by_count(int((changes["change"] > 0).sum()), len(changes)),
                       "the mean F1 alone, without the fold noise")
    text = "; ".join(f"{kind}: " + _changes_text(changes[changes["pair"] == kind])
                     for kind in ("PW", "BW", "MBW"))
    rows = [_row(key, "Section 2.2", "prose", "In preliminary experiments the Winnows did "
                 "better with the augmentation and normalisation steps.",
                 "'the Winnow variants performed better if we applied an augmentation and a "
                 "normalization preprocessing step' (no numbers given)",
                 f"mean F1 with both steps minus without (corrected 95% interval over the 5 folds): "
                 f"{text}; better beyond the noise on {better} of {len(changes)} (set, "
                 f"Winnow) pairs ({', '.join(f'{r.pair} on {r.dataset}' for r in held.itertuples())}), "
                 f"worse beyond it on {worse}",
                 verdict, "per data set and Winnow (PW, BW: both steps against neither; MBW, "
                 "whose factors need normalised rows: both against normalisation alone), the "
                 "corrected 95% interval of the paired F1 change over the report's 5 folds above zero; "
                 "inside the noise a tie (no pair worse beyond it and some ties: "
                 "inconclusive); a reference Winnow equal to olearn's with both steps "
                 "(missing_claims.WinnowSteps)",
                 "scoreboard", id="carvalho2006:2.2:winnow-steps-help", rule="beats",
                 paper_key="no numbers",
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
                     f"Positive Winnow (corrected 95% interval over the 5 folds): {_changes_text(changes)}; "
                     f"better on {up}, worse on {down} of {total} sets",
                     verdict, "'no consistent' change: neither the sets where the corrected 95% interval "
                     "of the paired change lies above zero nor those where it lies below zero "
                     "are more than half of our sets; the scheme is our reading (the report "
                     "describes none): Blum and Mansour's polynomial weights over Positive "
                     f"Winnows with (alpha, beta) in {list(mc.REGRET_POOL)} "
                     "(missing_claims.RegretWinnow)", "scoreboard",
                     id="carvalho2006:7:external-regret-no-change", rule="most",
                     paper_key="no numbers", ours_key=f"better on {up}, worse on {down} of {total}",
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


#: the cause of each "does not" / "in part": row id -> cause (:data:`CAUSES`)
CAUSE_NOTES = {
    "carvalho2006:4.3.1:mbw-best-on-nlp": "stand-in data: the claim is over the paper's 8 "
        "NLP sets; on the 3 we have, the paper's own F1 fails the ranking too (v-MBW ranks "
        "first), so the subset of sets decides, not our runs",
    "carvalho2006:abstract:mbw-comparable-to-svm": _STAND_IN_CC,
    "carvalho2006:4.3.1:winnows-beat-pa-romma": _STAND_IN_CC,
    "carvalho2006:4.3.1:winnows-better-on-nlp": _STAND_IN_CC,
    "carvalho2006:4.3.1:pa-beats-romma": "real non-reproduction: on the same UCI sets PA's "
        "lead over ROMMA is inside the fold noise or reversed; " + _STAND_IN_CC,
    "carvalho2006:4.3.1:bw-beats-pw": _STAND_IN_CC,
    "carvalho2006:4.3.1:mbw-best-non-voted-non-nlp": "real non-reproduction: on the same UCI "
        "sets with Table 3's parameters MBW only ties BW",
    "carvalho2006:4.3.1:voted-perceptron-best-non-nlp": _STAND_IN_CC,
    "carvalho2006:4.3.2:voting-improves-non-nlp": "real non-reproduction: the same UCI sets "
        "with Table 3's parameters",
    "carvalho2006:4.3.2:voting-on-nlp": _STAND_IN_CC,
    "carvalho2006:7:voting-improves-winnows": "real non-reproduction: voting PA and ROMMA does "
        "not raise their mean F1 beyond the fold noise on the same non-NLP sets",
    "carvalho2006:4.3.2:voting-less-on-nlp": _STAND_IN_CC,
    "carvalho2006:4.3.3:voted-perceptron-lowest": _STAND_IN_CC,
    "carvalho2006:4.3.3:mbw-closer-to-svm": _STAND_IN_CC,
    "carvalho2006:4.3.3:mbw-more-peaks": _STAND_IN_CC,
    "carvalho2006:4.3.3:voted-perceptron-more-mistakes": "real non-reproduction: on our three "
        "sets v-P reaches most F1 levels no later than the other learners (on MovieReviews "
        "the online learners start at the all-positive F1, so most levels tie); our NLP sets are "
        "stand-ins, but nothing shown says the report's data would change this; a guess for "
        "Reuters alone: MBW's F1 stays 0 until its first positive predictions (137 documents), "
        "which delays it at the low levels",
    "carvalho2006:5.2:error-falls-with-p": _STAND_IN_CC + "; the steps are a few tenths of a "
        "point (a few documents) on one split, as in the paper",
    "carvalho2006:5.2:p09-beats-p1": _STAND_IN_CC,
    "carvalho2006:5.3:reuters-only-batch-wins": _STAND_IN_CC,
    "carvalho2006:abstract:efs-comparable-to-ig-chi": _STAND_IN_CC,
    "carvalho2006:5.3:efs-beats-batch-on-movie-reviews": _STAND_IN_CC,
    "carvalho2006:abstract:online-faster-than-batch": _TIMING,
}
