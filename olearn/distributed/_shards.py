"""Shards: where the rows come from, how they are placed on the workers, and the
checks made on them before any training.

A shard is placed once per ``fit``/``partial_fit`` call and stays on its worker: an
in-memory array is scattered to it, a file is read by the worker itself, a block of a
dask array or a partition of a dask dataframe is computed there.  Only the models cross
the network after that.  If the worker holding a shard is lost, :meth:`Placement.place`
puts the shard again (from the client's array, the file, or the dask graph) on a live
worker.
"""
import os
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp


class Shard:
    """The rows of one shard on a worker (``X`` float64 dense or canonical CSR)."""

    def __init__(self, X, y, smallest=None, largest=None):
        self.X, self.y = X, y
        self.smallest, self.largest = smallest, largest  # raw LIBSVM indices


def _as_rows(X):
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        return X
    return np.ascontiguousarray(np.asarray(X, dtype=np.float64))


def make_shard(X, y):
    """A :class:`Shard` of arrays (run on a worker for a dask block or partition).

    ``X`` may be a pandas DataFrame (a partition of a dask dataframe), with ``y`` its
    labels or the name of its label column (then dropped from the features)."""
    if isinstance(y, str):
        X, y = X.drop(columns=[y]), X[y]
    if hasattr(X, "to_numpy") and not sp.issparse(X):   # a pandas DataFrame
        try:
            X = X.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError) as err:
            raise ValueError(
                f"a partition of the dask dataframe has values that are not numbers "
                f"({err}); encode or drop the non-numeric columns before fit (e.g. "
                f"dd.get_dummies, or X.astype(float) where the strings are numbers)."
            ) from None
    y = np.asarray(y).ravel()
    return Shard(_as_rows(X), y)


def read_file(path, fmt):
    """A :class:`Shard` of a LIBSVM or CSV file, read by the worker; LIBSVM indices are
    kept as in the file until the convention of all the shards is known."""
    from ..cli._data import InputFile, file_format
    path = Path(path)
    fmt = file_format(path, fmt)
    if fmt == "libsvm":
        from ..datasets.libsvm import _read_bytes, parse_block
        block = parse_block(_read_bytes(path), path, "auto")
        X = sp.csr_matrix((block.data, block.indices, block.indptr),
                          shape=(block.n_rows, block.largest + 1 if block.nnz else 1))
        return Shard(X, block.labels, block.smallest if block.nnz else None,
                     block.largest if block.nnz else None)
    parts = list(InputFile(path, "csv", "shard")._csv_blocks())
    if not parts:
        return Shard(np.zeros((0, 0)), np.zeros(0))
    return Shard(np.vstack([p[0] for p in parts]), np.concatenate([p[1] for p in parts]))


def describe(shard):
    """What the client checks before training: rows, width, labels, LIBSVM indices,
    and the first problem with the values (or None)."""
    from .._checks import check_values
    problem = None
    if shard.X.shape[0] != shard.y.shape[0]:
        problem = (f"X has {shard.X.shape[0]} rows but y has {shard.y.shape[0]} labels")
    else:
        try:
            check_values(shard.X, row_norms=True)
        except ValueError as err:
            problem = str(err)
    return dict(n_rows=int(shard.X.shape[0]), width=int(shard.X.shape[1]),
                labels=np.unique(shard.y), smallest=shard.smallest,
                largest=shard.largest, nnz=int(sp.csr_matrix(shard.X).nnz)
                if sp.issparse(shard.X) else None, problem=problem)


def finalize(shard, shift, width):
    """The shard as the learners read it: LIBSVM indices moved down by ``shift``
    (0 or 1) and ``width`` columns (CSR of fewer columns is widened, no copy)."""
    X = shard.X
    if sp.issparse(X):
        indices = X.indices - shift if shift else X.indices
        X = sp.csr_matrix((X.data, indices, X.indptr), shape=(X.shape[0], width))
    return Shard(X, np.asarray(shard.y, dtype=np.float64) if shard.y.dtype.kind in "biuf"
                 else shard.y)


