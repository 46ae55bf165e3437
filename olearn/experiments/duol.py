"""The DUOL paper's experiments (Zhao, Hoi and Jin 2009, section 4; Tables 1-6, Figures 2-6).

Protocol (section 4.1): every learner makes one online pass over a random
permutation of the data set, 20 permutations (the same for every learner:
:func:`olearn.experiments.run`), Gaussian kernel ``sigma = 8``, ``C = 5``,
ALMA_2(0.9), DUOL ``rho = 0.2``; reported: mistake rate (mean +- std),
number of support vectors and seconds.

Data (``olearn.datasets``): german.numer, splice (scaled), spambase, w7a, and
a1a as the stand-in for a7a (same binarised Adult coding, 1,605 instead of
16,100 examples).  MITFace (Table 4) is not available.  The paper does not
say how the features were scaled; german.numer (values up to 184) and
spambase (up to 15,841) are scaled here to ``[-1, 1]`` per feature (as
LIBSVM's ``svm-scale``), splice already is, w7a and a1a are binary.  Without
scaling the Gaussian kernel with ``sigma = 8`` is ~0 between distinct
examples and every learner predicts the majority class
(:func:`unscaled_german`).

Figures 2-6 (mistake rate, support vectors and time against the examples
seen) come from :func:`trace`, which runs a learner with ``partial_fit`` in
chunks and records the three quantities at checkpoints.
"""
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import MinMaxScaler

from ..kernel import (DUOL, KernelALMA, KernelAggressiveROMMA, KernelPA,
                      KernelPerceptron, KernelROMMA, OnlineSVM)
from .runner import Result, load_result, run, save_result

C, SIGMA, RHO = 5.0, 8.0, 0.2
DATASETS = {"german.numer": "Table 1, Figure 2", "splice": "Table 2, Figure 3",
            "spambase": "Table 3, Figure 4", "a1a": "Table 5 (a7a), Figure 5",
            "w7a": "Table 6, Figure 6"}
PAPER_NAME = {"german.numer": "german", "splice": "splice", "spambase": "spambase",
              "a1a": "a7a", "w7a": "w7a"}
SCALED = ("german.numer", "spambase")
ORDER = ["Perceptron", "ROMMA", "agg-ROMMA", "ALMA2(0.9)", "PA-I", "PA-II",
         "Online-SVM", "DUOL", "DUOL exact (ours)"]

# The paper's Tables 1, 2, 3, 5, 6: (mistake % mean, std, SVs mean, std, seconds)
_PAPER = {
    "german.numer": [
        ("Perceptron", 35.305, 1.510, 353.05, 15.10, 0.018),
        ("ROMMA", 35.105, 1.189, 351.05, 11.89, 0.154),
        ("agg-ROMMA", 33.350, 1.287, 643.25, 12.31, 1.068),
        ("ALMA2(0.9)", 34.025, 0.910, 402.00, 7.33, 0.225),
        ("PA-I", 33.670, 1.278, 732.60, 9.74, 0.029),
        ("PA-II", 33.175, 1.229, 757.00, 10.02, 0.030),
        ("Online-SVM", 28.860, 0.651, 646.10, 5.00, 16.097),
        ("DUOL", 29.990, 1.033, 682.50, 12.87, 0.089)],
    "splice": [
        ("Perceptron", 27.120, 0.975, 271.20, 9.75, 0.016),
        ("ROMMA", 25.560, 0.814, 255.60, 8.14, 0.055),
        ("agg-ROMMA", 22.980, 0.780, 602.95, 7.43, 0.803),
        ("ALMA2(0.9)", 26.040, 0.965, 314.95, 9.41, 0.075),
        ("PA-I", 23.815, 1.042, 665.60, 5.60, 0.028),
        ("PA-II", 23.515, 1.005, 689.00, 7.85, 0.028),
        ("Online-SVM", 17.455, 0.518, 614.90, 2.92, 12.243),
        ("DUOL", 20.560, 0.566, 577.85, 8.93, 0.076)],
    "spambase": [
        ("Perceptron", 24.987, 0.525, 1149.65, 24.17, 0.204),
        ("ROMMA", 23.953, 0.510, 1102.10, 23.44, 10.128),
        ("agg-ROMMA", 21.242, 0.384, 2550.60, 27.32, 95.028),
        ("ALMA2(0.9)", 23.579, 0.411, 1550.15, 15.65, 25.294),
        ("PA-I", 22.112, 0.374, 2861.50, 24.36, 0.490),
        ("PA-II", 21.907, 0.340, 3029.10, 24.69, 0.505),
        ("Online-SVM", 17.138, 0.321, 2396.95, 10.57, 2521.665),
        ("DUOL", 19.438, 0.432, 2528.55, 20.57, 0.985)],
    "a1a": [  # the paper's a7a (n = 16,100); ours is a1a
        ("Perceptron", 22.022, 0.202, 3545.50, 32.49, 2.043),
        ("ROMMA", 21.297, 0.272, 3428.85, 43.77, 306.793),
        ("agg-ROMMA", 20.832, 0.234, 4541.30, 109.39, 661.632),
        ("ALMA2(0.9)", 20.096, 0.214, 3571.05, 40.38, 338.609),
        ("PA-I", 21.826, 0.239, 6760.70, 47.89, 4.296),
        ("PA-II", 21.478, 0.237, 7068.40, 51.32, 4.536),
        ("DUOL", 19.389, 0.227, 7089.85, 38.93, 10.122)],
    "w7a": [
        ("Perceptron", 4.027, 0.095, 994.40, 23.57, 1.233),
        ("ROMMA", 4.158, 0.087, 1026.75, 21.51, 13.860),
        ("agg-ROMMA", 3.500, 0.061, 2317.70, 58.92, 137.975),
        ("ALMA2(0.9)", 3.518, 0.071, 1031.05, 15.33, 13.245),
        ("PA-I", 3.701, 0.057, 2839.60, 41.57, 3.732),
        ("PA-II", 3.571, 0.053, 3391.50, 51.94, 4.719),
        ("DUOL", 2.771, 0.041, 1699.80, 22.78, 2.677)],
}


