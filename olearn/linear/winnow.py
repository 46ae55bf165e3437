"""Winnow learners of Carvalho and Cohen (2006, section 2.2, Tables 2-3).

Positive Winnow (Littlestone 1988), Balanced Winnow and the Modified Balanced
Winnow (MBW) the report introduces.  Every feature value must be >= 0.

Preprocessing (section 2.2), in training and at test time
    The example is *augmented* with an always-on feature of value 1 and
    *normalised* so that the augmented example sums to 1:
    ``x~_j = x_j / (1 + sum_k x_k)``.  At test time the features that are not
    present in the model are dropped before normalising.  olearn's definition
    of "present in the model": **a feature that had a nonzero value in at least
    one training row** since the last reset (``fit`` resets, ``partial_fit``
    adds); ``seen_`` holds that mask.  During training every feature of the
    incoming row is present (the row adds it).

Score and mistake condition (with ``u``, ``v`` the positive and negative models)
    - PW: ``score = <x~, u> - theta``;
    - BW: ``score = <x~, u> - <x~, v> - theta``, mistake iff the prediction
      ``score > 0`` disagrees with ``y``;
    - MBW: the BW score, "mistake" iff ``y * score <= M`` (thick separator).

Update on a mistake, for every feature j present in ``x_t`` (and the always-on feature); nothing else is touched
    - PW: ``u_j *= alpha`` if ``y > 0``, ``u_j *= beta`` if ``y < 0``;
    - BW: as PW for ``u``, and ``v_j *= beta`` if ``y > 0``, ``v_j *= alpha``
      if ``y < 0``;
    - MBW: the BW factors times ``(1 + x~_j)`` (with ``alpha``) and
      ``(1 - x~_j)`` (with ``beta``).

    Initial weights: ``u = theta0`` (PW), ``u = theta0+``, ``v = theta0-`` (BW,
    MBW), in every dimension.

Exact multiplicative state
    A weight is stored as ``m * 2**(CHUNK * e)`` with a float mantissa ``m`` kept
    in ``[2**-CHUNK, 2**CHUNK)`` and an integer exponent ``e``; ``m`` is stored
    negated when ``e != 0``, so the fast paths read one array (the weights
    themselves are positive).  Products never
    overflow or underflow, however many updates a weight receives (a test runs
    10**6 of them against a 60-digit decimal reference).  While no weight of
    the row exceeds ``2**CHUNK`` the score is a plain dot product (smaller
    weights scaled down, to 0 below double range: they are then below rounding
    next to ``theta``); otherwise it is computed scaled by the largest exponent
    in the row, so its sign and the MBW margin test are exact to rounding.  A
    weight can become exactly 0 only through MBW's ``(1 - x~_j)`` factor with
    ``x~_j = 1``, i.e. an all-zero row, whose always-on feature then has
    ``x~ = 1``; the paper's rule then zeroes that weight for good (olearn
    follows the rule and warns).

Voting (:class:`olearn.Averaged` with a Winnow learner) is kept per
coordinate, lazily: a weight's contribution to the vote (its value times the
credits since it last changed) is added only when it changes, to a sum kept
as mantissa and exponent like the weights, so the average also never
overflows; O(nnz) per round, no log or exp.
"""
import math
import warnings

import numpy as np
import scipy.sparse as sp
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from .._intrinsics import element_pointer
from ..base import (FrozenParameterError, OnlineClassifier, check_positive,
                    compiled_rows)

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


#: how many nonzeros ahead the score pass asks for the model's cache line
PREFETCH = 16


@intrinsic
def prefetch(typingctx, array, i):
    """Ask the CPU to bring ``array[i]`` into cache (``llvm.prefetch``; never
    faults, changes no value).  The model's lines are read at random, and
    the stream passing through the cache evicts them: fetched ahead, the
    score pass waits less for them."""
    sig = types.void(array, i)

    def codegen(context, builder, sig, args):
        ptr = element_pointer(context, builder, sig, args)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
            "llvm.prefetch.p0i8")
        # read, high temporal locality, data cache
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0),
                          ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()
    return sig, codegen


def _splat2(builder, a, b):
    """The two-lane vector ``<a, b>`` of doubles."""
    i32 = ir.IntType(32)
    v = builder.insert_element(ir.Constant(ir.VectorType(ir.DoubleType(), 2),
                                           ir.Undefined), a, ir.Constant(i32, 0))
    return builder.insert_element(v, b, ir.Constant(i32, 1))


@intrinsic
def divide_pair(typingctx, a, b, s):
    """``(a / s, b / s)``, the two divisions as one two-lane division
    (``vdivpd``: each lane is the scalar IEEE quotient, bit for bit).  A
    scalar division issues only every 4-5 cycles, the bound of MBW's
    update pass when each feature has its own."""
    sig = types.UniTuple(types.float64, 2)(types.float64, types.float64,
                                           types.float64)

    def codegen(context, builder, sig, args):
        q = builder.fdiv(_splat2(builder, args[0], args[1]),
                         _splat2(builder, args[2], args[2]))
        i32 = ir.IntType(32)
        return context.make_tuple(
            builder, sig.return_type,
            [builder.extract_element(q, ir.Constant(i32, lane)) for lane in (0, 1)])
    return sig, codegen


