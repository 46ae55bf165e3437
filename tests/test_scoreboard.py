"""olearn.experiments.scoreboard: the claims of the five papers and their verdicts."""
import re
from pathlib import Path

import pytest

from olearn.experiments import scoreboard as sb

BOOK = Path(__file__).resolve().parents[1] / "book"


def test_verdict_by_count():
    assert sb._by_count(5, 5) == "reproduces"
    assert sb._by_count(3, 5) == "in part"
    assert sb._by_count(0, 5) == "does not"
    with pytest.raises(ValueError, match="at least one case"):
        sb._by_count(0, 0)


def test_unknown_verdict_is_refused():
    with pytest.raises(ValueError, match="unknown verdict 'yes'"):
        sb._row("p", "w", "table", "c", "s", "o", "yes", "why", "page")


@pytest.fixture(scope="module")
def board():
    return sb.scoreboard(BOOK / "results", l1_seconds="stored")   # no timing in the unit test


def test_board_covers_the_five_papers_and_links_pages_of_the_book(board):
    assert sb.check(board, BOOK)
    assert sb.theorem_pages_assert(board, BOOK)
    counts = sb.counts(board)
    assert list(counts.index) == list(sb.PAPERS)
    assert (counts["claims"] == counts[list(sb.VERDICTS)].sum(axis=1)).all()
    assert (counts["claims"] >= 3).all()


def _by_id(board, id):
    hit = board[board["id"] == id]
    assert len(hit) == 1, (id, len(hit))
    return hit.iloc[0]


def test_headline_verdicts_from_the_stored_runs(board):
    # BCW's fastest learner beside DCD and PA: 3 of our 5 stored sets for 'much faster'
    r = _by_id(board, "tan2016:5:bcw-much-faster-than-second-order")
    assert r["verdict"] == "in part" and r["ours_key"].startswith("3 of 5 sets")
    # the paper's outcome on its own sets (covtype, epsilon), not on ours: labelled, not counted
    assert r["paper_verdict"] == "" and r["paper_key"].startswith("on the paper's own sets (not ours): reproduces")
    # the abstract's words: comparable to the SVM on several NLP tasks (1 of our 3 sets)
    r = _by_id(board, "carvalho2006:abstract:mbw-comparable-to-svm")
    assert r["verdict"] == "does not" and r["ours_key"] == "1 of 3 NLP sets"
    assert r["paper_verdict"] == "reproduces" and r["paper_key"] == "2 of 3 NLP sets"
    r = _by_id(board, "shen2009:4:regularized-beat-pa")
    assert r["verdict"] == "does not" and r["where"] == "Figure 1, section 4, claim 1"
    assert r["alternative"].startswith("every-round update (ours): in part")
    assert r["cause"].startswith("real non-reproduction")


