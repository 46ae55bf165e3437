"""olearn.experiments.scoreboard: the claims of the five papers and their verdicts."""
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
    return sb.scoreboard(BOOK / "results", l1_seconds=[1.0])   # no timing in the unit test


def test_board_covers_the_five_papers_and_links_pages_of_the_book(board):
    assert sb.check(board, BOOK)
    assert sb.theorem_pages_assert(board, BOOK)
    counts = sb.counts(board)
    assert list(counts.index) == list(sb.PAPERS)
    assert (counts["claims"] == counts[list(sb.VERDICTS)].sum(axis=1)).all()
    assert (counts["claims"] >= 3).all()


def test_headline_verdicts_from_the_stored_runs(board):
    by = board.set_index(["paper", "where"])
    # BCW-L1 is faster than the fastest second-order learner on 3 of the 5 stored sets
    row = by.loc[("tan2016sparse", "Table 2, section 5")]
    assert row["verdict"] == "in part" and "3 of 5" in row["ours"]
    # MBW's NLP rank 3.33 against the SVM's 1.33
    row = by.loc[("carvalho2006single", "Table 5, abstract")]
    assert row["verdict"] == "does not" and "MBW 3.33, SVM 1.33" in row["ours"]
    assert by.loc[("shen2009regularized", "section 5, claim 1"), "verdict"] == "does not"


def test_theorem_check_fails_when_the_page_stops_asserting(board, tmp_path):
    import shutil

    book = tmp_path / "book"
    for page in board.loc[board["kind"] == "theorem", "page"].unique():
        (book / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(BOOK / f"{page}.ipynb", book / f"{page}.ipynb")
    (book / "arow" / "bound.ipynb").write_text('{"cells": [], "metadata": {}}')
    with pytest.raises(AssertionError, match="arow/bound no longer uses arow_bound"):
        sb.theorem_pages_assert(board, book)