@intrinsic
def update_pair(typingctx, array, i, fu, fv, xs):
    """The fast update of one feature of a balanced learner, ``(u_j, v_j) =
    (array[i], array[i + 1])``, as one two-lane vector:
    ``(u_j fu (1 + xs), v_j fv (1 + (-xs)))`` (MBW; ``xs = 0`` gives BW's
    ``(u_j fu, v_j fv)``, the factors ``x 1 = x`` exactly), stored iff both
    products are plain floats in ``[LO, HI)`` (one unsigned comparison of
    each bit pattern); returns whether they were.

    Lane by lane these are the scalar operations of the per-weight update,
    bit for bit: IEEE arithmetic is per lane, ``1 + (-xs)`` is ``1 - xs``
    and ``v (fv f) = (fv f) v``.  One load, three vector operations, one
    test and one store instead of the two of each."""
    sig = types.boolean(array, i, fu, fv, xs)

    def codegen(context, builder, sig, args):
        ptr = element_pointer(context, builder, sig, args)
        v2 = ir.VectorType(ir.DoubleType(), 2)
        v2i = ir.VectorType(ir.IntType(64), 2)
        i32 = ir.IntType(32)
        pair = builder.bitcast(ptr, v2.as_pointer())
        xs = args[4]
        factor = builder.fmul(
            _splat2(builder, args[2], args[3]),
            builder.fadd(ir.Constant(v2, [1.0, 1.0]),
                         _splat2(builder, xs, builder.fneg(xs))))
        new = builder.fmul(builder.load(pair, align=8), factor)
        offset = builder.sub(builder.bitcast(new, v2i),
                             ir.Constant(v2i, [int(BITS_LO)] * 2))
        plain = builder.icmp_unsigned("<", offset,
                                      ir.Constant(v2i, [int(BITS_SPAN)] * 2))
        both = builder.and_(builder.extract_element(plain, ir.Constant(i32, 0)),
                            builder.extract_element(plain, ir.Constant(i32, 1)))
        with builder.if_then(both, likely=True):
            builder.store(new, pair, align=8)
        return both
    return sig, codegen


def is_csr(X):
    """Whether ``X`` is the CSR triple (a constant of each compiled loop:
    call it once, not per entry -- an inlined function taking ``X`` binds
    its arrays, which costs reference-count updates)."""


@overload(is_csr, inline="always")
def _is_csr(X):
    csr = isinstance(X, types.BaseTuple)
    return lambda X: csr


# -- row access, dense or CSR: row t is data[lo:hi] at columns idx[lo - off:hi - off]
def winnow_parts(X, columns):
    """``(data, idx, indptr)``, taken apart once per pass (not per row: each
    binding of an array costs reference-count updates)."""


@overload(winnow_parts, inline="always")
def _winnow_parts(X, columns):
    if isinstance(X, types.BaseTuple):
        return lambda X, columns: X
    return lambda X, columns: (X.ravel(), columns, columns)


def winnow_span(X, indptr, t):
    """``(lo, hi, off)`` of row ``t``: its entries ``data[lo:hi]`` are at the
    columns ``idx[lo - off:hi - off]`` (unsigned: no negative-index test)."""


@overload(winnow_span, inline="always")
def _winnow_span(X, indptr, t):
    if isinstance(X, types.BaseTuple):
        def impl(X, indptr, t):
            return np.uintp(indptr[t]), np.uintp(indptr[t + 1]), np.uintp(0)
        return impl

    def impl(X, indptr, t):
        lo = np.uintp(t * X.shape[1])
        return lo, lo + np.uintp(X.shape[1]), lo
    return impl


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
def _pass_counts(m, e, seen):
    """``(features not yet present in the model, feature weights with a
    nonzero exponent)`` (the always-on feature excluded), counted at the start
    of each pass (O(d), as the estimator's snapshot of the state) and kept up
    to date by it."""
    n_unseen = 0
    for j in range(seen.shape[0]):
        n_unseen += seen[j] == 0
    n_exponents = 0
    for j in range(seen.shape[0]):
        for c in range(m.shape[1]):
            n_exponents += e[j, c] != 0
    return n_unseen, n_exponents


@njit(cache=True)
def row_is_finite(data, lo, hi):
    """Whether every value of ``data[lo:hi]`` is finite (the rare path of the
    pass's check: its sum of the row's values is NaN or inf)."""
    for k in range(lo, hi):
        if not abs(data[k]) <= MAX_FLOAT:
            return False
    return True