def test_theorem_check_fails_when_the_page_stops_asserting(board, tmp_path):
    import shutil

    book = tmp_path / "book"
    for page in board.loc[board["kind"].isin(["theorem", "definition"]), "page"].unique():
        (book / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(BOOK / f"{page}.ipynb", book / f"{page}.ipynb")
    (book / "arow" / "bound.ipynb").write_text('{"cells": [], "metadata": {}}')
    with pytest.raises(AssertionError, match="arow/bound no longer uses arow_bound"):
        sb.theorem_pages_assert(board, book)


PAPERS_DIR = Path("/work/shared/papers")


@pytest.mark.skipif(not PAPERS_DIR.is_dir(), reason="the papers' text copies are not on this machine")
@pytest.mark.parametrize("paper", sb.PAPERS)
def test_every_table_and_figure_of_the_paper_is_on_the_board(board, paper):
    text = (PAPERS_DIR / sb.PAPER_FILES[paper]).read_text()
    wanted = sb.captions(text)
    assert wanted, f"no captions found in {sb.PAPER_FILES[paper]}"
    listed = set().union(*(sb.cited(w) for w in board.loc[board["paper"] == paper, "where"]))
    assert wanted <= listed, f"{paper}: not on the board: {sorted(wanted - listed)}"


def test_captions_and_cited_ranges():
    assert sb.captions("x\nTable 4: F1\n  Figure 2. curves\nsee Table 9 below") == \
        {("Table", 4), ("Figure", 2)}
    assert sb.cited("Tables 1-3, 5-6, section 4.2") == {("Table", n) for n in (1, 2, 3, 5, 6)}
    assert sb.cited("Figure 2(a), Figures 7-8") == {("Figure", n) for n in (2, 7, 8)}
    assert sb.cited("section 5, claim 3") == set()


def test_verdict_rules_for_most_and_almost_all():
    assert sb._majority(2, 3) == "reproduces" and sb._majority(1, 2) == "in part"
    assert sb._majority(1, 3) == "does not"
    assert sb._almost_all(7, 8) == "reproduces" and sb._almost_all(5, 8) == "in part"
    assert sb._almost_all(4, 8) == "does not"


def test_untestable_rows_say_why_and_show_no_number(board):
    rows = board[board["verdict"] == "cannot be tested here"]
    assert len(rows) >= 5
    assert (rows["ours"] == "—").all()
    assert rows["why"].str.len().min() > 10


def test_figure_verdicts_from_the_stored_runs(board):
    # AROW: Figure 2(a) holds on the stored 100 runs (AROW full best, CW full < CW diag)
    fig2a = board[(board.paper == "crammer2009arow") & board["where"].str.startswith("Figure 2(a)")]
    assert list(fig2a["verdict"]) == ["reproduces"]
    # Carvalho and Cohen: "v-P usually requires more examples to reach the same performance
    # levels" read on the F1 curves does not reproduce (v-P reaches most levels first on
    # Reuters and 20newsgroup); Figure 4's reading alone (more final training mistakes than
    # MBW on all 3 curve sets) is the other reading
    fig4 = _by_id(board, "carvalho2006:4.3.3:voted-perceptron-more-mistakes")
    assert fig4["where"].startswith("Figures 2-4") and fig4["verdict"] == "does not"
    assert "Reuters 285 vs 353" in fig4["ours"] and fig4["alternative"].endswith(": reproduces")
    # DUOL: its support vectors lie between the two groups on 2 of 5 sets only, the paper's
    # own tables on 3 of 5: both "in part", shown side by side
    sv = board[board["claim"].str.startswith("DUOL is sparser")]
    assert list(sv["verdict"]) == ["in part"] and "2 of 5" in sv["ours"].iloc[0]
    assert list(sv["paper_verdict"]) == ["in part"]


def test_carvalho_rows_judged_by_the_rule_of_their_words(board):
    """Referee 12, findings 1 and 2: "much better than all others" is the beats rule per (set,
    learner) with the fold interval; "faster than batch methods" is against both batch
    learners of Table 5, with fold 0 (numba's first-call compilation) left out for all."""
    svm = _by_id(board, "carvalho2006:4.3.1:svm-best-non-nlp")
    assert svm["verdict"] == "in part"
    # referee 19, finding 1: the paper's side judged by Table 5's standard errors with the
    # board's interval for published mean +- spread: no pair fails, so inconclusive; the
    # 1-point reading (two pairs fail, both Naive Bayes) is the paper's alternative
    assert svm["paper_verdict"] == "inconclusive" and "worse in none" in svm["paper_says"]
    assert "instead of its standard errors: in part" in svm["alternative"]
    assert "Adult Naive Bayes -8.7" in svm["alternative"] and "WiscBreast Naive Bayes -1.6" \
        in svm["alternative"]
    assert "gives the same verdict" not in svm["cause"]
    # referee 22 (round 2), findings 1 and 5: the cause names the positive class, and its
    # counts of the paper's side are the ones paper_says computes (fold-corrected SEs)
    assert svm["cause"].startswith("protocol difference") and "positive" in svm["cause"]
    held = re.search(r"in (\d+) of (\d+) \(set, learner\) pairs \((\d+) tied\)", svm["paper_says"])
    assert held and f"better in {held[1]} of {held[2]} pairs, tied in {held[3]}" in svm["cause"]
    assert "Adult Naive Bayes -8.7" in svm["cause"] and "fold-corrected" in svm["cause"]
    assert "same fold correction" in svm["why"] and "every paper's" not in svm["why"]
    # the fold interval is the corrected one (the noise rule): 9 of 20 hold, and on
    # WiscBreast only v-MBW is better beyond the noise (Naive Bayes is inside it)
    assert svm["ours_key"].startswith("SVM beats the others in 9 of 20")
    assert "WiscBreast SVM minus v-MBW" in svm["ours"]
    assert "SVM minus Naive Bayes" not in svm["ours"] and "Naive Bayes are better" not in svm["cause"]
    assert "a weaker claim than 'much better'): reproduces;" in svm["alternative"]
    speed = _by_id(board, "carvalho2006:abstract:online-faster-than-batch")
    assert speed["verdict"] == "inconclusive" and speed["ours_key"].startswith("8 of 16")
    assert speed["alternative"].startswith("against the SVM alone: reproduces; every online "
                                           "learner as a case")
    assert "SVC(kernel='linear')" in speed["why"] and "LinearSVC" not in speed["why"]


def test_paper_standard_errors_use_the_published_spread_interval():
    """Table 5's +- is a standard error over 5 folds: sd = se sqrt(5), the same function as
    for Zhao, Hoi and Jin's tables (by hand: Adult SVM 32.3 +- 0.7, Naive Bayes 41.0 +- 6.7:
    -8.7, half-width t(0.975, 4) sqrt(0.7^2 + 6.7^2) = 18.70)."""
    from olearn.experiments.board import carvalho2006 as cc
    d, half = cc.paper_se_change("Adult", "SVM", "Naive Bayes")
    # referee 22 (round 2), finding 1: Table 5's units are the report's 5 folds, so the fold
    # correction applies: variance (sd_a^2 + sd_b^2)(1/5 + 1/4), the half-width 1.5 times
    # the plain t(0.975, 4) sqrt(se_a^2 + se_b^2)
    plain = 2.776445 * (0.7 ** 2 + 6.7 ** 2) ** 0.5
    assert abs(d + 8.7) < 1e-9 and abs(half - 1.5 * plain) < 1e-4
    assert cc.noisy((d, half)) == sb.TIE
    # the same function as the other published spreads, with the fold ratio
    assert (d, half) == pytest.approx(sb.unpaired_interval(
        32.3, 0.7 * 5 ** 0.5, 41.0, 6.7 * 5 ** 0.5, 5, test_to_train=sb.cv_test_to_train(5)))


def test_boundary_cases_print_two_decimals():
    """Referee 22 (round 2), finding 10: a mean within 0.1 of its half-width is printed with
    two decimals, so the reader sees on which side of the noise it falls."""
    from olearn.experiments.board import carvalho2006 as cc
    assert cc._plus(3.851, 3.929) == "+3.85±3.93" and cc._plus(-1.0, 1.05) == "-1.00±1.05"
    assert cc._plus(1.7, 2.0) == "+1.7±2.0"


def test_tan_table2_spread_judged_by_the_published_spread_interval(board):
    """Referee 22 (round 2), finding 3: Table 2's mean +- std over 10 random orders is judged
    by unpaired_interval (plain: orders, not folds); the entire-epsilon column, means only,
    by 1 point."""
    import numpy as np

    from olearn.experiments.board import tan2016
    from olearn.experiments.sparse_cw import PAPER_TABLE2

    r = _by_id(board, "tan2016:5:pa-less-accurate-than-bcw")
    assert "one run each" not in r["paper_says"] and "(no std)" in r["paper_says"]
    d, half = sb.unpaired_interval(100 * PAPER_TABLE2.loc["PA", "covtype_error"],
                                   100 * PAPER_TABLE2.loc["PA", "covtype_std"],
                                   100 * PAPER_TABLE2.loc["BCW-L1", "covtype_error"],
                                   100 * PAPER_TABLE2.loc["BCW-L1", "covtype_std"], 10)
    assert f"covtype {d:+.1f} +- {half:.1f}" in r["paper_says"] and tan2016.TABLE2_ORDERS == 10
    # referee 24 (round 3), finding 1: the +- is read as a std, and said so; the variance
    # reading ("standard variance") is the row's alternative, by the same function
    assert "read as a standard deviation (the paper: 'mean and standard variance')" \
        in r["paper_says"]
    dv, hv = sb.unpaired_interval(100 * PAPER_TABLE2.loc["PA", "covtype_error"],
                                  100 * np.sqrt(PAPER_TABLE2.loc["PA", "covtype_std"]),
                                  100 * PAPER_TABLE2.loc["BCW-L1", "covtype_error"],
                                  100 * np.sqrt(PAPER_TABLE2.loc["BCW-L1", "covtype_std"]), 10)
    assert hv > abs(dv) > half and f"covtype {dv:+.1f} +- {hv:.1f}" in r["alternative"]
    assert r["alternative"].startswith("the paper's +- read as a variance")
    assert "own sets (not ours): inconclusive, 1 of 3 columns (2 tied)" in r["alternative"]
    assert r["paper_key"] == "on the paper's own sets (not ours): reproduces, 3 of 3 columns"


def test_arow_cw_comparable_is_judged_on_every_task(board):
    """Referee 19, finding 9: 'comparable' without 'most' is the comparable rule on every
    task; the 'most tasks' and mean readings are the alternative."""
    r = _by_id(board, "crammer2009:5.1:arow-cw-comparable-without-noise")
    assert r["verdict"] == "does not" and "on every task" in r["why"]
    assert r["alternative"].startswith("'comparable' on most tasks: inconclusive")
    assert r["cause"].startswith("real non-reproduction")
    # referee 22 (round 2), finding 12: no cause beyond the rule; the counts are the row's
    far = r["alternative"].split("the tasks beyond the tolerance: ")[1].split(", ")
    assert "cause unknown" in r["cause"] and f"not met on {len(far)} of 119 tasks" in r["cause"]
    assert "no numbers for Figure 3" in r["cause"]


def test_warm_seconds_leaves_out_fold_0_for_every_learner():
    import pandas as pd

    from olearn.experiments.board.carvalho2006 import warm_seconds

    folds = pd.DataFrame({"dataset": "a", "learner": ["MBW"] * 5 + ["SVM"] * 5,
                          "fold": list(range(5)) * 2,
                          "seconds": [4.0, 0.01, 0.02, 0.01, 0.02, 1.0, 1.0, 1.2, 0.8, 1.0]})
    mean, ratio = warm_seconds(folds)
    assert abs(mean.loc["a", "MBW"] - 0.015) < 1e-12 and abs(mean.loc["a", "SVM"] - 1.0) < 1e-12
    assert abs(ratio - 4.0 / 0.015) < 1e-9


def test_examples_to_level_reads_the_first_checkpoint_at_each_level():
    import pandas as pd

    from olearn.experiments import single_pass as sp

    curves = pd.DataFrame({"dataset": "a", "examples": [10, 20, 30] * 2,
                           "learner": ["v-Perceptron"] * 3 + ["MBW"] * 3,
                           "f1": [12.0, 16.0, 20.0, 0.0, 11.0, 30.0]})
    levels = sp.examples_to_level(curves).set_index("level")
    assert list(levels.index) == [10.0, 15.0, 20.0]            # up to MBW's and v-P's max 20
    assert list(levels["first"]) == [10, 20, 30] and list(levels["other_first"]) == [20, 30, 30]


def test_figure_claims_shared_with_the_pages():
    """The pages and the board call the same functions on the same stored files."""
    import json

    for page, function in (("single_pass/voting", "voting_effect"),
                           ("single_pass/curves", "curve_claims"),
                           ("single_pass/efs", "efs_claims"),
                           ("arow/reproduction", "figure3_wins")):
        nb = json.loads((BOOK / f"{page}.ipynb").read_text())
        code = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
        assert function in code, f"{page} does not call {function}"


def test_shen_timing_claim_reads_the_stored_runs(board, tmp_path):
    import pandas as pd

    row = board[board["claim"].str.startswith("It usually takes less than 10 minutes")].iloc[0]
    assert "40 stored runs" in row["ours"] and row["verdict"] == "reproduces"
    assert len(sb.stored_l1_seconds(BOOK / "results")) == 40
    (tmp_path / "regularized").mkdir()
    pd.DataFrame(columns=["stream", "learner", "seconds"]).to_csv(
        tmp_path / "regularized" / "runs.csv", index=False)
    with pytest.raises(ValueError, match="pass l1_seconds=None"):
        sb.stored_l1_seconds(tmp_path)


def _bib_name(entry):
    """Author-year as the scoreboard names a paper: up to three surnames, then "et al."."""
    surnames = [" ".join(p.prelast_names + p.last_names) for p in entry.persons["author"]]
    who = (f"{surnames[0]} et al." if len(surnames) > 3 else
           " and ".join([", ".join(surnames[:-1]), surnames[-1]]) if len(surnames) > 1 else
           surnames[0])
    return f"{who} ({entry.fields['year']})"


def test_every_paper_has_the_display_name_of_references_bib():
    from pybtex.database import parse_file

    bib = parse_file(str(BOOK / "references.bib")).entries
    assert set(sb.PAPER_NAMES) == set(sb.PAPERS)
    for key in sb.PAPERS:
        assert sb.paper_name(key) == _bib_name(bib[key]), key
    with pytest.raises(KeyError, match="add it to olearn.experiments.scoreboard.PAPER_NAMES"):
        sb.paper_name("doe2020unknown")


def test_rendered_tables_name_the_papers_not_their_keys(board):
    """The tables of book/scoreboard.ipynb (counts, kinds, every claim) show "Carvalho and
    Cohen (2006)", never "carvalho2006single"; the board itself keeps the keys."""
    counts, kinds = sb.for_reader(sb.counts(board)), sb.for_reader(sb.kinds(board))
    assert list(counts.index) == [sb.PAPER_NAMES[k] for k in sb.PAPERS]
    assert list(kinds.index) == list(counts.index)
    assert (kinds.sum(axis=1) == counts["claims"]).all()
    assert set(sb.for_reader(board)["paper"]) == set(sb.PAPER_NAMES.values())
    html = counts.to_html() + kinds.to_html() + sb.claims_html(board)
    shown = [key for key in sb.PAPERS if key in html]
    assert not shown, f"BibTeX keys in the rendered tables: {shown}"
    for name in sb.PAPER_NAMES.values():
        assert f"<h3>{name}</h3>" in html
    assert set(board["paper"]) == set(sb.PAPERS)           # the keys stay for filters


def test_scoreboard_page_renders_through_the_reader_names():
    import json

    nb = json.loads((BOOK / "scoreboard.ipynb").read_text())
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert "sb.claims_html(board)" in code and code.count("sb.for_reader(") >= 2
    assert "<h3>{paper}</h3>" not in code


# -- issue 28: a fair board ---------------------------------------------------------------
def test_beside_keeps_our_verdict_and_shows_the_papers():
    v = sb.beside(sb._by_count(2, 8), sb._by_count(5, 8))
    assert v == "in part" and v.paper == "in part" and v.paper_key == "5 of 8 cases"
    row = sb._row("p", "w", "table", "c", "s", "o", sb.beside(sb._by_count(0, 3), sb._by_count(0, 3)),
                  "why", "page", id="zhao2009:4.2:x", rule="beats")
    assert row["verdict"] == "does not" and row["paper_verdict"] == "does not"
    assert sb.outcome_note(row["verdict"], row["paper_verdict"]) == \
        "matches the paper's own outcome on these sets"
    assert sb.outcome_note("does not", "reproduces") == \
        "the paper's own numbers on these sets: reproduces"
    assert sb.outcome_note("does not", "") == ""
    assert "not testable on this subset" not in sb.VERDICTS


def test_ties_are_explicit():
    import pandas as pd

    ranks = pd.Series({"BW": 5.8, "MBW": 5.8, "PA": 6.0})
    assert sb._best(ranks) == ["BW", "MBW"]
    assert sb._best_verdict(ranks, "MBW") == "in part"          # idxmin would say MBW alone
    assert sb._best_verdict(ranks, "PA") == "does not"
    assert sb._time_order(1.0, 1.2) == 0 and sb._time_order(1.0, 2.0) == -1


def test_the_issue_28_and_35_rows(board):
    # the paper's own F1 on our three NLP sets ranks v-MBW first: shown beside ours
    r = _by_id(board, "carvalho2006:4.3.1:mbw-best-on-nlp")
    assert r["verdict"] == "does not" and r["paper_verdict"] == "does not"
    assert "including SVM" in r["claim"]
    # Tables 4-5: per-fold F1 stored, so the cases are judged by the fold noise
    r = _by_id(board, "carvalho2006:4.3.1:pa-beats-romma")
    assert r["verdict"] == "inconclusive" and "corrected 95% interval over the 5 folds" in r["ours"]
    r = _by_id(board, "carvalho2006:4.3.1:bw-beats-pw")
    assert r["rule"] == "almost all" and r["verdict"] == "inconclusive"
    # MBW and BW tie for the best non-voted rank on non-NLP: a tie decides it
    r = _by_id(board, "carvalho2006:4.3.1:mbw-best-non-voted-non-nlp")
    assert r["verdict"] == "inconclusive" and "BW, MBW" in r["ours"]
    # both PA readings for CW at 0% noise
    r = _by_id(board, "crammer2009:5.1:cw-best-baseline-without-noise")
    assert r["verdict"] == "in part" and "plain PA: reproduces" in r["alternative"]
    # AROW's main claim under PA-I: PA's rank beats AROW's above 0 noise, said on the row
    r = _by_id(board, "crammer2009:5.1:arow-best-at-every-noise-level")
    assert r["verdict"] == "in part" and "PA's mean rank beats AROW's at every noise level above 0" in r["ours"]
    assert r["where"] == "Table 1, section 5.1"
    # inside the noise: -0.10 +- 0.19; the every-round reading reproduces and is shown
    r = _by_id(board, "shen2009:4:l2-beats-l1-on-20ng")
    assert r["verdict"] == "inconclusive" and "every-round update (ours): reproduces" in r["alternative"]
    # Tan's Table 2: DCD is faster than BCW on epsilon-50k in the paper itself
    r = _by_id(board, "tan2016:5:bcw-faster-than-dcd")
    assert "2.62" in r["paper_says"] and r["paper_verdict"] == ""
    assert r["paper_key"].startswith("on the paper's own sets (not ours): in part")
    r = _by_id(board, "tan2016:5:bcw-fastest-and-comparable")
    assert r["paper_key"].endswith("2 of 3 columns") and r["ours_key"] == "0 of 5 sets"
    assert "L1-SVM" in _by_id(board, "tan2016:5:sbcw-accuracy-comparable-or-better")["claim"]
    # DUOL's Theorem 3 is refuted; Theorems 1-2 hold
    r = _by_id(board, "zhao2009:3:mistake-bound")
    assert r["verdict"] == "does not" and r["cause"].startswith("the theorem is false")
    r = _by_id(board, "shen2009:4:second-half-tuning-similar")
    # the claims audit's "similar" is the board's 1 point: no second reading any more
    assert r["verdict"] == "reproduces" and r["alternative"] == ""
    # timing: the Perceptron is never faster than the next learner beyond the tolerance
    r = _by_id(board, "zhao2009:4.2:perceptron-fastest")
    assert r["verdict"] == "inconclusive" and r["rule"] == "timing"
    # x103, x121 and x60 against "two orders of magnitude for most cases": ties decide it
    r = _by_id(board, "zhao2009:4.2:online-svm-orders-slower")
    assert r["verdict"] == "inconclusive" and "For most cases" in r["claim"]
    # the other reading is the comparison with each other learner (no second tolerance):
    # it fails for our times and for the paper's (referee 3, item 16)
    assert r["alternative"].startswith("against each other learner")
    assert r["alternative"].endswith("ours does not, the paper's does not")
    # the qualifiers are quoted
    assert "comparable or better" in _by_id(board, "tan2016:5:sbcw-speed-comparable-or-better")["claim"]
    # one split: said on the EFS rows, and the false cause is gone
    r = _by_id(board, "carvalho2006:5.2:error-falls-with-p")
    assert "one split" not in r["cause"] and "One random 80/20 split per set, as in the paper" in r["why"]
    # Figure 3 claims judged on the stored 40-trial rerun
    r = _by_id(board, "shen2009:4:l1-fewer-large-weights")
    assert "over the 40 trials" in r["ours"] and "36 of 40 trials" in r["ours"]
    assert r["ours_key"].endswith("pixels") and r["rule"] == "beats"     # the paired interval
    assert not board["where"].str.contains("section 5, claim").any()


def test_shen_figure1_trend_rows_read_every_trial(board):
    # claim 3 and the gap to NORMA: per-trial checkpoints (curves_trials.csv), judged by the
    # paired interval over the 40 trials, not by the 1-point tolerance on the mean curves
    shen = sb._module("shen2009")
    gaps = shen._gaps_over_trials(BOOK / "results")
    for id, minuend in (("shen2009:4:gap-largest-early", "PA"), ("shen2009:4:norma-gap-grows", "NORMA")):
        r = _by_id(board, id)
        # two conditions (the gap's sign by beats, its change by trend): the conditions rule
        assert r["rule"] == "conditions" and "paired difference over the 40 trials" in r["why"]
        assert "two conditions per stream" in r["why"] and "(the trend rule)" in r["why"]
        assert "per-trial values" not in r["why"] and r["ours"] == shen._gap_text(gaps, minuend)
        assert " of 3 streams" in r["ours_key"]
    # the text's rounded intervals give the verdict of the exact ones
    r = _by_id(board, "shen2009:4:gap-largest-early")
    assert shen._shen_judge(3, r["ours"]) == r["verdict"]
    # the row judges the sentences as stated, the sign included (as the previous row does);
    # the course whatever its sign is the other reading, by mean and by each trial's best
    assert "the previous row judges its sign" not in r["paper_says"]
    assert "the sign enters both rows" in r["paper_says"]
    # it is shown, as the board's other alternatives are, only when it changes the verdict
    course = shen._course_reading(gaps)
    changes = any(str(course[k][0]) != str(r["verdict"]) for k in ("mean", "trial"))
    assert ("the course of the gap whatever its sign" in r["alternative"]) == changes
    if changes:
        assert r["alternative"].startswith("the course of the gap whatever its sign")
        assert "shown because it changes the verdict" in r["alternative"]
        for kind in ("mean", "trial"):
            assert course[kind][1] in r["alternative"]
            assert course[kind][1].startswith(str(course[kind][0]) + ", ")
    # each trial's own best errs at most as much as the best by mean: the gap to it is larger
    for g in gaps.values():
        assert all(g["per_trial"][k][0] >= g[k][0] - 1e-12 for k in ("first", "last"))
    # the NORMA row says where the change holds only because NORMA's lead shrinks
    r = _by_id(board, "shen2009:4:norma-gap-grows")
    shrinking = [n for n in gaps if n[1] == "NORMA" and gaps[n]["last"][0] < 0
                 and gaps[n]["change"][0] - gaps[n]["change"][1] > 0]
    assert ("holds only because NORMA's lead shrinks" in r["why"]) == bool(shrinking)
    # "fails there" only where the final gap is below zero beyond the noise
    beyond = [n for n in shrinking if gaps[n]["last"][0] + gaps[n]["last"][1] < 0]
    assert ("the gap condition fails there beyond the noise" in r["why"]) == bool(beyond)
    assert ("the gap condition is a tie there" in r["why"]) == (len(beyond) < len(shrinking))
    assert "the verdict is unchanged" not in r["why"]


def test_norma_shrink_note_says_fails_only_beyond_the_noise():
    # the note of the NORMA row on a synthetic gap (first, last, change): NORMA ahead at the
    # end and its lead shrinking beyond the noise; the final gap below zero beyond the noise
    # fails the gap condition, inside the noise it is a tie
    shen = sb._module("shen2009")
    from olearn.experiments import regularized as er

    a, b, c = er.STREAMS
    name = er.SHORT_NAMES[a]
    note = shen._norma_shrink_note({a: [(-4.0, 1.0), (-0.1, 0.3), (2.0, 1.0)]})
    assert note.startswith(f"; on the {name} the change condition holds only because NORMA's")
    assert "the gap condition is a tie there" in note and "fails there" not in note
    note = shen._norma_shrink_note({a: [(-6.0, 1.0), (-4.0, 0.2), (2.0, 1.0)]})
    assert "the gap condition fails there beyond the noise" in note and "tie there" not in note
    # no note where NORMA is behind at the end or its lead does not shrink beyond the noise
    assert shen._norma_shrink_note({a: [(-1.0, 1.0), (0.5, 0.2), (1.5, 1.0)],
                                    b: [(-1.0, 1.0), (-0.5, 0.2), (0.5, 1.0)],
                                    c: [(-1.0, 1.0), (-1.5, 0.2), (-0.5, 0.2)]}) == ""
    both = shen._norma_shrink_note({a: [(-4.0, 1.0), (-0.1, 0.3), (2.0, 1.0)],
                                    b: [(-6.0, 1.0), (-4.0, 0.2), (2.0, 1.0)]})
    assert both.count("holds only because") == 2


def test_shen_other_readings_shown_only_when_they_change_the_verdict(board, monkeypatch):
    # the board marks a verdict with * when another reading changes it (scoreboard page):
    # claim 3's course of the gap and the every-round readings are in the alternative only
    # then; a reading with the same verdict is said in the rule text, without *
    shen = sb._module("shen2009")
    verdict = {id: _by_id(board, id)["verdict"] for id in
               ("shen2009:4:gap-largest-early", "shen2009:4:l2-beats-objective",
                "shen2009:4:beat-norma")}
    other = next(v for v in sb.VERDICTS if v != verdict["shen2009:4:beat-norma"])
    monkeypatch.setattr(shen, "_course_reading", lambda gaps, minuend="PA": {
        kind: (verdict["shen2009:4:gap-largest-early"], "COURSE " + kind)
        for kind in ("mean", "trial")})
    monkeypatch.setattr(shen, "_shen_every_round", lambda stored: {
        4: f"{verdict['shen2009:4:l2-beats-objective']} (SAME)", 5: f"{other} (OTHER)",
        9: "reproduces (NINE)"})
    rows = {r["id"]: r for r in shen.shen_claims(BOOK / "results", l1_seconds="stored")}
    r = rows["shen2009:4:gap-largest-early"]
    assert "COURSE" not in r["alternative"] and "course of the gap" not in r["alternative"]
    r = rows["shen2009:4:l2-beats-objective"]
    assert "SAME" not in r["alternative"]
    assert r["why"].endswith("the every-round update (ours) gives the same verdict: "
                             f"{verdict['shen2009:4:l2-beats-objective']} (SAME)")
    r = rows["shen2009:4:beat-norma"]
    assert r["alternative"] == f"every-round update (ours): {other} (OTHER)"
    assert "OTHER" not in r["why"]
    import pandas as pd

    def marked(id):             # the verdict cell of the row on the page ends with " *"
        return f"{rows[id]['verdict']} *<" in sb.claims_html(pd.DataFrame([rows[id]]))

    assert not marked("shen2009:4:l2-beats-objective") and marked("shen2009:4:beat-norma")
    # one reading of claim 3 changing the verdict is enough to show both
    changed = next(v for v in sb.VERDICTS if v != verdict["shen2009:4:gap-largest-early"])
    monkeypatch.setattr(shen, "_course_reading", lambda gaps, minuend="PA": {
        "mean": (verdict["shen2009:4:gap-largest-early"], "COURSE mean"),
        "trial": (changed, "COURSE trial")})
    rows = {r["id"]: r for r in shen.shen_claims(BOOK / "results", l1_seconds="stored")}
    alt = rows["shen2009:4:gap-largest-early"]["alternative"]
    assert "COURSE mean" in alt and "COURSE trial" in alt


def test_claim_3_other_reading_turns_the_gap_by_its_sign():
    shen = sb._module("shen2009")
    # PA ahead by 3 (gap -3 +- 1), its lead shrinking by 1 +- 0.5: the stated reading fails
    # on the sign, the course whatever its sign holds
    first, last, change = (-3.0, 1.0), (-2.0, 0.3), (1.0, 0.5)
    assert shen._gap_case(first, last, change, gap_at="first", increasing=False) == sb.FAILS
    assert shen._course_case(first, last, change) == sb.HOLDS
    # the regularized learners ahead and their lead shrinking: both readings hold
    turned = [(-m, h) for m, h in (first, last, change)]
    assert shen._gap_case(*turned, gap_at="first", increasing=False) == sb.HOLDS
    assert shen._course_case(*turned) == sb.HOLDS
    # a lead that grows fails; a change inside the noise is a tie; no lead is a tie
    assert shen._course_case(first, last, (-1.0, 0.5)) == sb.FAILS
    assert shen._course_case(first, last, (1.0, 1.5)) == sb.TIE
    assert shen._course_case((-0.5, 1.0), last, change) == sb.TIE


def test_claims_that_had_no_row_have_one(board):
    for id in ("crammer2009:5.1:arow-beats-all-at-high-noise",
               "crammer2009:5.1:arow-especially-well-with-noise",
               "tan2016:5:entire-epsilon-column", "shen2009:4:usps-features-informative"):
        _by_id(board, id)
    r = _by_id(board, "tan2016:5:entire-epsilon-column")
    assert r["kind"] == "no data" and "0.1019" in r["paper_says"]
    # movie reviews runs as the Sentiment stand-in: only Amazon and ECML spam are missing
    r = _by_id(board, "crammer2009:5:amazon-ecml-not-available")
    assert "Sentiment" not in r["claim"] and "movie reviews" in r["why"]


def test_rows_have_stable_ids_and_a_rule(board):
    assert board["id"].is_unique
    assert board["id"].str.match(sb._ID_PATTERN).all()
    assert board["rule"].isin(list(sb.RULES)).all()
    assert (board["paper_key"] != "").all() and (board["ours_key"] != "").all()
    broken = board.copy()
    broken.loc[broken.index[3], "id"] = "carvalho2006 table 4"
    with pytest.raises(AssertionError, match="stable id"):
        sb.check(broken, BOOK)
    broken = board.copy()
    broken.loc[broken.index[3], "rule"] = ""
    with pytest.raises(AssertionError, match="without a rule"):
        sb.check(broken, BOOK)


def test_rows_are_in_the_papers_section_order(board):
    for paper, part in board.groupby("paper", sort=False):
        keys = [sb._section_key(s) for s in part["section"]]
        assert keys == sorted(keys), paper
    assert list(dict.fromkeys(board["paper"])) == list(sb.PAPERS)
    # the section order comes from the ids, whatever order the rows were built in
    again = sb.order(board.sample(frac=1.0, random_state=0))
    assert list(again["section"].map(sb._section_key)) == list(board["section"].map(sb._section_key)) \
        or list(again["paper"]) == list(board["paper"])
    assert set(again["id"]) == set(board["id"])


def test_duplicate_claims_are_merged(board):
    voting = board[board["claim"].str.contains("Voting improves every online learner")]
    assert len(voting) == 1 and "sections 3 and 4.3.2" in voting["where"].iloc[0]
    arow_cw = board[(board["paper"] == "crammer2009arow")
                    & board["claim"].str.contains("relative to CW as noise increases")]
    assert len(arow_cw) == 1
    tan_speed = board[(board["paper"] == "tan2016sparse") & board["claim"].str.contains("fastest")]
    assert len(tan_speed) == 1


def test_placeholders_are_not_counted_as_experiments(board):
    exp = sb.counts(board, experimental=True)
    placeholders = board[board["kind"] == "no data"]
    assert len(placeholders) >= 5
    assert exp["claims"].sum() == (~board["kind"].isin(sb.NON_EXPERIMENTAL)).sum()
    assert not set(placeholders["id"]) & set(board.loc[~board["kind"].isin(sb.NON_EXPERIMENTAL), "id"])


# -- the rule table: each rule with cases that flip it ------------------------------------
def test_beats_tolerance_and_noise():
    assert sb.beats(80.0, 78.9) == sb.HOLDS          # by more than one point
    assert sb.beats(80.0, 79.0) == sb.TIE            # within it
    # exactly at the tolerance is a tie whatever the float rounding (referee 19, finding 8:
    # 7.2 - 8.2 is stored as -1.0000000000000018)
    assert sb.beats(-1.0000000000000018) == sb.TIE and sb.beats(1.0000000000000018) == sb.TIE
    assert sb.comparable(-1.0000000000000018, 0.0) == sb.HOLDS
    assert sb.beats(-1.0 - 10 * sb.ROUNDING) == sb.FAILS
    assert sb.beats(78.9, 80.0) == sb.FAILS
    assert sb.beats(5.0, 7.0, higher=False) == sb.HOLDS
    # with a stored interval: the noise decides, not the point
    assert sb.beats(0.5, half=0.4) == sb.HOLDS and sb.beats(0.5, half=0.6) == sb.TIE
    assert sb.beats(-0.5, half=0.4) == sb.FAILS
    with pytest.raises(ValueError, match="finite"):
        sb.beats(float("nan"), 1.0)


def test_comparable_is_one_point():
    assert sb.comparable(80.0, 81.0) == sb.HOLDS and sb.comparable(80.0, 81.1) == sb.FAILS
    assert sb.comparable(85.0, 81.0) == sb.FAILS
    assert sb.comparable(85.0, 81.0, or_better=True) == sb.HOLDS
    assert sb.comparable(5.0, 4.2, or_better=True, higher=False) == sb.HOLDS
    assert sb.comparable(5.0, 3.9, or_better=True, higher=False) == sb.FAILS


def test_faster_tolerance_factor_and_resolution():
    assert sb.faster(0.7, 1.0) == sb.HOLDS and sb.faster(0.8, 1.0) == sb.TIE
    assert sb.faster(1.4, 1.0) == sb.FAILS
    assert sb.faster(0.001, 0.009) == sb.TIE         # both below the timer resolution
    assert sb.faster(1.0, 140.0, factor=100) == sb.HOLDS
    assert sb.faster(1.0, 103.0, factor=100) == sb.TIE
    assert sb.faster(1.0, 60.0, factor=100) == sb.FAILS


def test_trend_needs_a_change_and_no_fall_back():
    assert sb.trend([23.8, 23.1, 22.6], increasing=False) == sb.HOLDS
    assert sb.trend([12.1, 11.8, 12.1], increasing=False) == sb.TIE
    assert sb.trend([10.0, 12.0, 14.0], increasing=False) == sb.FAILS
    assert sb.trend([0.37, 1.21, 1.53, 1.41], tol=0.1) == sb.TIE    # falls back by 0.12
    assert sb.trend([0.37, 1.21, 1.53, 1.45], tol=0.1) == sb.HOLDS
    with pytest.raises(ValueError, match="two finite"):
        sb.trend([1.0])
    # per-trial numbers: the paired change's 95% interval takes the tolerance's place, with the
    # same rounding guard (0.4 - 0.1 exceeds 0.3 by 5.6e-17: at the interval, a tie)
    assert sb.trend([1.0, 1.3], half=0.2) == sb.HOLDS
    assert sb.trend([1.0, 1.3], half=0.4) == sb.TIE
    assert sb.trend([1.0, 0.7], half=0.2) == sb.FAILS
    assert sb.trend([1.3, 1.0], increasing=False, half=0.2) == sb.HOLDS
    assert sb.trend([0.1, 0.4], half=0.3) == sb.TIE
    with pytest.raises(ValueError, match="two means"):
        sb.trend([1.0, 2.0, 3.0], half=0.1)


def test_ranked_best_and_threshold():
    import pandas as pd

    ranks = pd.Series({"BW": 5.8, "MBW": 5.8, "PA": 6.0})
    assert sb.ranked_best(ranks, "MBW") == sb.TIE and sb.ranked_best(ranks, "PA") == sb.FAILS
    assert sb.ranked_best(ranks.drop("BW"), "MBW") == sb.HOLDS
    assert sb.threshold(0.32, 0.5, above=False) == sb.HOLDS
    assert sb.threshold(0.52, 0.5, above=False) == sb.FAILS


def test_quantifiers_and_inconclusive():
    H, T, F = sb.HOLDS, sb.TIE, sb.FAILS
    assert sb.all_cases([H, H]) == "reproduces"
    assert sb.all_cases([H, T]) == "inconclusive"        # nothing against it, ties decide
    assert sb.all_cases([H, F]) == "in part"
    assert sb.all_cases([T, F]) == "does not"
    assert sb.most_cases([H, H, F]) == "reproduces" and sb.most_cases([H, T, F]) == "inconclusive"
    assert sb.most_cases([H, F]) == "in part" and sb.most_cases([H, F, F]) == "does not"
    assert sb.almost_all_cases([H] * 7 + [F]) == "reproduces"
    assert sb.almost_all_cases([H] * 6 + [F, F]) == "in part"
    assert sb.almost_all_cases([H] * 6 + [T, F]) == "inconclusive"
    assert sb.almost_all_cases([H] * 100 + [F] * 10) == "reproduces"   # 10% of the cases
    assert sb.almost_all_cases([H] * 98 + [F] * 12) == "in part"
    assert sb.conditions(True, "inconclusive") == "inconclusive"
    assert sb.conditions(True, False) == "in part"
    v = sb.most_cases([H, H, T, F], "sets")
    assert v.key == "2 of 4 sets (1 tied)"
    with pytest.raises(ValueError, match="at least one case"):
        sb.all_cases([])
    with pytest.raises(ValueError, match="HOLDS"):
        sb.all_cases([2])


def test_rule_table_is_what_the_book_states():
    table = sb.rules_table()
    assert list(table["rule"]) == list(sb.RULES)
    assert table["tolerance"].str.len().min() > 3
    for name in ("beats", "comparable", "most", "almost all", "trend", "ranking", "timing"):
        assert name in sb.RULES
    with pytest.raises(ValueError, match="unknown rule"):
        sb._row("p", "w", "table", "c", "s", "o", "reproduces", "why", "page", rule="vibes")


# -- the chapters' outcome sentences agree with the board ---------------------------------
def test_chapter_outcome_words():
    assert sb.chapter_outcome(["reproduces", "reproduces"]) == "reproduced"
    assert sb.chapter_outcome(["reproduces", "does not"]) == "reproduced in part"
    assert sb.chapter_outcome(["does not", "inconclusive"]) == "not reproduced"
    assert sb.chapter_outcome(["inconclusive", "cannot be tested here"]) == "inconclusive"


def test_chapters_state_the_outcome_of_their_board_rows(board, tmp_path):
    import json
    import shutil

    assert sb.check_chapters(board, BOOK)
    # a chapter that claims more than its rows give fails the check
    page = "sparse_cw/figure1"
    book = tmp_path / "book"
    for p in sb.CHAPTERS:
        (book / p).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(BOOK / f"{p}.ipynb", book / f"{p}.ipynb")
    nb = json.loads((book / f"{page}.ipynb").read_text())
    said = sb.chapter_sentence(BOOK, page)
    for cell in nb["cells"]:
        cell["source"] = [line.replace(f"**Outcome:** {said}", "**Outcome:** reproduced")
                          for line in cell["source"]]
    (book / f"{page}.ipynb").write_text(json.dumps(nb))
    if said != "reproduced":
        with pytest.raises(AssertionError, match="sparse_cw/figure1"):
            sb.check_chapters(board, book)


def test_every_failing_row_names_its_cause(board):
    failing = board[board["verdict"].isin(["does not", "in part"])]
    assert len(failing) > 10
    assert failing["cause"].str.startswith(sb.CAUSES).all()
    board = board.copy()
    board.loc[failing.index[0], "cause"] = ""
    with pytest.raises(AssertionError, match="no cause"):
        sb.check(board, BOOK)


def test_counts_keep_experiments_apart(board):
    every, exp, other = sb.counts(board), sb.counts(board, True), sb.counts(board, False)
    assert (exp["claims"] + other["claims"] == every["claims"]).all()
    assert other["claims"].sum() == board["kind"].isin(sb.NON_EXPERIMENTAL).sum()


def test_claims_html_fits_the_column(board):
    html = sb.claims_html(board)
    assert html.count("<details>") == len(board)
    assert "table-layout:fixed" in html and "<colgroup>" in html
    # five columns in the table (where, claim and id, paper, ours, verdict), the rest in the
    # dropdown
    assert html.count("<th>") == len(sb.HTML_COLUMNS) * board["paper"].nunique()


def test_active_trials_counts_the_trials_whose_mistakes_equal_pas():
    import pandas as pd
    from olearn.experiments.claims import active_trials

    runs = pd.read_csv(BOOK / "results" / "regularized" / "runs.csv")
    table = active_trials(runs).set_index(["stream", "learner"])
    row = table.loc[("20NG stand-in for SRAA", "L2-constrained (every round)")]
    assert row["inactive"] == 34 and row["active"] == 6 and row["reference"] == "PA"
    # a trial whose digest differs from its counterpart's is active
    changed = runs.copy()
    mask = (changed["learner"] == "L2-constrained (every round)") & (changed["trial"] == 0)
    changed.loc[mask, "mistakes_digest"] = "different"
    again = active_trials(changed).set_index(["stream", "learner"])
    assert (again["active"] >= table["active"]).all() and again["active"].sum() > table["active"].sum()


def test_positive_class_sensitivity_reruns_with_the_other_class():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        flipped = sb.flipped_folds(("Congressional",))
    from olearn.experiments import single_pass as sp
    assert sp.DATASETS["Congressional"][2] == 1            # restored after the rerun
    f1, changed = sb.positive_class_sensitivity(BOOK / "results", flipped)
    pa = f1.loc[("Congressional", "PA")]
    assert abs(pa["stored positive class"] - 87.4) < 0.1 and abs(pa["other class"] - 92.5) < 0.1
    assert set(changed.columns) == {"claim", "verdict", "with the other positive class"}


def test_figure1_diagnosis_sbcw_uses_one_group_of_frequent_words():
    """Issue 28 item 7: SBCW selects 15 groups on the Reuters stand-in, but its model weights
    one of them (frequent words, mostly negative weights) and almost never predicts positive."""
    from olearn.experiments.sparse_cw import figure1_diagnosis

    row = figure1_diagnosis("reuters", configs=((0.1, 1, 1e-3),)).iloc[0]
    assert row["groups selected"] == 15 and row["groups with weight"] == 1
    assert row["nonzero weights"] == 20
    assert row["median df, first group"] > 100 * row["median df, all features"]
    assert row["predicted positive"] < 0.05 < row["positive rate"]


def test_section_5_2_is_run_the_lowest_efs_features_are_stop_words():
    """Issue 28 item 6: Carvalho and Cohen's section 5.2, 'not run yet' before, is run."""
    words, share = sb.efs_lowest_features(n=12)
    assert len(words) == 12 and share >= 0.75
    assert {"the", "to", "have"} <= set(words)


def test_figure3_verdicts_split_active_trials():
    import pandas as pd
    from olearn.experiments.claims import figure3_verdicts

    rows = []
    for trial, (active, shift) in enumerate([(True, 0.60), (False, 0.40)]):
        for learner, pixels, s in (("PA", 50, 0.45), ("PA (mistake)", 50, 0.45),
                                   ("L2-constrained", 50, shift), ("L1-constrained", 40, shift),
                                   ("L2-constrained (every round)", 50, 0.45),
                                   ("L1-constrained (every round)", 50, 0.45)):
            rows.append({"trial": trial, "learner": learner, "half-mass pixels": pixels,
                         "shift": s, "active": active and learner.endswith("constrained")})
    v = figure3_verdicts(pd.DataFrame(rows)).set_index(["claim", "learner"])
    assert v.loc[(15, "L1 vs L2"), "all trials"] == 1.0
    assert v.loc[(16, "L2-constrained"), "all trials"] == 0.5
    assert v.loc[(16, "L2-constrained"), "active trials"] == 1.0
    assert v.loc[(16, "L2-constrained"), "n active"] == 1


# -- issue 28 items 4 and 6, second round: no claim left "not run yet", duplicates merged --
TEXT_COLUMNS = ("claim", "paper_says", "ours", "why", "cause", "alternative")


def test_no_row_is_left_not_run(board):
    for column in TEXT_COLUMNS:
        assert not board[column].str.contains("not run", case=False).any(), column

    def row(paper, start):
        hit = board[(board["paper"] == paper) & board["claim"].str.startswith(start)]
        assert len(hit) == 1, start
        return hit.iloc[0]

    ran = [row("carvalho2006single", "In preliminary experiments the Winnows"),
           row("carvalho2006single", "Blum's external regret"),
           row("shen2009regularized", "The regularized learners decrease the influence"),
           row("crammer2009arow", "AROW's mean and covariance are linear combinations")]
    for r in ran:
        assert r["verdict"] != "cannot be tested here" and r["ours"] != "—", r["claim"]
    assert row("crammer2009arow", "AROW's mean and covariance")["kind"] == "theorem"
    algorithms = board[(board["paper"] == "tan2016sparse") & (board["kind"] == "definition")]
    assert sorted(algorithms["where"].str.split(",").str[0]) == \
        ["Algorithm 1", "Algorithm 2", "Algorithm 3"]
    assert algorithms["why"].str.startswith("asserted by tests/").all()


def test_duplicate_rows_are_merged_or_quote_both_sentences(board):
    mbw = board[board["claim"].str.contains("MBW outperformed all other")]
    assert len(mbw) == 1                                  # old rows 0, 7 and 13: one row
    r = mbw.iloc[0]
    assert r["where"].startswith("Tables 4-5") and "including SVM" in r["claim"]
    assert "among Table 4's learners" in r["ours"] and "among Table 5's" in r["ours"]
    # the abstract's weaker claim stays apart and says why
    assert "judged apart" in _by_id(board, "carvalho2006:abstract:mbw-comparable-to-svm")["paper_says"]
    # Shen's claims 1 and 3 (old rows 32/33) are two claims: each row quotes both sentences
    shen = board[board["where"].isin(["Figure 1, section 4, claim 1",
                                      "Figure 1, section 4, claim 3"])]
    assert len(shen) == 2
    for says in shen["paper_says"]:
        assert "outperform PA in all three problems" in says
        assert "particularly large at the beginning" in says


def test_tested_definitions_name_tests_that_exist(board):
    board = board.copy()
    i = board.index[board["why"].str.startswith("asserted by tests/")][0]
    board.loc[i, "why"] = "asserted by tests/test_bcw.py::test_no_such_test (a failing ...)"
    with pytest.raises(AssertionError, match="no test test_no_such_test"):
        sb.theorem_pages_assert(board, BOOK)


def test_sbcw_first_group_is_eq14():
    """Tan et al.'s Algorithm 2 adds the most violated constraint of eq. (14): the r
    features of largest score s_j^2, s = sum_i alpha_i y_i x_i, at the start alpha = 1."""
    import numpy as np

    from olearn import SBCW

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 30))
    y = np.where(X[:, :5].sum(axis=1) + rng.normal(size=80) > 0, 1, -1)
    top = set(np.argsort(-np.abs(X.T @ y))[:4].tolist())
    for covariance in (True, False):
        model = SBCW(r=4, m_iter=1, tol=0, covariance=covariance).fit(X, y)
        assert set(np.asarray(model.groups_[0]).tolist()) == top


