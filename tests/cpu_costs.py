"""What ``make test`` spends its CPU on, and the order its work is handed out (issue 30, item 4).

``make test`` runs on pytest-xdist workers with ``--dist loadscope``: a *scope* (a test module,
a test class, a book page with its cells, a doctest module) goes whole to one worker. The
scopes are handed out in the order of the collection, each worker taking the next one as it
finishes; a long scope handed out last keeps one worker busy while the other waits. So the
collection is ordered by the CPU seconds each scope took in a measured run, costliest first
(the longest-processing-time rule), from ``tests/scope_costs.json``; a scope not measured yet
counts as :data:`NEW_PAGE_SECONDS` (a book page) or :data:`NEW_TEST_SECONDS` per test. The
Makefile passes ``--no-loadscope-reorder`` so that xdist keeps this order (its default sorts
the scopes by their number of tests, which sends the pages, a dozen cells each, last).

The measurement is this module's plugin (registered by ``tests/conftest.py``)::

    pytest ... --cpu-report=FILE     # CPU seconds per scope (and the slowest tests) to FILE
    python tests/cpu_costs.py FILE   # rewrite tests/scope_costs.json from that report

CPU seconds are user + system time: of the pytest process (or xdist worker) over each test,
of the child processes it waited for (``olearn train`` runs, builds), and, for a page, of its
kernel with every process under it (joblib's workers) -- so they do not swell with the load of
a shared machine as wall times do. A scope's cost includes the numba compilations it was the
first to need (the cache starts empty in CI), so the figures of one run are the ones to order by.
"""
from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
COSTS = HERE / "scope_costs.json"
NEW_PAGE_SECONDS = 15.0     # a page not yet measured: most take 5-30 s of CPU
NEW_TEST_SECONDS = 0.05     # per test of a module not yet measured


def scope_of(nodeid: str) -> str:
    """The unit ``--dist loadscope`` keeps on one worker: the node id up to its last ``::``
    (a module's functions, a class's methods, a page's cells, a module's doctests)."""
    return nodeid.rsplit("::", 1)[0]


def load_costs(path=COSTS) -> dict:
    try:
        return json.loads(Path(path).read_text())["scopes"]
    except (OSError, ValueError, KeyError):
        return {}


def costliest_first(items, costs):
    """``items`` with their scopes in decreasing order of cost (a scope's items stay together
    and in their order; ties keep the collection's order)."""
    first, size = {}, {}
    for index, item in enumerate(items):
        scope = scope_of(item.nodeid)
        first.setdefault(scope, index)
        size[scope] = size.get(scope, 0) + 1

    def cost(scope):
        if scope in costs:
            return costs[scope]
        return NEW_PAGE_SECONDS if scope.endswith(".ipynb") else NEW_TEST_SECONDS * size[scope]

    rank = {scope: r for r, scope in enumerate(sorted(first, key=lambda s: (-cost(s), first[s])))}
    return sorted(items, key=lambda item: rank[scope_of(item.nodeid)])


# --- measuring ----------------------------------------------------------------------------
def _own_cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _kernel_cpu(item):
    """CPU seconds so far of the nbval kernel running ``item``'s page and of every process
    under it, or None (not a page's cell, or no kernel)."""
    km = getattr(getattr(getattr(item, "parent", None), "kernel", None), "km", None)
    process = getattr(getattr(km, "provisioner", None), "process", None)
    if process is None:
        return None
    import psutil
    try:
        kernel = psutil.Process(process.pid)
        tree = [kernel, *kernel.children(recursive=True)]
    except psutil.Error:
        return None
    total = 0.0
    for proc in tree:
        try:
            t = proc.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