@njit(cache=True)
def winnow_score(data, idx, off, lo, hi, m, e, seen, test, theta):
    """Score of one row: ``(s, K, xsum)`` with ``score = s * 2**(CHUNK * K)``.

    The row is ``data[lo:hi]`` at the columns ``idx[lo - off:hi - off]``;
    the model is ``m[:, 0]``, ``e[:, 0]`` (``u``) and, balanced, ``m[:, 1]``,
    ``e[:, 1]`` (``v``).
    ``xsum`` is the sum of the kept feature values (every nonzero in training;
    at test time, ``test=True``, only features with ``seen[j]``); the augmented,
    normalised row is ``x~ = [x, 1] / (1 + xsum)``.  One pass with ``K = 0``
    (weights with a negative exponent are scaled down, usually to 0 -- they
    are below double precision next to ``theta``); a second pass scaled by the
    largest exponent only if a weight in the row exceeds ``2**CHUNK``.
    """
    balanced = m.shape[1] == 2
    b = np.uintp(m.shape[0] - 1)
    xsum = 0.0
    dot = 0.0
    high = False
    for k in range(lo, hi):
        x = data[k]
        if x == 0.0:
            continue
        j = np.uintp(idx[k - off])
        if test and not seen[j]:
            continue
        xsum += x
        w = m[j, 0]
        if w < 0.0:  # nonzero exponent (rare)
            w = _scaled(-w, e[j, 0])
            if e[j, 0] > 0:
                high = True
        if balanced:
            wv = m[j, 1]
            if wv < 0.0:
                wv = _scaled(-wv, e[j, 1])
                if e[j, 1] > 0:
                    high = True
            w -= wv
        dot += x * w
    wb = m[b, 0]
    if wb < 0.0:
        wb = _scaled(-wb, e[b, 0])
        if e[b, 0] > 0:
            high = True
    if balanced:
        wv = m[b, 1]
        if wv < 0.0:
            wv = _scaled(-wv, e[b, 1])
            if e[b, 1] > 0:
                high = True
        wb -= wv
    if not high:
        return (dot + wb) / (xsum + 1.0) - theta, 0, xsum
    # a weight above 2**CHUNK in the row: scale by the largest exponent
    K = 0  # theta (and the MBW margin) have exponent 0
    for k in range(lo, hi):
        x = data[k]
        if x == 0.0:
            continue
        j = np.uintp(idx[k - off])
        if test and not seen[j]:
            continue
        for c in range(m.shape[1]):
            if m[j, c] != 0.0 and e[j, c] > K:
                K = e[j, c]
    for c in range(m.shape[1]):
        if m[b, c] != 0.0 and e[b, c] > K:
            K = e[b, c]
    dot = 0.0
    for k in range(lo, hi):
        x = data[k]
        if x == 0.0:
            continue
        j = np.uintp(idx[k - off])
        if test and not seen[j]:
            continue
        w = _scaled(abs(m[j, 0]), e[j, 0] - K)
        if balanced:
            w -= _scaled(abs(m[j, 1]), e[j, 1] - K)
        dot += x * w
    wb = _scaled(abs(m[b, 0]), e[b, 0] - K)
    if balanced:
        wb -= _scaled(abs(m[b, 1]), e[b, 1] - K)
    return (dot + wb) / (xsum + 1.0) - math.ldexp(theta, -CHUNK * K), K, xsum


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


