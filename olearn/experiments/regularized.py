"""The experiments of section 4 of Shen and Dietterich (SDM 2009), for the book.

Orchestration only: every learner, the four-phase streams and the feature
selection are olearn's own (:mod:`olearn.linear.regularized`, :mod:`olearn.linear.norma`,
:mod:`olearn.linear.pa`, :mod:`olearn.selection`,
:func:`olearn.datasets.four_phase_stream`); this module decides which runs to
make and keeps their records.

Protocol (the paper: "We used the first half of the data to select the
regularization parameter and then train the model on the first half. We then
measure online performance using the second half of the data."), for every
stream, trial and learner:

1. *tune*: for every value of the learner's grid (:data:`GRIDS`), one online
   pass over the first half from ``w = 0``; the value with the fewest
   mistakes wins (ties: the first in the grid's order);
2. *train*: the winning run is the model trained on the first half (the runs
   are deterministic, so re-training would repeat it);
3. *test*: that model continues online (``partial_fit``) over the second half,
   whose mistakes are the reported error.

Trial ``k`` samples the stream with ``random_state=k``
(:func:`olearn.datasets.load_four_phase`), the same stream for every learner.

Figure 2 (feature selection) re-runs, on the same trial, the L2- and
L1-constrained learners (both update conditions, :data:`TRUNCATED`) with the
trial's tuned ``beta`` and feature truncation ``sigma = f s0`` for every
``f`` in :data:`SIGMA_FRACTIONS`, with ``s0 = 1/median_t ||x_t||^2`` over the
first half (the squared norm of a single PA step from ``w = 0``: larger
``sigma`` erases whole updates), and :class:`olearn.FeatureSelected`
(information gain or the game 4.20, ``PA`` as the learner, a selection every
:data:`REFRESH` rounds) for every ``k`` of the stream's grid.  Each run is the
same train-on-the-first-half / test-on-the-second-half pass; its x-coordinate
is the mean number of nonzero weights over the test rounds
(``support_sizes_``) or ``k``.

Storage (:func:`save`, :func:`load`): small CSV files and a provenance JSON;
stream names are written as the short keys of :data:`FILE_KEYS`, and the mean
curves keep the rounds chosen by :func:`curve_rounds`.  The mean curves keep no
per-trial values, so :data:`CURVE_TRIALS` keeps every trial's cumulative test
mistakes of the Figure 1 learners at the test rounds :data:`CHECKPOINTS` and the
last (:func:`curve_trials`; written by :func:`save` only when asked,
``curve_trials=True``, and, re-running only those learners of the same trials,
by :func:`store_curve_trials`, each with its own provenance; read by
:func:`load_curve_trials`). The experiment page saves without them, so that its
check compares its run with the stored file, not with itself.
"""
import datetime
import hashlib
import json
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn.base import clone

from .runner import _versions, git_commit, git_dirty, quick_mode, t_interval
from ..selection import FeatureSelected, information_gain
from ..linear.norma import NORMA
from ..linear.pa import PA
from ..linear.regularized import L1ConstrainedPA, L2ConstrainedPA, ObjectiveRegularizedPA

USPS = "usps-3-7-vs-8-9"
NEWSGROUPS = "20newsgroups-baseball-hockey-vs-autos-motorcycles"
SRAA_STAND_IN = "20newsgroups-crypt-electronics-vs-guns-mideast"
STREAMS = (USPS, NEWSGROUPS, SRAA_STAND_IN)
SHORT_NAMES = {USPS: "USPS", NEWSGROUPS: "20NG", SRAA_STAND_IN: "20NG stand-in for SRAA"}
#: stream -> the key that stands for it in the stored files (the third stream is a
#: second 20 Newsgroups pool standing in for SRAA, which is not available)
FILE_KEYS = {USPS: "usps", NEWSGROUPS: "20ng", SRAA_STAND_IN: "20ng_standin_for_sraa"}

ALPHAS = (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2)
L2_BETAS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
L1_BETAS = (2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0)
NORMA_ETAS = (1e-3, 3e-3, 1e-2, 3e-2, 1e-1)
NORMA_LAMS = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)

#: the three regularized learners of the paper
REGULARIZED = ("objective-regularized", "L2-constrained", "L1-constrained")
#: suffix of the every-round ablation (ours, not the paper's)
EVERY_ROUND = " (every round)"

