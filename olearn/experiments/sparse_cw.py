"""Protocols of Tan et al. (AAAI 2016), "Learning sparse confidence-weighted
classifier on very high dimensional data": Table 2 (BCW against online
learners and DCD) and Figure 1 (SBCW against feature-selection baselines).

Table 2 (paper: covtype 450k, epsilon 50k / full; neither is available here)
    Stand-ins (MANIFEST): adult in the a9a coding (adult.data / adult.test,
    123 binary features), w7a / w7a.t, USPS 3 vs 5 (zip.train / zip.test),
    MNIST-10k 3 vs 5 (70/30 stratified split, seed 0), and a synthetic stream
    with covtype's shape (581,012 x 54, 12 nonzeros a row, 450,000 train /
    131,012 test) for timing.  Each learner's hyper-parameters are chosen by
    5-fold cross-validation on the training part (on a 20,000-row sample for
    the synthetic stream), then it is trained on 10 random orders of the
    training part and tested on the test part.  Online learners make one pass;
    BCW takes the training part as one batch (the paper's setting).
Figure 1 (paper: real-sim, rcv1, astro-ph, URL; not available here)
    Stand-ins: 20 Newsgroups (bydate split, comp.* against the other
    groups, tf-idf unigrams), Reuters-21578 (LEWISSPLIT, topic "acq" against
    the other stories with a topic, tf-idf unigrams) and movie reviews
    (70/30 stratified split, seed 0, tf-idf unigrams and bigrams).  Accuracy
    and training time against the number of selected features.
"""
import math
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import GridSearchCV, KFold, train_test_split
from sklearn.svm import LinearSVC

from .. import datasets
from ..linear import PA
from ..second_order._sbcw_spardca import SparDCA
from ..second_order._sofs import SOFS
from ..second_order.bcw import BCW
from ..second_order.sbcw import SBCW
from .runner import git_commit, git_dirty, quick_mode

# -- the paper's numbers --------------------------------------------------------
#: Table 2 of the paper: (test error mean, std, time in s); BCW times are
#: "Sigma time (pass time)"; std None where the paper gives none.
PAPER_TABLE2 = pd.DataFrame([
    ("AROW", 0.2461, 0.0000, "21.72", 0.1105, 0.0004, "3506.0"),
    ("CW", 0.4330, 0.0335, "19.13", 0.1522, 0.0023, "3405.1"),
    ("NAROW", 0.3703, 0.0352, "22.05", 0.1423, 0.0019, "3468.6"),
    ("PA", 0.3443, 0.0433, "13.87", 0.1751, 0.0221, "5.77"),
    ("SCW", 0.2382, 0.0003, "20.75", 0.1136, 0.0003, "3381.4"),
    ("SCW2", 0.2964, 0.0159, "20.40", 0.1126, 0.0004, "3452.7"),
    ("SOP", 0.4653, 0.0298, "20.77", 0.3705, 0.0522, "3511.6"),
    ("DCD", 0.2460, None, "29.85", 0.1102, None, "2.62"),
    ("BCW-L1", 0.2402, 0.0003, "0.41(0.06)", 0.1093, 0.0000, "5.73(0.39)"),
    ("BCW-L2", 0.2462, 0.0005, "0.47(0.07)", 0.1102, 0.0002, "6.35(0.41)"),
], columns=["learner", "covtype_error", "covtype_std", "covtype_time",
            "epsilon50k_error", "epsilon50k_std", "epsilon50k_time"]).set_index("learner")

#: the paper's BCW-L2 time on covtype (Sigma step + pass), seconds
PAPER_BCW_L2_COVTYPE_SECONDS = 0.47


# -- data -------------------------------------------------------------------------
@dataclass
class Split:
    """A train/test task: ``X_train, y_train, X_test, y_test`` and what it is."""

    name: str
    X_train: object
    y_train: np.ndarray
    X_test: object
    y_test: np.ndarray
    description: str
    feature_names: object = None


def _pm(y, positive):
    return np.where(np.asarray(y) == positive, 1.0, -1.0)


def covtype_like(n=581_012, n_train=450_000, random_state=0):
    """Synthetic stream with covtype's shape: 54 features, 12 nonzeros a row.

    Ten numeric columns (Gaussian, correlated through a random mixing
    matrix, as covtype's elevation/distance columns are), one of 4
    "wilderness" indicators and one of 40 "soil" indicators; labels from a
    random hyperplane plus a class-dependent soil effect and Gaussian noise
    (about a quarter of the labels disagree with the best linear rule).
    """
    rng = np.random.default_rng(random_state)
    mix = rng.standard_normal((10, 10)) / np.sqrt(10)
    numeric = rng.standard_normal((n, 10)) @ mix
    wild = rng.integers(0, 4, n)
    soil = rng.integers(0, 40, n)
    rows = np.repeat(np.arange(n), 12)
    cols = np.column_stack([np.tile(np.arange(10), (n, 1)), 10 + wild, 14 + soil]).ravel()
    vals = np.column_stack([numeric, np.ones(n), np.ones(n)]).ravel()
    X = sp.csr_matrix((vals, (rows, cols)), shape=(n, 54))
    w = rng.standard_normal(54)
    score = X @ w + 1.2 * rng.standard_normal(n)
    y = np.where(score > np.median(score), 1.0, -1.0)
    return Split("covtype-like synthetic", X[:n_train], y[:n_train], X[n_train:],
                 y[n_train:], "synthetic, covtype's shape: 581,012 x 54, 12 nonzeros "
                 "a row; 450,000 train / 131,012 test")