def _numeric(dtype):
    """Whether a column of this dtype converts to float64 as a number (bool, integer,
    float, pandas' nullable numbers)."""
    return getattr(dtype, "kind", "O") in "biuf"


def frame_sources(X, y):
    """One shard per partition of the dask dataframe ``X``, in partition order; ``y``
    the name of its label column, or a dask Series partitioned as ``X``.

    Checked on the client, from the frame's metadata (nothing is computed): the label
    column exists, the feature columns are numbers, ``y`` has ``X``'s partitions.  The
    partitions' lengths need not be known: each is measured on its worker, with its
    labels and values, before any training (an empty one is refused then)."""
    dd = sys.modules["dask.dataframe"]
    label = None
    fix_pair = ("pass y='label' (the name of X's label column), or X and y from one "
                "dask dataframe: X = ddf.drop(columns='label'), y = ddf['label']")
    if isinstance(y, str):
        if y not in X.columns:
            raise ValueError(
                f"y={y!r} is not a column of the dask dataframe X (its columns: "
                f"{list(map(str, X.columns))}); pass the name of the label column as "
                f"y, or y as a dask Series partitioned as X.")
        label, features = y, X.drop(columns=[y])
    elif isinstance(y, dd.Series):
        if y.npartitions != X.npartitions:
            raise ValueError(
                f"y has {y.npartitions} partitions but the dask dataframe X has "
                f"{X.npartitions}: one shard is one partition of X with the labels "
                f"of the same partition of y; {fix_pair}.")
        if X.known_divisions and y.known_divisions and X.divisions != y.divisions:
            raise ValueError(
                f"y's partitions do not cover the same index ranges as X's "
                f"(divisions differ); {fix_pair}.")
        features = X
    else:
        raise ValueError(
            f"with a dask dataframe X, y must be the name of its label column "
            f"(e.g. fit(ddf, y='label')) or a dask Series partitioned as X, got "
            f"{type(y).__name__}.")
    if len(features.columns) == 0:
        raise ValueError("the dask dataframe X has no feature column (besides the "
                         "label); pass the features as columns of X.")
    bad = [f"{c!s} ({dt})" for c, dt in features.dtypes.items() if not _numeric(dt)]
    if bad:
        raise ValueError(
            f"the dask dataframe X has non-numeric columns: {', '.join(bad)}; "
            f"encode them as numbers (e.g. dd.get_dummies for categories) or drop "
            f"them before fit (X.drop(columns=[...])).")
    if label is not None:   # one graph per partition: the partition is read once
        parts = X.to_delayed()
        payloads = [(part, label) for part in parts]
    else:                    # unoptimized: X's and y's common source keys are shared
        payloads = list(zip(X.to_delayed(optimize_graph=False),
                            y.to_delayed(optimize_graph=False)))
    return [("dask", payload, f"partition {k} of the dask dataframe")
            for k, payload in enumerate(payloads)]