#: label -> (estimator, grid of parameter dicts); Figure 1's learners first.
#: The regularized learners are the paper's algorithms: they solve their problem only
#: when the classifier errs (section 2, ``update_on="mistake"``, the learners' default).
#: PA is the paper's baseline (Crammer et al.: every round with a positive loss).
GRIDS = {
    "PA": (PA(), [{}]),
    "NORMA": (NORMA(), [{"eta": e, "lam": lam} for e in NORMA_ETAS
                        for lam in NORMA_LAMS]),
    "objective-regularized": (ObjectiveRegularizedPA(update_on="mistake"),
                              [{"alpha": a} for a in ALPHAS]),
    "L2-constrained": (L2ConstrainedPA(update_on="mistake"),
                       [{"beta": b} for b in L2_BETAS]),
    "L1-constrained": (L1ConstrainedPA(update_on="mistake"),
                       [{"beta": b} for b in L1_BETAS]),
}
# Ablation, ours and not the paper's: PA solved only on mistakes (problem 3.1 with
# alpha = 0, the mistake-driven reference for the paper's learners), and the three
# regularized learners solving their problem on every round (as the PA baseline does).
GRIDS["PA (mistake)"] = (ObjectiveRegularizedPA(alpha=0.0, update_on="mistake"), [{}])
for _label in REGULARIZED:
    _est, _grid = GRIDS[_label]
    GRIDS[_label + EVERY_ROUND] = (clone(_est).set_params(update_on="round"), _grid)
FIGURE1 = ("PA", "NORMA", "objective-regularized", "L2-constrained",
           "L1-constrained")
#: the learners truncated in Figure 2 and drawn in Figure 3
TRUNCATED = ("L2-constrained", "L1-constrained", "L2-constrained" + EVERY_ROUND,
             "L1-constrained" + EVERY_ROUND)
FIGURE3 = ("PA", "L2-constrained", "L1-constrained", "PA (mistake)",
           "L2-constrained" + EVERY_ROUND, "L1-constrained" + EVERY_ROUND)

SIGMA_FRACTIONS = (0.01, 0.03, 0.1, 0.3, 0.5, 0.7, 0.9)
#: stream -> (k grid of information gain, k grid of the game)
K_GRIDS = {
    USPS: ((8, 16, 32, 64, 128), (8, 16, 32, 64, 128)),
    NEWSGROUPS: ((16, 32, 64, 128, 256, 1024, 4096), (16, 32, 64, 128, 256)),
    SRAA_STAND_IN: ((16, 32, 64, 128, 256, 1024, 4096), (16, 32, 64, 128, 256)),
}
REFRESH = 100          # rounds between two selections of FeatureSelected
N_CANDIDATES = 256     # the game is played on max(256, 2k) features by IG
#: the test rounds (with the last) at which :data:`CURVE_TRIALS` keeps every trial's
#: cumulative error: the checkpoints the scoreboard's two rows on Figure 1's gaps read
CHECKPOINTS = (100,)
#: every trial's cumulative test mistakes at :data:`CHECKPOINTS` (Figure 1's learners)
CURVE_TRIALS = "curves_trials.csv"


# -- streams -------------------------------------------------------------------
@lru_cache(maxsize=4)
def _pool(name):
    from .. import datasets

    entry = datasets.info(name)
    pool = datasets.load(name)
    return pool.X, pool.source_class, entry.four_phase


def four_phase(name, trial):
    """Trial ``trial``'s stream: :func:`olearn.datasets.load_four_phase` with
    ``random_state=trial``, from a pool loaded once per process."""
    from ..datasets import four_phase_stream

    X, source_class, c = _pool(name)
    return four_phase_stream(X, source_class, c.P1, c.P2, c.N1, c.N2,
                             c.n_per_phase, trial)


def stream_stats(X, y):
    """``T``, the columns that occur (``d_used``), ``R`` and the median ``||x||^2``."""
    if sp.issparse(X):
        sq = np.asarray(X.multiply(X).sum(axis=1)).ravel()
        used = int(np.unique(X.indices[X.data != 0]).size)
    else:
        sq = np.einsum("ij,ij->i", X, X)
        used = int(np.count_nonzero(np.any(X != 0, axis=0)))
    return {"T": int(len(y)), "d_pool": int(X.shape[1]), "d_used": used,
            "R": float(np.sqrt(sq.max())), "median_sq_norm": float(np.median(sq))}


