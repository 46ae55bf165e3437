"""The reproduction scoreboard: the claims of the five papers, each with its verdict.

Every row is computed from the stored full runs in ``book/results/`` (the same files the
reproduction pages read and re-check in quick mode) by one function per paper; the book's
page ``book/scoreboard.ipynb`` only calls :func:`scoreboard` and shows the table.

Columns: ``paper`` (BibTeX key: filters and links use it; the tables a reader sees name the
paper by :data:`PAPER_NAMES`, through :func:`for_reader`), ``where`` (table, figure, theorem or section of the paper),
``kind`` (table / figure / theorem / prose / definition: an algorithm stated as a table or
figure / setting: a table of parameters), ``claim``, ``paper_says`` (the paper's number or
words), ``ours``, ``verdict`` (one of :data:`VERDICTS`), ``why`` and ``page`` (the book page
that shows it, path without suffix).

Verdicts are decided by fixed rules written next to each claim: a claim made for several
data sets or noise levels "reproduces" when it holds on all of those available here, is
reproduced "in part" when it holds on some, and "does not" when it holds on none. The same
rule is applied to the paper's own numbers restricted to the data sets we have
(:func:`_judge`): when they fail it too, the claim is "not testable on this subset" (the rule
could not confirm the claim from the paper's own table either). A difference inside the
noise (an interval that contains zero, or times within :data:`TIME_TOLERANCE`) is
"inconclusive". Ties are explicit (:func:`_best`). "Comparable" means one thing everywhere:
within :data:`COMPARABLE_POINTS` percentage points of accuracy, error or F1 (and within a
factor :data:`COMPARABLE_TIME` of time). Every "does not" and "in part" carries a ``cause``
(:data:`CAUSES`), and ``alternative`` gives the verdict under another reading (the PA
variant, the update condition, the positive class, the tolerance) where it differs. A theorem
"reproduces" when its page asserts it on every checked run (a failing assertion stops the
build, so the verdict is only ever shown when the check passed). A claim about data that are
not available here "cannot be tested here", with the reason (no row is left "not run": the
claims no other experiment covers are run by :mod:`olearn.experiments.missing_claims`).
Claims worded "typically" or "in most cases" use :func:`_majority`, "almost all"
:func:`_almost_all`; every other threshold (what counts as "comparable", "much faster"...)
is stated in the row's ``why`` and coded next to the claim.

Every table and figure a paper has a caption for is named in some row's ``where``
(:func:`captions`, :func:`cited`; checked against the papers' text copies by the tests).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

VERDICTS = ("reproduces", "in part", "does not", "inconclusive", "not testable on this subset",
            "cannot be tested here")
COLUMNS = ("paper", "where", "kind", "claim", "paper_says", "ours", "verdict", "why", "page",
           "cause", "alternative")
#: the causes of a "does not" or "in part" (the ``cause`` column starts with one of them)
CAUSES = ("real non-reproduction", "stand-in data", "protocol difference",
          "implementation-dependent", "suspected defect", "the theorem is false")
#: the kinds of rows that are not experiments (counted apart by :func:`counts`)
NON_EXPERIMENTAL = ("definition", "theorem", "setting")
#: "comparable" accuracy, error or F1: within this many percentage points
COMPARABLE_POINTS = 1.0
#: "comparable" time: within this factor
COMPARABLE_TIME = 2.0
#: two mean times closer than this relative difference are a tie (timings of compiled code
#: on a shared machine vary by this much between repeated runs)
TIME_TOLERANCE = 0.25
PAPERS = ("carvalho2006single", "shen2009regularized", "crammer2009arow", "tan2016sparse",
          "zhao2009duol")
#: How the tables a reader sees name each paper: author-year, the authors as in the book's
#: ``references.bib`` (up to three named, "et al." from four; tests/test_scoreboard.py checks
#: the names against it). The board keeps the BibTeX keys for filters and links.
PAPER_NAMES = {"carvalho2006single": "Carvalho and Cohen (2006)",
               "shen2009regularized": "Shen and Dietterich (2009)",
               "crammer2009arow": "Crammer, Kulesza and Dredze (2009)",
               "tan2016sparse": "Tan et al. (2016)",
               "zhao2009duol": "Zhao, Hoi and Jin (2009)"}
_CLAIMS_WORDS = {"yes": "reproduces", "partly": "in part", "no": "does not"}


class _Verdict(str):
    """A verdict that remembers the one a stricter reading of the board's rule gives
    (``other``: e.g. our numbers alone, without the paper's own numbers or the noise rule);
    :func:`_row` shows it in the ``alternative`` column."""

    def __new__(cls, verdict, other, reading):
        out = super().__new__(cls, verdict)
        out.other, out.reading = other, reading
        return out


def _row(paper, where, kind, claim, paper_says, ours, verdict, why, page, cause="",
         alternative=""):
    other = getattr(verdict, "other", None)
    if other is not None and other != verdict and not alternative:
        alternative = f"{verdict.reading}: {other}"
    verdict = str(verdict)
    if verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}; use one of {VERDICTS}")
    if cause and not cause.startswith(CAUSES):
        raise ValueError(f"cause {cause!r} must start with one of {CAUSES}")
    return dict(zip(COLUMNS, (paper, where, kind, claim, paper_says, ours, verdict, why, page,
                              cause, alternative)))


def _judge(ours, paper):
    """The verdict of a claim given our verdict and the same rule's verdict on the paper's own
    numbers restricted to our data sets: a failure of ours counts only if the paper's pass."""
    if ours in ("does not", "in part") and paper != "reproduces":
        return _Verdict("not testable on this subset", ours,
                        f"on our numbers alone (the paper's own: {paper})")
    return ours


def _best(values, lower=True, tol=0.0):
    """The names tied for the best of ``values`` (a Series; lowest when ``lower``), within
    ``tol``: ties are explicit, not decided by the order of the columns."""
    best = values.min() if lower else values.max()
    close = (values - best).abs() <= tol + 1e-12
    return sorted(values.index[close])


def _best_verdict(values, name, lower=True, tol=0.0):
    """"reproduces" when ``name`` alone is best, "in part" when tied for best, else "does not"."""
    best = _best(values, lower, tol)
    return "reproduces" if best == [name] else ("in part" if name in best else "does not")


def _combined(*verdicts):
    """The verdict of a claim made of several conditions, each judged by its own rule:
    "reproduces" when every one does, "does not" when none holds even in part."""
    if all(v == "reproduces" for v in verdicts):
        return "reproduces"
    return "does not" if all(v == "does not" for v in verdicts) else "in part"


def _time_order(a, b):
    """-1 when time ``a`` is below ``b`` by more than :data:`TIME_TOLERANCE` (relative),
    1 when above, 0 (a tie) otherwise."""
    if a < b * (1 - TIME_TOLERANCE):
        return -1
    if b < a * (1 - TIME_TOLERANCE):
        return 1
    return 0


def _by_count(held, total):
    """The verdict of a claim made for ``total`` cases that holds on ``held`` of them."""
    if total == 0:
        raise ValueError("a claim needs at least one case to be tested")
    return "reproduces" if held == total else ("in part" if held else "does not")


def _either_reading(held_a, held_b, total):
    """The verdict of a claim run under two readings of an unstated setting."""
    a, b = _by_count(held_a, total), _by_count(held_b, total)
    if a == b:
        return a
    return "in part" if "reproduces" in (a, b) or "in part" in (a, b) else "does not"


def _majority(held, total):
    """The verdict of a claim that something holds "typically" or "in most cases": it
    reproduces when it holds on more than half of the ``total`` cases, in part at exactly half."""
    if total == 0:
        raise ValueError("a claim needs at least one case to be tested")
    return "reproduces" if 2 * held > total else ("in part" if 2 * held == total else "does not")


def _almost_all(held, total):
    """The verdict of a claim that holds "in almost all" cases: all but at most one case."""
    if total == 0:
        raise ValueError("a claim needs at least one case to be tested")
    return "reproduces" if held >= total - 1 else ("in part" if 2 * held > total else "does not")


def _untestable(paper, where, kind, claim, paper_says, why, page):
    return _row(paper, where, kind, claim, paper_says, "—", "cannot be tested here", why, page)


def _definition(paper, where, claim, page, how):
    """An algorithm (or selection rule) the paper states as a table or figure: it reproduces
    when its page checks olearn against the definition by hand (:data:`THEOREM_CHECKS`)."""
    return _row(paper, where, "definition", claim, "stated in the paper", how, "reproduces",
                "asserted on the page; a failing check stops the build", page)


def _tested_definition(paper, where, claim, page, how, tests):
    """An algorithm the paper states, checked against olearn by the named tests (``file::
    function`` under ``tests/``): it reproduces because a failing test fails the suite;
    :func:`theorem_pages_assert` checks that every named test exists."""
    return _row(paper, where, "definition", claim, "stated in the paper", how, "reproduces",
                "asserted by " + ", ".join(tests) + " (a failing test fails the suite)", page)


def _theorem(paper, where, claim, page, how):
    return _row(paper, where, "theorem", claim, "proved in the paper", how, "reproduces",
                "asserted on every checked run; a failing check stops the build", page)


# -- Carvalho and Cohen (2006) ----------------------------------------------------------------
def carvalho_claims(results, folds=None, run_missing=False):
    """``folds`` (default: the stored ``cv_folds.csv``) the per-fold F1 the rows read;
    ``run_missing`` runs the claims no stored run covers (:func:`efs_lowest_features`)."""
    from . import single_pass as sp

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
    from . import missing_claims as mc

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


# -- Shen and Dietterich (2009) ---------------------------------------------------------------
def stored_l1_seconds(results):
    """The stored per-run seconds of the L1-constrained learner (the paper's update) on the
    20 Newsgroups stream, 40 trials of the full run (compilation of the first run included):
    the page passes these instead of timing the learner again (about 40 s)."""
    from . import regularized as er

    runs = pd.read_csv(Path(results) / "regularized" / "runs.csv")
    part = runs[(runs["stream"] == er.FILE_KEYS[er.NEWSGROUPS]) & (runs["learner"] == "L1-constrained")]
    if part.empty:
        raise ValueError("no stored L1-constrained runs on the 20 Newsgroups stream in "
                         f"{results}/regularized/runs.csv; pass l1_seconds=None to time them")
    return part["seconds"].tolist()


def shen_claims(results, l1_seconds=None):
    """The paper's prose claims, as judged on ``regularized/claims`` (``olearn.experiments.
    claims.regularized_claims``); ``l1_seconds`` the measured L1 times (timed if None;
    ``"stored"``: :func:`stored_l1_seconds`)."""
    from . import claims
    from . import regularized as er

    key = "shen2009regularized"
    stored = er.load(Path(results) / "regularized")
    X, _, _, digit = er.four_phase(er.USPS, 0)
    figure3 = claims.figure3_table(stored, X, digit)
    timing_note = None
    if isinstance(l1_seconds, str) and l1_seconds == "stored":
        l1_seconds = stored_l1_seconds(results)
        timing_note = f"(the {len(l1_seconds)} stored runs of the full experiment, compilation included)"
    elif l1_seconds is None:
        l1_seconds = [seconds for seconds, _ in claims.time_l1(stored).values()]
    table = claims.regularized_claims(stored, figure3, l1_seconds)
    every_round = _shen_every_round(stored)
    rows = []
    for number, row in table.iterrows():
        if "[ablation, ours" in row["claim"]:
            # our variant, not a claim of the paper: its verdict is the other reading of the
            # update condition, shown beside the paper's claim it varies
            if rows:
                rows[-1]["alternative"] = ("every-round update (ours): "
                                           f"{_CLAIMS_WORDS[row['agree']]} ({row['ours']})")
            continue
        where = f"{SHEN_FIGURE[number]}, section 4, claim {number}" if number in SHEN_FIGURE \
            else f"section 4, claim {number}"
        ours = row["ours"]
        if timing_note and number not in SHEN_FIGURE:
            ours = ours.replace("(timing on the feature selection page)", timing_note)
        verdict = _CLAIMS_WORDS[row["agree"]]
        intervals = [(float(m), float(h)) for m, h in
                     __import__("re").findall(r"([+-]\d+\.\d+)±(\d+\.\d+)", ours)]
        if verdict == "does not" and intervals and all(abs(m) <= h for m, h in intervals):
            # every interval contains zero: inside the noise
            verdict = _Verdict("inconclusive", "does not", "by the audit's rule alone")
        rows.append(_row(key, where, "figure" if number in SHEN_FIGURE else "prose", row["claim"],
                         SHEN_APART.get(number, "as quoted"), ours, verdict, SHEN_RULES.get(number, "criteria of the claims audit"),
                         "regularized/claims"))
        if number in every_round and not rows[-1]["alternative"] \
                and not every_round[number].startswith(verdict):
            rows[-1]["alternative"] = "every-round update (ours): " + every_round[number]
        if number == 8 and verdict != "reproduces":
            gaps = [float(g) for g in __import__("re").findall(r"(?<![\w.])(\d+\.\d+)",
                                                               ours.split("):", 1)[-1])]
            # the board's one tolerance for "similar" / "comparable" decides; the audit's
            # 0.5 point is the other reading
            within = sum(g <= COMPARABLE_POINTS for g in gaps)
            rows[-1]["verdict"] = _by_count(within, len(gaps))
            rows[-1]["why"] = (f"'similar': the first-half tuned error within "
                               f"{COMPARABLE_POINTS:g} point of the oracle tuned on the second "
                               "half (means over the 40 trials)")
            if rows[-1]["verdict"] != verdict:
                rows[-1]["alternative"] = f"the audit's 0.5-point tolerance: {verdict}"
    rows += _shen_more(key, stored)
    rows.append(_shen_influence(key, results))
    rows.append(_definition(key, "Lemmas 3.1-3.2, problem 3.10", "The updates of the "
                            "objective-regularized, L2-constrained and L1-constrained PA.",
                            "regularized/derivation", "olearn's updates equal the closed forms "
                            "and cvxpy's solutions"))
    rows.append(_theorem(key, "Lemma 3.3", "The L2 learners are rotationally invariant (the L1 "
                         "learner is not).", "regularized/theory", "asserted on the rotated USPS "
                         "four-phase stream"))
    rows.append(_theorem(key, "Theorems 3.1-3.4", "The mistake bounds of the regularized PA "
                         "learners (with the hypothesis stated before Theorem 3.1).",
                         "regularized/theory", "asserted on USPS, 20 Newsgroups and synthetic streams"))
    return rows


def _shen_influence(key, results):
    """The abstract's "the regularized learners decrease the influence of old instances and
    focus on recent ones", measured by :func:`missing_claims.old_influence` (stored run)."""
    from . import missing_claims as mc
    from . import regularized as er
    from .runner import t_interval

    runs = pd.read_csv(Path(results) / mc.FOLDER / "influence.csv")
    wide = runs.pivot_table(index=["stream", "trial"], columns="learner",
                            values="relative_distance")
    mean = runs.groupby(["stream", "learner"])[["relative_distance", "changed"]].mean()
    streams = list(dict.fromkeys(runs["stream"]))
    short = {er.FILE_KEYS[n]: er.SHORT_NAMES[n] for n in er.STREAMS}
    pairs = [(s, name) for s in streams for name in er.REGULARIZED]

    def judged(reference, suffix=""):
        """The verdict against ``reference`` (the paired difference over the trials below
        zero; every interval containing zero: inconclusive) and the pairs that hold."""
        held, inside = [], 0
        for s, name in pairs:
            m, h = t_interval((wide.loc[s, name + suffix] - wide.loc[s, reference]).to_numpy())
            held += [(s, name)] if m + h < 0 else []
            inside += abs(m) <= h
        if inside == len(pairs):
            return "inconclusive", held
        return _by_count(len(held), len(pairs)), held

    verdict, held = judged("PA")
    other, held_mistake = judged("PA (mistake)")
    every, held_every = judged("PA", er.EVERY_ROUND)
    names = {n: n.replace("objective-regularized", "obj").replace("-constrained", "")
             .replace(er.EVERY_ROUND, " every round") for n in mc.INFLUENCE_LEARNERS}
    text = "; ".join(f"{short[s]}: " + ", ".join(
        f"{names[n]} {mean.loc[(s, n), 'relative_distance']:.2f}" for n in mc.INFLUENCE_LEARNERS)
        for s in streams)
    changed = "; ".join(f"{short[s]}: PA {100 * mean.loc[(s, 'PA'), 'changed']:.1f}%, "
                        "regularized " + "/".join(f"{100 * mean.loc[(s, n), 'changed']:.1f}"
                                                  for n in er.REGULARIZED) + "%"
                        for s in streams)
    return _row(key, "Abstract, sections 1 and 4", "prose", "The regularized learners "
                "decrease the influence of old instances and focus on recent ones.",
                "'such regularized learning algorithms automatically decrease the influence of "
                "the old training instances and focus on the more recent ones' (abstract); "
                "shown through Figure 3's weights, not measured",
                "the first phase's influence on the final model, ||w - w'|| / ||w|| with w' "
                f"trained without it (mean over {runs['trial'].nunique()} trials): {text}; "
                f"second-half predictions it changes: {changed}; below PA's for {len(held)} of "
                f"{len(pairs)} (stream, learner) pairs, below mistake-driven PA's for "
                f"{len(held_mistake)}; the every-round variants below PA's for "
                f"{len(held_every)}",
                verdict, "per stream and regularized learner (the parameters tuned in each "
                f"trial of the stored run), {_PAIRED} of the first phase's influence, "
                "regularized minus PA (the paper's baseline), below zero; every interval "
                "containing zero: inconclusive; the model without the first phase is trained "
                "on the other three phases (missing_claims.old_influence)",
                "scoreboard",
                cause=(_UPDATE_READING if every != verdict else "real non-reproduction: "
                       "neither the paper's updates nor the every-round variants lower the "
                       "first phase's influence below PA's; with the same update condition "
                       f"({other} against PA on mistakes only) the regularization changes "
                       "little, being often inactive (issue 28 item 8)")
                if verdict in ("in part", "does not") else "",
                alternative="; ".join(
                    f"{label}: {v} ({len(h)} of {len(pairs)})" for label, v, h in
                    (("against PA on mistakes only", other, held_mistake),
                     ("every-round update (ours) against PA", every, held_every))
                    if v != verdict))

# -- Crammer, Kulesza and Dredze (2009) -------------------------------------------------------
def crammer_claims(results):
    from . import arow

    key = "crammer2009arow"
    table = pd.read_csv(Path(results) / "arow" / "table1.csv")
    ranks = arow.mean_ranks(table)
    paper = arow.PAPER_TABLE1
    levels = [n for n in paper.index if n in ranks.index]
    best = [n for n in levels if ranks.loc[n].idxmin() == "AROW"]
    plain_pa = pd.read_csv(Path(results) / "arow" / "table1_pa_plain.csv")
    plain = arow.mean_ranks(pd.concat([table[table["learner"] != "PA"],
                                       plain_pa.assign(learner="PA")]))
    best_plain = [n for n in levels if plain.loc[n].idxmin() == "AROW"]
    over_cw = [n for n in levels if ranks.loc[n, "AROW"] < ranks.loc[n, "CW"]]
    fmt = lambda s: ", ".join(f"{v:.2f}" for v in s)       # noqa: E731
    return [
        _row(key, "Table 1", "table", "AROW has the best mean rank at every noise level.",
             f"AROW's mean rank by noise: {fmt(paper.loc[levels, 'AROW'])}",
             f"AROW's mean rank by noise: {fmt(ranks.loc[levels, 'AROW'])}; best at "
             f"{len(best)} of {len(levels)} levels with PA-I (C tuned) as PA, at "
             f"{len(best_plain)} of {len(levels)} with plain PA",
             _either_reading(len(best), len(best_plain), len(levels)),
             "mean rank over the tasks available here (OCR, 20 Newsgroups, Reuters); the paper "
             "does not say which PA it ran, so both readings are run: 'in part' when the claim "
             "holds with one only", "arow/reproduction",
             alternative=f"PA-I (C tuned): {_by_count(len(best), len(levels))}; plain PA: "
                         f"{_by_count(len(best_plain), len(levels))}"),
        _row(key, "Table 1, section 6", "prose", "AROW ranks above CW at every noise level, "
             "and its lead grows with the noise.",
             f"CW's mean rank by noise: {fmt(paper.loc[levels, 'CW'])}",
             f"CW's mean rank by noise: {fmt(ranks.loc[levels, 'CW'])}; AROW ahead at "
             f"{len(over_cw)} of {len(levels)}",
             _by_count(len(over_cw), len(levels)), "as above", "arow/reproduction"),
        _row(key, "Table 1, Figure 3", "table", "The results on the Amazon, Sentiment and "
             "ECML spam tasks.", "part of the mean ranks", "—", "cannot be tested here",
             "those data sets are not available here", "arow/reproduction"),
        _row(key, "Table 1, section 5.1", "prose", "With little label noise CW easily "
             "outperforms the other baselines (PA, SOP).",
             f"CW's mean rank at 0%: {paper.loc[0.0, 'CW']:.2f} (PA {paper.loc[0.0, 'PA']:.2f}, "
             f"SOP {paper.loc[0.0, 'SOP']:.2f})",
             f"CW's mean rank at 0%: {ranks.loc[0.0, 'CW']:.2f} (PA-I, C tuned, "
             f"{ranks.loc[0.0, 'PA']:.2f}; SOP {ranks.loc[0.0, 'SOP']:.2f}); with plain PA: CW "
             f"{plain.loc[0.0, 'CW']:.2f}, PA {plain.loc[0.0, 'PA']:.2f}",
             _either_reading(int(ranks.loc[0.0, "CW"] < ranks.loc[0.0, ["PA", "SOP"]].min()),
                             int(plain.loc[0.0, "CW"] < plain.loc[0.0, ["PA", "SOP"]].min()), 1),
             "mean ranks at 0% noise; both readings of PA, as for the mean-rank row: 'in part' "
             "when the claim holds with one only", "arow/reproduction",
             alternative=f"PA-I (C tuned): {'reproduces' if ranks.loc[0.0, 'CW'] < ranks.loc[0.0, ['PA', 'SOP']].min() else 'does not'}; "
                         f"plain PA: {'reproduces' if plain.loc[0.0, 'CW'] < plain.loc[0.0, ['PA', 'SOP']].min() else 'does not'}"),
        _row(key, "Table 1, section 5.1", "prose", "As label noise grows CW's performance is "
             "reduced considerably (its mean rank falls behind).",
             f"CW's mean rank by noise: {fmt(paper.loc[levels, 'CW'])}",
             f"CW's mean rank by noise: {fmt(ranks.loc[levels, 'CW'])}",
             "reproduces" if ranks.loc[levels[-1], "CW"] - ranks.loc[levels[0], "CW"] >= 0.5
             else "does not", "CW's mean rank at the highest noise at least half a rank worse "
             "than without noise", "arow/reproduction"),
        _untestable(key, "Table 2, section 5.1", "definition", "The four properties of PA, SOP, "
                    "CW and AROW (large margin, confidence, non-separable, adaptive margin).",
                    "a yes/no table", "a classification of the algorithms' design, not a "
                    "measurement; the book discusses it on arow/family", "arow/family"),
        _definition(key, "Figure 1, section 3", "The AROW algorithm (eqs. 1-9).",
                    "arow/derivation", "olearn's mean and covariance equal the update sketched "
                    "on the page"),
        *_arow_figures(key, arow, Path(results) / "arow", table),
        _theorem(key, "Theorem 2", "AROW's mistake bound (the form the proof gives; the printed "
                 "eq. 10 lost a bracket).", "arow/bound", "asserted, with Lemmas 3 and 4, on "
                 "every update of the page's runs"),
        arow_lemma1_row(key),
    ]


#: the stream of the Lemma 1 row: the first rows of trial 0 of Shen's USPS stream (a real
#: stream that the board loads anyway), and AROW's r
LEMMA1_ROWS, LEMMA1_R = 300, 1.0
#: the largest difference that still counts as equal (rounding of a few hundred updates)
LEMMA1_TOL = 1e-8


def arow_lemma1_row(key):
    """Lemma 1 of the AROW paper (representer theorem) asserted on a run:
    :func:`missing_claims.arow_representer` against olearn's AROW."""
    from . import missing_claims as mc
    from . import regularized as er

    X, y, _, _ = er.four_phase(er.USPS, 0)
    X = X[:LEMMA1_ROWS].toarray() if hasattr(X, "toarray") else np.asarray(X[:LEMMA1_ROWS])
    check = mc.arow_representer(X, y[:LEMMA1_ROWS], r=LEMMA1_R)
    worst = max(check["mean_diff"], check["covariance_diff"])
    ok = worst <= LEMMA1_TOL
    return _row(key, "Lemma 1, section 3", "theorem", "AROW's mean and covariance are linear "
                "combinations of the inputs (resp. their outer products) with coefficients "
                "that depend only on inner products of the inputs (representer theorem).",
                "proved in the paper (a proof sketch by induction)",
                f"AROW run on the lemma's coefficients, computed from inner products only, "
                f"on the first {LEMMA1_ROWS} rows of the USPS stream ({check['updates']} "
                f"updates, r = {LEMMA1_R:g}): largest difference from olearn's AROW "
                f"{check['mean_diff']:.1e} (mean), {check['covariance_diff']:.1e} (covariance)",
                "reproduces" if ok else "does not",
                f"both differences at most {LEMMA1_TOL:g} (missing_claims.arow_representer); "
                "asserted on the scoreboard page", "scoreboard",
                cause="" if ok else "suspected defect: the dual run departs from olearn's AROW")


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


# -- Zhao, Hoi and Jin (2009) -----------------------------------------------------------------
SINGLE_UPDATE = ("Perceptron", "ROMMA", "agg-ROMMA", "ALMA2(0.9)", "PA-I", "PA-II")


def zhao_claims(results):
    from . import duol

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


def _shen_more(key, stored):
    """Three claims of Shen's section 4 read from the stored curves: the gap to NORMA grows,
    L1 slightly better than L2 with many features, smoother feature-selection curves."""
    from . import claims
    from . import regularized as er

    rows = []
    reg = [f"{name}:mean" for name in er.REGULARIZED]
    grows = {}
    for n in er.STREAMS:
        c = stored.curves[n].set_index("round")
        gap = c["NORMA:mean"] - c[reg].min(axis=1)
        grows[n] = (float(gap.loc[100]), float(gap.iloc[-1]))
    held = [n for n, (g0, g1) in grows.items() if g1 > max(g0, 0.0)]
    rows.append(_row(key, "Figure 1, section 4", "figure", "The accuracy difference between "
                     "NORMA and the regularized learners is small at the beginning and then "
                     "increases (especially on SRAA).", "as quoted",
                     "NORMA minus best regularized, cumulative error at test round 100 / at the "
                     "end: " + "; ".join(f"{er.SHORT_NAMES[n]}: {100 * a:+.2f} / {100 * b:+.2f}"
                                         for n, (a, b) in grows.items()),
                     _by_count(len(held), len(grows)), "per stream, the regularized learners "
                     "ahead of NORMA at the end of the test half, by more than after 100 test "
                     "rounds (mean curves of the 40 trials)",
                     "regularized/claims",
                     cause="real non-reproduction: NORMA is more accurate than the regularized "
                           "learners on the stored run, so the gap has the other sign"
                     if len(held) < len(grows) else ""))
    fig2s = stored.figure2_summary
    many, ties, text = [], [], []
    for n in er.STREAMS:
        part = fig2s[fig2s["stream"] == n]
        at = {m: part[part["method"] == m].sort_values("n_features_mean").iloc[-1]
              for m in ("L1-constrained", "L2-constrained")}
        diff = at["L1-constrained"]["test_error_mean"] - at["L2-constrained"]["test_error_mean"]
        noise = max(at["L1-constrained"]["test_error_ci95"], at["L2-constrained"]["test_error_ci95"])
        (many if diff < -noise else ties if abs(diff) <= noise else []).append(n)
        text.append(f"{er.SHORT_NAMES[n]}: {100 * diff:+.2f} (95% half-width {100 * noise:.2f})")
    verdict = _by_count(len(many), len(er.STREAMS))
    if not many and len(ties) == len(er.STREAMS):
        verdict = "inconclusive"
    rows.append(_row(key, "Figure 2, section 4", "figure", "The L1-constrained learner shows "
                     "slightly better performance than L2 when many features are allowed.",
                     "as quoted", "L1 minus L2 test error at the largest number of features: "
                     + "; ".join(text), verdict, "per stream, L1's mean error below L2's by more "
                     "than the larger 95% half-width; all inside it: inconclusive",
                     "regularized/claims"))

    def roughness(n, method):
        x, e = claims.curve_of(fig2s, n, method)
        return float(np.abs(np.diff(e, 2)).mean()) if len(e) > 2 else np.nan

    smooth, text = [], []
    for n in er.STREAMS:
        r = {m: roughness(n, m) for m in ("L2-constrained", "information gain", "game-theoretic")}
        if r["L2-constrained"] < min(r["information gain"], r["game-theoretic"]):
            smooth.append(n)
        text.append(f"{er.SHORT_NAMES[n]}: " + ", ".join(f"{100 * v:.2f}" for v in r.values()))
    rows.append(_row(key, "Figure 2, section 4", "figure", "The weight shrinking of the "
                     "regularized methods is continuous and produces smoother results.",
                     "as quoted", "mean |second difference| of the error curve (points), L2 / IG "
                     "/ game: " + "; ".join(text), _by_count(len(smooth), len(er.STREAMS)),
                     "per stream, the L2 truncation curve less rough than both IG's and the "
                     "game-theoretic method's", "regularized/claims"))
    return rows


def _shen_every_round(stored):
    """The verdicts of Shen's claims 4, 5 and 9 with the every-round variant (ours) in place of
    the paper's update, by the same rules (the other reading of the update condition)."""
    from . import claims
    from . import regularized as er

    ev = er.EVERY_ROUND
    words = {"yes": "reproduces", "partly": "in part", "no": "does not"}

    def d(n, a, b):
        return er.paired_difference(stored.runs, n, a, b)

    four = [d(n, "L2-constrained" + ev, "objective-regularized" + ev) for n in er.STREAMS]
    five = [d(n, name + ev, "NORMA") for n in er.STREAMS for name in er.REGULARIZED]
    fig2s = stored.figure2_summary
    wins = []
    for n in er.STREAMS:
        pairs = []
        for method in ("information gain", "game-theoretic"):
            for x in np.r_[claims.curve_of(fig2s, n, method)[0],
                           claims.curve_of(fig2s, n, "L2-constrained" + ev)[0]]:
                a = claims.error_at(fig2s, n, "L2-constrained" + ev, x)
                b = claims.error_at(fig2s, n, method, x)
                if np.isfinite(a) and np.isfinite(b):
                    pairs.append(a < b)
        wins.append((sum(pairs), len(pairs)))
    return {
        4: words[claims._verdict(m + h < 0 for m, h in four)] + " (L2 minus obj: " + ", ".join(
            f"{100 * m:+.2f}±{100 * h:.2f}" for m, h in four) + ")",
        5: words[claims._verdict(m + h < 0 for m, h in five)] + " (regularized minus NORMA: "
           + ", ".join(f"{100 * m:+.2f}" for m, _ in five) + ")",
        9: words[claims._verdict(w > t / 2 for w, t in wins)] + " (comparisons won: " + ", ".join(
            f"{w}/{t}" for w, t in wins) + ")",
    }


#: the two neighbouring sentences of section 4 that the issue read as one claim (issue 28
#: item 4, rows 32/33): two claims, each row quotes both so that the reader sees why
_SHEN_PAIR = ("'The regularized online algorithms outperform PA in all three problems. The "
              "difference in accuracy is particularly large at the beginning of the online "
              "testing. The difference then decreases as more instances come in.' ")
SHEN_APART = {1: _SHEN_PAIR + "This row: the first sentence, the sign of the difference over "
                 "the whole test half (the next row judges its course over time).",
              3: _SHEN_PAIR + "This row: the second and third sentences, how the difference "
                 "evolves (the previous row judges its sign)."}
_PAIRED = "the 95% interval of the paired difference over the 40 trials"
#: the rule of each numbered claim of ``regularized/claims`` (olearn.experiments.claims.CRITERIA)
SHEN_RULES = {
    1: f"'outperform': {_PAIRED} below zero, for every stream and learner",
    3: "'particularly large at the beginning': a gap above 1 point after 100 test rounds, which "
       "then shrinks (means over the 40 trials)",
    4: f"'slightly outperforms': {_PAIRED} below zero, per stream",
    5: f"'much higher accuracy': {_PAIRED} below zero, per stream and learner",
    6: f"'competitive': {_PAIRED} within 0.5 points, per stream",
    7: f"'slightly outperforms' on 20NG: {_PAIRED} below zero",
    9: "'significantly outperform': L2 truncation below both IG and the game-theoretic method "
       "at the same number of features (mean curves, log-interpolated), in most comparisons",
    10: "'extremely bad': more than twice PA's error with all features (mean curves)",
    11: "IG's best error below PA's with all features only on 20NG (mean curves)",
    12: f"'better': {_PAIRED} and common budgets below zero",
    13: f"'much worse': the lower end of {_PAIRED} above 1 point",
    14: "'not hurt': the error within the untruncated learner's 95% interval (mean curves)",
    15: "'more aggressively ... fewer features': fewer than 90% of the pixels carrying half of "
        "sum |w| (the weights of trial 0)",
    16: "'make more sense': a correlation shift towards '7 vs 9' at least 0.05 larger than PA's "
        "(the weights of trial 0)",
    17: "'less than 10 minutes': the largest of the measured times",
}

#: which figure of Shen and Dietterich each numbered claim of ``regularized/claims`` reads
#: (claims 1-8 the cumulative error curves, 9-14 the feature selection curves, 15-16 the
#: learned weights, 17 the running time stated in the text)
SHEN_FIGURE = {**{n: "Figure 1" for n in range(1, 9)}, **{n: "Figure 2" for n in range(9, 15)},
               15: "Figure 3", 16: "Figure 3"}


def _arow_figures(key, arow, folder, table):
    rows = []
    final = arow.figure2a_final(pd.read_csv(folder / "figure2a.csv"))
    conditions = {"AROW full best": final.idxmax() == "AROW full",
                  "AROW full > diag": final["AROW full"] > final["AROW diag"],
                  "CW full < CW diag": final["CW full"] < final["CW diag"]}
    rows.append(_row(key, "Figure 2(a), section 5", "figure", "On noisy synthetic data AROW "
                     "improves over all competitors, the full version over the diagonal one, "
                     "and CW-full is worse than CW-diagonal.", "as stated, from the curves",
                     "final accuracy: " + ", ".join(f"{k} {v:.3f}" for k, v in final.items()),
                     _by_count(sum(conditions.values()), len(conditions)),
                     "three conditions on the mean final accuracy over 100 runs; the generator "
                     "is our reading of 'as in [5]'", "arow/reproduction"))
    t2b = arow.figure2b_table(pd.read_csv(folder / "figure2b.csv"))
    arow_rows = [r for r in t2b.index if r.startswith("AROW")]
    base = [r for r in t2b.index if not r.startswith("AROW")]
    gap = {n: t2b.loc[base, n].min() - t2b.loc[arow_rows, n].min() for n in t2b.columns}
    lo, hi = min(t2b.columns), max(t2b.columns)
    conditions = [(t2b[hi] > t2b[lo]).all(), gap[hi] > gap[lo]]
    rows.append(_row(key, "Figure 2(b), section 5.1", "figure", "On MNIST 3 vs 5 noise hurts "
                     "every learner and the gap between AROW and the baselines grows.",
                     "as stated, from the bars",
                     f"best baseline minus best AROW, clean mistakes: {gap[lo]:.1f} at {lo:.0%}, "
                     f"{gap[hi]:.1f} at {hi:.0%}", _by_count(sum(conditions), 2),
                     "two conditions: more mistakes with noise for every learner; a larger gap",
                     "arow/reproduction"))
    wins = arow.figure3_wins(table)

    def grows(share, part):
        # above the noiseless share at 10% and 30%; 30% not below 10% by more than one task
        one = 1.0 / part[part["noise"] == 0.3][["task", "kind"]].drop_duplicates().shape[0]
        return share[0.0] < share[0.1] and share[0.0] < share[0.3] and share[0.3] >= share[0.1] - one - 1e-12

    for panel, kinds in (("text (top)", ("text",)), ("OCR (bottom)", ("ocr-split", "ocr-cv"))):
        part = arow.figure3_wins(table[table["kind"].isin(kinds)])
        rows.append(_row(key, "Figure 3, section 5.1", "figure", f"On the {panel.split()[0]} "
                         "tasks AROW improves relative to CW as noise increases (the "
                         f"{panel} panels).", "more points above the diagonal with more noise",
                         "AROW ahead of CW on " + ", ".join(f"{100 * w:.0f}% at {n:.0%}"
                                                             for n, w in part.items()),
                         "reproduces" if grows(part, table[table["kind"].isin(kinds)]) else "does not",
                         "the share of the panel's tasks won by AROW above the noiseless share at "
                         "10% and 30%, and at 30% not below 10% by more than one task (a tie)",
                         "arow/reproduction",
                         cause="stand-in data: our text tasks are 20 Newsgroups and Reuters "
                               "only (Amazon, Sentiment and ECML spam are not available)"
                         if not grows(part, table[table["kind"].isin(kinds)]) else ""))
    conditions = [grows(wins, table)]
    rows.append(_row(key, "Figure 3, section 5.1", "figure", "AROW improves relative to CW as "
                     "noise increases.", "more points above the diagonal with more noise",
                     "AROW ahead of CW on " + ", ".join(f"{100 * w:.0f}% of tasks at {n:.0%}"
                                                         for n, w in wins.items()),
                     _by_count(sum(conditions), 1), "the share of tasks won by AROW above the "
                     "noiseless share at 10% and 30%, and at 30% not below 10% by more than one "
                     "task (a tie)", "arow/reproduction"))
    rows.append(_row(key, "Figure 3, section 5.1", "figure", "Without noise AROW and CW are "
                     "comparable, AROW winning the majority of the time.", "majority",
                     f"AROW ahead on {100 * wins[0.0]:.0f}% of our tasks",
                     "reproduces" if wins[0.0] > 0.5 else "does not",
                     "'majority': more than half of the tasks at 0% noise", "arow/reproduction"))
    rows.append(_row(key, "Figure 3, section 5.1", "figure", "In almost every high-noise "
                     "evaluation AROW improves over CW.", "almost every task at 30%",
                     f"AROW ahead on {100 * wins[0.3]:.0f}% of our tasks at 30%",
                     "reproduces" if wins[0.3] >= 0.9 else ("in part" if wins[0.3] > 0.5 else "does not"),
                     "'almost every': at least 90% of the tasks (in part above half)",
                     "arow/reproduction"))
    return rows


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


def _tan_more(key, folder, mean, sets, fig1):
    rows = []
    from .sparse_cw import PAPER_TABLE2

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
    faster = [n for n in datasets1 if _sbcw_ahead(fig1[fig1["dataset"] == n],
                                                  ("FGM", "L1-SVM", "sparDCA", "SOFS"), "time")]
    rows.append(_row(key, "Figure 1(d-f)", "figure", "SBCW trains as fast as or faster than the "
                     "competing feature selection methods.", "comparable or better training time",
                     f"SBCW at least as fast as the rivals in most comparisons on {len(faster)} of "
                     f"{len(datasets1)} sets ({', '.join(faster) or 'none'})",
                     _by_count(len(faster), len(datasets1)), "at each SBCW budget, its time against "
                     "each rival's interpolated in log(features); tf-idf stand-ins",
                     "sparse_cw/figure1"))
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


_STAND_IN_CC = ("stand-in data: our 3 NLP tasks differ from the report's (20newsgroup's topic "
                "is our choice, MovieReviews is v2.0, Reuters' 'money' is read as money-fx) and "
                "the positive classes are our reading (issue 28 item 9)")
_UPDATE_READING = ("protocol difference: our reading of the paper updates the regularized "
                   "learners on mistakes only, PA on every margin error; 'other readings' gives "
                   "the every-round variant (ours) where it was run")
_TAN_STAND_IN = ("stand-in data: the paper's six data sets are not available; stand-ins of "
                 "similar shape")
_SBCW = ("real non-reproduction with the paper's algorithm as written: its one C for the loss "
         "and the covariance keeps most margins below 1, so their dual variables sit at the "
         "bound, eq. (14) ranks the words once and the model is a ridge fit of the labels on "
         "the first group, frequent words carrying the class prior (the majority rate on the "
         "imbalanced 20 Newsgroups and Reuters stand-ins; a converged solver, an intercept or "
         "another C does not change it, a covariance constant 100 times smaller does: "
         "sparse_cw/figure1, issue 28 item 7); and stand-in data (tf-idf text)")
_FGM = (_SBCW + "; our FGM stand-in understates FGM: its subproblem solver (Algorithm 3, 3 "
        "passes) stalls far from the optimum (relative duality gap above 0.3 on every set), "
        "and FGM with converged subproblems is more accurate than SBCW on movie reviews too "
        "(sparse_cw/figure1, issue 28 item 7)")
_TIMING = ("implementation-dependent: olearn's compiled learners against the paper's Matlab; "
           "the order of millisecond timings is not the paper's claim about its algorithms")
#: the cause of each "does not" / "in part": (paper, start of the claim) -> cause (:data:`CAUSES`)
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
    ("shen2009regularized", "The regularized online algorithms outperform"): _UPDATE_READING,
    ("shen2009regularized", "The difference in accuracy"): _UPDATE_READING,
    ("shen2009regularized", "The method with L2 norm constraint slightly"): _UPDATE_READING,
    ("shen2009regularized", "By ensuring a large margin"): _UPDATE_READING,
    ("shen2009regularized", "The results are similar"): "protocol difference: the audit's "
        "0.5-point tolerance for 'similar' (within the board's 1 point it reproduces)",
    ("shen2009regularized", "In most cases, the regularized"): _UPDATE_READING,
    ("shen2009regularized", "[Information gain's]"): "real non-reproduction on 20NG (the same "
        "data); SRAA is replaced by a 20NG stand-in",
    ("shen2009regularized", "The game-theoretic"): "real non-reproduction: inside the noise "
        "on USPS and 20NG; SRAA replaced by a 20NG stand-in",
    ("shen2009regularized", "[L1] becomes unstable"): _UPDATE_READING,
    ("shen2009regularized", "The L1-constrained learner shows slightly"): "real "
        "non-reproduction: inside the noise on 20NG and the SRAA stand-in",
    ("shen2009regularized", "The accuracy of our regularized"): "real non-reproduction on "
        "USPS (the same data)",
    ("shen2009regularized", "The L1 constrained method"): "protocol difference: Figure 3 "
        "reads the weights of trial 0, where the tuned constraint does not bind (issue 28 item 8)",
    ("shen2009regularized", "The PA algorithm still"): "protocol difference: Figure 3 reads "
        "the weights of trial 0, where the tuned constraint does not bind (issue 28 item 8)",
    ("crammer2009arow", "AROW has the best mean rank"): "protocol difference: which PA (the "
        "paper does not say); with plain PA it reproduces",
    ("crammer2009arow", "With little label noise"): "protocol difference: which PA (the paper "
        "does not say); with plain PA it reproduces",
    ("tan2016sparse", "BCW is much faster"): _TAN_STAND_IN + "; " + _TIMING,
    ("tan2016sparse", "BCW is about as accurate"): _TAN_STAND_IN,
    ("tan2016sparse", "PA, ignoring the covariance"): _TAN_STAND_IN,
    ("tan2016sparse", "SBCW selects features"): _SBCW,
    ("tan2016sparse", "SBCW is more accurate than FGM"): _FGM,
    ("tan2016sparse", "SBCW trains as fast"): _TIMING + "; " + _TAN_STAND_IN,
    ("zhao2009duol", "The aggressive learners (agg-ROMMA, PA-I, PA-II) make"): "real "
        "non-reproduction: the same LIBSVM/UCI sets and the paper's parameters (a1a for a7a)",
    ("zhao2009duol", "agg-ROMMA is significantly slower"): _TIMING,
    ("zhao2009duol", "Online-SVM's running time"): _TIMING,
}


