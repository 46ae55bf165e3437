"""Every learner of olearn on the two running streams, side by side (the book's closing chapter).

Protocol. For each running stream (:mod:`olearn.datasets.running`) and each permutation
``p`` of its training part (the runner's pairing, ``default_rng([0, p])``), a fresh clone of
every learner of :func:`learners` makes its online pass(es) over the stream. A task records

``n_rounds, n_mistakes, mistake_rate``
    the online record (mistakes made *before* each update; every round of every pass);
``test_error``
    the error of the final model on the stream's held-out test part;
``seconds``
    wall time of ``fit`` after a warm-up fit on two rows (numba compilation not counted);
``model_bytes``
    bytes of the fitted state (:func:`model_bytes`: every array the fitted learner holds,
    without the per-round record).

The learners are discovered from :data:`olearn.catalog.CATALOG` (every public class of
``olearn.__all__``; the four ranking functions are not learners), with the parameters of
:data:`PARAMS`. Two exceptions, stated on the page: Winnow learners (and EFS, which runs
Modified Balanced Winnow) need ``x >= 0`` and do not run on USPS, whose pixels are signed;
OnlineSVM re-solves its dual over all examples seen after every mistake, so on spambase it
reads only the first :data:`ROUND_CAPS` rounds of each stream.

Tasks run through the runner's joblib path (:func:`olearn.experiments.runner._parallel`, a tqdm
bar). A full run (``OLEARN_QUICK`` unset) is stored by :func:`save` in
``book/results/practitioners/`` (``runs.csv``, ``provenance.json`` with date, commit, load
average and duration); in quick mode the page re-runs the learners whose stored fit took less
than :data:`QUICK_SECONDS` on permutation 0 and :func:`check_quick` asserts that every count
and test error equals the stored one (times are not compared).

``python -m olearn.experiments.practitioners [OUTDIR]`` makes the full run.
"""
from __future__ import annotations

import datetime
import inspect
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from joblib import delayed
from sklearn.base import clone

from .runner import (_jsonable, _parallel, _progress, _versions, _warm_up, deterministic,
                     git_commit, git_dirty, quick_mode)

#: permutations of a full run
N_PERMUTATIONS = 5
#: rounds read by a learner whose pass would blow the budget: {(learner, stream): rounds}
ROUND_CAPS = {("OnlineSVM", "spambase"): 1200}
#: quick mode re-runs the learners whose stored mean fit time is below this (seconds)
QUICK_SECONDS = 0.5
#: learners that need x >= 0 (Winnow's multiplicative update)
NONNEGATIVE = ("PositiveWinnow", "BalancedWinnow", "ModifiedBalancedWinnow",
               "ExtremalFeatureSelection")


#: Gaussian width of the kernel learners here. The DUOL pages' sigma = 8 suits the paper's
#: data; on unit-norm rows (pairwise distances <= 2) it makes the kernel almost constant.
#: Chosen by :func:`sigma_table` among SIGMA_CANDIDATES by the lowest mean *validation* error
#: (a quarter of the training part held out, :func:`validation_split`); the test set the
#: page's table reports plays no part in the choice (tests/test_practitioners_sigma.py).
KERNEL_SIGMA = 0.5
SIGMA_CANDIDATES = (0.5, 1.0, 2.0)
SIGMA_PROBES = ("KernelPerceptron", "KernelPA", "DUOL")
#: fraction of each training part held out to choose sigma
VALIDATION_FRACTION = 0.25
RBF_SIGMA_LEARNERS = ("KernelPerceptron", "KernelROMMA", "KernelAggressiveROMMA", "KernelALMA",
                      "KernelPA", "OnlineSVM", "DUOL", "KernelAROW")


def _params():
    """The parameters each learner runs with: its defaults (the paper's) unless stated."""
    import olearn

    return {
        "PA": dict(variant="PA-I", C=1.0),                  # the opening's PA-I
        "NORMA": dict(eta=0.1, lam=0.01),
        "L2ConstrainedPA": dict(beta=10.0),                  # radius of the ball around 0
        "L1ConstrainedPA": dict(beta=100.0),
        "FeatureSelected": dict(learner=olearn.PA(), k=20),  # PA on the 20 best features
        "ExtremalFeatureSelection": dict(n_features=20),     # MBW on 20 features
        "SBCW": dict(batch_size=100),                        # one batch would be one update
        "SOFS": dict(B=20),
        "SparDCA": dict(random_state=0),                     # 10 shuffled passes
        "Averaged": dict(learner=olearn.Perceptron()),       # the voted Perceptron's average
        **{name: dict(sigma=KERNEL_SIGMA) for name in RBF_SIGMA_LEARNERS},
    }