@njit(inline="always")
def _train(X, y, kind, voting, columns, m, e, seen, istate, alpha, beta, theta,
           margin, acc, acce, vote_correct, mistakes, margins, queue):
    """One pass of Table 2 (Table 1 for PW and BW) over the rows of ``X``.

    The model: mantissas ``m`` and exponents ``e``, one row per feature (the
    always-on feature last), columns ``u`` and, balanced, ``v`` -- ``u_j``
    and ``v_j`` side by side in memory, so each feature's weights are one
    cache line to load and store.  ``kind`` and ``voting`` are constants at
    every call site (:func:`_compiled_pass`), so each learner, plain or
    voted, gets its own compiled loop, and no
    helper taking arrays is called on the common path (a call with array
    arguments costs reference-count updates).  Per row:

    1. one pass over the nonzeros that accumulates ``sum_j x_j (u_j - v_j)``
       and ``sum_j x_j`` from the mantissas, marks the features present in
       the model and flags a weight with a nonzero exponent (a negative
       mantissa: ``min`` of the mantissas < 0); if one has, or the always-on
       weight a positive exponent, the row is scored again by
       :func:`winnow_score` (rare).  While every feature is present and no
       feature weight has a nonzero exponent (two counts, taken at the
       start of the pass by :func:`_pass_counts` and kept up to date: the
       general update is the only place an exponent changes) the loop skips
       the byte store and the running minimum -- the same sums, 10-15% of
       a loop (MBW 48 -> 44 ms on the benchmark stream, whose 50,000
       features are all present after 4% of the rows; a vocabulary that is
       never exhausted keeps the general loop).  The row's values are checked on the
       way (the up-front scan of :func:`check_values` is skipped): a
       negative value stops the pass at once, and ``xsum`` -- NaN or inf iff
       a value is NaN or inf, or the finite ones overflow it -- is tested
       once per row, the row scanned only when it fails; a refused row ``t``
       returns ``-1 - t`` before anything is learned from it;
    2. on an update, one pass of one multiply per weight and one range test
       per feature (balanced learners: ``u_j`` and ``v_j`` as one two-lane
       vector, :func:`update_pair`, MBW's factors computed in it); the
       features that fail the test and the always-on feature go through the
       general per-weight update (``_multiply`` when a mantissa leaves
       ``[LO, HI)``).  MBW on a CSR row without stored zeros takes two
       features a step, their two divisions ``x_j / (1 + sum x)`` as one
       (:func:`divide_pair`): a scalar division issues only every 4-5
       cycles, which bounded this pass.  The score pass counts the row's
       zeros, so this pass tests for a zero value only in a row that has
       one, and whether it stored a weight follows from the count of
       features it queued.  Interleaved best-of runs on the benchmark
       stream: MBW's loop 44.2 -> 38.3 ms, the voted MBW's 86.8 -> 76.4 ms
       (BW 32.3 -> 30.2 ms).

    Voting (``voting``; ``acc`` not empty): the vote ``A_j = sum_i c_i
    w_i[j]`` is kept lazily per coordinate, in ``acc``, ``acce`` laid out as
    ``m``, ``e``; ``acc`` has one more column, the credits when each
    feature's vote was last added (``last_j``, an integer-valued float:
    exact below 2**53), so a feature's sums and ``last_j`` share a cache
    line.  A weight changes only on rounds where its feature is present, so
    on an update, in a loop before the update pass, each weight of the row
    and the always-on ones add their pending vote: the value times the
    credits given since it last changed (``credits - last_j``);
    :func:`vote_average` adds what is pending at prediction time.

    The floating-point operations of the model, and their order, are those
    of the per-round reference (``winnow_score`` then a per-weight update,
    commit 8bd0b38; each weight is updated once per round, so the order of
    the weights does not matter): the results are bit-identical to it
    (``tests/test_winnow_speed_exact.py``).  No ``fastmath``: it would let
    the compiler reassociate the score's sum.
    """
    balanced = kind != PW
    b = np.uintp(m.shape[0] - 1)
    cu = np.uintp(0)  # the columns of u and v
    cv = np.uintp(1)
    # the hot loops index the model flat: u_j at n_models j, v_j next to it
    # (a constant stride: no multiply by the array's runtime width)
    n_models = np.uintp(2 if balanced else 1)
    flat = m.reshape(m.size)
    flat_acc = acc.reshape(acc.size)
    n_acc = n_models + np.uintp(1)  # the vote sums, then last_j
    n_updates = 0
    data, idx, indptr = winnow_parts(X, columns)
    csr = is_csr(X)  # a constant in each compiled loop
    n_idx = np.uintp(idx.shape[0])
    # what the score pass can skip: marking features already present (all
    # of them, once every feature is), and the exponent test of the weights
    # while no feature weight has a nonzero exponent
    n_unseen, n_exponents = _pass_counts(m, e, seen)
    for t in range(y.shape[0]):
        lo, hi, off = winnow_span(X, indptr, t)
        yt = y[t]
        # -- score: sum_j x_j (u_j - v_j) over the plain mantissas ----------
        xsum = 0.0
        dot = 0.0
        n_zero = np.uintp(0)  # explicit zeros in the row (dense: its zeros)
        low = 0.0  # < 0 iff a weight of the row has a nonzero exponent
        if n_unseen > 0 or n_exponents > 0:
            # the general loop: marks the row's features present in the
            # model and flags a weight with a nonzero exponent
            for k in range(lo, hi):
                # CSR: a later nonzero's weights (this row's or the next
                # ones'); dense rows are read in order
                ahead = k + np.uintp(PREFETCH)
                if csr and ahead < n_idx:
                    prefetch(flat, n_models * np.uintp(idx[ahead]))
                x = data[k]
                # a zero, or a refused negative value; the common case of
                # the input tested first (CSR: nonzeros, dense rows: mostly
                # zeros).  NaN fails both tests: it goes on to the sums
                if (x <= 0.0) if csr else (x == 0.0 or x < 0.0):
                    if x < 0.0:  # refused: the caller raises (pass undone)
                        return -1 - t
                    n_zero += np.uintp(1)
                    continue
                j = np.uintp(idx[k - off])
                if not seen[j]:  # now present in the model
                    seen[j] = 1
                    n_unseen -= 1
                xsum += x
                w = flat[n_models * j]
                if balanced:
                    wv = flat[n_models * j + cv]
                    low = min(low, min(w, wv))
                    w -= wv
                else:
                    low = min(low, w)
                dot += x * w
        else:
            # every feature present, every feature weight plain: the same
            # sums, without the byte store and the running minimum
            for k in range(lo, hi):
                ahead = k + np.uintp(PREFETCH)
                if csr and ahead < n_idx:
                    prefetch(flat, n_models * np.uintp(idx[ahead]))
                x = data[k]
                if (x <= 0.0) if csr else (x == 0.0 or x < 0.0):
                    if x < 0.0:
                        return -1 - t
                    n_zero += np.uintp(1)
                    continue
                j = np.uintp(idx[k - off])
                w = flat[n_models * j]
                if balanced:
                    w -= flat[n_models * j + cv]
                xsum += x
                dot += x * w
        # xsum, a sum of values > 0 (or NaN), is NaN or inf iff a value of
        # the row is, or the finite ones overflow it: one test per row
        if not xsum <= MAX_FLOAT and not row_is_finite(data, lo, hi):
            return -1 - t  # refused: the caller raises (the pass is undone)
        scaled = low < 0.0
        # the always-on feature, as winnow_score takes it: a weight with a
        # negative exponent is scaled down (usually to 0), a positive exponent
        # needs the scaled score
        wb = m[b, cu]
        if wb < 0.0:
            if e[b, cu] > 0:
                scaled = True
            wb = _chunks(-wb, e[b, cu])
        if balanced:
            wv = m[b, cv]
            if wv < 0.0:
                if e[b, cv] > 0:
                    scaled = True
                wv = _chunks(-wv, e[b, cv])
            wb -= wv
        K = 0
        if scaled:
            s, K, xsum = winnow_score(data, idx, off, lo, hi, m, e, seen, False,
                                      theta)
            margins[t] = yt * math.ldexp(s, CHUNK * K)
        else:
            s = (dot + wb) / (xsum + 1.0) - theta
            margins[t] = yt * s
        mistake = (s > 0.0) != (yt > 0.0)
        mistakes[t] = mistake
        if kind == MBW:
            update = yt * s <= (margin if K == 0
                                else math.ldexp(margin, -CHUNK * K))
        else:
            update = mistake
        if not update:
            istate[CREDITS] += 1  # a credit under either weighting
            continue
        credits = istate[CREDITS]
        credits_f = float(credits)
        # -- the update: every feature present in x_t and the always-on one --
        positive = yt > 0.0
        norm = xsum + 1.0
        if kind == MBW:  # the always-on feature's x~ = 1 / norm
            xt = 1.0 / norm
            up = alpha * (1.0 + xt)
            down = beta * (1.0 - xt)
        else:
            up = alpha
            down = beta
        bu = up if positive else down  # PW, BW: every feature's factors
        bv = down if positive else up
        # MBW: u's factor is fu (1 + x~_j s), v's fv (1 - x~_j s) with s = +1
        # (y > 0: fu = alpha, fv = beta) or -1 (fu = beta, fv = alpha); the
        # signed x~_j s is one division by s norm (exact: IEEE division and
        # a + (-b) = a - b are symmetric in the sign), so no per-feature select
        fu = alpha if positive else beta
        fv = beta if positive else alpha
        snorm = norm if positive else -norm
        # fast pass, one test per feature: if the new u_j (and v_j) are plain
        # floats inside [LO, HI) they are stored; otherwise (a nonzero
        # exponent, a product leaving the range, a zero weight) the feature is
        # queued for the general pass below.  Each weight is updated once, so
        # the order does not matter.
        if voting:
            # first every weight of the update adds its pending vote (its
            # value times the credits since it last changed), the always-on
            # one last (k = hi): the update below then changes them
            for k in range(lo, hi + np.uintp(1)):
                if k == hi:
                    j = b
                else:
                    if n_zero > 0 and data[k] == 0.0:
                        continue
                    j = np.uintp(idx[k - off])
                ahead = k + np.uintp(PREFETCH)  # (the sums, at random)
                if csr and ahead < n_idx:
                    prefetch(flat_acc, n_acc * np.uintp(idx[ahead]))
                # w_j times the credits since it last changed: one multiply
                # and one add while weight and sum have exponent 0 and the sum
                # stays below HI, else _vote_add.  No test for "nothing
                # pending" (it would be mispredicted often): c = 0 adds +0.0,
                # which leaves a sum >= 0 as it is, bit for bit
                row = n_acc * j
                c = credits_f - flat_acc[row + n_models]
                wu = flat[n_models * j]
                au = flat_acc[row]
                tu = au + wu * c
                if balanced:  # both sums in one test while both are plain
                    wv = flat[n_models * j + cv]
                    av = flat_acc[row + cv]
                    tv = av + wv * c
                    plain = min(min(wu, au), min(wv, av)) >= 0.0 and max(tu, tv) < HI
                else:
                    plain = min(wu, au) >= 0.0 and tu < HI
                if plain:
                    flat_acc[row] = tu
                    if balanced:
                        flat_acc[row + cv] = tv
                else:
                    for col in range(n_models):
                        i = row + col
                        w = flat[n_models * j + col]
                        a = flat_acc[i]
                        total = a + w * c
                        if min(w, a) >= 0.0 and total < HI:
                            flat_acc[i] = total
                        elif c > 0.0:
                            _vote_add(acc, acce, (j, col), w, e[j, col], c)
                flat_acc[row + n_models] = credits_f
        nq = 0
        start = lo
        if kind == MBW and csr and n_zero == 0:
            # the common case, two features a step: their two divisions as
            # one (the scalar division is this loop's bound otherwise)
            k = lo
            while k + np.uintp(1) < hi:
                k1 = k + np.uintp(1)
                xs0, xs1 = divide_pair(data[k], data[k1], snorm)
                if not update_pair(flat, n_models * np.uintp(idx[k]), fu, fv, xs0):
                    queue[nq] = k
                    nq += 1
                if not update_pair(flat, n_models * np.uintp(idx[k1]), fu, fv, xs1):
                    queue[nq] = k1
                    nq += 1
                k += np.uintp(2)
            start = k  # an odd row's last nonzero is left
        for k in range(start, hi):
            x = data[k]
            if n_zero > 0 and x == 0.0:  # only a row with zeros tests
                continue
            j = np.uintp(idx[k - off])
            if kind == MBW:  # alpha (1 + x~_j), beta (1 - x~_j)
                if update_pair(flat, n_models * j, fu, fv, x / snorm):
                    continue
            elif balanced:  # BW: (alpha, beta) or (beta, alpha)
                if update_pair(flat, n_models * j, bu, bv, 0.0):
                    continue
            else:
                new_u = flat[n_models * j] * bu
                if np.float64(new_u).view(np.uint64) - BITS_LO < BITS_SPAN:
                    flat[n_models * j] = new_u
                    continue
            queue[nq] = k
            nq += 1
        # a weight was stored above iff a nonzero of the row was not queued
        # (no flag set per stored feature)
        changed = np.uintp(nq) < hi - lo - n_zero
        # general pass: the queued features, then the always-on one (k = hi).
        # A weight with a nonzero exponent whose mantissa stays in range is
        # stored negated, its exponent kept, as _multiply would; otherwise
        # _multiply renormalises by powers of two (exact).
        for i in range(nq + 1):
            if i < nq:
                k = queue[i]
                j = np.uintp(idx[k - off])
                fa, fb = bu, bv
                if kind == MBW:
                    xs = data[k] / snorm
                    fa = fu * (1.0 + xs)
                    fb = fv * (1.0 - xs)
            else:
                j, fa, fb = b, bu, bv
            for col in range(2 if balanced else 1):
                f = fa if col == 0 else fb
                wi = (j, np.uintp(col))
                new = m[wi] * f
                if LO <= new < HI or (-HI < new <= -LO and f >= LO):
                    m[wi] = new
                    changed = True
                elif m[wi] != 0.0:
                    before = e[wi] != 0
                    _multiply(m, e, wi, f)
                    changed = True
                    if m[wi] == 0.0:
                        istate[N_ZEROED] += 1
                    if j != b:
                        n_exponents += (e[wi] != 0) - before
        if changed:
            n_updates += 1
        if not vote_correct:
            istate[CREDITS] += 1
    return n_updates