def _add_causes(rows):
    for row in rows:
        if row["verdict"] in ("does not", "in part") and not row["cause"]:
            row["cause"] = next((cause for (paper, start), cause in CAUSE_NOTES.items()
                                 if row["paper"] == paper and row["claim"].startswith(start)), "")
    return rows


def scoreboard(results, l1_seconds=None, run_missing=False):
    """Every claim of the five papers with its verdict (one row per claim; :data:`COLUMNS`).

    ``run_missing=True`` also runs the claims that no stored run covers (Carvalho and
    Cohen's section 5.2, about a minute; the book's page does), instead of a row that names
    the page that runs them."""
    rows = (carvalho_claims(results, run_missing=run_missing) + shen_claims(results, l1_seconds)
            + crammer_claims(results) + tan_claims(results) + zhao_claims(results))
    return pd.DataFrame(_add_causes(rows), columns=list(COLUMNS))


def efs_lowest_features(key="20newsgroup", n=12, seed=0):
    """Carvalho and Cohen's section 5.2 run: MBW trained on the training part of
    :func:`single_pass.efs_curves`'s split of ``key`` (a random 80%), the ``n`` features it
    has seen with the lowest EFS score ``|u - v|``, and the share of them in scikit-learn's
    English stop-word list. Returns ``(words, share)``."""
    import warnings

    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from . import single_pass as sp
    from .. import datasets
    from ..linear.winnow import ModifiedBalancedWinnow
    from ..selection.extremal import extremal_scores

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
    from . import single_pass as sp
    from .. import datasets

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
    from . import single_pass as sp

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


