"""The command line: learn a LIBSVM or CSV file in one online pass, streamed.

    olearn train FILE --learner NAME [--param KEY=VALUE ...] [--n-epochs N]
                 [--shuffle [--random-state S] | --in-memory] [--test FILE]
                 [--zero-based WHICH]
                 [--save-model PATH] [--save-record PATH] [--quiet]
    olearn predict MODEL FILE [--output PATH] [--scores]
    olearn compile [--learner NAME ...]

(also ``python -m olearn ...``), as SOL's ``sol_train`` and Vowpal Wabbit are
used.  ``train`` first checks the learner, its parameters, the options and
the output paths, then reads the input files for what the first update
needs (LIBSVM, also gzipped, by the compiled reader of
:mod:`olearn.datasets.libsvm`, value for value scikit-learn's
``load_svmlight_file``; or CSV with the label in the first column; the
format is told from the first line) so that a third label or a test file
wider than the training file is reported before learning; the test file is
read in full then (a bad value or a NaN in it too).  Then the learner sees
the rows in file order through ``partial_fit`` in chunks whose sizes double
from 1,024 up to ``--chunk-size``.  By default a file is streamed: a LIBSVM
training file is surveyed (rows, labels, first and last index of each line;
no value parsed), then read in blocks by a reader thread
(:mod:`olearn.cli._pipeline`) once per epoch, memory flat in its size;
``--in-memory`` reads it whole once and keeps it (if its parsed form fits in
half the memory left).  An error deep in a streamed file (a bad value, a
NaN) is found when the learning pass reaches it: one error line, and no
model or record is written (they are saved after the last epoch).  The
progress printed after each chunk (rows seen, mistakes, mistake rate,
updates, seconds) is the learner's own running count.  ``--shuffle`` reads
the whole file into memory and learns a new permutation every epoch.
``--test`` scores a held-out file, read in the training file's index
convention, with the final model; ``--save-model`` writes the estimator as
a model file that loads without running code (:mod:`olearn.cli._model`:
arrays in ``.npz``, parameters in JSON) and ``--save-record`` writes the
per-round record (``mistakes``, ``margins`` and the row index of every
round) as ``.npz``, each written to a temporary file then renamed (a crash
leaves the previous file).  The per-round record is kept only when
``--save-record`` asks for it (``record="counts"`` otherwise: a small model,
memory flat).  ``predict`` reads a model file and writes one label (or, with
``--scores``, one score) a line for each row of a file, streamed as
``train`` streams it.

Any estimator of ``olearn.__all__`` can be named; ``--param`` values are
Python literals (``r=0.5``, ``covariance=diag``, ``variant=PA-I``,
``learner=Perceptron()`` for a meta-estimator).  Every error (a missing file,
an unknown learner or parameter, a value the estimator rejects, a bad file)
is printed as one line ``olearn: error: ...`` naming the fix, with exit
status 2.
"""
import argparse
import re
import signal
import sys

from ._learners import (UsageError, learner_names, make_learner, parse_params,
                        parse_value)
from ._train import FIRST_CHUNK, chunks, row_block, train

__all__ = ["FIRST_CHUNK", "UsageError", "build_parser", "chunks", "learner_names",
           "main", "make_learner", "parse_params", "parse_value", "row_block", "train"]


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors in the command line's one-line form."""

    def error(self, message):
        print(f"olearn: error: {message} ({self.prog} --help lists the options)",
              file=sys.stderr)
        sys.exit(2)


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def seed(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number, got {text!r}") from None
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"must be from 0 to {2**32 - 1}, got {value}")
    return value


def _plain(text):
    """A docstring paragraph without its reST markup, for ``--help``."""
    return re.sub(r":\w+:`~?([^`]*)`", r"\1", text).replace("``", "").strip()


