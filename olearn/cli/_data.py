"""Input files of ``olearn train``: their format, what is known before learning, then blocks.

A file is read in blocks (:data:`BLOCK_BYTES` of LIBSVM text, or
:data:`BLOCK_ROWS` CSV lines), so memory stays flat in its size.  Before
learning, the rows, the labels and the index range of every input file are
known, so that the model has its width and its two classes at the first
update and the training and test files are read in one index convention
(as ``load_svmlight_files`` reads files together).  A streamed LIBSVM
training file is only surveyed for them (:meth:`InputFile.survey`: the
label and the first and last index of each line, not the values: a
fraction of a parse); its values are parsed once, by the learning pass, and
each block is checked there (a malformed line, a NaN or an infinity stops
the command with the file's line or row before any model is written).
Every other file (the test file, CSV, ``--in-memory``, ``--shuffle``, a
file the survey cannot read: comments, ``qid``) is checked in full first
(:meth:`InputFile.scan`).  Every value is parsed alone, so the blocks hold
exactly the values of the whole-file readers:
:func:`olearn.datasets.read_libsvm` (scikit-learn's ``load_svmlight_file``
bit for bit) and ``numpy.loadtxt``.
"""
import gzip
import re
from itertools import islice
from pathlib import Path

import numpy as np

from ._learners import UsageError

#: bytes of LIBSVM text read at a time (whole lines: a longer line is read whole);
#: a block holds up to BLOCK_BYTES / 8 values
BLOCK_BYTES = 1 << 21
#: CSV lines parsed at a time
BLOCK_ROWS = 1 << 16
#: bytes read to tell the format from the first line
SNIFF_BYTES = 1 << 16

LIBSVM_FIX = "if it is a LIBSVM file (label index:value ...), pass --format libsvm"


def _open_text(path):
    """The file as text, decompressed as the LIBSVM reader decompresses it
    (.gz, .bz2): a bzip2ed CSV was read as raw bytes."""
    if path.suffix == ".gz":
        return gzip.open(path, "rt")
    if path.suffix == ".bz2":
        import bz2
        return bz2.open(path, "rt")
    return open(path, "rt")


def _first_line(path):
    """The first line holding data (not blank, not a ``#`` comment), or None."""
    from olearn.datasets.libsvm import open_bytes
    with open_bytes(path) as f:
        head = f.read(SNIFF_BYTES)
    for line in head.split(b"\n"):
        line = line.split(b"#", 1)[0].strip()
        if line:
            return line.decode("utf-8", "replace")
    return None


def file_format(path, fmt):
    """``fmt``, or for ``"auto"`` the format of the file's first data line: a
    ``:`` (``index:value``) says LIBSVM, a ``,`` or a tab CSV; else the
    file's name decides (.csv/.tsv/.txt are CSV)."""
    if fmt != "auto":
        return fmt
    try:
        line = _first_line(path)
    except (OSError, EOFError) as err:
        raise UsageError(f"{path}: cannot decompress it: {err}") from None
    if line is not None:
        if ":" in line:
            return "libsvm"
        if "," in line or "\t" in line:
            return "csv"
    name = Path(path).name.lower().removesuffix(".gz").removesuffix(".bz2")
    return "csv" if name.endswith((".csv", ".tsv", ".txt")) else "libsvm"


