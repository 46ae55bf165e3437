"""The scoreboard's rows for Crammer, Kulesza and Dredze (2009), *Adaptive regularization of weight vectors* (AROW).

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
                          ranked_best, RANK_TOLERANCE, ALMOST_ALL_SHARE, HOLDS, TIE, FAILS, POINTS, Judged)



# -- Crammer, Kulesza and Dredze (2009) -------------------------------------------------------
def crammer_claims(results):
    from .. import arow

    key = "crammer2009arow"
    table = pd.read_csv(Path(results) / "arow" / "table1.csv")
    ranks = arow.mean_ranks(table)
    paper = arow.PAPER_TABLE1
    levels = [n for n in paper.index if n in ranks.index]
    plain_pa = pd.read_csv(Path(results) / "arow" / "table1_pa_plain.csv")
    plain = arow.mean_ranks(pd.concat([table[table["learner"] != "PA"],
                                       plain_pa.assign(learner="PA")]))
    fmt = lambda s: ", ".join(f"{v:.2f}" for v in s)       # noqa: E731
    page = "arow/reproduction"

    def best_at_every_level(r):
        return all_cases([ranked_best(r.loc[n], "AROW") for n in levels], "noise levels")

    v_pa1, v_plain, v_paper = (best_at_every_level(ranks), best_at_every_level(plain),
                               best_at_every_level(paper.loc[levels]))
    pa_ahead = [n for n in levels if ranks.loc[n, "PA"] < ranks.loc[n, "AROW"]]
    main = _either_reading(v_pa1.held, v_plain.held, len(levels))
    main = beside(Judged(str(main), v_pa1.held, 0, len(levels) - v_pa1.held, "noise levels (PA-I)"),
                  v_paper)

    def lead(r):
        """AROW's lead in mean rank over the best baseline, per noise level."""
        return [float(r.loc[n, ["CW", "PA", "SOP"]].min() - r.loc[n, "AROW"]) for n in levels]

    def lead_cw(r):
        return [float(r.loc[n, "CW"] - r.loc[n, "AROW"]) for n in levels]

    rt = RANK_TOLERANCE
    rows = [
        _row(key, "Table 1, section 5.1", "table", "'AROW outperforms the baselines at all noise "
             "levels' (the best mean rank at every noise level).",
             f"AROW's mean rank by noise: {fmt(paper.loc[levels, 'AROW'])}",
             f"AROW's mean rank by noise: {fmt(ranks.loc[levels, 'AROW'])}; best at "
             f"{v_pa1.held} of {len(levels)} levels with PA-I (C tuned) as PA, at "
             f"{v_plain.held} of {len(levels)} with plain PA; with PA-I, PA's mean rank beats "
             f"AROW's at every noise level above 0 ({len(pa_ahead)} of {len(levels)} levels: "
             f"PA {fmt(ranks.loc[levels, 'PA'])})",
             main,
             "ranking: per noise level AROW alone the best mean rank over the tasks available here "
             "(OCR, 20 Newsgroups, Reuters, movie reviews); the paper does not say which PA it "
             "ran, so both readings are run: 'in part' when the claim holds with one only",
             page, id="crammer2009:5.1:arow-best-at-every-noise-level", rule="ranking",
             paper_key=f"{v_paper.held} of {len(levels)} levels",
             ours_key=f"{v_pa1.held} of {len(levels)} (PA-I), {v_plain.held} of {len(levels)} (plain PA)",
             alternative=f"PA-I (C tuned): {v_pa1}; plain PA: {v_plain}"),
        _row(key, "Table 1, section 5.1", "table", "AROW 'does especially well as noise "
             "increases' (its lead in mean rank over the best baseline grows).",
             f"lead of AROW over the best baseline by noise: {fmt(lead(paper.loc[levels]))}",
             f"lead by noise, PA-I reading: {fmt(lead(ranks))}; plain PA: {fmt(lead(plain))}",
             beside(_either_reading(int(trend(lead(ranks), tol=rt) == HOLDS),
                                    int(trend(lead(plain), tol=rt) == HOLDS), 1),
                    all_cases([trend(lead(paper.loc[levels]), tol=rt)], "readings")),
             f"trend of the lead (mean ranks, tolerance {rt:g} rank) from 0% to 30% noise; "
             "both readings of PA: 'in part' when the claim holds with one only", page,
             id="crammer2009:5.1:arow-especially-well-with-noise", rule="trend",
             paper_key=f"lead {lead(paper.loc[levels])[0]:.2f} -> {lead(paper.loc[levels])[-1]:.2f}",
             ours_key=f"lead {lead(ranks)[0]:.2f} -> {lead(ranks)[-1]:.2f} (PA-I), "
                      f"{lead(plain)[0]:.2f} -> {lead(plain)[-1]:.2f} (plain PA)",
             alternative=f"PA-I (C tuned): {all_cases([trend(lead(ranks), tol=rt)], 'readings')}; "
                         f"plain PA: {all_cases([trend(lead(plain), tol=rt)], 'readings')}"),
        _untestable(key, "Table 1, Figure 3", "table", "The results on the Amazon and ECML "
                    "spam tasks.", "part of the mean ranks",
                    "those data sets are not available here; the Sentiment task is run on the "
                    "movie reviews polarity set as a stand-in (a text task of every row above)",
                    page, id="crammer2009:5:amazon-ecml-not-available"),
        _row(key, "Table 1, section 5.1", "prose", "With little label noise 'CW easily "
             "outperforms the other baselines' (PA, SOP).",
             f"CW's mean rank at 0%: {paper.loc[0.0, 'CW']:.2f} (PA {paper.loc[0.0, 'PA']:.2f}, "
             f"SOP {paper.loc[0.0, 'SOP']:.2f})",
             f"CW's mean rank at 0%: {ranks.loc[0.0, 'CW']:.2f} (PA-I, C tuned, "
             f"{ranks.loc[0.0, 'PA']:.2f}; SOP {ranks.loc[0.0, 'SOP']:.2f}); with plain PA: CW "
             f"{plain.loc[0.0, 'CW']:.2f}, PA {plain.loc[0.0, 'PA']:.2f}",
             _either_reading(int(ranked_best(ranks.loc[0.0, ["CW", "PA", "SOP"]], "CW") == HOLDS),
                             int(ranked_best(plain.loc[0.0, ["CW", "PA", "SOP"]], "CW") == HOLDS), 1),
             "ranking among the baselines at 0% noise; both readings of PA, as for the mean-rank "
             "row: 'in part' when the claim holds with one only", page,
             id="crammer2009:5.1:cw-best-baseline-without-noise", rule="ranking",
             paper_key=f"CW {paper.loc[0.0, 'CW']:.2f}", ours_key=f"CW {ranks.loc[0.0, 'CW']:.2f} "
             f"(PA-I {ranks.loc[0.0, 'PA']:.2f})",
             alternative=f"PA-I (C tuned): {'reproduces' if ranked_best(ranks.loc[0.0, ['CW', 'PA', 'SOP']], 'CW') == HOLDS else 'does not'}; "
                         f"plain PA: {'reproduces' if ranked_best(plain.loc[0.0, ['CW', 'PA', 'SOP']], 'CW') == HOLDS else 'does not'}; "
                         "with the rank trend's tolerance "
                         f"({rt:g} rank) for this comparison too, the PA-I reading gives "
                         f"{all_cases([ranked_best(ranks.loc[0.0, ['CW', 'PA', 'SOP']], 'CW', tol=rt)])} "
                         f"(CW {ranks.loc[0.0, 'CW']:.2f}, PA-I {ranks.loc[0.0, 'PA']:.2f})"),
        _row(key, "Table 1, section 5.1", "prose", "'As noise increases ... reduce its [CW's] "
             "performance considerably' (its mean rank falls behind).",
             f"CW's mean rank by noise: {fmt(paper.loc[levels, 'CW'])}",
             f"CW's mean rank by noise: {fmt(ranks.loc[levels, 'CW'])}",
             beside(all_cases([trend(ranks.loc[levels, "CW"], tol=rt)], "readings"),
                    all_cases([trend(paper.loc[levels, "CW"], tol=rt)], "readings")),
             f"trend of CW's mean rank from 0% to 30% (tolerance {rt:g} rank)", page,
             id="crammer2009:5.1:cw-falls-with-noise", rule="trend",
             paper_key=f"CW {paper.loc[levels[0], 'CW']:.2f} -> {paper.loc[levels[-1], 'CW']:.2f}",
             ours_key=f"CW {ranks.loc[levels[0], 'CW']:.2f} -> {ranks.loc[levels[-1], 'CW']:.2f}"),
        _untestable(key, "Table 2, section 5.1", "definition", "The four properties of PA, SOP, "
                    "CW and AROW (large margin, confidence, non-separable, adaptive margin).",
                    "a yes/no table", "a classification of the algorithms' design, not a "
                    "measurement; the book discusses it on arow/family", "arow/family",
                    id="crammer2009:5.1:properties-table"),
        _definition(key, "Figure 1, section 3", "The AROW algorithm (eqs. 1-9).",
                    "arow/derivation", "olearn's mean and covariance equal the update sketched "
                    "on the page", id="crammer2009:3:arow-definition"),
        *_arow_figures(key, arow, Path(results) / "arow", table),
        _theorem(key, "Theorem 2", "AROW's mistake bound (the form the proof gives; the printed "
                 "eq. 10 lost a bracket).", "arow/bound", "asserted, with Lemmas 3 and 4, on "
                 "every update of the page's runs", id="crammer2009:4:mistake-bound"),
        arow_lemma1_row(key),
    ]
    # Table 2 is not a measurement: kind "definition" counts it apart, rule "not measured"
    # says why it has no verdict of its own
    assert rows[5]["id"] == "crammer2009:5.1:properties-table"
    rows[5]["kind"], rows[5]["rule"] = "definition", "not measured"
    return rows


