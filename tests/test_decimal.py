"""olearn.datasets._decimal: Clinger's fast path and Eisel-Lemire, bit for bit float().

The hard cases of decimal-to-double conversion (halfway cases and their
neighbours, 17 to 19 digits, subnormals, the extreme exponents, overflow and
underflow) and random tokens, converted by the compiled paths and compared
with Python's ``float()`` (a correctly rounded ``strtod``); then the same
tokens in a LIBSVM file, read by the compiled pass without the Python
fallback and equal to scikit-learn's reader.
"""
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from numba import njit
from sklearn.datasets import load_svmlight_file

from olearn.datasets import read_libsvm
from olearn.datasets._decimal import POW5_128, clinger, eisel_lemire
from olearn.datasets.libsvm import _parse


@njit(cache=True)
def _convert(ws, qs, out, path):
    for k in range(ws.shape[0]):
        ok, value = clinger(ws[k], qs[k])
        path[k] = 1
        if not ok:
            ok, value = eisel_lemire(ws[k], qs[k])
            path[k] = 2 if ok else 0
        out[k] = value


def convert(pairs):
    ws = np.array([w for w, _ in pairs], np.int64)
    qs = np.array([q for _, q in pairs], np.int64)
    out, path = np.empty(len(pairs)), np.empty(len(pairs), np.int64)
    _convert(ws, qs, out, path)
    return out, path


def bits(x):
    return np.asarray(x, np.float64).view(np.int64)


def pair_of(token):
    """``(w, q)`` of a decimal token."""
    mantissa, _, exponent = token.lower().partition("e")
    whole, _, frac = mantissa.partition(".")
    return int(whole + frac), int(exponent or 0) - len(frac)


def midpoint(x):
    """The exact decimal halfway between the double ``x > 0`` and the next one."""
    mid = (Fraction(x) + Fraction(math.nextafter(x, math.inf))) / 2
    num, den = mid.numerator, mid.denominator
    k = den.bit_length() - 1   # den is a power of two: mid = num * 5**k / 10**k
    return num * 5 ** k, -k


HARD = [
    "9007199254740993", "9007199254740995", "9007199254740992", "18014398509481983",
    "4.9406564584124654e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
    "5e-324", "1e-323", "3e-324", "2.2250738585072011e-308", "2.2250738585072012e-308",
    "2.2250738585072014e-308", "2.225073858507201e-308", "1.7976931348623157e308",
    "1.7976931348623158e308", "1.7976931348623159e308", "1.7976931348623e308",
    "1e308", "1e309", "1e-342", "1e-343", "999999999999999999e-360", "1e-400",
    "123456789012345678e290", "0.1", "0.3", "0.30000000000000004", "1e23", "8.41e21",
    "7.3177701707893310e+15", "1448997445238699", "9.109e-31", "6.02214076e23",
    "2.2250738585072013e-308", "1.00000000000000011102230246251565404236316680908203125",
    "7.038531e-26", "3.0540412e5", "4.35679e-10", "9.5e-5", "1.7e308", "4e-320",
]


def test_the_table_is_five_to_the_q():
    """Each 128-bit entry is 5**q shifted to 128 bits, truncated (q >= 0), or the
    reciprocal 2**(127 + z) / 5**-q rounded up (q >= -27) or within one unit."""
    for q in (-342, -100, -28, -27, -1, 0, 1, 27, 55, 56, 308):
        k = 2 * (q + 342)
        c = (int(POW5_128[k]) << 64) | int(POW5_128[k + 1])
        assert c.bit_length() == 128
        if q >= 0:
            exact = 5 ** q
            e = 128 - exact.bit_length()
            assert c == (exact << e if e >= 0 else exact >> -e)
        else:
            z = (5 ** -q).bit_length()   # 2**(z - 1) < 5**-q < 2**z
            reciprocal = Fraction(2 ** (127 + z), 5 ** -q)   # in (2**127, 2**128)
            assert 0 < c - reciprocal <= 1 if q >= -27 else abs(c - reciprocal) <= 1


SHORT = [t for t in HARD if pair_of(t)[0] < 10 ** 18]   # the others go to float()


