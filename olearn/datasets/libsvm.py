"""A compiled LIBSVM reader, value for value the same as scikit-learn's.

:func:`read_libsvm` returns what ``sklearn.datasets.load_svmlight_file(path,
n_features=..., zero_based=...)`` returns (a canonical CSR matrix of float64 with
int64 indices, and float64 labels), bit for bit, several times faster: the file's
bytes (decompressed for ``.gz``/``.bz2``, as scikit-learn decides by the
extension) are read into a uint8 array, the rows and ``idx:value`` pairs are
counted up front (upper bounds: newlines and colons), and one compiled pass
fills ``indptr``, ``indices``, ``data`` and the labels.  Digits are read up
to eight at a time, as one 8-byte word (the common index ``123:`` and the
parts of a number; a sign, ``_`` or a mantissa past 18 digits go byte by
byte): 0.78 -> 0.62 s for the 297 MB sparse benchmark file here.

Decimal numbers (at most 18 significant digits) are converted in the compiled
pass by Clinger's exact fast path, then the Eisel-Lemire algorithm
(:mod:`olearn.datasets._decimal`, which cites both): each correctly rounded,
hence equal to ``strtod``.  Every other token (19 or more significant digits,
``nan``/``inf``, underscores, anything not a plain decimal, and the cases
Eisel-Lemire leaves undecided) is handed back by position and parsed by
Python's ``float()``, as scikit-learn parses every token.

The semantics are scikit-learn's: ``#`` starts a comment to the end of the line,
blank lines are skipped, lines end at ``\\n`` (a ``\\r`` is whitespace), a first
feature starting with ``qid`` is skipped, indices must increase strictly along a
line (scikit-learn refuses unsorted or repeated indices too), ``zero_based="auto"``
shifts the indices down by one when none of them is 0, and ``n_features`` smaller
than the largest column raises the same error.  Malformed input raises a
``ValueError`` naming the line and the fix.
"""
from __future__ import annotations

import bz2
import gzip
import os
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ._decimal import clinger, eisel_lemire

__all__ = ["libsvm_blocks", "libsvm_survey", "read_libsvm"]

_INDEX_MAX = 2**31 - 1  # scikit-learn stores a line's indices in a C int

# status codes of the compiled pass (0: success)
_NO_COLON, _BAD_INDEX, _NEGATIVE, _ZERO_ONE_BASED, _UNSORTED, _TOO_LARGE, _QID = range(1, 8)
_FULL = 8  # the output arrays are full (not an error: parse on into new ones)
#: tokens for Python's float() held at a time by read_libsvm (more: its pass goes on in parts)
FALLBACK_TOKENS = 1 << 16

# byte classes: what ends a token (scikit-learn cuts each line at its first '#',
# then splits it on bytes.split()'s whitespace: space, \t, \n, \v, \f, \r)
_OTHER, _SPACE, _NEWLINE, _HASH = 0, 1, 2, 3
_CLASS = np.zeros(256, np.uint8)
_CLASS[[32, 9, 11, 12, 13]] = _SPACE
_CLASS[10] = _NEWLINE
_CLASS[35] = _HASH


@njit(inline="always")
def _token_end(buf, i, n):
    while i < n and _CLASS[buf[i]] == _OTHER:
        i += 1
    return i


@intrinsic
def _bytes_at(typingctx, array):
    """The address of the uint8 ``array``'s first byte, as a pointer that
    indexes like the array (``p[i]``) without its reference count: the
    compiled pass reads the text through it.  Each use of the array itself in
    an inlined helper cost an atomic increment and decrement of its count,
    half of the reader's time.  The caller keeps the array alive."""
    sig = types.CPointer(types.uint8)(array)

    def codegen(context, builder, sig, args):
        return context.make_array(sig.args[0])(context, builder, args[0]).data
    return sig, codegen


@intrinsic
def _load8(typingctx, buf, i):
    """The 8 bytes ``buf[i:i + 8]`` (``buf`` from :func:`_bytes_at`) as one
    little-endian uint64 (an unaligned load; the caller checks ``i + 8 <=
    len(buf)``)."""
    sig = types.uint64(buf, i)

    def codegen(context, builder, sig, args):
        ptr = builder.gep(args[0], [args[1]])
        return builder.load(builder.bitcast(ptr, ir.IntType(64).as_pointer()), align=1)
    return sig, codegen


