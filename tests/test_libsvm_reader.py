"""olearn.datasets.read_libsvm: bit for bit what sklearn's load_svmlight_file returns.

Every comparison checks X's type, shape, index dtypes, indptr, indices, the bits of
X.data and of y.  The float tests also check that their files hold values a naive
parser (``m * 10.0**q``, or the mantissa cut to 19 digits without falling back to
an exact parser) gets wrong, so they fail on such a parser.
"""
import bz2
import gzip
import random
import re

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from olearn.datasets import read_libsvm

NUMBER = re.compile(r"([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$")


def naive_float(token):
    """The textbook shortcut: integer mantissa times a floating power of ten."""
    sign, whole, frac, exp = NUMBER.match(token).groups()
    frac = frac or ""
    m = int(whole + frac or "0")
    value = m * 10.0 ** (int(exp or 0) - len(frac))
    return -value if sign == "-" else value


def truncated_float(token):
    """A parser that keeps 19 significant digits and drops the rest."""
    sign, whole, frac, exp = NUMBER.match(token).groups()
    digits = (whole + (frac or "")).lstrip("0")
    shift = int(exp or 0) - len(frac or "") + max(len(digits) - 19, 0)
    value = float(f"{int(digits[:19] or '0')}e{shift}")
    return -value if sign == "-" else value


def bits(a):
    return np.asarray(a, np.float64).view(np.int64)


def assert_same(path, **options):
    """read_libsvm(path) == load_svmlight_file(path), bit for bit; returns (X, y)."""
    X, y = read_libsvm(path, **options)
    Xs, ys = load_svmlight_file(str(path), **options)
    assert type(X) is type(Xs) and X.shape == Xs.shape
    assert X.indices.dtype == Xs.indices.dtype and X.indptr.dtype == Xs.indptr.dtype
    np.testing.assert_array_equal(X.indptr, Xs.indptr)
    np.testing.assert_array_equal(X.indices, Xs.indices)
    np.testing.assert_array_equal(bits(X.data), bits(Xs.data))
    np.testing.assert_array_equal(bits(y), bits(ys))
    assert y.dtype == np.float64 and X.data.dtype == np.float64
    assert X.has_sorted_indices and X.has_canonical_format
    return X, y


def write(tmp_path, text, name="data.svm"):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


# --- data sets of the data home ------------------------------------------------------
@pytest.mark.parametrize("name, files", [
    ("w7a", ["w7a/w7a.gz", "w7a/w7a.t.gz"]),          # binary features
    ("a1a", ["a1a/a1a.gz"]),                           # binary features
    ("svmguide1", ["svmguide1/svmguide1.gz"]),         # real values, %e
    ("german.numer", ["german.numer/german.numer.gz"]),  # whole numbers as 1.000000
    ("splice", ["splice/splice_scale.gz"]),            # real values
])
def test_data_home_files(name, files, data_home, require_data):
    require_data(name)
    for rel in files:
        X, y = assert_same(data_home / rel)
        assert X.nnz > 1000
        if name == "svmguide1":
            # real values: some of them a naive parser rounds differently
            tokens = re.findall(rb":(\S+)", gzip.decompress((data_home / rel).read_bytes()))
            tokens = [t.decode() for t in tokens[:200000]]
            assert any(naive_float(t) != float(t) for t in tokens), rel


# --- generated values ---------------------------------------------------------------
def random_values(rng, n):
    scale = 10.0 ** rng.integers(-30, 30, n)
    return rng.standard_normal(n) * scale


FORMATS = {
    "repr": repr, "%.7e": "{:.7e}".format, "%.17g": "{:.17g}".format,
    "%.16g": "{:.16g}".format, "%.6f": "{:.6f}".format, "%g": "{:g}".format,
}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_random_values_in_many_formats(tmp_path, fmt):
    rng = np.random.default_rng(len(fmt))
    write_value = FORMATS[fmt]
    lines, tokens = [], []
    for row in range(400):
        cols = np.sort(rng.choice(1000, size=rng.integers(0, 25), replace=False)) + 1
        values = [write_value(float(v)) for v in random_values(rng, len(cols))]
        tokens += values
        label = write_value(float(rng.standard_normal()))
        tokens.append(label)
        lines.append(" ".join([label] + [f"{c}:{v}" for c, v in zip(cols, values)]))
    assert_same(write(tmp_path, "\n".join(lines) + "\n"))
    assert any(naive_float(t) != float(t) for t in tokens)
    if fmt in ("repr", "%.17g"):
        assert sum(len(t.lstrip("+-0.").replace(".", "").split("e")[0]) > 15
                   for t in tokens) > 100  # mantissas >= 2**53: the exact fallback


