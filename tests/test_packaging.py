"""Packaging checks: pyproject.toml and environment.yml agree, CITATION.cff is valid,
and `import olearn` is quick and compiles nothing."""
import json
import subprocess
import sys
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
IMPORT_BUDGET_S = 5.0  # measured about 1.5 s idle, 3 s on a loaded 2-core machine
OWN_IMPORT_BUDGET_S = 0.5  # measured about 0.15 s


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _specs(lines):
    """{normalised name: sorted version specifiers}; extras and markers are dropped."""
    out = {}
    for line in lines:
        req = Requirement(line)
        out[canonicalize_name(req.name)] = sorted(str(s) for s in req.specifier)
    return out


def test_environment_yml_matches_pyproject():
    project = _pyproject()["project"]
    want = _specs(project["dependencies"] + project["optional-dependencies"]["dev"])

    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    lines = []
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            lines += [d for d in dep["pip"] if not d.startswith("-")]
        else:
            lines.append(dep)
    got = _specs(lines)

    assert got.pop("python") == sorted(project["requires-python"].split(","))
    assert got.pop("pip") == []
    assert got == want


def test_citation_cff_version_matches_package():
    from importlib.metadata import version

    import olearn

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    assert cff["title"].split(":")[0] == "olearn"
    assert cff["license"] == "MIT"
    assert cff["version"] == olearn.__version__
    assert version("olearn") == olearn.__version__, "installed metadata is stale: reinstall"


PROBE = """
import json, sys, time
t0 = time.perf_counter()
import numpy, scipy.sparse, sklearn.base, numba  # what olearn needs anyway
t1 = time.perf_counter()
import olearn
t2 = time.perf_counter()
import importlib, pkgutil
for info in pkgutil.walk_packages(olearn.__path__, "olearn."):
    importlib.import_module(info.name)
from numba.core.dispatcher import Dispatcher
compiled = sorted(
    f"{mod_name}.{name}"
    for mod_name, mod in list(sys.modules.items())
    if mod_name.split(".")[0] == "olearn"
    for name, obj in list(vars(mod).items())
    if isinstance(obj, Dispatcher) and obj.signatures
)
print(json.dumps({"total": t2 - t0, "own": t2 - t1, "compiled": compiled}))
"""


def test_import_is_fast_and_compiles_nothing():
    """`import olearn` stays under the budget; importing any olearn module compiles nothing."""
    runs = []
    for _ in range(3):  # the first run may write .pyc files; keep the fastest
        out = subprocess.run(
            [sys.executable, "-c", PROBE], check=True, capture_output=True, text=True, cwd=ROOT
        ).stdout
        runs.append(json.loads(out.strip().splitlines()[-1]))
    assert all(r["compiled"] == [] for r in runs), runs[0]["compiled"]
    total = min(r["total"] for r in runs)
    own = min(r["own"] for r in runs)
    assert total < IMPORT_BUDGET_S, f"import olearn took {total:.2f} s"
    # olearn's own share, beyond numpy/scipy/scikit-learn/numba: no cvxpy, pandas, data or compiling
    assert own < OWN_IMPORT_BUDGET_S, f"import olearn took {own:.2f} s beyond its core dependencies"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    assert "make book" in readme and "make test" in readme
    assert "\nmake test\n" in (ROOT / ".ci" / "run").read_text()