def counts(board, experimental=None):
    """Claims per paper and verdict, with a total column. ``experimental=True`` counts the
    experimental claims only (tables, figures, prose), ``False`` the definitions, theorems
    and settings only (:data:`NON_EXPERIMENTAL`), ``None`` every row."""
    if experimental is not None:
        board = board[board["kind"].isin(NON_EXPERIMENTAL) != experimental]
    table = (board.groupby(["paper", "verdict"]).size().unstack(fill_value=0)
             .reindex(index=list(PAPERS), columns=list(VERDICTS), fill_value=0))
    table.insert(0, "claims", table.sum(axis=1))
    return table


def kinds(board):
    """Claims per paper and kind of claim (the ``kind`` column)."""
    return (board.groupby(["paper", "kind"]).size().unstack(fill_value=0)
            .reindex(index=list(PAPERS), fill_value=0))


def paper_name(key):
    """The author-year name of paper ``key`` (:data:`PAPER_NAMES`)."""
    try:
        return PAPER_NAMES[key]
    except KeyError:
        raise KeyError(f"no display name for paper {key!r}; add it to "
                       "olearn.experiments.scoreboard.PAPER_NAMES") from None


def for_reader(table):
    """A copy of ``table`` (the board, :func:`counts` or :func:`kinds`) that names the papers
    by :func:`paper_name` instead of their BibTeX keys, in the index and the ``paper`` column."""
    table = table.copy()
    if table.index.name == "paper":
        table.index = table.index.map(paper_name)
    if "paper" in table.columns:
        table["paper"] = table["paper"].map(paper_name)
    return table


