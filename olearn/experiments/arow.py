"""The experiments of the AROW paper (Crammer, Kulesza, Dredze, NIPS 2009, Section 5).

Figure 2(a) -- synthetic data
    The AROW paper says only that its synthetic data "are as in" Crammer,
    Dredze and Pereira (NIPS 2008, "Exact convex confidence-weighted
    learning"), with 10% of the training labels inverted, 5,000 training and
    10,000 (noise-free) test examples and 100 runs.  The generator stays our
    reading (the CW paper's text is not among our sources and the public
    copies we found give only its abstract and introduction): 20 dimensions;
    the first two coordinates are a Gaussian with standard deviations
    ``LONG_AXIS`` and ``SHORT_AXIS`` (our choice) rotated by 45 degrees, the
    label is the side of the separator through the long axis of that ellipse
    (so the data are linearly separable, by a direction the learner must
    find among correlated features); the other 18 coordinates are
    independent ``N(0, 2)`` (variance 2) noise.  See :func:`synthetic`.
Figure 2(b)
    MNIST 3 vs 5 (``mnist-10k-3-vs-5``, pixels / 255): mistakes with respect
    to the noise-free labels during one online pass, at 0% and 10% noise.
Table 1 and Figure 3
    Mean rank of AROW, CW, PA and SOP (diagonal covariance for every
    second-order learner, the paper's footnote 2) at label noise 0 to 0.3
    over the available tasks (:func:`table1_tasks`: 45 USPS pairs, 45 MNIST-10k
    pairs, 10 MNIST-10k one-vs-all, the paper's 3 20 Newsgroups tasks, 15
    Reuters-21578 pairs of single-label TOPICS standing in for the RCV1 label
    pairs, movie reviews standing in for sentiment; at most 2,000 instances
    each).  Hyper-parameters (r for
    AROW, eta for CW, C for PA-I, a for SOP) and the number of passes
    (1 to 10) are chosen on one randomised run per task and noise level, then
    the test accuracy is averaged over the other runs.  CW is the paper's
    "variance" version (its footnote 3).
"""
import datetime
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from joblib import Parallel, delayed

from ..datasets import _reuters_pairs as reuters_pairs
from ..datasets import label_noise, load
from ..linear.pa import PA
from ..second_order import AROW, CW, SOP
from .runner import _versions, git_commit, git_dirty, quick_mode

LONG_AXIS, SHORT_AXIS, NOISE_VAR = 1.0, 0.2, 2.0
NOISE_LEVELS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3)
LEARNERS = ("AROW", "CW", "PA", "SOP")

#: Table 1 of the AROW paper: mean rank (out of 4) over all its data sets.
PAPER_TABLE1 = pd.DataFrame(
    {"AROW": [1.51, 1.44, 1.38, 1.42, 1.25, 1.25],
     "CW": [1.63, 1.87, 1.95, 2.08, 2.42, 2.76],
     "PA": [2.95, 2.83, 2.78, 2.61, 2.33, 2.08],
     "SOP": [3.91, 3.87, 3.89, 3.89, 4.00, 3.91]},
    index=pd.Index(NOISE_LEVELS, name="noise"))

#: Hyper-parameter grids of the tuning run.
GRIDS = {"AROW": ("r", (0.01, 0.1, 1.0, 10.0, 100.0)),
         "CW": ("eta", (0.55, 0.65, 0.75, 0.85, 0.95)),
         "PA": ("C", (0.001, 0.01, 0.1, 1.0)),
         "SOP": ("a", (0.1, 1.0, 10.0))}


def make_learner(name, value, covariance="diag"):
    """The learner ``name`` of Table 1 with its hyper-parameter ``value``."""
    if name == "AROW":
        return AROW(r=value, covariance=covariance)
    if name == "CW":
        return CW(eta=value, covariance=covariance)
    if name == "SOP":
        return SOP(a=value, covariance=covariance)
    if name == "PA":
        return PA(C=value, variant="PA-I")
    if name == "PA plain":
        return PA(variant="PA")                 # no C: ``value`` is ignored
    raise ValueError(f"unknown learner {name!r}")


