"""``olearn train``: check what can be, then learn the file in chunks, then test and save.

The order is what keeps a mistake from costing a run: the learner and its
parameters, the options and the output paths are checked before any file is
read; before the first update the labels and widths of every input file
are known and checked (a third label, a test file wider than the training
file, the memory a full covariance needs).  A streamed LIBSVM training file
is surveyed for them (:meth:`~olearn.cli._data.InputFile.survey`, the values
not parsed) and its values are checked as they are learned: a bad line
stops the command before anything is written, since the model and the
record are saved only after the last epoch.  Every other input file is read
once in full first (:meth:`~olearn.cli._data.InputFile.scan`).  The model is
saved before the test file is scored.
"""
import time

import numpy as np

from ._data import InputFile
from ._learners import (UsageError, check_learner, check_memory, choose_record,
                        make_learner, parse_params)
from ._model import ModelFileError, save_model
from ._outputs import OutputPathError, check_outputs, write_atomically

FIRST_CHUNK = 1024
#: rows of the first chunk the learner's compiled code is prepared on (a copy of the learner)
WARM_UP_ROWS = 2


def chunks(n, largest):
    """Row ranges of sizes 1024, 2048, ... up to ``largest``, then ``largest``."""
    start, size = 0, min(FIRST_CHUNK, largest)
    while start < n:
        yield start, min(n, start + size)
        start += size
        size = min(2 * size, largest)


def row_block(X, a, b):
    """Rows ``a`` to ``b - 1`` of ``X`` without copying its values: a CSR
    matrix whose ``data`` and ``indices`` are views of ``X``'s (scipy's
    slicing and constructor copy them, and narrow int64 indices to int32:
    78 ms for 65,536 rows of the sparse benchmark file, about the time the
    learner takes on them); a view of a dense array."""
    import scipy.sparse as sp
    if not sp.issparse(X):
        return X[a:b]
    lo, hi = int(X.indptr[a]), int(X.indptr[b])
    block = type(X)((b - a, X.shape[1]), dtype=X.dtype)
    block.data, block.indices = X.data[lo:hi], X.indices[lo:hi]
    block.indptr = X.indptr[a:b + 1] - X.indptr[a]
    return block


def stream_chunks(blocks, largest):
    """``(X, y)`` chunks of 1024, 2048, ... up to ``largest`` rows from the
    blocks of a file (a chunk ends at a block's end: the pass is the same)."""
    size = min(FIRST_CHUNK, largest)
    for X, y in blocks:
        a = 0
        while a < X.shape[0]:
            b = min(X.shape[0], a + size)
            yield row_block(X, a, b), y[a:b]
            a = b
            size = min(2 * size, largest)


def shuffled_chunks(X, y, order, largest):
    for a, b in chunks(X.shape[0], largest):
        yield X[order[a:b]], y[order[a:b]]


def counts(est):
    return (getattr(est, "n_rounds_", 0), getattr(est, "n_mistakes_", 0),
            getattr(est, "n_updates_", 0))


class Progress:
    """One line after each chunk (none with ``--quiet``)."""

    def __init__(self, quiet, out):
        self.quiet, self.out = quiet, out
        if not quiet:
            print(f"{'epoch':>5} {'rows':>12} {'mistakes':>10} {'rate':>8} "
                  f"{'updates':>10} {'seconds':>9}", file=out, flush=True)

    def line(self, epoch, est, seconds):
        if self.quiet:
            return
        rounds, mistakes, updates = counts(est)
        rate = mistakes / rounds if rounds else 0.0
        print(f"{epoch:>5} {rounds:>12,} {mistakes:>10,} {rate:>8.2%} {updates:>10,} "
              f"{seconds:>9.3f}", file=self.out, flush=True)


class Timer:
    """Seconds spent learning (``partial_fit``) and preparing the compiled code."""

    def __init__(self):
        self.learn = self.compile = 0.0


