"""``olearn predict MODEL FILE``: a saved model's label or score for each row, streamed.

The model file is read without running code (:mod:`olearn.cli._model`); the
rows are read as ``train`` reads them: the format told from the first line,
LIBSVM streamed in blocks by the reader thread in the index convention of
the training file (kept in the model file), CSV with the label first (the
labels of the file are read and ignored).  One line a row: the predicted
label (``%g``), or with ``--scores`` the score (``repr``: the double
exactly; > 0 means the second class).  ``--output PATH`` is written whole or
not at all (a temporary file renamed); a row wider than the model, a NaN or
a bad line stops with one error line naming the file, and no output file.
"""
from pathlib import Path

import numpy as np

from ._data import InputFile
from ._learners import UsageError
from ._model import ModelFileError, load_model
from ._outputs import OutputPathError, check_outputs, write_atomically


def _rows(data, n_features, shift):
    """``(X, first_row)`` blocks of the file, ``n_features`` columns."""
    row = 0
    if data.format == "libsvm":
        for block in data._libsvm_blocks(shift == 0):
            width = block.largest + 1 - shift if block.nnz else 0
            if width > n_features:
                raise UsageError(
                    f"{data.path}: a row of rows {row + 1} to {row + block.n_rows} has "
                    f"feature {block.largest} but the model has {n_features} features "
                    "(a feature never seen in training adds nothing: drop it, or train "
                    "with --n-features)")
            X, _ = block.csr(shift, n_features, views=True)  # checked above: no copy
            yield X, row
            row += block.n_rows
    else:
        for X, _ in data._csv_blocks():
            if X.shape[1] != n_features:
                raise UsageError(f"{data.path}: {X.shape[1]} features, the model "
                                 f"{n_features}: the file must have the training file's "
                                 "columns")
            yield X, row
            row += X.shape[0]


def _lines(est, blocks, scores):
    """The output text of each block."""
    names = [f"{float(c):g}" if isinstance(c, (int, float, np.number)) else str(c)
             for c in est.classes_]
    for X, first in blocks:
        try:
            s = est.decision_function(X)
        except ValueError as err:
            raise UsageError(f"rows {first + 1} to {first + X.shape[0]}: {err}") from None
        if scores:
            text = "\n".join(map(repr, s.tolist()))
        else:
            text = "\n".join(np.array(names)[(s > 0).astype(np.intp)].tolist())
        if text:
            yield text + "\n"


def predict(args, out):
    try:
        check_outputs({"--output": args.output}, [args.file, args.model])
    except OutputPathError as err:
        raise UsageError(str(err)) from None
    if not Path(args.model).is_file():
        raise UsageError(f"no such model file: {args.model}")
    try:
        est, reading = load_model(args.model)
    except ModelFileError as err:
        raise UsageError(f"{args.model}: {err}") from None
    n_features = int(reading.get("n_features") or est.n_features_in_)
    shift = int(reading.get("shift", 0))
    data = InputFile(args.file, args.format, "file")
    lines = _lines(est, _rows(data, n_features, shift), args.scores)
    if args.output is None:
        try:
            for text in lines:
                out.write(text)
            out.flush()
        except BrokenPipeError:  # the reader of the output stopped early (| head)
            import os
            import sys
            if out is sys.stdout:  # no second error when Python flushes it at exit
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return
    n = [0]

    def write(f):
        for text in lines:
            f.write(text.encode())
            n[0] += text.count("\n")
    try:
        write_atomically(args.output, write)
    except OSError as err:
        raise UsageError(f"--output {args.output}: cannot write it "
                         f"({err.strerror or err}); any previous file there is "
                         "unchanged") from None
    what = "scores" if args.scores else "labels"
    print(f"{what} of {n[0]:,} rows written to {args.output}", file=out)