def test_winnow_steps_equals_olearn_with_both_steps_and_differs_without():
    import numpy as np

    from olearn import BalancedWinnow, ModifiedBalancedWinnow, PositiveWinnow
    from olearn.experiments import missing_claims as mc
    from olearn.experiments import single_pass as sp

    for key in ("Congressional", "WiscBreast"):
        X, y = sp.load_task(key)
        for kind, ours in (("PW", PositiveWinnow()), ("BW", BalancedWinnow()),
                           ("MBW", ModifiedBalancedWinnow())):
            ref = mc.WinnowSteps(kind).fit(X, y)
            ours.fit(X, y)
            assert np.array_equal(ref.mistakes_, np.asarray(ours.mistakes_, dtype=bool))
            assert np.array_equal(ref.predict(X), ours.predict(X))
        plain = mc.WinnowSteps("PW", augment=False, normalise=False).fit(X, y)
        assert not np.array_equal(plain.mistakes_, mc.WinnowSteps("PW").fit(X, y).mistakes_)
    with pytest.raises(ValueError, match="normalised rows"):
        mc.WinnowSteps("MBW", normalise=False).fit(X, y)
    # no overflow: a weight promoted 3000 times (1.5**3000 > 1e308) keeps its sign and order
    X = np.ones((3000, 1))
    model = mc.WinnowSteps("PW", augment=False, normalise=False, theta=1e300).fit(X, np.ones(3000))
    assert model.mistakes_[:1700].all() and not model.mistakes_[-1]
    assert model.predict(np.ones((1, 1)))[0] == 1