#: the columns of the board's HTML tables and their widths (they fit a 688-px column)
HTML_COLUMNS = (("where", "17%"), ("claim", "49%"), ("verdict", "15%"), ("cause", "19%"))


def _details(row):
    from html import escape

    items = [("the paper", row["paper_says"]), ("ours", row["ours"]),
             ("rule", row["why"])]
    if row["cause"]:
        items.append(("cause", row["cause"]))
    if row["alternative"]:
        items.append(("other readings", row["alternative"]))
    body = "".join(f'<dt>{k}</dt><dd style="margin-left:1em">{escape(str(v))}</dd>'
                   for k, v in items)
    page = f'<a href="{row["page"]}.html">{escape(row["page"])}</a>'
    return (f"<details><summary>numbers, rule and page</summary><dl>{body}"
            f'<dt>page</dt><dd style="margin-left:1em">{page}</dd></dl></details>')


def claims_html(board):
    """The board as HTML for the book: one section per paper headed by its name; four narrow
    columns (where, claim, verdict, cause category) in a fixed layout whose text wraps, and
    per row a dropdown with the paper's numbers, ours, the rule, the full cause, the other
    readings and the link to the page (no BibTeX key is shown)."""
    from html import escape

    parts = []
    cols = "".join(f'<col style="width:{w}">' for _, w in HTML_COLUMNS)
    head = "".join(f"<th>{c}</th>" for c, _ in HTML_COLUMNS)
    for paper, part in board.groupby("paper", sort=False):
        rows = []
        for _, row in part.iterrows():
            category = next((c for c in CAUSES if row["cause"].startswith(c)), "")
            verdict = row["verdict"] + (" *" if row["alternative"] else "")
            rows.append(f"<tr><td>{escape(row['where'])}</td><td>{escape(row['claim'])}"
                        f"{_details(row)}</td><td>{escape(verdict)}</td>"
                        f"<td>{escape(category)}</td></tr>")
        parts.append(f"<h3>{paper_name(paper)}</h3>"
                     '<table class="table scoreboard" style="table-layout:fixed;width:100%;'
                     'word-wrap:break-word;overflow-wrap:anywhere">'
                     f"<colgroup>{cols}</colgroup><thead><tr>{head}</tr></thead>"
                     f"<tbody>{''.join(rows)}</tbody></table>")
    return "\n".join(parts)