def paper_table(name):
    """The paper's table for data set ``name`` (index: learner)."""
    return pd.DataFrame(_PAPER[name], columns=[
        "learner", "paper_mistake_%", "paper_mistake_std", "paper_SVs",
        "paper_SVs_std", "paper_seconds"]).set_index("learner")


def learners(include_svm=True, exact=True):
    """The paper's learners and settings (section 4.1), labelled as in its tables."""
    kern = dict(kernel="rbf", sigma=SIGMA)
    out = {"Perceptron": KernelPerceptron(**kern),
           "ROMMA": KernelROMMA(**kern),
           "agg-ROMMA": KernelAggressiveROMMA(**kern),
           "ALMA2(0.9)": KernelALMA(p=2, alpha=0.9, **kern),
           "PA-I": KernelPA(C=C, variant="PA-I", **kern),
           "PA-II": KernelPA(C=C, variant="PA-II", **kern)}
    if include_svm:
        out["Online-SVM"] = OnlineSVM(C=C, **kern)
    out["DUOL"] = DUOL(C=C, rho=RHO, **kern)
    if exact:
        out["DUOL exact (ours)"] = DUOL(C=C, rho=RHO, update="exact", **kern)
    return out


def scale(X):
    """Per-feature scaling to [-1, 1] (dense), as LIBSVM's svm-scale."""
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    return MinMaxScaler((-1.0, 1.0)).fit_transform(X)


def load(name):
    """``(X, y)`` of data set ``name`` as the experiments use it."""
    from .. import datasets

    X, y = datasets.load(name)
    return (scale(X) if name in SCALED else X), np.asarray(y)


def reproduce(name, n_permutations=20, svm_permutations=None, n_jobs=2,
              progress=False, **kwargs):
    """Tables 1-6 protocol on ``name``: a :class:`olearn.experiments.Result`.

    ``svm_permutations`` (default: as many as the others; 0 leaves Online-SVM
    out) lets the slow Online-SVM run on fewer permutations, the first ones of
    the same paired sequence.  The provenance records the count per learner.
    """
    X, y = load(name)
    main = learners(include_svm=False)
    result = run(main, X, y, n_permutations, dataset=name, n_jobs=n_jobs,
                 progress=progress, **kwargs)
    n_svm = n_permutations if svm_permutations is None else svm_permutations
    per_learner = {label: n_permutations for label in main}
    if n_svm:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            svm = run({"Online-SVM": learners()["Online-SVM"]}, X, y, n_svm,
                      dataset=name, n_jobs=n_jobs, progress=progress, **kwargs)
        result = Result(
            table=pd.concat([result.table, svm.table], ignore_index=True),
            curves={**result.curves, **svm.curves},
            rounds={**result.rounds, **svm.rounds},
            provenance={**result.provenance,
                        "learners": {**result.provenance["learners"],
                                     **svm.provenance["learners"]}},
            n_computed=result.n_computed + svm.n_computed,
            n_cached=result.n_cached + svm.n_cached,
            packed_mistakes={**result.packed_mistakes, **svm.packed_mistakes})
        per_learner["Online-SVM"] = n_svm
    result.provenance["permutations_per_learner"] = per_learner
    result.provenance["preprocessing"] = ("per-feature scaling to [-1, 1]"
                                          if name in SCALED else "none")
    result.provenance["paper_table"] = DATASETS[name]
    return result


