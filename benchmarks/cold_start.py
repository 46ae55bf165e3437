"""The cold start a book page pays: ``import olearn`` and the first ``fit`` of each learner.

Every measurement runs in a fresh Python process (what a notebook kernel is),
started from a neutral directory with ``PYTHONPATH`` pointing at the tree
measured:

``import olearn``
    wall time of the statement alone (best of ``--repeats``), the modules it
    drags in, and ``python -X importtime``'s cumulative time of the heaviest
    ones;
pages
    for a few typical pages (the learners their cells fit), the time of the
    page's ``from olearn import ...`` and of each learner's first ``fit`` plus
    ``decision_function`` on a small stream -- with a *warm* numba cache (a
    cache directory filled by a previous run of the same page: best of
    ``--repeats``) and with a *cold* one (an empty cache directory: numba
    compiles every loop; best of ``--cold-repeats``).  After a page, the
    compiled functions holding more than one specialisation are listed.

The tree measured is the committed ``HEAD`` (exported with ``git archive``,
so edits made while the benchmark runs do not leak in); with ``--baseline
REV`` the same runs are made, interleaved, on the tree of git revision
``REV``, so before and after are measured under the same load.  The one-minute load average (what ``uptime``
prints) is recorded before and after: the machine is shared.

    python benchmarks/cold_start.py [--baseline REV] [--repeats N]
                                    [--cold-repeats M] [--markdown FILE]
"""
import argparse
import datetime
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

#: modules whose import time is reported (cumulative, at their first import)
WATCHED = ("numba", "sklearn.base", "scipy.stats", "pandas", "joblib",
           "sklearn.feature_selection", "highspy", "cvxpy", "matplotlib")

#: page -> (its import line, the learners its cells fit, the stream)
PAGES = {
    "perceptron_pa": ("from olearn import PA, Perceptron",
                      ["Perceptron()", "PA(variant='PA-I')"], "dense"),
    "arow": ("from olearn import AROW, CW, NAROW, PA, SCW, SOP",
             ["AROW()", "CW()", "SCW()", "SOP()", "PA()"], "dense"),
    "duol": ("from olearn import DUOL, KernelPerceptron",
             ["KernelPerceptron()", "DUOL()"], "dense"),
    "regularized": ("from olearn import NORMA, PA, FeatureSelected, L1ConstrainedPA",
                    ["PA()", "NORMA()", "L1ConstrainedPA()", "FeatureSelected(PA(), k=5)"],
                    "dense"),
    "single_pass/efs": ("from olearn import ExtremalFeatureSelection, ModifiedBalancedWinnow",
                        ["ModifiedBalancedWinnow()", "ExtremalFeatureSelection(n_features=10)"],
                        "csr"),
}

IMPORT_PROBE = """
import json, sys, time
t = time.perf_counter()
import olearn
elapsed = time.perf_counter() - t
print(json.dumps({"seconds": elapsed, "file": olearn.__file__,
                  "loaded": [m for m in WATCHED if m in sys.modules]}))
"""

PAGE_PROBE = """
import json, sys, time
t0 = time.perf_counter()
{imports}
out = {{"import": time.perf_counter() - t0, "fits": {{}}}}
import numpy as np
import scipy.sparse as sp
rng = np.random.default_rng(0)
if {kind!r} == "dense":
    X = rng.normal(size=(300, 20))
    y = np.where(X @ rng.normal(size=20) > 0, 1, -1)
else:
    X = sp.random(300, 200, density=0.05, format="csr", random_state=0)
    X.data = np.ceil(3 * X.data)                      # term counts, >= 0
    y = np.where(X @ rng.normal(size=200) > 0, 1, -1)
for expr in {learners!r}:
    t = time.perf_counter()
    est = eval(expr).fit(X, y)
    est.decision_function(X)
    out["fits"][expr] = time.perf_counter() - t
out["total"] = time.perf_counter() - t0
from numba.core.dispatcher import Dispatcher
out["multi"] = {{f"{{name}}.{{attr}}": len(obj.signatures)
                for name, mod in list(sys.modules.items()) if name.startswith("olearn")
                for attr, obj in list(vars(mod).items())
                if isinstance(obj, Dispatcher) and obj.__module__ == name
                and len(obj.signatures) > 1}}
print(json.dumps(out))
"""


def run(code, tree, cache_dir=None, args=()):
    env = dict(os.environ, PYTHONPATH=str(tree), OLEARN_QUICK="1")
    env.pop("PYTHONSTARTUP", None)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    out = subprocess.run([sys.executable, *args, "-c", code], check=True,
                         capture_output=True, text=True, env=env,
                         cwd=tempfile.gettempdir())
    return out


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


def page_time(tree, page, cache_dir):
    imports, learners, kind = PAGES[page]
    code = PAGE_PROBE.format(imports=imports, learners=learners, kind=kind)
    return json.loads(run(code, tree, cache_dir).stdout.strip().splitlines()[-1])


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
    return min(values) if values else float("nan")