def test_regret_winnow_is_polynomial_weights_over_the_pool():
    import numpy as np

    from olearn import PositiveWinnow
    from olearn.experiments import missing_claims as mc
    from olearn.experiments import single_pass as sp

    X, y = sp.load_task("Congressional")
    model = mc.RegretWinnow().fit(X, y)
    losses = [PositiveWinnow(alpha=a, beta=b).fit(X, y).n_mistakes_ for a, b in mc.REGRET_POOL]
    eta = np.sqrt(np.log(len(mc.REGRET_POOL)) / len(y))
    assert np.allclose(model.weights_, (1 - eta) ** np.array(losses))
    one = mc.RegretWinnow(pool=((1.5, 0.5),)).fit(X, y)         # one expert: PW itself
    assert np.array_equal(one.predict(X), PositiveWinnow().fit(X, y).predict(X))


def test_arow_representer_matches_olearns_arow():
    import numpy as np

    from olearn.experiments import missing_claims as mc

    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 6))
    y = np.where(X @ rng.normal(size=6) + 0.5 * rng.normal(size=120) > 0, 1, -1)
    for r in (0.1, 1.0, 10.0):
        check = mc.arow_representer(X, y, r=r)
        assert check["updates"] > 20
        assert max(check["mean_diff"], check["covariance_diff"]) < 1e-10


