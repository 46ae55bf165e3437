"""The command line against its floors: the reader, memory, fixed cost, each pass (issue 37).

Writes LIBSVM files of the sparse stream of ``throughput.py`` (200,000 rows
x 50,000 features, 75 nonzeros a row, unit-norm rows): with ``%g`` values
(6 significant digits: 222 MiB, the file of issue 37) and that file's rows
repeated to about 790 MB; then measures

1. **the reader**, CPU seconds of the reading thread per MB: the whole-file
   reader (:func:`olearn.datasets.read_libsvm`, bytes to CSR), the
   streamed blocks the command line reads (``libsvm_blocks(reuse=...)``)
   and the survey it reads a streamed training file by before learning
   (``libsvm_survey``: rows, labels, index range; no value parsed);
2. **the command line**, a fresh process each (wall, user and system CPU,
   peak resident memory from ``wait4``): ``olearn train FILE`` streamed (the
   default) and ``--in-memory`` on both files, ``olearn predict`` on the
   222 MiB file, and ``olearn train w7a --learner AROW --param
   covariance=diag`` (warm numba cache), with the modules of scikit-learn,
   matplotlib and pandas it imports (``python -X importtime``);
3. **each pass against its floors**, on the 222 MiB file's rows in memory:
   the learner's compiled pass (``loop_seconds``, validation excluded) over
   a score-only pass (one sparse dot product a row with a dense weight
   vector: the least any online linear learner must do) and over a
   memory-streaming pass (each value and index read once, summed);
4. **end to end beside ``sol_train``** (``--sol-build``, as ``sol_peer.py``
   builds it) on the same rows with 8 significant digits (SOL's parser reads
   at most 7 decimals): wall and CPU of both, best of ``--repeats``.

    python benchmarks/cli_stream.py [--repeats N] [--markdown PATH] [--work-dir DIR]
                                    [--sol-build DIR] [--quick]
"""
import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from throughput import load_average, loop_seconds, machine, sparse_stream, table  # noqa: E402

try:
    import olearn  # noqa: F401
except ModuleNotFoundError:  # run from a source tree without installing
    sys.path.insert(0, str(ROOT))
from olearn.datasets.libsvm import libsvm_blocks, libsvm_survey, read_libsvm  # noqa: E402


# -- files ------------------------------------------------------------------------
def write_g(path, X, y):
    """LIBSVM text, 1-based indices, values as ``%g`` (6 significant digits)."""
    tmp = Path(str(path) + ".part")
    with open(tmp, "w") as f:
        for i in range(X.shape[0]):
            a, b = X.indptr[i], X.indptr[i + 1]
            f.write(("1" if y[i] > 0 else "-1") + " " + " ".join(
                f"{j + 1}:{v:g}" for j, v in zip(X.indices[a:b].tolist(),
                                                 X.data[a:b].tolist())) + "\n")
    tmp.replace(path)