def _compiled_pass(kind, voting):
    """The compiled loop of one learner (``kind``), plain or voted: both are
    constants in it (closure variables: numba caches each variant apart)."""
    @njit(cache=True)
    def one_pass(X, y, columns, m, e, seen, istate, alpha, beta, theta, margin,
                 acc, acce, vote_correct, mistakes, margins, queue):
        return _train(X, y, kind, voting, columns, m, e, seen, istate, alpha,
                      beta, theta, margin, acc, acce, vote_correct, mistakes,
                      margins, queue)
    return one_pass


#: compiled on first use only
_PASSES = {(kind, voting): _compiled_pass(kind, voting)
           for kind in (PW, BW, MBW) for voting in (False, True)}


def winnow_pass(X, y, kind, columns, m, e, seen, istate, alpha, beta, theta,
                margin, acc, acce, vote_correct, mistakes, margins):
    """One pass over the rows of ``X``; returns the number of rounds that changed the model.

    Each learner has its own compiled loop, plain and voted (``kind`` and
    ``voting`` are constants in it), compiled on first use only.  A row with
    a negative, NaN or infinite value is refused before it is learned: the
    pass stops there and returns ``-1 - t`` for that row ``t`` (the model is
    then partly updated: the estimator undoes the pass and raises).
    """
    queue = np.empty(columns.shape[0], dtype=np.uintp)  # longest possible row
    one_pass = _PASSES[kind, acc.shape[0] > 0]
    return one_pass(X, y, columns, m, e, seen, istate, alpha, beta, theta,
                    margin, acc, acce, vote_correct, mistakes, margins, queue)


