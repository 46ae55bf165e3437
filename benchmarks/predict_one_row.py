"""Predict one row against the number of features d (issue 26, item 14).

An online learner in production scores one row, then learns from it.  Until
issue 26 every ``decision_function`` call built the full coefficient vector
(O(d): 25-250 ms a row at d = 10^7); it now scores a CSR row from the stored
model in O(nnz(x)).  For each d and learner this script fits a stream of
``--rows`` CSR rows of 20 nonzeros each at random columns, then times

* ``new``: ``decision_function`` of one row, as the library does it now;
* ``full vector``: the former path, spelled out -- the same input checks,
  then the full weight vector built (``coef_``; the vote; SBCW's
  ``X[:, idx]``) and ``X @ w`` -- on the same row, interleaved with ``new``
  (the plain Winnows and SOFS already scored in O(nnz(x)): ratio about 1).

Each figure is the median over the rows of the best of ``--repeats`` calls,
in microseconds.  The CPU model and the one-minute load average before and
after are printed: the machine is shared, and the figures move with its load.

    python benchmarks/predict_one_row.py [--quick] [--repeats N] [--rows N]
                                         [--dims 1e4 1e5 ...]
"""
import argparse
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import host  # noqa: E402

try:
    import olearn
except ModuleNotFoundError:
    sys.path.insert(0, str(HERE.parent))
    import olearn

NNZ = 20


def learners():
    """name -> constructor (the diagonal second-order learners with
    ``covariance="diag"``: a full covariance is d x d)."""
    return {
        "Perceptron": lambda: olearn.Perceptron(),
        "PA": lambda: olearn.PA(),
        "Averaged(Perceptron)": lambda: olearn.Averaged(olearn.Perceptron()),
        "Averaged(PA, correct)": lambda: olearn.Averaged(olearn.PA(), weights="correct"),
        "MBW": lambda: olearn.ModifiedBalancedWinnow(),
        "Averaged(MBW)": lambda: olearn.Averaged(olearn.ModifiedBalancedWinnow()),
        "AROW diag": lambda: olearn.AROW(covariance="diag"),
        "SCW diag": lambda: olearn.SCW(covariance="diag"),
        "SOFS": lambda: olearn.SOFS(),
        "SparDCA": lambda: olearn.SparDCA(random_state=0),
        "SBCW": lambda: olearn.SBCW(r=3),
    }


def former_decision(est, X):
    """``decision_function`` as it was: the checks, then the full vector."""
    from olearn.base import checked_scores, validate_rows
    return checked_scores(est, full_vector_scores(est, validate_rows(est, X)))


def full_vector_scores(est, X):
    """The former path: the whole weight vector first, then ``X @ w``."""
    from olearn.linear.winnow import WinnowClassifier
    if isinstance(est, olearn.Averaged) and isinstance(est.learner_, WinnowClassifier):
        return est.learner_._scores(X, *est.learner_._average_state())
    if isinstance(est, WinnowClassifier):
        return est._scores(X, est._m, est._e)
    if isinstance(est, olearn.SBCW):
        idx = est.selected_features_
        return X[:, idx] @ np.concatenate(est._mu_blocks) if idx.size else np.zeros(1)
    coef = est.coef_
    coef = coef.toarray() if sp.issparse(coef) else coef
    return X @ np.ascontiguousarray(coef).ravel()


def stream(n, d, seed=0):
    rng = np.random.default_rng(seed)
    cols = np.concatenate([np.sort(rng.choice(d, NNZ, replace=False)) for _ in range(n)])
    X = sp.csr_matrix((rng.random(cols.size) + 0.1, cols.astype(np.int32),
                       np.arange(0, NNZ * n + 1, NNZ, dtype=np.int32)), shape=(n, d))
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    if np.all(y == y[0]):
        y[0] = -y[0]
    return X, y


def best(f, repeats):
    out = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        out = min(out, time.perf_counter() - start)
    return out


def measure(make, d, n_rows, repeats):
    """``(new, full vector)`` in microseconds per row (medians over rows)."""
    X, y = stream(n_rows, d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make().fit(X, y)
    rows = [X[t:t + 1] for t in range(n_rows)]
    new = est.decision_function(rows[0])           # compiled, warm
    old = former_decision(est, rows[0])
    if not np.array_equal(new, old):
        raise AssertionError(f"the scores differ: {new} vs {old}")
    times_new, times_old = [], []
    for row in rows:
        times_new.append(best(lambda: est.decision_function(row), repeats))
        times_old.append(best(lambda: former_decision(est, row), repeats))
    return 1e6 * np.median(times_new), 1e6 * np.median(times_old)


def machine():
    """The host as every benchmark stamp names it (benchmarks/host.py: CPU model, numba's
    target, vector extensions), with the core count and Python version."""
    return (f"{host.describe()}, {os.cpu_count()} logical cores; "
            f"Python {platform.python_version()}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="d up to 10^6, fewer rows and repeats")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("--dims", type=float, nargs="+", default=None)
    parser.add_argument("--only", nargs="+", default=None, help="learner names")
    args = parser.parse_args(argv)
    dims = [int(x) for x in (args.dims or ([1e4, 1e5, 1e6] if args.quick
                                           else [1e4, 1e5, 1e6, 1e7]))]
    repeats = args.repeats or (3 if args.quick else 5)
    n_rows = args.rows or (20 if args.quick else 50)
    chosen = {k: v for k, v in learners().items() if not args.only or k in args.only}
    print(f"machine: {machine()}")
    print(f"load average (1 min) before: {os.getloadavg()[0]:.2f}")
    print(f"one CSR row of {NNZ} nonzeros; median over {n_rows} rows of the best "
          f"of {repeats} calls, microseconds\n")
    print("| learner | d | new (us/row) | full vector (us/row) | ratio |")
    print("|---|---:|---:|---:|---:|")
    for name, make in chosen.items():
        for d in dims:
            new, old = measure(make, d, n_rows, repeats)
            print(f"| {name} | {d:.0e} | {new:,.1f} | {old:,.1f} | {old / new:,.1f}x |",
                  flush=True)
    print(f"\nload average (1 min) after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
