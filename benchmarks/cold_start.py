"""The cold start a book page pays: ``import olearn`` and each page's cells up to its first ``fit``.

Every measurement runs in a fresh Python process (what a notebook kernel is),
started with ``PYTHONPATH`` pointing at the tree measured:

``import olearn``
    wall time of the statement alone (best of ``--repeats``), the modules it
    drags in, and ``python -X importtime``'s cumulative time of the heaviest
    ones;
book pages
    every page of the book (``book/**/*.ipynb`` of the tree measured: each
    tree runs its own pages), run as a kernel runs it -- its code cells in
    order in IPython's shell, from the page's folder, in quick mode
    (``OLEARN_QUICK=1``, as the book is built) -- until the first ``fit`` or
    ``partial_fit`` of an olearn learner returns; the rest of the page is not
    run (joblib's tasks run in the page's process: ``JOBLIB_MULTIPROCESSING=0``,
    so a fit inside a parallel experiment counts).  A page whose cells fit no
    learner runs whole.
    Reported: the seconds from the first cell to the end of that first fit
    (wall and CPU of the process), of the first cell alone (the page's
    imports) and of the first fit alone, with a *cold* numba cache (an empty
    cache directory: numba compiles every loop the page reaches; best of
    ``--cold-repeats``) and a *warm* one (the directory the cold run filled:
    best of ``--repeats``).  Every run gets an empty experiment cache
    (``OLEARN_CACHE_DIR``), so no run reads results of another.

The tree measured is the committed ``HEAD`` (exported with ``git archive``,
so edits made while the benchmark runs do not leak in); with ``--before
REV`` the same runs are made, interleaved, on the tree of git revision
``REV``, so before and after are measured under the same load.  The default
``REV`` is :data:`BEFORE`, the tree before round 4's cold-start work (issue
30, item 2); ``--before none`` measures ``HEAD`` alone.  The one-minute load
average (what ``uptime`` prints) is recorded before and after: the machine is
shared.

    python benchmarks/cold_start.py [--before REV] [--repeats N] [--cold-repeats M]
                                    [--pages GLOB ...] [--quick] [--markdown FILE]
                                    [--json FILE]
"""
import argparse
import datetime
import fnmatch
import json
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: The tree before round 4's cold-start work: a060fd1, where round 4 began (issue 26's
#: closing note counts its commits from it) and the parent of f315d7a, the first commit of
#: that work (the LIBSVM reader's compile time, then ``olearn/cli``, ``_startup.py``,
#: ``olearn compile``: ``git log -- olearn/cli olearn/_startup.py olearn/datasets/libsvm.py``).
BEFORE = "a060fd1"

#: modules whose import time is reported (cumulative, at their first import)
WATCHED = ("numba", "sklearn.base", "scipy.stats", "pandas", "joblib",
           "sklearn.feature_selection", "highspy", "cvxpy", "matplotlib")

#: pages of a quick run (``--quick``): a smoke test of the script, not a measurement
QUICK_PAGES = ("perceptron_pa/derivation", "duol/intuition", "arow/derivation")

IMPORT_PROBE = """
import json, sys, time
t = time.perf_counter()
import olearn
elapsed = time.perf_counter() - t
print(json.dumps({"seconds": elapsed, "file": olearn.__file__,
                  "loaded": [m for m in WATCHED if m in sys.modules]}))
"""

