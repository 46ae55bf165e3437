"""Throughput of the second-order learners (AROW, CW, SCW, SOP, NAROW).

Three tables, all ratios measured in the same run (interleaved, fastest pass
of ``--repeats``; on a shared machine load only ever adds time):

1. **Diagonal covariance on the sparse stream** of ``throughput.py``
   (200,000 x 50,000 CSR, 75 nonzeros per row): examples per second of
   ``fit`` (end to end) and of the compiled pass alone, and the mistakes of
   the pass, for every second-order learner (and diagonal AROW on the same
   rows as float32 CSR, which it learns from without a float64 copy), next
   to the first-order Perceptron and PA-I on the same stream.  Target:
   diagonal AROW and SCW at least 2.5 million examples/s.
2. **Full covariance at d = 2,000** (dense standard-normal rows): AROW's
   compiled pass against a Python loop of the two BLAS calls a full AROW
   round needs (``dsymv`` for ``Sigma x`` and ``dsyr`` for the rank-one
   update, scipy's BLAS, one thread and the default threads), and against
   olpy's AROW (numpy, on fewer rows).  olearn runs with ``n_jobs=1`` (the
   serial sweep, the default) and ``n_jobs=2`` (the opt-in two-thread sweep),
   so that each is compared with the BLAS loop on the same number of
   threads.  Targets: >= 0.8x the BLAS loop (equal threads), >= 5x olpy.
   The same stream for every full-covariance learner, n_jobs=1 and 2.

    python benchmarks/second_order.py [--quick] [--repeats N] [--write]

``--quick`` shrinks the streams (a smoke test, not a measurement);
``--write [PATH]`` writes the Markdown tables to ``PATH`` (default
``benchmarks/second_order.md``).
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
    X64, y = sparse_stream(n, d, 75)
    X32 = X64.astype(np.float32)   # float32 CSR: no float64 copy (issue 19)
    learners = [(name + (" diag" if name in SECOND_ORDER else ""), make, X64)
                for name, make in {**SECOND_ORDER, **FIRST_ORDER}.items()]
    learners.insert(1, ("AROW (r=1) diag, float32 CSR", SECOND_ORDER["AROW (r=1)"], X32))
    cov = "diag"
    for _, make, X in learners:
        make(cov).fit(X[:50], y[:50])                      # compile / load cache
    # interleaved: each repeat runs every learner in turn, so a burst of load
    # from other jobs slows them alike (float64 against float32 input above all)
    fits = {label: [] for label, _, _ in learners}
    loops = {label: [] for label, _, _ in learners}
    last, stopped = {}, {}
    for _ in range(repeats):
        for label, make, X in learners:
            if label in stopped:
                continue
            est = make(cov)
            try:
                fits[label].append(seconds(lambda: est.fit(X, y)))
            except FloatingPointError as error:
                # exact CW's diagonal projection diverges (olearn.second_order.cw)
                stopped[label] = int(str(error).split("round ")[1].split(" ")[0])
                continue
            last[label] = est
            loops[label].append(loop_seconds(make(cov), X, y))
    rows = []
    for label, _, _ in learners:
        if label in stopped:
            rows.append([label, "stops", "stops",
                         f"step overflows at round {stopped[label]:,}", ""])
            continue
        est = last[label]
        rows.append([label, f"{n / min(fits[label]):,.0f}",
                     f"{n / min(loops[label]):,.0f}",
                     f"{est.n_mistakes_:,}", f"{est.n_updates_:,}"])
    return (f"Diagonal covariance, sparse {n:,} x {d:,}, 75 nnz/row "
            f"(best of {repeats}, interleaved)",
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


def blas_threads():
    """Threads the BLAS of scipy uses by default (threadpoolctl)."""
    from threadpoolctl import threadpool_info
    counts = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
    return max(counts) if counts else None


TARGET = 0.8     # issue 9: full AROW at least 0.8x the BLAS loop


def full_table(quick, repeats):
    d = 500 if quick else 2_000
    n = 100 if quick else 600
    n_olpy = 20 if quick else 60
    X, y = dense_stream(n, d)
    X = X / np.sqrt(d)
    make = SECOND_ORDER["AROW (r=1)"]
    make("full").fit(X[:5], y[:5])
    make("full").set_params(n_jobs=2).fit(X[:5], y[:5])
    ours1, ours2, blas1, blasd, olpy = [], [], [], [], []
    for _ in range(repeats):
        est1 = make("full")
        ours1.append(seconds(lambda: est1.fit(X, y)))
        est2 = make("full").set_params(n_jobs=2)
        ours2.append(seconds(lambda: est2.fit(X, y)))
        with threadpool_limits(1):
            blas1.append(seconds(lambda: blas_arow(X, y)))
        blasd.append(seconds(lambda: blas_arow(X, y)))
    mu = blas_arow(X, y)
    agree1 = float(np.max(np.abs(est1.coef_.ravel() - mu)))
    agree2 = float(np.max(np.abs(est2.coef_.ravel() - mu)))
    try:
        for _ in range(max(1, repeats // 2)):
            olpy.append(seconds(lambda: olpy_arow(X[:n_olpy], y[:n_olpy])))
        est_small = make("full").fit(X[:n_olpy], y[:n_olpy])
        agree_olpy = float(np.max(np.abs(est_small.coef_.ravel()
                                         - olpy_arow(X[:n_olpy], y[:n_olpy]))))
    except ImportError:
        olpy = None
    nb = blas_threads()
    ratio1 = min(blas1) / min(ours1)         # olearn / BLAS in ex/s, 1 thread each
    ratio2 = min(blasd) / min(ours2)         # olearn n_jobs=2 / BLAS default threads
    rows = [["olearn AROW full, n_jobs=1 (pass + fit)", "1", f"{n / min(ours1):,.1f}",
             f"{ratio1:.2f}", "1.00", f"{agree1:.1e}", str(est1.n_updates_)],
            ["olearn AROW full, n_jobs=2 (pass + fit)", "2", f"{n / min(ours2):,.1f}",
             f"{ratio2:.2f}" + ("" if nb == 2 else f" (BLAS: {nb} threads)"),
             f"{min(ours1) / min(ours2):.2f}", f"{agree2:.1e}", str(est2.n_updates_)],
            ["BLAS loop dsymv+dsyr, 1 thread", "1", f"{n / min(blas1):,.1f}", "",
             f"{min(blas1) / min(ours1):.2f}", "0", ""],
            ["BLAS loop dsymv+dsyr, default threads", str(nb), f"{n / min(blasd):,.1f}",
             "", f"{min(blasd) / min(ours1):.2f}", "0", ""]]
    if olpy:
        rows.append([f"olpy AROW ({n_olpy} rows)", "1", f"{n_olpy / min(olpy):,.1f}", "",
                     f"{(min(olpy) / n_olpy) / (min(ours1) / n):.1f}",
                     f"{agree_olpy:.1e} (vs olearn)", ""])
    verdict = []
    for threads, ratio in ((1, ratio1), (2, ratio2)):
        met = "met" if ratio >= TARGET else "NOT met"
        verdict.append(f"{threads} thread{'s' if threads > 1 else ''}: "
                       f"{ratio:.2f}x ({met})")
    note = (f"Target of issue 9, olearn >= {TARGET}x the BLAS loop on equal "
            f"threads: " + "; ".join(verdict) + ". "
            "\"olearn / BLAS\" is the ratio of examples per second of olearn's "
            "row to the BLAS loop with the same number of threads (n_jobs=2 "
            "against BLAS's default threads); \"speed-up\" is the time of the "
            "row over the time of olearn with n_jobs=1. Max abs mu diff: "
            "against the final mean of the BLAS loop.")
    if min(ratio1, ratio2) < TARGET:
        note += (" Below target: both loops stream the d(d+1)/2 triangle from "
                 "memory each round, so the limit is likely memory bandwidth.")
    others = []
    for name, make_other in SECOND_ORDER.items():
        make_other("full").fit(X[:5], y[:5])
        make_other("full").set_params(n_jobs=2).fit(X[:5], y[:5])
        times1, times2 = [], []
        for _ in range(repeats):
            other = make_other("full")
            times1.append(seconds(lambda: other.fit(X, y)))
            other2 = make_other("full").set_params(n_jobs=2)
            times2.append(seconds(lambda: other2.fit(X, y)))
        same = bool(np.array_equal(other.mistakes_, other2.mistakes_))
        diff = float(np.max(np.abs(other.coef_ - other2.coef_)))
        others.append([name + " full", f"{n / min(times1):,.1f}",
                       f"{n / min(times2):,.1f}", f"{min(times1) / min(times2):.2f}",
                       f"{other.n_mistakes_:,}", f"{other.n_updates_:,}",
                       "yes" if same else "NO", f"{diff:.1e}"])
    return ((f"Full covariance, dense {n} x {d} (rows / sqrt(d)), best of {repeats}",
             ["implementation", "threads", "ex/s", "olearn / BLAS, equal threads",
              "speed-up over olearn n_jobs=1", "max abs mu diff", "updates"],
             rows, note),
            (f"Every learner with a full covariance, the same {n} x {d} stream",
             ["learner", "ex/s n_jobs=1", "ex/s n_jobs=2", "speed-up", "mistakes",
              "updates", "same mistakes n_jobs=2", "max abs mu diff n_jobs=2"],
             others))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--write", nargs="?", type=Path, metavar="PATH",
                        const=Path(__file__).resolve().parent / "second_order.md",
                        help="write the Markdown tables (default path: "
                             "benchmarks/second_order.md)")
    args = parser.parse_args(argv)
    out = [f"Machine: {machine()}", "", load_average() + " (start)", ""]
    tables = [sparse_table(args.quick, args.repeats), *full_table(args.quick, args.repeats)]
    for title, header, rows, *note in tables:
        out += [f"### {title}", "", table(header, rows, markdown=True), ""]
        out += [*note, ""] if note else []
    out += [load_average() + " (end)"]
    text = "\n".join(out)
    print(text)
    if args.write:
        path = args.write
        path.write_text("# Second-order learners: throughput\n\n"
                        "Written by `python benchmarks/second_order.py --write`"
                        + (" --quick (smoke test sizes)" if args.quick else "")
                        + ".\n\n" + text + "\n")


if __name__ == "__main__":
    main()