def table2_split(name):
    """The Table 2 stand-ins by name (see the module docstring)."""
    if name == "adult-a9a":
        tr, te = (datasets.load("adult", subset=s) for s in ("train", "test"))
        return Split(name, tr.X, _pm(tr.y, ">50K"), te.X, _pm(te.y, ">50K"),
                     "UCI Adult, a9a coding (123 binary features), adult.data / adult.test")
    if name == "w7a":
        tr, te = (datasets.load("w7a", subset=s) for s in ("train", "test"))
        return Split(name, tr.X, _pm(tr.y, 1), te.X, _pm(te.y, 1), "w7a / w7a.t (300 features)")
    if name == "usps-3-vs-5":
        tr, te = (datasets.load(name, subset=s) for s in ("train", "test"))
        return Split(name, tr.X, _pm(tr.y, 1), te.X, _pm(te.y, 1),
                     "USPS digits 3 (+1) vs 5, zip.train / zip.test (256 features)")
    if name == "mnist-10k-3-vs-5":
        data = datasets.load(name)
        X = data.X / 255.0
        Xtr, Xte, ytr, yte = train_test_split(X, _pm(data.y, 1), test_size=0.3,
                                              random_state=0, stratify=data.y)
        return Split(name, Xtr, ytr, Xte, yte, "MNIST-10k 3 (+1) vs 5, pixels / 255, "
                     "70/30 stratified split (seed 0), 784 features")
    if name == "covtype-like":
        return covtype_like()
    raise ValueError(f"unknown Table 2 set {name!r}")


TABLE2_SETS = ("adult-a9a", "w7a", "usps-3-vs-5", "mnist-10k-3-vs-5", "covtype-like")


def figure1_split(name):
    """The Figure 1 stand-ins (tf-idf fitted on the training part)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    from ..datasets._text import (TOKEN_PATTERN, read_20newsgroups,
                                  read_movie_reviews, read_reuters21578)

    names = {}

    def tfidf(train, test, ngrams=(1, 1)):
        vec = TfidfVectorizer(token_pattern=TOKEN_PATTERN, ngram_range=ngrams,
                              dtype=np.float64)
        Xtr = vec.fit_transform(train).tocsr()
        names["words"] = vec.get_feature_names_out()
        return Xtr, vec.transform(test).tocsr()

    if name == "20newsgroups":
        path = datasets.fetch("20newsgroups")["20newsgroups/20news-bydate.tar.xz"]
        texts, groups, split = read_20newsgroups(str(path))
        y = np.array([1.0 if g.startswith("comp.") else -1.0 for g in groups])
        tr, te = split == "train", split == "test"
        Xtr, Xte = tfidf([t for t, m in zip(texts, tr) if m],
                         [t for t, m in zip(texts, te) if m])
        return Split(name, Xtr, y[tr], Xte, y[te], "20 Newsgroups bydate, comp.* (+1) "
                     "vs the other 15 groups, tf-idf unigrams fitted on train",
                     names["words"])
    if name == "reuters":
        path = datasets.fetch("reuters21578")["reuters21578/reuters21578-sgm.tar.xz"]
        texts, topics, split, _ = read_reuters21578(str(path))
        keep = np.array([len(t) > 0 for t in topics])
        y = np.array([1.0 if "acq" in t else -1.0 for t in topics])
        tr, te = keep & (split == "TRAIN"), keep & (split == "TEST")
        Xtr, Xte = tfidf([t for t, m in zip(texts, tr) if m],
                         [t for t, m in zip(texts, te) if m])
        return Split(name, Xtr, y[tr], Xte, y[te], "Reuters-21578 LEWISSPLIT, stories with "
                     "a topic, 'acq' (+1) vs the rest, tf-idf unigrams fitted on train",
                     names["words"])
    if name == "movie-reviews":
        path = datasets.fetch("movie_review_polarity")[
            "movie_review_polarity/movie_reviews.zip"]
        texts, labels = read_movie_reviews(str(path))
        y = _pm(labels, "pos")
        idx_tr, idx_te = train_test_split(np.arange(len(texts)), test_size=0.3,
                                          random_state=0, stratify=y)
        Xtr, Xte = tfidf([texts[i] for i in idx_tr], [texts[i] for i in idx_te], (1, 2))
        return Split(name, Xtr, y[idx_tr], Xte, y[idx_te], "movie reviews v2.0, 70/30 "
                     "stratified split (seed 0), tf-idf unigrams + bigrams fitted on train",
                     names["words"])
    raise ValueError(f"unknown Figure 1 set {name!r}")


FIGURE1_SETS = ("20newsgroups", "reuters", "movie-reviews")


# -- learners -------------------------------------------------------------------------
class DCD(LinearSVC):
    """liblinear's dual coordinate descent for the hinge-loss SVM (Hsieh et al.
    2008), no bias: the paper's DCD baseline (a named LinearSVC)."""

    def __init__(self, C=1.0, random_state=0, max_iter=1000):
        super().__init__(C=C, loss="hinge", dual=True, fit_intercept=False,
                         random_state=random_state, max_iter=max_iter)