class CpuReport:
    """Collect the CPU seconds of every test; the controller (or a run without workers)
    writes the totals per scope to ``path``."""

    def __init__(self, config, path):
        self.config = config
        self.path = Path(path)
        self.workerinput = getattr(config, "workerinput", None)
        self.tests = {}           # node id -> [cpu seconds, wall seconds]
        self.kernels = {}         # page -> kernel CPU at its last cell
        self.started = time.time()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        yield
        self.kernel_after_call = _kernel_cpu(item)   # before nbval stops the kernel

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        own, children, wall = _own_cpu(), _children_cpu(), time.perf_counter()
        self.kernel_after_call = None
        yield
        seconds = _own_cpu() - own
        if type(item).__name__ == "IPyNbCell":   # the kernel's time (not the reaped kernel's)
            page = item.parent.nodeid
            kernel = self.kernel_after_call
            if kernel is not None:
                seconds += kernel - self.kernels.get(page, 0.0)
                self.kernels[page] = kernel
        else:
            seconds += _children_cpu() - children
        self.tests[item.nodeid] = [seconds, time.perf_counter() - wall]

    def pytest_sessionfinish(self, session):
        if self.workerinput is not None:      # an xdist worker: hand the figures over
            self.config.workeroutput["cpu_report"] = json.dumps(
                {"tests": self.tests, "process": _own_cpu() + _children_cpu()})

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error):
        report = getattr(node, "workeroutput", {}).get("cpu_report")
        if report:
            data = json.loads(report)
            self.tests.update(data["tests"])
            self.workers = getattr(self, "workers", 0.0) + data["process"]

    def pytest_terminal_summary(self, terminalreporter):
        if self.workerinput is not None:
            return
        scopes = {}
        for nodeid, (seconds, _) in self.tests.items():
            scopes[scope_of(nodeid)] = scopes.get(scope_of(nodeid), 0.0) + seconds
        ranked = dict(sorted(((s, round(c, 1)) for s, c in scopes.items()),
                             key=lambda kv: -kv[1]))
        slowest = sorted(self.tests.items(), key=lambda kv: -kv[1][0])[:50]
        processes = _own_cpu() + getattr(self, "workers", _children_cpu())
        report = {"tests_cpu_seconds": round(sum(c for c, _ in self.tests.values()), 1),
                  "processes_cpu_seconds": round(processes, 1),
                  "wall_seconds": round(time.time() - self.started, 1),
                  "load_average": os.getloadavg(),
                  "scopes": ranked,
                  "slowest_tests": {n: round(c, 2) for n, (c, _) in slowest}}
        self.path.write_text(json.dumps(report, indent=1) + "\n")
        write = terminalreporter.write_line
        write(f"cpu report: {report['tests_cpu_seconds']:.0f} CPU s in tests, "
              f"{report['processes_cpu_seconds']:.0f} in the test processes; "
              f"costliest scopes (written to {self.path}):")
        for scope, seconds in list(ranked.items())[:15]:
            write(f"  {seconds:7.1f} s  {scope}")


def pytest_addoption(parser):
    parser.addoption("--cpu-report", default=None, metavar="FILE",
                     help="write the CPU seconds of each test scope (file, class, page) to "
                          "FILE (tests/cpu_costs.py)")


def pytest_configure(config):
    path = config.getoption("cpu_report", None)
    if path:
        config.pluginmanager.register(CpuReport(config, path), "olearn-cpu-report")


def pytest_collection_modifyitems(session, config, items):
    items[:] = costliest_first(items, load_costs())


def main(argv=None):
    """Rewrite tests/scope_costs.json from a ``--cpu-report`` file."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("report", type=Path)
    args = parser.parse_args(argv)
    report = json.loads(args.report.read_text())
    COSTS.write_text(json.dumps(
        {"about": "CPU seconds per test scope of one `make test` run (pytest --cpu-report, "
                  "tests/cpu_costs.py): the order in which the scopes are handed to the "
                  "workers, costliest first. Regenerate with python tests/cpu_costs.py REPORT.",
         "measured": {k: report.get(k) for k in ("tests_cpu_seconds", "processes_cpu_seconds",
                                                  "wall_seconds", "load_average")},
         "scopes": report["scopes"]}, indent=1) + "\n")
    print(f"{COSTS}: {len(report['scopes'])} scopes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