def test_integers_and_plain_forms(tmp_path):
    text = ("1 1:2 2:+3 3:-4 4:0 5:-0 6:00012 7:.5 8:5. 9:+.25 10:-5.e1 11:1E3 12:1e+2\n"
            "-1 1:123456789012345678 2:9007199254740993 3:9007199254740992 "
            "4:18014398509481983 5:0.3 6:0.30000000000000004 7:0.7\n"
            "+1 2:3.14159265358979323846264338327950288 3:2.718281828459045e-3\n")
    X, _ = assert_same(write(tmp_path, text))
    assert np.signbit(X.data[4]) and X.data[5] == 12 and X.data[9] == -50.0
    # 2**53 + 1 rounds to even; 2**54 - 1 needs more than a 2**53 mantissa
    assert X[1, 4] == 0.3 and X[1, 6] == 0.7 and X[1, 5] == 0.30000000000000004
    tokens = ["0.3", "0.7", "9007199254740993", "18014398509481983", "0.30000000000000004",
              "3.14159265358979323846264338327950288", "2.718281828459045e-3"]
    assert any(naive_float(t) != float(t) for t in tokens)


def test_halfway_cases_need_every_digit(tmp_path):
    """Decimal halfway between two doubles: digit 20 onwards decides the rounding."""
    below = "1.00000000000000011102230246251565404236316680908203125"  # ties to even: 1.0
    above = below + "1"                                               # rounds up
    far = "0." + "0" * 400 + "1" + "0" * 20 + "e400"                  # 1e-21 in 400+ digits
    text = f"1 1:{below} 2:{above} 3:{far}\n{above} 1:{below}\n"
    X, y = assert_same(write(tmp_path, text))
    assert X[0, 0] == 1.0 and X[0, 1] == np.nextafter(1.0, 2.0) and y[1] > 1.0
    assert truncated_float(above) != float(above)


def test_extreme_exponents(tmp_path):
    values = ["1e-320", "4.9e-324", "2.4703282292062328e-324", "2.2250738585072011e-308",
              "2.2250738585072014e-308", "1e308", "1.7976931348623157e308",
              "1.7976931348623159e308", "1e309", "-1e400", "1e-400", "0e999", "1e22",
              "1e23", "9e30", "123456789e20", "1.5e-10", "7e-22", "8.589973e9"]
    text = "1 " + " ".join(f"{i + 1}:{v}" for i, v in enumerate(values)) + "\n"
    X, _ = assert_same(write(tmp_path, text))
    assert X.data[0] == float("1e-320") and 0 < X.data[0] < 2.3e-308  # subnormal
    assert np.isinf(X.data[8]) and X.data[9] == -np.inf
    assert any(naive_float(t) != float(t) for t in values)


def test_labels_nan_inf_and_python_number_syntax(tmp_path):
    """Tokens outside the plain grammar go to Python's float(), as sklearn's do."""
    text = ("nan 1:1\ninf 1:2\n-Infinity 1:inf\n+NaN 2:1_000.5\n1_0 3:-iNF 4:nan\n"
            "1e-320 1:1 1_1:2 +12:3\n")
    X, y = assert_same(write(tmp_path, text))
    assert np.isnan(y[0]) and y[1] == np.inf and y[2] == -np.inf and y[4] == 10.0
    assert X[3, 1] == 1000.5 and X[4, 2] == -np.inf
    assert X.indices[-3:].tolist() == [0, 10, 11]  # int() reads 1_1 and +12 too


def test_few_exact_fallbacks_in_a_large_file(tmp_path):
    """A few tokens for float() among many plain ones (sliced one by one)."""
    plain = "".join(f"{i % 2 * 2 - 1} 1:0.{i} 3:{i}e-3\n" for i in range(20000))
    X, y = assert_same(write(tmp_path, plain + "nan 2:1e-320 4:0.1000000000000000055511151231257827\n"))
    assert np.isnan(y[-1]) and X.data[-2] == 1e-320
    with pytest.raises(ValueError, match="line 20001: value 'bad'"):
        read_libsvm(write(tmp_path, plain + "1 2:bad\n", "bad.svm"))