@njit(cache=True)
def winnow_decision(X, n_rows, columns, m, e, seen, theta, out):
    """Test-time scores: unseen features dropped, then augment and normalise."""
    data, idx, indptr = winnow_parts(X, columns)
    for t in range(n_rows):
        lo, hi, off = winnow_span(X, indptr, t)
        s, K, _ = winnow_score(data, idx, off, lo, hi, m, e, seen, True, theta)
        out[t] = s if K == 0 else math.ldexp(s, CHUNK * K)


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


class NegativeValueError(ValueError):
    """A negative feature value in the row a training pass refused (``row`` of the pass's rows)."""

    def __init__(self, row, col, value):
        super().__init__(f"negative value {value!r} at row {row}, column {col}")
        self.row, self.col, self.value = row, col, value


def negative_value_error(estimator, row, col, value):
    """The ``ValueError`` naming the column, value and row of a negative value."""
    names = getattr(estimator, "feature_names_in_", None)
    label = f"column {col}" + (f" ({names[col]!r})" if names is not None else "")
    return ValueError(
        f"Negative values in data passed to {type(estimator).__name__}: "
        f"{label} has the value {float(value)!r} at row {row}. Winnow learners need "
        f"x >= 0 (Carvalho and Cohen 2006, section 2.2); rescale or one-hot "
        f"that feature first.")


def check_non_negative(estimator, X):
    """Raise ``ValueError`` naming the first column with a negative value."""
    values = X.data if sp.issparse(X) else X
    if values.size == 0 or values.min() >= 0.0:
        return
    if sp.issparse(X):
        k = int(np.argmax(X.data < 0))
        row = int(np.searchsorted(X.indptr, k, side="right") - 1)
        col = int(X.indices[k])
        value = X.data[k]
    else:
        row, col = (int(i) for i in np.argwhere(X < 0)[0])
        value = X[row, col]
    raise negative_value_error(estimator, row, col, value)


