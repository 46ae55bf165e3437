"""Experiment runner: several learners, many random orders of one stream.

``run(learners, X, y)`` makes one *task* per (learner, permutation): a fresh
clone of the learner is fitted once -- one online pass -- on the rows of
``(X, y)`` taken in the order of permutation ``p``, and the task records its
mistakes.  The :class:`Result` holds

``table``
    tidy, one row per task: ``learner, dataset, permutation, n_rounds,
    n_mistakes, mistake_rate (= M / T), n_updates, n_support, seconds,
    cached`` (``n_support`` is NaN for learners without ``n_support_`` or
    ``support_``; ``seconds`` is the wall time of ``fit``, after a warm-up fit
    on two rows so that numba compilation is not counted);
``curves``
    per learner, the cumulative mistake rate ``M_t / t`` of every permutation,
    an array ``(n_permutations, len(rounds[label]))`` at the 1-based rounds
    ``rounds[label]`` (all rounds when ``T <= curve_points``);
``provenance``
    package version, git commit, UTC date, data fingerprint, settings and the
    parameters of every learner.

Permutations are paired: permutation ``p`` is
``np.random.default_rng([random_state, p]).permutation(n)`` for *every*
learner, so learners are compared on the same streams, and it does not depend
on ``n_permutations`` (raising it only adds orders).

Parallelism is joblib's: ``n_jobs`` tasks at a time on the active backend, so
``with joblib.parallel_backend("dask"): run(..., n_jobs=-1)`` spreads the same
grid over a ``dask.distributed`` cluster (joblib scatters the data to the
workers instead of sending them with every task).  With
``OLEARN_DASK_SCHEDULER=tcp://host:8786`` in the environment, importing this
module does that for every experiment (:mod:`olearn.experiments.cluster`).

Cache (:mod:`olearn.experiments.cache`): each finished task is stored as a
small ``.npz`` (its record and its mistakes as packed bits) under a content key
(:mod:`olearn.experiments.keys`) -- the learner's class, its ``get_params()``,
a hash of the source of the olearn modules its code reaches, a hash of the data
(values, not name), the permutation seed, the stream length and
``olearn.__version__`` -- so a rerun computes only what changed (a new
learner, a new parameter, more permutations, an edited learner).  Cached rows
keep the ``seconds`` measured when they were computed.  A learner that
shuffles without an integer ``random_state`` (also nested, e.g.
``learner__shuffle``) is not a function of its key: its tasks are neither
read from nor written to the cache, with a warning (:func:`deterministic`).

The user's code is keyed by what it computes, not by its name: a callable
parameter (a kernel function, a lambda) by the bytecode, constants and names of
its code (nested functions recursively), its defaults, the values its closure
holds and the globals it reads -- a module among them by the attributes the
code names (``mykernels.k``), so editing and reloading ``mykernels`` changes
the key (:func:`callable_key`); a learner of the user's own class, also nested
(``Averaged(MyLearner())``), by its bases and everything its class body
defines (:func:`class_key`).  A name the code reads that the key cannot
account for is never dropped: an ``import`` inside a function is keyed through
``sys.modules``; ``getattr(module, "k")`` by the string constant (and a function
that reads attributes by computed names has all the attributes of the user's
modules it reaches keyed); a global its module does not define, ``eval``,
``exec`` and ``importlib.import_module`` make the learner uncacheable.  Data
read through :mod:`olearn.datasets` are keyed by the registered sha256 of the
files.  What cannot be keyed reliably (a callable object with hidden state, a
bound method, an empty closure cell, a value with no stable description, a name
the key cannot account for) is run uncached, with a one-line warning that says
why.

Not keyed, unless named in ``depends_on=``: what the code reads from outside
Python -- a file (``open``, ``np.load``, ``pd.read_csv`` of a path that is not
an olearn data set), an environment variable, a database, the network, the
clock.  ``depends_on=["weights.npy", Env("SCALE")]`` keys files (and folders)
by their content and environment variables by their value; without it, editing
such a file returns the old results.
On reading, an entry must carry the very description its key hashes; one that
does not (a file copied over another key's), or that is empty, damaged or a
directory (what a crash leaves), is recomputed and rewritten, with one warning
per run.  Entries are written to a temporary file, flushed to disk and renamed.
A cache folder that cannot be created or written raises
:class:`CacheFolderError` (naming ``cache=False``) before any task is computed.
"""
import datetime
import importlib.util
import json
import os
import platform
import subprocess
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn.base import clone

