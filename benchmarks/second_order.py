"""Throughput of the second-order learners (AROW, CW, SCW, SOP, NAROW).

Three tables, all ratios measured in the same run (interleaved, fastest pass
of ``--repeats``; on a shared machine load only ever adds time):

1. **Diagonal covariance on the sparse stream** of ``throughput.py``
   (200,000 x 50,000 CSR, 75 nonzeros per row): examples per second of
   ``fit`` (end to end) and of the compiled pass alone, and the mistakes of
   the pass, for every second-order learner, next to the first-order
   Perceptron and PA-I on the same stream.  Target: diagonal AROW and SCW
   at least 2.5 million examples/s.
2. **Full covariance at d = 2,000** (dense standard-normal rows): AROW's
   compiled pass against a Python loop of the two BLAS calls a full AROW
   round needs (``dsymv`` for ``Sigma x`` and ``dsyr`` for the rank-one
   update, scipy's BLAS, one thread and the default threads), and against
   olpy's AROW (numpy, on fewer rows).  Targets: >= 0.8x the BLAS loop,
   >= 5x olpy.  The same rows for every full-covariance learner.

    python benchmarks/second_order.py [--quick] [--repeats N] [--write]

``--quick`` shrinks the streams (a smoke test, not a measurement);
``--write`` writes the Markdown tables to ``benchmarks/second_order.md``.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.linalg.blas import dsymv, dsyr
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from throughput import (dense_stream, load_average, loop_seconds, machine,  # noqa: E402
                        sparse_stream, table)

from olearn import AROW, CW, NAROW, PA, SCW, SOP, Perceptron  # noqa: E402

SECOND_ORDER = {
    "AROW (r=1)": lambda cov: AROW(covariance=cov),
    "CW variance (eta=0.95)": lambda cov: CW(covariance=cov),
    "CW stdev (eta=0.95)": lambda cov: CW(version="stdev", covariance=cov),
    "SCW-I (C=1, eta=0.95)": lambda cov: SCW(covariance=cov),
    "SCW-II (C=1, eta=0.95)": lambda cov: SCW(variant="II", covariance=cov),
    "SOP (a=1)": lambda cov: SOP(covariance=cov),
    "NAROW (b=1)": lambda cov: NAROW(covariance=cov),
}
FIRST_ORDER = {"Perceptron": lambda cov: Perceptron(),
               "PA-I (C=1)": lambda cov: PA(variant="PA-I")}


def seconds(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def sparse_table(quick, repeats):
    n, d = (20_000, 5_000) if quick else (200_000, 50_000)
    X, y = sparse_stream(n, d, 75)
    rows = []
    for name, make in {**SECOND_ORDER, **FIRST_ORDER}.items():
        cov = "diag"
        make(cov).fit(X[:50], y[:50])                      # compile / load cache
        label = name + (" diag" if name in SECOND_ORDER else "")
        fits, loops = [], []
        try:
            for _ in range(repeats):
                est = make(cov)
                fits.append(seconds(lambda: est.fit(X, y)))
                loops.append(loop_seconds(make(cov), X, y))
        except FloatingPointError as error:
            # variance CW: some variances underflow, then alpha ~ |M| / V overflows
            round_ = str(error).split("round ")[1].split(" ")[0]
            rows.append([label, "stops", "stops",
                         f"step overflows at round {int(round_):,}", ""])
            continue
        rows.append([label, f"{n / min(fits):,.0f}", f"{n / min(loops):,.0f}",
                     f"{est.n_mistakes_:,}", f"{est.n_updates_:,}"])
    return (f"Diagonal covariance, sparse {n:,} x {d:,}, 75 nnz/row "
            f"(best of {repeats})",
            ["learner", "fit ex/s", "pass ex/s", "mistakes", "updates"], rows)


def blas_arow(X, y, r=1.0):
    """Full AROW as a Python loop of dsymv + dsyr (upper triangle, Fortran)."""
    d = X.shape[1]
    S = np.asfortranarray(np.eye(d))
    mu = np.zeros(d)
    for x, yy in zip(X, y):
        m = mu @ x
        s = dsymv(1.0, S, x, lower=0)
        if yy * m < 1:
            beta = 1.0 / (x @ s + r)
            mu += max(0.0, 1.0 - yy * m) * beta * yy * s
            S = dsyr(-beta, s, a=S, lower=0, overwrite_a=1)
    return mu


def olpy_arow(X, y, r=1.0):
    from olpy.classifiers import AROW as OlpyAROW
    peer = OlpyAROW(r=r)
    peer.partial_fit(X, y)
    return peer.weights


def full_table(quick, repeats):
    d = 500 if quick else 2_000
    n = 100 if quick else 600
    n_olpy = 20 if quick else 60
    X, y = dense_stream(n, d)
    X = X / np.sqrt(d)
    make = SECOND_ORDER["AROW (r=1)"]
    make("full").fit(X[:5], y[:5])
    ours, blas1, blasd, olpy = [], [], [], []
    for _ in range(repeats):
        est = make("full")
        ours.append(seconds(lambda: est.fit(X, y)))
        with threadpool_limits(1):
            blas1.append(seconds(lambda: blas_arow(X, y)))
        blasd.append(seconds(lambda: blas_arow(X, y)))
    mu = blas_arow(X, y)
    agree = float(np.max(np.abs(est.coef_.ravel() - mu)))
    try:
        for _ in range(max(1, repeats // 2)):
            olpy.append(seconds(lambda: olpy_arow(X[:n_olpy], y[:n_olpy])))
        est_small = make("full").fit(X[:n_olpy], y[:n_olpy])
        agree_olpy = float(np.max(np.abs(est_small.coef_.ravel()
                                         - olpy_arow(X[:n_olpy], y[:n_olpy]))))
    except ImportError:
        olpy = None
    ex = n / min(ours)
    rows = [["olearn AROW full (pass + fit)", f"{ex:,.1f}", "1.00", "", str(est.n_updates_)],
            ["BLAS loop dsymv+dsyr, 1 thread", f"{n / min(blas1):,.1f}",
             f"{min(blas1) / min(ours):.2f}", f"{agree:.1e}", ""],
            ["BLAS loop dsymv+dsyr, default threads", f"{n / min(blasd):,.1f}",
             f"{min(blasd) / min(ours):.2f}", f"{agree:.1e}", ""]]
    if olpy:
        rows.append([f"olpy AROW ({n_olpy} rows)", f"{n_olpy / min(olpy):,.1f}",
                     f"{(min(olpy) / n_olpy) / (min(ours) / n):.1f}",
                     f"{agree_olpy:.1e}", ""])
    others = []
    for name, make_other in SECOND_ORDER.items():
        make_other("full").fit(X[:5], y[:5])
        times = []
        for _ in range(repeats):
            other = make_other("full")
            times.append(seconds(lambda: other.fit(X, y)))
        others.append([name + " full", f"{n / min(times):,.1f}",
                       f"{other.n_mistakes_:,}", f"{other.n_updates_:,}"])
    return ((f"Full covariance, dense {n} x {d} (rows / sqrt(d)), best of {repeats}",
             ["implementation", "ex/s", "olearn speed-up", "max abs mu diff", "updates"],
             rows),
            (f"Every learner with a full covariance, the same {n} x {d} stream",
             ["learner", "ex/s", "mistakes", "updates"], others))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    out = [f"Machine: {machine()}", "", load_average() + " (start)", ""]
    tables = [sparse_table(args.quick, args.repeats), *full_table(args.quick, args.repeats)]
    for title, header, rows in tables:
        out += [f"### {title}", "", table(header, rows, markdown=True), ""]
    out += [load_average() + " (end)"]
    text = "\n".join(out)
    print(text)
    if args.write:
        path = Path(__file__).resolve().parent / "second_order.md"
        path.write_text("# Second-order learners: throughput\n\n"
                        "Written by `python benchmarks/second_order.py --write`"
                        + (" --quick (smoke test sizes)" if args.quick else "")
                        + ".\n\n" + text + "\n")


if __name__ == "__main__":
    main()