def test_stored_missing_runs_rerun(board):
    """The quick sets of the stored section 2.2 and section 7 runs, and trial 0 of the
    influence run, rerun equal."""
    import pandas as pd

    from olearn.experiments import missing_claims as mc

    folder = BOOK / "results" / mc.FOLDER
    for name, run in (("winnow_steps", mc.winnow_steps_folds), ("regret", mc.regret_folds)):
        stored = pd.read_csv(folder / f"{name}.csv")
        keys = ["dataset", "learner", "fold"]
        now = run(mc.QUICK_SETS).sort_values(keys).reset_index(drop=True)
        part = stored[stored["dataset"].isin(mc.QUICK_SETS)].sort_values(keys)
        pd.testing.assert_frame_equal(now[keys + ["f1"]], part[keys + ["f1"]].reset_index(drop=True))
    stored = pd.read_csv(folder / "influence.csv")
    from olearn.experiments import regularized as er

    now = mc.old_influence(streams=[er.USPS], trials=[0], results=BOOK / "results")
    part = stored[(stored["stream"] == "usps") & (stored["trial"] == 0)].reset_index(drop=True)
    pd.testing.assert_frame_equal(now, part, check_exact=False, rtol=1e-9)


# -- referee 3 of the board (issue 35 section 4, second reading) ----------------------------
def _share(h, n, quantifier):
    """The share a quantifier asks for, written from VERDICT_MEANINGS, not from the code."""
    if quantifier == "all":
        return h == n
    if quantifier == "most":
        return 2 * h > n
    return h >= n - max(1, int(sb.ALMOST_ALL_SHARE * n))