from .cache import CacheFolderError, TaskCache, default_cache_dir  # noqa: F401
from .keys import (CACHE_FORMAT, Env, UncacheableError, _jsonable,  # noqa: F401
                   callable_key, class_key, data_fingerprint, dependencies_key,
                   deterministic, module_key, source_digest, task_key)

#: The columns of :attr:`Result.table`, one row per (learner, permutation).
TABLE_COLUMNS = ["learner", "dataset", "permutation", "n_rounds", "n_mistakes",
                 "mistake_rate", "n_updates", "n_support", "seconds", "cached"]
_TRUE = {"1", "true", "yes", "on"}


# -- quick mode ---------------------------------------------------------------
def quick_mode():
    """True when the environment variable ``OLEARN_QUICK`` is 1/true/yes/on."""
    return os.environ.get("OLEARN_QUICK", "").strip().lower() in _TRUE


def n_permutations(full, quick):
    """``quick`` in quick mode (``OLEARN_QUICK=1``), else ``full``.

    Named for its main use, but good for any size the book shortens in CI
    (stream lengths, grid sizes).
    """
    return quick if quick_mode() else full


# -- the result ---------------------------------------------------------------
@dataclass
class Result:
    """What :func:`run` returns (see the module docstring).

    ``n_computed`` and ``n_cached`` count the tasks run now and those read
    from the cache; ``packed_mistakes[label]`` holds every task's mistakes as
    bits (:meth:`mistakes` unpacks them).  A result read back by
    :func:`load_result` has only ``table`` and ``provenance``.
    """

    table: pd.DataFrame
    curves: dict = field(default_factory=dict)
    rounds: dict = field(default_factory=dict)
    provenance: dict = field(default_factory=dict)
    n_computed: int = 0
    n_cached: int = 0
    packed_mistakes: dict = field(default_factory=dict, repr=False)

    def __repr__(self):
        counts = self.table.groupby("learner", sort=False).size()
        return (f"Result(dataset={self.provenance.get('dataset')!r}, "
                f"permutations={ {k: int(v) for k, v in counts.items()} }, n_computed={self.n_computed}, "
                f"n_cached={self.n_cached})")

    @property
    def learners(self):
        """Learner labels, in the order they were given."""
        return list(dict.fromkeys(self.table["learner"]))

    def mistakes(self, label):
        """Bool array ``(n_permutations, n_rounds)``: mistake in round t of permutation p."""
        packed = self.packed_mistakes[label]
        n_rounds = int(self.table.loc[self.table["learner"] == label,
                                      "n_rounds"].iloc[0])
        return np.unpackbits(packed, axis=1, count=n_rounds).astype(bool)

    def summary(self, confidence=0.95):
        """One row per learner: mistake rate mean, std and t-interval, mean costs.

        The interval is ``mean +- t_{(1+confidence)/2, P-1} std / sqrt(P)``
        over the ``P`` permutations (``std`` with ``ddof=1``; NaN when
        ``P = 1``).  ``n_*_mean`` and ``seconds_mean`` are means over the
        permutations.
        """
        return summarize(self.table, confidence)

    def to_csv(self, path):
        """Write the tidy table to ``path``."""
        self.table.to_csv(path, index=False)


