"""One execution of every book page per CI run (issue 30, item 4).

``make test`` runs every page under ``pytest --nbval-lax``: each code cell is executed once,
must raise no error, and the cells tagged ``nbval-check-output`` are compared with their stored
output. With ``--book-cache=DIR`` (the Makefile passes ``book/_build/.jupyter_cache``) this
plugin keeps what nbval executed: every page whose cells all passed is written, with the
outputs of that run, into the jupyter-cache ``DIR`` that ``jupyter-book build`` reads with
``execute_notebooks: cache`` (``book/_config.yml``). ``make book`` then renders those pages
without running them again, and executes only the pages the cache lacks.

The cache is only as good as the code that filled it, while jupyter-cache matches a page by
its code cells alone. So the test run also records the state of the tree it executed (commit,
uncommitted changes, untracked files, the installed packages and the variables the pages read:
:func:`tree_state`), and ``make book`` empties the cache first unless the state recorded is the
state of the tree it builds (``python tests/book_cache.py prepare book``). A page that failed
is never cached: the book build executes it and fails on it, on every build.

    python tests/book_cache.py prepare book    # empty book/_build/.jupyter_cache unless it is
                                               # from a test run of this very tree
    python tests/book_cache.py reused book     # after a build: every cached page came from the
                                               # test run (exit 1 if the build executed any)

The plugin also starts each page's kernel patiently (:class:`PatientKernel`): on a loaded
machine, kernels started at the same time can lose the race for their ports and die before
replying to ``kernel_info``; the start is retried with fresh ports.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STATE_FILE = "olearn-tested-state.json"   # inside the cache folder
EXECUTED_BY = "pytest --nbval"            # the mark of a page the test run executed
STAGING = ".staging"                      # executed pages of each worker, before caching
# what a page's outputs depend on besides the code: the variables the pages read
ENV_KEYS = ("OLEARN_QUICK", "OLEARN_DATA_HOME", "OLEARN_DASK_SCHEDULER", "MPLBACKEND")


def cache_dir(book) -> Path:
    """The jupyter-cache folder ``jupyter-book build`` uses for ``book``."""
    return Path(book) / "_build" / ".jupyter_cache"


def _git(root, *args) -> bytes:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, check=True).stdout


def tree_state(root=ROOT) -> dict | None:
    """What the pages execute with, as digests, or None outside a git checkout: the commit,
    every uncommitted change (``git diff HEAD``), the names and contents of the untracked
    files that are not ignored, the Python executable, the installed distributions with
    their versions, and the variables of ``ENV_KEYS``."""
    def sha(data):
        return hashlib.sha256(data if isinstance(data, bytes) else
                              json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]

    try:
        commit = _git(root, "rev-parse", "HEAD").decode().strip()
        changes = _git(root, "diff", "HEAD", "--binary")
        untracked = _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    except (OSError, subprocess.CalledProcessError):
        return None
    files = hashlib.sha256()
    for name in sorted(n for n in untracked.split(b"\0") if n):
        path = Path(root) / os.fsdecode(name)
        files.update(name + b"\0" + (path.read_bytes() if path.is_file() else b""))
    from importlib import metadata
    dists = sorted({f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions()})
    return {"commit": commit, "uncommitted changes": sha(changes),
            "untracked files": files.hexdigest()[:16],
            "python": sys.executable + " " + sys.version.split()[0],
            "packages": sha(dists),
            "variables": sha({k: os.environ.get(k) for k in ENV_KEYS})}


def prepare(book, root=ROOT) -> tuple[bool, str]:
    """Keep ``book``'s cache if a test run of this very tree filled it, else empty it.

    Returns (kept, why)."""
    cache = cache_dir(book)
    state_file = cache / STATE_FILE
    state = tree_state(root)
    if state is None:
        why = "not a git checkout"
    elif not state_file.is_file():
        why = "no test run recorded"
    else:
        recorded = json.loads(state_file.read_text()).get("state") or {}
        differ = [key for key in state if recorded.get(key) != state[key]]
        if not differ:
            return True, "filled by a test run of this tree"
        why = "the test run had other " + ", ".join(differ)
    shutil.rmtree(cache, ignore_errors=True)
    return False, why


def executed_notebook(path, outputs):
    """The page at ``path`` with the outputs of the test run: ``outputs[i]`` is the list of
    outputs of its ``i``-th code cell, as nbval collected them."""
    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    if len(code) != len(outputs):
        raise ValueError(f"{path}: {len(code)} code cells, outputs of {len(outputs)}")
    for count, (cell, outs) in enumerate(zip(code, outputs), start=1):
        cell.outputs = [nbformat.from_dict(dict(out)) for out in outs]
        cell.execution_count = count
        for out in cell.outputs:
            if out.output_type == "execute_result":
                out.execution_count = count
    nbformat.validate(nb)
    return nb


def add_to_cache(cache, path, nb, seconds):
    """Store the executed page ``nb`` (source ``path``) in the jupyter-cache ``cache``."""
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    get_cache(str(cache)).cache_notebook_bundle(
        CacheBundleIn(nb, str(Path(path).resolve()),
                      data={"execution_seconds": seconds, "executed_by": EXECUTED_BY}),
        check_validity=False, overwrite=True)


def reused(book) -> tuple[int, list[str]]:
    """After a build: (pages the test run executed, pages the book build executed)."""
    from jupyter_cache import get_cache

    cache = cache_dir(book)
    if not cache.is_dir():
        return 0, []
    records = get_cache(str(cache)).list_cache_records()
    ours = [r for r in records if r.data.get("executed_by") == EXECUTED_BY]
    return len(ours), sorted(r.uri for r in records if r not in ours)


# --- the pytest plugin (registered by tests/conftest.py) ----------------------------------
class PatientKernel:
    """Mixin for nbval's ``RunningKernel``: retry a kernel start that failed.

    Two kernels started at once can be handed the same free port; the loser dies with
    "Kernel died before replying to kernel_info" (jupyter_client picks the ports, closes them,
    and the kernel binds them later). A fresh start picks fresh ports."""
    attempts = 3

    def __init__(self, kernel_name, cwd=None, startup_timeout=60):
        for attempt in range(1, self.attempts + 1):
            try:
                super().__init__(kernel_name, cwd=cwd, startup_timeout=startup_timeout)
                return
            except RuntimeError as error:     # died, or no reply within the timeout
                if getattr(self, "km", None) is not None:
                    self.stop()
                if attempt == self.attempts:
                    raise
                sys.stderr.write(f"kernel start failed ({error}); attempt {attempt + 1} "
                                 f"of {self.attempts}\n")
                time.sleep(attempt)


def patient(running_kernel):
    """nbval's kernel class, retrying a failed start (:class:`PatientKernel`)."""
    return type("PatientRunningKernel", (PatientKernel, running_kernel), {})


