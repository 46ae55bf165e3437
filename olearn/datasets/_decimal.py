"""Decimal to double, correctly rounded, in compiled code (the LIBSVM reader's numbers).

A decimal ``w * 10**q`` (``w`` an integer below ``10**19``) is turned into
the nearest double (ties to even) as ``strtod`` and Python's ``float()`` do,
by two known algorithms, tried in order:

1. **Clinger's fast path** [Clinger 1990, "How to read floating point numbers
   accurately", PLDI '90]: if ``w < 2**53`` and ``|q| <= 22``, ``w`` and
   ``10**|q|`` are exact doubles and one IEEE multiply or divide rounds their
   product or quotient once: the correctly rounded result
   (:func:`clinger`).  A ``q > 22`` is first lowered by moving powers of ten
   into ``w`` while it stays below ``2**53`` (still exact).
2. **The Eisel-Lemire algorithm** [Lemire 2021, "Number parsing at a
   gigabyte per second", Software: Practice and Experience 51(8); the form of
   ``fast_float``'s ``compute_float``, github.com/fastfloat/fast_float]:
   ``w`` is normalised to 64 bits, multiplied by a 128-bit truncation of
   ``5**q`` (:data:`POW5_128`, the table of ``fast_float``'s
   ``table_generation.py``, computed here with Python's integers), and the
   top 55 bits of the product, with the binary exponent ``floor(q log2 10)``
   (``(217706 q >> 16) + 63``), give the double's 53 bits and one rounding
   bit; exact ties (only possible for ``-4 <= q <= 23``) round to even,
   subnormals are shifted before rounding, and ``q < -342`` is 0, ``q > 308``
   infinity (:func:`eisel_lemire`).  When the truncated product cannot decide
   (its low 64 bits all ones outside ``-27 <= q <= 55``: Lemire's section 8;
   Mushtak and Lemire 2023, "Fast number parsing without fallback", SPE
   53(7), prove it never happens for 64-bit ``w``), it reports failure.
3. **The exact fallback**: a token with more than 18 significant digits (``w``
   would not be exact), or one the two above refuse, is handed back to the
   caller, who parses it with Python's ``float()`` (David Gay's correctly
   rounded ``strtod``), as scikit-learn parses every token.

Both compiled paths are exact, not approximations checked afterwards: their
results equal ``float()``'s on every input they accept
(``tests/test_decimal.py`` compares them on the hard cases: halfway cases, 17
to 19 digits, subnormals, the smallest and largest exponents, overflow and
underflow, and on random tokens).
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["clinger", "eisel_lemire", "POW5_128"]

#: 10**0 .. 10**22: every one an exact double
POW10 = np.array([10.0 ** k for k in range(23)])
TWO53 = 1 << 53
#: the decimal exponents of :data:`POW5_128`
SMALLEST_Q, LARGEST_Q = -342, 308


def _pow5_table():
    """``5**q`` for ``q = -342 .. 308`` as 128-bit numbers whose top bit is set,
    two uint64 (high, low) each: truncated for ``q >= 0``; for ``q < 0`` the
    reciprocal ``2**b // 5**-q + 1`` (fast_float's ``table_generation.py``)."""
    rows = []
    for q in range(SMALLEST_Q, 0):
        power5 = 5 ** -q
        z = (power5 - 1).bit_length()  # the least z with 2**z >= 5**-q
        if q >= -27:
            c = 2 ** (z + 127) // power5 + 1
        else:
            c = 2 ** (2 * z + 128) // power5 + 1
            c >>= max(c.bit_length() - 128, 0)
        rows.append(c)
    for q in range(0, LARGEST_Q + 1):
        power5 = 5 ** q
        shift = 128 - power5.bit_length()
        rows.append(power5 << shift if shift >= 0 else power5 >> -shift)
    table = np.empty(2 * len(rows), np.uint64)
    for k, c in enumerate(rows):
        assert c.bit_length() == 128
        table[2 * k], table[2 * k + 1] = c >> 64, c & (2**64 - 1)
    return table


