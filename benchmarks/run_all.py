"""Run every benchmark of ``benchmarks/`` once and regenerate its Markdown tables.

Every speed claim of the README comes from one recorded run of this script
(issue 19, item 3): it runs each benchmark script in turn (a fresh process
each), writes its tables to ``benchmarks/<name>.md``, stamps each file with
the same run id, the date, the commit, the machine (CPU model, family and
model numbers, the CPU numba compiles for, its vector extensions, cores, BLAS
library and threads) and the load average before and after that script, and
then rewrites the README's generated headline table (``benchmarks/claims.py``)
from those files.  ``tests/test_benchmark_claims.py`` checks that the README
and the files agree and come from one run.

    python benchmarks/run_all.py            # full run, rewrites benchmarks/*.md + README
    python benchmarks/run_all.py --quick    # smoke test: small sizes, to a temporary folder
    python benchmarks/run_all.py --only sol_peer winnow   # some scripts (stamped, README not)
    make bench / make bench-quick

A full run takes about 15-20 minutes on the project's 2-core machine when it
is otherwise quiet.  The tables are only as good as the machine was quiet:
the load average is in every stamp.  Commit your changes first: the stamp
names the commit (and says "dirty" otherwise).
"""
import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import host  # noqa: E402
README = ROOT / "README.md"
STAMP_BEGIN, STAMP_END = "<!-- run_all stamp -->", "<!-- /run_all stamp -->"

# name: (arguments of a full run, of a quick run); "{md}" is the output file,
# "{stdout}" means the script prints its tables (written to the file here).
SCRIPTS = {
    # --no-compile: the cold/warm numba-cache subprocesses alone take minutes; the cold
    # start (import and first fit) is cold_start.py's subject
    "throughput": (["--repeats", "5", "--no-compile", "--markdown", "{stdout}"],
                   ["--quick", "--repeats", "2", "--no-compile", "--markdown", "{stdout}"]),
    "second_order": (["--repeats", "5", "--write", "{md}"],
                     ["--quick", "--repeats", "1", "--write", "{md}"]),
    "winnow": (["--repeats", "7", "--sessions", "1", "--markdown", "{md}"],
               ["--quick", "--repeats", "2", "--sessions", "1", "--markdown", "{md}"]),
    "kernel": (["--repeats", "3", "--markdown", "{md}"],
               ["--quick", "--repeats", "1", "--markdown", "{md}"]),
    "sparse_cw": (["--repeats", "3", "--markdown", "{md}"],
                  ["--quick", "--repeats", "1", "--markdown", "{md}"]),
    "sol_peer": (["--repeats", "5", "--markdown", "{md}"],
                 ["--quick", "--repeats", "2", "--e2e-repeats", "1", "--markdown", "{md}"]),
    # the cold start of every book page (import olearn, its cells to the first fit), before
    # round 4's cold-start work (cold_start.BEFORE) and now, when the script is present
    "cold_start": (["--repeats", "1", "--cold-repeats", "1", "--markdown", "{md}"],
                   ["--quick", "--markdown", "{md}"]),
    # issue 37: the reader, the command line's memory and fixed cost, each pass's floors
    "cli_stream": (["--repeats", "2", "--markdown", "{md}"],
                   ["--quick", "--repeats", "1", "--markdown", "{md}"]),
}


def present():
    """The scripts of ``SCRIPTS`` that exist in this checkout."""
    return [name for name in SCRIPTS if (HERE / f"{name}.py").is_file()]
TITLES = {"throughput": "# First-order throughput (`benchmarks/throughput.py`)"}


def git(*args):
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def commit():
    sha = git("rev-parse", "HEAD") or "unknown"
    # the code measured; the tables this run rewrites (benchmarks/*.md) do not count
    dirty = bool(git("status", "--porcelain", "--untracked-files=no", "--", "olearn",
                     "benchmarks", "pyproject.toml", ":(exclude)benchmarks/*.md"))
    return sha[:12] + (" (uncommitted changes)" if dirty else "")


def cpu_model():
    """The CPU: model, microarchitecture, numba's target and vector extensions (host.py)."""
    return host.describe()


def blas(env):
    """BLAS library and thread count a benchmark process starts with."""
    code = ("import json, numpy, scipy.linalg\n"
            "from threadpoolctl import threadpool_info\n"
            "print(json.dumps([(i.get('internal_api'), i.get('version'), i.get('num_threads'))"
            " for i in threadpool_info() if i.get('user_api') == 'blas']))")
    try:
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True).stdout
        libs = json.loads(out)
    except (subprocess.CalledProcessError, ValueError):
        return "unknown"
    return "; ".join(f"{api} {version}, {threads} thread(s) by default"
                     for api, version, threads in libs) or "none found"


