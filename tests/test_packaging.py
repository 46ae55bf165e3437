"""Packaging checks: pyproject.toml and environment.yml agree, CITATION.cff is valid,
and `import olearn` is quick and compiles nothing."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
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


LAZY_PROBE = """
import json, sys
import olearn
after_import = sorted(m for m in ("numba", "sklearn", "scipy", "pandas", "cvxpy", "matplotlib",
                                  "joblib", "highspy") if m in sys.modules)
names = dir(olearn)
from olearn import PA
after_pa = sorted(m for m in ("cvxpy", "matplotlib", "highspy", "sklearn.feature_selection",
                              "olearn.kernel", "olearn.second_order", "olearn.selection")
                  if m in sys.modules)
ns = {}
exec("from olearn import *", ns)
print(json.dumps({"after_import": after_import, "names": names, "after_pa": after_pa,
                  "star": sorted(k for k in ns if not k.startswith("__")),
                  "same": all(ns[k] is getattr(olearn, k) for k in olearn.__all__ if k in ns)}))
"""


def test_import_is_lazy_and_the_api_stays_flat():
    """`import olearn` imports no dependency; each name is imported from its family on use."""
    out = subprocess.run([sys.executable, "-c", LAZY_PROBE], check=True, capture_output=True,
                         text=True, cwd=ROOT).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert result["after_import"] == [], result["after_import"]
    assert result["after_pa"] == [], result["after_pa"]   # a linear page pays for linear only
    import olearn
    public = [name for name in olearn.__all__ if name != "__version__"]
    assert set(public) <= set(result["names"])          # dir() lists every public name
    assert result["star"] == sorted(public) and result["same"]
    for name in ("linear", "second_order", "kernel", "selection"):
        assert name in result["names"]
    for name in public:                                 # every name resolves to its object
        obj = getattr(olearn, name)
        assert obj.__name__ == name and obj.__module__.startswith("olearn.")
    assert olearn.selection.FeatureSelected is olearn.FeatureSelected
    with pytest.raises(AttributeError, match="has no attribute 'NotAThing'"):
        olearn.NotAThing