@pytest.mark.parametrize("token", SHORT)
def test_hard_tokens(token):
    w, q = pair_of(token)
    out, path = convert([(w, q)])
    assert path[0] != 0, token
    assert bits(out[0]) == bits(float(token)), token


def test_halfway_cases_and_neighbours():
    """Decimals exactly halfway between two doubles (ties to even), and one unit
    in the 18th digit either side, across the exponent range and subnormals."""
    rng = random.Random(7)
    pairs = []
    for _ in range(4000):
        x = rng.uniform(1, 10) * 10.0 ** rng.randrange(-320, 308)
        if rng.random() < 0.1:
            x = math.ldexp(rng.randrange(1, 2 ** 52), -1074)   # subnormal
        w, q = midpoint(x)
        while w >= 10 ** 18 and w % 10 == 0:
            w, q = w // 10, q + 1
        if w >= 10 ** 18:     # cut to 18 digits: near, not at, the midpoint
            cut = len(str(w)) - 18
            w, q = w // 10 ** cut, q + cut
        for d in (-1, 0, 1):
            pairs.append((w + d, q))
    for _ in range(500):  # integers halfway between two doubles: exact ties, q = 0
        x = float(rng.randrange(2 ** 54, 2 ** 59))
        w, q = midpoint(x)
        pairs += [(w + d, q) for d in (-1, 0, 1)]
    exact_ties = [(w, q) for w, q in pairs if q == 0 and w % 2 == 1 and w > 2 ** 54]
    out, path = convert(pairs)
    assert (path != 0).all()
    reference = [float(f"{w}e{q}") for w, q in pairs]
    np.testing.assert_array_equal(bits(out), bits(reference))
    assert sum(path == 2) > 3000   # Eisel-Lemire decided most of them
    assert len(exact_ties) > 100


def test_random_decimals_of_up_to_18_digits():
    rng = random.Random(11)
    pairs = [(rng.randrange(1, 10 ** rng.randrange(1, 19)), rng.randrange(-360, 320))
             for _ in range(50000)]
    for _ in range(20000):   # shortest reprs of random doubles: 17 digits and fewer
        x = rng.uniform(0, 1) * 10.0 ** rng.randrange(-330, 309)
        if x == 0:
            continue
        w, q = pair_of(repr(x))
        if w < 10 ** 18:
            pairs.append((w, q))
    out, path = convert(pairs)
    assert (path != 0).all()
    np.testing.assert_array_equal(bits(out), bits([float(f"{w}e{q}") for w, q in pairs]))


def test_exponent_limits_and_overflow():
    pairs = [(1, -342), (1, -343), (999999999999999999, -343), (1, -324), (3, -324),
             (2, -324), (1, 308), (1, 309), (17976931348623157, 292),
             (17976931348623158, 292), (17976931348623159, 292), (1, 10 ** 6),
             (1, -10 ** 6)]
    out, path = convert(pairs)
    np.testing.assert_array_equal(bits(out), bits([float(f"{w}e{q}") for w, q in pairs]))
    assert np.isinf(out[7]) and out[1] == 0.0 and out[4] == 5e-324


def test_hard_tokens_in_a_file_take_the_compiled_path(tmp_path):
    """Every token of at most 18 digits is decided by the compiled pass (no
    Python fallback; longer ones are handed to float()), and the file reads
    as scikit-learn reads it."""
    long = [t for t in HARD if t not in SHORT]
    signed = SHORT + ["-" + t for t in SHORT] + long
    text = "".join(f"{k % 2 * 2 - 1} 1:{t} 2:{t.upper()}\n" for k, t in enumerate(signed))
    path = tmp_path / "hard.svm"
    path.write_text(text)
    buf = np.frombuffer(path.read_bytes(), np.uint8)
    n = 2 * len(signed)
    result = _parse(buf, False, np.empty(n), np.empty(n + 1, np.int64),
                    np.empty(n, np.int64), np.empty(n), np.empty((2 * n, 3), np.int64))
    assert result[0] == 0 and result[7] == 2 * len(long)   # no error; float(): the long
    X, y = read_libsvm(path)
    Xs, ys = load_svmlight_file(str(path))
    np.testing.assert_array_equal(bits(X.data), bits(Xs.data))
    np.testing.assert_array_equal(bits(X.data[::2]), bits([float(t) for t in signed]))