# Runs a page's code cells (argv[1]) in IPython's shell until the first fit of an olearn
# learner returns; writes the times to argv[2]. fit/partial_fit of every class of an olearn
# module are wrapped as the module is imported (an import hook: the page's own imports stay
# in what is measured); the outermost first call that returns stops the page.
PAGE_PROBE = r"""
import importlib.abc, json, resource, sys, time


def cpu():
    usage = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(u.ru_utime + u.ru_stime for u in usage)


class FirstFit(BaseException):
    pass


state = {"depth": 0, "first": None}


def timed(method):
    def wrapper(self, *args, **kwargs):
        outermost = state["depth"] == 0 and state["first"] is None
        state["depth"] += 1
        start = time.perf_counter()
        try:
            result = method(self, *args, **kwargs)
        finally:
            state["depth"] -= 1
        if outermost:
            state["first"] = {"learner": type(self).__name__, "start": start,
                              "seconds": time.perf_counter() - start}
            raise FirstFit
        return result
    wrapper.__wrapped__ = method
    return wrapper


def wrap_classes(module):
    for obj in list(vars(module).values()):
        if isinstance(obj, type) and obj.__module__ == module.__name__:
            for name in ("fit", "partial_fit"):
                if callable(obj.__dict__.get(name)):
                    setattr(obj, name, timed(obj.__dict__[name]))


class Hook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "olearn" and not name.startswith("olearn."):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is not None and hasattr(loader, "exec_module"):
            exec_module = loader.exec_module

            def exec_and_wrap(module):
                exec_module(module)
                wrap_classes(module)
            loader.exec_module = exec_and_wrap
        return spec


nb = json.load(open(sys.argv[1], encoding="utf-8"))
cells = [c["source"] if isinstance(c["source"], str) else "".join(c["source"])
         for c in nb["cells"] if c["cell_type"] == "code"]
from IPython.core.interactiveshell import InteractiveShell


class Shell(InteractiveShell):
    def enable_gui(self, gui=None):      # %matplotlib inline, as in a kernel: no event loop
        pass


shell = Shell.instance()
shell.set_custom_exc((FirstFit,), lambda *args, **kwargs: None)
sys.meta_path.insert(0, Hook())
out = {"cells": len(cells), "cell_seconds": [], "error": None}
t0, c0 = time.perf_counter(), cpu()
for i, source in enumerate(cells):
    t = time.perf_counter()
    result = shell.run_cell(source, store_history=False)
    out["cell_seconds"].append(time.perf_counter() - t)
    if state["first"] is not None:
        break
    if not result.success:
        out["error"] = f"cell {i}: {type(result.error_in_exec or result.error_before_exec).__name__}"
        break
out["total"], out["cpu"] = time.perf_counter() - t0, cpu() - c0
out["ran"] = len(out["cell_seconds"])
if state["first"] is not None:
    out["learner"] = state["first"]["learner"]
    out["fit"] = state["first"]["seconds"]
    out["to_fit"] = state["first"]["start"] - t0 + state["first"]["seconds"]
json.dump(out, open(sys.argv[2], "w"))
"""


def child_env(tree, cache_dir=None):
    env = dict(os.environ, PYTHONPATH=str(tree), OLEARN_QUICK="1", MPLBACKEND="Agg")
    env.pop("PYTHONSTARTUP", None)
    env.setdefault("OLEARN_DATA_HOME", str(ROOT.parent / "shared" / "datasets"))
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    return env


def run(code, tree, cache_dir=None, args=()):
    return subprocess.run([sys.executable, *args, "-c", code], check=True,
                          capture_output=True, text=True, env=child_env(tree, cache_dir),
                          cwd=tempfile.gettempdir())


def import_time(tree):
    code = f"WATCHED = {WATCHED!r}\n" + IMPORT_PROBE
    result = json.loads(run(code, tree).stdout.strip().splitlines()[-1])
    assert Path(result["file"]).resolve().is_relative_to(Path(tree).resolve()), result
    return result


def importtime_breakdown(tree):
    """Cumulative microseconds of ``import olearn`` and of each watched module."""
    err = run("import olearn", tree, args=("-X", "importtime")).stderr
    cumulative = {}
    for line in err.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cum, name = line.split("|")
        name = name.strip()
        if name not in cumulative:
            cumulative[name] = int(cum) / 1e6
    return {"olearn": cumulative.get("olearn"),
            **{m: cumulative[m] for m in WATCHED if m in cumulative}}


def book_pages(tree):
    """The pages of ``tree``'s book, as ``part/page`` (``book/`` and ``.ipynb`` dropped)."""
    book = Path(tree) / "book"
    return sorted(str(p.relative_to(book).with_suffix("")) for p in book.rglob("*.ipynb")
                  if "_build" not in p.parts and ".ipynb_checkpoints" not in p.parts)


def page_time(tree, page, cache_dir, scratch):
    """One fresh process running ``page`` of ``tree`` to its first fit (PAGE_PROBE)."""
    path = Path(tree) / "book" / f"{page}.ipynb"
    with tempfile.TemporaryDirectory(dir=scratch) as tmp:
        env = child_env(tree, cache_dir)
        env["OLEARN_CACHE_DIR"] = str(Path(tmp) / "experiments")   # no cached results
        # joblib runs its tasks in this process, so that a fit inside a page's parallel
        # experiment is seen (and stops the page) whatever n_jobs the page asks for
        env["JOBLIB_MULTIPROCESSING"] = "0"
        result = Path(tmp) / "result.json"
        done = subprocess.run([sys.executable, "-c", PAGE_PROBE, str(path), str(result)],
                              capture_output=True, text=True, env=env, cwd=path.parent)
        if done.returncode or not result.is_file():
            return {"error": f"exit {done.returncode}: {done.stderr.strip()[-300:]}"}
        return json.loads(result.read_text())


