"""The command line: learn a LIBSVM or CSV file in one online pass.

    olearn train FILE --learner NAME [--param KEY=VALUE ...] [--n-epochs N]
                 [--shuffle] [--random-state S] [--test FILE]
                 [--save-model PATH] [--save-record PATH] [--quiet]

(also ``python -m olearn train ...``), as SOL's ``sol_train`` and Vowpal
Wabbit are used: the file is parsed (LIBSVM, also gzipped, by the compiled
:func:`olearn.datasets.read_libsvm`, value for value scikit-learn's
``load_svmlight_file``; or CSV with the label in the first column), then the
learner sees its rows in order (or shuffled, ``--shuffle``, a new
permutation every epoch) through ``partial_fit`` in chunks whose sizes double
from 1,024 up to ``--chunk-size``, so that the progress printed after each
chunk (rows seen, mistakes, mistake rate, updates, seconds) is the
learner's own running count.  ``--test`` scores a held-out file with the
final model; ``--save-model`` pickles the estimator; ``--save-record`` writes
the per-round record (``mistakes``, ``margins`` and the row index of every
round) as ``.npz``.

Any estimator of ``olearn.__all__`` can be named; ``--param`` values are
Python literals (``r=0.5``, ``covariance=diag``, ``variant=PA-I``,
``learner=Perceptron()`` for a meta-estimator).  Errors (a missing file, an
unknown learner or parameter, a value the estimator rejects) are printed as
one line naming the fix, with exit status 2.
"""
import argparse
import ast
import gzip
import inspect
import pickle
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

FIRST_CHUNK = 1024


class UsageError(Exception):
    """A mistake on the command line or in the input; printed, exit status 2."""


def _estimator_class(name):
    """``olearn.<name>`` if it is an estimator class, else None (imports only
    that name's family: olearn's names are imported on first use)."""
    import olearn
    obj = getattr(olearn, name, None) if name in olearn.__all__ else None
    if inspect.isclass(obj) and hasattr(obj, "fit") and hasattr(obj, "get_params"):
        return obj
    return None


def learner_names():
    import olearn
    return [name for name in olearn.__all__ if _estimator_class(name) is not None]


def make_learner(name, params):
    """``olearn.<name>(**params)``; a clear error for an unknown name or parameter."""
    cls = _estimator_class(name)
    if cls is None:   # only now is every family imported, to list the names
        names = learner_names()
        close = [n for n in names if n.lower() == name.lower()]
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise UsageError(f"unknown learner {name!r}{hint}; choose one of: "
                         + ", ".join(names))
    est = cls()
    valid = est.get_params(deep=False)
    for key in params:
        if key not in valid:
            raise UsageError(f"{name} has no parameter {key!r}; its parameters: "
                             + ", ".join(sorted(valid)))
    return est.set_params(**params)