def table2_learners():
    """name -> (estimator, CV grid).  The second-order learners (AROW, CW,
    NAROW, SCW, SCW2, SOP) come from :mod:`olearn.second_order` when present."""
    import olearn

    C_grid = [10.0 ** k for k in range(-3, 2, 1)]
    learners = {}
    second = {
        "AROW": ("AROW", {}, {"r": [0.1, 1.0, 10.0]}),
        "CW": ("CW", {}, {"eta": [0.7, 0.8, 0.95]}),
        "NAROW": ("NAROW", {}, {"b": [0.1, 1.0, 10.0]}),
        "SCW": ("SCW", {"variant": "I"}, {"C": [0.1, 1.0], "eta": [0.75, 0.95]}),
        "SCW2": ("SCW", {"variant": "II"}, {"C": [0.1, 1.0], "eta": [0.75, 0.95]}),
        "SOP": ("SOP", {}, {"a": [0.1, 1.0, 10.0]}),
    }
    for name, (cls_name, fixed, grid) in second.items():
        cls = getattr(olearn, cls_name, None)
        if cls is None:
            continue
        try:
            learners[name] = (cls(**fixed), grid)
            learners[name][0].set_params(**{k: v[0] for k, v in grid.items()})
        except (TypeError, ValueError):
            learners.pop(name, None)
    learners["PA"] = (PA(variant="PA-I"), {"C": C_grid})
    learners["DCD"] = (DCD(), {"C": C_grid})
    learners["BCW-L1"] = (BCW(q=1), {"C": C_grid})
    learners["BCW-L2"] = (BCW(q=2), {"C": C_grid})
    return learners


def _fit_timed(estimator, X, y):
    tic = time.perf_counter()
    estimator.fit(X, y)
    return time.perf_counter() - tic


def _warm(estimator, X, y):
    """Compile once (a tiny fit) so that compilation is not timed."""
    rows = np.concatenate([np.flatnonzero(y > 0)[:3], np.flatnonzero(y < 0)[:3]])
    clone(estimator).fit(X[rows], y[rows])


def select_params(estimator, grid, X, y, folds=5, max_rows=20_000, random_state=0):
    """5-fold CV on the training part (a fixed sample of ``max_rows`` rows if
    larger); returns the best parameters."""
    if X.shape[0] > max_rows:
        rows = np.sort(np.random.default_rng(random_state).choice(X.shape[0], max_rows,
                                                                  replace=False))
        X, y = X[rows], y[rows]
    search = GridSearchCV(clone(estimator), grid, cv=KFold(folds, shuffle=True,
                                                            random_state=random_state),
                          scoring="accuracy", n_jobs=1, error_score="raise")
    search.fit(X, y)
    return search.best_params_


def run_table2(sets=TABLE2_SETS, learners=None, n_orders=10, folds=5, params=None,
               random_state=0):
    """Table 2 protocol; returns ``(runs, chosen_params)``.

    ``runs`` has one row per (set, learner, order): test error, fit time and,
    for BCW, the Sigma and pass times.  ``params`` (``{(set, learner): dict}``)
    skips the cross-validation (quick mode re-uses the stored choice).
    """
    learners = table2_learners() if learners is None else learners
    rows, chosen = [], {}
    for set_name in sets:
        data = table2_split(set_name)
        for name, (estimator, grid) in learners.items():
            if params is not None and (set_name, name) in params:
                best = params[(set_name, name)]
            else:
                best = select_params(estimator, grid, data.X_train, data.y_train, folds)
            chosen[(set_name, name)] = best
            model = clone(estimator).set_params(**best)
            _warm(model, data.X_train, data.y_train)
            for order in range(n_orders):
                perm = np.random.default_rng(random_state + order).permutation(
                    data.y_train.shape[0])
                fitted = clone(model)
                if "random_state" in fitted.get_params():
                    fitted.set_params(random_state=order)
                seconds = _fit_timed(fitted, data.X_train[perm], data.y_train[perm])
                error = float(np.mean(fitted.predict(data.X_test) != data.y_test))
                rows.append({
                    "dataset": set_name, "learner": name, "order": order,
                    "params": repr(sorted(best.items())), "test_error": error,
                    "time": seconds,
                    "sigma_time": getattr(fitted, "sigma_time_", np.nan),
                    "pass_time": getattr(fitted, "pass_time_", np.nan),
                })
    return pd.DataFrame(rows), chosen


def summarize_table2(runs):
    """Mean and std of test error and mean times per (dataset, learner)."""
    g = runs.groupby(["dataset", "learner"], sort=False)
    out = g.agg(error_mean=("test_error", "mean"), error_std=("test_error", "std"),
                time=("time", "mean"), sigma_time=("sigma_time", "mean"),
                pass_time=("pass_time", "mean"))
    return out


def time_cell(row):
    """Time as the paper prints it: BCW "Sigma(pass)", others total seconds."""
    if np.isfinite(row["sigma_time"]):
        return f"{row['sigma_time']:.2f}({row['pass_time']:.2f})"
    return f"{row['time']:.2f}"


def paper_vs_ours(summary, dataset, paper_column="covtype"):
    """Our summary on ``dataset`` beside the paper's column (covtype/epsilon50k)."""
    ours = summary.xs(dataset, level="dataset")
    table = pd.DataFrame({
        "paper_error": PAPER_TABLE2[f"{paper_column}_error"],
        "paper_time": PAPER_TABLE2[f"{paper_column}_time"],
    }).join(pd.DataFrame({
        "our_error": ours["error_mean"], "our_std": ours["error_std"],
        "our_time": ours.apply(time_cell, axis=1)}), how="outer")
    table["error_deviation"] = table["our_error"] - table["paper_error"]
    return table