#: ``5**q``, q = -342 .. 308, high and low 64 bits in turn
POW5_128 = _pow5_table()


@intrinsic
def _mulhi(typingctx, a, b):
    """The high 64 bits of the 128-bit product of two uint64."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, sig, args):
        i128 = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], i128), builder.zext(args[1], i128))
        return builder.trunc(builder.lshr(product, ir.Constant(i128, 64)),
                             ir.IntType(64))
    return sig, codegen


@intrinsic
def _clz(typingctx, x):
    """Leading zero bits of the uint64 ``x`` (``x != 0``)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):
        i64 = ir.IntType(64)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(i64, [i64, ir.IntType(1)]), "llvm.ctlz.i64")
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])
    return sig, codegen


@intrinsic
def _as_double(typingctx, bits):
    """The double whose IEEE bits are the uint64 ``bits``."""
    sig = types.float64(types.uint64)

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return sig, codegen


_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
_MASK55 = np.uint64(0xFFFFFFFFFFFFFFFF >> 55)   # the bits below the 55 kept
_BIT52 = np.uint64(1 << 52)
_U1 = np.uint64(1)


@njit(inline="always")
def clinger(w, q):
    """``(ok, value)``: ``w * 10**q`` (``w >= 0`` an int64) by Clinger's fast
    path, ``ok`` False when the path does not apply."""
    while q > 22 and w < TWO53 // 10:
        w *= 10  # exact: w stays below 2**53
        q -= 1
    if w >= TWO53 or q > 22 or q < -22:
        return False, 0.0
    if q >= 0:
        return True, np.float64(w) * POW10[q]
    return True, np.float64(w) / POW10[-q]


@njit(inline="always")
def eisel_lemire(w, q):
    """``(ok, value)``: the double nearest ``w * 10**q`` (``w`` an int64 from 1
    to ``10**19 - 1``), ties to even; ``ok`` False when the algorithm cannot
    decide (then the caller's exact fallback)."""
    if q < SMALLEST_Q:
        return True, 0.0
    if q > LARGEST_Q:
        return True, np.inf
    lz = _clz(np.uint64(w))
    wn = np.uint64(w) << lz
    index = 2 * (q - SMALLEST_Q)
    hi_t = POW5_128[index]
    high = _mulhi(wn, hi_t)
    low = wn * hi_t
    if (high & _MASK55) == _MASK55:  # the next 64 bits of 5**q may carry into high
        second = _mulhi(wn, POW5_128[index + 1])
        low += second
        if second > low:
            high += _U1
    if low == _ONES and (q < -27 or q > 55):
        return False, 0.0  # undecided (Lemire 2021, section 8): the exact fallback
    upperbit = np.int64(high >> np.uint64(63))
    shift = np.uint64(upperbit + 9)
    mantissa = high >> shift
    power2 = (((152170 + 65536) * q) >> 16) + 63 + upperbit - np.int64(lz) + 1023
    if power2 <= 0:  # subnormal: shift first, then round
        if -power2 + 1 >= 64:
            return True, 0.0
        mantissa >>= np.uint64(-power2 + 1)
        mantissa += mantissa & _U1
        mantissa >>= _U1
        # rounding up may reach the smallest normal number
        power2 = 0 if mantissa < _BIT52 else 1
        return True, _as_double((np.uint64(power2) << np.uint64(52)) | (mantissa & ~_BIT52))
    if (low <= _U1 and -4 <= q <= 23 and (mantissa & np.uint64(3)) == _U1
            and (mantissa << shift) == high):
        mantissa &= ~_U1  # an exact tie: round to even
    mantissa += mantissa & _U1
    mantissa >>= _U1
    if mantissa >= (_BIT52 << _U1):
        mantissa = _BIT52
        power2 += 1
    if power2 >= 0x7FF:
        return True, np.inf
    return True, _as_double((np.uint64(power2) << np.uint64(52)) | (mantissa & ~_BIT52))
