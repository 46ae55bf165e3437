"""olearn beside LIBOL's SOL, the C++ library of online learners (issue 19, item 2).

SOL (Hoi, Wang, Zhao et al.; the successor of LIBOL) is not on a package
registry: its source snapshot sits in ``../shared/peers/`` beside the
repository (``LIBOL-SOL-<commit>.tar.gz``).  This script

1. finds a SOL build (``--sol-build``, ``$SOL_BUILD`` or ``../sol-build``
   beside the repository) or builds one from the snapshot with CMake and a
   C++11 compiler (``cmake -DCMAKE_BUILD_TYPE=Release``, SOL's own flags:
   ``-O3``), and compiles ``sol_timer.cc`` (ours, no SOL code: it includes
   SOL's headers and links ``libsol``) beside ``sol_train``.  Without CMake, a
   C++ compiler or the snapshot it prints why and exits 0: the peer is
   optional and CI does not run it;
2. writes the streams as LIBSVM files (8 significant digits, ``%.7e``: SOL's
   parser reads at most 7 decimals after the point, so this is the most
   precise form it reads; olearn reads the same files with scikit-learn's
   reader): the 200,000 x 50,000 sparse stream of ``throughput.py`` (75
   nonzeros per row) with unit-norm rows and with its raw rows (before the
   normalisation), and a real data set from ``OLEARN_DATA_HOME`` (w7a);
3. times, interleaved, best of ``--repeats``:

   * **SOL's learning pass alone**: ``sol_timer`` parses the file once with
     SOL's own LIBSVM reader into minibatches of 256 rows held in memory, then
     runs SOL's ``OnlineModel::Train`` on them for each learner (a fresh model
     each time), timing only ``Train``: the data are preloaded, no reading
     thread runs, nothing is subtracted;
   * **olearn's ``fit``** end to end (input validation included) and its
     compiled pass alone, on the same rows;

   and records mistakes and updates of both: a faster wrong learner does not
   count;
4. times both command lines end to end (a fresh process: parse the file,
   learn one pass, exit): ``sol_train -a ALGO FILE`` and ``python -m olearn
   train FILE --learner ...`` (``--e2e``).

Every learner both libraries have, with the same parameters, in the given
order, one pass, no bias/intercept (SOL's ``bias_eta`` is 0 by default):
Perceptron, PA, PA-I, PA-II, AROW, CW (variance form), ECCW (SOL's name for
CW's standard-deviation form) and SOP.  SOL's second-order learners keep a
diagonal covariance (the diagonal of the precision, ``Sigma_jj <- 1 / (1 /
Sigma_jj + c x_j^2)``), olearn's ``covariance="diag"`` with
``diagonal="precision"`` (its default) runs the same update.

    python benchmarks/sol_peer.py [--quick] [--repeats N] [--markdown PATH]
                                  [--sol-build DIR] [--snapshot TAR]
                                  [--work-dir DIR] [--e2e NAME ...]
"""
import argparse
import hashlib
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import scipy.sparse as sp
from scipy.stats import norm

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from throughput import (load_average, loop_seconds, machine, seconds,  # noqa: E402
                        sparse_stream, table)

try:
    import olearn  # noqa: F401
except ModuleNotFoundError:  # run from a source tree without installing
    sys.path.insert(0, str(ROOT))
from olearn import AROW, CW, PA, SOP, Perceptron  # noqa: E402

CW_ETA = 0.7                            # SOL's default phi = 0.5244 = Phi^-1(0.7)
CW_PHI = repr(float(norm.ppf(CW_ETA)))  # given to SOL, so both use the same phi


@dataclass(frozen=True)
class Pair:
    """One learner of both libraries: SOL's name and parameters, olearn's factory."""
    name: str
    sol_algo: str
    sol_params: str
    olearn: Callable[[], object]
    cli: str  # the olearn command line's --learner/--param arguments
    note: str = ""