# --- layout ---------------------------------------------------------------------------
def test_comments_blank_lines_crlf_and_tabs(tmp_path):
    text = ("# header 1:2 3:4\n\n   \n1 1:0.1 3:0.2 # trailing 9:9\r\n"
            "-1\t2:0.3\t\t4:0.4\r\n#\n+1 5:1#glued:1\n-1\n  \t\r\n1 1:0.7\x0b2:0.8\x0c")
    X, y = assert_same(write(tmp_path, text))
    assert X.shape == (5, 5) and list(y) == [1, -1, 1, -1, 1]
    assert X.indptr.tolist() == [0, 2, 4, 5, 5, 7]
    assert X[0, 0] == 0.1 and X[4, 1] == 0.8 and X[2, 4] == 1.0


def test_qid_is_skipped(tmp_path):
    text = "3 qid:1 1:0.5 2:1\n2 qid:1 2:0.25\n1 qid:abc 3:0.125\n"
    X, y = assert_same(write(tmp_path, text))
    assert X.shape == (3, 3) and X.nnz == 4


@pytest.mark.parametrize("zero_based", ["auto", True, False])
def test_zero_based_rule(tmp_path, zero_based):
    one = write(tmp_path, "1 1:1 3:2\n-1 2:3\n", "one.svm")
    X, _ = assert_same(one, zero_based=zero_based)
    assert X.shape[1] == (4 if zero_based is True else 3)
    zero = write(tmp_path, "1 0:1 3:2\n-1 2:3\n", "zero.svm")
    if zero_based is False:
        with pytest.raises(ValueError, match="line 1"):
            read_libsvm(zero, zero_based=False)
        with pytest.raises(ValueError):
            load_svmlight_file(str(zero), zero_based=False)
    else:
        X, _ = assert_same(zero, zero_based=zero_based)
        assert X.shape[1] == 4 and X[0, 0] == 1


def test_n_features(tmp_path):
    path = write(tmp_path, "1 1:1 7:2\n-1 2:3\n")
    X, _ = assert_same(path, n_features=10)
    assert X.shape == (2, 10)
    assert_same(path, n_features=7)
    with pytest.raises(ValueError, match="n_features was set to 6, but input file contains 7"):
        read_libsvm(path, n_features=6)
    with pytest.raises(ValueError, match="n_features was set to 6"):
        load_svmlight_file(str(path), n_features=6)


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "1\n-1\n", "1 # c:1\n"])
def test_empty_files_and_rows(tmp_path, text):
    X, y = assert_same(write(tmp_path, text))
    assert X.nnz == 0 and X.shape[1] == 1


def test_explicit_zeros_kept(tmp_path):
    X, _ = assert_same(write(tmp_path, "1 1:0 2:0.0 3:-0 4:1\n"))
    assert X.nnz == 4 and np.signbit(X.data[2])


@pytest.mark.parametrize("suffix, compress", [(".gz", gzip.compress), (".bz2", bz2.compress)])
def test_compressed(tmp_path, suffix, compress):
    rng = np.random.default_rng(5)
    lines = [f"{rng.choice([-1, 1])} " + " ".join(
        f"{c + 1}:{float(v)!r}" for c, v in zip(np.sort(rng.choice(50, 8, replace=False)),
                                          rng.standard_normal(8))) for _ in range(300)]
    text = "\n".join(lines) + "\n"
    X, _ = assert_same(write(tmp_path, compress(text.encode()), "data.svm" + suffix))
    Xp, _ = read_libsvm(write(tmp_path, text, "plain.svm"))
    assert (X != Xp).nnz == 0 and X.nnz == 2400


# --- errors ---------------------------------------------------------------------------
ERRORS = [
    ("1 1:1\n1 2\n", "line 2", "has no ':'"),
    ("1 a:2\n", "line 1", "not an integer"),
    ("1 :2\n", "line 1", "not an integer"),
    ("1 1:1 -3:2\n", "line 1", "negative index"),
    ("# c\n\n1 3:1 2:1\n", "line 3", "sorted and unique"),
    ("1 2:1 2:1\n", "line 1", "sorted and unique"),
    ("1 1:1\n-1 1:abc\n", "line 2", "value 'abc' is not a number"),
    ("1 1:1\n-1 1:\n", "line 2", "value '' is not a number"),
    ("1 1:1:1\n", "line 1", "value '1:1' is not a number"),
    ("1:2 3:4\n", "line 1", "label '1:2' is not a number"),
    ("x 1:2\n", "line 1", "label 'x' is not a number"),
    ("1 qid 1:2\n", "line 1", "qid:NUMBER"),
    ("1 1:0x10\n", "line 1", "not a number"),
    ("1 1:1\n1 1:2\n1 5", "line 3", "has no ':'"),        # at the end, no newline
    ("1 1:1\r2 2:2\n", "line 1", "has no ':'"),           # a lone CR does not end a line
    ("1 1:1\n2 1:bad\n3 2:1 1:1\n", "line 2", "not a number"),  # the first fault wins
]


