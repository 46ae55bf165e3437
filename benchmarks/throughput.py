"""Throughput of one online pass: olearn against peer libraries (issue items 3 and 11).

For every row of ``LEARNERS`` and every stream of ``STREAMS`` this measures the
examples per second of ``fit`` (one pass, in order, no intercept, no shuffle)
for olearn and, where scikit-learn runs the same rule, for scikit-learn, and
their ratio olearn / scikit-learn.  ``fit`` is timed end to end, as a user
calls it (input validation included); the olearn time is also split into
validation and compiled loop.

Rows with a River peer are also timed against River, which learns from one
dict per example and is about a hundred times slower: on the first
``river_rows`` rows of each stream, with the rows converted to dicts (and
labels to bools) *before* timing, River's ``learn_one`` loop against olearn's
``fit`` on the same rows, interleaved.

Compile time is reported separately: the first call in this process (numba
compiles, or loads its on-disk cache), and, in fresh subprocesses, the first
call with an empty ``NUMBA_CACHE_DIR`` (cold: compile) and again with that
directory filled (warm: cache load).

    python benchmarks/throughput.py [--quick] [--repeats N] [--markdown]
                                    [--no-compile] [--no-river] [--only NAME ...]

To benchmark another learner, append a ``Row`` to ``LEARNERS``: a name, a
factory of the olearn estimator, optionally a factory of a scikit-learn-like
peer (``fit(X, y)`` on the same stream; ``coef_`` for the agreement check)
and optionally a ``RiverPeer``.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import scipy.sparse as sp

try:
    import olearn
except ModuleNotFoundError:  # run from a source tree without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import olearn
from olearn import (ALMA, NORMA, PA, ROMMA, AggressiveROMMA, Averaged,
                    Perceptron)
from olearn.base import compiled_rows
from olearn.linear.regularized import (L1ConstrainedPA, L2ConstrainedPA,
                                ObjectiveRegularizedPA)
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.linear_model import SGDClassifier

SEED = 0
LABEL_NOISE = 0.05


# -- the learners -------------------------------------------------------------
@dataclass(frozen=True)
class RiverPeer:
    """A River model of the same rule, fed one dict per row.

    ``unit_rows``: River gets ``x / ||x||`` (its ALMA does not normalise,
    olearn's normalises inside the update); ``intercept``: River learns one,
    so its weights are compared with olearn's on ``[x, 1]``.
    """
    model: Callable[[], object]
    description: str
    unit_rows: bool = False
    intercept: bool = False


@dataclass(frozen=True)
class Row:
    """One benchmarked learner: olearn's estimator and the peers it is held to."""
    name: str
    olearn: Callable[[], object]
    peer: Optional[Callable[[], object]] = None
    peer_name: str = "scikit-learn"
    river: Optional[RiverPeer] = None


def sklearn_perceptron():
    """scikit-learn's Perceptron as olearn's: one pass, in order, no intercept."""
    return SklearnPerceptron(penalty=None, eta0=1.0, fit_intercept=False,
                             shuffle=False, max_iter=1, tol=None)


def sklearn_sgd(loss, learning_rate, eta0, penalty=None, alpha=0.0001,
                average=False):
    """One in-order pass of ``SGDClassifier`` without intercept."""
    return SGDClassifier(loss=loss, penalty=penalty, alpha=alpha,
                         learning_rate=learning_rate, eta0=eta0,
                         average=average, fit_intercept=False, shuffle=False,
                         max_iter=1, tol=None)


def sklearn_pa(learning_rate, C):
    """scikit-learn's PA-I ("pa1") or PA-II ("pa2"); ``eta0`` is the PA ``C``."""
    return sklearn_sgd("hinge", learning_rate, C)


def river_pa(mode, C):
    import river.linear_model
    return river.linear_model.PAClassifier(C=C, mode=mode, learn_intercept=False)


def river_perceptron():
    import river.linear_model
    return river.linear_model.Perceptron()


def river_alma():
    import river.linear_model
    return river.linear_model.ALMAClassifier(p=2, alpha=0.9, B=1 / 0.9,
                                             C=2 ** 0.5)


NORMA_ETA, NORMA_LAM = 0.1, 0.01
REG_ALPHA, L2_BETA, L1_BETA = 0.01, 1.5, 10.0

LEARNERS = [
    Row("Perceptron", Perceptron, sklearn_perceptron,
        river=RiverPeer(river_perceptron, "Perceptron() (learns an intercept)",
                        intercept=True)),
    Row("PA-I (C=1)", lambda: PA(C=1.0, variant="PA-I"),
        lambda: sklearn_pa("pa1", 1.0),
        river=RiverPeer(lambda: river_pa(1, 1.0),
                        "PAClassifier(C=1, mode=1, learn_intercept=False)")),
    Row("PA-II (C=1)", lambda: PA(C=1.0, variant="PA-II"),
        lambda: sklearn_pa("pa2", 1.0),
        river=RiverPeer(lambda: river_pa(2, 1.0),
                        "PAClassifier(C=1, mode=2, learn_intercept=False)")),
    # sklearn's averaged SGD with the perceptron loss and a constant rate 1 is
    # the Perceptron with (1/T) sum_t w_{t+1}: the same average as Averaged's.
    Row("Averaged(Perceptron)", lambda: Averaged(Perceptron()),
        lambda: sklearn_sgd("perceptron", "constant", 1.0, average=True),
        "scikit-learn SGD(average)"),
    Row("ROMMA", ROMMA),
    Row("AggressiveROMMA", AggressiveROMMA),
    Row("ALMA_2(0.9)", lambda: ALMA(p=2, alpha=0.9),
        river=RiverPeer(river_alma, "ALMAClassifier(p=2, alpha=0.9, B=1/0.9, "
                        "C=sqrt(2)) on unit rows", unit_rows=True)),
    # sklearn's SGD shrinks then adds: (1 - eta alpha) w + eta [y w.x <= 1] y x,
    # NORMA's rule with lam = alpha (rho = 1; only a tie y w.x = 1 differs).
    Row(f"NORMA (eta={NORMA_ETA}, lam={NORMA_LAM})",
        lambda: NORMA(eta=NORMA_ETA, lam=NORMA_LAM),
        lambda: sklearn_sgd("hinge", "constant", NORMA_ETA, penalty="l2",
                            alpha=NORMA_LAM),
        "scikit-learn SGD(l2)"),
    Row(f"ObjectiveRegularizedPA (alpha={REG_ALPHA})",
        lambda: ObjectiveRegularizedPA(alpha=REG_ALPHA)),
    Row(f"L2ConstrainedPA (beta={L2_BETA})", lambda: L2ConstrainedPA(beta=L2_BETA)),
    Row(f"L1ConstrainedPA (beta={L1_BETA:g})", lambda: L1ConstrainedPA(beta=L1_BETA)),
]


# -- the streams --------------------------------------------------------------
def hyperplane_labels(X, rng, u=None, return_hyperplane=False):
    """``sign(u . x)`` for a random ``u`` (or the ``u`` given), with a fraction of labels
    flipped; with ``return_hyperplane``, ``(y, u)``."""
    if u is None:
        u = rng.standard_normal(X.shape[1])
    y = np.where(X @ u > 0, 1, -1)
    flip = rng.random(y.shape[0]) < LABEL_NOISE
    y[flip] = -y[flip]
    return (y, u) if return_hyperplane else y


def sparse_stream(n, d, nnz, seed=SEED, unit_norm=True, hyperplane=None,
                  return_hyperplane=False):
    """Text-like CSR rows: ``nnz`` distinct sorted columns, positive values, unit norm.

    ``unit_norm=False``: the same rows before the normalisation ("raw" rows,
    exponential values); the labels are the same (``sign(u . x)`` does not
    change when a row is scaled by a positive number).  ``hyperplane``: label by
    this ``u`` (a held-out stream of the same concept, another ``seed``);
    ``return_hyperplane``: return ``(X, y, u)``.
    """
    rng = np.random.default_rng(seed)
    cols = np.sort(rng.integers(0, d, size=(n, nnz)), axis=1)
    for i in np.flatnonzero((np.diff(cols, axis=1) == 0).any(axis=1)):
        cols[i] = np.sort(rng.choice(d, nnz, replace=False))
    values = rng.exponential(size=(n, nnz))
    if unit_norm:
        values /= np.linalg.norm(values, axis=1, keepdims=True)
    indptr = np.arange(0, n * nnz + 1, nnz, dtype=np.int32)
    X = sp.csr_matrix((values.ravel(), cols.ravel().astype(np.int32), indptr),
                      shape=(n, d))
    labels = hyperplane_labels(X, rng, hyperplane, return_hyperplane)
    return (X, *labels) if return_hyperplane else (X, labels)


def dense_stream(n, d, seed=SEED):
    """Standard normal rows."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, hyperplane_labels(X, rng)


STREAMS = {  # name: (generator, full-size arguments, rows timed for River);
    # --quick divides rows and columns by 10
    "sparse 200k x 50k, 75 nnz/row": (sparse_stream, dict(n=200_000, d=50_000, nnz=75),
                                      20_000),
    "sparse 200k x 50k, 75 nnz/row, raw rows": (
        sparse_stream, dict(n=200_000, d=50_000, nnz=75, unit_norm=False), 20_000),
    "dense 20k x 500": (dense_stream, dict(n=20_000, d=500), 5_000),
}


def make_stream(name, quick):
    generate, size, _ = STREAMS[name]
    if quick:
        size = {k: (v if k in ("nnz", "unit_norm") else v // 10)
                for k, v in size.items()}
    return generate(**size)


def river_rows(name, quick):
    return STREAMS[name][2] // (10 if quick else 1)


# -- timing -------------------------------------------------------------------
def seconds(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def loop_seconds(est, X, y):
    """Seconds of olearn's compiled pass alone, on input validated beforehand.

    Uses the hooks of ``olearn.base.OnlineClassifier``; ``None`` if absent.
    """
    if isinstance(est, Averaged):
        est = est._make_learner()  # the wrapped learner, averaging on
    try:
        Xv, yv, labels = est._validate(X, y, reset=True)
        est._set_classes(labels)
        est._init_state(Xv.shape[1])
        est._reset_record()
        y_pm = est._encode(yv)
        mistakes, margins = np.zeros(y_pm.shape[0], bool), np.zeros(y_pm.shape[0])
        rows = compiled_rows(Xv)
        return seconds(lambda: est._learn(rows, y_pm, mistakes, margins))
    except AttributeError:
        return None


def fit_with_warnings_off(est, X, y):
    with warnings.catch_warnings():
        # scikit-learn warns that one epoch with tol=None did not converge.
        warnings.simplefilter("ignore")
        est.fit(X, y)
    return est


def agreement(ours, peer):
    """Largest relative difference between the two weight vectors."""
    a, b = np.ravel(ours.coef_), np.ravel(peer.coef_)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def measure(row, X, y, repeats):
    """Best (fastest) seconds of ``fit`` (olearn, peer), loop-only, first call, agreement.

    The minimum over interleaved passes: on a shared VM, load only ever adds time."""
    n_small = min(50, X.shape[0])
    first = seconds(lambda: row.olearn().fit(X[:n_small], y[:n_small]))
    ours, theirs, loop = [], [], []
    for _ in range(repeats):  # interleaved, so drift in machine load hits both
        est = row.olearn()
        ours.append(seconds(lambda: est.fit(X, y)))
        if row.peer is not None:
            peer = row.peer()
            theirs.append(seconds(lambda: fit_with_warnings_off(peer, X, y)))
        loop.append(loop_seconds(row.olearn(), X, y))
    result = dict(first=first, olearn=float(min(ours)), peer=None,
                  loop=None if None in loop else float(min(loop)),
                  agreement=None)
    if row.peer is not None:
        result["peer"] = float(min(theirs))
        result["agreement"] = agreement(est, peer)
    return result


# -- River: one dict per example ----------------------------------------------
def river_inputs(X, y, unit_rows):
    """River's input, built before timing: a dict per row and bool labels.

    CSR rows give the dict of their nonzeros, dense rows one entry per column
    (what ``river.stream.iter_array`` yields, with Python floats instead of
    numpy scalars); ``unit_rows`` divides each row by its norm first.
    """
    if unit_rows:
        norms = (np.sqrt(np.asarray(X.multiply(X).sum(axis=1))).ravel()
                 if sp.issparse(X) else np.linalg.norm(X, axis=1))
        scale = 1.0 / np.where(norms > 0, norms, 1.0)
        X = (sp.csr_matrix(sp.diags(scale) @ X) if sp.issparse(X)
             else X * scale[:, None])
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        dicts = [dict(zip(X.indices[a:b].tolist(), X.data[a:b].tolist()))
                 for a, b in zip(X.indptr[:-1], X.indptr[1:])]
    else:
        dicts = [dict(enumerate(row)) for row in X.tolist()]
    return dicts, (np.asarray(y) > 0).tolist()


def river_pass(model, dicts, labels):
    learn = model.learn_one
    for x, label in zip(dicts, labels):
        learn(x, label)
    return model


def river_weights(model, d, intercept):
    weights = model.w if hasattr(model, "w") else model.weights
    w = np.zeros(d + intercept)
    for j, value in weights.items():
        w[j] = value
    if intercept:
        w[d] = model.intercept
    return w


def with_constant_feature(X):
    ones = np.ones((X.shape[0], 1))
    return (sp.hstack([X, ones], format="csr") if sp.issparse(X)
            else np.hstack([X, ones]))


def measure_river(row, X, y, repeats):
    """Fastest seconds of olearn's ``fit`` and River's ``learn_one`` loop on ``X``.

    The dict conversion is done once, outside the timing.  The agreement is
    River's weights against olearn's (on ``[x, 1]`` if River learns an
    intercept), relative to River's largest weight.
    """
    peer = row.river
    dicts, labels = river_inputs(X, y, peer.unit_rows)
    ours, theirs = [], []
    for _ in range(repeats):  # interleaved
        est = row.olearn()
        ours.append(seconds(lambda: est.fit(X, y)))
        model = peer.model()
        theirs.append(seconds(lambda: river_pass(model, dicts, labels)))
    reference = (row.olearn().fit(with_constant_feature(X), y) if peer.intercept
                 else est)
    w_river = river_weights(model, X.shape[1], peer.intercept)
    w_ours = np.ravel(reference.coef_)
    diff = float(np.max(np.abs(w_ours - w_river))
                 / max(np.max(np.abs(w_river)), 1e-300))
    return dict(olearn=float(min(ours)), river=float(min(theirs)),
                agreement=diff)


# -- compile time in fresh processes ------------------------------------------
def first_call_child(row_index, stream_name):
    """(run in a subprocess) Time the first and the second fit on a small stream."""
    generate = STREAMS[stream_name][0]
    X, y = (generate(n=50, d=100, nnz=5) if generate is sparse_stream
            else generate(n=50, d=10))
    row = LEARNERS[row_index]
    first = seconds(lambda: row.olearn().fit(X, y))
    second = seconds(lambda: row.olearn().fit(X, y))
    print(json.dumps(dict(first_s=first, second_s=second)))


def first_call_in_subprocess(row_index, stream_name, cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(olearn.__file__).resolve().parents[1])]
        + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    out = subprocess.run(
        [sys.executable, __file__, "--first-call-child", str(row_index),
         stream_name], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def compile_times(row_index, stream_name):
    """First-call seconds with an empty numba cache (compile) and a filled one (load)."""
    with tempfile.TemporaryDirectory(prefix="olearn-numba-") as cache_dir:
        cold = first_call_in_subprocess(row_index, stream_name, cache_dir)
        warm = first_call_in_subprocess(row_index, stream_name, cache_dir)
    return cold, warm


# -- report -------------------------------------------------------------------
def table(header, rows, markdown):
    cells = [header] + [[str(c) for c in r] for r in rows]
    if markdown:
        lines = ["| " + " | ".join(r) + " |" for r in cells]
        lines.insert(1, "|" + "|".join("---" for _ in header) + "|")
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def rate(n, s):
    return "n/a" if s is None else f"{n / s:,.0f}"


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import numba
    import sklearn
    try:
        import river
        river_version = f", River {river.__version__}"
    except ModuleNotFoundError:
        river_version = ""
    return (f"{cpu}; {os.cpu_count()} logical CPUs; Python "
            f"{platform.python_version()}, numpy {np.__version__}, numba "
            f"{numba.__version__}, scikit-learn {sklearn.__version__}"
            f"{river_version}, olearn {olearn.__version__}")


def load_average():
    try:
        return "load average (1, 5, 15 min): " + ", ".join(
            f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "load average: n/a"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="streams 10 times smaller (rows and columns)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="timed passes per learner and library (the fastest is reported)")
    parser.add_argument("--markdown", action="store_true",
                        help="print Markdown tables")
    parser.add_argument("--no-compile", action="store_true",
                        help="skip the cold/warm numba cache subprocesses")
    parser.add_argument("--no-river", action="store_true",
                        help="skip the River comparisons")
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help="benchmark only the rows whose name contains one "
                             "of these (case-insensitive)")
    parser.add_argument("--first-call-child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.first_call_child:
        first_call_child(int(args.first_call_child[0]), args.first_call_child[1])
        return
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")
    rows = [(i, row) for i, row in enumerate(LEARNERS)
            if not args.only
            or any(key.lower() in row.name.lower() for key in args.only)]
    if not rows:
        parser.error(f"no row matches {args.only}")

    print(f"Machine: {machine()}")
    print(f"At start: {load_average()}")
    print(f"Best (fastest) of {args.repeats} passes; fit() end to end (validation "
          f"included); one pass, in order, no intercept."
          + (" QUICK sizes (1/10)." if args.quick else ""))
    throughput, river_table, first_calls = [], [], []
    for stream_name in STREAMS:
        X, y = make_stream(stream_name, args.quick)
        n = X.shape[0]
        n_river = min(n, river_rows(stream_name, args.quick))
        for i, row in rows:
            r = measure(row, X, y, args.repeats)
            ratio = "n/a" if r["peer"] is None else f"{r['peer'] / r['olearn']:.2f}"
            share = ("n/a" if r["loop"] is None
                     else f"{100 * (1 - r['loop'] / r['olearn']):.0f}%")
            agree = "n/a" if r["agreement"] is None else f"{r['agreement']:.0e}"
            throughput.append([row.name, stream_name, rate(n, r["olearn"]),
                               rate(n, r["peer"]), ratio,
                               rate(n, r["loop"]), share, agree])
            if row.river is not None and not args.no_river:
                rr = measure_river(row, X[:n_river], y[:n_river], args.repeats)
                river_table.append([
                    row.name, f"{stream_name}: first {n_river:,} rows",
                    rate(n_river, rr["olearn"]), rate(n_river, rr["river"]),
                    f"{rr['river'] / rr['olearn']:.0f}",
                    f"{rr['agreement']:.0e}", row.river.description])
            cold = warm = None
            if not args.no_compile:
                cold, warm = compile_times(i, stream_name)
            first_calls.append([
                row.name, stream_name, f"{r['first']:.3f}",
                "n/a" if cold is None else f"{cold['first_s']:.2f}",
                "n/a" if warm is None else f"{warm['first_s']:.3f}",
                "n/a" if warm is None else f"{warm['second_s'] * 1e3:.2f}"])
        del X, y

    print()
    print(table(["learner", "stream", "olearn ex/s", "peer ex/s",
                 "ratio olearn/peer", "olearn loop-only ex/s",
                 "share of olearn fit outside the loop", "max rel. weight diff"],
                throughput, args.markdown))
    print()
    print("Peer: " + "; ".join(f"{row.name} = {row.peer_name}"
                               for _, row in rows if row.peer is not None)
          + "; n/a: no scikit-learn estimator runs that rule. "
            "ratio > 1: olearn is faster.")
    if river_table:
        print()
        print(table(["learner", "rows timed", "olearn ex/s (same rows)",
                     "River ex/s", "ratio olearn/River", "max rel. weight diff",
                     "River model"], river_table, args.markdown))
        print()
        print("River: learn_one over dicts built before timing (CSR rows: "
              "their nonzeros; dense rows: every column); olearn: fit() on "
              "the same rows, interleaved.  Perceptron: River learns an "
              "intercept (|w| diff against olearn on [x, 1]).  ALMA: River "
              "gets unit rows (olearn normalises inside its update); on "
              "sparse dicts River rescales only the coordinates of x, so it "
              "is not Gentile's ALMA there.")
    print()
    print(table(["learner", "stream", "first call here (s)",
                 "cold cache: first call (s)", "warm cache: first call (s)",
                 "warm cache: second call (ms)"],
                first_calls, args.markdown))
    print()
    print("First call here: in this process, numba's default cache (compile "
          "or load).  Cold/warm: a fresh process with NUMBA_CACHE_DIR empty "
          "(compiles) / filled by the cold run (loads); first fit on a 50-row "
          "stream of that kind.")
    print()
    print(f"At end: {load_average()}")


if __name__ == "__main__":
    main()