def check(board, book):
    """Assert the board is well formed: known verdicts, every paper present, every page a
    notebook of the book listed in its table of contents."""
    book = Path(book)
    toc = (book / "_toc.yml").read_text()
    assert set(board["verdict"]) <= set(VERDICTS)
    assert set(board["paper"]) == set(PAPERS)
    for page in board["page"].unique():
        assert (book / f"{page}.ipynb").exists(), page
        assert f"file: {page}" in toc, page
    assert not board[["claim", "verdict", "page"]].isna().any().any()
    failing = board[board["verdict"].isin(["does not", "in part"])]
    missing = failing[~failing["cause"].str.startswith(CAUSES)]
    assert missing.empty, f"no cause for: {missing['claim'].tolist()}"
    return True


#: What each theorem row's page must run for its verdict to stand: a code cell with an
#: ``assert`` that uses this name (the bound checker, or SBCW's recorded duality gaps).
THEOREM_CHECKS = {
    "regularized/theory": ("from olearn.bounds", "invariant"),
    "arow/bound": "arow_bound",
    "sparse_cw/sbcw": "model.theta_",
    "duol/theory": ("assert_theorems_1_2", "theorem3_corrected"),
    "single_pass/voting": "assert np.allclose(voted.coef_",
    "single_pass/winnow": "np.allclose(mbw.u_",
    "single_pass/efs": "get_support",
    "arow/derivation": "mu_sketch",
    "regularized/derivation": "cvxpy",
    "duol/derivation": "dual_coef_",
    "scoreboard": "arow_representer",
}