def summarize(table, confidence=0.95):
    """:meth:`Result.summary` of a tidy table."""
    from scipy import stats

    groups = table.groupby("learner", sort=False)
    rate = groups["mistake_rate"]
    count = rate.count()
    mean, std = rate.mean(), rate.std(ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        quantile = stats.t.ppf(0.5 + confidence / 2.0, count - 1)
        half = quantile * std / np.sqrt(count)
    out = pd.DataFrame({
        "n_permutations": count,
        "mistake_rate_mean": mean,
        "mistake_rate_std": std,
        "ci_low": mean - half,
        "ci_high": mean + half,
        "n_mistakes_mean": groups["n_mistakes"].mean(),
        "n_updates_mean": groups["n_updates"].mean(),
        "n_support_mean": groups["n_support"].mean(),
        "seconds_mean": groups["seconds"].mean(),
    })
    out.index.name = "learner"
    return out


def t_interval(values, confidence=0.95):
    """Mean and half-width of the t-interval of the mean over axis 0 (NaN for one row)."""
    from scipy import stats

    values = np.asarray(values, dtype=float)
    n = values.shape[0]
    mean = values.mean(axis=0)
    if n < 2:
        return mean, mean * np.nan
    half = (stats.t.ppf(0.5 + confidence / 2, n - 1)
            * values.std(axis=0, ddof=1) / np.sqrt(n))
    return mean, half


def corrected_resampled_t(differences, test_to_train=0.0, confidence=0.95):
    """Mean, half-width of its ``confidence`` interval and two-sided p-value of paired
    differences ``differences`` (one per train/test task), by the corrected resampled t-test
    of Nadeau and Bengio (2003, "Inference for the generalization error", Machine Learning
    52, 239-281).

    The ``J`` tasks of resampled or cross-validated train/test splits train on overlapping
    rows, so their differences are positively correlated and the plain one-sample t-test over
    them, whose variance is ``s^2 / J``, is too confident. Nadeau and Bengio derive the
    correction for ``J`` independent random train/test splits of one data set: they replace
    ``1 / J`` by ``1 / J + n_test / n_train``, a heuristic that assumes the correlation
    between two tasks' differences is ``n_test / n``. Applying it to (repeated) k-fold
    cross-validation, with the same factor and ``J - 1`` degrees of freedom, is Bouckaert and
    Frank's "corrected repeated k-fold cv test" (2004, "Evaluating the replicability of
    significance tests for comparing learning algorithms", PAKDD, LNCS 3056, 3-12).
    ``test_to_train`` is the ratio (``1 / (k - 1)``, ``1 / 4`` for 5-fold cross-validation).
    The scoreboard's noise rule uses it the same way
    (:func:`olearn.experiments.scoreboard.paired_interval`). ``test_to_train=0`` gives the
    plain t-test, the right one where the tasks differ only in a source of noise drawn
    independently for each (e.g. the order of one fixed training file tested on one fixed
    test file: the interval then covers that noise only, not a new sample of data). ``n - 1``
    degrees of freedom; NaN p-value and half-width when all differences are equal or fewer
    than two are given.
    """
    from scipy import stats

    d = np.asarray(differences, dtype=float).ravel()
    if not np.all(np.isfinite(d)):
        raise ValueError("the differences must be finite; drop the tasks that gave NaN first")
    if test_to_train < 0:
        raise ValueError(f"test_to_train must be >= 0 (n_test / n_train), got {test_to_train!r}")
    n = len(d)
    mean = float(d.mean()) if n else np.nan
    if n < 2 or np.ptp(d) == 0:              # all equal: no spread to test against
        return mean, np.nan, np.nan
    se = np.sqrt((1.0 / n + test_to_train) * d.var(ddof=1))
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1) * se)
    p = float(2 * stats.t.sf(abs(mean) / se, n - 1))
    return mean, half, p


def curve_band(curves, band="ci95"):
    """Mean curve and band ``(mean, low, high)`` of ``curves`` ``(P, n_points)``.

    ``band="ci95"``: 95% t-interval of the mean over the ``P`` permutations;
    ``"std"``: mean +- one standard deviation; ``None``: ``low = high = None``.
    Bands are NaN when ``P = 1``.
    """
    curves = np.asarray(curves, dtype=np.float64)
    if band is None:
        return curves.mean(axis=0), None, None
    if band not in ("ci95", "std"):
        raise ValueError(f"band must be 'ci95', 'std' or None, got {band!r}.")
    mean, half = t_interval(curves, 0.95)
    if band == "std":
        half = (curves.std(axis=0, ddof=1) if curves.shape[0] > 1
                else np.full_like(mean, np.nan))
    return mean, mean - half, mean + half