# -- Figure 1 -----------------------------------------------------------------------
#: Figure 1's label of the stalled FGM stand-in (kept as an extra curve, issue 28 item 7)
FGM_STAND_IN = "FGM stand-in, 3 passes of Algorithm 3 (ours)"


def figure1_methods(p, params=None):
    """The methods that select about ``p`` features (the paper: m_iter = 15 and
    r = ceil(p / 15) for SBCW and FGM; SOFS keeps B = p).  ``params`` maps a
    method to its chosen hyper-parameters (see :func:`select_figure1_params`).

    "FGM" is :class:`FGMConverged`: FGM's cutting plane with every subproblem solved to
    a tolerance (by cvxpy/Clarabel, so its times are not FGM's).  :data:`FGM_STAND_IN` is
    SBCW's cutting plane with ``Sigma = I`` and three passes of Algorithm 3 per subproblem:
    Algorithm 3 stalls on the l2,1^2 subproblem (relative duality gap 0.3 to 0.9 on the
    three stand-ins), so it understates FGM (:func:`figure1_fgm_diagnosis`)."""
    params = params or {}
    r = max(1, math.ceil(p / 15))
    methods = {
        "SBCW": SBCW(C=1.0, q=1, r=r, m_iter=15, tol=0),
        "SBCW (exact step, ours)": SBCW(C=1.0, q=1, r=r, m_iter=15, tol=0, step="exact"),
        "FGM": FGMConverged(C=1.0, p=p, m_iter=15),
        FGM_STAND_IN: SBCW(C=1.0, q=1, r=r, m_iter=15, tol=0, covariance=False,
                           step="exact", n_inner_passes=3),
        "SOFS": SOFS(B=p, r=1.0),
    }
    for name, model in methods.items():
        model.set_params(**params.get(name, {}))
    return methods


#: validation grids of Figure 1's methods (C of SBCW / FGM, r of SOFS)
FIGURE1_GRIDS = {"SBCW": {"C": [0.1, 1.0, 10.0, 100.0]},
                 "SBCW (exact step, ours)": {"C": [0.1, 1.0, 10.0, 100.0]},
                 "FGM": {"C": [0.1, 1.0, 10.0, 100.0]},
                 FGM_STAND_IN: {"C": [0.1, 1.0, 10.0, 100.0]},
                 "SOFS": {"r": [0.1, 1.0, 10.0]}}


def select_figure1_params(X, y, p=60, grids=FIGURE1_GRIDS, random_state=0):
    """Hyper-parameters by validation accuracy on a 70/30 split of the
    training part, at ``p`` selected features."""
    Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.3, random_state=random_state,
                                      stratify=y)
    chosen = {}
    for name, grid in grids.items():
        (key, values), = grid.items()
        scores = []
        for value in values:
            model = figure1_methods(p)[name].set_params(**{key: value})
            scores.append(np.mean(model.fit(Xa, ya).predict(Xb) == yb))
        chosen[name] = {key: values[int(np.argmax(scores))]}
    return chosen


#: regularisation paths of the l1 baselines (their feature counts vary with it)
L1SVM_C = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
SPARDCA_KAPPA = (50.0, 20.0, 10.0, 5.0, 2.0, 1.0)


def _n_selected(model):
    coef = model.coef_
    if sp.issparse(coef):
        return int(coef.count_nonzero())
    return int(np.count_nonzero(coef))


def run_figure1(sets=FIGURE1_SETS, p_grid=(15, 30, 60, 150, 300), l1svm_C=L1SVM_C,
                spardca_kappa=SPARDCA_KAPPA, spardca_lam=1e-4, spardca_epochs=10,
                params=None, random_state=0, methods=None):
    """Accuracy and training time against the number of selected features.

    Returns ``(rows, chosen)``: one row per (set, method, setting) and the
    hyper-parameters chosen per set (``params`` skips the validation).  ``methods``
    (default all) keeps only the named methods (keys of :func:`figure1_methods`,
    "L1-SVM", "sparDCA"), e.g. to re-run FGM alone and merge it into a stored table.
    """
    keep = (lambda name: True) if methods is None else (lambda name: name in methods)
    grids = {name: grid for name, grid in FIGURE1_GRIDS.items() if keep(name)}
    rows, chosen = [], {}
    for set_name in sets:
        data = figure1_split(set_name)
        order = np.random.default_rng(random_state).permutation(data.y_train.shape[0])
        Xtr, ytr = data.X_train[order], data.y_train[order]
        best = (params or {}).get(set_name) or select_figure1_params(Xtr, ytr,
                                                                     grids=grids)
        chosen[set_name] = best

        def record(method, setting, model, seconds):
            acc = float(np.mean(model.predict(data.X_test) == data.y_test))
            rows.append({"dataset": set_name, "method": method, "setting": setting,
                         "n_features": _n_selected(model), "accuracy": acc,
                         "time": seconds, "d": Xtr.shape[1], "n_train": Xtr.shape[0]})

        for p in p_grid:
            for method, model in figure1_methods(p, best).items():
                if not keep(method):
                    continue
                _warm(model, Xtr, ytr)
                seconds = _fit_timed(model, Xtr, ytr)
                record(method, p, model, seconds)
        for C in l1svm_C if keep("L1-SVM") else ():
            model = LinearSVC(penalty="l1", loss="squared_hinge", dual=False, C=C,
                              fit_intercept=False)
            record("L1-SVM", C, model, _fit_timed(model, Xtr, ytr))
        for kappa in spardca_kappa if keep("sparDCA") else ():
            model = SparDCA(lam=spardca_lam, kappa=kappa, n_epochs=spardca_epochs,
                            random_state=random_state)
            _warm(model, Xtr, ytr)
            record("sparDCA", kappa, model, _fit_timed(model, Xtr, ytr))
    return pd.DataFrame(rows), chosen