def _in_part(h, n, quantifier):
    return {"all": h > 0, "most": 2 * h == n, "almost": 2 * h > n}[quantifier]


def test_verdict_meanings_are_what_the_quantifiers_compute():
    """The sentences of VERDICT_MEANINGS (shown on the scoreboard page) against all_cases,
    most_cases and almost_all_cases on every count of held, tied and failed cases up to 12:
    reproduces = the share reached; inconclusive = missed, reached with the ties; in part /
    does not = missed even with the ties, with enough / too few holding cases."""
    H, T, F = sb.HOLDS, sb.TIE, sb.FAILS
    functions = {"all": sb.all_cases, "most": sb.most_cases, "almost": sb.almost_all_cases}
    for q, function in functions.items():
        for n in range(1, 13):
            for h in range(n + 1):
                for t in range(n - h + 1):
                    f = n - h - t
                    got = function([H] * h + [T] * t + [F] * f)
                    want = ("reproduces" if _share(h, n, q) else
                            "inconclusive" if _share(h + t, n, q) else
                            "in part" if _in_part(h, n, q) else "does not")
                    assert got == want, (q, h, t, f, str(got), want)
    # the cases the referee found: 'does not' with holding cases, 'inconclusive' with failing
    assert sb.most_cases([H, F, F]) == "does not"
    assert sb.most_cases([H, T, T, F]) == "inconclusive"
    for verdict in sb.VERDICTS:
        assert verdict in sb.VERDICT_MEANINGS
    text = sb.VERDICT_MEANINGS["does not"] + sb.VERDICT_MEANINGS["inconclusive"]
    assert "may hold" in text and "may fail" in text