def comparison(result_or_path, name):
    """Ours beside the paper's: mistake %, SVs, seconds and their differences."""
    result = (load_result(result_or_path) if isinstance(result_or_path, (str, Path))
              else result_or_path)
    t = result.table
    g = t.groupby("learner")
    ours = pd.DataFrame({
        "permutations": g.size(),
        "mistake_%": 100 * g["mistake_rate"].mean(),
        "mistake_std": 100 * g["mistake_rate"].std(ddof=1),
        "SVs": g["n_support"].mean(), "SVs_std": g["n_support"].std(ddof=1),
        "seconds": g["seconds"].mean()})
    out = paper_table(name).join(ours, how="outer")
    out["mistake_diff"] = out["mistake_%"] - out["paper_mistake_%"]
    out["SVs_ratio"] = out["SVs"] / out["paper_SVs"]
    out["speedup_vs_paper"] = out["paper_seconds"] / out["seconds"]
    cols = ["permutations", "paper_mistake_%", "mistake_%", "mistake_diff",
            "paper_mistake_std", "mistake_std", "paper_SVs", "SVs", "SVs_ratio",
            "paper_seconds", "seconds", "speedup_vs_paper"]
    out = out[cols]
    return out.loc[[label for label in ORDER if label in out.index]]


def check_against_stored(result, path):
    """Per permutation, the quick run's mistakes and support sizes equal the
    stored full run's (the learners are deterministic given the permutation)."""
    stored = load_result(path).table
    keys = ["learner", "permutation"]
    merged = result.table.merge(stored, on=keys, suffixes=("_quick", "_stored"))
    merged["same_mistakes"] = merged["n_mistakes_quick"] == merged["n_mistakes_stored"]
    merged["same_support"] = merged["n_support_quick"] == merged["n_support_stored"]
    return merged[keys + ["n_mistakes_quick", "n_mistakes_stored", "same_mistakes",
                          "n_support_quick", "n_support_stored", "same_support"]]


# -- figures ----------------------------------------------------------------------
def checkpoints(n, n_points=40):
    """Rounds at which :func:`trace` records (about ``n_points``, ending at ``n``)."""
    return np.unique(np.linspace(0, n, n_points + 1).round().astype(int))[1:]


def trace(estimator, X, y, permutation, random_state=0, n_points=40):
    """Run ``estimator`` on one paired permutation with ``partial_fit`` in chunks.

    Returns a DataFrame: ``round``, ``mistake_rate`` (cumulative), ``n_support``
    and ``seconds`` (cumulative wall time of the ``partial_fit`` calls) at the
    checkpoints.
    """
    order = np.random.default_rng([random_state, permutation]).permutation(len(y))
    X, y = X[order], y[order]
    est = clone(estimator)
    classes = np.unique(y)
    clone(estimator).fit(X[:50], y[:50]) if len(np.unique(y[:50])) == 2 else None
    rows, elapsed, lo = [], 0.0, 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for hi in checkpoints(len(y), n_points):
            start = time.perf_counter()
            est.partial_fit(X[lo:hi], y[lo:hi], classes=classes)
            elapsed += time.perf_counter() - start
            rows.append({"round": int(hi), "mistake_rate": est.n_mistakes_ / hi,
                         "n_support": est.n_support_, "seconds": elapsed})
            lo = hi
    return pd.DataFrame(rows)


def traces(name, n_permutations=5, labels=None, svm_permutations=None, n_jobs=2,
           n_points=40):
    """:func:`trace` of every learner on the first ``n_permutations`` permutations."""
    X, y = load(name)
    models = learners()
    labels = labels or list(models)
    tasks = []
    for label in labels:
        n_p = n_permutations
        if label == "Online-SVM" and svm_permutations is not None:
            n_p = svm_permutations
        tasks += [(label, p) for p in range(n_p)]
    frames = Parallel(n_jobs=n_jobs)(
        delayed(trace)(models[label], X, y, p, 0, n_points) for label, p in tasks)
    for (label, p), frame in zip(tasks, frames):
        frame.insert(0, "permutation", p)
        frame.insert(0, "learner", label)
    return pd.concat(frames, ignore_index=True)


def plot_traces(frame, title=""):
    """Figures 2-6: mistake rate, support vectors and log10 seconds with bands."""
    import matplotlib.pyplot as plt

    from .runner import t_interval

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    columns = [("mistake_rate", "online mistake rate"),
               ("n_support", "support vectors"), ("seconds", "log10 seconds")]
    for label in [lb for lb in ORDER if lb in set(frame["learner"])]:
        part = frame[frame["learner"] == label]
        wide = {c: part.pivot(index="permutation", columns="round", values=c)
                for c, _ in columns}
        for ax, (col, ylabel) in zip(axes, columns):
            values = wide[col].to_numpy(dtype=float)
            if col == "seconds":
                values = np.log10(np.maximum(values, 1e-6))
            mean, half = t_interval(values)
            rounds = wide[col].columns.to_numpy()
            line, = ax.plot(rounds, mean, label=label, lw=1.3,
                            ls="--" if "ours" in label else "-")
            if values.shape[0] > 1:
                ax.fill_between(rounds, mean - half, mean + half, alpha=0.2,
                                color=line.get_color())
            ax.set_xlabel("examples seen")
            ax.set_ylabel(ylabel)
    axes[0].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def unscaled_german():
    """Mistake rate and support size of DUOL on the unscaled german.numer (one order)."""
    from .. import datasets

    X, y = datasets.load("german.numer")
    est = DUOL().fit(X, y)
    return {"mistake_rate": est.n_mistakes_ / len(y), "n_support": est.n_support_,
            "positive_fraction": float(np.mean(y == 1))}