# -- one learner: tune on the first half, test on the second -------------------
@dataclass
class TunedRun:
    """A learner tuned, trained on the first half and tested on the second."""

    params: dict            # the chosen grid value
    tuning: list            # (params, first-half mistakes, second-half mistakes)
    model: object           # fitted on the whole stream (train, then test)
    test_mistakes: np.ndarray  # bool, one per round of the second half
    seconds: float          # wall time of tuning + testing (every grid value)


def tune_then_test(estimator, grid, X, y, half):
    """Steps 1-3 of the protocol (module docstring) for one learner.

    Every grid value's run also continues over the second half, so that
    ``tuning`` records what each value would have scored there (the paper's
    remark that tuning on the second half gives similar results); the choice
    uses the first half only.
    """
    start = time.perf_counter()
    best = None
    tuning = []
    for params in grid:
        run = clone(estimator).set_params(**params).fit(X[:half], y[:half])
        first = int(run.n_mistakes_)
        run.partial_fit(X[half:], y[half:])
        tuning.append((params, first, int(run.n_mistakes_) - first))
        if best is None or first < best[0]:
            best = (first, params, run)
    _, params, model = best
    return TunedRun(params, tuning, model,
                    np.asarray(model.mistakes_[half:], dtype=bool),
                    time.perf_counter() - start)


def train_then_test(estimator, X, y, half):
    """One run: fit on the first half, continue over the second; the model."""
    model = clone(estimator).fit(X[:half], y[:half])
    model.partial_fit(X[half:], y[half:])
    return model


def mistakes_digest(mistakes):
    """A short fingerprint of a mistake sequence (sha256 of its packed bits)."""
    bits = np.packbits(np.asarray(mistakes, dtype=bool))
    return hashlib.sha256(bits.tobytes()).hexdigest()[:16]


# -- one trial --------------------------------------------------------------------
def run_trial(name, trial, learners=None, figure2=True):
    """Every run of one stream and trial; a dict of small tables and arrays.

    Keys: ``stats`` (one row), ``runs`` (one row per learner: chosen
    parameters, test mistakes and rate, digest of the test mistakes),
    ``tuning`` (one row per learner and grid value), ``test_mistakes``
    ({learner: bool array}), ``figure2`` (one row per method and setting),
    ``weights`` ({learner: final w} for the Figure 3 learners, plus the
    information gain of every feature over the whole stream).
    """
    X, y, _, _ = four_phase(name, trial)
    half = len(y) // 2
    stats = {"stream": name, "trial": trial, **stream_stats(X, y)}
    labels = list(GRIDS) if learners is None else list(learners)
    runs, tuning, test_mistakes, models = [], [], {}, {}
    for label in labels:
        estimator, grid = GRIDS[label]
        tuned = tune_then_test(estimator, grid, X, y, half)
        models[label] = tuned.model
        test_mistakes[label] = tuned.test_mistakes
        n = int(tuned.test_mistakes.sum())
        runs.append({"stream": name, "trial": trial, "learner": label,
                     "params": json.dumps(tuned.params, sort_keys=True),
                     "test_rounds": len(y) - half, "test_mistakes": n,
                     "test_error": n / (len(y) - half),
                     "mistakes_digest": mistakes_digest(tuned.test_mistakes),
                     "seconds": tuned.seconds})
        tuning += [{"stream": name, "trial": trial, "learner": label,
                    "params": json.dumps(p, sort_keys=True),
                    "first_half_mistakes": m1, "second_half_mistakes": m2}
                   for p, m1, m2 in tuned.tuning]
    out = {"stats": stats, "runs": runs, "tuning": tuning,
           "test_mistakes": test_mistakes}
    if figure2:
        out["figure2"] = _feature_selection_runs(name, trial, X, y, half,
                                                 models, stats)
    out["weights"] = {label: np.abs(models[label].coef_.ravel())
                      for label in FIGURE3 if label in models}
    out["weights"]["information gain"] = information_gain(X, y)
    return out