def test_paired_interval_is_the_one_noise_test():
    import numpy as np
    from scipy import stats

    from olearn.experiments import corrected_resampled_t

    d = np.array([1.0, 2.0, 0.5, 1.5, 1.0])
    m, h = sb.paired_interval(d)
    assert m == pytest.approx(1.2)
    assert h == pytest.approx(stats.t.ppf(0.975, 4) * d.std(ddof=1) / np.sqrt(5))
    # the folds of one cross-validation: Nadeau and Bengio's factor, n_test/n_train read from
    # the number of folds (1/4 for 5), the same numbers as corrected_resampled_t
    assert sb.cv_test_to_train(5) == pytest.approx(0.25) and sb.cv_test_to_train(10) == pytest.approx(1 / 9)
    mc, hc = sb.cv_interval(d)
    assert mc == m and hc == pytest.approx(h * np.sqrt(1 + 5 / 4))
    assert (mc, hc) == pytest.approx(corrected_resampled_t(d, test_to_train=0.25)[:2])
    assert sb.beats(*sb.paired_interval(d - 0.35)[:1], half=sb.paired_interval(d - 0.35)[1]) == sb.HOLDS
    assert sb.beats(*sb.cv_interval(d - 0.35)[:1], half=sb.cv_interval(d - 0.35)[1]) == sb.TIE
    assert sb.paired_interval([2.0, 2.0, 2.0]) == (2.0, 0.0)    # no spread: the point itself
    with pytest.raises(ValueError, match="at least 2 folds"):
        sb.cv_test_to_train(1)
    # the rule is stated where the book states the rules
    for words in ("cross-validation", "1/(k - 1)", "Nadeau and Bengio", "Bouckaert and Frank",
                  "independent trials", "permutations"):
        assert words in sb.NOISE_RULE, words
    assert "noise rule" in sb.RULES["beats"].tolerance
    assert sb.beats(m, half=h) == sb.HOLDS and sb.beats(-0.1, half=h) == sb.TIE
    m, h = sb.unpaired_interval(2.771, 0.2, 3.5, 0.3, 20)
    assert m == pytest.approx(-0.729) and h == pytest.approx(stats.t.ppf(0.975, 19) * np.sqrt(0.13 / 20))
    # over the folds of a cross-validation the same fold ratio as cv_interval
    _, hc = sb.unpaired_interval(2.771, 0.2, 3.5, 0.3, 5, test_to_train=0.25)
    assert hc == pytest.approx(stats.t.ppf(0.975, 4) * np.sqrt(0.13 * (1 / 5 + 1 / 4)))
    with pytest.raises(ValueError, match="test_to_train"):
        sb.unpaired_interval(1.0, 0.1, 0.0, 0.1, 5, test_to_train=-1)
    # referee 22 (round 2), finding 4: the rule says what each interval covers
    for words in ("a new draw of the data", "another split of the same pool",
                  "published mean +- spread"):
        assert words in sb.NOISE_RULE, words
    with pytest.raises(ValueError, match="at least two"):
        sb.paired_interval([1.0])


def test_fold_rows_use_the_corrected_interval():
    """Carvalho and Cohen's rows (folds of one cross-validation) get the corrected interval
    (board fold_change, missing_claims.paired_changes); the other papers' units (trials,
    permutations, orders) keep the plain one."""
    import inspect

    import numpy as np
    import pandas as pd

    from olearn.experiments import missing_claims as mc
    from olearn.experiments.board import carvalho2006 as cc

    rng = np.random.default_rng(3)
    folds = pd.DataFrame([{"dataset": k, "learner": n, "fold": f, "f1": rng.normal(50, 5)}
                          for k in ("a", "b") for n in ("x", "y") for f in range(5)])
    wide = folds.pivot_table(index=["dataset", "fold"], columns="learner", values="f1")
    change = (wide["x"] - wide["y"]).groupby(level="fold").mean().to_numpy()
    assert cc.fold_change(folds, ["a", "b"], "x", "y") == pytest.approx(sb.cv_interval(change))
    one = wide.loc["a"]
    got = mc.paired_changes(folds, [("p", "x", "y")]).set_index("dataset").loc["a"]
    assert (got["change"], got["half"]) == pytest.approx(sb.cv_interval((one["x"] - one["y"]).to_numpy()))
    # the other board modules never read folds through a corrected interval: their units draw
    # their noise afresh (the plain paired_interval, no test_to_train)
    for name in ("shen2009", "crammer2009", "tan2016", "zhao2009"):
        source = inspect.getsource(sb._module(name))
        assert "cv_interval" not in source and "test_to_train" not in source, name


