"""The exact multiplicative state of the Winnow learners (:mod:`olearn.linear.winnow`).

A weight is stored as ``m * 2**(CHUNK * e)`` with a float mantissa ``m`` kept
in ``[2**-CHUNK, 2**CHUNK)`` and an integer exponent ``e``; ``m`` is stored
negated when ``e != 0``, so the fast paths read one array (the weights
themselves are positive).  Products never overflow or underflow, however
many updates a weight receives.  This module holds the representation and
the exact operations on it: the initial weight (:func:`exact_weight`, theta0
exactly), a product (:func:`_multiply`), a scaling by a power of two
(:func:`_scaled`, :func:`_chunks`) and the lazily kept vote
(:func:`_vote_add`, :func:`vote_average`).  The training pass is
:mod:`olearn.linear._winnow_pass`.
"""
import math

import numpy as np
from numba import njit

#: A weight is ``m * 2**(CHUNK * e)``.
CHUNK = 256
HI = 2.0 ** CHUNK
LO = 2.0 ** -CHUNK
LN_CHUNK = CHUNK * math.log(2.0)

#: ``LO <= w < HI`` as one unsigned comparison of the bit patterns (ordered
#: like the values for non-negative floats; negative ones wrap above SPAN)
BITS_LO = np.float64(LO).view(np.uint64)
BITS_SPAN = np.uint64(np.float64(HI).view(np.uint64) - BITS_LO)

#: The factors the representation takes exactly to rounding: MBW's
#: ``alpha (1 + x~_j) < 2 alpha`` stays finite, ``beta (1 - x~_j) >= beta 2**-53``
#: (``x~_j < 1``) stays a normal float.  Any factor in range is applied in
#: exact steps of ``2**CHUNK`` (:func:`_multiply`).
MAX_ALPHA = 2.0 ** 1023
MIN_BETA = 2.0 ** -969

#: ``m 2**(CHUNK k)`` with ``m < HI`` is below 2**-1075 for ``k <= ZERO_BELOW``:
#: it rounds to 0 (half the smallest subnormal, 2**-1075, rounds to even: 0)
ZERO_BELOW = math.floor(-1075 / CHUNK) - 1

#: the largest finite float: ``not x <= MAX_FLOAT`` iff ``x`` is NaN or inf
MAX_FLOAT = float(np.finfo(np.float64).max)

PW, BW, MBW = 0, 1, 2
#: ``istate`` slots: vote credits so far; weights zeroed by an update.
CREDITS, N_ZEROED = 0, 1


@njit(inline="always")
def _chunks(x, k):
    """``x * 2**(CHUNK k)`` for ``0 <= x < HI``, as ``math.ldexp`` gives it,
    without the library call where the result is 0 (``k <= ZERO_BELOW``):
    the always-on weights soon have such exponents, and a call on every row
    costs more than the rest of the row's bookkeeping."""
    if k <= ZERO_BELOW:
        return 0.0
    return math.ldexp(x, CHUNK * k)



#: ``2**(CHUNK k)`` for ``k = -4..3`` (at ``k + 4``): every one a double
#: (``2**-1024`` a subnormal), so ``x * _SCALES[k + 4]`` is one correctly
#: rounded product, as ``math.ldexp`` rounds
_SCALES = np.array([2.0 ** (CHUNK * k) for k in range(-4, 4)])


@njit(inline="always")
def _scaled(x, k):
    """``math.ldexp(x, CHUNK k)`` bit for bit, for ``0 <= x < HI`` (a mantissa),
    by at most two multiplications by exact powers of two, the first exact:
    a library call costs 14 ns here, a product 1 ns, and a row of weights with
    nonzero exponents takes two or three per nonzero (:func:`winnow_score`).
    ``x 2**(CHUNK k)`` is below 2**-1280, so 0, for ``k <= ZERO_BELOW``; for
    ``k = -5`` the first product is exact unless it is below 2**-1022, and
    then the result rounds to 0 either way; ``k >= 5`` (rare) and a ``x``
    that is not below ``HI`` (inf, NaN) take the library call."""
    if not x < HI or k >= 5:
        return math.ldexp(x, CHUNK * k)
    if k <= ZERO_BELOW:
        return 0.0
    if k == -5:
        return (x * LO) * _SCALES[0]
    if k <= 3:
        return x * _SCALES[k + 4]
    return (x * _SCALES[7]) * HI  # k = 4: x 2**768 < 2**1024 is exact