def _feature_selection_runs(name, trial, X, y, half, models, stats):
    rows = []
    s0 = 1.0 / stats["median_sq_norm"]

    def row(method, setting, value, model, n_features):
        mistakes = np.asarray(model.mistakes_[half:], dtype=bool)
        rows.append({"stream": name, "trial": trial, "method": method,
                     "setting": setting, "value": value,
                     "n_features": float(n_features),
                     "test_error": float(mistakes.mean()),
                     "mistakes_digest": mistakes_digest(mistakes)})

    for label in TRUNCATED:
        if label not in models:
            continue
        beta = models[label].beta
        for f in SIGMA_FRACTIONS:
            est = clone(GRIDS[label][0]).set_params(beta=beta,
                                                    truncate_sigma=f * s0)
            model = train_then_test(est, X, y, half)
            row(label, "sigma / s0", f, model,
                model.support_sizes_[half:].mean())
    ig_grid, game_grid = K_GRIDS[name]
    for method, grid in (("info_gain", ig_grid), ("game", game_grid)):
        for k in grid:
            est = FeatureSelected(PA(), method, k, refresh=REFRESH,
                                  n_candidates=N_CANDIDATES)
            row({"info_gain": "information gain", "game": "game-theoretic"}[method],
                "k", k, train_then_test(est, X, y, half), k)
    return rows


# -- many trials --------------------------------------------------------------------
@dataclass
class Experiment:
    """The records of :func:`run`: tables, test-mistake arrays, weights."""

    stats: pd.DataFrame
    runs: pd.DataFrame
    tuning: pd.DataFrame
    figure2: pd.DataFrame
    test_mistakes: dict = field(default_factory=dict)  # (stream, learner) -> (trials, T/2)
    weights: dict = field(default_factory=dict)        # learner -> |w| (USPS, trial 0)
    seconds: float = float("nan")


def run(streams=STREAMS, trials=range(40), n_jobs=2, figure2=True, learners=None):
    """:func:`run_trial` for every stream and trial, ``n_jobs`` at a time (``learners``:
    the labels of :data:`GRIDS` to run, all if None; each is tuned on its own, so a subset
    repeats those learners' runs exactly)."""
    tasks = [(name, int(k)) for name in streams for k in trials]
    start = time.perf_counter()
    outs = Parallel(n_jobs=n_jobs)(delayed(run_trial)(name, k, learners=learners,
                                                      figure2=figure2)
                                   for name, k in tasks)
    seconds = time.perf_counter() - start
    frame = (lambda key: pd.DataFrame([r for o in outs for r in o.get(key, [])]))
    mistakes = {}
    for (name, _), o in zip(tasks, outs):
        for label, m in o["test_mistakes"].items():
            mistakes.setdefault((name, label), []).append(m)
    weights = next((o["weights"] for (name, k), o in zip(tasks, outs)
                    if name == USPS and k == 0), {})
    return Experiment(
        stats=pd.DataFrame([o["stats"] for o in outs]), runs=frame("runs"),
        tuning=frame("tuning"), figure2=frame("figure2"),
        test_mistakes={key: np.array(v) for key, v in mistakes.items()},
        weights=weights, seconds=seconds)


# -- summaries ----------------------------------------------------------------------
def summarize_runs(runs):
    """Per stream and learner: mean test error, std and the 95% half-width."""
    rows = []
    for (name, label), g in runs.groupby(["stream", "learner"], sort=False):
        mean, half = t_interval(g["test_error"])
        rows.append({"stream": name, "learner": label, "trials": len(g),
                     "test_error_mean": float(mean),
                     "test_error_std": float(g["test_error"].std(ddof=1)),
                     "ci95_half_width": float(half),
                     "seconds_mean": float(g["seconds"].mean())})
    return pd.DataFrame(rows)


def paired_difference(runs, name, a, b):
    """Mean and 95% half-width of ``error(a) - error(b)`` over paired trials."""
    g = runs[runs["stream"] == name].pivot(index="trial", columns="learner",
                                           values="test_error")
    return t_interval((g[a] - g[b]).to_numpy())


def cumulative_error_curves(test_mistakes):
    """``(stream, learner) -> DataFrame(round, mean, low, high)`` of ``M_t / t``
    over the second half (95% t-interval of the mean over trials)."""
    out = {}
    for key, m in test_mistakes.items():
        t = np.arange(1, m.shape[1] + 1)
        rate = np.cumsum(m, axis=1) / t
        mean, half = t_interval(rate)
        out[key] = pd.DataFrame({"round": t, "mean": mean, "low": mean - half,
                                 "high": mean + half})
    return out