@pytest.mark.parametrize("text, line, what", ERRORS)
def test_malformed_input_names_line_and_fix(tmp_path, text, line, what):
    path = write(tmp_path, text)
    with pytest.raises(ValueError) as err:
        read_libsvm(path)
    message = str(err.value)
    assert f"{path}, {line}:" in message and what in message
    with pytest.raises(ValueError):  # sklearn refuses the file too
        load_svmlight_file(str(path))


def test_index_too_large(tmp_path):
    path = write(tmp_path, "1 1:1 3000000000:1\n")
    with pytest.raises(ValueError, match="line 1: index of '3000000000:1' is larger"):
        read_libsvm(path)
    with pytest.raises(OverflowError):  # sklearn stores indices in a C int
        load_svmlight_file(str(path))
    assert_same(write(tmp_path, "1 1:1 2147483647:1\n", "max.svm"))


def test_arguments_checked(tmp_path):
    path = write(tmp_path, "1 1:1\n")
    with pytest.raises(ValueError, match="zero_based"):
        read_libsvm(path, zero_based="yes")
    with pytest.raises(ValueError, match="n_features"):
        read_libsvm(path, n_features=0)


def test_random_text_agrees_with_sklearn(tmp_path):
    """Random well- and ill-formed files: the same result, or both refuse them."""
    rng = random.Random(0)
    pieces = ["1", "-1", "+1", "0", "2", "3", "10", ":", ":", " ", "\t", "\n", "\r\n", "#",
              ".", "e", "-", "+", "_", "5", "qid", "nan", "1e-320", "9" * 17, "\x0b", "x"]
    n_read = 0
    for case in range(300):
        lines = []
        for _ in range(rng.randint(0, 4)):
            cols = sorted(rng.sample(range(12), rng.randint(0, 4)))
            lines.append(rng.choice(["1", "-1", "2.5", "nan"]) + "".join(
                f" {c}:{rng.choice(['1', '0.1', '-3e5', '1e-320', '.5', '5.', '1_0', '0x1'])}"
                for c in cols) + rng.choice(["", " # c:1", "\r"]))
        noise = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        text = "\n".join(lines) + rng.choice(["", "\n"]) + (noise if case % 3 == 0 else "")
        path = write(tmp_path, text)
        for zero_based in ("auto", False):
            try:
                load_svmlight_file(str(path), zero_based=zero_based)
            except (ValueError, OverflowError):
                with pytest.raises(ValueError, match="line"):
                    read_libsvm(path, zero_based=zero_based)
            else:
                assert_same(path, zero_based=zero_based)
                n_read += 1
    assert n_read > 200


def test_eight_digits_at_a_time_at_every_length(tmp_path):
    """The reader takes up to eight digits of a number or an index at once
    (SWAR): every length of integer part, fraction and index from 0 to 20
    digits, with and without leading zeros, mantissas crossing 18
    significant digits inside a group of eight, and numbers ending within
    the last eight bytes of the file, read as scikit-learn reads them."""
    rng = np.random.default_rng(8)

    def digits(k, lead=0):
        body = "".join(rng.choice(list("0123456789"), size=k))
        return "0" * lead + body

    lines = []
    for whole in range(0, 21):
        for frac in range(0, 21, 3):
            for lead in (0, 1, 9):
                number = digits(whole, lead) + ("." + digits(frac, lead % 4) if frac else "")
                if not number.strip("."):
                    number = "0"
                col = int(rng.integers(1, 10 ** int(rng.integers(1, 9))))
                zeros = "0" * int(rng.integers(0, 3))
                lines.append(f"{number} {zeros}{col}:{number}e{int(rng.integers(-5, 5))}")
    text = "\n".join(lines)
    for tail in ("", "\n", "\n1 3:7", "\n1 3:1234567", "\n-1 3:0.00000001", "\n2"):
        assert_same(write(tmp_path, text + tail))
    # eight digits and more before the ':' (the byte-at-a-time path), and a
    # group of digits ending in something else than ':' (an error, as sklearn)
    assert_same(write(tmp_path, "1 12345678:1 123456789:2 1234567890:3\n"))
    for bad in ("1 1234a:1\n", "1 12:1 3_:2\n"):
        with pytest.raises(ValueError):
            load_svmlight_file(str(write(tmp_path, bad)))
        with pytest.raises(ValueError, match="line 1"):
            read_libsvm(write(tmp_path, bad))