class InputFile:
    """One input file (``role``: how the messages name it)."""

    def __init__(self, path, fmt, role):
        self.path = Path(path)
        self.role = role
        if not self.path.is_file():
            raise UsageError(f"no such file: {self.path}")
        self.format = file_format(self.path, fmt)
        self.n_rows = 0
        self.labels = np.empty(0)
        self._kept = self._arrays = None
        #: every value checked before learning (False: the learning pass checks them)
        self.checked = False

    # -- the raw blocks ------------------------------------------------------
    def _libsvm_blocks(self, zero_based):
        """The blocks, parsed ahead by the reader thread into a ring of
        arrays (:mod:`olearn.cli._pipeline`): use each before taking the next."""
        from olearn.datasets.libsvm import libsvm_blocks

        from ._pipeline import RING, read_ahead
        try:
            yield from read_ahead(libsvm_blocks(self.path, zero_based, BLOCK_BYTES,
                                                reuse=RING))
        except ValueError as err:  # names the file and the line
            message = str(err).replace("pass zero_based=True or 'auto'",
                                       "pass --zero-based true or auto")
            raise UsageError(message if message.startswith(str(self.path))
                             else f"{self.path}: {message}") from None
        except (OSError, EOFError) as err:  # a truncated or corrupt .gz/.bz2
            raise UsageError(f"{self.path}: cannot decompress it: {err}") from None

    def _csv_blocks(self):
        """Dense ``(X, y)`` blocks: the label is the first column; a first
        line that is not all numbers is a header."""
        try:
            with _open_text(self.path) as f:
                # blank and ``#`` comment lines before the first one with data
                # are skipped: that line is the header, or the first row
                first = f.readline()
                while first and not first.split("#", 1)[0].strip():
                    first = f.readline()
                delimiter = "\t" if "\t" in first else ","
                try:
                    [float(v) for v in first.split("#", 1)[0].split(delimiter)]
                    pending = [first]
                except ValueError:  # a header line
                    pending = []
                rows_before = 0
                while True:
                    lines = pending + list(islice(f, BLOCK_ROWS - len(pending)))
                    pending = []
                    if not lines:
                        return
                    try:
                        data = np.loadtxt(lines, delimiter=delimiter, ndmin=2,
                                          comments="#") if any(
                            line.split("#", 1)[0].strip() for line in lines) else None
                    except ValueError as err:
                        message = re.sub(r"at row (\d+)", lambda m: "at data row "
                                         f"{rows_before + int(m.group(1)) + 1}", str(err))
                        raise UsageError(f"{self.path}: cannot read it as CSV: "
                                         f"{message}; {LIBSVM_FIX}") from None
                    if data is None or data.shape[0] == 0:
                        continue
                    if data.shape[1] < 2:
                        raise UsageError(f"{self.path}: one column only; a CSV file "
                                         f"holds the label, then the features; {LIBSVM_FIX}")
                    rows_before += data.shape[0]
                    yield np.ascontiguousarray(data[:, 1:]), data[:, 0].copy()
        except (OSError, EOFError, UnicodeDecodeError) as err:
            raise UsageError(f"{self.path}: cannot read it: {err}") from None

    # -- before learning: the survey, or the checking pass --------------------
    def estimated_memory(self):
        """Bytes the file would take read whole, guessed from its size before
        reading it: the text (a compressed file taken as 6 times its size)
        and the arrays parsed from it, about twice the text."""
        size = self.path.stat().st_size
        if self.path.suffix in (".gz", ".bz2"):
            size *= 6
        return 3 * size

    def _whole_libsvm(self, zero_based):
        """The file as one block (one buffer, as :func:`read_libsvm` reads it)."""
        from olearn.datasets.libsvm import _read_bytes, parse_block
        try:
            yield parse_block(_read_bytes(self.path), self.path, zero_based)
        except ValueError as err:
            message = str(err).replace("pass zero_based=True or 'auto'",
                                       "pass --zero-based true or auto")
            raise UsageError(message) from None
        except (OSError, EOFError) as err:
            raise UsageError(f"{self.path}: cannot decompress it: {err}") from None

    def survey(self, zero_based):
        """Learn the rows, labels and index range of a LIBSVM file without
        parsing its values (:func:`~olearn.datasets.libsvm.libsvm_survey`);
        the learning pass checks the values block by block.  A file the
        survey does not read (or a one-based file with an index 0, an error
        to report now) is checked in full instead (:meth:`scan`)."""
        from olearn.datasets.libsvm import libsvm_survey
        try:
            found = libsvm_survey(self.path)
        except (OSError, EOFError) as err:  # a truncated or corrupt .gz/.bz2
            raise UsageError(f"{self.path}: cannot decompress it: {err}") from None
        if found is None or (zero_based is False and found.smallest == 0):
            self.scan(zero_based)
            return
        self._kept = self._arrays = None
        self.n_rows, self.labels, self.n_bytes = found.n_rows, found.labels, found.n_bytes
        self.nnz = int(found.has_index)  # the survey does not count the values
        self.smallest = found.smallest if found.has_index else None
        self.largest, self.n_columns = found.largest, None
        self.checked = False
        if self.n_rows == 0:
            raise UsageError(f"{self.path}: no rows of data")

    def scan(self, zero_based, keep=False):
        """Read the whole file once: rows, labels, the index range (LIBSVM) or
        columns (CSV), and a refusal of a non-finite value naming its row.
        ``keep``: read it whole and keep it for the learning (one reading of a
        file that fits in memory); else the learning reads it again, streamed."""
        labels, n_rows = set(), 0
        self.nnz, self.smallest, self.largest, self.n_columns = 0, None, -1, None
        self.n_bytes = 0
        self._kept = [] if keep else None
        self._arrays = None
        if self.format == "libsvm":
            reader = self._whole_libsvm if keep else self._libsvm_blocks
            for block in reader(zero_based):
                if keep:
                    self._kept.append(block)
                self._check_finite(block.labels, block.data, block.indptr, n_rows)
                if block.nnz:
                    self.nnz += block.nnz
                    self.smallest = (block.smallest if self.smallest is None
                                     else min(self.smallest, block.smallest))
                    self.largest = max(self.largest, block.largest)
                labels.update(np.unique(block.labels).tolist()[:100])
                n_rows += block.n_rows
                self.n_bytes += block.n_bytes
        else:
            for X, y in self._csv_blocks():
                if self.n_columns is None:
                    self.n_columns = X.shape[1]
                elif X.shape[1] != self.n_columns:
                    raise UsageError(f"{self.path}: {X.shape[1]} features from data row "
                                     f"{n_rows + 1} on, {self.n_columns} before")
                self._check_finite(y, X, None, n_rows)
                labels.update(np.unique(y).tolist()[:100])
                n_rows += X.shape[0]
                if keep:
                    self._kept.append((X, y))
        self.n_rows = n_rows
        self.labels = np.array(sorted(labels))
        self.checked = True
        if n_rows == 0:
            raise UsageError(f"{self.path}: no rows of data")

    def _check_finite(self, y, values, indptr, rows_before):
        bad_labels = ~np.isfinite(y)
        bad_values = ~np.isfinite(values)
        if not (bad_labels.any() or bad_values.any()):
            return
        rows = []
        if bad_labels.any():
            rows.append(int(np.argmax(bad_labels)))
        if bad_values.any():
            if indptr is None:   # dense
                rows.append(int(np.argmax(bad_values.any(axis=1))))
            else:
                position = int(np.argmax(bad_values))
                rows.append(int(np.searchsorted(indptr, position, side="right")) - 1)
        row = min(rows)
        what = "label" if bad_labels[row] else "a feature value"
        raise UsageError(f"{self.path}: row {rows_before + row + 1} has {what} that is NaN "
                         "or infinite; remove or impute it (olearn's learners need "
                         "finite numbers)")

    def shift(self, zero_based, others=()):
        """0 or 1: how much the LIBSVM indices of this file (and ``others``,
        read in the same convention) move down."""
        from olearn.datasets.libsvm import shift_of
        return shift_of([(f.nnz, f.smallest) for f in (self, *others)
                         if f.format == "libsvm"], zero_based)

    def width(self, shift):
        """Columns the file needs: the largest index + 1 (after ``shift``), or
        the CSV columns after the label."""
        if self.format == "csv":
            return self.n_columns
        return self.largest + 1 - shift if self.nnz else 1

    # -- the learning passes -------------------------------------------------
    def blocks(self, zero_based, shift, n_features):
        """``(X, y)`` blocks in file order: CSR (LIBSVM, ``n_features`` columns)
        or dense (CSV); the whole file as one block if :meth:`scan` kept it."""
        if self._kept is not None:
            yield self._whole(shift, n_features)
        elif self.format == "libsvm":
            rows_before = 0
            for block in self._libsvm_blocks(zero_based):
                if not self.checked:  # surveyed only: its values are checked here
                    self._check_finite(block.labels, block.data, block.indptr,
                                       rows_before)
                    if block.nnz and (block.smallest < self.smallest
                                      or block.largest > self.largest):
                        raise UsageError(f"{self.path} changed while it was read: indices "
                                         f"from {block.smallest} to {block.largest}, the "
                                         f"survey saw {self.smallest} to {self.largest}")
                if block.nnz and block.largest - shift >= n_features:  # not expected
                    raise UsageError(f"{self.path}: index {block.largest} beyond the "
                                     f"{n_features:,} features found before learning")
                rows_before += block.n_rows
                yield block.csr(shift, n_features, views=True)  # no copy of the arrays
        else:
            yield from self._csv_blocks()

    def _whole(self, shift, n_features):
        if self._arrays is None:
            if self.format == "libsvm":
                (block,) = self._kept
                self._arrays = block.csr(shift, n_features)  # shifts the indices once
            else:
                Xs, ys = zip(*self._kept)
                self._arrays = ((Xs[0], ys[0]) if len(Xs) == 1 else
                                (np.vstack(Xs), np.concatenate(ys)))
            self._kept = []
        return self._arrays

    def memory_needed(self):
        """Bytes :meth:`read_all` holds at its peak (estimated from the checking
        pass): the text, then the CSR arrays (8 + 8 bytes a value, 16 a row);
        a CSV file's blocks and their stacked copy (8 bytes a value, twice)."""
        if self.format == "libsvm":
            return self.n_bytes + 16 * self.nnz + 16 * self.n_rows
        return 16 * self.n_rows * (self.n_columns + 1)

    def read_all(self, zero_based, shift, n_features):
        """The whole file as one ``(X, y)`` (for ``--shuffle`` and learners
        without ``partial_fit``): what :meth:`scan` kept, or for LIBSVM
        :func:`read_libsvm` in the convention the checking pass chose, for
        CSV the blocks stacked."""
        if self._kept is not None:
            return self._whole(shift, n_features)
        if self.format == "libsvm":
            from olearn.datasets.libsvm import read_libsvm
            try:
                return read_libsvm(self.path, n_features, zero_based=shift == 0)
            except ValueError as err:  # the checking pass read it: not expected
                raise UsageError(str(err)) from None
        Xs, ys = zip(*self.blocks(zero_based, shift, n_features))
        return np.vstack(Xs), np.concatenate(ys)
