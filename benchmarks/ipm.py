"""Iterative parameter mixing on a Dask cluster against the serial fit (issue 38, section 3).

IPM with 5 epochs over the sparse stream of ``throughput.py`` (200,000 x 50,000 CSR,
75 nonzeros per row) cut into 2 shards, on a LocalCluster of 2 single-threaded worker
processes (or the scheduler given with ``--scheduler``), against the serial
``learner.fit`` with the same 5 epochs in this process.  Reported per learner:

* the serial fit's seconds (fastest of ``--repeats``);
* IPM's seconds: the whole ``fit`` (placing the shards on the workers included) and
  its epochs alone (placing excluded), fastest of ``--repeats``;
* the per-epoch overhead: each epoch's wall time minus its slowest shard's compute
  (the scheduler, sending the model to the workers and back, the mixing), median over
  the epochs of the fastest run.

The target of the issue is IPM's wall time at most 0.65x the serial fit's.  The
machine is shared: load only adds time, and the load average is printed with the
tables.

    python benchmarks/ipm.py [--quick] [--repeats N] [--scheduler tcp://host:8786] [--write]
"""
import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host import describe  # noqa: E402
from throughput import load_average, sparse_stream  # noqa: E402

from olearn import AROW, PA, Perceptron  # noqa: E402
from olearn.distributed import IterativeParameterMixing  # noqa: E402

LEARNERS = {"Perceptron": Perceptron, "PA-I (C=1)": lambda: PA(variant="PA-I"),
            "AROW diag (r=1)": lambda: AROW(covariance="diag")}
EPOCHS, SHARDS = 5, 2


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 10x smaller stream")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scheduler", default=None, help="a Dask scheduler address")
    parser.add_argument("--write", nargs="?",
                        const=str(Path(__file__).parent / "notes" / "ipm.md"),
                        default=None, help="write the Markdown table there (default: "
                        "benchmarks/notes/ipm.md, a run recorded by hand, not by run_all.py)")
    args = parser.parse_args(argv)
    n, d = (20_000, 5_000) if args.quick else (200_000, 50_000)
    X, y = sparse_stream(n=n, d=d, nnz=75)
    cuts = np.linspace(0, n, SHARDS + 1).astype(int)
    Xs = [X[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    ys = [y[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    from distributed import Client, LocalCluster
    before = load_average()
    if args.scheduler:
        client, where = Client(args.scheduler), f"the scheduler {args.scheduler}"
    else:
        cluster = LocalCluster(n_workers=SHARDS, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        client, where = Client(cluster), f"a LocalCluster of {SHARDS} single-threaded workers"
    rows = []
    for name, make in LEARNERS.items():
        make().fit(X[:1000], y[:1000])                        # compile here
        IterativeParameterMixing(make(), client=client).fit(
            [a[:1000] for a in Xs], [b[:1000] for b in ys])   # and on the workers
        serial, whole, epochs, best = [], [], [], None
        for _ in range(args.repeats):
            start = time.perf_counter()
            ref = make().set_params(n_epochs=EPOCHS).fit(X, y)
            serial.append(time.perf_counter() - start)
            start = time.perf_counter()
            ipm = IterativeParameterMixing(make(), n_epochs=EPOCHS, client=client).fit(
                Xs, ys)
            whole.append(time.perf_counter() - start)
            epochs.append(ipm.epoch_seconds_[:, 0].sum())
            if best is None or epochs[-1] <= min(epochs):
                best = ipm
        overhead = np.median(best.epoch_seconds_[:, 2])
        err_serial = float((ref.predict(X) != y).mean())
        err_ipm = float((best.predict(X) != y).mean())
        rows.append((name, min(serial), min(whole), min(epochs), overhead,
                     min(epochs) / min(serial), min(whole) / min(serial),
                     int(ref.n_mistakes_), int(best.n_mistakes_.sum()), err_serial,
                     err_ipm))
    after = load_average()
    lines = [
        f"# IPM on Dask against the serial fit ({'quick, not a measurement' if args.quick else 'recorded run'})",
        "",
        f"- date (UTC): {time.strftime('%Y-%m-%d %H:%M', time.gmtime())}; host CPU: {describe()}; "
        f"cores: {os.cpu_count()}",
        f"- machine shared with other sessions: {before} before, {after} after",
        f"- stream: {n:,} x {d:,} CSR, 75 nonzeros per row, {SHARDS} shards of "
        f"{n // SHARDS:,} rows; {EPOCHS} epochs; cluster: {where}; fastest of "
        f"{args.repeats}",
        "",
        "| learner | serial fit (s) | IPM fit, shards placed (s) | IPM epochs (s) | "
        "overhead per epoch (s, median) | epochs / serial | fit / serial | "
        "mistakes serial | mistakes IPM | training error serial | training error IPM |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r[0]} | {r[1]:.3f} | {r[2]:.3f} | {r[3]:.3f} | {r[4]:.4f} | "
                     f"{r[5]:.2f}x | {r[6]:.2f}x | {r[7]:,} | {r[8]:,} | {r[9]:.2%} | "
                     f"{r[10]:.2%} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        Path(args.write).write_text(text)
    client.close()
    if not args.scheduler:
        cluster.close()


if __name__ == "__main__":
    main()