class WinnowClassifier(OnlineClassifier):
    """Base of the Winnow learners (see :mod:`olearn.linear.winnow`)."""

    _kind = PW
    _averaging = False
    _vote_correct = False
    _checks_row_norms = False   # rows are normalised by their L1 norm: any scale learns
    #: the training pass refuses a row with a NaN, infinite or negative value
    #: before learning from it (one test of the row's sum of values)
    _values_checked_in_pass = True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags

    # -- parameters ---------------------------------------------------------
    def _initial(self):
        """``(theta0 of u, theta0 of v or None)``."""
        raise NotImplementedError

    def _check_params(self):
        a, b = self.alpha, self.beta
        check_positive("alpha", a)
        check_positive("beta", b)
        if not 1.0 < a < MAX_ALPHA:
            raise ValueError(
                f"alpha (promotion) must be in (1, 2**1023) = (1, {MAX_ALPHA:.4g}), "
                f"got {a!r}: the factors alpha and MBW's alpha (1 + x~_j) <= "
                f"2 alpha must be finite floats.")
        if not MIN_BETA <= b < 1.0:
            raise ValueError(
                f"beta (demotion) must be in [2**-969, 1) = [{MIN_BETA:.4g}, 1), "
                f"got {b!r}: the factors beta and MBW's beta (1 - x~_j) >= "
                f"beta 2**-53 must be normal floats (exact to rounding).")
        check_positive("theta", self.theta)
        for name, value in zip(self._frozen_params, self._initial()):
            check_positive(name, value)
        if self._kind == MBW:
            check_positive("margin", self.margin, allow_zero=True)

    # -- estimator hooks ----------------------------------------------------
    def _guarded_run(self, X, y_pm, fresh=False, rows=None):
        # x >= 0 is checked by the training pass itself, which reads every
        # value anyway (a separate scan cost as much as the base's input
        # checks); the base undoes the pass before the error reaches here
        try:
            super()._guarded_run(X, y_pm, fresh=fresh, rows=rows)
        except NegativeValueError as error:
            row = error.row if rows is None else int(rows[error.row])
            refused = negative_value_error(self, row, error.col, error.value)
            refused.refused_input = True
            raise refused from None

    def _check_refused_row(self, X, row):
        """:class:`NegativeValueError` for the first negative value of row
        ``row`` (the pass refused that row, every row before it passed;
        :func:`check_values`' NaN/inf error, anywhere in ``X``, comes first)."""
        if sp.issparse(X):
            lo, hi = X.indptr[row], X.indptr[row + 1]
            values, cols = X.data[lo:hi], X.indices[lo:hi]
        else:
            values = X[row]
            cols = np.arange(values.shape[0])
        negative = np.flatnonzero(values < 0.0)
        if negative.size:
            k = negative[0]
            raise NegativeValueError(row, int(cols[k]), float(values[k]))

    def _init_state(self, n_features):
        d = n_features + 1  # the last coordinate is the always-on feature
        # the model as mantissas and exponents, one row per feature and a
        # column per model (u; u and v side by side for BW and MBW)
        initial = [w for w in self._initial() if w is not None]
        self._m = np.empty((d, len(initial)))
        self._e = np.empty((d, len(initial)), dtype=np.int64)
        for col, theta0 in enumerate(initial):
            self._m[:, col], self._e[:, col] = _constant(d, theta0)
        self._seen = np.zeros(n_features, dtype=np.uint8)
        self._istate = np.zeros(2, dtype=np.int64)
        self._columns = np.arange(n_features, dtype=np.int64)
        # the vote sums A (mantissa, exponent), laid out as the model, and
        # (a last column of _acc) when each feature's pending vote was last added
        nv = d if self._averaging else 0
        self._acc = np.zeros((nv, len(initial) + 1))
        self._acce = np.zeros((nv, len(initial)), dtype=np.int64)

    def _learn(self, X, y, mistakes, margins):
        zeroed = self._istate[N_ZEROED]
        n = winnow_pass(X, y, self._kind, self._columns, self._m, self._e,
                        self._seen, self._istate, float(self.alpha),
                        float(self.beta), float(self.theta),
                        float(getattr(self, "margin", 0.0)), self._acc,
                        self._acce, self._vote_correct, mistakes,
                        margins)
        if self._istate[N_ZEROED] > zeroed:
            warnings.warn(
                f"{type(self).__name__}: an update with x~_j = 1 (an all-zero "
                f"row, whose always-on feature then carries the whole "
                f"normalised mass) made the factor (1 - x~_j) zero: that weight "
                f"is 0 from now on, as the paper's rule gives.", RuntimeWarning)
        return n

    def _model_arrays(self):
        return (self._m,)

    def _scores(self, X, m, e, rows=None, seen=None):
        """Test-time scores of ``X`` under the model ``(m, e)``; ``rows`` (a
        CSR triple) and ``seen`` replace ``X``'s and the mask when ``(m, e)``
        holds only some features (:meth:`_averaged_decision`)."""
        check_non_negative(self, X)
        out = np.empty(X.shape[0])
        winnow_decision(compiled_rows(X) if rows is None else rows, X.shape[0],
                        self._columns, m, e,
                        self._seen if seen is None else seen, float(self.theta), out)
        return out

    def _decision(self, X):
        return self._scores(X, self._m, self._e)

    # -- the model ----------------------------------------------------------
    #: views of the model's columns: mantissas and exponents of u and v
    #: (v's empty for PW)
    _u = property(lambda self: _column(self._m, 0))
    _ue = property(lambda self: _column(self._e, 0))
    _v = property(lambda self: _column(self._m, 1))
    _ve = property(lambda self: _column(self._e, 1))

    @property
    def seen_(self):
        """Boolean mask of the features present in the model (seen in training)."""
        return self._seen.astype(bool)

    @property
    def log_u_(self):
        """``log u``: the positive model (PW: the only one); last entry = always-on feature."""
        return _to_log(self._u, self._ue)

    @property
    def log_v_(self):
        """``log v``: the negative model (BW, MBW); last entry = always-on feature."""
        if self._v.shape[0] == 0:
            raise AttributeError("Positive Winnow has no negative model v.")
        return _to_log(self._v, self._ve)

    @property
    def u_(self):
        """The positive model as floats (inf/0 where a weight leaves float range)."""
        with np.errstate(over="ignore"):
            return np.ldexp(np.abs(self._u), CHUNK * self._ue)

    @property
    def v_(self):
        """The negative model as floats (inf/0 where a weight leaves float range)."""
        if self._v.shape[0] == 0:
            raise AttributeError("Positive Winnow has no negative model v.")
        with np.errstate(over="ignore"):
            return np.ldexp(np.abs(self._v), CHUNK * self._ve)

    # -- voting (used by olearn.Averaged) --------------------------------------
    def _average_state(self):
        """Mantissas and exponents of the voted model ``(1/Z) sum_i c_i (u_i, v_i)``.

        ``Z`` is the number of credited rounds (every round with
        ``weights="rounds"``, the rounds without update with ``"correct"``);
        before any credit the current model is returned.
        """
        credits = int(self._istate[CREDITS])
        if credits == 0:
            return self._m, self._e
        return vote_average(self._acc, self._acce, self._m, self._e, credits)

    def _average_arrays(self):
        """``(u, ue, v, ve)`` of the voted model (``v``, ``ve`` empty for PW)."""
        m, e = self._average_state()
        return _column(m, 0), _column(e, 0), _column(m, 1), _column(e, 1)

    def _averaged_decision(self, X):
        """The vote's scores.  CSR rows in O(nnz(X)): the vote of the features
        in ``X`` and of the always-on one only (:func:`vote_average` is per
        feature: bit for bit the full vote's), scored with ``X``'s columns
        renumbered onto them; dense rows, O(d) each anyway, on the full vote."""
        credits = int(self._istate[CREDITS])
        if not sp.issparse(X) or credits == 0:
            return self._scores(X, *self._average_state())
        cols = np.unique(X.indices)
        keep = np.append(cols, self._m.shape[0] - 1)   # the always-on feature last
        m, e = vote_average(self._acc[keep], self._acce[keep], self._m[keep],
                            self._e[keep], credits)
        local = (X.data, np.searchsorted(cols, X.indices).astype(X.indices.dtype),
                 X.indptr)
        return self._scores(X, m, e, rows=local, seen=self._seen[cols])


