"""Iterative parameter mixing (McDonald, Hall and Mann 2010) on a Dask cluster.

Each epoch every worker passes its shard once, in order, starting from the same mixed
model; the S models are mixed (:mod:`._mixing`) and the mix starts the next epoch.
With one shard nothing is mixed: the learner continues from its own state, so the
result equals ``learner.fit`` with the same epochs bit for bit.  With S shards the
result is a function of the shards, their order and the mixing rule only (the models
are gathered and mixed in shard order on the client, whatever worker ran a shard and
whenever it finished); a worker lost in the middle of an epoch costs the recomputation
of its shard's epoch from the same mixed model, so the final model is unchanged.
"""
import asyncio
import copy
import numbers
from concurrent.futures import CancelledError
import sys
import time

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import base as _base
from . import _mixing, _shards
from ._cluster import get_client

#: models larger than this are scattered rather than sent inside each task
_SCATTER_BYTES = 4 << 20

#: how to get rid of an empty shard, by where it comes from
_EMPTY_FIX = {
    "array": "remove it from the list of shards",
    "file": "remove it from the list of shards",
    "dask": "rechunk the rows of X and y so that no block is empty",
    "frame": ("drop the empty partitions before fit: keep = [k for k, n in "
              "enumerate(X.map_partitions(len).compute()) if n]; X = X.partitions[keep] "
              "(and y = y.partitions[keep] for a dask Series y)"),
}


def _epoch(learner, shard, classes, first):
    """One pass of a copy of ``learner`` over ``shard`` (on a worker): the learner, the
    mistakes and updates of the pass, and its seconds of compute.

    The first pass over a shard on its worker is ``partial_fit``, which checks the rows
    and labels; it leaves on the shard its labels encoded as +-1 for the classes, and
    the later epochs run the same compiled pass on them without checking the unchanged
    rows again (the checks cost a quarter of a Perceptron's pass over a shard of
    100,000 sparse rows).  A shard placed again after a lost worker is checked again."""
    learner = copy.deepcopy(learner)  # the scattered model is shared by the worker's tasks
    before = (0, 0) if first else (learner.n_mistakes_, learner.n_updates_)
    start = time.perf_counter()
    checked = getattr(shard, "checked", None)
    if first:
        learner.partial_fit(shard.X, shard.y, classes=classes)
    elif checked is not None and np.array_equal(checked[0], learner.classes_):
        learner._check_run_params()
        learner._guarded_run(shard.X, checked[1], fresh=False)   # as partial_fit does
    else:
        learner.partial_fit(shard.X, shard.y)
    seconds = time.perf_counter() - start
    if checked is None or not np.array_equal(checked[0], learner.classes_):
        if sp.issparse(shard.X) and not shard.X.has_canonical_format:
            shard.X = _base.canonical(shard.X)   # as partial_fit read it
        shard.checked = (learner.classes_.copy(), learner._encode(shard.y))
    return (learner, learner.n_mistakes_ - before[0], learner.n_updates_ - before[1],
            seconds)


def _lost(error):
    """Whether a task failed because the cluster lost something (not the learner)."""
    import asyncio
    from distributed.comm.core import CommClosedError
    from distributed.scheduler import KilledWorker
    return isinstance(error, (CancelledError, asyncio.CancelledError, KilledWorker,
                              CommClosedError, ConnectionError, TimeoutError))