# -- Figure 2(a) ---------------------------------------------------------------
def synthetic(n, random_state, noise=0.0):
    """``(X, y_noisy, y_clean)``: the 20-dimensional synthetic data (module docstring)."""
    rng = np.random.default_rng(random_state)
    z = rng.standard_normal((n, 2)) * np.array([LONG_AXIS, SHORT_AXIS])
    y = np.where(z[:, 1] > 0, 1, -1)
    c = np.sqrt(0.5)
    rotation = np.array([[c, -c], [c, c]])
    X = np.empty((n, 20))
    X[:, :2] = z @ rotation.T
    X[:, 2:] = rng.standard_normal((n, 18)) * np.sqrt(NOISE_VAR)
    y_noisy = label_noise(y, noise, random_state=rng.integers(2**31)) if noise else y
    return X, y_noisy, y


FIG2A_LEARNERS = ("AROW full", "AROW diag", "CW full", "CW diag", "SOP full",
                  "SOP diag", "PA")


def _fig2a_learner(label, params):
    name, _, cov = label.partition(" ")
    return make_learner(name, params[name], covariance=cov or "diag")


def tune_synthetic(n_train=5000, n_test=10000, noise=0.1, random_state=10**6):
    """Each learner's hyper-parameter from one extra randomised run (best
    final test accuracy), as the paper tunes on one randomised run."""
    X, y, _ = synthetic(n_train, random_state, noise)
    Xt, _, yt = synthetic(n_test, random_state + 1)
    best = {}
    for name, (_, grid) in GRIDS.items():
        scores = [make_learner(name, v, "full" if name != "PA" else "diag")
                  .fit(X, y).score(Xt, yt) for v in grid]
        best[name] = grid[int(np.argmax(scores))]
    return best


def figure2a(n_runs=100, n_train=5000, n_test=10000, noise=0.1, n_points=20,
             params=None, random_state=0):
    """Test accuracy (noise-free labels) after each ``n_train / n_points``
    training examples, per learner and run: a long DataFrame."""
    params = tune_synthetic(n_train, n_test, noise) if params is None else params
    checkpoints = np.linspace(0, n_train, n_points + 1).astype(int)[1:]
    rows = []
    for run in range(n_runs):
        X, y, _ = synthetic(n_train, [random_state, run, 0], noise)
        Xt, _, yt = synthetic(n_test, [random_state, run, 1])
        for label in FIG2A_LEARNERS:
            est = _fig2a_learner(label, params)
            start = 0
            for stop in checkpoints:
                est.partial_fit(X[start:stop], y[start:stop], classes=[-1, 1])
                start = stop
                rows.append({"learner": label, "run": run, "examples": stop,
                             "accuracy": est.score(Xt, yt)})
    return pd.DataFrame(rows), params


# -- Figure 2(b) ---------------------------------------------------------------
def figure2b(noise_levels=(0.0, 0.1), n_permutations=10, params=None,
             random_state=0):
    """Mistakes against the noise-free labels during one pass over MNIST 3
    vs 5 (pixels / 255), per learner, noise level and permutation.

    ``params``: hyper-parameter per learner (default: tuned on permutation
    ``n_permutations`` by the fewest clean mistakes, per noise level).
    Learners: AROW, CW and SOP (diagonal and full covariance) and PA-I.
    """
    data = load("mnist-10k-3-vs-5")
    X = np.asarray(data.X, dtype=np.float64) / 255.0
    y = np.asarray(data.y)
    n = len(y)
    rows, chosen = [], {}
    labels = ("AROW diag", "CW diag", "SOP diag", "PA", "AROW full", "CW full",
              "SOP full")
    for noise in noise_levels:
        def one(label, value, seed):
            rng = np.random.default_rng([random_state, seed, int(noise * 1000)])
            order = rng.permutation(n)
            yn = label_noise(y, noise, random_state=int(rng.integers(2**31))) if noise else y
            name, _, cov = label.partition(" ")
            est = make_learner(name, value, cov or "diag")
            est.fit(X[order], yn[order])
            scores = est.margins_ * np.where(yn[order] > 0, 1.0, -1.0)
            clean_mistakes = int(np.sum((scores > 0) != (y[order] > 0)))
            return clean_mistakes, int(est.n_mistakes_)
        for label in labels:
            name = label.split(" ")[0]
            if params is None:
                grid = GRIDS[name][1]
                tune = [one(label, v, n_permutations)[0] for v in grid]
                value = grid[int(np.argmin(tune))]
            else:
                value = params[name]
            chosen[(label, noise)] = value
            for p in range(n_permutations):
                clean, noisy = one(label, value, p)
                rows.append({"learner": label, "noise": noise, "permutation": p,
                             "clean_mistakes": clean, "mistakes_vs_noisy": noisy,
                             "param": value})
    return pd.DataFrame(rows), chosen