def prepare(est, X, y, classes, timer):
    """Build (or load from numba's cache) the learner's compiled code on a
    copy of it and the first rows, so that the seconds of learning are the
    learning's.  A copy: the learner itself starts from its first row."""
    from sklearn.base import clone
    start = time.perf_counter()
    n = min(WARM_UP_ROWS, X.shape[0])
    clone(est).partial_fit(row_block(X, 0, n), y[:n], classes=classes)
    timer.compile += time.perf_counter() - start


def learn_online(est, epochs, classes, args, out, timer):
    """``partial_fit`` on every chunk of every epoch; ``epochs()`` yields,
    per epoch, the chunks and the row order (None for file order)."""
    progress = Progress(args.quiet, out)
    for epoch, (chunk_iter, _) in enumerate(epochs(), start=1):
        for k, (X, y) in enumerate(chunk_iter):
            if epoch == 1 and k == 0:
                prepare(est, X, y, classes, timer)
            start = time.perf_counter()
            est.partial_fit(X, y, classes=classes)
            timer.learn += time.perf_counter() - start
            progress.line(epoch, est, timer.learn)


def record_rows(orders, n_rows):
    return np.concatenate([np.arange(n_rows) if order is None else order
                           for order in orders])


def save_record(f, est, rows):
    record = {"rows": rows}
    for name in ("mistakes_", "margins_"):
        try:
            record[name.rstrip("_")] = getattr(est, name)
        except AttributeError:  # a learner without that record
            pass
    rounds, mistakes, updates = counts(est)
    np.savez(f, n_rounds=rounds, n_mistakes=mistakes, n_updates=updates, **record)


def _zero_based(text):
    return {"auto": "auto", "true": True, "false": False}[text]


def check_options(args):
    if args.stream and args.shuffle:
        raise UsageError("--shuffle holds the whole file in memory, --stream reads it "
                         "in blocks: choose one")
    if args.stream and args.in_memory:
        raise UsageError("--in-memory keeps the whole file, --stream reads it in blocks: "
                         "choose one (streaming is the default)")
    if args.random_state is not None and not args.shuffle:
        raise UsageError("--random-state sets the order --shuffle draws: add --shuffle, "
                         "or leave --random-state out (without --shuffle the rows are "
                         "learned in file order)")


def check_widths(args, train_file, test_file, shift):
    width = train_file.width(shift)
    if train_file.format == "csv" and args.n_features not in (None, width):
        raise UsageError(f"{train_file.path}: a CSV file has {width:,} features (its "
                         "columns after the label); --n-features is for LIBSVM files: "
                         "leave it out")
    if args.n_features is not None and args.n_features < width:
        raise UsageError(f"{train_file.path}: {width:,} features (its largest index), more "
                         f"than --n-features {args.n_features}: pass --n-features {width} "
                         "or more, or leave it out")
    n_features = args.n_features or width
    if test_file is not None:
        test_width = test_file.width(shift)
        if test_file.format == "csv" or train_file.format == "csv":
            if test_width != n_features:
                raise UsageError(f"{test_file.path}: {test_width:,} features, the "
                                 f"training file {n_features:,}; the test file must have "
                                 "the training file's columns")
        elif test_width > n_features:
            raise UsageError(f"{test_file.path}: {test_width:,} features (its largest "
                             f"index), the training file only {n_features:,}: pass "
                             f"--n-features {test_width} so that the model scores them "
                             "(a feature never seen in training adds nothing)")
    return n_features


def check_labels(train_file, test_file):
    labels = train_file.labels
    if labels.size != 2:
        shown = ", ".join(f"{v:g}" for v in labels[:10])
        raise UsageError(f"{train_file.path}: {labels.size} distinct labels ({shown}"
                         f"{', ...' if labels.size > 10 else ''}); olearn's learners are "
                         "binary (two labels)")
    if test_file is not None:
        extra = np.setdiff1d(test_file.labels, labels)
        if extra.size:
            raise UsageError(
                f"{test_file.path}: labels {', '.join(f'{v:g}' for v in extra[:10])} are "
                f"not among the training labels ({labels[0]:g}, {labels[1]:g}); every such "
                "row would count as an error: relabel the test file as the training file")
    return labels