def measure(trees, repeats, cold_repeats, progress=print):
    results = {label: {"import": [], "importtime": None, "pages": {}} for label in trees}
    with tempfile.TemporaryDirectory(prefix="olearn-cold-") as scratch:
        warm_dirs = {label: Path(scratch) / f"warm-{i}" for i, label in enumerate(trees)}
        for _ in range(repeats):            # interleaved: tree by tree, round by round
            for label, tree in trees.items():
                results[label]["import"].append(import_time(tree))
        for label, tree in trees.items():
            results[label]["importtime"] = min(
                (importtime_breakdown(tree) for _ in range(repeats)),
                key=lambda r: r["olearn"])
        for page in PAGES:
            progress(f"page {page}")
            for label, tree in trees.items():
                page_time(tree, page, warm_dirs[label])          # fills the warm cache
            for label in trees:
                results[label]["pages"][page] = {"warm": [], "cold": []}
            for _ in range(repeats):
                for label, tree in trees.items():
                    results[label]["pages"][page]["warm"].append(
                        page_time(tree, page, warm_dirs[label]))
            for i in range(cold_repeats):
                for label, tree in trees.items():
                    cold = Path(scratch) / f"cold-{label}-{page.replace('/', '_')}-{i}"
                    results[label]["pages"][page]["cold"].append(page_time(tree, page, cold))
    return results


def markdown(results, meta):
    labels = list(results)
    lines = ["# Cold start: `import olearn` and the first `fit` of a page", "",
             "Generated by `python benchmarks/cold_start.py"
             + (f" --baseline {meta['baseline']}" if meta["baseline"] else "")
             + f" --repeats {meta['repeats']} --cold-repeats {meta['cold_repeats']}"
             + "` (do not edit by hand).", "",
             f"- date: {meta['date']}",
             f"- commit measured: {meta['commit']} (HEAD, exported with git archive)"]
    if meta["baseline"]:
        lines.append(f"- baseline: {meta['baseline']} = {meta['baseline_commit']}")
    lines += [f"- load average (1 min) before / after: {meta['load_before']:.2f} / "
              f"{meta['load_after']:.2f} on {meta['cpus']} cores (shared machine: "
              f"times scale with the load)",
              f"- machine: {meta['machine']}; Python {meta['python']}, numba "
              f"{meta['numba']}, scikit-learn {meta['sklearn']}", "",
              "Each run is a fresh process. Warm: numba cache filled by an earlier run "
              f"of the same page, best of {meta['repeats']}. Cold: empty numba cache, "
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
    lines += ["", "## A page: its `from olearn import ...` and the first fit of each learner",
              "", "Stream: 300 rows, dense 20 features (standard normal) or CSR 200 features "
              "(5% term counts). Times in seconds; a learner fitted after another one reuses "
              "the compiled helpers they share.", ""]
    for page, (imports, learners, kind) in PAGES.items():
        lines += [f"### {page} ({kind})", "", f"`{imports}`", "",
                  "| step | " + " | ".join(f"{label} warm | {label} cold" for label in labels)
                  + " |", "|---|" + "---|---|" * len(labels)]
        rows = [("import", lambda r: r["import"])]
        rows += [(f"first fit {expr}", lambda r, e=expr: r["fits"][e]) for expr in learners]
        rows += [("page total", lambda r: r["total"])]
        for name, get in rows:
            cells = []
            for label in labels:
                runs = results[label]["pages"][page]
                cells += [f"{best([get(r) for r in runs['warm']]):.3f}",
                          f"{best([get(r) for r in runs['cold']]):.3f}"]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        multi = results[labels[0]]["pages"][page]["warm"][0]["multi"]
        if multi:
            lines += ["", f"Compiled functions holding several specialisations after the "
                      f"page ({labels[0]}): " + ", ".join(
                          f"`{k}` ({v})" for k, v in sorted(multi.items())) + "."]
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="git revision to measure beside this tree")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cold-repeats", type=int, default=1)
    parser.add_argument("--markdown", type=Path, help="write the tables to this file")
    args = parser.parse_args(argv)
    import numba
    import sklearn
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": git("rev-parse", "HEAD"),
            "baseline": args.baseline, "repeats": args.repeats,
            "cold_repeats": args.cold_repeats, "cpus": os.cpu_count(),
            "machine": f"{platform.machine()} {platform.processor() or platform.system()}",
            "python": platform.python_version(), "numba": numba.__version__,
            "sklearn": sklearn.__version__, "load_before": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="olearn-trees-") as scratch:
        trees = {}
        if args.baseline:
            meta["baseline_commit"] = git("rev-parse", args.baseline)
            trees["before"] = export(args.baseline, Path(scratch) / "before")
        trees["now"] = export("HEAD", Path(scratch) / "now")
        results = measure(trees, args.repeats, args.cold_repeats)
    meta["load_after"] = os.getloadavg()[0]
    text = markdown(results, meta)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")


if __name__ == "__main__":
    main()