# -- provenance -------------------------------------------------------------------
def provenance(settings):
    import numba
    import scipy
    import sklearn

    return {"commit": git_commit(), "git_dirty": git_dirty(),
            "date": pd.Timestamp.now(tz="UTC").isoformat(), "quick": quick_mode(),
            "settings": settings,
            "versions": {"numpy": np.__version__, "scipy": scipy.__version__,
                         "numba": numba.__version__, "scikit-learn": sklearn.__version__,
                         "pandas": pd.__version__}}


# -- stored results -------------------------------------------------------------
def save_frame(frame, path, name, settings):
    """Write ``<path>/<name>.csv`` and ``<path>/provenance_<name>.json``."""
    import json
    from pathlib import Path

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path / f"{name}.csv", index=False)
    with open(path / f"provenance_{name}.json", "w") as handle:
        json.dump(provenance(settings), handle, indent=2, sort_keys=True, default=str)
        handle.write("\n")


def load_frame(path, name):
    """The stored ``(frame, provenance)`` written by :func:`save_frame`."""
    import json
    from pathlib import Path

    path = Path(path)
    frame = pd.read_csv(path / f"{name}.csv")
    return frame, json.loads((path / f"provenance_{name}.json").read_text())


# -- Figure 1: why SBCW stays at the majority rate (issue 28 item 7) ----------------------
def figure1_diagnosis(set_name="reuters", configs=((0.1, 1, 1e-3), (0.1, 10, 1e-3),
                                                   (1.0, 1, 1.0)), p=300, random_state=0,
                      covariance=True):
    """SBCW on a Figure 1 stand-in at ``p`` features (``r = ceil(p / 15)``, 15 iterations),
    one row per ``(C, n_inner_passes, sigma)`` of ``configs``: the groups the cutting plane
    selected, how many carry a nonzero weight in ``mu`` (``grad Omega*`` of the
    l2,1^2-regularizer weights only the groups of largest ``||z_k||``), the nonzero weights,
    the median document frequency of the first group's features and of all the selected
    ones (against the median of all features), the share of negative weights in the first
    group, the test accuracy, the majority-class rate and the share of test documents
    predicted positive (against the positive rate). ``p`` a budget or a tuple of budgets (one
    row per budget and configuration); ``covariance=False`` diagnoses the FGM stand-in (with
    its exact step)."""
    data = figure1_split(set_name)
    order = np.random.default_rng(random_state).permutation(data.y_train.shape[0])
    X, y = data.X_train[order], data.y_train[order]
    df = np.asarray((X > 0).mean(axis=0)).ravel()
    rows = []
    budgets = (p,) if np.isscalar(p) else tuple(p)
    for (C, passes, sigma), budget in ((c, b) for c in configs for b in budgets):
        r = max(1, math.ceil(budget / 15))
        model = SBCW(C=C, q=1, r=r, m_iter=15, tol=0, n_inner_passes=passes, sigma=sigma,
                     covariance=covariance,
                     step="paper" if covariance else "exact").fit(X, y)
        mu = model.coef_.toarray().ravel()
        first = model.groups_[0]
        scores = data.X_test @ mu
        rows.append({"p": budget, "C": C, "inner passes": passes, "sigma": sigma,
                     "groups selected": len(model.groups_),
                     "groups with weight": int(sum(np.any(mu[g] != 0) for g in model.groups_)),
                     "nonzero weights": int(np.count_nonzero(mu)),
                     "median df, first group": float(np.median(df[first])),
                     "median df, selected": float(np.median(df[model.selected_features_])),
                     "median df, all features": float(np.median(df)),
                     "negative weights, first group": float(np.mean(mu[first] < 0)),
                     "accuracy": float(np.mean(np.where(scores > 0, 1.0, -1.0) == data.y_test)),
                     "majority rate": float(max(np.mean(data.y_test > 0), np.mean(data.y_test < 0))),
                     "predicted positive": float(np.mean(scores > 0)),
                     "positive rate": float(np.mean(data.y_test > 0))})
    return pd.DataFrame(rows)


# -- Figure 1: single changes against the paper's SBCW (issue 28 item 7) ----------------------
#: each single change tried against the paper's SBCW on Figure 1: name -> (kind, what it is)
FIGURE1_VARIANTS = {
    "paper": ("the paper's reading", "SBCW of figure1_methods: hinge loss, Algorithm 3's "
              "step, one pass, C_sigma = C"),
    "solver converged": ("ours", "Algorithm 3 with the exact step and 10 passes: (16) "
                         "solved to a small duality gap"),
    "intercept": ("protocol", "a constant feature 1 appended to every document"),
    "squared hinge": ("protocol", "q = 2 instead of the hinge loss"),
    "binary features": ("protocol", "word present (1) or absent (0) instead of tf-idf, "
                        "rows scaled to unit length"),
    "C_sigma = C/100": ("alternative reading", "the covariance's constant 100 times "
                        "smaller than the loss's C (SBCW's C_sigma)"),
    "balanced classes": ("protocol", "training negatives subsampled (seed 0) to the "
                         "number of positives"),
}