PARAMS_NOTE = {
    "PA": "PA-I, C = 1", "NORMA": "eta = 0.1, lambda = 0.01", "L2ConstrainedPA": "beta = 10",
    "L1ConstrainedPA": "beta = 100", "FeatureSelected": "PA on 20 features (info gain)",
    "ExtremalFeatureSelection": "MBW on 20 features", "SBCW": "batches of 100",
    "SOFS": "B = 20", "SparDCA": "10 passes", "Averaged": "of the Perceptron",
    **{name: f"sigma = {KERNEL_SIGMA}" for name in RBF_SIGMA_LEARNERS},
    "OnlineSVM": f"sigma = {KERNEL_SIGMA}, first {ROUND_CAPS[('OnlineSVM', 'spambase')]} rounds on spambase",
}


def learners():
    """``{name: unfitted estimator}`` for every public learner class of the catalog."""
    import olearn
    from ..catalog import CATALOG

    params = _params()
    out = {}
    for entry in CATALOG:
        obj = getattr(olearn, entry.name)
        if inspect.isclass(obj):
            out[entry.name] = obj(**params.get(entry.name, {}))
    return out


def not_run_reason(name, stream):
    """Why learner ``name`` does not run on ``stream`` (a RunningStream), or None."""
    if name in NONNEGATIVE and np.min(stream.X_train) < 0:
        return "needs x >= 0 (signed pixels)"
    return None


# -- the size of a fitted model -------------------------------------------------
_RECORD = {"mistakes_", "margins_", "_mistake_buffer", "_margin_buffer"}


def model_bytes(estimator):
    """Bytes of the arrays a fitted estimator holds, without its per-round record.

    Walks the estimator's attributes (nested estimators, lists, tuples, dicts, sparse
    matrices), counts every numpy array once (by its memory block) and leaves out the
    record (``mistakes_``, ``margins_``, their buffers and the learner's own per-round
    arrays, ``_per_round_record``).
    """
    seen, total = set(), 0

    def add(array):
        nonlocal total
        base = array
        while isinstance(base.base, np.ndarray):
            base = base.base
        key = (base.__array_interface__["data"][0], base.nbytes)
        if key not in seen:
            seen.add(key)
            total += base.nbytes

    def walk(value, depth=0):
        if depth > 6 or isinstance(value, type):
            return
        if isinstance(value, np.ndarray):
            if value.dtype != object:
                add(value)
            else:
                for item in value.ravel():
                    walk(item, depth + 1)
        elif sp.issparse(value):
            for name in ("data", "indices", "indptr", "row", "col"):
                if hasattr(value, name):
                    add(np.asarray(getattr(value, name)))
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item, depth + 1)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item, depth + 1)
        elif hasattr(value, "get_params") or hasattr(value, "__dict__") and \
                type(value).__module__.startswith("olearn"):
            skip = _RECORD | set(getattr(type(value), "_per_round_record", ()))
            params = set(value.get_params(deep=False)) if hasattr(value, "get_params") else set()
            for name, item in vars(value).items():
                if name in skip or name in params:
                    continue
                walk(item, depth + 1)

    walk(estimator)
    return int(total)


# -- one task -------------------------------------------------------------------
def _task(index, estimator, X, y, X_test, y_test, permutation, n_rounds):
    """Fit a clone on permutation ``permutation`` of ``(X, y)`` (first ``n_rounds`` rows)."""
    from ..datasets.running import order

    rows = order(len(y), permutation)[:n_rounds]
    X, y = X[rows], y[rows]
    _warm_up(estimator, X, y)
    model = clone(estimator)
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    n_mistakes = getattr(model, "n_mistakes_", None)
    rounds = getattr(model, "n_rounds_", None)
    record = {
        "n_rounds": np.nan if rounds is None else int(rounds),
        "n_mistakes": np.nan if n_mistakes is None else int(n_mistakes),
        "mistake_rate": np.nan if n_mistakes is None else n_mistakes / rounds,
        "test_mistakes": int(np.count_nonzero(model.predict(X_test) != y_test)),
        "test_error": float(np.mean(model.predict(X_test) != y_test)),
        "seconds": seconds,
        "model_bytes": model_bytes(model),
    }
    return index, record