PAIRS = [
    Pair("Perceptron", "perceptron", "-", Perceptron, "--learner Perceptron"),
    Pair("PA", "pa", "-", PA, "--learner PA"),
    Pair("PA-I (C=1)", "pa1", "C=1", lambda: PA(C=1.0, variant="PA-I"),
         "--learner PA --param C=1 --param variant=PA-I"),
    Pair("PA-II (C=1)", "pa2", "C=1", lambda: PA(C=1.0, variant="PA-II"),
         "--learner PA --param C=1 --param variant=PA-II"),
    Pair("AROW (r=1) diag", "arow", "r=1", lambda: AROW(r=1.0, covariance="diag"),
         "--learner AROW --param r=1 --param covariance=diag"),
    Pair(f"CW variance (eta={CW_ETA}) diag", "cw", f"phi={CW_PHI}",
         lambda: CW(eta=CW_ETA, covariance="diag"),
         f"--learner CW --param eta={CW_ETA} --param covariance=diag"),
    Pair(f"ECCW / CW stdev (eta={CW_ETA}) diag", "eccw", f"phi={CW_PHI}",
         lambda: CW(eta=CW_ETA, version="stdev", covariance="diag"),
         f"--learner CW --param eta={CW_ETA} --param version=stdev "
         "--param covariance=diag",
         note="SOL's ECCW updates when y m < phi v (the variance form's "
              "test, its margin handler is CW's); the paper and olearn: "
              "y m < phi sqrt(v)"),
    Pair("SOP (a=1) diag", "sop", "a=1", lambda: SOP(a=1.0, covariance="diag"),
         "--learner SOP --param a=1 --param covariance=diag"),
]


# -- SOL: find or build -------------------------------------------------------
class PeerUnavailable(Exception):
    """SOL cannot be built or found here; the message says what is missing."""


def default_snapshot():
    found = sorted((ROOT.parent / "shared" / "peers").glob("LIBOL-SOL-*.tar.gz"))
    return found[-1] if found else None


def build_sol(build_root, snapshot, log):
    """Extract ``snapshot`` into ``build_root`` and build it (CMake, Release)."""
    missing = [tool for tool in ("cmake", "make") if shutil.which(tool) is None]
    if not any(shutil.which(cxx) for cxx in ("c++", "g++", "clang++")):
        missing.append("a C++ compiler (c++, g++ or clang++)")
    if missing:
        raise PeerUnavailable("SOL is not built and cannot be: missing "
                              + ", ".join(missing))
    if snapshot is None or not Path(snapshot).is_file():
        raise PeerUnavailable(
            "SOL is not built and its source snapshot was not found (looked for "
            f"{snapshot or ROOT.parent / 'shared' / 'peers' / 'LIBOL-SOL-*.tar.gz'}; "
            "give --snapshot or --sol-build)")
    build_root = Path(build_root)
    build_root.mkdir(parents=True, exist_ok=True)
    log(f"building SOL from {snapshot} in {build_root} (a few minutes)")
    with tarfile.open(snapshot) as tar:
        tar.extractall(build_root, filter="data")
    build = build_root / "build"
    build.mkdir(exist_ok=True)
    for cmd in (["cmake", "..", "-DCMAKE_BUILD_TYPE=Release"],
                ["make", "-j2", "sol_train", "sol"]):
        done = subprocess.run(cmd, cwd=build, capture_output=True, text=True)
        if done.returncode != 0:
            raise PeerUnavailable(f"building SOL failed at {' '.join(cmd)}:\n"
                                  + done.stderr[-2000:])


def sol_paths(build_root):
    bin_dir = Path(build_root) / "build" / "bin"
    return bin_dir, bin_dir / "sol_train", bin_dir / "olearn_sol_timer"


def ensure_sol(build_root, snapshot, log=print):
    """Paths of ``sol_train`` and of our timer, building what is missing."""
    bin_dir, sol_train, timer = sol_paths(build_root)
    if not sol_train.is_file():
        build_sol(build_root, snapshot, log)
    source = HERE / "sol_timer.cc"
    if not timer.is_file() or timer.stat().st_mtime < source.stat().st_mtime:
        cxx = next(c for c in ("c++", "g++", "clang++") if shutil.which(c))
        root = Path(build_root)
        # SOL's flags (Release, its compiler.cmake): -O3, C++11, pthreads.
        cmd = [cxx, "-O3", "-DNDEBUG", "-std=c++11", "-pthread", "-DUSE_PTHREAD",
               "-I", str(root / "include"), "-I", str(root / "external"),
               str(source), "-o", str(timer), "-L", str(bin_dir), "-lsol",
               f"-Wl,-rpath,{bin_dir}"]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise PeerUnavailable("compiling sol_timer.cc failed:\n" + done.stderr[-2000:])
    return sol_train, timer


# -- streams as LIBSVM files --------------------------------------------------
def digest(X, y):
    h = hashlib.sha256()
    for a in (X.data, X.indices, X.indptr, np.asarray(y)):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:12]