def _variant(name, X, y, random_state=0):
    """``(estimator parameters, X, y, add_intercept)`` of one :data:`FIGURE1_VARIANTS`."""
    if name == "paper":
        return {}, X, y, False
    if name == "solver converged":
        return {"step": "exact", "n_inner_passes": 10}, X, y, False
    if name == "intercept":
        return {}, X, y, True
    if name == "squared hinge":
        return {"q": 2}, X, y, False
    if name == "binary features":
        return {}, X, y, False          # the rows are re-coded in figure1_alternatives
    if name == "C_sigma = C/100":
        return {"C_sigma": 0.01}, X, y, False    # scaled by C in figure1_alternatives
    if name == "balanced classes":
        pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
        small, large = (pos, neg) if pos.size <= neg.size else (neg, pos)
        keep = np.sort(np.concatenate([small, np.random.default_rng(random_state).choice(
            large, small.size, replace=False)]))
        return {}, X[keep], y[keep], False
    raise ValueError(f"unknown variant {name!r}; one of {list(FIGURE1_VARIANTS)}")


def _binary_rows(X):
    """``1`` where a word occurs, rows scaled to unit Euclidean length."""
    from sklearn.preprocessing import normalize

    B = sp.csr_matrix(X, copy=True)
    B.data[:] = 1.0
    return normalize(B)


def _with_intercept(X):
    ones = np.ones((X.shape[0], 1))
    return sp.hstack([X, ones]).tocsr() if sp.issparse(X) else np.hstack([X, ones])


def _fit_sbcw(params, C, p, X, y):
    kw = dict(params)
    if "C_sigma" in kw:
        kw["C_sigma"] = kw["C_sigma"] * C
    model = SBCW(C=C, q=1, r=max(1, math.ceil(p / 15)), m_iter=15, tol=0).set_params(**kw)
    return model, _fit_timed(model, X, y)


def _validated_C(params, C_grid, X, y, p=60, random_state=0):
    """The ``C`` of the grid with the best accuracy on a 30% validation part of the training
    part (stratified, seed ``random_state``) at ``p`` features: Figure 1's protocol."""
    if len(C_grid) == 1:
        return C_grid[0]        # nothing to choose: the fits below would be thrown away
    Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.3, random_state=random_state,
                                      stratify=y)
    scores = []
    for C in C_grid:
        model, _ = _fit_sbcw(params, C, p, Xa, ya)
        scores.append(np.mean(model.predict(Xb) == yb))
    return C_grid[int(np.argmax(scores))]


def _figure1_ordered(name, random_state=0):
    """The Figure 1 set ``name`` with its training part in the permuted order of
    :func:`run_figure1`."""
    data = figure1_split(name)
    order = np.random.default_rng(random_state).permutation(data.y_train.shape[0])
    return Split(data.name, data.X_train[order], data.y_train[order], data.X_test,
                 data.y_test, data.description, data.feature_names)


def figure1_alternatives(data, budgets=(15, 30, 60, 150, 300), C_grid=(0.1, 1.0, 10.0, 100.0),
                         variants=tuple(FIGURE1_VARIANTS), random_state=0):
    """SBCW on a Figure 1 stand-in under each single change of :data:`FIGURE1_VARIANTS`,
    at every budget ``p`` (``r = ceil(p / 15)``, 15 iterations) and every ``C`` of the grid.

    ``data``: a :class:`Split` or the name of a Figure 1 set (the training part is taken in
    the permuted order of :func:`run_figure1`).  One row per (variant, p, C): test accuracy,
    the majority-class rate, the share of training documents with margin below 1 (at the
    optimum of (16) these are the ones whose dual variable sits at its bound, eq. 14 then
    scores with ``alpha = 1`` on them), the groups selected and carrying weight, the nonzero
    weights, the share of test documents predicted positive and the share scored exactly 0;
    ``validated`` marks the ``C`` that Figure 1's protocol picks for the variant (validation
    accuracy on a 70/30 split of its training part at ``p = 60``).
    """
    if isinstance(data, str):
        data = _figure1_ordered(data, random_state)
    majority = float(max(np.mean(data.y_test > 0), np.mean(data.y_test < 0)))
    rows = []
    for name in variants:
        params, X, y, intercept = _variant(name, data.X_train, data.y_train, random_state)
        Xt = data.X_test
        if name == "binary features":
            X, Xt = _binary_rows(X), _binary_rows(Xt)
        if intercept:
            X, Xt = _with_intercept(X), _with_intercept(Xt)
        chosen = _validated_C(params, tuple(C_grid), X, y, random_state=random_state)
        for p in budgets:
            for C in C_grid:
                model, seconds = _fit_sbcw(params, C, p, X, y)
                mu = model.coef_.toarray().ravel()
                scores = np.asarray(Xt @ mu).ravel()
                margins = y * np.asarray(X @ mu).ravel()
                rows.append({
                    "dataset": data.name, "variant": name, "kind": FIGURE1_VARIANTS[name][0],
                    "p": p, "C": C, "validated": C == chosen, "accuracy": float(np.mean(
                        np.where(scores > 0, 1.0, -1.0) == data.y_test)),
                    "majority rate": majority,
                    "train margins below 1": float(np.mean(margins < 1.0)),
                    "groups selected": len(model.groups_),
                    "groups with weight": int(sum(np.any(mu[g] != 0) for g in model.groups_)),
                    "nonzero weights": int(np.count_nonzero(mu)),
                    "predicted positive": float(np.mean(scores > 0)),
                    "zero scores": float(np.mean(scores == 0)),
                    "time": seconds})
    return pd.DataFrame(rows)