RUN_COLUMNS = ["stream", "learner", "permutation", "stream_rows", "n_rounds", "n_mistakes",
               "mistake_rate", "test_mistakes", "test_error", "seconds", "model_bytes"]


def run(n_permutations=None, names=None, n_jobs=1, progress=True, streams=None):
    """The tidy table of every (stream, learner, permutation) task (see the module docstring).

    ``n_permutations`` defaults to :data:`N_PERMUTATIONS` (1 in quick mode); ``names``
    restricts the learners (``{stream: [names]}`` or a list for both streams).
    """
    from ..datasets.running import running_streams

    if n_permutations is None:
        n_permutations = 1 if quick_mode() else N_PERMUTATIONS
    streams = running_streams() if streams is None else streams
    every = learners()
    tasks = []
    for stream_name, stream in streams.items():
        wanted = names.get(stream_name, []) if isinstance(names, dict) else names
        for name, est in every.items():
            if (wanted is not None and name not in wanted) or not_run_reason(name, stream):
                continue
            if not deterministic(est):
                raise ValueError(f"{name} is not deterministic; give it a random_state.")
            cap = ROUND_CAPS.get((name, stream_name))
            for p in range(n_permutations):
                tasks.append((stream_name, name, p, cap))
    jobs = (delayed(_task)(i, every[name], streams[s].X_train, streams[s].y_train,
                           streams[s].X_test, streams[s].y_test, p, cap)
            for i, (s, name, p, cap) in enumerate(tasks))
    records = {}
    for i, record in _progress(_parallel(n_jobs)(jobs), len(tasks), "practitioners", progress):
        records[i] = record
    rows = [{"stream": s, "learner": name, "permutation": p,
             "stream_rows": cap or len(streams[s].y_train), **records[i]}
            for i, (s, name, p, cap) in enumerate(tasks)]
    return pd.DataFrame(rows, columns=RUN_COLUMNS)


def on_running_streams(models, permutation=0, streams=None):
    """One pass of each of ``models`` (``{label: estimator}``) over order ``permutation`` of
    both running streams: a table of online mistake rate and test error (%) per stream, for
    the parts' "On the running streams" sections (NaN where a learner cannot run)."""
    from ..datasets.running import running_streams

    streams = running_streams() if streams is None else streams
    columns = {}
    for name, stream in streams.items():
        X, y = stream.stream(permutation)
        for label, model in models.items():
            online = test = np.nan
            if not not_run_reason(type(model).__name__, stream):
                fitted = clone(model).fit(X, y)
                rounds = getattr(fitted, "n_rounds_", None)
                online = np.nan if rounds is None else 100 * fitted.n_mistakes_ / rounds
                test = 100 * np.mean(fitted.predict(stream.X_test) != stream.y_test)
            columns.setdefault((name, "online %"), {})[label] = online
            columns.setdefault((name, "test %"), {})[label] = test
    table = pd.DataFrame(columns)
    table.index.name = "learner"
    return table


def validation_split(stream, fraction=VALIDATION_FRACTION):
    """``(X_fit, y_fit, X_val, y_val)``: order 0 of the training part, its last ``fraction``
    held out. Order 0 is a random permutation, so the held-out rows are a random part of the
    training data; the test part is not touched."""
    X, y = stream.stream(0)
    n_fit = len(y) - int(round(fraction * len(y)))
    return X[:n_fit], y[:n_fit], X[n_fit:], y[n_fit:]