def test_voting_on_nlp_inside_the_corrected_fold_noise(board):
    """Referee 18, finding 2: with the corrected fold interval MBW's NLP rise (+1.7) is inside
    the noise, so no condition of the NLP voting row is decided: inconclusive (it was 'in
    part' under the plain t-interval)."""
    r = _by_id(board, "carvalho2006:4.3.2:voting-on-nlp")
    assert r["verdict"] == "inconclusive" and r["ours_key"] == "0 of 3 conditions (3 tied)"
    assert "MBW +1.7±2.0" in r["ours"] and r["cause"] == ""
    w = _by_id(board, "carvalho2006:7:voting-improves-winnows")
    assert w["verdict"] == "inconclusive" and w["ours_key"] == "1 of 5 conditions (4 tied)"


def test_conditions_keep_a_tie_a_tie():
    assert sb.conditions(sb.HOLDS, sb.TIE) == "inconclusive"
    assert sb.conditions(sb.beats(0.45, 0.0), True).key == "1 of 2 conditions (1 tied)"
    assert sb.conditions(True, False) == "in part"


def test_referee3_rows(board):
    # 1: the DUOL paper's own intervals (mean +- std over 20 runs): its outcome reproduces
    r = _by_id(board, "zhao2009:4.2:duol-fewest-mistakes")
    assert r["verdict"] == "reproduces" and r["paper_verdict"] == "reproduces"
    assert "paired difference" in r["why"] and "significantly" in r["claim"]
    # 2: Tan PA vs BCW by the paired noise rule over the stored orders
    r = _by_id(board, "tan2016:5:pa-less-accurate-than-bcw")
    assert r["verdict"] == "in part" and r["ours_key"] == "3 of 5 sets (1 tied)"
    assert "orders" in r["ours"]
    # 3: Figure 3 by the beats rule over the 40 trials
    assert _by_id(board, "shen2009:4:l1-fewer-large-weights")["verdict"] == "reproduces"
    assert _by_id(board, "shen2009:4:regularized-weights-make-sense")["verdict"] == "inconclusive"
    # 8: the paper's verdicts on its own sets are not counted as agreement on ours
    for id in ("tan2016:5:bcw-fastest-and-comparable", "tan2016:5:bcw-much-faster-than-second-order",
               "tan2016:5:bcw-faster-than-dcd", "tan2016:5:pa-less-accurate-than-bcw"):
        r = _by_id(board, id)
        assert r["paper_verdict"] == "" and r["paper_key"].startswith("on the paper's own sets")
    assert sb.agreement(board).loc["tan2016sparse", "with the paper's own outcome"] == 0
    # 9: comparable over every budget (the sentence has no 'most')
    r = _by_id(board, "carvalho2006:abstract:efs-comparable-to-ig-chi")
    assert r["verdict"] == "in part" and r["ours_key"] == "17 of 21 budgets"
    # 11: 'comparable' time is the factor of the comparable rule
    assert _by_id(board, "tan2016:5:sbcw-speed-comparable-or-better")["rule"] == "comparable"
    # 13: a batch win inside the tolerance is a tie, not a failure
    assert _by_id(board, "carvalho2006:5.3:reuters-only-batch-wins")["ours_key"] == "1 of 4 conditions (1 tied)" \
        or "tied" in _by_id(board, "carvalho2006:5.3:reuters-only-batch-wins")["ours_key"]
    # 14: no cause that no experiment supports
    assert not board["cause"].str.contains("implementation-dependent").any()
    # 18: Table 2 of AROW is not a measurement, not 'data we do not have'
    assert _by_id(board, "crammer2009:5.1:properties-table")["rule"] == "not measured"


def test_stated_rules_match_the_code(board):
    """Each row's stated rule ("why") against the code that judges it: every tolerance the text
    states in points is POINTS; Shen's numbered claims, driven by numbers at the boundaries
    the text states, give what the text says (item 7 of the referee's report)."""
    import re

    for _, row in board.iterrows():
        for value in re.findall(r"(\d+(?:\.\d+)?) points?\b", row["why"]):
            if "F1 drops of over" in row["why"]:
                continue                       # a count's definition, not a tolerance
            assert float(value) == sb.POINTS, (row["id"], value, row["why"])
    shen = sb._module("shen2009")
    rules = shen.SHEN_RULES
    # claim 6, 'competitive': within POINTS of zero holds, beyond fails
    assert f"within {sb.POINTS:g} point" in rules[6]
    assert shen._shen_judge(6, "L2 minus L1: a: +0.90±0.10") == "reproduces"
    assert shen._shen_judge(6, "L2 minus L1: a: +1.10±0.10") == "does not"
    # claim 13, 'much worse': the interval above zero (not above 1 point)
    assert "above zero" in rules[13] and "1 point" not in rules[13]
    assert shen._shen_judge(13, "a: +0.50±0.30 / +0.50±0.30") == "reproduces"
    # claim 8 has a stated rule of its own
    assert 8 in rules and f"{sb.POINTS:g} point" in rules[8]
    assert shen._shen_judge(8, "x (y): a: 0.90, 0.20") == "reproduces"
    assert shen._shen_judge(8, "x (y): a: 1.10, 0.20") == "in part"
    # claim 3, per trial: the gap at round 100 above zero and its change below zero, each by
    # the paired interval (no tolerance); a change the other way fails even with a tied gap
    assert "paired difference over the 40 trials" in rules[3] and "1 point" not in rules[3]
    assert shen._shen_judge(3, "a: +2.00±0.50 / +0.50±0.20 / -1.50±0.60") == "reproduces"
    assert shen._shen_judge(3, "a: +2.00±0.50 / +0.50±0.20 / -1.50±1.60") == "inconclusive"
    assert shen._shen_judge(3, "a: +2.00±2.50 / +3.50±0.20 / +1.50±0.60") == "does not"
    assert shen._shen_judge(3, "a: -2.00±0.50 / -2.50±0.20 / -0.50±0.30; "
                               "b: +2.00±0.50 / +0.50±0.20 / -1.50±0.60") == "in part"
    # the trend rule's row says what trend() does
    r = _by_id(board, "carvalho2006:5.2:error-falls-with-p")
    assert "the last below the first" in r["why"]


def test_chapter_check_fails_on_an_omitted_row_or_a_count_in_words(board, tmp_path):
    import json
    import shutil

    page = "duol/reproduction"
    book = tmp_path / "book"
    for p in sb.CHAPTERS:
        (book / p).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(BOOK / f"{p}.ipynb", book / f"{p}.ipynb")
    assert not sb.chapter_problems(board, book, page)
    rows = sb.chapter_rows(board, page)
    failing = rows[rows["verdict"].isin(["does not", "in part"])]["id"].str.split(":").str[2]
    assert len(failing)
    nb = json.loads((book / f"{page}.ipynb").read_text())
    for cell in nb["cells"]:
        cell["source"] = [line.replace(failing.iloc[0], "a-row").replace(
            "board rows:", "most board rows:") for line in cell["source"]]
    (book / f"{page}.ipynb").write_text(json.dumps(nb))
    problems = " ".join(sb.chapter_problems(board, book, page))
    assert failing.iloc[0] in problems and "counts in words (most)" in problems
    with pytest.raises(AssertionError, match="duol/reproduction"):
        sb.check_chapters(board, book)
    assert sb.chapter_tally(["reproduces", "does not", "does not", "inconclusive"]) == \
        "board rows: 1 reproduces, 2 do not, 1 inconclusive"


def test_claim13_every_round_reading_is_judged_per_stream():
    """Claim 13 (L1 unstable at few features): the every-round numbers of the claims table are
    judged by the row's rule, per named stream; the reading is the row's other reading (with *)
    exactly when its verdict differs from the row's (referee 33, finding 1; referee 34)."""
    from olearn.experiments.board import shen2009 as s
    ours = ("L1 minus L2 at sigma/s0 = 0.9 (fewest features), paper's update / every round: "
            "USPS: +1.00±0.20 / +2.00±0.50; 20NG: +0.10±0.20 / -0.05±0.10")
    v, text = s._every_round_l1_minus_l2(ours)
    assert v != "reproduces"                      # the second stream is a tie
    assert "USPS: +2.00±0.50 (holds)" in text and "20NG: -0.05±0.10 (a tie)" in text
    v2, _ = s._every_round_l1_minus_l2(ours.replace("-0.05±0.10", "+0.50±0.10"))
    assert v2 == "reproduces"
    row = {"verdict": "does not", "alternative": "", "why": "rule"}
    s._every_round_reading(row, v2, "x")
    assert row["alternative"] and row["why"] == "rule"
    row = {"verdict": v2, "alternative": "", "why": "rule"}
    s._every_round_reading(row, v2, "x")
    assert not row["alternative"] and "gives the same verdict" in row["why"]