def export(rev, into):
    """The files of git revision ``rev`` in the new folder ``into``."""
    into = Path(into)
    into.mkdir()
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, check=True,
                             capture_output=True).stdout
    path = into / "tree.tar"
    path.write_bytes(archive)
    with tarfile.open(path) as tar:
        tar.extractall(into, filter="data")
    path.unlink()
    return into


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()


def best(values):
    values = [v for v in values if v is not None]
    return min(values) if values else None


def measure(trees, pages, repeats, cold_repeats, progress=print):
    """Interleaved runs: per page, the cold runs of every tree (each filling its own numba
    cache), then the warm rounds, tree by tree, on the caches the first cold run filled."""
    results = {label: {"import": [], "importtime": None, "pages": {}} for label in trees}
    have = {label: set(book_pages(tree)) for label, tree in trees.items()}
    with tempfile.TemporaryDirectory(prefix="olearn-cold-") as scratch:
        for _ in range(repeats):            # interleaved: tree by tree, round by round
            for label, tree in trees.items():
                results[label]["import"].append(import_time(tree))
        for label, tree in trees.items():
            results[label]["importtime"] = min(
                (importtime_breakdown(tree) for _ in range(repeats)),
                key=lambda r: r["olearn"])
        for page in pages:
            progress(f"page {page}")
            runs = {label: {"warm": [], "cold": []} for label in trees if page in have[label]}
            warm_dir = {}
            for i in range(cold_repeats):
                for label in runs:
                    cold = Path(scratch) / f"numba-{label}-{page.replace('/', '_')}-{i}"
                    warm_dir.setdefault(label, cold)
                    runs[label]["cold"].append(page_time(trees[label], page, cold, scratch))
            for _ in range(repeats):
                for label in runs:
                    runs[label]["warm"].append(
                        page_time(trees[label], page, warm_dir[label], scratch))
            for label in runs:
                results[label]["pages"][page] = runs[label]
    return results


def _fmt(value, digits=2):
    return "" if value is None else f"{value:.{digits}f}"


def page_row(runs, key):
    """Best cold and warm ``key`` of a page's runs (None when missing or failed)."""
    if runs is None:
        return None, None
    return tuple(best([r.get(key) for r in runs[kind] if not r.get("error")])
                 for kind in ("cold", "warm"))


def page_note(runs):
    """What the runs stopped at: the learner first fitted, 'no fit', or the error."""
    if runs is None:
        return "(no such page)"
    errors = [r["error"] for kind in ("cold", "warm") for r in runs[kind] if r.get("error")]
    if errors:
        return "error: " + errors[0].replace("|", "/").replace("\n", " ")[:120]
    first = runs["cold"][0] if runs["cold"] else runs["warm"][0]
    if "learner" in first:
        return f"`{first['learner']}`, cell {first['ran']} of {first['cells']}"
    return f"no fit: all {first['cells']} cells"


