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

**Size sweep** (skipped with ``--no-sweep``): the same stream generator at
``--sizes`` rows (default 200k, 1M, 2M, 4M; a size whose estimated memory exceeds
the available memory is skipped and said so), Perceptron and diagonal AROW, 2
shards, 5 epochs; IPM's whole fit two ways: shards sent from this process
(scattered), and shards the workers read themselves from LIBSVM files (written
once per size, values rounded to 8 decimals).  With it, the break-even size of the
model ``t_serial = n c``, ``t_ipm = n c / S + E o`` (``c`` the serial seconds per
row, ``o`` the overhead per epoch, both measured at the smallest size):
``n* = E o / (c (0.65 - 1/S))``, and its predicted ratios against the measured ones.

**Accuracy against shards** (``--accuracy``): IPM with S = 1, 2, 4, 8, 16 shards
(uniform mixing, 5 epochs) on the 200k x 50k stream against the serial learner with
the same 5 epochs: mistakes per epoch and the error on a held-out stream of 100,000
rows from the same generator (other rows, the same hyperplane and label noise).

    python benchmarks/ipm.py [--quick] [--repeats N] [--scheduler tcp://host:8786]
                             [--no-sweep] [--sizes 200000,1000000] [--accuracy] [--write]
"""
import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host import describe  # noqa: E402
from throughput import SEED, load_average, sparse_stream  # noqa: E402

from olearn import AROW, PA, Perceptron  # noqa: E402
from olearn.distributed import IterativeParameterMixing  # noqa: E402

LEARNERS = {"Perceptron": Perceptron, "PA-I (C=1)": lambda: PA(variant="PA-I"),
            "AROW diag (r=1)": lambda: AROW(covariance="diag")}
SWEEP_LEARNERS = ("Perceptron", "AROW diag (r=1)")
EPOCHS, SHARDS, NNZ, TARGET = 5, 2, 75, 0.65
SIZES = (200_000, 1_000_000, 2_000_000, 4_000_000)
ACCURACY_SHARDS = (1, 2, 4, 8, 16)
N_TEST = 100_000
#: bytes per nonzero at the peak of a size's run: this process's stream (12: float64
#: value, int32 index) and, while the workers read their files, the text (at most 17)
#: and the parsed shard (16: int64 indices); the generation peaks lower
BYTES_PER_NNZ = 12 + 17 + 16


# -- shards and files -----------------------------------------------------------------
def row_blocks(X, y, S):
    """``S`` contiguous row blocks of the CSR ``X`` (views of its arrays, no copy)."""
    cuts = np.linspace(0, X.shape[0], S + 1).astype(int)
    Xs = [sp.csr_matrix((X.data[X.indptr[a]:X.indptr[b]],
                         X.indices[X.indptr[a]:X.indptr[b]],
                         X.indptr[a:b + 1] - X.indptr[a]), shape=(b - a, X.shape[1]))
          for a, b in zip(cuts[:-1], cuts[1:])]
    return Xs, [y[a:b] for a, b in zip(cuts[:-1], cuts[1:])]


@njit(cache=True)
def _libsvm_text(data, indices, indptr, y, out):
    """LIBSVM lines of the rows into ``out``: labels +-1, 1-based indices, values in
    [0, 1] written ``0.dddddddd`` (rounded to 8 decimals); returns the bytes written."""
    digits = np.empty(24, np.uint8)
    pos = 0
    for i in range(indptr.shape[0] - 1):
        if y[i] > 0:
            out[pos] = 49
            pos += 1
        else:
            out[pos] = 45
            out[pos + 1] = 49
            pos += 2
        for k in range(indptr[i], indptr[i + 1]):
            out[pos] = 32
            pos += 1
            j = np.int64(indices[k]) + 1
            m = 0
            while True:
                digits[m] = 48 + j % 10
                j //= 10
                m += 1
                if j == 0:
                    break
            for r in range(m - 1, -1, -1):
                out[pos] = digits[r]
                pos += 1
            out[pos] = 58
            pos += 1
            q = np.int64(data[k] * 1e8 + 0.5)
            if q >= 100_000_000:
                out[pos] = 49
                pos += 1
            else:
                out[pos] = 48
                out[pos + 1] = 46
                pos += 2
                for r in range(7, -1, -1):
                    digits[r] = 48 + q % 10
                    q //= 10
                for r in range(8):
                    out[pos] = digits[r]
                    pos += 1
        out[pos] = 10
        pos += 1
    return pos


def write_libsvm(path, X, y):
    """The rows of the CSR ``X`` (values in [0, 1]) as a LIBSVM file."""
    if X.nnz and (X.data.min() < 0 or X.data.max() > 1):
        raise ValueError("write_libsvm writes values in [0, 1] only (unit-norm rows).")
    width = len(str(X.shape[1]))
    out = np.empty(X.nnz * (width + 12) + X.shape[0] * 3, np.uint8)
    size = _libsvm_text(X.data, X.indices, X.indptr, np.asarray(y), out)
    with open(path, "wb") as f:
        f.write(memoryview(out[:size]))
    return size


def available_bytes():
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


# -- timing ---------------------------------------------------------------------------
def time_serial(make, X, y, repeats):
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        ref = make().set_params(n_epochs=EPOCHS).fit(X, y)
        seconds.append(time.perf_counter() - start)
    return min(seconds), ref


def time_ipm(make, client, repeats, X, y=None, **params):
    """Fastest whole fit, fastest epochs, median overhead per epoch of the run with the
    fastest epochs, and that run's model."""
    whole, epochs, best = [], [], None
    for _ in range(repeats):
        start = time.perf_counter()
        ipm = IterativeParameterMixing(make(), n_epochs=EPOCHS, client=client,
                                       **params).fit(X, y)
        whole.append(time.perf_counter() - start)
        epochs.append(ipm.epoch_seconds_[:, 0].sum())
        if best is None or epochs[-1] <= min(epochs):
            best = ipm
    return min(whole), min(epochs), float(np.median(best.epoch_seconds_[:, 2])), best


def warm_up(client, make, X, y, where):
    """Compile the learner here and on the workers, and the LIBSVM reader there."""
    make().fit(X[:1000], y[:1000])
    Xs, ys = row_blocks(X[:2000], y[:2000], SHARDS)
    IterativeParameterMixing(make(), client=client).fit(Xs, ys)
    paths = [where / f"warm-{k}.svm" for k in range(SHARDS)]
    for path, a, b in zip(paths, Xs, ys):
        write_libsvm(path, a, b)
    IterativeParameterMixing(make(), client=client, n_features=X.shape[1]).fit(
        [str(p) for p in paths])


# -- the tables -----------------------------------------------------------------------
def main_table(client, X, y, repeats, where):
    Xs, ys = row_blocks(X, y, SHARDS)
    rows = []
    for name, make in LEARNERS.items():
        warm_up(client, make, X, y, where)
        serial, ref = time_serial(make, X, y, repeats)
        whole, epochs, overhead, best = time_ipm(make, client, repeats, Xs, ys)
        err_serial = float((ref.predict(X) != y).mean())
        err_ipm = float((best.predict(X) != y).mean())
        rows.append((name, serial, whole, epochs, overhead, epochs / serial, whole / serial,
                     int(ref.n_mistakes_), int(best.n_mistakes_.sum()), err_serial,
                     err_ipm))
    lines = [
        "| learner | serial fit (s) | IPM fit, shards placed (s) | IPM epochs (s) | "
        "overhead per epoch (s, median) | epochs / serial | fit / serial | "
        "mistakes serial | mistakes IPM | training error serial | training error IPM |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r[0]} | {r[1]:.3f} | {r[2]:.3f} | {r[3]:.3f} | {r[4]:.4f} | "
                     f"{r[5]:.2f}x | {r[6]:.2f}x | {r[7]:,} | {r[8]:,} | {r[9]:.2%} | "
                     f"{r[10]:.2%} |")
    return lines


def sweep(client, sizes, d, repeats, where):
    """One dict per size and learner (seconds: serial fit, IPM epochs, overhead per
    epoch, compute, whole fit with shards sent and with files read), and the notes on
    the sizes skipped or failed."""
    rows, notes = [], []
    for n in sizes:
        need = n * NNZ * BYTES_PER_NNZ
        free = available_bytes()
        if free is not None and need > 0.9 * free:
            notes.append(f"{n:,} rows skipped: about {need / 2**30:.1f} GiB needed, "
                         f"{free / 2**30:.1f} GiB available")
            continue
        paths = [where / f"shard-{n}-{k}.svm" for k in range(SHARDS)]
        try:
            X, y = sparse_stream(n=n, d=d, nnz=NNZ)
            Xs, ys = row_blocks(X, y, SHARDS)
            for path, a, b in zip(paths, Xs, ys):
                write_libsvm(path, a, b)
            for name in SWEEP_LEARNERS:
                make = LEARNERS[name]
                warm_up(client, make, X, y, where)
                serial, _ = time_serial(make, X, y, repeats)
                sent, epochs, overhead, best = time_ipm(make, client, repeats, Xs, ys)
                compute = float(best.epoch_seconds_[:, 1].sum())
                files, f_epochs, f_overhead, _ = time_ipm(
                    make, client, repeats, [str(p) for p in paths], n_features=d)
                rows.append(dict(n=n, name=name, serial=serial, epochs=epochs,
                                 overhead=overhead, compute=compute, sent=sent, files=files,
                                 f_epochs=f_epochs))
                print(f"{n:,} {name}: serial {serial:.3f} s, IPM epochs {epochs:.3f} s "
                      f"(files {f_epochs:.3f}), overhead {overhead:.4f} s/epoch, whole fit "
                      f"{sent:.3f} s sent, {files:.3f} s files", flush=True)
            del X, y, Xs, ys
        except Exception as err:  # noqa: BLE001 - said in the notes, the rest still runs
            notes.append(f"{n:,} rows: the run failed ({type(err).__name__}: {err})")
            print(notes[-1], flush=True)
        for path in paths:
            path.unlink(missing_ok=True)
    return rows, notes


def sweep_lines(rows, notes):
    lines = [
        f"| rows | learner | serial fit (s) | IPM epochs (s) | overhead per epoch (s, "
        f"median) | epochs / serial | model: epochs / serial | IPM fit, shards sent "
        f"(s) | fit / serial | IPM fit, workers read files (s) | fit / serial |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    model = {}
    for name in SWEEP_LEARNERS:   # c and o measured at the smallest size
        first = [r for r in rows if r["name"] == name][:1]
        if first:
            r = first[0]
            model[name] = (r["serial"] / r["n"], r["overhead"])
    for r in rows:
        c, o = model[r["name"]]
        predicted = 1 / SHARDS + EPOCHS * o / (r["n"] * c)
        lines.append(
            f"| {r['n']:,} | {r['name']} | {r['serial']:.3f} | {r['epochs']:.3f} | "
            f"{r['overhead']:.4f} | {r['epochs'] / r['serial']:.2f}x | {predicted:.2f}x | "
            f"{r['sent']:.3f} | {r['sent'] / r['serial']:.2f}x | {r['files']:.3f} | "
            f"{r['files'] / r['serial']:.2f}x |")
    lines += [""] + [f"- {note}" for note in notes]
    for name, (c, o) in model.items():
        mine = [r for r in rows if r["name"] == name]
        n_star = EPOCHS * o / (c * (TARGET - 1 / SHARDS))
        reach = [r["n"] for r in mine if r["epochs"] / r["serial"] <= TARGET]
        reach_sent = [r["n"] for r in mine if r["sent"] / r["serial"] <= TARGET]
        reach_files = [r["n"] for r in mine if r["files"] / r["serial"] <= TARGET]
        say = lambda found: f"{found[0]:,} rows" if found else "none of the sizes run"  # noqa: E731
        # every figure below from the table's columns, each size against the serial fit of
        # the same size (the serial time per row is not constant across sizes under load):
        # a worker's compute = the epochs less E times the median overhead per epoch, and
        # placing = the whole fit less the epochs (for the files, less the epochs of the
        # sent run, the only epochs the table shows)
        per_size = []
        for r in mine:
            compute = r["epochs"] - EPOCHS * r["overhead"]
            per_size.append(
                f"{r['n']:,}: compute {compute / r['serial']:.3f}x serial, placing "
                f"{(r['sent'] - r['epochs']) / r['n'] * 1e9:.0f} ns (sent) and "
                f"{(r['files'] - r['epochs']) / r['n'] * 1e9:.0f} ns (files) per row")
        big = mine[-1]
        c_n = big["serial"] / big["n"]                   # serial per row at the largest size
        c_w = (big["epochs"] - EPOCHS * big["overhead"]) * SHARDS / big["n"]
        place = (big["sent"] - big["epochs"]) / big["n"]
        place_f = (big["files"] - big["epochs"]) / big["n"]
        refined = (EPOCHS * o / (TARGET * c_n - c_w / SHARDS)
                   if TARGET * c_n > c_w / SHARDS else None)
        # the limit c_w / (S c_n) by each size's own figures is that size's compute ratio:
        # the sizes on the other side of the target from the largest size say how far the
        # largest size's limit is to be trusted (one size's figures, under this host's noise)
        below = TARGET * c_n > c_w / SHARDS
        other_side = []
        for r in mine[:-1]:
            r_cn = r["serial"] / r["n"]
            r_cw = (r["epochs"] - EPOCHS * r["overhead"]) * SHARDS / r["n"]
            if (TARGET * r_cn > r_cw / SHARDS) == below:
                continue
            if TARGET * r_cn > r_cw / SHARDS:
                reach_at = [EPOCHS * oo / (TARGET * r_cn - r_cw / SHARDS)
                            for oo in (o, r["overhead"])]
                other_side.append(
                    f"by the figures of {r['n']:,} rows it is {r_cw / (SHARDS * r_cn):.3f}x, "
                    f"and the epochs would reach 0.65x from n = E o / (0.65 c_n - c_w/S) = "
                    f"{reach_at[0]:,.0f} rows (o at the smallest size; {reach_at[1]:,.0f} with "
                    f"the overhead of that size)")
            else:
                other_side.append(f"by the figures of {r['n']:,} rows it is "
                                  f"{r_cw / (SHARDS * r_cn):.3f}x, above 0.65x at any n")
        compute = [(r["epochs"] - EPOCHS * r["overhead"]) / r["serial"] for r in mine]
        spread = (f"; by each size's own figures the same limit is that size's compute ratio "
                  f"above ({min(compute):.3f}x to {max(compute):.3f}x)"
                  + (": " + "; ".join(other_side) + ", so whether the epochs reach 0.65x is "
                     "not settled by these sizes" if other_side else
                     f", {'below' if below else 'above'} 0.65x at every size"))
        lines.append(
            f"- {name}: model with c = {c * 1e9:.0f} ns per row (5 epochs, serial, at "
            f"{mine[0]['n']:,} rows) and o = {o * 1e3:.1f} ms per epoch: break-even "
            f"n* = E o / (c (0.65 - 1/S)) = {n_star:,.0f} rows. Measured, the smallest "
            f"size whose IPM epochs reach 0.65x serial: {say(reach)}; the whole fit, "
            f"shards sent: {say(reach_sent)}; workers reading files: {say(reach_files)}. "
            f"Per size (compute: IPM epochs less {EPOCHS} overheads, over the serial fit of "
            f"that size): {'; '.join(per_size)}. At {big['n']:,} rows, against the serial "
            f"fit of that size (c_n = {c_n * 1e9:.0f} ns per row), a worker's compute is "
            f"{c_w * 1e9:.0f} ns per row of its shard ({c_w / c_n:.2f} c_n: "
            f"{'slower' if c_w > c_n else 'faster'} than the serial pass per row), so by "
            f"the largest size's figures the epochs tend to c_w / (S c_n) = "
            f"{c_w / (SHARDS * c_n):.3f}x serial for large n"
            + (f" and reach 0.65x from n = E o / (0.65 c_n - c_w/S) = {refined:,.0f} rows"
               if refined else ", above 0.65x at any n")
            + spread + f"; placing costs {place * 1e9:.0f} ns per row sent and {place_f * 1e9:.0f} "
            f"ns per row read from a file, so the whole fit tends to "
            f"{(c_w / SHARDS + place) / c_n:.2f}x (sent) and "
            f"{(c_w / SHARDS + place_f) / c_n:.2f}x (files) serial.")
    return lines


def rows_from_notes(text):
    """The size sweep's rows as :func:`sweep_lines` takes them, read back from a recorded
    note's "Size sweep" table (its printed, rounded values), so that the lines under the
    table can be recomputed from the recorded measurements without running the benchmark."""
    section = text.split("## Size sweep", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 11 or not cells[0].replace(",", "").isdigit():
            continue
        rows.append(dict(n=int(cells[0].replace(",", "")), name=cells[1],
                         serial=float(cells[2]), epochs=float(cells[3]),
                         overhead=float(cells[4]), sent=float(cells[7]),
                         files=float(cells[9])))
    if not rows:
        raise ValueError("no size-sweep table in the note: pass a note written by "
                         "`python benchmarks/ipm.py --write`")
    return rows


def lines_from_notes(path):
    """The lines under a recorded note's sweep table, recomputed by :func:`sweep_lines` from
    the table's values (python benchmarks/ipm.py --lines-from NOTE)."""
    lines = sweep_lines(rows_from_notes(Path(path).read_text()), [])
    return lines[lines.index("") + 1:]


def accuracy(client, n, d):
    X, y, u = sparse_stream(n=n, d=d, nnz=NNZ, return_hyperplane=True)
    X_test, y_test = sparse_stream(n=N_TEST if n >= N_TEST * 2 else n // 2, d=d, nnz=NNZ,
                                   seed=SEED + 1, hyperplane=u)
    lines = [
        "| learner | shards | " + " | ".join(f"mistakes epoch {e + 1}"
                                              for e in range(EPOCHS))
        + " | mistakes total | test error | training error |",
        "|---|---|" + "---|" * (EPOCHS + 3),
    ]
    checks = []
    for name, make in LEARNERS.items():
        ref = make().set_params(n_epochs=EPOCHS).fit(X, y)
        per_epoch = ref.mistakes_.reshape(EPOCHS, n).sum(axis=1)
        rows = [("serial", per_epoch, ref)]
        same = None
        for S in ACCURACY_SHARDS:
            ipm = IterativeParameterMixing(make(), n_epochs=EPOCHS, n_shards=S,
                                           client=client).fit(X, y)
            rows.append((f"IPM, S = {S}", ipm.n_mistakes_.sum(axis=1), ipm))
            if S == 1:
                same = np.array_equal(ipm.coef_, ref.coef_)
        for label, mistakes, model in rows:
            test = float((model.predict(X_test) != y_test).mean())
            train = float((model.predict(X) != y).mean())
            lines.append(f"| {name} | {label} | "
                         + " | ".join(f"{int(m):,}" for m in mistakes)
                         + f" | {int(np.sum(mistakes)):,} | {test:.2%} | {train:.2%} |")
        checks.append(f"- {name}: IPM with S = 1 equals the serial fit bit for bit "
                      f"(coef_): {'yes' if same else 'NO'}")
    return lines + [""] + checks, X_test.shape[0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 10x smaller stream")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scheduler", default=None, help="a Dask scheduler address")
    parser.add_argument("--no-sweep", action="store_true", help="skip the size sweep")
    parser.add_argument("--sizes", default=None,
                        help="rows of the sweep, comma-separated (default 200k,1M,2M,4M; "
                        "--quick: a tenth)")
    parser.add_argument("--accuracy", action="store_true",
                        help="add the table of accuracy against the number of shards")
    parser.add_argument("--shard-dir", default=None,
                        help="where the LIBSVM shards are written (the workers must see "
                        "it; default: a temporary directory of this machine)")
    parser.add_argument("--write", nargs="?",
                        const=str(Path(__file__).parent / "notes" / "ipm.md"),
                        default=None, help="write the Markdown table there (default: "
                        "benchmarks/notes/ipm.md, a run recorded by hand, not by run_all.py)")
    parser.add_argument("--lines-from", default=None, metavar="NOTE",
                        help="print the lines under a recorded note's sweep table, "
                        "recomputed from its values (no benchmark is run)")
    args = parser.parse_args(argv)
    if args.lines_from:
        print("\n".join(lines_from_notes(args.lines_from)))
        return
    scale = 10 if args.quick else 1
    n, d = 200_000 // scale, 50_000 // scale
    sizes = ([int(s) for s in args.sizes.split(",")] if args.sizes
             else [s // scale for s in SIZES])
    X, y = sparse_stream(n=n, d=d, nnz=NNZ)
    from distributed import Client, LocalCluster
    before = load_average()
    if args.scheduler:
        client, where = Client(args.scheduler), f"the scheduler {args.scheduler}"
    else:
        cluster = LocalCluster(n_workers=SHARDS, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        client, where = Client(cluster), f"a LocalCluster of {SHARDS} single-threaded workers"
    shard_dir = Path(args.shard_dir or tempfile.mkdtemp(prefix="olearn-ipm-"))
    shard_dir.mkdir(parents=True, exist_ok=True)
    try:
        main_lines = main_table(client, X, y, args.repeats, shard_dir)
        print("\n".join(main_lines), flush=True)
        del X, y
        sweep_rows = None
        if not args.no_sweep:
            sweep_rows, notes = sweep(client, sizes, d, args.repeats, shard_dir)
        acc_lines = accuracy(client, n, d) if args.accuracy else None
    finally:
        if not args.shard_dir:
            shutil.rmtree(shard_dir, ignore_errors=True)
    after = load_average()
    lines = [
        f"# IPM on Dask against the serial fit ({'quick, not a measurement' if args.quick else 'recorded run'})",
        "",
        f"- date (UTC): {time.strftime('%Y-%m-%d %H:%M', time.gmtime())}; host CPU: {describe()}; "
        f"cores: {os.cpu_count()}",
        f"- machine shared with other sessions: {before} before, {after} after",
        f"- stream: {n:,} x {d:,} CSR, {NNZ} nonzeros per row, {SHARDS} shards of "
        f"{n // SHARDS:,} rows; {EPOCHS} epochs; cluster: {where}; fastest of "
        f"{args.repeats}",
        "",
    ] + main_lines
    if sweep_rows is not None:
        lines += [
            "", "## Size sweep", "",
            f"The same generator at {', '.join(f'{s:,}' for s in sizes)} rows "
            f"({d:,} features, {NNZ} nonzeros per row), {SHARDS} shards, {EPOCHS} epochs, "
            f"fastest of {args.repeats}. IPM epochs: the epochs' wall time (placing "
            "excluded); IPM fit: the whole `fit`, with the shards sent from this process "
            "(scattered) or read by the workers from LIBSVM files (one per shard, written "
            "beforehand, values rounded to 8 decimals). Model: `t_serial = n c`, "
            "`t_ipm = n c / S + E o`, with c and o measured at the smallest size, so "
            "`epochs / serial = 1/S + E o / (n c)`.",
            "",
        ] + sweep_lines(sweep_rows, notes)
    if acc_lines is not None:
        acc, n_test = acc_lines
        lines += [
            "", "## Accuracy against shards", "",
            f"IPM with uniform mixing, {EPOCHS} epochs, S contiguous shards of the "
            f"{n:,} x {d:,} stream on {where}, against the serial learner with the same "
            f"{EPOCHS} epochs. Mistakes per epoch summed over the shards; test error on "
            f"{n_test:,} held-out rows of the same generator (other rows, the same "
            f"hyperplane, 5% of the labels flipped, as in training).",
            "",
        ] + acc
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        Path(args.write).write_text(text)
    client.close()
    if not args.scheduler:
        cluster.close()


if __name__ == "__main__":
    main()