def sigma_table(sigmas=SIGMA_CANDIDATES + (8.0,), streams=None, on="validation"):
    """Error (%) of :data:`SIGMA_PROBES` for each Gaussian width in ``sigmas`` (rows: sigma;
    columns: (stream, learner)) and its row mean.

    ``on="validation"`` (the choice of :data:`KERNEL_SIGMA`): one pass over the first part of
    :func:`validation_split`, error on its held-out rows. ``on="test"``: one pass over order 0
    of the whole training part, error on the test part (shown on the page only to say how
    much the choice matters, never used to make it).
    """
    import olearn
    from ..datasets.running import running_streams

    if on not in ("validation", "test"):
        raise ValueError(f"on={on!r}: use 'validation' (to choose sigma) or 'test'.")
    streams = running_streams() if streams is None else streams
    rows = {}
    for sigma in sigmas:
        row = {}
        for s_name, stream in streams.items():
            if on == "validation":
                X_fit, y_fit, X_eval, y_eval = validation_split(stream)
            else:
                (X_fit, y_fit), X_eval, y_eval = stream.stream(0), stream.X_test, stream.y_test
            for name in SIGMA_PROBES:
                model = getattr(olearn, name)(sigma=sigma).fit(X_fit, y_fit)
                row[(s_name, name)] = 100 * np.mean(model.predict(X_eval) != y_eval)
        rows[sigma] = pd.Series(row)
    out = pd.DataFrame(rows).T
    out.index.name = "sigma"
    out["mean"] = out.mean(axis=1)
    return out


def choose_sigma(candidates=SIGMA_CANDIDATES, streams=None):
    """The width of ``candidates`` with the lowest mean validation error of the probes."""
    table = sigma_table(tuple(candidates), streams=streams, on="validation")
    return float(table["mean"].idxmin())


# -- reading the table ------------------------------------------------------------
def summarize(runs):
    """One row per (stream, learner): means over the permutations."""
    groups = runs.groupby(["stream", "learner"], sort=False)
    out = groups[["mistake_rate", "test_error", "seconds", "model_bytes"]].mean()
    out["permutations"] = groups.size()
    out["stream_rows"] = groups["stream_rows"].first()
    out["passes"] = (groups["n_rounds"].first() / out["stream_rows"]).round(2)
    return out


def side_by_side(summary, streams=None):
    """The page's table: one row per learner, for each stream its online mistake rate and
    test error (%), fit time (ms) and model size (kB); a dash where a learner does not run."""
    from ..catalog import BY_NAME
    from ..datasets.running import running_streams

    streams = running_streams() if streams is None else streams
    columns = {}
    for s in streams:
        part = summary.xs(s, level="stream")
        columns[(s, "online %")] = 100 * part["mistake_rate"]
        columns[(s, "test %")] = 100 * part["test_error"]
        columns[(s, "ms")] = 1000 * part["seconds"]
        columns[(s, "kB")] = part["model_bytes"] / 1000
    table = pd.DataFrame(columns)
    order = [name for name in learners() if name in table.index]
    table = table.loc[order]
    table.insert(0, "part", [BY_NAME[name].family for name in table.index])
    table.insert(1, "settings", [PARAMS_NOTE.get(name, "defaults") for name in table.index])
    table.index.name = "learner"
    return table


#: the guide's tolerance: learners within this much test error (absolute) of the best
WITHIN = 0.02


def guide(summary, within=WITHIN):
    """The choosing guide: for each stream, one row per need, the learner that meets it.

    Needs: the lowest test error; among the learners within ``within`` of it, the fastest
    fit and the smallest model; the fewest online mistakes (when the mistakes made while
    learning are what counts, as for a mail filter; one-pass learners only); the fastest fit
    of all. Each row gives
    the learner, its test and online error (%), fit time (ms) and model size (kB).
    """
    rows = []
    for s, part in summary.groupby(level="stream", sort=False):
        part = part.droplevel("stream")
        best = part["test_error"].idxmin()
        close = part[part["test_error"] <= part.loc[best, "test_error"] + within]
        online = part.loc[part["passes"] <= 1, "mistake_rate"].dropna()   # one pass only
        picks = [("lowest test error", best),
                 (f"within {100 * within:g} points of it, fastest", close["seconds"].idxmin()),
                 (f"within {100 * within:g} points of it, smallest",
                  close["model_bytes"].idxmin()),
                 ("fewest online mistakes", online.idxmin()),
                 ("fastest of all", part["seconds"].idxmin())]
        for need, name in picks:
            row = part.loc[name]
            rows.append({"stream": s, "need": need, "learner": name,
                         "test %": 100 * row["test_error"],
                         "online %": 100 * row["mistake_rate"],
                         "ms": 1000 * row["seconds"], "kB": row["model_bytes"] / 1000,
                         "n within": len(close)})
    return pd.DataFrame(rows).set_index(["stream", "need"])