def build_parser():
    parser = _Parser(prog="olearn",
                     description="Online learning from a LIBSVM or CSV file.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    t = sub.add_parser("train", help="learn a file in one online pass (or several)",
                       description=_plain(__doc__.split("\n\n")[2]))
    t.add_argument("file", help="training data: LIBSVM (also .gz/.bz2) or CSV, label first")
    t.add_argument("shards", nargs="*", metavar="MORE",
                   help="more files: shards learned on a Dask cluster by iterative "
                        "parameter mixing, one per file, read by the workers")
    t.add_argument("--dask-scheduler", metavar="ADDRESS",
                   help="train the files on this Dask scheduler (tcp://host:8786) by "
                        "iterative parameter mixing (olearn.distributed)")
    t.add_argument("--local-workers", type=positive_int, metavar="N",
                   help="the same on a LocalCluster of N single-threaded worker "
                        "processes of this machine")
    t.add_argument("--mixing", choices=("uniform", "mistakes", "confidence"),
                   default="uniform", help="how the shards' models are mixed after "
                   "each epoch (with --dask-scheduler or --local-workers)")
    t.add_argument("--learner", default="Perceptron",
                   help="an estimator of olearn.__all__ (default: Perceptron)")
    t.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="a parameter of the learner (repeat for several)")
    t.add_argument("--format", choices=("auto", "libsvm", "csv"), default="auto",
                   help="file format (default: from the first line: index:value pairs "
                        "are LIBSVM, commas or tabs CSV)")
    t.add_argument("--zero-based", choices=("auto", "true", "false"), default="auto",
                   help="LIBSVM indices count from 0 (true) or 1 (false); auto (default): "
                        "from 1 unless an index 0 occurs in the training or test file "
                        "(one convention for both, as load_svmlight_files)")
    t.add_argument("--n-features", type=positive_int, default=None,
                   help="number of features (LIBSVM; default: the training file's "
                        "largest index)")
    t.add_argument("--n-epochs", type=positive_int, default=1,
                   help="passes over the file (a streamed file is read again for each)")
    t.add_argument("--shuffle", action="store_true",
                   help="a new random order of the rows in every epoch (holds the "
                        "whole file in memory)")
    t.add_argument("--random-state", type=seed, default=None,
                   help="seed of --shuffle's orders (0 to 2**32 - 1)")
    t.add_argument("--stream", action="store_true",
                   help="read the file in blocks (the default; kept for scripts that "
                        "pass it)")
    t.add_argument("--in-memory", action="store_true",
                   help="read the file whole once and keep it for every epoch (if its "
                        "parsed form fits in half the memory left; else it is streamed). "
                        "By default the file is streamed: surveyed for its rows, labels "
                        "and width, then read in blocks once per epoch (its values "
                        "checked as they are learned), memory flat in its size")
    t.add_argument("--chunk-size", type=positive_int, default=65536,
                   help="largest number of rows per partial_fit call")
    t.add_argument("--test", help="held-out file scored with the final model")
    t.add_argument("--save-model", help="write the learned estimator to this path (numpy "
                                        ".npz arrays and JSON parameters: it loads "
                                        "without running code; it keeps the counts, "
                                        "not the per-round record, unless "
                                        "--save-record is given; a symbolic link is "
                                        "followed: the file it points to is replaced "
                                        "atomically, the link kept)")
    t.add_argument("--save-record", help="write the per-round record (numpy .npz "
                                         "format, at exactly this path; a symbolic "
                                         "link is followed as for --save-model)")
    t.add_argument("--quiet", action="store_true",
                   help="print the summary only, no progress lines")
    p = sub.add_parser("predict", help="score a file with a model saved by train "
                                       "--save-model",
                       description="One predicted label (or, with --scores, one score) "
                                   "a line for each row of FILE, read as train reads it "
                                   "(streamed, same format sniffing and index convention "
                                   "as the training file).")
    p.add_argument("model", help="a model file written by olearn train --save-model")
    p.add_argument("file", help="rows to score: LIBSVM (also .gz/.bz2) or CSV, label "
                                "first (the label is read and ignored)")
    p.add_argument("--output", help="write the predictions to this file (default: "
                                    "standard output)")
    p.add_argument("--scores", action="store_true",
                   help="write the score of each row (> 0: the second class) instead of "
                        "its label")
    p.add_argument("--format", choices=("auto", "libsvm", "csv"), default="auto",
                   help="file format (default: from the first line)")
    c = sub.add_parser("compile", help="compile the reader and the learners ahead "
                                       "(numba's on-disk cache), so that the first "
                                       "train starts fast")
    c.add_argument("--learner", action="append", metavar="NAME",
                   help="a learner to compile (repeat; default: every learner)")
    return parser


def _terminate(signum, frame):
    raise SystemExit(128 + signum)  # runs the cleanup of a file being written


def _interruption(error):
    """The KeyboardInterrupt or SystemExit (a SIGTERM, :func:`_terminate`)
    behind a ``SystemError``, or None.

    A signal whose Python handler runs while a numba-compiled function is
    running (the LIBSVM parser, a learner's pass, the scoring) leaves the
    handler's exception set while the function returns a result, which
    CPython reports as ``SystemError: CPUDispatcher(...) returned a result
    with an exception set``, caused by the interruption."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            return error
        error = error.__cause__ or error.__context__
    return None


def main(argv=None, out=None):
    out = sys.stdout if out is None else out
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as done:  # --help, or an argument error already printed
        return done.code
    previous = None
    try:
        previous = signal.signal(signal.SIGTERM, _terminate)
    except ValueError:  # not the main thread
        pass
    try:
        from ._startup import deferred_imports
        with deferred_imports():
            if args.command == "predict":
                from ._predict import predict
            elif args.command == "compile":
                from ._startup import compile_ahead
                names = args.learner or learner_names()
                for name in names:
                    make_learner(name, {})  # an unknown name: the usual error
            else:
                make_learner(args.learner, {})  # its family imported, deferring
        if args.command == "compile":
            return 1 if compile_ahead(names, out) else 0
        if args.command == "predict":
            with deferred_imports():
                predict(args, out)
            return 0
        from ._distributed import train_distributed, wanted
        if wanted(args):
            train_distributed(args, out)
        elif args.mixing != "uniform":
            raise UsageError("--mixing mixes shards on a Dask cluster: add "
                             "--dask-scheduler ADDRESS or --local-workers N")
        else:
            train(args, out)
    except UsageError as err:
        print(f"olearn: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("olearn: interrupted", file=sys.stderr)
        return 130
    except SystemError as err:     # an interrupt inside compiled code
        cause = _interruption(err)
        if cause is None:
            raise
        print("olearn: interrupted", file=sys.stderr)
        if isinstance(cause, SystemExit):
            raise SystemExit(cause.code) from None   # the SIGTERM status
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return 0
