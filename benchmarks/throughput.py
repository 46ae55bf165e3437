"""Throughput of one online pass: olearn against a peer library (issue item 11).

For every row of ``LEARNERS`` and every stream of ``STREAMS`` this measures the
examples per second of ``fit`` (one pass, in order, no intercept, no shuffle)
for olearn and for the peer, and their ratio olearn / peer.  ``fit`` is timed
end to end, as a user calls it (input validation included); the olearn time is
also split into validation and compiled loop.  Compile time is reported
separately: the first call in this process (numba compiles, or loads its
on-disk cache), and, in fresh subprocesses, the first call with an empty
``NUMBA_CACHE_DIR`` (cold: compile) and again with that directory filled
(warm: cache load).

    python benchmarks/throughput.py [--quick] [--repeats N] [--markdown]

To benchmark another learner, append a ``Row`` to ``LEARNERS``: a name, a
factory of the olearn estimator and a factory of the peer estimator (or
``None``).  The peer only needs ``fit(X, y)`` on the same stream; a River
model can be wrapped with ``river.compat.convert_river_to_sklearn``.
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
from olearn import PA, Perceptron
from olearn.base import compiled_rows
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.linear_model import SGDClassifier

SEED = 0
LABEL_NOISE = 0.05


# -- the learners -------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    """One benchmarked learner: olearn's estimator and the peer it is held to."""
    name: str
    olearn: Callable[[], object]
    peer: Optional[Callable[[], object]] = None
    peer_name: str = "scikit-learn"


def sklearn_perceptron():
    """scikit-learn's Perceptron as olearn's: one pass, in order, no intercept."""
    return SklearnPerceptron(penalty=None, eta0=1.0, fit_intercept=False,
                             shuffle=False, max_iter=1, tol=None)


def sklearn_pa(learning_rate, C):
    """scikit-learn's PA-I ("pa1") or PA-II ("pa2"); ``eta0`` is the PA ``C``."""
    return SGDClassifier(loss="hinge", penalty=None, learning_rate=learning_rate,
                         eta0=C, fit_intercept=False, shuffle=False,
                         max_iter=1, tol=None)


LEARNERS = [
    Row("Perceptron", Perceptron, sklearn_perceptron),
    Row("PA-I (C=1)", lambda: PA(C=1.0, variant="PA-I"),
        lambda: sklearn_pa("pa1", 1.0)),
    Row("PA-II (C=1)", lambda: PA(C=1.0, variant="PA-II"),
        lambda: sklearn_pa("pa2", 1.0)),
]


# -- the streams --------------------------------------------------------------
def hyperplane_labels(X, rng):
    """``sign(u . x)`` for a random ``u``, with a fraction of labels flipped."""
    y = np.where(X @ rng.standard_normal(X.shape[1]) > 0, 1, -1)
    flip = rng.random(y.shape[0]) < LABEL_NOISE
    y[flip] = -y[flip]
    return y


def sparse_stream(n, d, nnz, seed=SEED):
    """Text-like CSR rows: ``nnz`` distinct sorted columns, positive values, unit norm."""
    rng = np.random.default_rng(seed)
    cols = np.sort(rng.integers(0, d, size=(n, nnz)), axis=1)
    for i in np.flatnonzero((np.diff(cols, axis=1) == 0).any(axis=1)):
        cols[i] = np.sort(rng.choice(d, nnz, replace=False))
    values = rng.exponential(size=(n, nnz))
    values /= np.linalg.norm(values, axis=1, keepdims=True)
    indptr = np.arange(0, n * nnz + 1, nnz, dtype=np.int32)
    X = sp.csr_matrix((values.ravel(), cols.ravel().astype(np.int32), indptr),
                      shape=(n, d))
    return X, hyperplane_labels(X, rng)


def dense_stream(n, d, seed=SEED):
    """Standard normal rows."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, hyperplane_labels(X, rng)


STREAMS = {  # name: (generator, full-size arguments; --quick divides rows and columns by 10)
    "sparse 200k x 50k, 75 nnz/row": (sparse_stream, dict(n=200_000, d=50_000, nnz=75)),
    "dense 20k x 500": (dense_stream, dict(n=20_000, d=500)),
}


def make_stream(name, quick):
    generate, size = STREAMS[name]
    if quick:
        size = {k: (v if k == "nnz" else v // 10) for k, v in size.items()}
    return generate(**size)


# -- timing -------------------------------------------------------------------
def seconds(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def loop_seconds(est, X, y):
    """Seconds of olearn's compiled pass alone, on input validated beforehand.

    Uses the hooks of ``olearn.base.OnlineClassifier``; ``None`` if absent.
    """
    try:
        Xv, yv = est._validate(X, y, reset=True)
        est._set_classes(np.unique(yv))
        est._init_state(Xv.shape[1])
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
    """Median seconds of ``fit`` (olearn, peer), loop-only, first call, agreement."""
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
    result = dict(first=first, olearn=float(np.median(ours)), peer=None,
                  loop=None if None in loop else float(np.median(loop)),
                  agreement=None)
    if row.peer is not None:
        result["peer"] = float(np.median(theirs))
        result["agreement"] = agreement(est, peer)
    return result


# -- compile time in fresh processes ------------------------------------------
def first_call_child(row_index, stream_name):
    """(run in a subprocess) Time the first and the second fit on a small stream."""
    generate, _size = STREAMS[stream_name]
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
    return (f"{cpu}; {os.cpu_count()} logical CPUs; Python "
            f"{platform.python_version()}, numpy {np.__version__}, numba "
            f"{numba.__version__}, scikit-learn {sklearn.__version__}, "
            f"olearn {olearn.__version__}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="streams 10 times smaller (rows and columns)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="timed passes per learner and library (median)")
    parser.add_argument("--markdown", action="store_true",
                        help="print Markdown tables")
    parser.add_argument("--no-compile", action="store_true",
                        help="skip the cold/warm numba cache subprocesses")
    parser.add_argument("--first-call-child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.first_call_child:
        first_call_child(int(args.first_call_child[0]), args.first_call_child[1])
        return
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")

    print(f"Machine: {machine()}")
    print(f"Median of {args.repeats} passes; fit() end to end (validation "
          f"included); one pass, in order, no intercept."
          + (" QUICK sizes (1/10)." if args.quick else ""))
    throughput, first_calls = [], []
    for stream_name in STREAMS:
        X, y = make_stream(stream_name, args.quick)
        n = X.shape[0]
        for i, row in enumerate(LEARNERS):
            r = measure(row, X, y, args.repeats)
            ratio = "n/a" if r["peer"] is None else f"{r['peer'] / r['olearn']:.2f}"
            share = ("n/a" if r["loop"] is None
                     else f"{100 * (1 - r['loop'] / r['olearn']):.0f}%")
            agree = "n/a" if r["agreement"] is None else f"{r['agreement']:.0e}"
            throughput.append([row.name, stream_name, rate(n, r["olearn"]),
                               rate(n, r["peer"]), ratio,
                               rate(n, r["loop"]), share, agree])
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
                 "validation share of olearn fit", "max rel. |w| diff"],
                throughput, args.markdown))
    print()
    print("Peer: " + "; ".join(f"{row.name} = {row.peer_name}"
                               for row in LEARNERS if row.peer is not None)
          + ". ratio > 1: olearn is faster.")
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


if __name__ == "__main__":
    main()
