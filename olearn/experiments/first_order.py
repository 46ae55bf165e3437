"""Bookkeeping of the book's first-order part (ROMMA, ALMA, NORMA and voting).

What the pages would otherwise repeat: the chapter's seven learners, the choice of NORMA's
``(eta, lam)`` on two training streams outside the experiment, and the single-pass voting
study of Carvalho and Cohen (CMU-LTI-06-002, 2006): its data sets, train/test splits, one
task, and the paper's F1 numbers (Tables 4 and 5). The mistake-rate experiment uses
:mod:`olearn.experiments.duol_baselines`.
"""
import numpy as np
import pandas as pd
from sklearn.preprocessing import MaxAbsScaler, Normalizer

from . import single_pass as _sp
from .duol_baselines import stream_of

#: the grid of NORMA's (eta, lam), rho = 1, constant step
NORMA_GRID = [(eta, lam) for eta in (0.1, 0.5, 1.0, 2.0) for lam in (1e-4, 1e-3, 1e-2, 1e-1)]
#: training streams on which NORMA's parameters are chosen (not in the mistake-rate experiment)
NORMA_TUNING_STREAMS = ("svmguide1", "usps-3-vs-5")


def choose_norma(grid=None):
    """Mean online mistake rate of NORMA over permutation 0 of the two tuning streams for
    every ``(eta, lam)`` of ``grid`` (default :data:`NORMA_GRID`, the chapter's); returns
    ``(grid table, eta, lam)`` of the smallest mean (ties: the first in the grid's order)."""
    from ..linear.norma import NORMA

    streams = {name: stream_of(name) for name in NORMA_TUNING_STREAMS}
    grid = pd.DataFrame([{"eta": eta, "lam": lam,
                          **{name: NORMA(eta=eta, lam=lam).fit(X, y).n_mistakes_ / len(y)
                             for name, (X, y) in streams.items()}}
                         for eta, lam in (NORMA_GRID if grid is None else grid)])
    grid["mean"] = grid[list(streams)].mean(axis=1)
    best = grid.loc[grid["mean"].idxmin()]
    return grid, float(best["eta"]), float(best["lam"])


def chapter_learners(norma_eta, norma_lam):
    """The seven learners of the part, labelled as in the stored results."""
    from ..linear.alma import ALMA
    from ..linear.norma import NORMA
    from ..linear.pa import PA
    from ..linear.perceptron import Perceptron
    from ..linear.romma import ROMMA, AggressiveROMMA

    return {"Perceptron": Perceptron(), "ROMMA": ROMMA(), "agg-ROMMA": AggressiveROMMA(),
            "ALMA2(0.9)": ALMA(p=2, alpha=0.9), "NORMA": NORMA(eta=norma_eta, lam=norma_lam),
            "PA-I": PA(C=5.0, variant="PA-I"), "PA-II": PA(C=5.0, variant="PA-II")}


# -- the voting study ----------------------------------------------------------------------
VOTING_SETS = pd.DataFrame([
    ("adult-single-pass", "Adult", "non-NLP", False),
    ("crx-single-pass", "Credit", "non-NLP", False),
    ("breast-cancer-wisconsin-single-pass", "Wisc", "non-NLP", False),
    ("house-votes-84-single-pass", "Congress", "non-NLP", False),
    ("nursery-priority", "Nursery", "non-NLP", False),
    ("reuters21578-money-fx", "Reuters", "NLP-like", False),
    ("movie_review_polarity", "MovieReviews", "NLP-like", False),
    ("20newsgroups-comp-vs-rest-5000", "20newsgroup", "NLP-like", False),
    ("w7a", None, "extra", True),
    ("svmguide1", None, "extra", True),
    ("usps-3-vs-5", None, "extra", True),
], columns=["dataset", "paper_name", "group", "test_file"]).set_index("dataset")
N_FOLDS = 5

#: Carvalho and Cohen (2006), F1 (%): Table 4 (PA, v-PA, ROMMA, v-ROMMA) and Table 5
#: (v-Perceptron), read from the single-pass chapter's copy of the tables (one copy of the
#: paper's numbers), with this page's data-set names.
CC_PAPER = (pd.concat([_sp.PAPER_TABLE4[["PA", "v-PA", "ROMMA", "v-ROMMA"]],
                       _sp.PAPER_TABLE5[["v-Perceptron"]]], axis=1)
            .rename(index={"Congressional": "Congress", "WiscBreast": "Wisc"}))
CC_ORDER = ["Reuters", "20newsgroup", "MovieReviews", "Adult", "Congress", "Credit", "Wisc", "Nursery"]


def display_names():
    """Data set -> the paper's name (our name for the extra sets)."""
    return {n: (p if isinstance(p, str) else n) for n, p in VOTING_SETS["paper_name"].items()}