class IterativeParameterMixing(ClassifierMixin, BaseEstimator):
    """Train a linear or second-order olearn learner on shards across a Dask cluster
    by iterative parameter mixing (McDonald, Hall and Mann, NAACL 2010, Figure 3).

    Parameters
    ----------
    learner : estimator, default=None (``Perceptron()``)
        A mixable olearn learner (weight vector: Perceptron, PA, NORMA; Gaussian:
        AROW, NAROW, CW, SCW, SOP), with ``n_epochs=1`` and ``shuffle=False``; it is
        cloned with ``record="counts"`` (the per-round record would cross the
        network every epoch).
    n_epochs : int, default=1
        Epochs: one pass of every shard, then one mixing.
    mixing : {"uniform", "mistakes", "confidence"}, default="uniform"
        ``"uniform"``: weights 1/S; ``"mistakes"``: weights proportional to the
        epoch's mistakes per shard (McDonald et al.'s error-weighted mixing);
        ``"confidence"`` (second-order learners): precisions averaged, means in
        precision weights (Dredze and Crammer's KL combination, as we read it).
    n_shards : int, default=1
        Only when ``X`` is one matrix: cut it into that many contiguous row blocks
        (the shards of the other forms :meth:`fit` accepts are given: list items,
        files, dask blocks or partitions).
    client : distributed.Client or None
        The cluster; else ``scheduler``, ``OLEARN_DASK_SCHEDULER``, the process's
        default client, or a LocalCluster of single-threaded worker processes.
    scheduler : str or None
        A scheduler address (``tcp://host:8786``).
    n_workers : int or None
        Workers of the LocalCluster started when no cluster is given (default: cores).
    file_format : {"auto", "libsvm", "csv"}, default="auto"
        Format of shards given as files.
    zero_based : {"auto", True, False}, default="auto"
        LIBSVM index convention of file shards, one for all: "auto" counts from 1
        unless an index 0 occurs in some shard (as ``load_svmlight_files``).
    n_features : int or None
        Width of file shards (default: the largest index over all the shards).
    progress : bool or callable, default=False
        True prints one line per epoch to stdout; a callable receives each line.
    max_retries : int, default=3
        Recomputations of a shard's epoch allowed after lost workers, per shard.

    Attributes
    ----------
    learner_ : the final mixed learner (``record="counts"``)
    coef_ : (1, n_features) array, the mixed weight vector (the mean for a Gaussian)
    n_mistakes_, n_updates_ : (n_epochs, S) int arrays, per epoch and shard
    mixing_weights_ : (n_epochs, S) float array
    epoch_seconds_ : (n_epochs, 3) array: wall, compute (slowest shard), communication
        (wall minus compute: scheduling, model transfer, mixing)
    n_recomputed_ : shard epochs recomputed after a lost worker
    """

    def __init__(self, learner=None, n_epochs=1, mixing="uniform", *, n_shards=1,
                 client=None, scheduler=None, n_workers=None, file_format="auto",
                 zero_based="auto", n_features=None, progress=False, max_retries=3):
        self.learner = learner
        self.n_epochs = n_epochs
        self.mixing = mixing
        self.n_shards = n_shards
        self.client = client
        self.scheduler = scheduler
        self.n_workers = n_workers
        self.file_format = file_format
        self.zero_based = zero_based
        self.n_features = n_features
        self.progress = progress
        self.max_retries = max_retries

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = True
        tags.non_deterministic = False
        return tags

    def __getstate__(self):
        state = dict(self.__dict__)
        state["client"] = None  # a connection is not pickled
        return state

    # -- checks ------------------------------------------------------------------
    def _template(self):
        from ..linear import Perceptron
        learner = Perceptron() if self.learner is None else self.learner
        for name in ("n_epochs", "n_shards", "max_retries"):
            value = getattr(self, name)
            low = 0 if name == "max_retries" else 1
            if (not isinstance(value, numbers.Integral) or isinstance(value, bool)
                    or value < low):
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")
        if not hasattr(learner, "partial_fit"):
            raise _mixing.UnmixableLearnerError(
                f"learner must be an olearn estimator, got {learner!r}.")
        _mixing.check_mixable(learner, self.mixing)
        if self.file_format not in ("auto", "libsvm", "csv"):
            raise ValueError(f"file_format must be 'auto', 'libsvm' or 'csv', got "
                             f"{self.file_format!r}.")
        from ..datasets.libsvm import check_zero_based
        check_zero_based(self.zero_based)
        if self.progress is not None and not (isinstance(self.progress, bool)
                                              or callable(self.progress)):
            raise ValueError(f"progress must be True, False or a callable, got "
                             f"{self.progress!r}.")
        learner = clone(learner)
        learner.set_params(record="counts")
        return learner

    def _sources(self, X, y):
        srcs = _shards.sources(X, y)
        if srcs is not None:
            return srcs
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the "
                             f"target y is None.")
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64,
                             reset=not hasattr(self, "learner_"))
        check_classification_targets(y)
        if self.n_shards > X.shape[0]:
            raise ValueError(f"n_shards={self.n_shards} is more than the {X.shape[0]} "
                             f"rows of X: a shard would be empty.")
        cuts = np.linspace(0, X.shape[0], self.n_shards + 1).round().astype(int)
        return [("array", (X[a:b], y[a:b]), f"rows {a}:{b}")
                for a, b in zip(cuts[:-1], cuts[1:])]

    def _check_shards(self, srcs, descs, width=None, classes=None):
        """Errors before any training; returns (shift, width, classes)."""
        from ..datasets.libsvm import shift_of
        name = type(self).__name__
        for (kind, _, where), desc in zip(srcs, descs):
            if desc["n_rows"] == 0:
                fix = _EMPTY_FIX["frame" if "dataframe" in where else kind]
                raise ValueError(f"{name}: {where} is empty (no rows); {fix}.")
            if desc["problem"]:
                raise ValueError(f"{name}: {where}: {desc['problem']}")
        libsvm = [d for d in descs if d["smallest"] is not None or (
            d["nnz"] == 0 and srcs[0][0] == "file")]
        shift = 0
        if srcs[0][0] == "file" and libsvm:
            shift = shift_of([(d["nnz"], d["smallest"] if d["smallest"] is not None
                               else 0) for d in libsvm], self.zero_based)
            widths = [d["largest"] + 1 - shift if d["largest"] is not None else 1
                      for d in descs]
            need = max(widths)
            width = width or self.n_features or need
            if width < need:
                k = int(np.argmax(widths))
                raise ValueError(
                    f"{name}: {srcs[k][2]} has {need} features, more than "
                    f"{'n_features' if self.n_features else 'the fitted width'}="
                    f"{width}; pass n_features >= {need} (or None).")
        else:
            widths = [d["width"] for d in descs]
            expected = width or widths[0]
            for (kind, _, where), w in zip(srcs, widths):
                if w != expected:
                    raise ValueError(
                        f"{name}: {where} has {w} features but "
                        f"{srcs[0][2] if width is None else 'the fitted model'} has "
                        f"{expected}; every shard must have the same columns (pad "
                        f"the narrower shards with zero columns, e.g. "
                        f"scipy.sparse.hstack, or pass the same n_features to each "
                        f"reader).")
            width = expected
        labels = np.unique(np.concatenate([d["labels"] for d in descs]))
        if classes is not None:
            unknown = np.setdiff1d(labels, classes)
            if unknown.size:
                raise ValueError(f"{name}: the shards have labels {unknown.tolist()} "
                                 f"that are not among the classes {classes.tolist()}.")
            if classes.size != 2:
                raise ValueError(f"{name} learns two classes, but classes has "
                                 f"{classes.size}: {classes.tolist()}.")
            return shift, width, classes
        if labels.size != 2:
            raise ValueError(f"Only binary classification is supported: {name} learns "
                             f"two classes, but the shards hold {labels.size} "
                             f"class{'es' if labels.size > 1 else ''}: {labels.tolist()}.")
        return shift, width, labels

    # -- training ----------------------------------------------------------------
    def fit(self, X, y=None):
        """Learn ``n_epochs`` epochs of IPM from the shards ``X``, in order.

        ``X`` is one of:

        - a list of arrays (dense or CSR), with ``y`` a list of label vectors;
        - a list of LIBSVM/CSV paths, read by the workers (``y=None``: the labels are
          in the files);
        - a dask array partitioned by rows (one shard per row block), with ``y`` a
          dask array or numpy vector of its labels;
        - a dask dataframe partitioned by rows (one shard per partition, numeric
          feature columns), with ``y`` the name of its label column
          (``fit(ddf, y="label")``, the column is not a feature) or a dask Series
          with the same partitions (``fit(ddf.drop(columns="label"), ddf["label"])``,
          as in Dask-ML); the partitions' lengths need not be known;
        - one matrix, cut into ``n_shards`` contiguous row blocks.

        A dask array's blocks and a dask dataframe's partitions are computed on the
        workers and stay there, as scattered arrays and files do; each epoch only the
        models cross the network."""
        template = self._template()
        for name in ("learner_", "classes_", "n_features_in_"):
            self.__dict__.pop(name, None)
        return self._train(template, X, y, self.n_epochs, first=True)

    def partial_fit(self, X, y=None, classes=None):
        """One more epoch on the shards ``X`` (any form :meth:`fit` accepts) from the
        current mixed model (the first call starts from the learner's initial model;
        ``classes``, the two labels, may then be given when the shards hold only
        one)."""
        if not hasattr(self, "learner_"):
            return self._train(self._template(), X, y, 1, first=True, classes=classes)
        self._template()
        if classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(f"classes={np.unique(classes).tolist()} differs from the "
                             f"fitted classes {self.classes_.tolist()}.")
        return self._train(self.learner_, X, y, 1, first=False)

    def _train(self, current, X, y, n_epochs, first, classes=None):
        srcs = self._sources(X, y)
        client = get_client(self.client, self.scheduler, self.n_workers)
        placement = _shards.Placement(client, srcs, self.file_format)
        try:
            descs = placement.load()
            known = self.classes_ if not first else (
                None if classes is None else np.unique(classes))
            shift, width, classes = self._check_shards(
                srcs, descs, None if first else self.n_features_in_, known)
            placement.finish(shift, width)
            self._run(client, placement, current, classes, n_epochs, first)
        finally:
            placement.release()
        return self

    def _run(self, client, placement, current, classes, n_epochs, first):
        S = len(placement.srcs)
        history = dict(mistakes=[], updates=[], weights=[], seconds=[])
        recomputed = 0
        for epoch in range(n_epochs):
            start = time.perf_counter()
            # a small model rides inside the tasks (one message each); a large one is
            # scattered once and fetched by the workers from each other
            big = _mixing.n_numbers(current) * 8 > _SCATTER_BYTES if not first else False
            state = {"model": client.scatter([current], hash=False)[0] if big
                     else current}

            def submit(k, state=state, first=first, big=big):
                if big and state["model"].status != "finished":
                    state["model"] = client.scatter([current], hash=False)[0]
                shard = placement.futures[k]
                if shard is None or shard.status != "finished":
                    shard = placement.place(k)
                return client.submit(_epoch, state["model"], shard, classes, first,
                                     pure=False)

            # all the shards' tasks in one message to the scheduler (one submit each
            # would wait out the client's 10 ms batching interval after the first)
            shards = [placement.futures[k] for k in range(S)]
            if all(f is not None and f.status == "finished" for f in shards) and not big:
                futures = client.map(_epoch, [current] * S, shards, classes=classes,
                                     first=first, pure=False)
            else:
                futures = [submit(k) for k in range(S)]
            results, n_redo = self._collect(client, futures, submit)
            recomputed += n_redo
            learners, mistakes, updates, compute = map(list, zip(*results))
            if S == 1:
                mu = np.ones(1)
                current = learners[0]
            else:
                mu = _mixing.weights(self.mixing, mistakes)
                mixed = _mixing.mix([_mixing.model_of(a) for a in learners], mu,
                                    self.mixing)
                previous = (0, 0, 0) if first else (current.n_rounds_,
                                                    current.n_mistakes_,
                                                    current.n_updates_)
                current = _mixing.set_model(learners[0], mixed)
                current.n_rounds_ = previous[0] + sum(int(a.n_rounds_) - previous[0]
                                                      for a in learners)
                current.n_mistakes_ = previous[1] + sum(mistakes)
                current.n_updates_ = previous[2] + sum(updates)
                current._check_model()
            wall = time.perf_counter() - start
            seconds = (wall, max(compute), wall - max(compute))
            for key, value in zip(history, (mistakes, updates, mu, seconds)):
                history[key].append(value)
            self._report(epoch, n_epochs, mistakes, mu, seconds)
            first = False
        self._store(current, classes, history, recomputed)

    def _collect(self, client, futures, submit):
        """The results in shard order (the finished ones fetched together, one round
        trip); a task lost with its worker is submitted again."""
        from distributed import wait
        results = [None] * len(futures)
        pending = dict(enumerate(futures))
        tries = dict.fromkeys(pending, 0)
        redone = 0
        while pending:
            try:
                wait(list(pending.values()))
            except CancelledError:   # a lost task; the others may still run
                pass
            done = [k for k, future in pending.items() if future.status == "finished"]
            if done:
                try:
                    values = client.gather([pending[k] for k in done])
                except (Exception, asyncio.CancelledError):  # noqa: BLE001
                    values = None   # one was lost on the way: one by one below
                if values is not None:
                    for k, value in zip(done, values):
                        results[k] = value
                        del pending[k]
            for k, future in list(pending.items()):
                if future.status == "pending":
                    continue
                try:   # a finished result can still be lost before it is fetched
                    results[k] = future.result()
                    del pending[k]
                    continue
                except (Exception, asyncio.CancelledError) as error:  # noqa: BLE001
                    if not _lost(error):
                        raise   # the learner's own error
                tries[k] += 1
                if tries[k] > self.max_retries:
                    raise RuntimeError(
                        f"{type(self).__name__}: shard {k}'s epoch failed "
                        f"{tries[k]} times on the cluster (workers lost); check the "
                        f"workers' logs, or raise max_retries.")
                redone += 1
                pending[k] = submit(k)
        return results, redone

    def _report(self, epoch, n_epochs, mistakes, mu, seconds):
        if not self.progress:
            return
        line = (f"epoch {epoch + 1}/{n_epochs}: mistakes per shard "
                f"{[int(m) for m in mistakes]} (total {int(sum(mistakes))}), weights "
                f"[{', '.join(f'{m:.3f}' for m in mu)}], compute {seconds[1]:.3f} s, "
                f"communication {seconds[2]:.3f} s")
        if callable(self.progress):
            self.progress(line)
        else:
            print(line, file=sys.stdout, flush=True)

    def _store(self, learner, classes, history, recomputed):
        new = lambda key, dtype: np.asarray(history[key], dtype=dtype)  # noqa: E731
        old = {k: getattr(self, k) for k in ("n_mistakes_", "n_updates_",
                                             "mixing_weights_", "epoch_seconds_")
               if hasattr(self, "learner_")}
        parts = dict(n_mistakes_=new("mistakes", np.int64),
                     n_updates_=new("updates", np.int64),
                     mixing_weights_=new("weights", np.float64),
                     epoch_seconds_=new("seconds", np.float64))
        for key, value in parts.items():
            if key in old and old[key].shape[1:] == value.shape[1:]:
                value = np.concatenate([old[key], value])
            setattr(self, key, value)
        self.n_recomputed_ = getattr(self, "n_recomputed_", 0) * bool(old) + recomputed
        self.learner_ = learner
        self.classes_ = learner.classes_
        self.n_features_in_ = learner.n_features_in_

    # -- the model ---------------------------------------------------------------
    @property
    def coef_(self):
        check_is_fitted(self, "learner_")
        return self.learner_.coef_

    def _rows(self, X):
        check_is_fitted(self, "learner_")
        return validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)

    def decision_function(self, X):
        """Scores of the rows of ``X`` under the mixed model (> 0: ``classes_[1]``)."""
        X = self._rows(X)
        return self.learner_.decision_function(X)

    def predict(self, X):
        """Labels of the rows of ``X`` under the mixed model."""
        X = self._rows(X)
        return self.learner_.predict(X)