# -- Table 1 and Figure 3 ----------------------------------------------------------
OCR_USPS = [f"usps-{i}-vs-{j}" for i in range(10) for j in range(i + 1, 10)]
OCR_MNIST = [f"mnist-10k-{i}-vs-{j}" for i in range(10) for j in range(i + 1, 10)]
#: The paper's ten MNIST one-vs-all problems (on the 10,000-digit sample).
OCR_MNIST_REST = [f"mnist-10k-{i}-vs-rest" for i in range(10)]
#: The three 20 Newsgroups tasks of the paper (it follows Dredze, Crammer, Pereira 2008).
NEWSGROUPS = ["20newsgroups-pc-vs-mac", "20newsgroups-electronics-vs-med",
              "20newsgroups-guns-vs-mideast"]
#: Stand-in for the paper's RCV1 label pairs: the 15 pairs among the six most frequent
#: single-label Reuters-21578 TOPICS (:mod:`olearn.datasets._reuters_pairs`).
REUTERS = reuters_pairs.task_names()
#: Stand-in for the paper's sentiment tasks.
SENTIMENT = ["movie_review_polarity"]
TEXT = NEWSGROUPS + REUTERS + SENTIMENT
#: Table 1 tasks re-run in quick mode (and compared with the stored full run): one per family.
QUICK_TASKS = [("usps-3-vs-5", "ocr-split"), ("mnist-10k-3-vs-5", "ocr-cv"),
               ("mnist-10k-7-vs-rest", "ocr-cv"), ("20newsgroups-pc-vs-mac", "text"),
               ("reuters21578-crude-vs-trade", "text"), ("movie_review_polarity", "text")]


#: Table 1's data families: (family, the paper's data, the paper's number of
#: tasks, our family as :func:`family` names it or None when not available).
#: The paper (section 5) lists 15 + 3 + 3 + 6 + 3 text tasks and "100
#: datasets total" for OCR: 130 tasks.
FAMILIES = [
    ("Amazon domains", "Amazon reviews, pairs of 6 domains", 15, None),
    ("20 Newsgroups", "3 binary tasks of Dredze et al. (2008)", 3, "20 Newsgroups"),
    ("Reuters", "RCV1-v2 pairs of labels", 3, "Reuters-21578 pairs"),
    ("Sentiment", "Amazon reviews, 6 domains", 6, "movie reviews"),
    ("Spam", "ECML/PKDD 2006 task A, 3 users", 3, None),
    ("MNIST pairs", "MNIST, 45 digit pairs", 45, "MNIST-10k pairs"),
    ("USPS pairs", "USPS, 45 digit pairs", 45, "USPS pairs"),
    ("MNIST one-vs-all", "MNIST, 10 digits vs rest", 10, "MNIST-10k one-vs-all"),
]


def family(task):
    """The data family of a Table 1 task (for the task counts of the chapter)."""
    if task.startswith("usps-"):
        return "USPS pairs"
    if task.startswith("mnist-10k-"):
        return "MNIST-10k one-vs-all" if task.endswith("-vs-rest") else "MNIST-10k pairs"
    if task.startswith("20newsgroups-"):
        return "20 Newsgroups"
    if task.startswith("reuters21578-"):
        return "Reuters-21578 pairs"
    if task.startswith("movie_review"):
        return "movie reviews"
    raise ValueError(f"unknown task {task!r}")


def table1_tasks(quick=None):
    """``[(name, kind)]``: kind "ocr-split" (USPS, standard train/test split),
    "ocr-cv" (MNIST-10k: no split in the sample, so cross-validation like
    the text tasks, 3 folds) or "text" (10-fold cross-validation).  Full mode:
    the 45 USPS pairs, the 45 MNIST-10k pairs, the 10 MNIST-10k one-vs-all
    problems and the text tasks (:data:`TEXT`); quick mode: :data:`QUICK_TASKS`."""
    quick = quick_mode() if quick is None else quick
    if quick:
        return list(QUICK_TASKS)
    return ([(t, "ocr-split") for t in OCR_USPS]
            + [(t, "ocr-cv") for t in OCR_MNIST + OCR_MNIST_REST]
            + [(t, "text") for t in TEXT])


