"""The book's bookkeeping modules: olearn.experiments.duol_baselines, .first_order, .claims."""
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from olearn.experiments import claims, duol_baselines as db, first_order as fo
from olearn.experiments import regularized as er


def test_duol_transcription_is_consistent():
    # kernel Perceptron and ROMMA update only on mistakes: SVs / n = mistake rate
    assert db.check_transcription()
    broken = {k: dict(v) for k, v in db.DUOL_PAPER.items()}
    broken["splice"]["ROMMA"] = (25.0,) + broken["splice"]["ROMMA"][1:]
    saved, db.DUOL_PAPER = db.DUOL_PAPER, broken
    try:
        with pytest.raises(AssertionError):
            db.check_transcription()
    finally:
        db.DUOL_PAPER = saved


def test_empty_rows_dense_and_sparse():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]])
    assert db.empty_rows(X) == 2
    assert db.empty_rows(sp.csr_matrix(X)) == 2
    assert db.empty_rows(sp.csr_matrix(np.eye(3))) == 0


def test_preprocess_gives_unit_rows_in_the_box():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4)) * [1, 10, 100, 1000]
    Z = db.preprocess(X)
    np.testing.assert_allclose(np.linalg.norm(Z, axis=1), 1.0)
    assert np.abs(Z).max() <= 1.0


def test_paper_vs_ours_deviation_is_ours_minus_paper():
    summary = pd.DataFrame({"mistake_rate_mean": [0.30, 0.40], "mistake_rate_std": [0.01, 0.02],
                            "n_updates_mean": [10.0, 20.0]}, index=pd.Index(["PA-I", "NORMA"], name="learner"))
    table = db.paper_vs_ours({"german.numer": summary})
    row = table.loc[("german.numer", "PA-I")]
    assert row["paper, kernel (%)"] == 33.670
    assert row["deviation (points)"] == pytest.approx(30.0 - 33.670)
    assert np.isnan(table.loc[("german.numer", "NORMA"), "paper, kernel (%)"])   # not in the paper


def test_voting_splits_are_disjoint_and_cover_the_data():
    X, y = np.arange(23.0).reshape(-1, 1), np.arange(23) % 2
    tests = []
    for task in range(fo.N_FOLDS):                      # the 5 folds of repetition 0
        X_train, _, X_test, _ = fo.split(task, X, y, None, None)
        assert not set(X_train.ravel()) & set(X_test.ravel())
        assert len(X_train) + len(X_test) == 23
        tests.extend(X_test.ravel())
    assert sorted(tests) == list(range(23))
    # with a test file: the whole training file, permuted, and the test file unchanged
    X_train, _, X_test, _ = fo.split(3, X, y, X[:5], y[:5])
    assert sorted(X_train.ravel()) == list(range(23)) and len(X_test) == 5


def test_chapter_learners_are_the_stored_labels():
    labels = set(fo.chapter_learners(1.0, 0.01))
    assert labels == {"Perceptron", "ROMMA", "agg-ROMMA", "ALMA2(0.9)", "NORMA", "PA-I", "PA-II"}


def test_half_mass_pixels_and_verdicts():
    assert claims.half_mass_pixels(np.array([4.0, 1.0, 1.0, 1.0, 1.0])) == 1
    assert claims.half_mass_pixels(np.ones(10)) == 5
    assert claims._verdict([True, True]) == "yes"
    assert claims._verdict([True, False]) == "partly"
    assert claims._verdict([False]) == "no"


def test_curve_interpolation_is_log_linear_and_nan_outside():
    frame = pd.DataFrame({"stream": "s", "method": "m", "n_features_mean": [10.0, 1000.0],
                          "test_error_mean": [0.2, 0.4]})
    assert claims.error_at(frame, "s", "m", 100.0) == pytest.approx(0.3)
    assert np.isnan(claims.error_at(frame, "s", "m", 5000.0))


def test_headline_labels_are_the_papers_learners():
    for label in er.REGULARIZED:
        estimator, _ = er.GRIDS[label]
        assert estimator.update_on == "mistake"
        assert er.GRIDS[label + er.EVERY_ROUND][0].update_on == "round"
    assert set(er.FIGURE1) == {"PA", "NORMA", *er.REGULARIZED}
    assert "sraa" not in er.FILE_KEYS.values() and "standin" in er.FILE_KEYS[er.SRAA_STAND_IN]