def write_libsvm(path, X, y):
    """LIBSVM text, 1-based indices, values with 8 significant digits."""
    X = sp.csr_matrix(X)
    tmp = Path(str(path) + ".part")
    with open(tmp, "w") as f:
        for i in range(X.shape[0]):
            a, b = X.indptr[i], X.indptr[i + 1]
            feats = " ".join(f"{j + 1}:{v:.7e}" for j, v in
                             zip(X.indices[a:b].tolist(), X.data[a:b].tolist()))
            f.write(f"{1 if y[i] > 0 else -1} {feats}\n")
    tmp.replace(path)


def stream_file(work_dir, name, X, y):
    """The stream's LIBSVM file in ``work_dir``, written once per content."""
    path = Path(work_dir) / f"{name}-{X.shape[0]}x{X.shape[1]}-{digest(X, y)}.svm"
    if not path.is_file():
        write_libsvm(path, X, y)
    return path


def read_libsvm(path, n_features):
    from sklearn.datasets import load_svmlight_file
    X, y = load_svmlight_file(str(path), n_features=n_features, zero_based=False)
    return sp.csr_matrix(X), y


def streams(quick, data_names):
    """``name: (X, y)`` in memory: the sparse stream (unit and raw rows), real data."""
    n, d = (20_000, 5_000) if quick else (200_000, 50_000)
    label = f"sparse {n // 1000}k x {d // 1000}k, 75 nnz/row"
    out = {f"{label}, unit-norm rows": sparse_stream(n, d, 75),
           f"{label}, raw rows": sparse_stream(n, d, 75, unit_norm=False)}
    from olearn import datasets
    for data_name in data_names:
        try:
            data = datasets.load(data_name, download=False)
        except Exception as err:  # noqa: BLE001 -- reported, the rest still runs
            print(f"skipping {data_name}: {err}")
            continue
        out[f"{data_name} ({data.subset}, {data.X.shape[0]:,} x {data.X.shape[1]})"] = (
            sp.csr_matrix(data.X), np.where(np.asarray(data.y) > 0, 1, -1))
    return out


# -- timing -------------------------------------------------------------------
class SolTimer:
    """``sol_timer`` holding one file in memory; ``train(pair)`` times one pass."""

    def __init__(self, timer, path):
        self.proc = subprocess.Popen([str(timer), str(path)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        self.loaded = self._answer()

    def _answer(self):
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"sol_timer stopped (exit code {self.proc.wait()})")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"sol_timer: {answer['error']}")
        return answer

    def train(self, pair):
        self.proc.stdin.write(f"{pair.sol_algo} {pair.sol_params}\n")
        return self._answer()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def olearn_pass(pair, X, y):
    """One timed ``fit``: (seconds, counts), or (None, the error that stopped it).

    counts: mistakes, updates, and the mistakes under SOL's rule for a score
    of exactly 0 (SOL predicts +1 there, olearn -1), from the per-round margins.
    """
    est = pair.olearn()
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y)
    except (ValueError, FloatingPointError) as err:
        return None, str(err).split(".")[0]
    elapsed = time.perf_counter() - start
    margins = est.margins_
    sol_rule = int(np.sum(margins < 0) + np.sum((margins == 0) & (np.asarray(y) < 0)))
    return elapsed, (est.n_mistakes_, est.n_updates_, sol_rule)


def measure(pairs, X, y, sol, repeats):
    """Best-of-``repeats`` times, interleaved SOL / olearn, with counts."""
    rows = {}
    for _ in range(repeats):
        for pair in pairs:
            r = rows.setdefault(pair.name, dict(sol=[], fit=[], loop=[]))
            s = sol.train(pair)
            r["sol"].append(s["train_s"])
            r["sol_counts"] = (s["mistakes"], s["updates"])
            t, counts = olearn_pass(pair, X, y)
            if t is None:
                r["olearn_error"] = counts
                continue
            r["fit"].append(t)
            r["olearn_counts"] = counts
            r["loop"].append(loop_seconds(pair.olearn(), X, y))
    return rows


def wall(cmd, env=None):
    """Wall and CPU (user + system) seconds of a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed:\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def end_to_end(pair, path, sol_train, repeats):
    """Best (wall, CPU) seconds of ``sol_train`` and of ``python -m olearn train``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]]
                                                       if env.get("PYTHONPATH") else []))
    sol_cmd = [str(sol_train), "-a", pair.sol_algo]
    if pair.sol_params != "-":
        sol_cmd += ["--params", pair.sol_params]
    ours_cmd = [sys.executable, "-m", "olearn", "train", str(path), "--quiet",
                *pair.cli.split()]
    sol_t, ours_t = [], []
    for _ in range(repeats):
        sol_t.append(wall(sol_cmd + [str(path)]))
        ours_t.append(wall(ours_cmd, env))
    return min(sol_t), min(ours_t)