class PositiveWinnow(WinnowClassifier):
    """Positive Winnow (Littlestone 1988) as in Carvalho and Cohen (2006, section 2.2.1).

    ``score = <x~, u> - theta`` on the augmented, normalised row ``x~``; on a
    mistake every present feature's weight is multiplied by ``alpha``
    (``y = +1``) or ``beta`` (``y = -1``).  See :mod:`olearn.linear.winnow` for the
    preprocessing, the test-time rule and the exact state.

    Parameters
    ----------
    alpha : float in (1, 2**1023), default=1.5
        Promotion factor.
    beta : float in [2**-969, 1), default=0.5
        Demotion factor (the ranges: see :mod:`olearn.linear.winnow`).
    theta : float > 0, default=1.0
        Threshold theta_th.
    theta0 : float > 0, default=1.0
        Initial weight (frozen once fitted).
    n_epochs, shuffle, random_state, record
        As in :class:`olearn.Perceptron`.

    Examples
    --------
    >>> from olearn import PositiveWinnow
    >>> X = [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 0.0, 0.0],   # x >= 0
    ...      [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = PositiveWinnow(alpha=1.5, beta=0.5).fit(X, y)   # one pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (3, 3)
    >>> clf.predict([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]).tolist()
    [1, -1]
    """

    _kind = PW
    _frozen_params = ("theta0",)

    def __init__(self, alpha=1.5, beta=0.5, theta=1.0, theta0=1.0, *,
                 n_epochs=1, shuffle=False, random_state=None, record="full"):
        self.alpha = alpha
        self.beta = beta
        self.theta = theta
        self.theta0 = theta0
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    def _initial(self):
        return self.theta0, None


class BalancedWinnow(WinnowClassifier):
    """Balanced Winnow as in Carvalho and Cohen (2006, section 2.2.2).

    ``score = <x~, u> - <x~, v> - theta``; on a mistake, for every present
    feature, ``u_j *= alpha, v_j *= beta`` (``y = +1``) or ``u_j *= beta,
    v_j *= alpha`` (``y = -1``); ``u = theta0_pos``, ``v = theta0_neg``
    initially.

    Parameters
    ----------
    alpha, beta, theta, theta0_pos, theta0_neg : float
        Defaults 1.5, 0.5, 1.0, 2.0, 1.0 (Table 3); the initial weights
        ``theta0_pos``, ``theta0_neg`` are frozen once fitted.
    n_epochs, shuffle, random_state, record
        As in :class:`olearn.Perceptron`.

    Examples
    --------
    >>> from olearn import BalancedWinnow
    >>> X = [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 0.0, 0.0],   # x >= 0
    ...      [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = BalancedWinnow(alpha=1.5, beta=0.5).fit(X, y)   # one pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (4, 4)
    >>> clf.predict([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]).tolist()
    [1, -1]
    """

    _kind = BW
    _frozen_params = ("theta0_pos", "theta0_neg")

    def __init__(self, alpha=1.5, beta=0.5, theta=1.0, theta0_pos=2.0,
                 theta0_neg=1.0, *, n_epochs=1, shuffle=False,
                 random_state=None, record="full"):
        self.alpha = alpha
        self.beta = beta
        self.theta = theta
        self.theta0_pos = theta0_pos
        self.theta0_neg = theta0_neg
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    def _initial(self):
        return self.theta0_pos, self.theta0_neg


class ModifiedBalancedWinnow(BalancedWinnow):
    """Modified Balanced Winnow (MBW), Carvalho and Cohen (2006, section 2.2.3, Table 2).

    The Balanced Winnow score; an update whenever ``y * score <= margin``
    (the thick separator, ``M``), with the factors ``alpha (1 + x~_j)`` and
    ``beta (1 - x~_j)`` in place of ``alpha`` and ``beta``.

    Parameters
    ----------
    alpha, beta, theta, theta0_pos, theta0_neg : float
        As in :class:`BalancedWinnow` (Table 3 defaults).
    margin : float >= 0, default=1.0
        The thick separator M.
    n_epochs, shuffle, random_state, record
        As in :class:`olearn.Perceptron`.

    Examples
    --------
    >>> from olearn import ModifiedBalancedWinnow
    >>> X = [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 0.0, 0.0],   # x >= 0
    ...      [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = ModifiedBalancedWinnow(alpha=1.5, beta=0.5, margin=1.0).fit(X, y)   # one pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (4, 4)
    >>> clf.predict([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]).tolist()
    [1, -1]
    """

    _kind = MBW

    def __init__(self, alpha=1.5, beta=0.5, theta=1.0, theta0_pos=2.0,
                 theta0_neg=1.0, margin=1.0, *, n_epochs=1, shuffle=False,
                 random_state=None, record="full"):
        super().__init__(alpha=alpha, beta=beta, theta=theta,
                         theta0_pos=theta0_pos, theta0_neg=theta0_neg,
                         n_epochs=n_epochs, shuffle=shuffle,
                         random_state=random_state, record=record)
        self.margin = margin