def curve_trials(experiment, rounds=CHECKPOINTS, learners=FIGURE1):
    """Every trial's cumulative test mistakes ``M_t`` and error ``M_t / t`` at the test
    rounds ``rounds`` and the last, per stream and learner of ``learners`` (those run):
    columns ``stream, trial, learner, round, mistakes, cumulative_error``.

    The rows of ``experiment.test_mistakes[(stream, learner)]`` are the trials in the order
    of ``experiment.runs``; each row's digest is checked against the run's record."""
    runs = experiment.runs
    rows = []
    for (name, label), m in experiment.test_mistakes.items():
        if label not in learners:
            continue
        part = runs[(runs["stream"] == name) & (runs["learner"] == label)]
        if len(part) != len(m) or any(mistakes_digest(row) != digest for row, digest
                                      in zip(m, part["mistakes_digest"])):
            raise ValueError(f"the test mistakes of {label} on {name} do not match the "
                             "experiment's runs (their trials or digests differ)")
        n_rounds = m.shape[1]
        keep = sorted({int(r) for r in rounds if 1 <= r <= n_rounds} | {n_rounds})
        cumulative = np.cumsum(m, axis=1)
        for trial, counts in zip(part["trial"], cumulative):
            rows += [{"stream": name, "trial": int(trial), "learner": label, "round": r,
                      "mistakes": int(counts[r - 1]),
                      "cumulative_error": float(counts[r - 1] / r)} for r in keep]
    columns = ["stream", "trial", "learner", "round", "mistakes", "cumulative_error"]
    table = pd.DataFrame(rows, columns=columns)
    order = {name: i for i, name in enumerate(STREAMS)}
    rank = {label: i for i, label in enumerate(GRIDS)}
    key = lambda c: c.map(order) if c.name == "stream" else (   # noqa: E731
        c.map(rank) if c.name == "learner" else c)
    return table.sort_values(["stream", "trial", "learner", "round"], key=key,
                             ignore_index=True)


def compare_curve_trials(experiment, stored):
    """:func:`curve_trials` of ``experiment`` beside the stored rows (``stored``: the table
    of :func:`load_curve_trials`) of the same stream, trial, learner and round, with a
    column ``same`` (equal cumulative mistakes); a re-run row missing from the store is
    not the same."""
    keys = ["stream", "trial", "learner", "round"]
    mine = curve_trials(experiment, learners=tuple(stored["learner"].unique()))
    out = mine.merge(stored, on=keys, how="left", suffixes=("", "_stored"),
                     validate="one_to_one")
    out["same"] = out["mistakes"] == out["mistakes_stored"]
    return out


def curve_rounds(rounds, every=4, first=100):
    """The rounds a stored curve keeps: all of the first ``first``, then every
    ``every``-th and the last (the curves are smooth; the files stay small)."""
    rounds = np.asarray(rounds)
    return (rounds <= first) | (rounds % every == 0) | (rounds == rounds.max())


def summarize_figure2(figure2):
    """Per stream, method and setting: mean features, mean error, 95% half-widths."""
    rows = []
    keys = ["stream", "method", "setting", "value"]
    columns = keys + ["trials", "n_features_mean", "n_features_ci95",
                      "test_error_mean", "test_error_ci95"]
    if figure2.empty:
        return pd.DataFrame(columns=columns)
    for key, g in figure2.groupby(keys, sort=False):
        err, err_half = t_interval(g["test_error"])
        nf, nf_half = t_interval(g["n_features"])
        rows.append({**dict(zip(keys, key)), "trials": len(g),
                     "n_features_mean": float(nf), "n_features_ci95": float(nf_half),
                     "test_error_mean": float(err), "test_error_ci95": float(err_half)})
    return pd.DataFrame(rows, columns=columns)


# -- storage ----------------------------------------------------------------------
def _curve_file(name):
    return f"curves_{FILE_KEYS[name]}.csv"


def _to_file(frame):
    """Stream names -> their short file keys (the stored tables stay small)."""
    if "stream" not in frame:
        return frame
    return frame.assign(stream=frame["stream"].map(FILE_KEYS))


def _from_file(frame):
    if "stream" not in frame:
        return frame
    names = {key: name for name, key in FILE_KEYS.items()}
    return frame.assign(stream=frame["stream"].map(names))