# -- report -------------------------------------------------------------------
def rate(n, s):
    return "n/a" if s is None else f"{n / s:,.0f}"


def agreement(sol_mistakes, ours):
    """Relative difference of the mistake counts, |ours - SOL| / SOL."""
    return abs(ours - sol_mistakes) / max(sol_mistakes, 1)


def report(results, e2e, args, load_start, load_end, sol_train):
    lines = []
    quick = " QUICK sizes (1/10): a smoke test, not a measurement." if args.quick else ""
    lines += ["# olearn beside LIBOL's SOL (C++)", "",
              "Written by `python benchmarks/sol_peer.py"
              + (f" --repeats {args.repeats}" if args.repeats != 5 else "")
              + (" --quick" if args.quick else "") + " --markdown ...`." + quick, "",
              f"Machine: {machine()}", "",
              f"SOL: `{sol_train}` (snapshot {args.snapshot_name}; CMake Release, -O3, "
              "float32); one pass, in order, no bias; "
              f"best of {args.repeats} interleaved runs.", "",
              f"At start: {load_start}", ""]
    header = ["stream", "learner", "SOL pass ex/s", "olearn fit ex/s",
              "olearn fit / SOL pass", "olearn loop ex/s", "olearn loop / SOL pass",
              "SOL mistakes", "olearn mistakes", "olearn mistakes, SOL's tie rule",
              "rel. diff (tie rule)", "SOL updates", "olearn updates"]
    body = []
    for stream_name, (n, rows) in results.items():
        for pair in PAIRS:
            r = rows[pair.name]
            sol_s = min(r["sol"])
            sm, su = r["sol_counts"]
            if "olearn_error" in r:
                body.append([stream_name, pair.name, rate(n, sol_s), "stops", "",
                             "", "", f"{sm:,}", r["olearn_error"], "", "", f"{su:,}", ""])
                continue
            fit_s, loop_s = min(r["fit"]), min(r["loop"])
            om, ou, otie = r["olearn_counts"]
            body.append([stream_name, pair.name, rate(n, sol_s), rate(n, fit_s),
                         f"{sol_s / fit_s:.2f}", rate(n, loop_s), f"{sol_s / loop_s:.2f}",
                         f"{sm:,}", f"{om:,}", f"{otie:,}", f"{agreement(sm, otie):.1%}",
                         f"{su:,}", f"{ou:,}"])
    lines += ["## Learning pass, data preloaded", "", table(header, body, True), ""]
    lines += [
        "*SOL pass*: SOL's `OnlineModel::Train` alone on minibatches its own "
        "LIBSVM reader filled beforehand (`benchmarks/sol_timer.cc`); *olearn "
        "fit*: `fit(X, y)` end to end on the CSR matrix read from the same file "
        "(validation included); *olearn loop*: olearn's compiled pass alone. "
        "A ratio > 1: olearn is faster.", "",
        "Mistakes: SOL predicts +1 on a score of exactly 0, olearn predicts -1 "
        "(`predict` is the positive class iff the score is > 0). Scores of 0 are "
        "frequent on binary data (w7a has 2,046 all-zero rows and many rows whose "
        "features all still have weight 0), so the raw counts differ; *olearn "
        "mistakes, SOL's tie rule* counts olearn's own run with SOL's rule (from "
        "its per-round margins: `y f < 0`, or `f = 0` and `y = -1`), and the "
        "relative difference is taken on it. What remains comes from the runs "
        "parting after a tie (a Perceptron or SOP tie with `y = +1` is an update "
        "for olearn, `y f <= 0`, and not for SOL) and from SOL computing in "
        "float32 (weights, covariance, margins), olearn in float64. SOL's PA "
        "divides by `||x||^2`: on an all-zero row (w7a) its step is infinite and "
        "`0 * inf` makes the bias weight NaN, after which every score is NaN, "
        "predicts -1 and never updates again (its row on w7a: a few updates and "
        "about as many mistakes as positive rows); olearn's PA skips a zero row. "
        + " ".join(f"{p.name}: {p.note}." for p in PAIRS if p.note), ""]
    if e2e:
        lines += ["## Command lines end to end (parse + learn, a fresh process)", "",
                  table(["stream", "learner", "sol_train wall (s)", "sol_train CPU (s)",
                         "olearn CLI wall (s)", "olearn CLI CPU (s)",
                         "olearn / sol_train time"],
                        [[s, name, f"{a[0]:.2f}", f"{a[1]:.2f}", f"{b[0]:.2f}",
                          f"{b[1]:.2f}", f"{b[0] / a[0]:.2f}"]
                         for (s, name), (a, b) in e2e.items()], True), "",
                  "Wall time (and CPU time, user + system, which the load of a shared "
                  "machine inflates less) of the whole process, the run with the best "
                  "wall time of "
                  f"{args.e2e_repeats}: `sol_train -a ALGO [--params ...] FILE` "
                  "(its reader thread parses while the model learns) and `python -m "
                  "olearn train FILE --learner ... --quiet` (Python start-up, `import "
                  "olearn`, loading numba's cached compiled code, parsing with "
                  "olearn's compiled LIBSVM reader (`olearn.datasets.read_libsvm`, "
                  "the values of scikit-learn's `load_svmlight_file` bit for bit), "
                  "then the pass in chunks through "
                  "`partial_fit`, whose first call loads the compiled loop from numba's "
                  "cache). *olearn / sol_train time*: the ratio of wall times (> 1: "
                  "olearn is slower).", ""]
    lines += [f"At end: {load_end}", ""]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="streams 10 times smaller: a smoke test")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--markdown", type=Path, default=None,
                        help="write the report to this Markdown file")
    parser.add_argument("--sol-build", type=Path,
                        default=Path(os.environ.get("SOL_BUILD", ROOT.parent / "sol-build")),
                        help="SOL's build folder (built there from the snapshot if absent)")
    parser.add_argument("--snapshot", type=Path, default=None,
                        help="SOL's source tarball (default: ../shared/peers/LIBOL-SOL-*.tar.gz)")
    parser.add_argument("--work-dir", type=Path, default=None,
                        help="where the LIBSVM files are written (default: a folder "
                             "under $XDG_CACHE_HOME or ~/.cache)")
    parser.add_argument("--data", nargs="*", default=["w7a"],
                        help="real data sets from OLEARN_DATA_HOME (default: w7a)")
    parser.add_argument("--e2e", nargs="*", default=["Perceptron", "AROW"],
                        help="learners timed end to end as command lines "
                             "(default: Perceptron AROW; none: skip)")
    parser.add_argument("--e2e-repeats", type=int, default=3)
    args = parser.parse_args(argv)
    snapshot = args.snapshot or default_snapshot()
    args.snapshot_name = Path(snapshot).name if snapshot else "prebuilt"
    try:
        sol_train, timer = ensure_sol(args.sol_build, snapshot)
    except PeerUnavailable as err:
        print(f"SOL peer skipped: {err}")
        if args.markdown:  # the recorded run says why the table is absent
            args.markdown.write_text("# olearn beside LIBOL's SOL (C++)\n\n"
                                     f"Not measured in this run: {err}\n")
        return 0
    work_dir = args.work_dir or Path(os.environ.get(
        "XDG_CACHE_HOME", Path.home() / ".cache")) / "olearn" / "benchmark-streams"
    work_dir.mkdir(parents=True, exist_ok=True)

    load_start = load_average()
    print(f"Machine: {machine()}\nAt start: {load_start}", flush=True)
    results, e2e = {}, {}
    for name, (X, y) in streams(args.quick, args.data).items():
        path = stream_file(work_dir, name.split(",")[0].split(" (")[0].replace(" ", "_")
                           + ("-raw" if "raw" in name else ""), X, y)
        X, y = read_libsvm(path, X.shape[1])
        for pair in PAIRS:  # compile (or load numba's cache) before timing
            olearn_pass(pair, X[:50], y[:50])
        sol = SolTimer(timer, path)
        try:
            results[name] = (X.shape[0], measure(PAIRS, X, y, sol, args.repeats))
        finally:
            sol.close()
        for pair in PAIRS:
            if any(key.lower() in pair.name.lower() for key in args.e2e):
                e2e[(name, pair.name)] = end_to_end(pair, path, sol_train,
                                                    args.e2e_repeats)
        print(f"{name}: done ({load_average()})", flush=True)
    text = report(results, e2e, args, load_start, load_average(), sol_train)
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