def train(args, out):
    params = parse_params(args.param)
    est = make_learner(args.learner, params)
    record = choose_record(est, params, bool(args.save_record))
    check_learner(args.learner, est)
    check_options(args)
    try:
        check_outputs({"--save-model": args.save_model, "--save-record": args.save_record},
                      [args.file, args.test])
    except OutputPathError as err:
        raise UsageError(str(err)) from None
    online = hasattr(est, "partial_fit")
    if not online:
        batch_params(est, args)
    zero_based = _zero_based(args.zero_based)

    start = time.perf_counter()
    train_file = InputFile(args.file, args.format, "training file")
    test_file = InputFile(args.test, args.format, "test file") if args.test else None
    left = memory_left() if args.in_memory else None
    for f in (train_file, test_file):
        if f is None:
            continue
        keep = args.in_memory and (left is None or f.estimated_memory() < left / 2)
        if (f is train_file and f.format == "libsvm" and online and not keep
                and not args.shuffle):
            f.survey(zero_based)  # streamed: its values are checked as they are learned
        else:  # streamed unless --in-memory asks (and the file fits)
            f.scan(zero_based, keep=keep)
    shift = train_file.shift(zero_based, [test_file] if test_file else [])
    n_features = check_widths(args, train_file, test_file, shift)
    classes = check_labels(train_file, test_file)
    check_memory(args.learner, est, n_features)
    checked_s = time.perf_counter() - start
    kind = "LIBSVM" if train_file.format == "libsvm" else "CSV"
    print(f"{est!r} on {args.file} ({kind}): {train_file.n_rows:,} rows x "
          f"{n_features:,} features (checked in {checked_s:.3f} s)", file=out, flush=True)

    timer = Timer()
    try:
        orders = run_learning(est, train_file, zero_based, shift, n_features, classes,
                              args, out, timer, online)
    except MemoryError as err:
        hint = (" (--shuffle holds the whole file in memory: leave it out to stream "
                "the file)" if args.shuffle else "")
        raise UsageError(f"{args.learner}: out of memory{hint}: {err}. A second-order "
                         "learner keeps a d x d covariance unless --param "
                         "covariance=diag") from None
    except (ValueError, TypeError) as err:  # the estimator's own validation
        raise UsageError(f"{args.learner}: {err}") from None
    total = time.perf_counter() - start
    rounds, mistakes, updates = counts(est)
    summary = ""
    if rounds:
        summary = (f"{rounds:,} rounds, {mistakes:,} mistakes ({mistakes / rounds:.2%}), "
                   f"{updates:,} updates, ")
    other = max(total - checked_s - timer.learn - timer.compile, 0.0)
    print(summary + f"learned in {timer.learn:.3f} s (besides: checking the files "
          f"{checked_s:.3f} s, compiling or loading the compiled code "
          f"{timer.compile:.3f} s, reading {other:.3f} s); total {total:.3f} s",
          file=out, flush=True)
    if args.save_model:
        reading = {"format": train_file.format, "shift": shift, "n_features": n_features}
        save(args.save_model, "--save-model", lambda f: save_model(f, est, reading))
        kept = ("" if record is None else " with the per-round record" if record == "full"
                else " (counts only, no per-round record: --save-record keeps it)")
        print(f"model saved to {args.save_model}{kept}", file=out)
    if args.save_record:
        rows = record_rows(orders, train_file.n_rows)
        save(args.save_record, "--save-record", lambda f: save_record(f, est, rows))
        print(f"record saved to {args.save_record}", file=out)
    if test_file is not None:
        score_test(est, test_file, zero_based, shift, n_features, args, out)
    return est