def settings():
    """The experiment's settings, as recorded in the provenance."""
    return {
        "streams": list(STREAMS),
        "grids": {label: {"class": f"{type(est).__module__}.{type(est).__name__}",
                          "fixed": {k: v for k, v in est.get_params().items()
                                    if k in ("alpha", "update_on", "rho",
                                             "schedule", "variant", "epsilon")
                                    and k not in grid[0]},
                          "values": grid}
                  for label, (est, grid) in GRIDS.items()},
        "sigma_fractions": list(SIGMA_FRACTIONS),
        "k_grids": {name: {"info_gain": list(ig), "game": list(game)}
                    for name, (ig, game) in K_GRIDS.items()},
        "feature_selection": {"learner": "olearn.linear.pa.PA()", "refresh": REFRESH,
                              "n_candidates": N_CANDIDATES, "threshold": 0.0},
        "tie_break": "first value of the grid",
    }


def save(experiment, directory, *, curve_trials=False, **extra):
    """Write every table, the curve means and the provenance into ``directory``; with
    ``curve_trials=True`` also the per-trial checkpoints (:data:`CURVE_TRIALS`, with their
    own provenance, :func:`save_curve_trials`). By default a stored :data:`CURVE_TRIALS` is
    left as it is, so that a run can be checked against it (:func:`compare_curve_trials`)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    tables = {"stats": experiment.stats, "runs": experiment.runs,
              "tuning": experiment.tuning, "figure2": experiment.figure2,
              "summary": summarize_runs(experiment.runs),
              "figure2_summary": summarize_figure2(experiment.figure2)}
    for key, frame in tables.items():
        _to_file(frame).to_csv(directory / f"{key}.csv", index=False)
    pd.DataFrame(experiment.weights).to_csv(directory / "figure3_weights.csv",
                                            index=False, float_format="%.6g")
    curves = cumulative_error_curves(experiment.test_mistakes)
    for name in experiment.runs["stream"].unique():
        parts = []
        for label in experiment.runs["learner"].unique():
            c = curves[(name, label)].set_index("round")
            parts.append(c.add_prefix(f"{label}:"))
        table = pd.concat(parts, axis=1).reset_index()
        table[curve_rounds(table["round"])].to_csv(
            directory / _curve_file(name), index=False, float_format="%.5g")
    from .. import __version__

    provenance = {
        "chapter": "book/regularized/experiment.ipynb",
        "olearn_version": __version__,
        "git_commit": git_commit(),
        "git_dirty": git_dirty(),
        "date_utc": datetime.datetime.now(datetime.timezone.utc)
                    .isoformat(timespec="seconds"),
        "quick_mode": quick_mode(),
        "trials": sorted(int(k) for k in experiment.runs["trial"].unique()),
        "streams": list(experiment.runs["stream"].unique()),
        "seconds": experiment.seconds,
        "versions": _versions(),
        "settings": settings(),
        **extra,
    }
    with open(directory / "provenance.json", "w") as handle:
        json.dump(provenance, handle, indent=2, sort_keys=True)
        handle.write("\n")
    if curve_trials:
        save_curve_trials(experiment, directory,
                          command=extra.get("executed_by", "regularized.save"),
                          note="written by regularized.save with the full run of provenance.json",
                          commit=(provenance["git_commit"], provenance["git_dirty"]))
    return directory


def _host():
    """The CPU's model name, the number of cores and the load average (provenance)."""
    import os
    import platform

    cpu = platform.processor()
    if os.path.exists("/proc/cpuinfo"):
        cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                    if line.startswith("model name")), cpu)
    return {"host_cpu": cpu, "cores": os.cpu_count(),
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()]}


def save_curve_trials(experiment, directory, command, note="", commit=None):
    """Write :func:`curve_trials` of ``experiment`` to ``directory`` /
    :data:`CURVE_TRIALS` with its provenance (``curves_trials.provenance.json``: commit,
    whether the tree had uncommitted changes, date, mode, trials, streams, learners,
    rounds, seconds of the run, host). ``commit``: ``(git_commit(), git_dirty())`` taken
    when the run started (now if None)."""
    from .. import __version__

    commit, dirty = commit if commit is not None else (git_commit(), git_dirty())

    directory = Path(directory)
    table = curve_trials(experiment)
    _to_file(table).to_csv(directory / CURVE_TRIALS, index=False, float_format="%.10g")
    record = {
        "file": CURVE_TRIALS, "command": command,
        "olearn_version": __version__, "git_commit": commit, "git_dirty": dirty,
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "quick_mode": quick_mode(),
        "trials": sorted(int(k) for k in table["trial"].unique()),
        "streams": [n for n in STREAMS if n in set(table["stream"])],
        "learners": [label for label in GRIDS if label in set(table["learner"])],
        "checkpoints": list(CHECKPOINTS) + ["last"], "settings": settings(),
        "seconds": round(float(experiment.seconds), 1), **_host(), "versions": _versions(),
        "note": note or "every trial's cumulative test mistakes of Figure 1's learners at the "
                        "checkpoints; read by olearn.experiments.board.shen2009",
    }
    path = directory / CURVE_TRIALS.replace(".csv", ".provenance.json")
    path.write_text(json.dumps(record, indent=2) + "\n")
    return table