#: the plain-text copy of each paper in ``/work/shared/papers`` (see its README)
PAPER_FILES = {"carvalho2006single": "single-pass-online-learning.txt",
               "shen2009regularized": "regularized-online-learning.txt",
               "crammer2009arow": "arow.txt", "tan2016sparse": "sparse-confidence-weighted.txt",
               "zhao2009duol": "duol.txt"}


def captions(text):
    """The tables and figures a paper's text has captions for: {("Table", 4), ("Figure", 1)...}."""
    import re

    return {(kind, int(n)) for kind, n in
            re.findall(r"(?m)^\s*(Table|Figure)\s+(\d+)\s*[:.]", text)}


def cited(where):
    """The tables and figures a ``where`` cell names, ranges and lists expanded:
    "Tables 1-3, 5-6, Figure 2(a)" -> {("Table", 1), ("Table", 2), ..., ("Figure", 2)}."""
    import re

    out = set()
    for kind, numbers in re.findall(r"(Table|Figure)s?\s+((?:\d+(?:\([a-z-]+\))?"
                                    r"(?:\s*-\s*\d+)?(?:,\s*(?=\d))?)+)", where):
        for part in re.findall(r"\d+(?:\([a-z-]+\))?(?:\s*-\s*\d+)?", numbers):
            bounds = [int(b) for b in re.findall(r"(?<![(a-z])\d+", part)]
            out |= {(kind, n) for n in range(bounds[0], bounds[-1] + 1)}
    return out