@intrinsic
def _ctz(typingctx, x):
    """Trailing zero bits of the uint64 ``x`` (64 for 0)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):
        i64 = ir.IntType(64)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(i64, [i64, ir.IntType(1)]), "llvm.cttz.i64")
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])
    return sig, codegen


# eight ASCII digits at a time (SWAR: one uint64 holds eight bytes)
_ZEROS = np.uint64(0x3030303030303030)   # '0' in every byte
_SIXES = np.uint64(0x7676767676767676)   # 0..9 + 0x76 < 0x80 <= anything else + 0x76
_HIGHS = np.uint64(0x8080808080808080)
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_PAIRS = np.uint64(0x000000FF000000FF)
_MUL1 = np.uint64(100 + (1000000 << 32))
_MUL2 = np.uint64(1 + (10000 << 32))
_POW10_INT = np.array([10 ** k for k in range(9)], np.int64)


@njit(inline="always")
def _leading_digits(t):
    """Bytes of ``t`` (the 8 bytes minus ``'0'`` each) that are digits, from
    the first: 0..8.  A byte below ``'0'`` borrows from the next one, and a
    byte above ``'9'`` carries into it, so only bytes after the first
    non-digit are disturbed."""
    nondigit = (t | (t + _SIXES)) & _HIGHS
    return np.int64(_ctz(nondigit) >> np.uint64(3)) if nondigit else np.int64(8)


@njit(inline="always")
def _digits_value(t, k):
    """The number written by the first ``k`` (1..8) digits of ``t``: they are
    shifted to the top (zero bytes below: leading zeros), then combined in
    pairs, fours and eights by three multiplications (Lemire's
    ``parse_eight_digits_unrolled``)."""
    v = t << np.uint64(8 * (8 - k))
    v = v * np.uint64(10) + (v >> np.uint64(8))
    v = ((v & _PAIRS) * _MUL1 + ((v >> np.uint64(16)) & _PAIRS) * _MUL2) >> np.uint64(32)
    return np.int64(v)


@njit(inline="always")
def _scan_digits(buf, i, n, mantissa, n_significant, exact):
    """Digits from ``i`` into the mantissa: ``(end, n_read, mantissa,
    n_significant, exact)``.  Leading zeros are not significant; beyond 18
    significant digits the mantissa is no longer exact (``exact`` False).

    Up to eight digits at a time while eight bytes remain and the mantissa
    stays within 18 significant digits; else one at a time."""
    start = i
    while i + 8 <= n:
        t = _load8(buf, i) - _ZEROS
        k = _leading_digits(t)
        if k == 0:
            return i, i - start, mantissa, n_significant, exact
        new = k
        if mantissa == 0:  # leading zeros are not significant
            nonzero = (((t & _LOW7) + _LOW7) | t) & _HIGHS
            zeros = np.int64(_ctz(nonzero) >> np.uint64(3)) if nonzero else np.int64(8)
            new = k - min(zeros, k)
        if n_significant + new > 18:
            break  # the digit loop below: exactness is lost on the way
        mantissa = mantissa * _POW10_INT[k] + _digits_value(t, k)
        n_significant += new
        i += k
        if k < 8:
            return i, i - start, mantissa, n_significant, exact
    while i < n:
        d = np.int64(buf[i]) - 48
        if d < 0 or d > 9:
            break
        if mantissa != 0 or d != 0:
            n_significant += 1
            if n_significant <= 18:
                mantissa = mantissa * 10 + d
            else:
                exact = False
        i += 1
    return i, i - start, mantissa, n_significant, exact


@njit(cache=True)  # a call (inlined, _parse compiled 0.8 s longer): ``buf`` is a pointer,
def _scan_float(buf, i, n):  # so the call counts no reference (an array's count: half the time)
    """Read the token at ``i``: ``(ok, value, end)``.

    ``ok``: the token is a plain decimal on Clinger's exact path and ``value`` is
    its correctly rounded double; otherwise Python's ``float()`` decides.
    """
    negative = False
    if i < n and (buf[i] == 43 or buf[i] == 45):  # '+', '-'
        negative = buf[i] == 45
        i += 1
    mantissa = np.int64(0)
    exponent = 0
    i, n_digits, mantissa, n_significant, exact = _scan_digits(
        buf, i, n, mantissa, 0, True)
    if i < n and buf[i] == 46:  # '.'
        i, n_fraction, mantissa, n_significant, exact = _scan_digits(
            buf, i + 1, n, mantissa, n_significant, exact)
        n_digits += n_fraction
        exponent -= n_fraction
    if n_digits == 0:
        exact = False
    if i < n and (buf[i] == 101 or buf[i] == 69):  # 'e', 'E'
        i += 1
        exp_negative = False
        if i < n and (buf[i] == 43 or buf[i] == 45):
            exp_negative = buf[i] == 45
            i += 1
        n_exp_digits = 0
        written = 0
        while i < n:
            d = np.int64(buf[i]) - 48
            if d < 0 or d > 9:
                break
            n_exp_digits += 1
            if written < 100000:
                written = written * 10 + d
            i += 1
        if n_exp_digits == 0:
            exact = False
        exponent += -written if exp_negative else written
    if i < n and _CLASS[buf[i]] == _OTHER:  # more of the token: not a plain decimal
        return False, 0.0, _token_end(buf, i, n)
    if not exact:
        return False, 0.0, i
    if mantissa == 0:
        return True, -0.0 if negative else 0.0, i
    ok, value = clinger(mantissa, exponent)
    if not ok:
        ok, value = eisel_lemire(mantissa, exponent)
        if not ok:
            return False, 0.0, i
    return True, -value if negative else value, i


@njit(inline="always")
def _scan_index(buf, i, n):
    """Python's ``int()`` of the index before the ':' at ``i``: ``(status, value, colon)``.

    The common case, one to seven digits then ``':'``, is read eight bytes at
    a time; anything else (a sign, ``'_'``, eight digits or more, an error)
    one byte at a time."""
    start = i
    if i + 8 <= n:
        t = _load8(buf, i) - _ZEROS
        k = _leading_digits(t)
        if 0 < k < 8 and buf[i + k] == 58:  # ':'
            return 0, _digits_value(t, k), i + k
    negative = False
    if i < n and (buf[i] == 43 or buf[i] == 45):
        negative = buf[i] == 45
        i += 1
    value = np.int64(0)
    n_digits = 0
    status = 0
    while i < n:
        c = buf[i]
        if 48 <= c <= 57:
            if value <= _INDEX_MAX:
                value = value * 10 + (np.int64(c) - 48)
            n_digits += 1
        elif c == 58:  # ':'
            break
        elif (c == 95 and i > start and 48 <= buf[i - 1] <= 57 and i + 1 < n
              and 48 <= buf[i + 1] <= 57):
            pass  # '_' between two digits, as int() accepts
        elif _CLASS[c] != _OTHER:
            return _NO_COLON, 0, i
        else:
            status = _BAD_INDEX
        i += 1
    if i == n:
        return _NO_COLON, 0, i
    if status or n_digits == 0:
        return _BAD_INDEX, 0, i
    if negative and value != 0:
        return _NEGATIVE, -value, i
    if value > _INDEX_MAX:
        return _TOO_LARGE, value, i
    return 0, value, i


@njit(cache=True, nogil=True)
def _parse(text, one_based, labels, indptr, indices, data, fallback):
    """One pass over the bytes ``text`` (whole lines), without the GIL (a reader thread parses while the main
    thread learns).

    Returns ``(status, n_rows, nnz, line, err_start, err_end, fallback, n_fallback,
    smallest, largest, end)``: ``fallback[k] = (slot, start, end)`` is a token for
    Python's ``float()`` (``slot >= 0``: ``data[slot]``, else ``labels[-slot - 1]``);
    on an error, ``line`` and the token's byte range say where.  When the
    arrays (``fallback`` included) fill up (``status == _FULL``), the rows
    parsed are those before the line that did not fit, which starts at
    ``end`` (``line`` lines were read).  ``fallback`` is the caller's, never
    replaced here: an array variable that a loop may rebind is counted
    (an atomic increment and decrement) on every token.
    """
    n = text.shape[0]
    buf = _bytes_at(text)  # read through a pointer: no reference counting per token
    n_fallback = 0
    fallback_capacity = fallback.shape[0]
    row = 0
    nnz = 0
    line = 0
    smallest = np.int64(_INDEX_MAX + 1)
    largest = np.int64(-1)
    i = 0
    capacity = indices.shape[0]
    max_rows = labels.shape[0]
    indptr[0] = 0
    while i < n:
        if row == max_rows:
            return _FULL, row, nnz, line, 0, 0, fallback, n_fallback, smallest, largest, i
        line_start, line_fallback, line_smallest, line_largest = (
            i, n_fallback, smallest, largest)
        line += 1
        n_tokens = 0
        previous = np.int64(-1)
        while True:
            while i < n and _CLASS[buf[i]] == _SPACE:
                i += 1
            if i >= n or _CLASS[buf[i]] != _OTHER:
                break
            start = i
            n_tokens += 1
            if n_tokens == 1:  # the label: read by the one call of _scan_float below
                slot = -row - 1
                value_start = i
            elif (n_tokens == 2 and i + 2 < n and buf[i] == 113 and buf[i + 1] == 105
                    and buf[i + 2] == 100):  # 'qid...', skipped as scikit-learn does
                i = _token_end(buf, i, n)
                colon = start
                while colon < i and buf[colon] != 58:
                    colon += 1
                if colon == i:
                    return (_QID, row, nnz, line, start, i, fallback, n_fallback,
                            smallest, largest, i)
                continue
            else:
                status, idx, i = _scan_index(buf, i, n)
                if status == 0 and one_based and idx == 0:
                    status = _ZERO_ONE_BASED
                if status == 0 and idx <= previous:
                    status = _UNSORTED
                if status != 0:
                    i = _token_end(buf, i, n)
                    return (status, row, nnz, line, start, i, fallback, n_fallback,
                            smallest, largest, i)
                if nnz == capacity:  # the line does not fit: undone, for the next call
                    nnz = indptr[row]
                    return (_FULL, row, nnz, line - 1, 0, 0, fallback, line_fallback,
                            line_smallest, line_largest, line_start)
                previous = idx
                if idx < smallest:
                    smallest = idx
                if idx > largest:
                    largest = idx
                indices[nnz] = idx
                slot = nnz
                value_start = i + 1
            # one call site: the label or the value after the ':'
            ok, value, i = _scan_float(buf, value_start, n)
            if slot < 0:
                labels[row] = value
            else:
                data[nnz] = value
                nnz += 1
            if not ok:
                if n_fallback == fallback_capacity:  # the line undone, for the next call
                    return (_FULL, row, indptr[row], line - 1, 0, 0, fallback,
                            line_fallback, line_smallest, line_largest, line_start)
                fallback[n_fallback, 0] = slot
                fallback[n_fallback, 1] = value_start
                fallback[n_fallback, 2] = i
                n_fallback += 1
        if n_tokens:
            row += 1
            indptr[row] = nnz
        while i < n and buf[i] != 10:  # a comment, to the end of the line
            i += 1
        i += 1
    return 0, row, nnz, line, 0, 0, fallback, n_fallback, smallest, largest, min(i, n)


_NEWLINES = np.uint64(0x0A0A0A0A0A0A0A0A)
_HASHES = np.uint64(0x2323232323232323)
_ONES = np.uint64(0x0101010101010101)


@njit(inline="always")
def _line_end(buf, i, n):
    """The first ``\\n`` or ``#`` at or after ``i`` (``n`` if none): eight
    bytes at a time, a zero byte of ``word ^ '\\n'`` or ``word ^ '#'`` found
    by ``(v - 0x01..) & ~v & 0x80..`` (exact for the lowest zero byte)."""
    while i + 8 <= n:
        w = _load8(buf, i)
        a = w ^ _NEWLINES
        b = w ^ _HASHES
        t = (((a - _ONES) & ~a) | ((b - _ONES) & ~b)) & _HIGHS
        if t:
            return i + np.int64(_ctz(t) >> np.uint64(3))
        i += 8
    while i < n and buf[i] != 10 and buf[i] != 35:
        i += 1
    return i


_UNUSUAL = 1  # a status of _survey: a line it does not read (the full parse decides)


@njit(cache=True, nogil=True)
def _survey(text, label_spans):
    """What must be known of a LIBSVM text before the first update, read
    without parsing its values: ``(status, n_rows, n_labels, smallest,
    largest)``; ``label_spans[:n_labels]`` are the ``(start, end)`` byte
    ranges of the distinct label tokens (as text: the caller converts them).

    A line's indices increase (the full parse refuses a line where they do
    not), so its smallest index is its first and its largest its last: the
    label and the first ``index:`` are read, then the line is skipped eight
    bytes at a time to its end, and the last index is read backwards from
    there.  ``status`` is ``_UNUSUAL`` for anything this does not read the
    way the full parse would (a comment, ``qid``, an index that is not plain
    digits, more distinct label tokens than ``label_spans`` holds): the
    caller then parses the file in full instead.  No number is converted
    here (a small function: quick to compile on a first run)."""
    n = text.shape[0]
    buf = _bytes_at(text)
    n_rows = 0
    n_labels = 0
    smallest = np.int64(_INDEX_MAX + 1)
    largest = np.int64(-1)
    i = 0
    while i < n:
        while i < n and _CLASS[buf[i]] == _SPACE:
            i += 1
        if i >= n:
            break
        if buf[i] == 10:  # a blank line
            i += 1
            continue
        if buf[i] == 35:
            return _UNUSUAL, n_rows, n_labels, smallest, largest
        start = i
        i = _token_end(buf, i, n)
        length = i - start
        k = 0
        while k < n_labels:
            a = label_spans[k, 0]
            if label_spans[k, 1] - a == length:
                m = 0
                while m < length and buf[a + m] == buf[start + m]:
                    m += 1
                if m == length:
                    break
            k += 1
        if k == n_labels:
            if n_labels == label_spans.shape[0]:
                return _UNUSUAL, n_rows, n_labels, smallest, largest
            label_spans[n_labels, 0] = start
            label_spans[n_labels, 1] = i
            n_labels += 1
        n_rows += 1
        while i < n and _CLASS[buf[i]] == _SPACE:
            i += 1
        if i >= n or buf[i] == 10:  # a row without features
            i += 1
            continue
        first = np.int64(0)
        n_digits = 0
        while i < n and 48 <= buf[i] <= 57 and n_digits < 11:
            first = first * 10 + (np.int64(buf[i]) - 48)
            n_digits += 1
            i += 1
        if n_digits == 0 or i >= n or buf[i] != 58 or first > _INDEX_MAX:
            return _UNUSUAL, n_rows, n_labels, smallest, largest
        colon = i
        end = _line_end(buf, colon, n)
        if end < n and buf[end] == 35:
            return _UNUSUAL, n_rows, n_labels, smallest, largest
        k = end - 1
        while k > colon and _CLASS[buf[k]] == _SPACE:
            k -= 1
        while k > colon and buf[k] != 58 and _CLASS[buf[k]] == _OTHER:
            k -= 1
        if buf[k] != 58:  # the last token has no ':'
            return _UNUSUAL, n_rows, n_labels, smallest, largest
        last = first
        if k > colon:
            last = np.int64(0)
            scale = np.int64(1)
            k -= 1
            n_digits = 0
            while k > colon and 48 <= buf[k] <= 57 and n_digits < 10:
                last += scale * (np.int64(buf[k]) - 48)
                scale *= 10
                n_digits += 1
                k -= 1
            if n_digits == 0 or _CLASS[buf[k]] != _SPACE or last > _INDEX_MAX:
                return _UNUSUAL, n_rows, n_labels, smallest, largest
        if last < first:
            return _UNUSUAL, n_rows, n_labels, smallest, largest
        if first < smallest:
            smallest = first
        if last > largest:
            largest = last
        i = end + 1
    return 0, n_rows, n_labels, smallest, largest


def _read_bytes(path: Path) -> np.ndarray:
    ext = os.path.splitext(str(path))[1]
    if ext == ".gz":
        return np.frombuffer(gzip.decompress(path.read_bytes()), np.uint8)
    if ext == ".bz2":
        return np.frombuffer(bz2.decompress(path.read_bytes()), np.uint8)
    # a copy, not a memory map: a file truncated while it is read cannot crash us
    buf = np.fromfile(path, np.uint8)
    buf.flags.writeable = False  # one compiled signature with the decompressed bytes
    return buf


def _count(buf: np.ndarray, byte: int, block: int = 1 << 24) -> int:
    """How many times ``byte`` occurs, in blocks (no file-sized temporary)."""
    return sum(int(np.count_nonzero(buf[a:a + block] == byte))
               for a in range(0, buf.shape[0], block))


def _line_of(buf: np.ndarray, position: int) -> int:
    return _count(buf[:position], 10) + 1


def _token(buf: np.ndarray, start: int, end: int) -> str:
    text = buf[start:end].tobytes().decode("utf-8", "backslashreplace")
    return text if len(text) <= 60 else text[:57] + "..."


_FIXES = {
    _NO_COLON: "feature {tok!r} has no ':'; write each feature as index:value "
               "(the label alone comes first)",
    _BAD_INDEX: "index of {tok!r} is not an integer; write each feature as "
                "index:value with a whole-number index",
    _NEGATIVE: "negative index in {tok!r} (invalid index); indices are >= 0 "
               "(>= 1 in a one-based file)",
    _ZERO_ONE_BASED: "index 0 in {tok!r} (invalid index) in a one-based file; pass "
                     "zero_based=True or 'auto' if the file counts from 0",
    _UNSORTED: "feature {tok!r} does not come after the previous index: feature "
               "indices in SVMlight/LibSVM data file should be sorted and unique; "
               "sort each line's features by index and merge repeated ones",
    _TOO_LARGE: "index of {tok!r} is larger than {max}, the largest index "
                "scikit-learn's reader accepts; renumber the features",
    _QID: "{tok!r} has no ':'; write the query id as qid:NUMBER",
}


def _parse_fallback(path, buf, fallback, labels, data, first_line=1):
    """Python's ``float()`` of the tokens off Clinger's path, into their slots."""
    slots, starts, ends = fallback.T
    # one bytes object to slice when there are many tokens (a copy of the file)
    raw = buf.tobytes() if len(slots) > buf.shape[0] // 2000 else None
    try:
        if raw is not None:
            values = [float(raw[a:b]) for a, b in zip(starts.tolist(), ends.tolist())]
        else:
            values = [float(buf[a:b].tobytes()) for a, b in zip(starts.tolist(),
                                                                ends.tolist())]
    except ValueError:
        for slot, start, end in fallback.tolist():
            try:
                float(buf[start:end].tobytes())
            except ValueError:
                what = "label" if slot < 0 else "value"
                fix = ("each line starts with its label (a number), then index:value "
                       "pairs" if slot < 0 else
                       "write each feature as index:value with a number value")
                line = _line_of(buf, start) + first_line - 1
                raise ValueError(f"{path}, line {line}: {what} "
                                 f"{_token(buf, start, end)!r} is not a number; {fix}"
                                 ) from None
        raise  # pragma: no cover - float() fails on the same token twice
    values = np.array(values, np.float64)
    is_label = slots < 0
    labels[-slots[is_label] - 1] = values[is_label]
    data[slots[~is_label]] = values[~is_label]


def check_zero_based(zero_based):
    """``True``, ``False`` or ``"auto"``; a numpy bool as the Python bool.

    scikit-learn refuses ``0``, ``1`` and other non-bools (``0 == False``
    would pass a membership test, and was read as ``True``: every column
    shifted).  It accepts ``numpy.False_`` but then checks the file as
    one-based without shifting its indices (scikit-learn 1.9 tests
    ``zero_based is False``); here ``numpy.False_`` is ``False``."""
    if isinstance(zero_based, np.bool_):
        return bool(zero_based)
    if zero_based is True or zero_based is False or (
            isinstance(zero_based, str) and zero_based == "auto"):
        return zero_based
    raise ValueError(f"zero_based must be True, False or 'auto' (a bool, not "
                     f"{type(zero_based).__name__}), got {zero_based!r}")


class Block:
    """The rows of a LIBSVM buffer as the file writes them (indices not yet
    shifted to count from 0): ``labels``, ``indptr``, ``indices``, ``data``,
    and the smallest and largest index (``nnz == 0``: no index)."""

    def __init__(self, labels, indptr, indices, data, smallest, largest):
        self.labels, self.indptr, self.indices, self.data = labels, indptr, indices, data
        self.smallest, self.largest = int(smallest), int(largest)

    @property
    def n_rows(self):
        return self.labels.shape[0]

    @property
    def nnz(self):
        return self.indices.shape[0]

    def csr(self, shift, n_features, views=False):
        """``(X, y)``: the indices moved down by ``shift`` (0 or 1), ``X`` of
        ``n_features`` columns, as :func:`read_libsvm` builds it.

        ``views=True`` (the streamed blocks): ``X`` holds the block's arrays
        themselves, set on an empty matrix as ``olearn.cli._train.row_block``
        does.  scipy's constructor would copy ``data`` and ``indices`` (its
        ``prune`` copies a view of less than half its array, as a block is of
        the ring's arrays): 240 MB of new pages for the 297 MB benchmark file.
        The compiled pass made the structure valid; ``n_features`` must
        exceed the largest index (the caller checked it)."""
        if shift:
            self.indices -= shift
            self.smallest -= shift
            self.largest -= shift
        if views:
            cls = sp.csr_matrix if _sparse_interface() == "spmatrix" else sp.csr_array
            X = cls((self.n_rows, int(n_features)), dtype=np.float64)
            X.data, X.indices, X.indptr = self.data, self.indices, self.indptr
            X.has_sorted_indices = True
            return X, self.labels
        # as scikit-learn: csr_array keeps the int64 indices, then its sparse interface
        X = sp.csr_array((self.data, self.indices, self.indptr),
                         shape=(self.n_rows, int(n_features)))
        X.has_sorted_indices = True  # the compiled pass checked that they increase
        if _sparse_interface() == "spmatrix":
            X = sp.csr_matrix(X)
        return X, self.labels


def parse_block(buf, path, zero_based, first_line=1):
    """The :class:`Block` of the bytes ``buf`` (whole lines of a LIBSVM file
    whose first is line ``first_line``: errors name the file's line).
    ``zero_based=False`` refuses an index 0 (a one-based file)."""
    n_lines = _count(buf, 10) + 1
    n_pairs = _count(buf, 58)
    labels = np.empty(n_lines, np.float64)
    indptr = np.empty(n_lines + 1, np.int64)
    indices = np.empty(n_pairs, np.int64)
    data = np.empty(n_pairs, np.float64)
    fallback = np.empty((min(n_lines + n_pairs, FALLBACK_TOKENS), 3), np.int64)
    n_rows = nnz = pos = 0
    smallest, largest = _INDEX_MAX + 1, -1
    indptr[0] = 0
    while True:  # more than one call only when the fallback tokens fill their array
        part = buf[pos:]
        (status, rows, k, line, err_start, err_end, _, n_fallback, low, high,
         stop) = _parse(part, zero_based is False, labels[n_rows:], indptr[n_rows:],
                        indices[nnz:], data[nnz:], fallback)
        # tokens before an error are checked first: the first fault in the file is reported
        if n_fallback:
            _parse_fallback(path, part, fallback[:n_fallback], labels[n_rows:],
                            data[nnz:], first_line)
        if status == _FULL and rows == 0:  # one line with more such tokens: room for it
            fallback = np.empty((2 * fallback.shape[0], 3), np.int64)
            continue
        if status and status != _FULL:
            message = _FIXES[status].format(tok=_token(part, err_start, err_end),
                                            max=_INDEX_MAX)
            raise ValueError(f"{path}, line {line + first_line - 1}: {message}")
        indptr[n_rows:n_rows + rows + 1] += nnz
        n_rows, nnz = n_rows + rows, nnz + k
        smallest, largest = min(smallest, int(low)), max(largest, int(high))
        if status != _FULL:
            break
        first_line += line
        pos += stop
    indices = indices[:nnz] if nnz == n_pairs else indices[:nnz].copy()
    data = data[:nnz] if nnz == n_pairs else data[:nnz].copy()
    block = Block(labels[:n_rows].copy(), indptr[: n_rows + 1].copy(), indices, data,
                  smallest, largest)
    block.n_bytes = buf.shape[0]
    return block


def shift_of(blocks_nnz_smallest, zero_based):
    """1 if the indices count from 1, else 0, for files read together:
    ``zero_based=False``, or ``"auto"`` and every file has an index and none
    is 0 (``load_svmlight_files``' rule: one convention for every file).
    ``blocks_nnz_smallest``: ``(nnz, smallest index)`` of each file."""
    if zero_based is False:
        return 1
    if zero_based is True:
        return 0
    return int(all(nnz and smallest > 0 for nnz, smallest in blocks_nnz_smallest))


def read_libsvm(path, n_features: int | None = None, zero_based="auto"):
    """``(X, y)`` of a LIBSVM file, equal bit for bit to ``load_svmlight_file``'s.

    path
        a LIBSVM (svmlight) text file; ``.gz`` and ``.bz2`` are decompressed.
    n_features
        number of columns of ``X`` (default: the largest index in the file); a
        file with more columns raises ``ValueError``.
    zero_based
        ``True``: indices count from 0; ``False``: from 1; ``"auto"`` (default):
        from 1 unless an index 0 occurs, as scikit-learn decides.  A bool
        (or numpy bool) or ``"auto"``: anything else raises ``ValueError``, as
        scikit-learn's ``InvalidParameterError`` does.

    Returns ``X`` (``scipy.sparse.csr_matrix`` of float64, int64 indices sorted
    in every row) and ``y`` (float64), as ``load_svmlight_file(path,
    n_features=n_features, zero_based=zero_based)``.
    """
    zero_based = check_zero_based(zero_based)
    if n_features is not None and (not isinstance(n_features, (int, np.integer))
                                   or isinstance(n_features, bool) or n_features < 1):
        raise ValueError(f"n_features must be a positive integer or None, got {n_features!r}")
    path = Path(path)
    block = parse_block(_read_bytes(path), path, zero_based)
    shift = shift_of([(block.nnz, block.smallest)], zero_based)
    columns = block.largest + 1 - shift if block.nnz else 1
    if n_features is None:
        n_features = columns
    elif n_features < columns:
        raise ValueError(f"n_features was set to {n_features}, but input file contains "
                         f"{columns} features; {path}: pass n_features >= {columns} or "
                         "None (the largest index)")
    X, y = block.csr(shift, n_features)
    return X, y


def open_bytes(path):
    """A binary file object of ``path``'s bytes, decompressed for
    ``.gz``/``.bz2`` as :func:`read_libsvm` and scikit-learn decide."""
    ext = os.path.splitext(str(path))[1]
    if ext == ".gz":
        return gzip.open(path, "rb")
    if ext == ".bz2":
        return bz2.open(path, "rb")
    return open(path, "rb")


class _Arrays:
    """Output arrays of the compiled pass for up to ``pairs`` values and
    ``rows`` rows (doubled by :meth:`grow` for a line that does not fit)."""

    def __init__(self, pairs, rows):
        self.labels = np.empty(rows, np.float64)
        self.indptr = np.empty(rows + 1, np.int64)
        self.indices = np.empty(pairs, np.int64)
        self.data = np.empty(pairs, np.float64)
        # a label a row and a value a pair: never full before the arrays (pages
        # untouched, hence not resident, unless tokens go to float())
        self.fallback = np.empty((rows + pairs, 3), np.int64)

    def grow(self):
        self.__init__(2 * self.indices.shape[0], 2 * self.labels.shape[0])


def _read_into(f, view):
    """Fill ``view`` from ``f`` (several reads if needed); the bytes read."""
    got = 0
    while got < len(view):
        n = f.readinto(view[got:])
        if not n:
            break
        got += n
    return got


def libsvm_blocks(path, zero_based="auto", block_bytes=1 << 22, reuse=0):
    """The file's :class:`Block` s in order, memory flat in the file's size.

    The bytes are read (``readinto``, no new bytes object per block) into a
    text buffer of ``block_bytes`` (grown to hold a longer line), and the
    compiled pass parses its whole lines into arrays for about
    ``block_bytes / 8`` values; when they are full it stops before the line
    that does not fit and the next block starts there.  ``reuse=k``: the
    blocks' arrays are ``k`` sets used in turn (no new pages, hence no page
    faults, after the first ``k`` blocks: the caller must be done with a
    block ``k - 1`` blocks later); 0: new arrays for every block.

    Together the blocks hold the rows and values :func:`read_libsvm` returns
    (every token is parsed alone, so where the file is cut changes nothing);
    the caller shifts the indices (:func:`shift_of`) once it knows the
    convention of the whole file.  An error names the line of the file."""
    zero_based = check_zero_based(zero_based)
    path = Path(path)
    one_based = zero_based is False
    pairs = max(block_bytes // 8, 16)
    rows = max(pairs // 4, 16)
    ring = [_Arrays(pairs, rows) for _ in range(reuse)]
    text = bytearray(max(block_bytes, 64))
    filled = pos = 0
    eof = False
    first_line = 1
    k = 0
    with open_bytes(path) as f:
        while True:
            end = text.rfind(b"\n", pos, filled) + 1
            if end <= pos:  # no whole line left in the buffer
                if eof:
                    if pos == filled:
                        return
                    end = filled  # the last line, without its newline
                else:
                    tail = filled - pos
                    if tail == len(text):  # a line longer than the buffer
                        text = text[pos:filled] + bytearray(len(text))
                    else:
                        text[:tail] = text[pos:filled]
                    filled, pos = tail, 0
                    got = _read_into(f, memoryview(text)[filled:])
                    eof = got < len(text) - filled
                    filled += got
                    continue
            buf = np.frombuffer(text, np.uint8)[pos:end]
            buf.flags.writeable = False  # one compiled signature with _read_bytes'
            arrays = ring[k % reuse] if reuse else _Arrays(pairs, rows)
            while True:
                (status, n_rows, nnz, line, err_start, err_end, fallback, n_fallback,
                 smallest, largest, stop) = _parse(buf, one_based, arrays.labels,
                                                   arrays.indptr, arrays.indices,
                                                   arrays.data, arrays.fallback)
                if status == _FULL and n_rows == 0:
                    arrays.grow()  # a line with more values than the arrays hold
                    continue
                break
            if n_fallback:
                _parse_fallback(path, buf, fallback[:n_fallback], arrays.labels,
                                arrays.data, first_line)
            if status and status != _FULL:
                message = _FIXES[status].format(tok=_token(buf, err_start, err_end),
                                                max=_INDEX_MAX)
                raise ValueError(f"{path}, line {line + first_line - 1}: {message}")
            del buf  # the text buffer is not resized while an array views it
            block = Block(arrays.labels[:n_rows], arrays.indptr[:n_rows + 1],
                          arrays.indices[:nnz], arrays.data[:nnz], smallest, largest)
            block.n_bytes = stop
            yield block
            first_line += line
            pos += stop
            k += 1


class Survey:
    """What :func:`libsvm_survey` found: ``n_rows``, the distinct ``labels``
    (sorted), whether any row has an index (``has_index``), the ``smallest``
    and ``largest`` index (as the file writes them), ``n_bytes``."""

    def __init__(self, n_rows, labels, smallest, largest, n_bytes):
        self.n_rows, self.labels, self.n_bytes = n_rows, labels, n_bytes
        self.has_index = largest >= 0
        self.smallest, self.largest = int(smallest), int(largest)


def libsvm_survey(path, block_bytes=1 << 23, max_labels=16):
    """The rows, labels and index range of a LIBSVM file without parsing its
    values (several times faster than :func:`libsvm_blocks`): a
    :class:`Survey`, or None if a line is one the survey does not read (a
    comment, ``qid``, a label that is not a finite number, more than
    ``max_labels`` distinct label tokens, an index that is not plain digits): then parse
    the file to know.  On a file :func:`read_libsvm` reads, the survey's
    rows, labels and indices are exactly that reading's; a line the full
    parse refuses (bad values, unsorted indices) may pass the survey."""
    path = Path(path)
    spans = np.empty((max_labels, 2), np.int64)
    found = set()  # the distinct label tokens, as bytes
    n_rows, smallest, largest, n_bytes = 0, _INDEX_MAX + 1, -1, 0
    text = bytearray(max(block_bytes, 64))
    view = memoryview(text)
    filled = 0
    eof = False
    with open_bytes(path) as f:
        while not eof:
            got = _read_into(f, view[filled:])
            eof = got < len(text) - filled
            filled += got
            end = filled if eof else text.rfind(b"\n", 0, filled) + 1
            if end == 0:  # a line longer than the buffer
                view.release()
                text.extend(bytearray(len(text)))
                view = memoryview(text)
                continue
            buf = np.frombuffer(text, np.uint8)[:end]
            buf.flags.writeable = False
            status, rows, n_labels, low, high = _survey(buf, spans)
            del buf
            if status:
                return None
            found.update(bytes(text[a:b]) for a, b in spans[:n_labels].tolist())
            if len(found) > max_labels:
                return None
            n_rows += rows
            smallest, largest = min(smallest, int(low)), max(largest, int(high))
            n_bytes += end
            tail = filled - end
            text[:tail] = text[end:filled]
            filled = tail
    view.release()
    try:  # float(), as scikit-learn reads a label (the compiled pass: the same values)
        labels = {float(token) for token in found}
    except ValueError:
        return None
    if not all(np.isfinite(v) for v in labels):
        return None
    return Survey(n_rows, np.array(sorted(labels)), smallest, largest, n_bytes)


def _sparse_interface() -> str:
    """scikit-learn's configured sparse type; its default when it is not imported
    (only code that imported it can have changed it: importing it costs a second)."""
    sklearn = sys.modules.get("sklearn")
    if sklearn is None:
        return "spmatrix"
    return sklearn.get_config().get("sparse_interface", "spmatrix")