def ulp_nudged(X, random_state=0):
    """A copy of ``X`` (sparse or dense) in which each nonzero value moves to the
    neighbouring float64 with probability 1/2 (up or down equally often): a change of one
    unit in the last place, the size of the rounding differences between two
    BLAS builds or two processors.  Zeros stay zero (the sparsity pattern is kept)."""
    rng = np.random.default_rng(random_state)
    Y = X.copy()
    values = Y.data if sp.issparse(Y) else Y.reshape(-1)
    nonzero = np.flatnonzero(values)
    move = nonzero[rng.random(nonzero.size) < 0.5]
    towards = np.where(rng.random(move.size) < 0.5, np.inf, -np.inf)
    values[move] = np.nextafter(values[move], towards)
    return Y


def figure1_sensitivity(data, budgets=(60,), C_grid=(10.0,), variants=("paper",),
                        copies=10, random_state=0):
    """:func:`figure1_alternatives` (with the grid ``C_grid``, each ``C`` taken as is: no
    validation) refitted on ``copies`` copies of the training part, copy ``k`` nudged by
    :func:`ulp_nudged` with seed ``k``: how far a rounding-sized change of the input moves
    each row.  ``data``: a :class:`Split` (its training part in the order to fit) or the
    name of a Figure 1 set (taken as :func:`figure1_alternatives` takes it).  One row per
    (copy, variant, p, C), column ``copy``; ``validated`` is dropped."""
    if isinstance(data, str):
        data = _figure1_ordered(data, random_state)
    frames = []
    for k in range(copies):
        nudged = Split(data.name, ulp_nudged(data.X_train, k), data.y_train, data.X_test,
                       data.y_test, data.description, data.feature_names)
        for C in C_grid:
            frame = figure1_alternatives(nudged, budgets, (C,), variants, random_state)
            frames.append(frame.drop(columns="validated").assign(copy=k))
    return pd.concat(frames, ignore_index=True)


def off_majority(frame, points=1.0):
    """Per (dataset, variant, p): the best test accuracy over the ``C`` grid (an upper
    bound of what validation could pick) and the accuracy at the validated ``C``, each as
    points above the majority rate, and whether the validated one reaches ``points``."""
    keys = ["dataset", "variant", "p"]
    best = frame.groupby(keys, sort=False).agg(
        best_accuracy=("accuracy", "max"), majority=("majority rate", "first"),
        margins_below_1=("train margins below 1", "median"))
    validated = frame[frame["validated"]].set_index(keys)
    best["validated C"] = validated["C"]
    best["validated accuracy"] = validated["accuracy"]
    best["points above majority"] = 100 * (best["best_accuracy"] - best["majority"])
    best["validated points"] = 100 * (best["validated accuracy"] - best["majority"])
    best["off majority"] = best["validated points"] >= points
    return best


def first_group_words(data, model, k=None):
    """The words of SBCW's first group with their document frequency in the training part
    and the sign of their weight (``model`` fitted on ``data.X_train``)."""
    first = model.groups_[0] if k is None else model.groups_[0][:k]
    df = np.asarray((data.X_train[:, first] > 0).mean(axis=0)).ravel()
    mu = model.coef_.toarray().ravel()[first]
    s = np.asarray(data.X_train[:, first].T @ data.y_train).ravel()
    names = (data.feature_names[first] if data.feature_names is not None
             else first.astype(str))
    return pd.DataFrame({"word": names, "document frequency": df,
                         "sum_i y_i x_ij (eq. 14, alpha = 1)": s, "weight": mu})


# -- Figure 1: why the FGM stand-in declines with the budget (issue 28 item 7) -------------
def _fgm_subproblem(A, y, ptr, C, sigma):
    """Subproblem (16) with ``Sigma = I`` (FGM's l2,1^2-regularised hinge-loss SVM over the
    selected groups, columns ``ptr[k]:ptr[k+1]`` of the dense ``A``) solved to optimality
    by cvxpy (Clarabel): ``(w, alpha)``, ``alpha_i`` the dual variable of margin ``i``
    divided by ``C`` (in [0, 1])."""
    import cvxpy as cp

    w, t, xi = cp.Variable(A.shape[1]), cp.Variable(), cp.Variable(A.shape[0])
    margin = cp.multiply(y, A @ w) >= 1 - xi
    norms = sum(cp.norm(w[ptr[k]:ptr[k + 1]]) for k in range(len(ptr) - 1))
    cp.Problem(cp.Minimize(sigma / 2 * cp.sum_squares(w) + cp.square(t) / 2 + C * cp.sum(xi)),
               [xi >= 0, margin, norms <= t]).solve(solver="CLARABEL")
    return np.asarray(w.value), np.clip(np.asarray(margin.dual_value) / C, 0.0, 1.0)