# --- issue 26 item 5: zero_based is a bool or "auto" -------------------------------
@pytest.mark.parametrize("value", [0, 1, 0.0, "true", None])
def test_zero_based_non_bool_refused_as_sklearn_does(tmp_path, value):
    """0 == False passed the old membership test and was read as True (every
    column shifted); scikit-learn refuses every non-bool, and so does read_libsvm."""
    path = write(tmp_path, "1 1:0.5 3:1\n-1 2:2\n")
    with pytest.raises(ValueError, match="zero_based"):
        load_svmlight_file(str(path), zero_based=value)
    with pytest.raises(ValueError, match="zero_based"):
        read_libsvm(path, zero_based=value)


def test_zero_based_numpy_bools(tmp_path):
    """numpy.True_ reads as True (as scikit-learn); numpy.False_ as False:
    scikit-learn 1.9 accepts it but tests ``zero_based is False``, so it checks
    the file as one-based yet leaves the indices unshifted (a fourth column
    of a three-feature file); here it is False, the reading it names."""
    path = write(tmp_path, "1 1:0.5 3:1\n-1 2:2\n")
    assert_same(path, zero_based=True)
    X_true, _ = read_libsvm(path, zero_based=np.True_)
    Xs, _ = load_svmlight_file(str(path), zero_based=True)
    assert (X_true != Xs).nnz == 0 and X_true.shape == Xs.shape
    X_false, _ = read_libsvm(path, zero_based=np.False_)
    Xf, _ = load_svmlight_file(str(path), zero_based=False)
    assert X_false.shape == Xf.shape == (2, 3)
    np.testing.assert_array_equal(X_false.indices, Xf.indices)


# --- issue 30 item 3: blocks of a file, the values of the whole-file reader ----------
def _concatenated(path, zero_based, block_bytes):
    from olearn.datasets.libsvm import libsvm_blocks, shift_of
    blocks = list(libsvm_blocks(path, zero_based, block_bytes))
    nnz = sum(b.nnz for b in blocks)
    smallest = min((b.smallest for b in blocks if b.nnz), default=0)
    shift = shift_of([(nnz, smallest)], zero_based)
    largest = max((b.largest for b in blocks if b.nnz), default=shift - 1)
    parts = [b.csr(shift, largest + 1 - shift if nnz else 1) for b in blocks]
    return sp.vstack([X for X, _ in parts], format="csr"), np.concatenate(
        [y for _, y in parts]), len(blocks)


@pytest.mark.parametrize("block_bytes", [1, 7, 64, 1 << 20])
@pytest.mark.parametrize("zero_based", ["auto", True, False])
def test_blocks_hold_the_whole_file_values(tmp_path, block_bytes, zero_based):
    """Read in blocks of any size (shorter than a line included), a file gives
    the rows, indices and value bits of read_libsvm / load_svmlight_file."""
    rng = random.Random(5)
    lines = ["# a comment", ""]
    for k in range(300):
        feats = sorted(rng.sample(range(1, 60), rng.randint(0, 6)))
        values = [rng.choice(["1", "0.1", "-2.5e-3", "0.30000000000000004",
                              "123456789012345678901", "1e-310", "inf"])
                  for _ in feats]
        label = rng.choice(["1", "-1", "+1", "1.0"])
        lines.append(" ".join([label, *(f"{i}:{v}" for i, v in zip(feats, values))])
                     + (" # tail" if k % 17 == 0 else "") + ("\r" if k % 13 == 0 else ""))
    for text in ["\n".join(lines) + "\n", "\n".join(lines)]:   # last line unterminated
        path = write(tmp_path, text)
        X, y = assert_same(path, zero_based=zero_based)
        Xb, yb, n_blocks = _concatenated(path, zero_based, block_bytes)
        assert Xb.shape == X.shape and (block_bytes > 1000 or n_blocks > 10)
        np.testing.assert_array_equal(Xb.indptr, X.indptr)
        np.testing.assert_array_equal(Xb.indices, X.indices)
        np.testing.assert_array_equal(bits(Xb.data), bits(X.data))
        np.testing.assert_array_equal(bits(yb), bits(y))