def sources(X, y):
    """The shards of ``X`` (and ``y``) as ``(kind, payload, name)`` triples, or None when
    ``X`` is one matrix (not a list of shards)."""
    dd = sys.modules.get("dask.dataframe")   # a dask dataframe X has imported it
    if dd is not None and isinstance(X, dd.Series):
        raise ValueError("X is a dask Series: pass the features as a dask dataframe "
                         "(X.to_frame() for one feature).")
    if dd is not None and isinstance(X, dd.DataFrame):
        if y is None:
            raise ValueError(
                "y is needed with a dask dataframe X: the name of its label column "
                "(e.g. fit(ddf, y='label')) or a dask Series partitioned as X.")
        return frame_sources(X, y)
    try:
        import dask.array as da
    except ModuleNotFoundError:  # pragma: no cover - dask is a dependency here
        da = None
    if da is not None and isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"a dask array of shards must be 2-D, got {X.ndim}-D.")
        if y is None:
            raise ValueError("y is needed with a dask array X (a dask array or a "
                             "numpy vector of its labels).")
        X = X.rechunk({1: -1})
        y = da.asarray(y).rechunk((X.chunks[0],))
        xb, yb = X.to_delayed().ravel(), y.to_delayed().ravel()
        return [("dask", (a, b), f"block {k} of the dask array")
                for k, (a, b) in enumerate(zip(xb, yb))]
    if not isinstance(X, (list, tuple)) or not X:
        return None
    if all(isinstance(x, (str, os.PathLike)) for x in X):
        if y is not None:
            raise ValueError("with shards given as files, the labels are in the files: "
                             "pass y=None.")
        return [("file", Path(x), str(x)) for x in X]
    if all(sp.issparse(x) or (isinstance(x, np.ndarray) and x.ndim == 2) for x in X):
        if y is None or not isinstance(y, (list, tuple)) or len(y) != len(X):
            raise ValueError(
                f"X is a list of {len(X)} shards: y must be a list of as many label "
                f"vectors, got {type(y).__name__}"
                f"{'' if not isinstance(y, (list, tuple)) else ' of ' + str(len(y))}.")
        return [("array", (x, yk), f"shard {k}") for k, (x, yk) in enumerate(zip(X, y))]
    return None


class Placement:
    """The shards of one call on the cluster: futures of :class:`Shard` objects."""

    def __init__(self, client, srcs, fmt="auto"):
        self.client, self.srcs, self.fmt = client, srcs, fmt
        self.raw = [None] * len(srcs)
        self.futures = [None] * len(srcs)
        self.shift, self.width = 0, None
        self.replaced = 0

    def _workers(self):
        workers = sorted(self.client.ncores())   # asks the scheduler (no cached view)
        if not workers:   # e.g. restarting after a loss: wait a little
            try:
                self.client.wait_for_workers(1, timeout=30)
            except TimeoutError:
                return []
            workers = sorted(self.client.ncores())
        return workers

    def _raw(self, k, worker=None):
        kind, payload, _ = self.srcs[k]
        c = self.client
        opts = dict(workers=[worker], allow_other_workers=True) if worker else {}
        if kind == "array":
            shard = make_shard(*payload)
            return c.scatter([shard], hash=False, **({"workers": [worker]}
                                                     if worker else {}))[0]
        if kind == "file":
            return c.submit(read_file, str(payload), self.fmt, pure=False, **opts)
        import dask
        return c.compute(dask.delayed(make_shard)(*payload), **opts)

    def load(self):
        """Put every shard on a worker (round robin); return their descriptions."""
        workers = self._workers()
        if not workers:
            raise RuntimeError("the Dask cluster has no worker: start one with "
                               "`dask worker ADDRESS`.")
        for k in range(len(self.srcs)):
            self.raw[k] = self._raw(k, workers[k % len(workers)])
        return self.client.gather([self.client.submit(describe, f, pure=False)
                                   for f in self.raw])

    def finish(self, shift, width):
        """Shift LIBSVM indices and set the width, on the workers; drop the raw shards."""
        self.shift, self.width = shift, width
        self.futures = [self.client.submit(finalize, f, shift, width, pure=False)
                        for f in self.raw]
        from distributed import wait
        wait(self.futures)
        for f in self.futures:
            if f.status == "error":
                f.result()  # raises the worker's error
        self.raw = [None] * len(self.srcs)

    def place(self, k):
        """Put shard ``k`` again (its worker was lost); returns its new future."""
        raw = self._raw(k)
        self.futures[k] = self.client.submit(finalize, raw, self.shift, self.width,
                                             pure=False)
        self.replaced += 1
        return self.futures[k]

    def release(self):
        for f in self.futures + self.raw:
            if f is not None:
                f.release()
        self.futures = [None] * len(self.srcs)