def markdown(results, pages, meta):
    labels = list(results)
    lines = ["# Cold start: `import olearn` and each book page up to its first `fit`", "",
             "Generated by `python benchmarks/cold_start.py"
             + f" --before {meta['before'] or 'none'}"
             + f" --repeats {meta['repeats']} --cold-repeats {meta['cold_repeats']}"
             + (" --pages " + " ".join(meta["pages"]) if meta["pages"] else "")
             + "` (do not edit by hand).", "",
             f"- date: {meta['date']}",
             f"- commit measured (now): {meta['commit']} (HEAD, exported with git archive)"]
    if meta["before"]:
        lines.append(f"- before: {meta['before']} = {meta['before_commit']} (the tree before "
                     "round 4's cold-start work)")
    lines += [f"- load average (1 min) before / after: {meta['load_before']:.2f} / "
              f"{meta['load_after']:.2f} on {meta['cpus']} cores (shared machine: "
              f"wall times scale with the load; CPU times much less)",
              f"- machine: {meta['machine']}; Python {meta['python']}, numba "
              f"{meta['numba']}, scikit-learn {meta['sklearn']}", "",
              "Each run is a fresh process. Warm: numba cache filled by the cold run "
              f"of the same page and tree, best of {meta['repeats']}. Cold: empty numba cache, "
              f"best of {meta['cold_repeats']}.", "",
              "## `import olearn`", "",
              "| tree | wall (s), best | `-X importtime` olearn (s) | modules it imports |",
              "|---|---|---|---|"]
    for label in labels:
        r = results[label]
        fastest = min(r["import"], key=lambda x: x["seconds"])
        loaded = ", ".join(fastest["loaded"]) or "none of " + ", ".join(WATCHED)
        lines.append(f"| {label} | {fastest['seconds']:.3f} | "
                     f"{r['importtime']['olearn']:.3f} | {loaded} |")
    lines += ["", "Cumulative `-X importtime` of the heaviest dependencies at their first "
              "import inside `import olearn` (s; blank: not imported):", "",
              "| module | " + " | ".join(labels) + " |",
              "|---|" + "---|" * len(labels)]
    for module in WATCHED:
        cells = [results[label]["importtime"].get(module) for label in labels]
        lines.append(f"| {module} | " + " | ".join(
            "" if c is None else f"{c:.3f}" for c in cells) + " |")

    def table(title, intro, key):
        out = ["", f"## {title}", "", intro, "",
               "| page | " + " | ".join(f"{label} cold | {label} warm" for label in labels)
               + " | first fit (" + labels[-1] + ") |",
               "|---|" + "---:|---:|" * len(labels) + "---|"]
        for page in pages:
            cells = []
            for label in labels:
                cells += [_fmt(v) for v in page_row(results[label]["pages"].get(page), key)]
            note = page_note(results[labels[-1]]["pages"].get(page))
            out.append(f"| {page} | " + " | ".join(cells) + f" | {note} |")
        return out

    lines += table("Book pages: seconds from the first cell to the end of the first fit "
                   "(wall)",
                   "Each page's code cells run in order in IPython's shell (from the page's "
                   "folder, `OLEARN_QUICK=1`) until the first `fit`/`partial_fit` of an olearn "
                   "learner returns (joblib's tasks run in the page's process); the last column "
                   "names that learner and the cell it is in. A page without a fit runs "
                   "whole. Each tree runs its own version of the page.", "to_fit")
    lines += table("Book pages: the same, CPU seconds of the process",
                   "User + system CPU of the page's process and its children over the same "
                   "cells: on a loaded machine the steadier figure.", "cpu")
    lines += ["", "## Book pages: the first fit alone and the first cell (the page's "
              "imports), wall seconds", "",
              "| page | " + " | ".join(f"{label} first fit cold | {label} first fit warm | "
                                       f"{label} first cell warm" for label in labels) + " |",
              "|---|" + "---:|---:|---:|" * len(labels)]
    for page in pages:
        cells = []
        for label in labels:
            runs = results[label]["pages"].get(page)
            cold, warm = page_row(runs, "fit")
            first_cell = None
            if runs is not None:
                first_cell = best([r["cell_seconds"][0] for r in runs["warm"]
                                   if not r.get("error") and r.get("cell_seconds")])
            cells += [_fmt(cold), _fmt(warm), _fmt(first_cell)]
        lines.append(f"| {page} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", "--baseline", dest="before", default=BEFORE,
                        help=f"git revision measured beside HEAD (default {BEFORE}, the tree "
                             "before round 4's cold-start work; 'none': HEAD alone)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cold-repeats", type=int, default=1)
    parser.add_argument("--pages", nargs="+", metavar="GLOB",
                        help="only the pages matching these patterns (part/page, e.g. 'duol/*')")
    parser.add_argument("--quick", action="store_true",
                        help=f"a smoke test: pages {', '.join(QUICK_PAGES)}, one warm run")
    parser.add_argument("--markdown", type=Path, help="write the tables to this file")
    parser.add_argument("--json", type=Path, help="write every run's figures to this file")
    args = parser.parse_args(argv)
    if args.quick:
        args.pages, args.repeats = args.pages or list(QUICK_PAGES), 1
    before = None if str(args.before).lower() == "none" else args.before
    import numba
    import sklearn
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": git("rev-parse", "HEAD"), "before": before,
            "repeats": args.repeats, "cold_repeats": args.cold_repeats,
            "pages": args.pages, "cpus": os.cpu_count(),
            "machine": f"{platform.machine()} {platform.processor() or platform.system()}",
            "python": platform.python_version(), "numba": numba.__version__,
            "sklearn": sklearn.__version__, "load_before": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="olearn-trees-") as scratch:
        trees = {}
        if before:
            meta["before_commit"] = git("rev-parse", before)
            trees["before"] = export(before, Path(scratch) / "before")
        trees["now"] = export("HEAD", Path(scratch) / "now")
        pages = sorted(set().union(*(book_pages(tree) for tree in trees.values())))
        if args.pages:
            pages = [p for p in pages if any(fnmatch.fnmatch(p, g) for g in args.pages)]
        results = measure(trees, pages, args.repeats, args.cold_repeats)
    meta["load_after"] = os.getloadavg()[0]
    text = markdown(results, pages, meta)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "results": results}, indent=1))


if __name__ == "__main__":
    main()