@pytest.mark.parametrize("suffix, compress", [(".gz", gzip.compress), (".bz2", bz2.compress)])
def test_blocks_of_compressed_files(tmp_path, suffix, compress):
    text = "".join(f"{k % 2 * 2 - 1} {1 + k % 5}:{k / 7!r}\n" for k in range(500))
    path = write(tmp_path, compress(text.encode()), "data.svm" + suffix)
    X, y = assert_same(path)
    Xb, yb, n_blocks = _concatenated(path, "auto", 100)
    assert n_blocks > 50 and (Xb != X).nnz == 0
    np.testing.assert_array_equal(bits(yb), bits(y))


def test_block_errors_name_the_line_of_the_file(tmp_path):
    from olearn.datasets.libsvm import libsvm_blocks
    lines = [f"1 1:{k}" for k in range(100)]
    lines[70] = "1 1:x"
    lines[90] = "1 2:1 1:1"
    path = write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=r"line 71: value 'x'"):
        list(libsvm_blocks(path, "auto", 50))
    lines[70] = "1 1:2"
    path = write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=r"line 91: feature '1:1'"):
        list(libsvm_blocks(path, "auto", 50))


# --- libsvm_survey: rows, labels and index range without parsing the values -----------
def _survey_of_reading(path):
    """Rows, sorted distinct labels, smallest and largest index as the file
    writes them, from scikit-learn's reading (zero_based=True: no shift)."""
    X, y = load_svmlight_file(str(path), zero_based=True)
    X = sp.csr_matrix(X)
    return (X.shape[0], sorted(set(y.tolist())),
            int(X.indices.min()) if X.nnz else None, int(X.indices.max()) if X.nnz else -1)


@pytest.mark.parametrize("block_bytes", [64, 1 << 20])
def test_survey_equals_the_full_reading(tmp_path, block_bytes):
    """On files read_libsvm reads (blank lines, label-only rows, \\r\\n, tabs,
    trailing blanks, explicit zeros, values off the exact path, a last line
    without newline, lines longer than the buffer) the survey gives exactly
    the rows, labels and index range of the full reading."""
    from olearn.datasets.libsvm import libsvm_survey
    rng = random.Random(7)
    n_checked = 0
    for case in range(60):
        lines = []
        for _ in range(rng.randint(1, 40)):
            feats = sorted(rng.sample(range(0 if case % 2 else 1, 3000), rng.randint(0, 30)))
            label = rng.choice(["1", "-1", "+1", "1.0", "2", "-1e0", "0"][:3 + case % 5])
            sep = rng.choice([" ", "  ", "\t"])
            lines.append(label + "".join(
                f"{sep}{i}:{rng.choice(['1', '0', '-2.5e-3', '0.30000000000000004', 'inf', 'nan', '123456789012345678901'])}"
                for i in feats) + rng.choice(["", " ", "\r", " \t"]))
            if rng.random() < 0.1:
                lines.append(rng.choice(["", "   ", "\r"]))
        text = "\n".join(lines) + rng.choice(["", "\n"])
        path = write(tmp_path, text)
        found = libsvm_survey(path, block_bytes=block_bytes)
        rows, labels, smallest, largest = _survey_of_reading(path)
        assert found is not None, text
        assert (found.n_rows, found.labels.tolist(), found.largest) == (rows, labels, largest)
        assert found.has_index == (smallest is not None)
        if smallest is not None:
            assert found.smallest == smallest
        assert found.n_bytes == len(text.encode())
        n_checked += 1
    assert n_checked == 60