def files(work_dir, quick):
    n, d = (20_000, 5_000) if quick else (200_000, 50_000)
    X, y = sparse_stream(n, d, 75)
    h = hashlib.sha256(X.data.tobytes() + X.indices.tobytes() + y.tobytes()).hexdigest()[:12]
    small = work_dir / f"sparse_g-{n}x{d}-{h}.svm"
    if not small.is_file():
        write_g(small, X, y)
    big = work_dir / f"sparse_g-{n}x{d}-{h}-x3.4.svm"
    if not big.is_file():  # the rows 3 times, then the whole lines of the first 95 MB
        part = Path(str(big) + ".part")
        text = small.read_bytes()
        with open(part, "wb") as f:
            for _ in range(3):
                f.write(text)
            head = text[: len(text) * 95_000_000 // 232_869_706]
            f.write(head[: head.rfind(b"\n") + 1])
        part.replace(big)
    from sol_peer import stream_file
    precise = stream_file(work_dir, "sparse_200k_x_50k" if not quick else "sparse_20k_x_5k",
                          X, y)
    return small, big, precise, X, y


# -- 1. the reader ------------------------------------------------------------------
def reader_rows(path, repeats):
    mb = path.stat().st_size / 1e6
    rows = []
    for name, read in [("read_libsvm (whole file to CSR)", lambda: read_libsvm(path)),
                       ("streamed blocks (olearn train's reader)",
                        lambda: sum(b.nnz for b in libsvm_blocks(path, "auto", 1 << 21,
                                                                 reuse=5))),
                       ("survey (olearn train's reading before the first update)",
                        lambda: libsvm_survey(path))]:
        read()  # compiled code loaded, file in the page cache
        best = min(_thread_cpu(read) for _ in range(repeats))
        rows.append([name, f"{mb:,.0f}", f"{best:.2f}", f"{mb / best:,.0f}"])
    return rows


def _thread_cpu(call):
    start = time.thread_time()
    call()
    return time.thread_time() - start


# -- 2. the command line --------------------------------------------------------------
def run_child(cmd, env):
    """(wall, user, sys, peak RSS MB, stderr) of a child process (its stderr to a
    temporary file: a pipe read after ``wait4`` would fill up and block the child)."""
    # the peak RSS from GNU time: a child's ru_maxrss from wait4 starts at the RSS of
    # this (large) process it was forked from, which Linux keeps across exec
    with tempfile.TemporaryFile() as log:
        start = time.perf_counter()
        proc = subprocess.Popen(["/usr/bin/time", "-f", "peak-rss-kb %M", *map(str, cmd)],
                                stdout=subprocess.DEVNULL, stderr=log, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        log.seek(0)
        err = log.read().decode()
    proc.returncode = os.waitstatus_to_exitcode(status)
    rss_kb = int(err.rsplit("peak-rss-kb", 1)[1].split()[0])
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed:\n{err[-2000:]}")
    return wall, usage.ru_utime, usage.ru_stime, rss_kb / 1024, err


def best_run(cmd, env, repeats):
    runs = [run_child(cmd, env) for _ in range(repeats)]
    return min(runs, key=lambda r: r[0])


def cli_rows(small, big, w7a, env, repeats, tmp):
    olearn_cmd = [sys.executable, "-m", "olearn"]
    model = Path(tmp) / "model.npz"
    cases = [
        ("train 222 MiB, Perceptron (streamed: the default)", small.stat().st_size,
         ["train", small, "--learner", "Perceptron", "--quiet", "--save-model", model]),
        ("train 222 MiB, Perceptron --in-memory", small.stat().st_size,
         ["train", small, "--learner", "Perceptron", "--quiet", "--in-memory"]),
        ("train 222 MiB, AROW diag (streamed)", small.stat().st_size,
         ["train", small, "--learner", "AROW", "--param", "covariance=diag", "--quiet"]),
        ("predict 222 MiB, Perceptron model (labels to a file)", small.stat().st_size,
         ["predict", model, small, "--output", Path(tmp) / "labels.txt"]),
        ("train 790 MB, Perceptron (streamed: the default)", big.stat().st_size,
         ["train", big, "--learner", "Perceptron", "--quiet"]),
        ("train 790 MB, Perceptron --in-memory", big.stat().st_size,
         ["train", big, "--learner", "Perceptron", "--quiet", "--in-memory"]),
    ]
    if w7a is not None:
        cases.append(("train w7a, AROW diag (fixed cost)", w7a.stat().st_size,
                      ["train", w7a, "--learner", "AROW", "--param", "covariance=diag",
                       "--quiet"]))
    rows = []
    for name, size, args in cases:
        cmd = olearn_cmd + [str(a) for a in args]
        run_child(cmd, env)  # warm: compiled code loaded once, file in the page cache
        wall, user, system, rss, _ = best_run(cmd, env, repeats)
        rows.append([name, f"{size / 1e6:,.0f}", f"{wall:.2f}", f"{user:.2f}",
                     f"{system:.2f}", f"{rss:,.0f}"])
    return rows


def imported(cmd, env):
    """Top-level packages a command imports (``-X importtime``)."""
    _, _, _, _, err = run_child([sys.executable, "-X", "importtime", *cmd], env)
    names = set()
    for line in err.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return names


# -- 3. floors --------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def score_only(data, indices, indptr, w):
    """One sparse dot product a row, summed (so that nothing is optimised away)."""
    total = 0.0
    for i in range(indptr.shape[0] - 1):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * w[indices[k]]
        total += s
    return total


@njit(cache=True, nogil=True)
def stream_only(data, indices, indptr, y):
    """Each value, index and label read once, summed."""
    total = 0.0
    count = 0
    for k in range(data.shape[0]):
        total += data[k]
        count += indices[k]
    for i in range(y.shape[0]):
        total += y[i]
    return total + count + indptr[-1]


def floor_rows(X, y, repeats):
    from sol_peer import PAIRS

    data, indices, indptr = X.data, X.indices, X.indptr
    w = np.random.default_rng(0).standard_normal(X.shape[1])
    score_only(data, indices, indptr, w)
    stream_only(data, indices, indptr, y)
    score_s = min(_thread_cpu(lambda: score_only(data, indices, indptr, w))
                  for _ in range(repeats))
    stream_s = min(_thread_cpu(lambda: stream_only(data, indices, indptr, y))
                   for _ in range(repeats))
    rows = [["score-only floor", f"{score_s * 1e3:.1f}", "1.00", f"{score_s / stream_s:.2f}"],
            ["memory-streaming floor", f"{stream_s * 1e3:.1f}", f"{stream_s / score_s:.2f}",
             "1.00"]]
    for pair in PAIRS:
        loop_seconds(pair.olearn(), X[:2000], y[:2000])  # compiled code loaded
        best = min(loop_seconds(pair.olearn(), X, y) for _ in range(repeats))
        rows.append([pair.name, f"{best * 1e3:.1f}", f"{best / score_s:.2f}",
                     f"{best / stream_s:.2f}"])
    return rows


# -- 4. beside sol_train ------------------------------------------------------------------
def sol_rows(precise, env, repeats, sol_build):
    from sol_peer import PAIRS, PeerUnavailable, ensure_sol
    try:
        sol_train, _ = ensure_sol(sol_build, None)
    except PeerUnavailable as err:
        return None, str(err)
    rows = []
    for pair in PAIRS:
        if pair.name.split(" ")[0] not in ("Perceptron", "AROW"):
            continue
        sol_cmd = [str(sol_train), "-a", pair.sol_algo]
        if pair.sol_params != "-":
            sol_cmd += ["--params", pair.sol_params]
        ours = [sys.executable, "-m", "olearn", "train", str(precise), "--quiet",
                *pair.cli.split()]
        run_child(ours, env)
        sol_runs, our_runs = [], []
        for _ in range(repeats):  # interleaved
            sol_runs.append(run_child(sol_cmd + [str(precise)], env))
            our_runs.append(run_child(ours, env))
        s = min(sol_runs, key=lambda r: r[0])
        o = min(our_runs, key=lambda r: r[0])
        rows.append([pair.name, f"{s[0]:.2f}", f"{s[1] + s[2]:.2f}", f"{s[3]:,.0f}",
                     f"{o[0]:.2f}", f"{o[1] + o[2]:.2f}", f"{o[3]:,.0f}",
                     f"{o[0] / s[0]:.2f}", f"{(o[1] + o[2]) / (s[1] + s[2]):.2f}"])
    return rows, str(sol_train)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="files 10 times smaller")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--markdown", type=Path, default=None)
    parser.add_argument("--work-dir", type=Path, default=None)
    parser.add_argument("--sol-build", type=Path,
                        default=Path(os.environ.get("SOL_BUILD", ROOT.parent / "sol-build")))
    args = parser.parse_args(argv)
    work_dir = args.work_dir or Path(os.environ.get(
        "XDG_CACHE_HOME", Path.home() / ".cache")) / "olearn" / "benchmark-streams"
    work_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]]
                                                       if env.get("PYTHONPATH") else []))
    small, big, precise, _, _ = files(work_dir, args.quick)
    home = Path(os.environ.get("OLEARN_DATA_HOME", ""))
    w7a = home / "w7a" / "w7a.gz" if (home / "w7a" / "w7a.gz").is_file() else None
    start_load = load_average()
    lines = ["# The command line against its floors (issue 37)", "",
             "Written by `python benchmarks/cli_stream.py"
             + (" --quick" if args.quick else "") + " --markdown ...`.", "",
             f"Machine: {machine()}", "", f"At start: {start_load}", ""]
    lines += ["## The reader, per core", "",
              table(["reader", "MB", "CPU s (reading thread)", "MB/s per core"],
                    reader_rows(small, args.repeats), True), "",
              "CPU seconds of the thread that reads (best of "
              f"{args.repeats}), the file in the page cache: bytes to the CSR arrays, "
              "values those of scikit-learn's `load_svmlight_file`; the survey reads "
              "each line's label and first and last index only (the rows, labels and "
              "width `olearn train` needs before its first update).", ""]
    with tempfile.TemporaryDirectory() as tmp:
        rows = cli_rows(small, big, w7a, env, args.repeats, tmp)
    lines += ["## The command line: time and peak memory", "",
              table(["command", "MB", "wall s", "user s", "sys s", "peak RSS MB"], rows,
                    True), ""]
    if w7a is not None:
        names = imported(["-m", "olearn", "train", str(w7a), "--learner", "AROW",
                          "--param", "covariance=diag", "--quiet"], env)
        heavy = sorted(names & {"sklearn", "matplotlib", "pandas", "scipy", "numba"})
        lines += [f"Packages `olearn train w7a --learner AROW --param covariance=diag` "
                  f"imports, of scikit-learn, matplotlib, pandas, scipy and numba: "
                  f"{', '.join(heavy)} ({len(names)} top-level modules in all).", ""]
    lines += ["A fresh process each (`python -m olearn ...`, best wall time of "
              f"{args.repeats} after one warm-up run: numba's cache loaded, the file "
              "in the page cache); peak RSS as GNU `time` reports it (`%M`).", ""]
    X, y = read_libsvm(small)
    lines += ["## Each pass against its floors", "",
              table(["pass", "ms", "/ score-only floor", "/ memory-streaming floor"],
                    floor_rows(X, y, args.repeats), True), "",
              f"On the 222 MiB file's rows in memory ({X.shape[0]:,} x {X.shape[1]:,}, "
              f"{X.nnz:,} values): the learner's compiled pass alone (input validated "
              "beforehand), CPU of the thread, best of "
              f"{args.repeats}; the score-only floor is one sparse dot product a row "
              "with a dense weight vector, the memory-streaming floor reads each value, "
              "index and label once.", ""]
    sol, sol_note = sol_rows(precise, env, args.repeats, args.sol_build)
    if sol is None:
        lines += ["## Beside sol_train", "", f"Not measured: {sol_note}", ""]
    else:
        lines += ["## Beside sol_train, end to end", "",
                  table(["learner", "sol_train wall s", "sol_train CPU s",
                         "sol_train peak RSS MB", "olearn wall s", "olearn CPU s",
                         "olearn peak RSS MB", "olearn / sol_train wall",
                         "olearn / sol_train CPU"], sol, True), "",
                  f"`{sol_note} -a ALGO FILE` and `python -m olearn train FILE --quiet "
                  f"--learner ...` (streamed, the default) on {precise.name} "
                  f"({precise.stat().st_size / 1e6:,.0f} MB, 8 significant digits), "
                  f"interleaved, best wall time of {args.repeats}.", ""]
    lines += [f"At end: {load_average()}", ""]
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