def store_curve_trials(directory, trials=range(40), n_jobs=2):
    """Re-run Figure 1's learners (:data:`FIGURE1`, the same code path as :func:`run`: the
    same streams, trials and grids) and store :func:`curve_trials` in ``directory``, after
    checking that every re-run equals the stored run of ``directory`` (parameters, mistake
    counts and digests of :func:`compare`): the per-trial values of that experiment, not of
    another. About four minutes on two cores."""
    directory = Path(directory)
    stored = load(directory)
    commit = (git_commit(), git_dirty())          # the code that runs, before any edit
    experiment = run(STREAMS, trials, n_jobs=n_jobs, figure2=False, learners=FIGURE1)
    runs_cmp, _ = compare(experiment, stored)
    if not runs_cmp["same"].all():
        bad = runs_cmp.loc[~runs_cmp["same"], ["stream", "trial", "learner"]]
        raise ValueError(f"{len(bad)} re-runs differ from the stored run in {directory} (first: "
                         f"{bad.iloc[0].to_dict()}): not the same experiment; re-run "
                         "book/regularized/experiment.ipynb in full mode instead")
    return save_curve_trials(
        experiment, directory,
        command=f"python -m olearn.experiments.regularized {len(list(trials))} --store "
                f"{directory}",
        note=f"Figure 1's learners re-run on the trials of the stored run (commit "
             f"{stored.provenance['git_commit']}); all {len(runs_cmp)} tuned runs equal it "
             "(parameters, test mistakes, digests); read by olearn.experiments.board.shen2009",
        commit=commit)


def load_curve_trials(directory):
    """The stored :data:`CURVE_TRIALS` (stream names restored) and its provenance."""
    directory = Path(directory)
    path = directory / CURVE_TRIALS
    if not path.is_file():
        raise FileNotFoundError(f"no {path}: run `python -m olearn.experiments.regularized 40 "
                                f"--store {directory}` (from a committed tree) to store it")
    provenance = json.loads(path.with_name(CURVE_TRIALS.replace(".csv", ".provenance.json"))
                            .read_text())
    return _from_file(pd.read_csv(path)), provenance


@dataclass
class Stored:
    """What :func:`load` reads back (tables, curves, weights, provenance)."""

    stats: pd.DataFrame
    runs: pd.DataFrame
    tuning: pd.DataFrame
    figure2: pd.DataFrame
    summary: pd.DataFrame
    figure2_summary: pd.DataFrame
    weights: pd.DataFrame
    curves: dict
    provenance: dict


def load(directory):
    """The stored full run written by :func:`save`."""
    directory = Path(directory)
    read = lambda f: _from_file(pd.read_csv(directory / f))  # noqa: E731
    provenance = json.loads((directory / "provenance.json").read_text())
    curves = {name: pd.read_csv(directory / _curve_file(name))
              for name in provenance["streams"]}
    return Stored(read("stats.csv"), read("runs.csv"), read("tuning.csv"),
                  read("figure2.csv"), read("summary.csv"),
                  read("figure2_summary.csv"), read("figure3_weights.csv"),
                  curves, provenance)