def checkpoint_rounds(n_rounds, max_points):
    """1-based rounds at which curves are kept: all, or a log + linear grid.

    With ``n_rounds <= max_points`` every round; otherwise at most
    ``max_points`` rounds, half spaced geometrically (the start of a curve
    moves fast), half linearly, always including rounds 1 and ``n_rounds``.
    """
    if n_rounds <= max_points:
        return np.arange(1, n_rounds + 1)
    half = max(max_points // 2, 2)
    grid = np.concatenate([np.geomspace(1, n_rounds, half),
                           np.linspace(1, n_rounds, half)])
    return np.unique(np.round(grid).astype(np.int64))


# -- one task -----------------------------------------------------------------
def _warm_up(estimator, X, y):
    """Fit a clone on one row per class so that compilation is not timed."""
    _, first = np.unique(y, return_index=True)
    rows = np.sort(first)
    try:
        clone(estimator).fit(X[rows], y[rows])
    except Exception:  # the timed fit reports real errors
        pass


def _n_support(estimator):
    if hasattr(estimator, "n_support_"):
        return float(np.sum(estimator.n_support_))
    if hasattr(estimator, "support_"):
        return float(len(estimator.support_))
    return float("nan")


def _run_task(index, estimator, X, y, seed, n_rounds):
    """Fit a clone of ``estimator`` on permutation ``seed`` of ``(X, y)``.

    Module level with picklable arguments, so that any joblib backend (loky,
    dask) can ship it.  Returns ``(index, record, packed mistakes)``.
    """
    order = np.random.default_rng(seed).permutation(y.shape[0])[:n_rounds]
    X, y = X[order], y[order]
    _warm_up(estimator, X, y)
    learner = clone(estimator)
    if getattr(learner, "record", "full") != "full":
        learner.set_params(record="full")     # the run needs mistakes_
    start = time.perf_counter()
    learner.fit(X, y)
    seconds = time.perf_counter() - start
    if not hasattr(learner, "mistakes_"):
        raise ValueError(
            f"{type(learner).__name__} has no mistakes_ after fit: run() compares "
            f"online learners by their per-round mistakes; wrap it in one or use "
            f"a learner that records them.")
    mistakes = np.asarray(learner.mistakes_, dtype=bool)
    n_updates = getattr(learner, "n_updates_", None)
    record = {
        "n_rounds": int(mistakes.shape[0]),
        "n_mistakes": int(np.count_nonzero(mistakes)),
        "mistake_rate": float(np.count_nonzero(mistakes) / mistakes.shape[0]),
        "n_updates": float("nan") if n_updates is None else int(n_updates),
        "n_support": _n_support(learner),
        "seconds": seconds,
    }
    return index, record, np.packbits(mistakes)


# -- provenance ---------------------------------------------------------------
def _git(*args):
    """stdout of ``git args`` run in the package's checkout, or None if git fails."""
    try:
        done = subprocess.run(["git", *args], cwd=Path(__file__).resolve().parent,
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def git_commit():
    """``git rev-parse HEAD`` of the package's checkout, or None."""
    out = _git("rev-parse", "HEAD")
    return (out or "").strip() or None


def git_dirty():
    """True if the package's checkout has uncommitted changes to tracked files.

    ``book/results`` is left out: a full run rewrites those files as it
    saves them.  None outside a git checkout.  Read-only (no index refresh),
    so it is safe while another process uses the repository.
    """
    out = _git("--no-optional-locks", "status", "--porcelain", "--untracked-files=no",
               "--", ":/", ":(top,exclude)book/results")
    return None if out is None else bool(out.strip())


def _versions():
    import numba
    import scipy
    import sklearn

    return {"python": platform.python_version(), "numpy": np.__version__,
            "scipy": scipy.__version__, "numba": numba.__version__,
            "scikit-learn": sklearn.__version__, "pandas": pd.__version__}


# -- running ------------------------------------------------------------------
def _label(estimator):
    return " ".join(repr(estimator).split())


def _labelled(learners):
    if isinstance(learners, dict):
        items = list(learners.items())
        bad = [k for k, _ in items if not isinstance(k, str)]
        if bad:
            raise ValueError(f"learner labels must be strings, got {bad!r}.")
    else:
        items = [(_label(est), est) for est in learners]
        labels = [label for label, _ in items]
        duplicates = sorted({x for x in labels if labels.count(x) > 1})
        if duplicates:
            raise ValueError(f"learners {duplicates} appear more than once; "
                             f"pass a dict {{label: learner}} to name them.")
    if not items:
        raise ValueError("learners is empty.")
    for label, est in items:
        if not (hasattr(est, "fit") and hasattr(est, "get_params")):
            raise ValueError(f"learner {label!r} is not a scikit-learn "
                             f"estimator: {est!r}.")
    return dict(items)


def _check_count(name, value, minimum):
    if (not isinstance(value, (int, np.integer)) or isinstance(value, bool)
            or value < minimum):
        raise ValueError(f"{name} must be an integer >= {minimum}, "
                         f"got {value!r}.")
    return int(value)


def _progress(iterable, total, desc, enabled):
    if not enabled:
        return iterable
    if importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.auto import tqdm
    else:  # tqdm.auto would warn in a notebook without ipywidgets
        from tqdm import tqdm
    return tqdm(iterable, total=total, desc=desc, unit="task")


def _parallel(n_jobs):
    try:
        return Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    except ValueError:  # a backend without generator support
        return Parallel(n_jobs=n_jobs)


def run(learners, X, y, n_permutations=20, random_state=0, *, n_rounds=None,
        n_jobs=1, dataset=None, cache=True, cache_dir=None, progress=True,
        curve_points=50_000, depends_on=None):
    """Fit every learner once on each of ``n_permutations`` orders of ``(X, y)``.

    Parameters
    ----------
    learners : dict {label: estimator} or list of estimators
        Unfitted olearn learners (cloned per task, never fitted in place).  A
        list is labelled by each estimator's repr, e.g. ``"PA(C=0.1)"``.
    X : array (n, d) or sparse matrix; y : array (n,)
    n_permutations : int, default=20
    random_state : int >= 0, default=0
        Permutation ``p`` is ``np.random.default_rng([random_state, p])
        .permutation(n)``, the same for every learner.
    n_rounds : int or None
        Use only the first ``n_rounds`` rows of each permutation (a shorter
        stream, the prefix of the full run's stream).
    n_jobs : int, default=1
        Tasks run at a time, on joblib's active backend (``-1``: all cores,
        or all dask workers inside ``joblib.parallel_backend("dask")``).
    dataset : str or None
        Name recorded in the table and the provenance.
    cache : bool, default=True; cache_dir : path or None
        Reuse finished tasks from ``cache_dir`` (default
        :func:`default_cache_dir`) and store new ones there; a folder that
        cannot be created or written raises :class:`CacheFolderError` before
        any task is computed.
    progress : bool, default=True
        A tqdm bar over the computed tasks (``TQDM_DISABLE=1`` silences it too).
    curve_points : int, default=50_000
        Keep curves at every round up to this many rounds, else at a
        log + linear grid of this many rounds (:func:`checkpoint_rounds`).
    depends_on : list of paths and :class:`Env`, optional
        What the learners' code reads from outside Python (files, folders,
        environment variables), keyed by content and value: the cache keys
        no file the code opens and no variable it reads unless named here
        (see the module docstring for what is and is not keyed).

    Returns
    -------
    Result
    """
    learners = _labelled(learners)
    n_perm = _check_count("n_permutations", n_permutations, 1)
    seed0 = _check_count("random_state", random_state, 0)
    curve_points = _check_count("curve_points", curve_points, 2)
    X, y = _check_data(X, y)
    n = y.shape[0]
    if n_rounds is not None:
        n_rounds = _check_count("n_rounds", n_rounds, 1)
        if n_rounds > n:
            raise ValueError(f"n_rounds={n_rounds} exceeds the {n} examples.")
    stream = n if n_rounds is None else n_rounds
    fingerprint = data_fingerprint(X, y)
    outside = dependencies_key(depends_on)
    tasks = [(label, est, p) for label, est in learners.items()
             for p in range(n_perm)]

    # outcome of task i: (record, packed mistakes, taken from the cache)
    outcomes, keys = {}, {}
    store = TaskCache(cache_dir or default_cache_dir()) if cache else None
    if store is not None:
        for label, est in learners.items():
            if not deterministic(est):
                warnings.warn(
                    f"Learner {label!r} shuffles without an integer "
                    f"random_state, so every run draws new orders: its tasks "
                    f"are not cached (neither read nor stored). Set "
                    f"random_state to cache them.", UserWarning, stacklevel=2)
        uncacheable = set()
        for label, est in learners.items():
            if not deterministic(est):
                uncacheable.add(label)
                continue
            try:
                task_key(est, fingerprint, (seed0, 0), stream, outside)
            except UncacheableError as error:
                uncacheable.add(label)
                warnings.warn(f"Learner {label!r} is not cached: {error}.",
                              UserWarning, stacklevel=2)
        for i, (label, est, p) in enumerate(tasks):
            if label in uncacheable:
                continue
            keys[i] = task_key(est, fingerprint, (seed0, p), stream, outside)
            found = store.load(*keys[i])
            if found is not None:
                outcomes[i] = (*found, True)
    todo = [i for i in range(len(tasks)) if i not in outcomes]
    if store is not None and any(i in keys for i in todo):
        store.check_writable()          # before computing anything
    if todo:
        jobs = (delayed(_run_task)(i, tasks[i][1], X, y, (seed0, tasks[i][2]),
                                   n_rounds) for i in todo)
        for i, record, packed in _progress(_parallel(n_jobs)(jobs), len(todo),
                                           dataset or "tasks", progress):
            outcomes[i] = (record, packed, False)
            if store is not None and i in keys:
                store.save(keys[i][0], record, packed, keys[i][1])
    if store is not None and store.problems():
        warnings.warn(store.problems(), UserWarning, stacklevel=2)

    table = pd.DataFrame([{"learner": label, "dataset": dataset,
                           "permutation": p, **outcomes[i][0],
                           "cached": outcomes[i][2]}
                          for i, (label, _, p) in enumerate(tasks)],
                         columns=TABLE_COLUMNS)
    packed = {label: np.stack([outcomes[i][1] for i, task in enumerate(tasks)
                               if task[0] == label]) for label in learners}
    n_rounds_of = table.groupby("learner", sort=False)["n_rounds"].first()
    curves, rounds = {}, {}
    for label in learners:
        rounds[label] = checkpoint_rounds(int(n_rounds_of[label]), curve_points)
        curves[label] = _cumulative_rate(packed[label], rounds[label])
    provenance = {
        **_settings_provenance(dataset, fingerprint, X, stream, n_perm, seed0),
        "learners": {label: _jsonable(est) for label, est in learners.items()},
    }
    return Result(table=table, curves=curves, rounds=rounds,
                  provenance=provenance, n_computed=len(todo),
                  n_cached=len(tasks) - len(todo), packed_mistakes=packed)


def _check_data(X, y):
    if sp.issparse(X):
        X = X if X.format == "csr" else sp.csr_matrix(X)
    else:
        X = np.asarray(X)
    y = np.asarray(y)
    if y.ndim != 1 or X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be 2-d and y 1-d with as many rows; got X "
                         f"{X.shape} and y {y.shape}.")
    return X, y


def _cumulative_rate(packed, rounds):
    """``M_t / t`` at the 1-based ``rounds``, one row per permutation (float32)."""
    mistakes = np.unpackbits(packed, axis=1, count=int(rounds[-1]))
    cumulative = np.cumsum(mistakes, axis=1, dtype=np.int64)[:, rounds - 1]
    return (cumulative / rounds).astype(np.float32)


def _settings_provenance(dataset, fingerprint, X, stream, n_perm, seed0):
    from .. import __version__

    return {
        "olearn_version": __version__,
        "git_commit": git_commit(),
        "git_dirty": git_dirty(),
        "date_utc": datetime.datetime.now(datetime.timezone.utc)
                    .isoformat(timespec="seconds"),
        "dataset": dataset,
        "data_fingerprint": fingerprint,
        "n_samples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "sparse": bool(sp.issparse(X)),
        "n_rounds": int(stream),
        "n_permutations": n_perm,
        "random_state": seed0,
        "quick_mode": quick_mode(),
        "versions": _versions(),
    }


def run_dataset(name, learners, n_permutations=20, random_state=0, *,
                transform=None, load_kwargs=None, **kwargs):
    """:func:`run` on ``olearn.datasets.load(name, **load_kwargs)``.

    ``transform``, if given, maps ``X`` to the preprocessed ``X`` (e.g. a
    scaling) before the permutations are drawn; it sees the whole data set.
    Other keyword arguments go to :func:`run`.
    """
    from .. import datasets

    X, y = datasets.load(name, **(load_kwargs or {}))
    if transform is not None:
        X = transform(X)
    return run(learners, X, y, n_permutations, random_state, dataset=name,
               **kwargs)


# -- stored results for the book ----------------------------------------------
def save_result(result, path):
    """Write ``table.csv``, ``summary.csv`` and ``provenance.json`` in ``path``.

    Curves are not stored (the book recomputes them); the table is small
    (learners x permutations rows) and keeps the summary recomputable.
    """
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    result.table.to_csv(path / "table.csv", index=False)
    result.summary().to_csv(path / "summary.csv")
    with open(path / "provenance.json", "w") as handle:
        json.dump(result.provenance, handle, indent=2, sort_keys=True)
        handle.write("\n")
    return path


def load_result(path):
    """The :class:`Result` written by :func:`save_result` (without curves)."""
    path = Path(path)
    table = pd.read_csv(path / "table.csv", dtype={"learner": str})
    table["cached"] = table["cached"].astype(bool)
    dataset = table["dataset"].astype(object)
    table["dataset"] = dataset.where(dataset.notna(), None)
    provenance = json.loads((path / "provenance.json").read_text())
    return Result(table=table, provenance=provenance, n_cached=len(table))


def compare_to_stored(result, stored, tol):
    """Mean mistake rates of ``result`` beside those of a stored full run.

    ``stored`` is a :class:`Result`, a summary DataFrame (index ``learner``,
    column ``mistake_rate_mean``) or the directory of :func:`save_result`.
    Returns one row per learner of ``result``: ``quick_mean``,
    ``stored_mean``, ``abs_diff`` and ``within_tol`` (``abs_diff <= tol``).
    Every learner of ``result`` must be in ``stored``.
    """
    if isinstance(stored, (str, os.PathLike)):
        stored = load_result(stored)
    if isinstance(stored, Result):
        stored = stored.summary()
    quick = result.summary()["mistake_rate_mean"]
    missing = [label for label in quick.index if label not in stored.index]
    if missing:
        raise ValueError(f"learners {missing} are not in the stored results "
                         f"(which have {list(stored.index)}).")
    reference = stored.loc[quick.index, "mistake_rate_mean"].astype(float)
    out = pd.DataFrame({"quick_mean": quick, "stored_mean": reference})
    out["abs_diff"] = (out["quick_mean"] - out["stored_mean"]).abs()
    out["tol"] = tol
    out["within_tol"] = out["abs_diff"] <= tol
    return out


def provenance_table(stored):
    """The provenance of stored full runs as a table, one row per run.

    ``stored`` maps a name to a :class:`Result` (as read by :func:`load_result`)
    or to a provenance dict (e.g. the ``provenance`` of another experiment
    module's stored run). Columns: ``commit`` (full hash), ``uncommitted
    changes``, ``run (UTC)``, ``permutations`` (or trials), ``quick mode``,
    ``minutes`` (when the run recorded its duration) and the versions of olearn,
    numpy and numba.
    """
    rows = {}
    for name, record in stored.items():
        p = record.provenance if isinstance(record, Result) else record
        versions = p.get("versions", {})
        n = p.get("n_permutations", len(p.get("trials", [])) or None)
        row = {"commit": p.get("git_commit"), "uncommitted changes": p.get("git_dirty"),
               "run (UTC)": str(p.get("date_utc", ""))[:16].replace("T", " "),
               "permutations" if "n_permutations" in p else "trials": n,
               "quick mode": p.get("quick_mode")}
        if "seconds" in p:
            row["minutes"] = round(float(p["seconds"]) / 60, 1)
        row.update({"olearn": p.get("olearn_version"), "numpy": versions.get("numpy"),
                    "numba": versions.get("numba")})
        rows[name] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "stored run"
    return table


# OLEARN_DASK_SCHEDULER=tcp://host:8786: every joblib task of the experiments
# goes to that Dask cluster (nothing happens when it is unset).
from .cluster import use_dask as _use_dask  # noqa: E402

_use_dask()