def fgm_converged(X, y, C, p, m_iter=15, sigma=1e-3):
    """FGM's cutting plane with every subproblem solved to optimality (the reference the
    stand-in is measured against; FGM itself solves it by an accelerated proximal gradient
    method to a tolerance).  The same scores (eq. 14, ``alpha^0 = 1``), group size
    ``r = ceil(p / 15)``, ``m_iter`` iterations and smoothing ``sigma`` as the stand-in
    ``SBCW(covariance=False)``.  Returns ``(mu, groups)``: the weights as a dense
    ``(n_features,)`` array and the selected groups."""
    r = max(1, math.ceil(p / 15))
    Xc = X.tocsc() if sp.issparse(X) else np.asarray(X)
    selected = np.zeros(X.shape[1], dtype=bool)
    alpha, groups = np.ones(y.shape[0]), []
    for _ in range(m_iter):
        score = np.asarray(X.T @ (alpha * y)).ravel() ** 2
        score[selected] = -1.0
        top = np.argsort(-score, kind="stable")[:min(r, int(np.count_nonzero(score > 0)))]
        if top.size == 0:
            break
        selected[top] = True
        groups.append(top)
        cols = np.concatenate(groups)
        A = Xc[:, cols]
        A = A.toarray() if sp.issparse(A) else A
        w, alpha = _fgm_subproblem(A, y, np.cumsum([0] + [g.size for g in groups]), C, sigma)
    mu = np.zeros(X.shape[1])
    if groups:
        mu[np.concatenate(groups)] = w
    return mu, groups


class FGMConverged(ClassifierMixin, BaseEstimator):
    """FGM (Tan et al. 2014) as Figure 1's rival: the cutting plane of :func:`fgm_converged`
    (scores eq. 14, groups of ``r = ceil(p / 15)`` features, ``m_iter`` iterations) with every
    subproblem (16), ``Sigma = I``, solved by cvxpy/Clarabel to its default tolerance.

    A batch learner (``fit`` solves the whole training set), any two labels.  The paper's FGM
    solves its subproblems by an accelerated proximal gradient method: the accuracies are
    FGM's, the times are cvxpy's and not comparable with FGM's or SBCW's.  ``coef_`` keeps the
    weights above ``1e-6`` of the largest in absolute value (the interior-point solution
    leaves tiny nonzeros)."""

    def __init__(self, C=1.0, p=15, m_iter=15, sigma=1e-3):
        self.C, self.p, self.m_iter, self.sigma = C, p, m_iter, sigma

    def fit(self, X, y):
        if not (self.C > 0 and self.sigma > 0 and self.p >= 1 and self.m_iter >= 1):
            raise ValueError("FGMConverged needs C > 0, sigma > 0, p >= 1 and m_iter >= 1; "
                             f"got C={self.C}, sigma={self.sigma}, p={self.p}, "
                             f"m_iter={self.m_iter}")
        y = np.asarray(y)
        self.classes_ = np.unique(y)
        if self.classes_.size != 2:
            raise ValueError(f"FGMConverged is a binary classifier; y has "
                             f"{self.classes_.size} classes: pass two labels")
        signs = np.where(y == self.classes_[1], 1.0, -1.0)
        mu, self.groups_ = fgm_converged(X, signs, self.C, self.p, self.m_iter, self.sigma)
        mu[np.abs(mu) <= 1e-6 * max(np.abs(mu).max(), 1e-300)] = 0.0
        self.coef_ = mu
        return self

    def decision_function(self, X):
        return np.asarray(X @ self.coef_).ravel()

    def predict(self, X):
        return np.where(self.decision_function(X) > 0, self.classes_[1], self.classes_[0])


def figure1_fgm_diagnosis(data, C, budgets=(15, 30, 60, 150, 300), passes=(3,),
                          reference=True):
    """The FGM stand-in of :func:`figure1_methods` at each budget against the same cutting
    plane with its subproblems solved to optimality (:func:`fgm_converged`), at one ``C``.

    ``data``: a :class:`Split` (training part in the order of :func:`run_figure1`).  One row
    per (solver, p): ``solver`` is ``"stand-in, n passes"`` (Algorithm 3, exact step, ``n``
    passes per subproblem; Figure 1 uses 3) or ``"converged"``; the relative duality gap
    ``(P - D) / P`` of the last subproblem (stand-in only), the groups carrying weight, the
    nonzero weights (|w| above 1e-6 of the largest for the reference), training and test
    accuracy and the seconds taken."""
    X, y, Xt, yt = data.X_train, data.y_train, data.X_test, data.y_test
    rows = []

    def record(solver, p, mu, groups, gap, seconds):
        big = np.abs(mu) > 1e-6 * max(np.abs(mu).max(), 1e-300)
        rows.append({"dataset": data.name, "solver": solver, "p": p, "C": C,
                     "relative gap": gap,
                     "groups with weight": int(sum(np.any(big[g]) for g in groups)),
                     "nonzero weights": int(np.count_nonzero(big)),
                     "train accuracy": float(np.mean(np.where(X @ mu > 0, 1.0, -1.0) == y)),
                     "test accuracy": float(np.mean(np.where(Xt @ mu > 0, 1.0, -1.0) == yt)),
                     "seconds": seconds})

    for p in budgets:
        for n in passes:
            model = figure1_methods(p, {FGM_STAND_IN: {"C": C, "n_inner_passes": n}})[
                FGM_STAND_IN]
            tic = time.perf_counter()
            model.fit(X, y)
            gap = (model.primal_[-1] - model.theta_[-1]) / abs(model.primal_[-1])
            record(f"stand-in, {n} passes", p, model.coef_.toarray().ravel(), model.groups_,
                   float(gap), time.perf_counter() - tic)
        if reference:
            tic = time.perf_counter()
            mu, groups = fgm_converged(X, y, C, p)
            record("converged", p, mu, groups, float("nan"), time.perf_counter() - tic)
    return pd.DataFrame(rows)