@njit(cache=True)
def _multiply(m, e, j, f):
    """``w_j *= f`` for ``w_j = |m_j| * 2**(CHUNK * e_j)`` (``f > 0``), renormalised.

    The slow path of the update: taken only when the fast product leaves
    ``[LO, HI)`` or the weight already has a nonzero exponent.  Stores ``m_j``
    negative iff ``e_j != 0`` (so the fast paths read one array).  ``j`` is
    any index of ``m`` and ``e`` (``(feature, model)`` for the learners' 2-D
    state).
    """
    x = abs(m[j])
    if x == 0.0:
        return
    if f == 0.0:  # MBW's (1 - x~_j) with x~_j = 1
        m[j] = 0.0
        e[j] = 0
        return
    k = e[j]
    # bring the factor into [LO, HI) in exact steps of 2**CHUNK, so that the
    # product of two numbers in [LO, HI) is a finite normal float and each loop
    # below runs at most once; a non-finite factor (none passes validation)
    # fails every test and is stored as it comes, for the model check to report
    while f < LO:  # factors below 2**-CHUNK (huge feature values, tiny beta)
        f *= HI
        k -= 1
    while HI <= f < np.inf:  # factors above 2**CHUNK (a huge alpha)
        f *= LO
        k += 1
    x *= f
    while HI <= x < np.inf:
        x *= LO
        k += 1
    while 0.0 < x < LO:
        x *= HI
        k -= 1
    e[j] = k
    m[j] = x if k == 0 else -x


@njit(cache=True)
def _normalise(x, k):
    """``(x', k')`` with ``x 2**(CHUNK k) = x' 2**(CHUNK k')`` and ``x'`` in ``[LO, HI)`` (``x > 0``)."""
    while HI <= x < np.inf:
        x *= LO
        k += 1
    while 0.0 < x < LO:
        x *= HI
        k -= 1
    return x, k


@njit(cache=True)
def _vote_add(acc, acce, j, m, e, c):
    """``A_j += c |m| 2**(CHUNK e)`` for ``A_j = |acc_j| 2**(CHUNK acce_j)``.

    The slow path of the vote: the fast path in :func:`_train` adds in
    place while the weight and the sum both have exponent 0 and the sum stays
    below ``HI``.  Terms are aligned on the larger exponent (the smaller one
    loses what falls below rounding, as in any float sum); ``acc_j`` is stored
    negated iff ``acce_j != 0``, as the weights are.  ``j`` is any index of
    ``acc`` and ``acce``.
    """
    t = abs(m) * c
    if t == 0.0:
        return
    a = abs(acc[j])
    ae = acce[j]
    if a == 0.0:
        k, total = e, t
    elif ae == e:
        k, total = e, a + t
    elif ae > e:
        k, total = ae, a + math.ldexp(t, CHUNK * (e - ae))
    else:
        k, total = e, math.ldexp(a, CHUNK * (ae - e)) + t
    total, k = _normalise(total, k)
    acce[j] = k
    acc[j] = total if k == 0 else -total


@njit(cache=True)
def vote_average(acc, acce, m, e, credits):
    """The voted model ``(A_j + (credits - last_j) w_j) / credits`` as mantissas and exponents.

    ``acc`` holds the sums ``A`` in the columns of ``m`` and ``last_j`` in
    the column after them.
    """
    n = m.shape[1]
    out = acc[:, :n].copy()
    oute = acce.copy()
    for j in range(m.shape[0]):
        pending = credits - acc[j, n]
        for c in range(n):
            if pending > 0:
                _vote_add(out, oute, (j, c), m[j, c], e[j, c], pending)
            x = abs(out[j, c]) / credits
            if x == 0.0:
                out[j, c] = 0.0
                oute[j, c] = 0
                continue
            x, k = _normalise(x, oute[j, c])
            oute[j, c] = k
            out[j, c] = x if k == 0 else -x
    return out, oute


def exact_weight(value):
    """``(m, e)`` with ``value = |m| 2**(CHUNK e)`` exactly, ``|m|`` in ``[LO, HI)``
    and ``e = 0`` whenever ``value`` is (``m`` negated iff ``e != 0``), for a
    finite ``value > 0``.

    From ``math.frexp``: ``value = f 2**p`` with ``f`` in ``[1/2, 1)``; out of
    ``[LO, HI)``, ``e = floor((p - 1) / CHUNK)`` puts ``p - CHUNK e`` in
    ``[1, CHUNK]``, so ``|m| = f 2**(p - CHUNK e)`` is in ``[1, HI)``, a
    normal float, exact (a power-of-two scaling).  The former
    ``exp(log theta0)`` rounded (3.0000000000000004 for 3), which flipped the
    exact ties of the threshold (issue 26, item 6).
    """
    value = float(value)
    if LO <= value < HI:
        return value, 0
    f, p = math.frexp(value)
    e = (p - 1) // CHUNK
    return -math.ldexp(f, p - CHUNK * e), e


def _constant(d, value):
    """``d`` weights equal to ``value`` (> 0) exactly, in mantissa/exponent form."""
    m, e = exact_weight(value)
    return np.full(d, m), np.full(d, e, dtype=np.int64)


def _column(array, col):
    """Column ``col`` of the 2-D model ``array`` as a view; empty if absent (PW's v)."""
    if col >= array.shape[1]:
        return np.zeros(0, dtype=array.dtype)
    return array[:, col]


def _to_log(m, e):
    with np.errstate(divide="ignore"):
        return np.log(np.abs(m)) + LN_CHUNK * e