def theorem_pages_assert(board, book):
    """Every theorem row's page has a code cell that asserts with its checker
    (:data:`THEOREM_CHECKS`): the check the verdict relies on is on the page; a definition
    row checked by tests (:func:`_tested_definition`) names tests that exist."""
    import json

    import re

    checked = board["kind"].isin(["theorem", "definition"]) & (board["verdict"] == "reproduces")
    tested = board["why"].str.startswith("asserted by tests/")
    root = Path(__file__).resolve().parents[2]      # the repository: tests/ beside olearn/
    for why in board.loc[checked & tested, "why"]:
        for path, name in re.findall(r"(tests/[\w/]+\.py)::(\w+)", why):
            source = (root / path).read_text()
            assert f"def {name}(" in source, f"{path} has no test {name}"
    for page in board.loc[checked & ~tested, "page"].unique():
        nb = json.loads((Path(book) / f"{page}.ipynb").read_text())
        cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
        markers = THEOREM_CHECKS[page]
        for marker in (markers,) if isinstance(markers, str) else markers:
            assert any(marker in c for c in cells), f"{page} no longer uses {marker}"
        assert any("assert" in c for c in cells), f"{page} asserts nothing"
    return True



if __name__ == "__main__":
    # issue 28 item 9, the Reuters task: F1 of four learners with money-fx positive (the
    # stored run) and with the rest positive, beside the report's Table 4 (about a minute)
    import sys
    import warnings

    from . import single_pass as sp

    keys = tuple(sys.argv[1:]) or ("Reuters",)
    names = ("MBW", "BW", "PA", "v-MBW")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        flipped = flipped_folds(keys, learners=names)
    stored = sp.f1_table(pd.read_csv(Path("book/results/single_pass/cv_folds.csv")))
    for key in keys:
        print(pd.DataFrame({"stored positive class": stored.loc[key, list(names)],
                            "other class": sp.f1_table(flipped).loc[key, list(names)],
                            "paper": sp.PAPER_TABLE4.loc[key, list(names)]}).round(1)
              .rename_axis(key).to_string())