def test_best_learners_reads_the_minimum_of_each_column():
    from olearn.experiments import first_order as fo

    means = pd.DataFrame({"a": [3.0, 2.0, 1.0], "b": [1.0, 2.0, 3.0]}, index=["P", "Q", "NORMA"])
    paper = pd.DataFrame({"a": [1.0, 2.0], "b": [2.0, 1.0]}, index=["P", "Q"])
    best = fo.best_learners(means, paper)
    assert list(best["best in the paper (kernel)"]) == ["P", "Q"]
    assert list(best["best of the paper's learners, ours (linear)"]) == ["Q", "P"]
    assert list(best["best of all 3 learners, ours"]) == ["NORMA", "P"]


def test_provenance_table_one_row_per_stored_run():
    from olearn.experiments.runner import provenance_table

    p = {"git_commit": "a" * 40, "git_dirty": False, "date_utc": "2026-11-23T09:34:45+00:00",
         "n_permutations": 20, "quick_mode": False, "olearn_version": "0.1.0",
         "versions": {"numpy": "2", "numba": "0.6"}}
    table = provenance_table({"x": p, "y": dict(p, git_dirty=True, seconds=120.0)})
    assert list(table.index) == ["x", "y"]
    assert table.loc["x", "commit"] == "a" * 40 and table.loc["x", "run (UTC)"] == "2026-11-23 09:34"
    assert table.loc["y", "uncommitted changes"] and table.loc["y", "minutes"] == 2.0
    assert np.isnan(table.loc["x", "minutes"]) and table.loc["x", "permutations"] == 20


def test_claims_criteria_and_styled_table():
    table = claims.criteria_table()
    assert len(table) == len(claims.CRITERIA_TERMS) and table.index.name == "the claim says"
    # "similar" is the board's one tolerance (referee 3 of the board, item 6)
    from olearn.experiments.scoreboard import POINTS

    assert f"within {POINTS:g} percentage point" in claims.CRITERIA
    assert "0.5" not in claims.CRITERIA
    shown = pd.DataFrame({"claim": ["c"], "ours": ["USPS: 1; 20NG: 2"], "agree": ["no"]})
    html = claims.styled(shown, breaks=["ours"]).to_html()
    assert "USPS: 1<br>20NG: 2" in html and "text-align: left" in html
    assert list(shown["ours"]) == ["USPS: 1; 20NG: 2"]          # the table itself is unchanged


def test_l1_timing_table_one_row_per_radius():
    from olearn import L1ConstrainedPA

    X = np.eye(4)
    y = np.array([1, -1, 1, -1])
    timed = {2.0: (0.5, L1ConstrainedPA(2.0).fit(X, y)), 8.0: (0.25, L1ConstrainedPA(8.0).fit(X, y))}
    table = claims.l1_timing_table(timed)
    assert list(table.index) == [2.0, 8.0] and (table["rows"] == 4).all()
    assert table.loc[8.0, "seconds"] == 0.25 and table.loc[2.0, "columns"] == 4
    assert table.loc[2.0, "mistakes"] == timed[2.0][1].n_mistakes_


def test_styled_html_is_reproducible():
    shown = pd.DataFrame({"a": ["x; y"]})
    assert claims.styled(shown, ["a"]).to_html() == claims.styled(shown.copy(), ["a"]).to_html()
    assert claims.styled(shown).to_html() != claims.styled(pd.DataFrame({"a": ["z"]})).to_html()


def test_regularized_settings_tables():
    settings = er.settings()
    grids = er.grid_table(settings)
    assert list(grids.index) == list(er.GRIDS)
    assert (grids["size"] == [len(grid) for _, grid in er.GRIDS.values()]).all()
    assert grids.loc["PA", "grid"] == "-" and grids.loc["NORMA", "grid"].count("; ") == 1
    fs = er.feature_selection_table(settings)
    assert list(fs.index) == [er.SHORT_NAMES[n] for n in er.STREAMS]
    assert fs.loc["USPS", "k, game"] == ", ".join(str(k) for k in er.K_GRIDS[er.USPS][1])


def test_regularized_comparison_table_flags_a_difference():
    runs = pd.DataFrame({"stream": [er.USPS, er.USPS, er.NEWSGROUPS], "same": [True, True, True]})
    fig2 = pd.DataFrame({"stream": [er.USPS, er.NEWSGROUPS], "same": [True, False]})
    table = er.comparison_table(runs, fig2)
    assert table.loc["USPS", "tuned runs"] == 2 and table.loc["USPS", "all equal the stored run"]
    assert not table.loc["20NG", "all equal the stored run"]


def test_styled_plain_text_is_stable():
    shown = pd.DataFrame({"a": ["x", "y"]})
    assert repr(claims.styled(shown)) == "<HTML table: 2 rows x 1 columns>"
