"""What the command line does to start fast.

scikit-learn's ``sklearn.utils.fixes`` imports ``scipy.stats`` and
``pandas`` when any estimator module loads (0.31 s and 0.13 s of a 1.4 s
warm ``olearn train`` here); the command line uses neither.
:func:`deferred_imports` lets those imports bind a stand-in module whose
first attribute read imports the real one (so a code path that does use
them still works, only later), and takes the stand-ins out of
``sys.modules`` afterwards: a later ``import pandas`` imports pandas, and
scikit-learn's checks that look for pandas in ``sys.modules`` (is ``X`` a
DataFrame?) see that it is not loaded, which is true.

:func:`compile_ahead` is ``olearn compile``: it builds numba's on-disk cache
of the LIBSVM reader (and its survey) and of the named learners' passes (``fit`` and
``partial_fit`` on a few dense and CSR rows typed as the command line reads
them, then ``predict``), so that the first ``olearn train`` only loads them.
"""
import contextlib
import importlib
import importlib.machinery
import importlib.util
import sys
import time
import types

#: modules imported at start-up that the command line never uses: scikit-learn's
#: scipy.stats, pandas (sklearn.utils.fixes) and narwhals (sklearn.utils.validation)
DEFERRED = ("scipy.stats", "pandas", "narwhals", "narwhals.stable", "narwhals.stable.v2")

#: the stand-ins now in sys.modules
_placed = []


def _release(module=None):
    """Take the stand-ins of ``module``, of the packages above it and of the
    modules under it (None: all) out of ``sys.modules``, so that a real
    import of it finds none of them."""
    for stand_in in list(_placed):
        name = stand_in.__name__
        if module is None or name == module or module.startswith(name + ".") \
                or name.startswith(module + "."):
            _placed.remove(stand_in)
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]


class _Deferred(types.ModuleType):
    """Stands in for a module until one of its attributes is read."""

    def __getattr__(self, attr):
        _release(self.__dict__["__name__"])
        real = importlib.import_module(self.__dict__["__name__"])
        self.__dict__.update(real.__dict__)
        return getattr(real, attr)


def _spec(name):
    """The module's spec, found without importing its parent packages (whose
    stand-ins give the folders to search)."""
    parent, _, child = name.rpartition(".")
    try:
        stand_in = sys.modules.get(parent) if parent else None
        if isinstance(stand_in, _Deferred):
            folders = stand_in.__spec__.submodule_search_locations
            return importlib.machinery.PathFinder.find_spec(child, folders)
        return importlib.util.find_spec(name)  # imports a real parent (scipy: cheap)
    except (ImportError, ValueError):
        return None


@contextlib.contextmanager
def deferred_imports(names=DEFERRED):
    """Within the block, ``import NAME`` of each of ``names`` not yet imported
    binds a :class:`_Deferred` stand-in (a dotted name is also an attribute of
    its parent's stand-in: ``import narwhals.stable.v2 as nw`` binds one)."""
    for name in names:
        if name in sys.modules:
            continue
        spec = _spec(name)
        if spec is None:  # not installed: let the import fail as it would
            continue
        stand_in = _Deferred(name)
        stand_in.__spec__, stand_in.__loader__ = spec, spec.loader
        stand_in.__file__ = spec.origin
        parent, _, child = name.rpartition(".")
        if parent and isinstance(sys.modules.get(parent), _Deferred):
            sys.modules[parent].__dict__[child] = stand_in
        sys.modules[name] = stand_in
        _placed.append(stand_in)
    try:
        yield
    finally:
        _release()


def _tiny_files(folder):
    """A LIBSVM file (one token off the reader's exact path, so that every part
    of it compiles) and the CSV file of the same rows."""
    svm = folder / "tiny.svm"
    svm.write_text("1 1:0.5 3:1.25\n-1 2:0.1234567890123456789 3:2\n"
                   "1 1:1e-30 2:3\n-1 3:0.75\n")
    return svm


def compile_ahead(names, out):
    """Compile the reader and ``names``' passes into numba's cache; returns the
    names that failed (with their errors printed)."""
    import tempfile
    from pathlib import Path

    import numpy as np

    from olearn.datasets.libsvm import libsvm_survey, read_libsvm

    from ._learners import make_learner
    from ._train import row_block
    failed = []
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        path = _tiny_files(Path(folder))
        X, y = read_libsvm(path)
        libsvm_survey(path)  # what a streamed training file is read by before learning
        print(f"{'LIBSVM reader':<28} {time.perf_counter() - start:8.2f} s", file=out,
              flush=True)
    dense = np.ascontiguousarray(X.toarray())
    classes = np.unique(y)
    for name in names:
        start = time.perf_counter()
        try:
            for rows in (X, dense):
                est = make_learner(name, {})
                if hasattr(est, "partial_fit"):  # rows as the command line slices them
                    est.partial_fit(row_block(rows, 0, 2), y[:2], classes=classes)
                    est.partial_fit(row_block(rows, 2, 4), y[2:])
                    if "record" in est.get_params(deep=False):
                        make_learner(name, {"record": "counts"}).partial_fit(
                            rows, y, classes=classes)
                else:
                    est.fit(rows, y)
                est.predict(rows)
            if est.get_params(deep=False).get("covariance") == "full":  # and diagonal
                for rows in (X, dense):
                    diag = make_learner(name, {"covariance": "diag"})
                    diag.partial_fit(rows, y, classes=classes)
                    diag.predict(rows)
        except Exception as err:  # noqa: BLE001 - reported, the others go on
            failed.append(name)
            print(f"{name:<28} failed: {type(err).__name__}: {err}", file=out, flush=True)
            continue
        print(f"{name:<28} {time.perf_counter() - start:8.2f} s", file=out, flush=True)
    return failed