#: the stream of the Lemma 1 row: the first rows of trial 0 of Shen's USPS stream (a real
#: stream that the board loads anyway), and AROW's r
LEMMA1_ROWS, LEMMA1_R = 300, 1.0
#: the largest difference that still counts as equal (rounding of a few hundred updates)
LEMMA1_TOL = 1e-8


def arow_lemma1_row(key):
    """Lemma 1 of the AROW paper (representer theorem) asserted on a run:
    :func:`missing_claims.arow_representer` against olearn's AROW."""
    from .. import missing_claims as mc
    from .. import regularized as er

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
                "asserted on the scoreboard page", "scoreboard", id="crammer2009:3:representer-lemma",
                rule="asserted", paper_key="proved", ours_key=f"{worst:.1e}",
                cause="" if ok else "suspected defect: the dual run departs from olearn's AROW")


def _arow_figures(key, arow, folder, table):
    rows = []
    curves = pd.read_csv(folder / "figure2a.csv")
    final = arow.figure2a_final(curves)
    last = curves[curves["examples"] == curves["examples"].max()]
    runs = 100 * last.pivot(index="run", columns="learner", values="accuracy")
    rival = final.drop("AROW full").idxmax()
    pairs = {"AROW full above the best other": ("AROW full", rival),
             "AROW full above AROW diag": ("AROW full", "AROW diag"),
             "CW full below CW diag": ("CW diag", "CW full")}
    diffs = {k: paired_interval(runs[a] - runs[b]) for k, (a, b) in pairs.items()}
    rows.append(_row(key, "Figure 2(a), section 5", "figure", "On noisy synthetic data AROW "
                     "improves over all competitors, the full version over the diagonal one, "
                     "and CW-full is worse than CW-diagonal.", "as stated, from the curves",
                     "final accuracy: " + ", ".join(f"{k} {v:.3f}" for k, v in final.items())
                     + f"; paired differences over the {len(runs)} runs (points): " + ", ".join(
                         f"{k} {m:+.2f} +- {h:.2f}" for k, (m, h) in diffs.items()),
                     conditions(*[beats(m, half=h) for m, h in diffs.values()]),
                     "three conditions, each by the 95% interval of the paired difference of final "
                     f"accuracy over the {len(runs)} runs (above zero holds, below fails, "
                     "containing zero a tie); the generator is our reading of 'as in [5]'",
                     "arow/reproduction", id="crammer2009:5:synthetic-figure2a", rule="conditions"))
    f2b = pd.read_csv(folder / "figure2b.csv")
    t2b = arow.figure2b_table(f2b)
    arow_rows = [r for r in t2b.index if r.startswith("AROW")]
    base = [r for r in t2b.index if not r.startswith("AROW")]
    gap = {n: t2b.loc[base, n].min() - t2b.loc[arow_rows, n].min() for n in t2b.columns}
    lo, hi = min(t2b.columns), max(t2b.columns)
    per = f2b.pivot_table(index="permutation", columns=["noise", "learner"], values="clean_mistakes")
    hurt = [beats(*paired_interval(per[(hi, r)] - per[(lo, r)])[:1],
                  half=paired_interval(per[(hi, r)] - per[(lo, r)])[1]) for r in t2b.index]
    best_base = {n: t2b.loc[base, n].idxmin() for n in (lo, hi)}
    best_arow = {n: t2b.loc[arow_rows, n].idxmin() for n in (lo, hi)}
    g = {n: per[(n, best_base[n])] - per[(n, best_arow[n])] for n in (lo, hi)}
    grow = paired_interval(g[hi] - g[lo])
    rows.append(_row(key, "Figure 2(b), section 5.1", "figure", "On MNIST 3 vs 5 noise hurts "
                     "every learner and the gap between AROW and the baselines grows.",
                     "as stated, from the bars",
                     f"best baseline minus best AROW, clean mistakes: {gap[lo]:.1f} at {lo:.0%}, "
                     f"{gap[hi]:.1f} at {hi:.0%} (growth {grow[0]:+.1f} +- {grow[1]:.1f} over the "
                     f"{len(per)} permutations); noise raises the mistakes beyond the noise for "
                     f"{hurt.count(HOLDS)} of {len(hurt)} learners",
                     conditions(all_cases(hurt), beats(grow[0], half=grow[1])),
                     "two conditions, each by the 95% interval of the paired difference over the "
                     "permutations (above zero holds, below fails, containing zero a tie): more "
                     "clean mistakes with noise for every learner; a larger gap",
                     "arow/reproduction", id="crammer2009:5.1:mnist-gap-grows-figure2b",
                     rule="conditions"))
    wins = arow.figure3_wins(table)

    def accuracy(noise, source=table):
        return 100 * source[source["noise"] == noise].pivot_table(
            index=["task", "kind"], columns="learner", values="accuracy")

    def panel_trend(kinds):
        part = table[table["kind"].isin(kinds)]
        shares = arow.figure3_wins(part)
        one = 1.0 / part[part["noise"] == 0.3][["task", "kind"]].drop_duplicates().shape[0]
        return trend([shares[n] for n in sorted(shares)], tol=one), shares

    panels = {"text": panel_trend(("text",)), "OCR": panel_trend(("ocr-split", "ocr-cv"))}
    cw_lead = [float(r.loc["CW"] - r.loc["AROW"]) for _, r in arow.mean_ranks(table).iterrows()]
    rows.append(_row(key, "Figure 3, section 5.1", "figure", "'AROW improves relative to CW as "
                     "noise increases' (the text (top) and OCR (bottom) panels).",
                     "more points above the diagonal with more noise",
                     "; ".join(f"{p}: AROW ahead of CW on " + ", ".join(
                         f"{100 * w:.0f}% at {n:.0%}" for n, w in shares.items())
                         for p, (_, shares) in panels.items())
                     + "; Table 1's CW minus AROW mean rank by noise: "
                     + ", ".join(f"{x:.2f}" for x in cw_lead),
                     all_cases([c for c, _ in panels.values()], "panels"),
                     "per panel, the trend of the share of tasks AROW wins from 0% to 10% to 30% "
                     "noise (tolerance: one task); the two panels are the cases (merged: the "
                     "board had one row per panel and one for both)", "arow/reproduction",
                     id="crammer2009:5.1:arow-improves-relative-to-cw", rule="trend"))
    a0 = accuracy(0.0)
    close_cases = [comparable(a, c) for a, c in zip(a0["AROW"], a0["CW"])]
    close = all_cases(close_cases, "tasks")
    ahead = most_cases([beats(a, c) for a, c in zip(a0["AROW"], a0["CW"])], "tasks")
    far = (a0["AROW"] - a0["CW"])[[c == FAILS for c in close_cases]]
    # the cause: nothing beyond the rule is known (Figure 3 has no numbers); the tasks beyond
    # the tolerance, and those of them that are stand-ins (arow.REUTERS for RCV1, arow.SENTIMENT)
    stand_ins = [t for t, _ in far.index if t in arow.REUTERS + arow.SENTIMENT]
    far_cause = ("real non-reproduction by the rule, its cause unknown: at 0% noise the plain "
                 f"'comparable' (within {POINTS:g} point) is not met on {len(far)} of "
                 f"{len(close_cases)} tasks, AROW ahead on {int((far > 0).sum())} and behind on "
                 f"{int((far < 0).sum())}; the paper publishes no numbers for Figure 3, so "
                 f"whether its own tasks stay within {POINTS:g} point is not known; "
                 f"{len(stand_ins)} of the {len(far)} "
                 + ("is a stand-in task" if len(stand_ins) == 1 else "are stand-in tasks")
                 + (f" ({', '.join(stand_ins)})" if stand_ins else ""))
    rows.append(_row(key, "Figure 3, section 5.1", "figure", "'AROW and CW are comparable when "
                     "there is no added noise, with AROW winning the majority of the time'.",
                     "majority",
                     f"at 0% noise, AROW within {POINTS:g} point of CW on {close.held} of "
                     f"{close.total} tasks; ahead by more than {POINTS:g} point on {ahead.held}, "
                     f"behind by more on {ahead.failed} (ahead at all on {100 * wins[0.0]:.0f}%)",
                     conditions(close, ahead),
                     f"two conditions: 'comparable' (within {POINTS:g} point) on every task "
                     "(the comparable rule; the sentence has no 'most'); AROW beats CW on most "
                     "tasks ('the majority of the time': by more than the tolerance; within it "
                     "a tie, so the majority can be undecided: inconclusive)",
                     "arow/reproduction",
                     id="crammer2009:5.1:arow-cw-comparable-without-noise", rule="conditions",
                     cause=far_cause,
                     alternative="'comparable' on most tasks: "
                     f"{conditions(most_cases(close_cases, 'tasks'), ahead)}; comparable on "
                     f"the mean over the tasks (AROW minus CW {(a0['AROW'] - a0['CW']).mean():+.2f} "
                     f"points): {conditions(comparable(a0['AROW'].mean(), a0['CW'].mean()), ahead)}"
                     "; the tasks beyond the tolerance: " + ", ".join(
                         f"{t} {d:+.2f}" for (t, _), d in far.sort_values().items())))

    def high_noise(source):
        a3 = accuracy(0.3, source)
        return almost_all_cases([min(beats(r["AROW"], r[b]) for b in ("CW", "PA", "SOP"))
                                 for _, r in a3.iterrows()], "tasks")

    plain_pa = pd.read_csv(folder / "table1_pa_plain.csv")
    plain = pd.concat([table[table["learner"] != "PA"], plain_pa.assign(learner="PA")])
    v1, v2 = high_noise(table), high_noise(plain)
    a3 = accuracy(0.3)
    over_cw = almost_all_cases([beats(a, c) for a, c in zip(a3["AROW"], a3["CW"])], "tasks")
    rows.append(_row(key, "Figure 3, section 5.1", "figure", "'In almost every high noise "
                     "evaluation, AROW improves over CW (as well as the other baselines, not "
                     "shown)'.", "almost every task at 30%",
                     f"at 30% noise AROW beats CW by more than {POINTS:g} point on "
                     f"{over_cw.key} (ahead at all on {100 * wins[0.3]:.0f}%); beats all three "
                     f"baselines on {v1.key} with PA-I (C tuned) as PA, on {v2.key} with plain PA",
                     v1 if str(v1) == str(v2) else _either_reading(v1.held, v2.held, v1.total),
                     f"'almost every': all tasks but at most {ALMOST_ALL_SHARE:.0%}; a task holds "
                     f"when AROW beats CW, PA and SOP by more than {POINTS:g} point each; both "
                     "readings of PA: 'in part' when the claim holds with one only",
                     "arow/reproduction", id="crammer2009:5.1:arow-beats-all-at-high-noise",
                     rule="almost all", ours_key=f"{v1.held} of {v1.total} tasks (PA-I)",
                     alternative=f"PA-I (C tuned): {v1}; plain PA: {v2}; against CW alone: {over_cw}"))
    return rows


#: the cause of each "does not" / "in part": row id -> cause (:data:`CAUSES`)
CAUSE_NOTES = {
    "crammer2009:5.1:arow-best-at-every-noise-level": "protocol difference: which PA (the "
        "paper does not say); with plain PA it reproduces, with PA-I (C tuned) PA's rank beats "
        "AROW's at every noise level above 0",
    "crammer2009:5.1:cw-best-baseline-without-noise": "protocol difference: which PA (the paper "
        "does not say); with plain PA it reproduces",
    "crammer2009:5.1:arow-beats-all-at-high-noise": "protocol difference: which PA (the paper "
        "does not say); with PA-I (C tuned) PA is at least as accurate as AROW at 30% noise",
    "crammer2009:5.1:arow-especially-well-with-noise": "protocol difference: which PA (the "
        "paper does not say)",
}
