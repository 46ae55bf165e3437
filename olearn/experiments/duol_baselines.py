"""Bookkeeping shared by the book's Perceptron/PA and first-order chapters.

Both chapters run olearn's linear learners with the protocol of Zhao, Hoi and Jin
(NIPS 2009, "DUOL"): one online pass over each of 20 random permutations of a data set,
reporting the mean and standard deviation of the mistake rate. This module keeps what
the pages would otherwise repeat: the preprocessing, the streams, the paper's numbers
(transcribed from its Tables 1, 2, 3, 5 and 6), the check of a quick re-run against the
stored full run, and the paper / ours / deviation tables.

The paper's learners are Gaussian-kernel learners; ours are linear. The tables set the
numbers side by side for orientation only (see the chapters).
"""
import numpy as np
import pandas as pd
from sklearn.preprocessing import MaxAbsScaler, Normalizer

from .runner import compare_to_stored, summarize

#: Zhao, Hoi, Jin (2009), Tables 1, 2, 3, 5, 6: mistake rate (%) mean, std; support
#: vectors mean, std. Gaussian kernel, sigma = 8, C = 5. The "a1a" entry is the paper's a7a.
DUOL_PAPER = {
    "german.numer": {"n": 1000, "Perceptron": (35.305, 1.510, 353.05, 15.10),
                     "ROMMA": (35.105, 1.189, 351.05, 11.89),
                     "agg-ROMMA": (33.350, 1.287, 643.25, 12.31),
                     "ALMA2(0.9)": (34.025, 0.910, 402.00, 7.33),
                     "PA-I": (33.670, 1.278, 732.60, 9.74), "PA-II": (33.175, 1.229, 757.00, 10.02)},
    "splice": {"n": 1000, "Perceptron": (27.120, 0.975, 271.20, 9.75),
               "ROMMA": (25.560, 0.814, 255.60, 8.14), "agg-ROMMA": (22.980, 0.780, 602.95, 7.43),
               "ALMA2(0.9)": (26.040, 0.965, 314.95, 9.41),
               "PA-I": (23.815, 1.042, 665.60, 5.60), "PA-II": (23.515, 1.005, 689.00, 7.85)},
    "spambase": {"n": 4601, "Perceptron": (24.987, 0.525, 1149.65, 24.17),
                 "ROMMA": (23.953, 0.510, 1102.10, 23.44),
                 "agg-ROMMA": (21.242, 0.384, 2550.60, 27.32),
                 "ALMA2(0.9)": (23.579, 0.411, 1550.15, 15.65),
                 "PA-I": (22.112, 0.374, 2861.50, 24.36), "PA-II": (21.907, 0.340, 3029.10, 24.69)},
    "a1a": {"n": 16100, "Perceptron": (22.022, 0.202, 3545.50, 32.49),
            "ROMMA": (21.297, 0.272, 3428.85, 43.77),
            "agg-ROMMA": (20.832, 0.234, 4541.30, 109.39),
            "ALMA2(0.9)": (20.096, 0.214, 3571.05, 40.38),
            "PA-I": (21.826, 0.239, 6760.70, 47.89), "PA-II": (21.478, 0.237, 7068.40, 51.32)},
    "w7a": {"n": 24692, "Perceptron": (4.027, 0.095, 994.40, 23.57),
            "ROMMA": (4.158, 0.087, 1026.75, 21.51), "agg-ROMMA": (3.500, 0.061, 2317.70, 58.92),
            "ALMA2(0.9)": (3.518, 0.071, 1031.05, 15.33),
            "PA-I": (3.701, 0.057, 2839.60, 41.57), "PA-II": (3.571, 0.053, 3391.50, 51.94)},
}
#: the paper's times (s) for the learners of the Perceptron/PA chapter (Tables 1 and 3)
DUOL_PAPER_SECONDS = {("german.numer", "Perceptron"): 0.018, ("german.numer", "PA-I"): 0.029,
                      ("german.numer", "PA-II"): 0.030, ("spambase", "Perceptron"): 0.204,
                      ("spambase", "PA-I"): 0.490, ("spambase", "PA-II"): 0.505}

PREPROCESSING = ("sklearn MaxAbsScaler then Normalizer (unit-norm rows), fitted on the whole "
                 "data set; no intercept")


def check_transcription():
    """The kernel Perceptron and ROMMA update only on mistakes, so their support-vector
    count over ``n`` must equal their mistake rate: a check of the transcribed table."""
    for name, paper in DUOL_PAPER.items():
        for learner in ("Perceptron", "ROMMA"):
            assert abs(100 * paper[learner][2] / paper["n"] - paper[learner][0]) < 1e-3, (name, learner)
    return True


def preprocess(X):
    """Every feature scaled to [-1, 1] (``MaxAbsScaler``), then every row to unit norm."""
    return Normalizer().fit_transform(MaxAbsScaler().fit_transform(X))


def stream_of(name, permutation=0, random_state=0, dense=False):
    """The preprocessed rows of data set ``name`` in the order of permutation
    ``permutation`` of :func:`olearn.experiments.run` (seeded with ``[random_state, p]``)."""
    from ..datasets import load

    X, y = load(name)
    X = preprocess(X)
    if dense and hasattr(X, "toarray"):
        X = X.toarray()
    order = np.random.default_rng([random_state, permutation]).permutation(len(y))
    return X[order], y[order]


def empty_rows(X):
    """Number of all-zero rows of ``X`` (dense or sparse)."""
    if hasattr(X, "getnnz"):
        return int(np.count_nonzero(X.getnnz(axis=1) == 0))
    return int(np.count_nonzero(~np.any(np.asarray(X) != 0, axis=1)))