def save(path, option, write):
    try:
        write_atomically(path, write)
    except ModelFileError as err:  # an attribute only pickle stores: the old file kept
        raise UsageError(f"{option} {path}: {err}") from None
    except OSError as err:  # a full disk, a folder removed meanwhile: the old file kept
        raise UsageError(f"{option} {path}: cannot write it ({err.strerror or err}); "
                         "any previous file there is unchanged") from None


def batch_params(est, args):
    """A learner without ``partial_fit`` takes the epochs and the shuffle as
    its own parameters; refuse options it has no parameter for."""
    valid = est.get_params(deep=False)
    wanted = {"n_epochs": args.n_epochs, "shuffle": args.shuffle,
              "random_state": args.random_state}
    defaults = {"n_epochs": 1, "shuffle": False, "random_state": None}
    for key, value in wanted.items():
        if value != defaults[key]:
            if key not in valid:
                raise UsageError(f"{args.learner} has no partial_fit and no {key} "
                                 f"parameter: leave --{key.replace('_', '-')} out")
            est.set_params(**{key: value})


def memory_left():
    """Bytes this process may still allocate: the memory available (Linux's
    ``MemAvailable``), or less under an address-space limit (``ulimit -v``)."""
    import resource

    from olearn._checks import available_memory
    left = available_memory()
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        try:
            with open("/proc/self/status") as f:
                used = next(int(line.split()[1]) * 1024 for line in f
                            if line.startswith("VmSize:"))
        except (OSError, StopIteration):
            used = 0
        left = soft - used if left is None else min(left, soft - used)
    return left


def check_fits(train_file, args):
    """Refuse before learning to read into memory a file that cannot fit there."""
    need, left = train_file.memory_needed(), memory_left()
    if left is not None and need > left:
        why = ("--shuffle holds the whole file in memory: leave it out to stream the "
               "file" if args.shuffle else
               f"{args.learner} has no partial_fit: it learns the whole file at once; "
               "choose a learner with partial_fit to stream the file")
        raise UsageError(f"{train_file.path}: about {need / 2**30:.1f} GiB in memory, "
                         f"{max(left, 0) / 2**30:.1f} GiB available; {why}")


def run_learning(est, train_file, zero_based, shift, n_features, classes, args, out,
                 timer, online):
    """The passes; returns the row order of every epoch (None: file order)."""
    if args.shuffle or not online:
        check_fits(train_file, args)
    if not online:
        X, y = train_file.read_all(zero_based, shift, n_features)
        print(f"{args.learner} has no partial_fit: one fit on the whole file "
              "(its seconds include compiling)", file=out)
        start = time.perf_counter()
        est.fit(X, y)
        timer.learn += time.perf_counter() - start
        return [None] * args.n_epochs
    orders = []
    if args.shuffle:
        X, y = train_file.read_all(zero_based, shift, n_features)
        rng = np.random.default_rng(args.random_state)

        def epochs():
            for _ in range(args.n_epochs):
                order = rng.permutation(X.shape[0])
                orders.append(order)
                yield shuffled_chunks(X, y, order, args.chunk_size), order
    else:
        def epochs():
            for _ in range(args.n_epochs):
                orders.append(None)
                yield stream_chunks(train_file.blocks(zero_based, shift, n_features),
                                    args.chunk_size), None
    learn_online(est, epochs, classes, args, out, timer)
    return orders


def score_test(est, test_file, zero_based, shift, n_features, args, out):
    wrong = 0
    try:
        for X, y in test_file.blocks(zero_based, shift, n_features):
            wrong += int(np.sum(est.predict(X) != y))
    except (ValueError, TypeError) as err:
        raise UsageError(f"{args.learner} on the test file: {err} (the model is saved "
                         "if --save-model was given)") from None
    n = test_file.n_rows
    print(f"test {args.test}: {n:,} rows, {wrong:,} errors ({wrong / max(n, 1):.2%})",
          file=out)