@pytest.mark.parametrize("text", [
    "1 1:0.5\n# a comment\n-1 2:1\n", "1 1:0.5 # c:9\n", "1 qid:3 1:0.5\n",
    "nan 1:1\n", "inf 1:1\n", "0x1 1:1\n", "1 1:1 1_0:1\n", "1 -1:1\n", "1 1:0.5 x:2\n",
    "1 2:0.5 1:1\n", "1 1:0.5 2\n", "1 1:0.5 3:1:2\n",
    "".join(f"{k} 1:1\n" for k in range(17)),    # more labels than the survey holds
])
def test_survey_declines_what_it_does_not_read(tmp_path, text):
    """A comment, qid, a label off the exact path, an index that is not plain
    digits, a last index below the first, a last token without ':', more
    than 16 labels: None (the caller parses the file in full)."""
    from olearn.datasets.libsvm import libsvm_survey
    assert libsvm_survey(write(tmp_path, text)) is None


def test_survey_of_compressed_and_large_files(tmp_path):
    from olearn.datasets.libsvm import libsvm_survey
    text = "".join(f"{k % 2 * 2 - 1} {1 + k % 5}:{k / 7!r} {10 + k % 3000}:1\n"
                   for k in range(5000))
    for name, data in [("a.svm.gz", gzip.compress(text.encode())),
                       ("a.svm.bz2", bz2.compress(text.encode())), ("a.svm", text.encode())]:
        path = write(tmp_path, data, name)
        found = libsvm_survey(path, block_bytes=4096)
        rows, labels, smallest, largest = _survey_of_reading(path)
        assert (found.n_rows, found.labels.tolist(), found.smallest, found.largest) == (
            rows, labels, smallest, largest)


@pytest.mark.parametrize("capacity", [1, 3, 7, 1 << 16])
def test_more_float_tokens_than_the_fallback_array_holds(tmp_path, monkeypatch, capacity):
    """Tokens handed to float() (19+ digits, nan, inf) beyond the array that
    holds them: read_libsvm's pass goes on in parts (a line with more of them
    than the array holds included), the values those of scikit-learn, and an
    error after a part names its line of the file."""
    from olearn.datasets import libsvm
    monkeypatch.setattr(libsvm, "FALLBACK_TOKENS", capacity)
    rng = random.Random(3)
    long = ["0.1000000000000000055511151231257827", "123456789012345678901", "inf",
            "-1e-320", "0.5", "nan", "1.25"]
    lines = []
    for k in range(200):
        feats = sorted(rng.sample(range(1, 40), rng.randint(0, 12)))
        label = rng.choice(["1", "-1", "1.00000000000000000000001"])
        lines.append(label + "".join(f" {i}:{rng.choice(long)}" for i in feats))
    path = write(tmp_path, "\n".join(lines) + "\n")
    X, _ = assert_same(path)
    assert np.isnan(X.data).sum() > min(capacity, 100)  # the array fills (but 1 << 16)
    lines[150] = "1 3:0.1000000000000000055511151231257827 2:1"
    with pytest.raises(ValueError, match=r"line 151: feature '2:1' does not come after"):
        read_libsvm(write(tmp_path, "\n".join(lines) + "\n"))
    lines[150] = "1 3:0.1000000000000000055511151231257827x"
    with pytest.raises(ValueError, match=r"line 151: value .* is not a number"):
        read_libsvm(write(tmp_path, "\n".join(lines) + "\n"))


def test_streamed_block_csr_holds_the_ring_arrays(tmp_path):
    """csr(views=True) gives the matrix scipy's constructor gives, holding the
    block's own arrays (the constructor copies a block of the reused arrays)."""
    from olearn.datasets.libsvm import libsvm_blocks
    # long values: a block fills less than half of its arrays (room for 8 bytes a value)
    text = "".join(f"{k % 2 * 2 - 1} {1 + k % 5}:{k / 7 + 1!r} {9 + k % 30}:{k / 3 + 1!r}\n"
                   for k in range(400))
    path = write(tmp_path, text)
    for block in libsvm_blocks(path, "auto", 1 << 12, reuse=3):
        data, indices = block.data, block.indices
        X, y = block.csr(1, 40, views=True)
        assert np.shares_memory(X.data, data) and np.shares_memory(X.indices, indices)
        assert type(X) is sp.csr_matrix and X.indices.dtype == np.int64
        Xc = sp.csr_matrix(sp.csr_array((data.copy(), indices.copy(),
                                         block.indptr.copy()), shape=(block.n_rows, 40)))
        assert (X != Xc).nnz == 0 and X.has_sorted_indices and X.has_canonical_format
        assert not np.shares_memory(sp.csr_array((data, indices, block.indptr),
                                                 shape=(block.n_rows, 40)).data, data)