def check_against_stored(results, stored, n_permutations, full_permutations=20):
    """Assert that every (learner, permutation) computed now has exactly the stored
    mistakes and updates, on the same data and learners, and that the mean mistake rates
    equal the stored ones over the same permutations (zero tolerance).

    Returns a DataFrame, one row per data set, with the outcome of each check.
    """
    rows = []
    for name, now in results.items():
        full = stored[name]
        same_data = full.provenance["data_fingerprint"] == now.provenance["data_fingerprint"]
        same_learners = full.provenance["learners"] == now.provenance["learners"]
        full_run = (full.provenance["n_permutations"] == full_permutations
                    and not full.provenance["quick_mode"])
        paired = now.table.merge(full.table, on=["learner", "permutation"],
                                 suffixes=("", "_stored"), validate="one_to_one")
        same = (len(paired) == len(now.table)
                and (paired["n_mistakes"] == paired["n_mistakes_stored"]).all()
                and (paired["n_updates"] == paired["n_updates_stored"]).all())
        first = full.table[full.table["permutation"] < n_permutations]
        same_means = bool(compare_to_stored(now, summarize(first), tol=0.0)["within_tol"].all())
        rows.append({"dataset": name, "same data": same_data, "same learners": same_learners,
                     "stored run is full": full_run, "recomputed runs equal": bool(same),
                     "mean rates equal": same_means})
    table = pd.DataFrame(rows).set_index("dataset")
    assert table.all().all(), table
    return table


def stored_summary(stored, name, path=None):
    """The stored summary of data set ``name``, checked against the stored table."""
    recomputed = summarize(stored[name].table)
    if path is not None:
        summary = pd.read_csv(path, index_col="learner")
        pd.testing.assert_frame_equal(summary, recomputed, check_exact=False, rtol=1e-12,
                                      check_dtype=False)
    return recomputed


def paper_vs_ours(summaries, learners=None, datasets=None):
    """Mistake rates (%) of the stored full runs beside the paper's: one row per
    (data set, learner), columns ``paper, kernel (%)``, ``ours, linear (%)``, ``deviation (points)``
    (ours minus paper) side by side, then the two standard deviations, the paper's
    support vectors and our mean number of updates."""
    rows = []
    for name, summary in summaries.items():
        if datasets is not None and name not in datasets:
            continue
        paper = DUOL_PAPER.get(name, {})
        for learner, row in summary.iterrows():
            if learners is not None and learner not in learners:
                continue
            p = paper.get(learner)
            ours = 100 * row["mistake_rate_mean"]
            rows.append({
                "dataset": "a1a (paper: a7a)" if name == "a1a" else name,
                "learner": learner,
                "paper, kernel (%)": np.nan if p is None else p[0],
                "ours, linear (%)": ours,
                "deviation (points)": np.nan if p is None else ours - p[0],
                "paper std": np.nan if p is None else p[1],
                "ours std": 100 * row["mistake_rate_std"],
                "paper SVs": np.nan if p is None else p[2],
                "updates (ours)": row["n_updates_mean"],
            })
    return pd.DataFrame(rows).set_index(["dataset", "learner"])


def provenance_lines(stored):
    """One line per stored result: version, commit, dirty flag, date, settings."""
    lines = []
    for name, result in stored.items():
        p = result.provenance
        lines.append(f"{name}: olearn {p['olearn_version']}, commit {p['git_commit']} "
                     f"(uncommitted changes: {p.get('git_dirty')}), run {p['date_utc']}, "
                     f"{p['n_permutations']} permutations, quick mode {p['quick_mode']}, "
                     f"numpy {p['versions']['numpy']}, numba {p['versions']['numba']}")
    return "\n".join(lines)


def majority_rate(name):
    """The mistake rate of always predicting the more frequent label."""
    from ..datasets import load

    labels = np.asarray(load(name).y)
    positive = np.mean(labels == np.unique(labels)[1])
    return float(min(positive, 1 - positive))


def paired_difference(table, a, b, confidence=0.95):
    """Learner ``a`` minus learner ``b`` on the same permutations of a stored table.

    ``table`` is a tidy run table (columns ``learner``, ``permutation``,
    ``mistake_rate``).  Returns a dict: ``mean`` difference of the mistake rate in
    percentage points, the t-interval ``low``/``high`` of that mean over the
    permutations (paired: both learners saw the same stream), and the counts of
    permutations where ``a`` makes fewer (``wins``), as many (``ties``) or more
    (``losses``) mistakes.  ``below_zero``/``above_zero``: the interval excludes 0.
    """
    from .runner import t_interval

    wide = table.pivot(index="permutation", columns="learner", values="mistake_rate")
    missing = [n for n in (a, b) if n not in wide.columns]
    if missing:
        raise ValueError(f"no learner {missing} in the table; it has {list(wide.columns)}.")
    d = 100.0 * (wide[a] - wide[b]).dropna().to_numpy()
    if d.size < 2:
        raise ValueError(f"{a} and {b} share {d.size} permutation(s); an interval needs 2.")
    mean, half = t_interval(d, confidence)
    return {"mean": float(mean), "low": float(mean - half), "high": float(mean + half),
            "n": int(d.size), "wins": int((d < 0).sum()), "ties": int((d == 0).sum()),
            "losses": int((d > 0).sum()), "below_zero": bool(mean + half < 0),
            "above_zero": bool(mean - half > 0)}