def load():
    try:
        return "/".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def child_env():
    env = dict(os.environ)
    env.pop("OLEARN_QUICK", None)  # benchmarks measure full sizes unless --quick
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.setdefault("MPLBACKEND", "Agg")
    return env


def stamp(run_id, quick, machine_line, before, after, seconds, status, sha=None):
    return "\n".join([
        STAMP_BEGIN,
        f"> Recorded run `{run_id}` of `benchmarks/run_all.py`"
        + (" --quick (smoke test sizes, not a measurement)" if quick else "")
        + f": {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, commit {sha or commit()}; "
        f"{machine_line}; load average (1/5/15 min) {before} before and {after} after "
        f"this script ({seconds:.0f} s){'' if status == 0 else f'; FAILED, exit status {status}'}.",
        STAMP_END, ""])


def with_stamp(text, block, title=None):
    """``text`` with its stamp block replaced (or inserted after the title line)."""
    if STAMP_BEGIN in text:
        head, rest = text.split(STAMP_BEGIN, 1)
        tail = rest.split(STAMP_END, 1)[1].lstrip("\n")
        return head + block + "\n" + tail
    lines = text.splitlines(keepends=True)
    if not lines or not lines[0].startswith("# "):
        lines.insert(0, (title or "# Benchmark") + "\n")
    return lines[0] + "\n" + block + "\n" + "".join(lines[1:]).lstrip("\n")


def run_script(name, quick, out_dir, env, log):
    full, small = SCRIPTS[name]
    md = out_dir / f"{name}.md"
    args = [str(md) if a == "{md}" else a for a in (small if quick else full)]
    to_stdout = "{stdout}" in args
    args = [a for a in args if a != "{stdout}"]
    cmd = [sys.executable, str(HERE / f"{name}.py"), *args]
    log(f"== {name}: {' '.join(cmd[1:])}")
    before, start = load(), time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True)
    seconds, after = time.perf_counter() - start, load()
    log(done.stdout[-3000:] if done.returncode else done.stdout[-600:])
    if done.returncode:
        log(done.stderr[-3000:])
    if to_stdout and done.returncode == 0:
        md.write_text(TITLES.get(name, f"# {name}") + "\n\n" + done.stdout)
    return md, before, after, seconds, done.returncode


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="small sizes, tables to a temporary folder (or --out-dir)")
    parser.add_argument("--only", nargs="+", choices=sorted(SCRIPTS),
                        help="run these scripts only (the README is then left alone)")
    parser.add_argument("--out-dir", type=Path, default=None,
                        help="where the tables go (default: benchmarks/, or a "
                             "temporary folder with --quick)")
    args = parser.parse_args(argv)
    out_dir = args.out_dir or (Path(tempfile.mkdtemp(prefix="olearn-bench-"))
                               if args.quick else HERE)
    out_dir.mkdir(parents=True, exist_ok=True)
    env = child_env()
    run_id = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%MZ")
    sha = commit()  # the code measured: the tree when the run starts
    machine_line = (f"machine: {cpu_model()}, {os.cpu_count()} logical cores, BLAS "
                    f"{blas(env)}, Python {platform.python_version()}")
    names = args.only or present()
    log_lines = []

    def log(text):
        print(text, flush=True)
        log_lines.append(text)

    log(f"run {run_id}: {machine_line}; tables to {out_dir}")
    summary = []
    for name in names:
        md, before, after, seconds, status = run_script(name, args.quick, out_dir, env, log)
        block = stamp(run_id, args.quick, machine_line, before, after, seconds, status, sha)
        if md.is_file():
            md.write_text(with_stamp(md.read_text(), block, TITLES.get(name)))
        summary.append((name, status, seconds, before, after))
    log("\n".join(f"{n}: {'ok' if s == 0 else f'FAILED ({s})'}, {t:.0f} s, load {b} -> {a}"
                  for n, s, t, b, a in summary))
    failed = [n for n, s, *_ in summary if s]
    if not args.quick and not args.only and out_dir == HERE:
        sys.path.insert(0, str(HERE))
        from claims import update_readme
        update_readme(README, HERE)
        log(f"README headline table rewritten from benchmarks/*.md (run {run_id})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