def parse_value(text):
    """A Python literal, a learner call such as ``Perceptron()``, else the string."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return text
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.args:
            raise UsageError(f"{text}: give the learner's parameters by name, "
                             "e.g. Perceptron(n_epochs=2)")
        kwargs = {kw.arg: parse_value(ast.unparse(kw.value)) for kw in node.keywords}
        return make_learner(node.func.id, kwargs)
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError):
        return text


def parse_params(pairs):
    params = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--param {pair!r}: write KEY=VALUE, e.g. --param r=0.5")
        params[key.strip()] = parse_value(value.strip())
    return params


def file_format(path, fmt):
    if fmt != "auto":
        return fmt
    name = Path(path).name.lower().removesuffix(".gz")
    return "csv" if name.endswith((".csv", ".tsv", ".txt")) and not name.endswith(
        (".svm", ".libsvm")) else "libsvm"


def read_data(path, fmt, n_features=None):
    """``(X, y)`` from a LIBSVM file (CSR) or a CSV file (label first, dense)."""
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"no such file: {path}")
    fmt = file_format(path, fmt)
    if fmt == "libsvm":
        from olearn.datasets.libsvm import read_libsvm
        try:
            return read_libsvm(path, n_features=n_features)
        except ValueError as err:  # names the file and the line
            message = str(err)
            raise UsageError(message if message.startswith(str(path))
                             else f"{path}: {message}") from None
        except (OSError, EOFError) as err:  # a truncated or corrupt .gz/.bz2
            raise UsageError(f"{path}: cannot decompress it: {err}") from None
    try:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt") as f:
            first = f.readline()
        delimiter = "\t" if "\t" in first else ","
        try:
            [float(v) for v in first.split(delimiter)]
            skip = 0
        except ValueError:  # a header line
            skip = 1
        data = np.loadtxt(path, delimiter=delimiter, skiprows=skip, ndmin=2)
    except ValueError as err:
        raise UsageError(f"{path}: cannot read it as {fmt}: {err}") from None
    if n_features is not None and data.shape[1] - 1 != n_features:
        raise UsageError(f"{path}: {data.shape[1] - 1} features, the training file "
                         f"has {n_features}")
    return np.ascontiguousarray(data[:, 1:]), data[:, 0]


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
    if not sp.issparse(X):
        return X[a:b]
    lo, hi = int(X.indptr[a]), int(X.indptr[b])
    block = type(X)((b - a, X.shape[1]), dtype=X.dtype)
    block.data, block.indices = X.data[lo:hi], X.indices[lo:hi]
    block.indptr = X.indptr[a:b + 1] - X.indptr[a]
    return block


def counts(est):
    return (getattr(est, "n_rounds_", 0), getattr(est, "n_mistakes_", 0),
            getattr(est, "n_updates_", 0))


class Progress:
    def __init__(self, quiet, out):
        self.quiet, self.out = quiet, out
        if not quiet:
            print(f"{'epoch':>5} {'rows':>12} {'mistakes':>10} {'rate':>8} "
                  f"{'updates':>10} {'seconds':>9}", file=out, flush=True)

    def line(self, epoch, est, seconds, force=False):
        if self.quiet and not force:
            return
        rounds, mistakes, updates = counts(est)
        rate = mistakes / rounds if rounds else 0.0
        print(f"{epoch:>5} {rounds:>12,} {mistakes:>10,} {rate:>8.2%} {updates:>10,} "
              f"{seconds:>9.3f}", file=self.out, flush=True)


def learn(est, X, y, args, out):
    """Online pass(es) through ``partial_fit``; returns (seconds, rows of each round)."""
    rng = np.random.default_rng(args.random_state)
    classes = np.unique(y)
    progress = Progress(args.quiet, out)
    seconds, order_all = 0.0, []
    for epoch in range(1, args.n_epochs + 1):
        order = rng.permutation(X.shape[0]) if args.shuffle else None
        order_all.append(order if order is not None else np.arange(X.shape[0]))
        for a, b in chunks(X.shape[0], args.chunk_size):
            start = time.perf_counter()
            if order is None:
                est.partial_fit(row_block(X, a, b), y[a:b], classes=classes)
            else:
                est.partial_fit(X[order[a:b]], y[order[a:b]], classes=classes)
            seconds += time.perf_counter() - start
            progress.line(epoch, est, seconds)
        if args.quiet and epoch == args.n_epochs:
            progress.line(epoch, est, seconds, force=True)
    return seconds, np.concatenate(order_all)


def learn_batch(est, X, y):
    start = time.perf_counter()
    est.fit(X, y)
    return time.perf_counter() - start


def save_record(path, est, rows):
    record = {"rows": rows}
    for name in ("mistakes_", "margins_"):
        try:
            record[name.rstrip("_")] = getattr(est, name)
        except AttributeError:  # record="counts": only the counts are kept
            pass
    rounds, mistakes, updates = counts(est)
    np.savez(path, n_rounds=rounds, n_mistakes=mistakes, n_updates=updates, **record)


def train(args, out):
    params = parse_params(args.param)
    est = make_learner(args.learner, params)
    start = time.perf_counter()
    X, y = read_data(args.file, args.format, args.n_features)
    parse_s = time.perf_counter() - start
    if len(np.unique(y)) != 2:
        raise UsageError(f"{args.file}: {len(np.unique(y))} distinct labels; olearn's "
                         "learners are binary (two labels)")
    print(f"{est!r} on {args.file}: {X.shape[0]:,} rows x {X.shape[1]:,} features "
          f"(parsed in {parse_s:.3f} s)", file=out, flush=True)
    try:
        if hasattr(est, "partial_fit"):
            learn_s, rows = learn(est, X, y, args, out)
        else:
            if args.n_epochs != 1 or args.shuffle:
                est.set_params(**{k: v for k, v in (("n_epochs", args.n_epochs),
                                                    ("shuffle", args.shuffle),
                                                    ("random_state", args.random_state))
                                  if k in est.get_params(deep=False)})
            print(f"{args.learner} has no partial_fit: one fit on the whole file",
                  file=out)
            learn_s, rows = learn_batch(est, X, y), np.arange(X.shape[0])
    except (ValueError, TypeError) as err:  # the estimator's own validation
        raise UsageError(f"{args.learner}: {err}") from None
    rounds, mistakes, updates = counts(est)
    summary = f"learned in {learn_s:.3f} s"
    if rounds:
        summary = (f"{rounds:,} rounds, {mistakes:,} mistakes ({mistakes / rounds:.2%}), "
                   f"{updates:,} updates, " + summary)
    print(summary + f"; total {time.perf_counter() - start:.3f} s", file=out)
    if args.test:
        Xt, yt = read_data(args.test, args.format, X.shape[1])
        wrong = int(np.sum(est.predict(Xt) != yt))
        print(f"test {args.test}: {Xt.shape[0]:,} rows, {wrong:,} errors "
              f"({wrong / max(Xt.shape[0], 1):.2%})", file=out)
    if args.save_model:
        with open(args.save_model, "wb") as f:
            pickle.dump(est, f, protocol=pickle.HIGHEST_PROTOCOL)
        print(f"model saved to {args.save_model}", file=out)
    if args.save_record:
        save_record(args.save_record, est, rows)
        print(f"record saved to {args.save_record}", file=out)
    return est


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def build_parser():
    parser = argparse.ArgumentParser(
        prog="olearn", description="Online learning from a LIBSVM or CSV file.")
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="learn a file in one online pass (or several)",
                       description=__doc__.split("\n\n")[1].strip())
    t.add_argument("file", help="training data: LIBSVM (also .gz) or CSV, label first")
    t.add_argument("--learner", default="Perceptron",
                   help="an estimator of olearn.__all__ (default: Perceptron)")
    t.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="a parameter of the learner (repeat for several)")
    t.add_argument("--format", choices=("auto", "libsvm", "csv"), default="auto",
                   help="file format (default: from the name; .csv/.tsv/.txt are CSV)")
    t.add_argument("--n-features", type=positive_int, default=None,
                   help="number of features (LIBSVM; default: the largest index)")
    t.add_argument("--n-epochs", type=positive_int, default=1)
    t.add_argument("--shuffle", action="store_true",
                   help="a new random order of the rows in every epoch")
    t.add_argument("--random-state", type=int, default=None)
    t.add_argument("--chunk-size", type=positive_int, default=65536,
                   help="largest number of rows per partial_fit call")
    t.add_argument("--test", help="held-out file scored with the final model")
    t.add_argument("--save-model", help="pickle the learned estimator to this path")
    t.add_argument("--save-record", help="write the per-round record (.npz)")
    t.add_argument("--quiet", action="store_true",
                   help="print the summary only, no progress lines")
    return parser


def main(argv=None, out=None):
    out = sys.stdout if out is None else out
    args = build_parser().parse_args(argv)
    try:
        train(args, out)
    except UsageError as err:
        print(f"olearn: error: {err}", file=sys.stderr)
        return 2
    return 0