def pareto(summary, stream, cost="seconds"):
    """Learners of ``stream`` that no other learner beats on both test error and ``cost``."""
    part = summary.xs(stream, level="stream").sort_values([cost, "test_error"])
    front, best = [], np.inf
    for name, row in part.iterrows():
        if row["test_error"] < best:
            front.append(name)
            best = row["test_error"]
    return front


# -- storing and checking ---------------------------------------------------------
def provenance(runs, seconds, streams=None):
    from .. import __version__
    from ..datasets.running import PREPROCESSING, fingerprint, running_streams

    streams = running_streams() if streams is None else streams
    every = learners()
    return {
        "olearn_version": __version__, "git_commit": git_commit(), "git_dirty": git_dirty(),
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "quick_mode": quick_mode(), "seconds": round(seconds, 1),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "cpu_count": os.cpu_count(), "n_jobs": 1,
        "n_permutations": int(runs["permutation"].max()) + 1,
        "streams": {name: {"data_fingerprint": fingerprint(s), "n_train": len(s.y_train),
                           "n_test": len(s.y_test), "n_features": s.n_features}
                    for name, s in streams.items()},
        "preprocessing": PREPROCESSING,
        "round_caps": {f"{k[0]} on {k[1]}": v for k, v in ROUND_CAPS.items()},
        "learners": {name: _jsonable(est) for name, est in every.items()},
        "versions": _versions(),
    }


def save(runs, path, prov):
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    runs.to_csv(path / "runs.csv", index=False, float_format="%.10g")
    with open(path / "provenance.json", "w") as handle:
        json.dump(prov, handle, indent=2, sort_keys=True)
        handle.write("\n")
    return path


def load(path):
    """``(runs, provenance)`` of a stored full run."""
    path = Path(path)
    return (pd.read_csv(path / "runs.csv"),
            json.loads((path / "provenance.json").read_text()))


def quick_names(stored_runs):
    """``{stream: [learners]}`` quick mode re-runs: stored mean fit under QUICK_SECONDS."""
    mean = stored_runs.groupby(["stream", "learner"], sort=False)["seconds"].mean()
    out = {}
    for (s, name), seconds in mean.items():
        if seconds < QUICK_SECONDS:
            out.setdefault(s, []).append(name)
    return out


def check_quick(now, stored_runs, stored_prov, streams=None):
    """Compare a re-run with the stored full run, task by task; returns the comparison.

    Every learner is deterministic given the order, so the counts (rounds, online mistakes,
    test mistakes) must be equal; the data fingerprints and learner parameters must match too.
    """
    from ..datasets.running import fingerprint, running_streams

    streams = running_streams() if streams is None else streams
    for name, s in streams.items():
        assert fingerprint(s) == stored_prov["streams"][name]["data_fingerprint"], \
            f"the running stream {name} differs from the stored run's"
    every = learners()
    for name in now["learner"].unique():
        assert _jsonable(every[name]) == stored_prov["learners"][name], \
            f"{name}'s parameters differ from the stored run's"
    keys = ["stream", "learner", "permutation"]
    paired = now.merge(stored_runs, on=keys, suffixes=("", "_stored"), validate="one_to_one")
    assert len(paired) == len(now), "a task of the re-run is not in the stored run"
    same = (paired["n_mistakes"].fillna(-1) == paired["n_mistakes_stored"].fillna(-1)) & \
           (paired["n_rounds"].fillna(-1) == paired["n_rounds_stored"].fillna(-1)) & \
           (paired["test_mistakes"] == paired["test_mistakes_stored"])
    paired["same"] = same
    return paired[keys + ["n_mistakes", "n_mistakes_stored", "test_mistakes",
                          "test_mistakes_stored", "same"]]


def main(outdir="book/results/practitioners"):
    if quick_mode():
        sys.exit("unset OLEARN_QUICK for the full run")
    if git_dirty():
        sys.exit("commit your changes first (the provenance records the commit)")
    commit, start = git_commit(), time.perf_counter()
    runs = run()
    prov = provenance(runs, time.perf_counter() - start)
    if prov["git_commit"] != commit or prov["git_dirty"]:
        sys.exit("the tree changed during the run; not saved")
    print(save(runs, outdir, prov))
    print(summarize(runs).round(4).to_string())


if __name__ == "__main__":
    main(*sys.argv[1:])