def _task_data(name, kind, max_n=2000, random_state=0):
    """Train/test parts of a task: a list of ``(X_train, y_train, X_test, y_test)``
    runs; the first is the tuning run."""
    rng = np.random.default_rng([random_state, 7])
    if kind == "ocr-split":
        train, test = load(name, subset="train"), load(name, subset="test")
        X, y = np.asarray(train.X), np.asarray(train.y)
        keep = rng.permutation(len(y))[:max_n]
        return X[keep], y[keep], np.asarray(test.X), np.asarray(test.y)
    data = load(name)
    X, y = data.X, np.asarray(data.y)
    if not sp.issparse(X):
        X = np.asarray(X, dtype=np.float64)
        if X.max() > 1.0:
            X = X / 255.0                       # MNIST pixels
    keep = rng.permutation(len(y))[:max_n]
    return X[keep], y[keep], None, None


def _folds(n, k, random_state):
    order = np.random.default_rng([random_state, 11]).permutation(n)
    return np.array_split(order, k)


def _accuracy_by_pass(est, X, y, Xt, yt, n_passes, rng):
    """Test accuracy after each of ``n_passes`` passes (a fresh order each pass)."""
    out = []
    classes = np.unique(y)
    for _ in range(n_passes):
        order = rng.permutation(len(y))
        est.partial_fit(X[order], y[order], classes=classes)
        out.append(est.score(Xt, yt))
    return np.array(out)


#: Wider grids (both extended beyond the edges the stored Table 1 run hit).
WIDE_GRIDS = {"AROW": ("r", (0.01, 0.1, 1.0, 10.0, 100.0, 1e3, 1e4)),
              "CW": ("eta", (0.55, 0.65, 0.75, 0.85, 0.95)),
              "PA": ("C", (1e-5, 1e-4, 0.001, 0.01, 0.1, 1.0)),
              "SOP": ("a", (0.1, 1.0, 10.0, 100.0))}

#: Plain PA (no aggressiveness parameter; only the number of passes is tuned):
#: the paper does not say which PA it ran.
PLAIN_PA_GRIDS = {"PA plain": ("C", (float("nan"),))}


def _table1_task(name, kind, noise_levels, n_passes, n_runs, random_state, grids,
                 quick, learners=LEARNERS):
    """The rows of :func:`run_table1` for one task, and the seconds it took."""
    started = time.perf_counter()
    rows = []
    Xtr, ytr, Xte, yte = _task_data(name, kind, random_state=random_state)
    if kind == "ocr-split":
        k = n_runs or (2 if quick else 4)
        splits = [(np.arange(len(ytr)), None)] * k
    else:
        k = n_runs or (3 if quick or kind == "ocr-cv" else 10)
        folds = _folds(len(ytr), k, random_state)
        splits = [(np.concatenate(folds[:i] + folds[i + 1:]), folds[i])
                  for i in range(k)]
    for noise in noise_levels:
        runs = []
        for i, (tr, te) in enumerate(splits):
            X, y = Xtr[tr], ytr[tr]
            if te is None:
                Xt, yt = Xte, yte
            else:
                Xt, yt = Xtr[te], ytr[te]
            seed = [random_state, i, int(noise * 1000)]
            yn = label_noise(y, noise, random_state=int(np.random.default_rng(seed)
                                                      .integers(2**31))) if noise else y
            runs.append((X, yn, Xt, yt, seed))
        for learner in learners:
            pname, grid = grids[learner]
            X, yn, Xt, yt, seed = runs[0]
            curves = [_accuracy_by_pass(make_learner(learner, v), X, yn, Xt, yt,
                                        n_passes, np.random.default_rng(seed))
                      for v in grid]
            curves = np.array(curves)
            best = np.unravel_index(np.argmax(curves), curves.shape)
            value, passes = grid[best[0]], int(best[1]) + 1
            accs = [_accuracy_by_pass(make_learner(learner, value), X, yn, Xt, yt,
                                      passes, np.random.default_rng(seed))[-1]
                    for X, yn, Xt, yt, seed in runs[1:]]
            rows.append({"task": name, "kind": kind, "noise": noise,
                         "learner": learner, "param": pname, "value": value,
                         "passes": passes, "tuning_accuracy": curves.max(),
                         "accuracy": float(np.mean(accs)), "n_runs": len(accs),
                         "n_train": len(runs[0][1]), "n_test": len(runs[0][3])})
    return rows, time.perf_counter() - started