class BookCachePlugin:
    """Collect what nbval executed; write every page whose cells all passed to the cache."""

    def __init__(self, config, cache):
        self.cache = Path(cache).resolve()
        self.staging = self.cache.parent / (self.cache.name + STAGING)
        self.worker = getattr(config, "workerinput", {}).get("workerid")
        self.pages = {}           # page path -> {cell number: (passed, outputs, seconds)}
        self.code_cells = {}      # page path -> number of code cells
        self.state = None
        if self.worker is None:   # the controller, or a run without workers
            shutil.rmtree(self.cache, ignore_errors=True)
            shutil.rmtree(self.staging, ignore_errors=True)
            self.state = tree_state()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if type(item).__name__ != "IPyNbCell" or report.when == "teardown":
            return
        if report.when == "setup" and report.passed:
            return                # the call's report follows
        page = Path(str(item.parent.fspath))
        self.code_cells[page] = sum(c.cell_type == "code" for c in item.parent.nb.cells)
        self.pages.setdefault(page, {})[item.cell_num] = (
            report.passed and item.test_outputs is not None, item.test_outputs,
            report.duration)

    def stage(self):
        """Write each fully passed page, executed, to this process's staging folder."""
        folder = self.staging / (self.worker or "main")
        for page, cells in self.pages.items():
            n = self.code_cells[page]
            if sorted(cells) != list(range(n)) or not all(c[0] for c in cells.values()):
                continue          # a cell failed, or did not run: the book executes the page
            nb = executed_notebook(page, [cells[i][1] for i in range(n)])
            folder.mkdir(parents=True, exist_ok=True)
            name = hashlib.sha256(str(page).encode()).hexdigest()[:16]
            (folder / f"{name}.json").write_text(json.dumps(
                {"path": str(page), "seconds": sum(c[2] for c in cells.values()), "nb": nb}))

    def collect(self):
        """Move every staged page into the cache; record the tree state if unchanged."""
        import nbformat

        count = 0
        for staged in sorted(self.staging.glob("*/*.json")):
            entry = json.loads(staged.read_text())
            add_to_cache(self.cache, entry["path"], nbformat.from_dict(entry["nb"]),
                         entry["seconds"])
            count += 1
        shutil.rmtree(self.staging, ignore_errors=True)
        if count and self.state is not None and tree_state() == self.state:
            (self.cache / STATE_FILE).write_text(json.dumps(
                {"state": self.state, "pages": count}))
        return count

    def pytest_sessionfinish(self, session):
        self.stage()
        if self.worker is None:   # after every worker staged its pages
            count = self.collect()
            reporter = session.config.pluginmanager.get_plugin("terminalreporter")
            if reporter is not None:
                reporter.write_line(f"book cache: {count} page(s) executed by this run "
                                    f"written to {self.cache}")


def pytest_addoption(parser):
    parser.addoption("--book-cache", default=None, metavar="DIR",
                     help="write every book page whose cells all passed under nbval, with "
                          "the outputs of this run, to the jupyter-cache DIR that `make book` "
                          "reads (tests/book_cache.py)")


def pytest_configure(config):
    """Patient kernel starts for nbval, and the book cache when ``--book-cache`` is given
    (the hooks of tests/conftest.py, or of ``-p book_cache``)."""
    try:
        from nbval import plugin as nbval_plugin
    except ImportError:
        return
    if not issubclass(nbval_plugin.RunningKernel, PatientKernel):
        nbval_plugin.RunningKernel = patient(nbval_plugin.RunningKernel)
    cache = config.getoption("book_cache", None)
    if cache:
        config.pluginmanager.register(BookCachePlugin(config, cache), "olearn-book-cache")


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["prepare", "reused"])
    parser.add_argument("book", type=Path)
    args = parser.parse_args(argv)
    if args.command == "prepare":
        kept, why = prepare(args.book)
        print(f"book cache {cache_dir(args.book)}: {'kept' if kept else 'emptied'} ({why})")
        return 0
    ours, executed = reused(args.book)
    print(f"book cache: {ours} page(s) executed once, by make test; "
          f"{len(executed)} executed again by the book build" + "".join(
              f"\n  {uri}" for uri in executed))
    return 1 if executed or not ours else 0


if __name__ == "__main__":
    sys.exit(main())
