"""make test's order of work and its CPU report (tests/cpu_costs.py, issue 30 item 4)."""
import json
import os
import subprocess
import sys

import pytest
from pathlib import Path
from types import SimpleNamespace

import cpu_costs

ROOT = Path(__file__).resolve().parents[1]


def _items(*nodeids):
    return [SimpleNamespace(nodeid=n) for n in nodeids]


def test_costliest_scope_first_and_each_scope_kept_whole_in_order():
    items = _items("tests/test_a.py::test_1", "tests/test_a.py::test_2",
                   "tests/test_b.py::TestX::test_1", "book/p.ipynb::Cell 0",
                   "tests/test_b.py::TestX::test_2", "book/p.ipynb::Cell 1",
                   "tests/test_c.py::test_1", "book/new.ipynb::Cell 0")
    costs = {"tests/test_a.py": 1.0, "tests/test_b.py::TestX": 30.0, "book/p.ipynb": 20.0,
             "tests/test_c.py": 1.0}
    order = [i.nodeid for i in cpu_costs.costliest_first(items, costs)]
    assert order == ["tests/test_b.py::TestX::test_1", "tests/test_b.py::TestX::test_2",
                     "book/p.ipynb::Cell 0", "book/p.ipynb::Cell 1",
                     "book/new.ipynb::Cell 0",          # not measured: a page's default
                     "tests/test_a.py::test_1", "tests/test_a.py::test_2",
                     "tests/test_c.py::test_1"]         # a tie keeps the collection's order
    assert cpu_costs.NEW_PAGE_SECONDS < 20.0 and cpu_costs.NEW_PAGE_SECONDS > 1.0


def test_scope_is_the_unit_loadscope_keeps_on_one_worker():
    from xdist.scheduler.loadscope import LoadScopeScheduling
    for nodeid in ("tests/test_a.py::test_f[1-x]", "tests/test_a.py::TestK::test_m",
                   "book/duol/theory.ipynb::Cell 3", "olearn/linear/pa.py::olearn.linear.pa.PA"):
        assert cpu_costs.scope_of(nodeid) == LoadScopeScheduling._split_scope(None, nodeid)


@pytest.mark.needs_tools("make")
def test_make_test_keeps_the_costliest_first_order():
    # xdist's default re-sorts the scopes by their number of tests (the pages, a dozen cells
    # each, would go last): make test turns that off
    dry = subprocess.run(["make", "-n", "test", "STAMP=Makefile"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    line = " ".join(dry.split("\\\n"))
    assert "--dist loadscope" in line and "--no-loadscope-reorder" in line
    measured = cpu_costs.load_costs()
    pages = {str(p.relative_to(ROOT)) for p in (ROOT / "book").rglob("*.ipynb")
             if "_build" not in p.parts}
    assert len(pages & set(measured)) >= len(pages) // 2     # the table is about this book


def test_cpu_report_counts_a_test_and_a_page_kernel(tmp_path):
    (tmp_path / "test_busy.py").write_text(
        "import time\n"
        "def test_busy():\n"
        "    end = time.process_time() + 0.6\n"
        "    while time.process_time() < end:\n"
        "        pass\n"
        "def test_idle():\n"
        "    time.sleep(0.3)\n")
    burn = ("import time\nend = time.process_time() + 1.0\n"
            "while time.process_time() < end:\n    pass\n")
    (tmp_path / "page.ipynb").write_text(json.dumps({
        "cells": [{"cell_type": "code", "id": "c0", "metadata": {}, "execution_count": None,
                   "outputs": [], "source": [burn]}],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                    "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5}))
    report = tmp_path / "report.json"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    done = subprocess.run([sys.executable, "-m", "pytest", "--noconftest", "-p", "cpu_costs",
                           "-p", "no:cacheprovider", "--nbval-lax", "--nbval-current-env",
                           f"--cpu-report={report}", "test_busy.py", "page.ipynb"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    scopes = json.loads(report.read_text())["scopes"]
    assert 0.5 <= scopes["test_busy.py"] < 5        # the idle test adds next to nothing
    assert 0.9 <= scopes["page.ipynb"]               # the kernel's CPU, not the client's
    assert "cpu report:" in done.stdout


def test_idle_openmp_threads_sleep_in_the_tests_and_their_kernels():
    # numba's OpenMP threads (AROW(n_jobs=2), ...) spin while idle by default, burning the
    # CPU the other worker needs; tests/conftest.py asks libgomp to let them sleep
    assert os.environ.get("OMP_WAIT_POLICY", "").upper() == "PASSIVE"
    script = ("import os, numba, numpy as np\n"
              "from numba import njit, prange\n"
              "@njit(parallel=True)\n"
              "def f(a):\n"
              "    s = 0.0\n"
              "    for i in prange(a.size):\n"
              "        s += a[i]\n"
              "    return s\n"
              "f(np.ones(10))\n"
              "print(numba.threading_layer(), os.environ['OMP_WAIT_POLICY'])\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True)
    assert "Invalid value" not in out.stderr                  # libgomp read it
    assert out.stdout.split()[-1] == "PASSIVE"