def run_table1(tasks=None, noise_levels=NOISE_LEVELS, n_passes=None, n_runs=None,
               random_state=0, progress=None, grids=None, n_jobs=1, learners=LEARNERS):
    """Accuracy of AROW, CW, PA, SOP on every task and noise level.

    Per task and noise level: the training labels get the noise (test labels
    stay clean), one run tunes each learner's hyper-parameter and number of
    passes (best test accuracy of that run), and the other runs give the
    reported accuracy (their mean).  OCR-split tasks: runs are random orders
    of the training part; CV tasks: run ``k`` holds out fold ``k``.
    Returns one row per (task, noise, learner), in the order of ``tasks``.
    ``grids``: the hyper-parameter grids (default :data:`GRIDS`); ``n_jobs``:
    tasks run at a time (joblib; every task is seeded on its own, so the
    result does not depend on ``n_jobs``); ``progress(name, seconds)`` is
    called as each task finishes; ``learners``: the learners to run (names
    of :func:`make_learner`, each with an entry in ``grids``).
    """
    grids = GRIDS if grids is None else grids
    quick = quick_mode()
    tasks = table1_tasks() if tasks is None else tasks
    n_passes = (3 if quick else 10) if n_passes is None else n_passes
    args = (noise_levels, n_passes, n_runs, random_state, grids, quick, tuple(learners))
    if n_jobs == 1:
        results = (_table1_task(name, kind, *args) for name, kind in tasks)
    else:
        results = Parallel(n_jobs=n_jobs, return_as="generator")(
            delayed(_table1_task)(name, kind, *args) for name, kind in tasks)
    rows = []
    for (name, _), (task_rows, seconds) in zip(tasks, results):
        rows.extend(task_rows)
        if progress:
            progress(name, seconds)
    return pd.DataFrame(rows)


def mean_ranks(table):
    """Mean rank (1 = best accuracy; ties share the average rank) per noise
    level and learner, over the tasks of ``table``."""
    wide = table.pivot_table(index=["task", "noise"], columns="learner",
                             values="accuracy")
    ranks = wide.rank(axis=1, ascending=False, method="average")
    return ranks.groupby(level="noise").mean()[list(LEARNERS)]


def side_by_side(ours, label="ours"):
    """Table 1 beside the paper: for each learner the paper's mean rank,
    ``ours`` (a :func:`mean_ranks` frame) and the deviation ours - paper."""
    side = pd.concat({"paper": PAPER_TABLE1, label: ours}, axis=1).reorder_levels([1, 0], axis=1)
    for learner in LEARNERS:
        side[(learner, "deviation")] = side[(learner, label)] - side[(learner, "paper")]
    return side[[(learner, w) for learner in LEARNERS for w in ("paper", label, "deviation")]]


def family_table(table):
    """``(families, tasks)``: the paper's task families beside ours (counts
    per family of :data:`FAMILIES`, with a total row), and one row per task
    of ``table`` with its kind and family."""
    tasks = table.drop_duplicates("task")[["task", "kind"]].copy()
    tasks["family"] = tasks["task"].map(family)
    ours = tasks["family"].value_counts()
    families = pd.DataFrame([{"family": fam, "paper's data": data, "paper: tasks": n,
                              "our data": mine or "not available",
                              "ours: tasks": int(ours.get(mine, 0)) if mine else 0}
                             for fam, data, n, mine in FAMILIES]).set_index("family")
    families.loc["total"] = ["", families["paper: tasks"].sum(), "",
                             families["ours: tasks"].sum()]
    return families, tasks


def grid_edges(table, noise=0.3, grids=None):
    """For each learner, the share of tasks at ``noise`` whose tuned value is
    the smallest or the largest of its grid."""
    rows = {}
    for learner, (pname, grid) in (grids or GRIDS).items():
        at = table[(table["learner"] == learner) & (table["noise"] == noise)]["value"]
        rows[learner] = {"parameter": pname, "grid": ", ".join(f"{v:g}" for v in grid),
                         "share at smallest": float((at == min(grid)).mean()),
                         "share at largest": float((at == max(grid)).mean())}
    return pd.DataFrame(rows).T.astype({"share at smallest": float, "share at largest": float})


def load_stored(results_dir):
    """``(stored, provenance)``: the stored CSV frames and provenance dicts of
    :func:`reproduce` in ``results_dir``."""
    results = Path(results_dir)
    stored = {name: pd.read_csv(results / f"{name}.csv")
              for name in ("figure2a", "figure2b", "table1", "table1_pa_plain", "table1_wide_usps")}
    prov = {name: json.loads((results / f"{name}.provenance.json").read_text()) for name in stored}
    return stored, prov