def split(task, X, y, X_test, y_test, n_folds=N_FOLDS):
    """Training part (in the order it is presented) and test part of task ``task``:
    with a test file, permutation ``task`` of the training file; otherwise fold
    ``task % n_folds`` of the folds of permutation ``task // n_folds``."""
    if X_test is not None:
        order = np.random.default_rng([0, task]).permutation(len(y))
        return X[order], y[order], X_test, y_test
    order = np.random.default_rng([0, task // n_folds]).permutation(len(y))
    folds = np.array_split(order, n_folds)
    train = np.concatenate([fold for j, fold in enumerate(folds) if j != task % n_folds])
    test = folds[task % n_folds]
    return X[train], y[train], X[test], y[test]


def voting_task(name, task, X, y, X_test, y_test, learners):
    """One pass of ``Averaged(learner)`` per learner on the training part of ``task``; the
    confusion counts of the last and of the averaged hypothesis on the test part."""
    from ..linear.averaged import Averaged

    X_train, y_train, X_eval, y_eval = split(task, X, y, X_test, y_test)
    scaler = MaxAbsScaler().fit(X_train)
    X_train = Normalizer().transform(scaler.transform(X_train))
    X_eval = Normalizer().transform(scaler.transform(X_eval))
    positive = np.unique(y)[1]
    truth = y_eval == positive
    rows = []
    for label, learner in learners.items():
        voted = Averaged(learner).fit(X_train, y_train)
        for version, model in (("last", voted.learner_), ("voted", voted)):
            predicted = model.predict(X_eval) == positive
            rows.append({"dataset": name, "task": task, "learner": label, "version": version,
                         "tp": int(np.sum(predicted & truth)), "fp": int(np.sum(predicted & ~truth)),
                         "fn": int(np.sum(~predicted & truth)), "tn": int(np.sum(~predicted & ~truth)),
                         "n_train": len(y_train), "n_train_mistakes": int(voted.n_mistakes_)})
    return rows


def f1_by_pair(voting):
    """Mean test F1 of the last and voted hypotheses per (data set, learner), the mean gain,
    its 95% half-width and p-value, and a verdict (``p <= 0.05``).

    The test is :func:`olearn.experiments.runner.corrected_resampled_t` on the per-task
    gains. On the sets without a test file the tasks are repeated 5-fold cross-validation on
    overlapping training rows: Nadeau and Bengio's correction with ``test_to_train``, the
    mean ratio of test to training rows over the tasks (read from the confusion counts and
    ``n_train``). On the sets with a test file every task trains on the same file in another
    order and tests on the same test file: the plain t-test (``test_to_train = 0``), whose
    interval covers the order noise on these two files only."""
    from .runner import corrected_resampled_t

    voting = voting.assign(f1=2 * voting["tp"] / (2 * voting["tp"] + voting["fp"] + voting["fn"]),
                           n_test=voting[["tp", "fp", "fn", "tn"]].sum(axis=1))
    f1 = voting.pivot_table(index=["dataset", "learner", "task"], columns="version",
                            values=["f1", "n_test", "n_train"]).reset_index()
    f1 = pd.DataFrame({"dataset": f1["dataset"], "learner": f1["learner"], "task": f1["task"],
                       "last": f1[("f1", "last")], "voted": f1[("f1", "voted")],
                       "ratio": f1[("n_test", "last")] / f1[("n_train", "last")]})
    f1["gain"] = f1["voted"] - f1["last"]
    rows = []
    for (name, learner), part in f1.groupby(["dataset", "learner"], sort=False):
        ratio = 0.0 if VOTING_SETS.loc[name, "test_file"] else float(part["ratio"].mean())
        _, half, p = corrected_resampled_t(part["gain"].to_numpy(), test_to_train=ratio)
        rows.append({"dataset": name, "learner": learner, "last": part["last"].mean(),
                     "voted": part["voted"].mean(), "gain": part["gain"].mean(),
                     "half": half, "p": p, "test_to_train": ratio})
    by_pair = pd.DataFrame(rows)
    by_pair["group"] = by_pair["dataset"].map(VOTING_SETS["group"])
    significant = by_pair["p"] <= 0.05
    by_pair["verdict"] = np.select([significant & (by_pair["gain"] > 0),
                                    significant & (by_pair["gain"] < 0)],
                                   ["voted better", "voted worse"], "no significant difference")
    return by_pair


def best_learners(means, paper_means):
    """Per data set, the learner with the lowest mean mistake rate: in the paper's tables,
    among ours restricted to the paper's learners, and among all of ours.

    ``means`` and ``paper_means`` are mistake rates with one row per learner and one column
    per data set (``paper_means`` has the paper's learners only).
    """
    shared = [label for label in paper_means.index if label in means.index]
    table = pd.DataFrame({"best in the paper (kernel)": paper_means.idxmin(),
                          "best of the paper's learners, ours (linear)": means.loc[shared].idxmin(),
                          f"best of all {len(means)} learners, ours": means.idxmin()})
    table.index.name = "dataset"
    return table