def compare(experiment, stored):
    """Rows of ``experiment`` beside the stored rows of the same trials.

    Returns ``(runs, figure2)``: the paired tables with a column ``same``
    (parameters, mistake counts and the digest of the mistake sequence all
    equal; for Figure 2 also the feature counts to 1e-9).
    """
    keys = ["stream", "trial", "learner"]
    runs = experiment.runs.merge(stored.runs, on=keys, suffixes=("", "_stored"),
                                 how="left", validate="one_to_one")
    runs["same"] = ((runs["params"] == runs["params_stored"])
                    & (runs["test_mistakes"] == runs["test_mistakes_stored"])
                    & (runs["mistakes_digest"] == runs["mistakes_digest_stored"]))
    keys = ["stream", "trial", "method", "setting", "value"]
    if experiment.figure2.empty:
        return runs, experiment.figure2.assign(same=pd.Series(dtype=bool))
    fig2 = experiment.figure2.merge(stored.figure2, on=keys, how="left",
                                    suffixes=("", "_stored"), validate="one_to_one")
    fig2["same"] = ((fig2["mistakes_digest"] == fig2["mistakes_digest_stored"])
                    & np.isclose(fig2["n_features"], fig2["n_features_stored"],
                                 rtol=1e-9, atol=0.0))
    return runs, fig2


# -- tables of the pages (bookkeeping only: they read the settings and the stored run) ----
def grid_table(settings):
    """The learners' classes, fixed parameters and tuning grids (from :func:`settings`):
    one row per learner; ``grid`` lists each parameter's values, "; " between parameters."""
    rows = []
    for label, spec in settings["grids"].items():
        values = spec["values"]
        keys = sorted(values[0]) if values[0] else []
        grid = "; ".join(f"{k}: " + ", ".join(f"{v:g}" for v in sorted({value[k] for value in values}))
                         for k in keys) or "-"
        rows.append({"learner": label, "class": spec["class"].split(".")[-1],
                     "fixed": ", ".join(f"{k}={v}" for k, v in spec["fixed"].items()) or "-",
                     "grid": grid, "size": len(values)})
    return pd.DataFrame(rows).set_index("learner")


def feature_selection_table(settings):
    """Figure 2's settings per stream: the truncation levels and the selectors' ``k``."""
    fs = settings["feature_selection"]
    rows = {SHORT_NAMES[name]: {
        "sigma / s0 (L2, L1)": ", ".join(f"{f:g}" for f in settings["sigma_fractions"]),
        "k, information gain": ", ".join(str(k) for k in grids["info_gain"]),
        "k, game": ", ".join(str(k) for k in grids["game"]),
        "refresh": fs["refresh"], "game candidates": fs["n_candidates"]}
        for name, grids in settings["k_grids"].items()}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "stream"
    return table


def comparison_table(runs_cmp, fig2_cmp):
    """:func:`compare`'s two tables summed up per stream: how many runs were compared and
    whether all of them equal the stored full run."""
    rows = {}
    for name in dict.fromkeys(runs_cmp["stream"]):
        same_runs = runs_cmp.loc[runs_cmp["stream"] == name, "same"]
        same_fig2 = fig2_cmp.loc[fig2_cmp["stream"] == name, "same"]
        rows[SHORT_NAMES.get(name, name)] = {
            "tuned runs": len(same_runs), "feature-selection runs": len(same_fig2),
            "all equal the stored run": bool(same_runs.all() and same_fig2.all())}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "stream"
    return table


def stream_table(stored):
    """Per stream of the stored run: trials, length ``T``, pool and used columns, the radius
    ``R`` and the median squared norm of the rows (means over the trials)."""
    table = stored.stats.groupby("stream", sort=False).agg(
        trials=("trial", "size"), T=("T", "first"), d_pool=("d_pool", "first"),
        d_used_mean=("d_used", "mean"), d_used_min=("d_used", "min"), d_used_max=("d_used", "max"),
        R_mean=("R", "mean"), median_sq_norm=("median_sq_norm", "mean"))
    table.index = [SHORT_NAMES[n] for n in table.index]
    return table


if __name__ == "__main__":
    # python -m olearn.experiments.regularized [n_trials] --store FOLDER: the per-trial
    # checkpoints (CURVE_TRIALS) of the stored run in FOLDER, from a committed tree
    # (through the package's module, not __main__, so that joblib's workers find run_trial)
    import sys

    from olearn.experiments import regularized as _module

    args = sys.argv[1:]
    if "--store" not in args:
        raise SystemExit("usage: python -m olearn.experiments.regularized [n_trials] --store FOLDER")
    numbers = [a for a in args if a.isdigit()]
    table = _module.store_curve_trials(args[args.index("--store") + 1],
                                       range(int(numbers[0]) if numbers else 40))
    print(table.groupby(["stream", "learner", "round"], sort=False)["cumulative_error"].mean())