# -- full runs, stored with provenance ------------------------------------------------
def provenance(settings, checkout=None):
    """Provenance of a stored run; ``checkout``: ``{"commit", "git_dirty"}``
    captured when the run started (default: now)."""
    checkout = checkout or {"commit": git_commit(), "git_dirty": git_dirty()}
    return {"commit": checkout["commit"], "git_dirty": checkout["git_dirty"],
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec="seconds"),
            "quick": quick_mode(), "settings": settings, "versions": _versions()}


def save(frame, out_dir, name, settings, checkout=None):
    """Write ``<name>.csv`` and ``<name>.provenance.json`` in ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out / f"{name}.csv", index=False)
    with open(out / f"{name}.provenance.json", "w") as handle:
        json.dump(provenance(settings, checkout), handle, indent=2, sort_keys=True,
                  default=str)
        handle.write("\n")


def reproduce(out_dir, parts=("figure2a", "figure2b", "table1", "pa_plain", "wide"),
              progress=print, n_jobs=1):
    """Run the full experiments and store them in ``out_dir``: ``parts`` among
    "figure2a", "figure2b", "table1", "pa_plain" (Table 1's protocol with plain
    PA, ``table1_pa_plain``) and "wide" (the USPS pairs with
    :data:`WIDE_GRIDS`, ``table1_wide_usps``).  ``n_jobs``: Table 1 tasks
    run at a time (the result does not depend on it).  The
    commit and the dirty flag stored with each result are those of the
    checkout when the run started."""
    checkout = {"commit": git_commit(), "git_dirty": git_dirty()}
    if "figure2a" in parts:
        curves, params = figure2a()
        save(curves, out_dir, "figure2a", {"n_runs": 100, "n_train": 5000,
                                           "n_test": 10000, "noise": 0.1,
                                           "params": params}, checkout)
        progress("figure2a done")
    if "figure2b" in parts:
        mistakes, chosen = figure2b()
        save(mistakes, out_dir, "figure2b", {"n_permutations": 10,
                                             "noise_levels": [0.0, 0.1]}, checkout)
        progress("figure2b done")
    def store_table1(name, label, **kwargs):
        started = time.perf_counter()
        table = run_table1(n_jobs=n_jobs, progress=lambda n, s: progress(f"{label}{n}: {s:.1f}s"),
                           **kwargs)
        save(table, out_dir, name, {"tasks": table1_tasks(False),
                                    "noise_levels": list(NOISE_LEVELS),
                                    "grids": kwargs.get("grids", GRIDS), "max_passes": 10,
                                    "max_instances": 2000, "n_jobs": n_jobs,
                                    "seconds": round(time.perf_counter() - started)},
             checkout)

    if "table1" in parts:
        store_table1("table1", "")
    if "pa_plain" in parts:
        store_table1("table1_pa_plain", "plain PA ", grids=PLAIN_PA_GRIDS, learners=("PA plain",))
    if "wide" in parts:
        tasks = [(t, "ocr-split") for t in OCR_USPS]
        wide = run_table1(tasks=tasks, noise_levels=(0.0, 0.3), grids=WIDE_GRIDS,
                          n_jobs=n_jobs, progress=lambda n, s: progress(f"wide {n}: {s:.1f}s"))
        save(wide, out_dir, "table1_wide_usps", {"tasks": tasks,
                                                 "noise_levels": [0.0, 0.3],
                                                 "grids": WIDE_GRIDS, "max_passes": 10},
             checkout)


# -- the paper's figures read from the stored runs (shared by the page and the scoreboard) ---
def figure2a_final(curves):
    """Figure 2(a): each learner's mean test accuracy after the last training example."""
    mean = curves.groupby(["learner", "examples"])["accuracy"].mean().unstack("learner")
    return mean.iloc[-1]


def figure2b_table(fig2b):
    """Figure 2(b): mean clean mistakes per learner (rows) and noise level (columns)."""
    return fig2b.groupby(["learner", "noise"])["clean_mistakes"].mean().unstack("noise")


def figure3_wins(table1, noise_levels=(0.0, 0.1, 0.3)):
    """Figure 3: the share of tasks on which AROW is more accurate than CW, per noise level."""
    wins = {}
    for noise in noise_levels:
        part = table1[table1["noise"] == noise].pivot_table(
            index=["task", "kind"], columns="learner", values="accuracy")
        wins[noise] = float((part["AROW"] > part["CW"]).mean())
    return wins
