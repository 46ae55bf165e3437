"""The compiled training and scoring passes of the Winnow learners.

:mod:`olearn.linear.winnow` states the algorithms (Carvalho and Cohen 2006,
section 2.2, Tables 1-2) and holds the estimators; the exact state they
update is :mod:`olearn.linear._winnow_exact`.  This module reads top down:

1. **the paper's rules**, one short scalar function each: the augmented,
   normalised score with its threshold (:func:`normalised_score`,
   :func:`signed_norm`), the mistake and update conditions
   (:func:`is_mistake`, :func:`is_update`), the promotion and demotion
   factors of Positive Winnow (:func:`positive_winnow_factor`), Balanced
   Winnow (:func:`balanced_winnow_factors`) and the Modified Balanced Winnow
   (:func:`mbw_factors`), and the vote of section 3
   (:func:`add_pending_vote`);
2. **the steps of a round**, over the nonzeros of one row: its sums for the
   score (:func:`row_sums`, :func:`row_sums_marking`; :func:`winnow_score`
   when a weight of the row has left the plain range) and the fast update
   (:func:`mbw_update_pairs`, :func:`update_row_fast`), which queues what it
   cannot do in plain floats for the exact path of the pass;
3. **the pass** (:func:`_train`): the rounds of Table 2 (Table 1 for PW and
   BW) as a sequence of those steps, specialised per learner (plain or
   voted) by numba.

The rules and the per-row steps are ``@njit(inline="always")``: numba pastes
them into the one compiled loop of each learner, so they cost no call.  A
step that takes an array must not itself call a compiled function: the
array is then bound anew on every row and its reference count updated
(atomic operations, per row: seen in the code generated for this pass).  So
the rare calls (:func:`winnow_score`, :func:`row_is_finite`, the exact
state's ``_vote_add`` and ``_multiply``) are made by the pass itself, on
what the steps queued or flagged, and :func:`plain_weight` takes scalars.  The generated code and
throughput before and after this split: ``benchmarks/notes/winnow_pass_steps.md``.
The floating-point operations, and their order, are those of the per-round
reference (commit 8bd0b38): the results are bit-identical to it
(``tests/test_winnow_speed_exact.py``).  No ``fastmath``: it would let the
compiler reassociate the score's sum.
"""
import math

import numpy as np
from numba import njit, types
from numba.extending import overload

from .._intrinsics import divide_pair, prefetch, range_update_pair
from ._winnow_exact import (BITS_LO, BITS_SPAN, BW, CHUNK, CREDITS, HI, LO, MAX_FLOAT,
                            MBW, N_ZEROED, PW, _chunks, _multiply, _scaled,
                            _vote_add)

#: how many nonzeros ahead the score pass asks for the model's cache line
PREFETCH = 16

#: the fast update of a balanced learner's two weights of a feature
#: (:func:`olearn._intrinsics.range_update_pair` on the plain range)
update_pair = range_update_pair(LO, HI)


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


# == 1. The paper's rules (Carvalho and Cohen 2006) ==========================

@njit(inline="always")
def normalised_score(dot, wb, xsum, theta):
    """The score of the augmented, normalised row (section 2.2; Table 2,
    steps (a)-(c)): the row ``x`` gets the always-on feature of value 1 and
    is divided by its sum, ``x~ = [x, 1] / (1 + sum_j x_j)``, and

        ``score = <x~, u> - <x~, v> - theta_th``   (PW: ``<x~, u> - theta_th``)

    from ``dot = sum_j x_j (u_j - v_j)``, the always-on weights ``wb = u_b -
    v_b`` and ``xsum = sum_j x_j``: one division per row."""
    return (dot + wb) / (xsum + 1.0) - theta


@njit(inline="always")
def signed_norm(positive, xsum):
    """``y_t (1 + sum_j x_j)``: ``x_j`` divided by it is the signed
    normalised value ``y_t x~_j`` (section 2.2's normalisation) that
    :func:`mbw_factors` takes -- one division per feature and no select
    (IEEE division is symmetric in the sign)."""
    norm = xsum + 1.0
    return norm if positive else -norm


@njit(inline="always")
def is_mistake(s, yt):
    """Table 1, step (c): the prediction ``sign(score)`` (``-1`` for a zero
    score) differs from ``y_t``."""
    return (s > 0.0) != (yt > 0.0)


@njit(inline="always")
def is_update(kind, yt, s, K, mistake, margin):
    """Whether round ``t`` updates: PW and BW on a mistake (Table 1, step
    (c)); MBW whenever ``y_t score <= M`` (Table 2, step (e): the thick
    separator), the score being ``s 2**(CHUNK K)``."""
    if kind == MBW:
        return yt * s <= (margin if K == 0 else math.ldexp(margin, -CHUNK * K))
    return mistake


@njit(inline="always")
def positive_winnow_factor(positive, alpha, beta):
    """Positive Winnow's update (Littlestone 1988; section 2.2.1): for every
    ``j`` with ``x_t^j > 0``,

        ``w_j <- w_j alpha`` if ``y_t > 0`` (promotion),
        ``w_j <- w_j beta`` if ``y_t < 0`` (demotion)."""
    return alpha if positive else beta


@njit(inline="always")
def balanced_winnow_factors(positive, alpha, beta):
    """Balanced Winnow's update (section 2.2.2): for every ``j`` in ``x_t``,
    ``(u_j, v_j) <- (u_j alpha, v_j beta)`` if ``y_t > 0``, ``(u_j beta,
    v_j alpha)`` if ``y_t < 0``; returns the factors ``(fu, fv)``."""
    return (alpha, beta) if positive else (beta, alpha)


@njit(inline="always")
def mbw_factors(fu, fv, xs):
    """The Modified Balanced Winnow's update (Table 2, step (e) i): for
    every ``j`` in ``x_t`` (the always-on feature too),

        ``u_j <- u_j alpha (1 + x~_j)``, ``v_j <- v_j beta (1 - x~_j)``  if ``y_t > 0``,
        ``u_j <- u_j beta (1 - x~_j)``,  ``v_j <- v_j alpha (1 + x~_j)`` if ``y_t < 0``.

    With Balanced Winnow's factors ``(fu, fv)`` of the label
    (:func:`balanced_winnow_factors`) and the signed value ``xs = y_t x~_j``
    both cases are ``(fu (1 + xs), fv (1 - xs))``, exactly: ``1 + (-a)`` is
    ``1 - a`` in IEEE arithmetic.  The fast update computes the same two
    products as one two-lane vector
    (:func:`olearn._intrinsics.range_update_pair`)."""
    return fu * (1.0 + xs), fv * (1.0 - xs)


@njit(inline="always")
def row_factors(kind, positive, alpha, beta):
    """``(fu, fv)``: the factors of the row's ``u_j`` and ``v_j`` before
    MBW's per-feature term (PW has no ``v``: ``fv`` is unused)."""
    if kind == PW:
        return positive_winnow_factor(positive, alpha, beta), 1.0
    return balanced_winnow_factors(positive, alpha, beta)


@njit(inline="always")
def winnow_factors(kind, fu, fv, x, snorm):
    """The factors of the weights of a feature of value ``x`` (the always-on
    feature: ``x = 1``): ``(fu, fv)`` for PW and BW, :func:`mbw_factors` of
    ``xs = x / snorm = y_t x~`` for MBW."""
    if kind == MBW:
        return mbw_factors(fu, fv, x / snorm)
    return fu, fv


@njit(inline="always")
def add_pending_vote(flat, flat_acc, j, n_models, balanced, credits_f):
    """The vote of section 3, ``w_a = (1/Z) sum_i c_i w_i``, for feature
    ``j`` before its weights change: ``A_j += (credits - last_j) w_j`` and
    ``last_j = credits``.

    The vote is kept lazily per coordinate: a weight changes only on rounds
    where its feature is present, so the credits ``c_i`` its value earned
    since it last changed are added to its sum ``A_j`` only then
    (:func:`olearn.linear._winnow_exact.vote_average` adds what is pending
    at prediction time).  ``A`` is in ``acc``, ``acce`` laid out as ``m``,
    ``e`` (here ``flat_acc``, ``acc`` indexed flat); ``acc`` has one more
    column, ``last_j`` (an integer-valued float: exact below 2**53), so a
    feature's sums and ``last_j`` share a cache line.  One multiply and one
    add per weight while weight and sum have exponent 0 and the sum stays
    below ``HI``; otherwise nothing is written and it returns False (the
    pass then adds the vote exactly, ``_vote_add``).  No test for "nothing pending" (it would be
    mispredicted often): ``c = 0`` adds ``+0.0``, which leaves a sum ``>=
    0`` as it is, bit for bit."""
    cv = np.uintp(1)
    row = (n_models + np.uintp(1)) * j
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
    if not plain:
        return False
    flat_acc[row] = tu
    if balanced:
        flat_acc[row + cv] = tv
    flat_acc[row + n_models] = credits_f
    return True


# == 2. The steps of a round ================================================

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
    normalised row is ``x~ = [x, 1] / (1 + xsum)`` (:func:`normalised_score`).
    One pass with ``K = 0`` (weights with a negative exponent are scaled
    down, usually to 0 -- they are below double precision next to
    ``theta``); a second pass scaled by the largest exponent only if a
    weight in the row exceeds ``2**CHUNK``.
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
        return normalised_score(dot, wb, xsum, theta), 0, xsum
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
    return normalised_score(dot, wb, xsum, math.ldexp(theta, -CHUNK * K)), K, xsum


@njit(inline="always")
def row_sums(csr, balanced, data, idx, off, lo, hi, flat, n_models, n_idx):
    """``(dot, xsum, n_zero, refused)`` of the row ``data[lo:hi]``:
    ``dot = sum_j x_j (u_j - v_j)`` over the plain mantissas (``flat``, the
    model indexed flat: ``u_j`` at ``n_models j``, ``v_j`` next to it, one
    cache line), ``xsum = sum_j x_j``, the row's zeros (explicit zeros of a
    CSR row; a dense row's zeros).

    Taken while every feature is present in the model and no feature
    weight has a nonzero exponent (:func:`row_sums_marking` otherwise): the
    same sums without the byte store and the running minimum, 10-15% of a
    loop (MBW 48 -> 44 ms on the benchmark stream, whose 50,000 features
    are all present after 4% of the rows).  The values are checked on the
    way: a negative one stops the row at once (``refused``); NaN fails both
    tests and reaches the sums, which the pass tests once per row.  CSR:
    the model's line of the nonzero ``PREFETCH`` places ahead (this row's
    or the next ones') is asked for; dense rows are read in order."""
    xsum = 0.0
    dot = 0.0
    n_zero = np.uintp(0)
    for k in range(lo, hi):
        ahead = k + np.uintp(PREFETCH)
        if csr and ahead < n_idx:
            prefetch(flat, n_models * np.uintp(idx[ahead]))
        x = data[k]
        # a zero, or a refused negative value; the common case of the input
        # tested first (CSR: nonzeros, dense rows: mostly zeros)
        if (x <= 0.0) if csr else (x == 0.0 or x < 0.0):
            if x < 0.0:
                return dot, xsum, n_zero, True
            n_zero += np.uintp(1)
            continue
        j = np.uintp(idx[k - off])
        w = flat[n_models * j]
        if balanced:
            w -= flat[n_models * j + np.uintp(1)]
        xsum += x
        dot += x * w
    return dot, xsum, n_zero, False


@njit(inline="always")
def row_sums_marking(csr, balanced, data, idx, off, lo, hi, flat, seen, n_models,
                     n_idx):
    """:func:`row_sums`, and ``(low, n_new)``: the row's features are marked
    present in the model (``seen``; ``n_new`` of them were not), and ``low <
    0`` iff a weight of the row has a nonzero exponent (its mantissa is
    stored negated: the running minimum of the mantissas)."""
    xsum = 0.0
    dot = 0.0
    n_zero = np.uintp(0)
    low = 0.0
    n_new = 0
    for k in range(lo, hi):
        ahead = k + np.uintp(PREFETCH)
        if csr and ahead < n_idx:
            prefetch(flat, n_models * np.uintp(idx[ahead]))
        x = data[k]
        if (x <= 0.0) if csr else (x == 0.0 or x < 0.0):
            if x < 0.0:
                return dot, xsum, n_zero, low, n_new, True
            n_zero += np.uintp(1)
            continue
        j = np.uintp(idx[k - off])
        if not seen[j]:  # now present in the model
            seen[j] = 1
            n_new += 1
        xsum += x
        w = flat[n_models * j]
        if balanced:
            wv = flat[n_models * j + np.uintp(1)]
            low = min(low, min(w, wv))
            w -= wv
        else:
            low = min(low, w)
        dot += x * w
    return dot, xsum, n_zero, low, n_new, False


@njit(inline="always")
def plain_weight(mantissa, exponent):
    """``(w, high)``: a weight of the always-on feature as :func:`winnow_score`
    takes it -- with a negative exponent scaled down (usually to 0);
    ``high``: it has a positive exponent, and the row needs the scaled
    score.  (Scalars, not the arrays: a step that binds an array and makes
    a call, here ``ldexp``, costs reference-count updates per row.)"""
    if mantissa < 0.0:
        return _chunks(-mantissa, exponent), exponent > 0
    return mantissa, False


@njit(inline="always")
def fast_update(kind, flat, i, fu, fv, xs):
    """One feature's update while its weights stay plain floats in ``[LO,
    HI)``: stores them and returns True, else returns False (the feature
    is queued for the exact update).  The weights are ``flat[i]`` (and
    ``flat[i + 1]``): PW ``w_j fu``; BW ``(u_j fu, v_j fv)`` and MBW ``(u_j,
    v_j)`` times :func:`mbw_factors` ``(fu, fv, xs)``, both as one two-lane
    vector (:func:`update_pair`; BW's ``xs = 0`` makes the factors ``fu 1 =
    fu``, ``fv 1 = fv`` exactly), one unsigned comparison of each bit
    pattern for the range."""
    if kind == MBW:
        return update_pair(flat, i, fu, fv, xs)
    if kind == BW:
        return update_pair(flat, i, fu, fv, 0.0)
    new = flat[i] * fu
    if np.float64(new).view(np.uint64) - BITS_LO < BITS_SPAN:
        flat[i] = new
        return True
    return False


@njit(inline="always")
def mbw_update_pairs(data, idx, lo, hi, flat, n_models, fu, fv, snorm, queue):
    """MBW's fast update of a CSR row without stored zeros, two features a
    step: their two divisions ``x_j / (y_t (1 + sum x))`` as one
    (:func:`divide_pair`) -- a scalar division issues only every 4-5
    cycles, which bounded this pass (MBW's loop 44.2 -> 38.3 ms, the voted
    MBW's 86.8 -> 76.4 ms on the benchmark stream).  Returns ``(nq, k)``:
    how many features it queued, and where it stopped (an odd row's last
    nonzero is left to :func:`update_row_fast`)."""
    nq = 0
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
    return nq, k


@njit(inline="always")
def update_row_fast(kind, data, idx, off, start, hi, n_zero, flat, n_models, fu, fv,
                    snorm, queue, nq):
    """:func:`fast_update` for every feature of the row from ``start``;
    features it cannot update in plain floats are queued in ``queue``
    (their positions ``k``, after the ``nq`` already there) for the exact
    update; returns their count.  Each weight is updated once per round,
    so the order does not matter.  The score's sums count the row's zeros,
    so only a row that has one tests for a zero value here."""
    for k in range(start, hi):
        x = data[k]
        if n_zero > 0 and x == 0.0:  # only a row with zeros tests
            continue
        xs = x / snorm if kind == MBW else 0.0
        if not fast_update(kind, flat, n_models * np.uintp(idx[k - off]), fu, fv, xs):
            queue[nq] = k
            nq += 1
    return nq


@njit(inline="always")
def stays_plain(new, f):
    """Whether the product ``new = m f`` of a mantissa ``m`` (stored negated
    when its exponent is nonzero) can be stored as it is: in ``[LO, HI)``,
    or negated in range with its exponent kept (``f >= LO``), as
    :func:`_multiply` would store it."""
    return LO <= new < HI or (-HI < new <= -LO and f >= LO)


# == 3. The pass =============================================================

@njit(inline="always")
def _train(X, y, kind, voting, columns, m, e, seen, istate, alpha, beta, theta,
           margin, acc, acce, vote_correct, mistakes, margins, queue):
    """One pass of Table 2 (Table 1 for PW and BW) over the rows of ``X``.

    The model: mantissas ``m`` and exponents ``e``, one row per feature (the
    always-on feature last), columns ``u`` and, balanced, ``v`` -- ``u_j``
    and ``v_j`` side by side in memory, so each feature's weights are one
    cache line to load and store.  ``kind`` and ``voting`` are constants at
    every call site (:func:`_compiled_pass`), so each learner, plain or
    voted, gets its own compiled loop.  Per row:

    1. the score (:func:`row_sums` from the plain mantissas; while a feature
       is absent from the model or a feature weight has a nonzero exponent
       -- two counts, taken at the start of the pass by :func:`_pass_counts`
       and kept up to date: the exact update is the only place an exponent
       changes -- :func:`row_sums_marking`; :func:`winnow_score` if a weight
       of the row has a nonzero exponent, rare).  The row's values are
       checked on the way (the up-front scan of :func:`check_values` is
       skipped): a negative value refuses the row, and ``xsum`` -- NaN or
       inf iff a value is NaN or inf, or the finite ones overflow it -- is
       tested once per row, the row scanned only when it fails; a refused
       row ``t`` returns ``-1 - t`` before anything is learned from it;
    2. the mistake and update conditions (:func:`is_mistake`,
       :func:`is_update`); a round without update earns a credit (Table 1,
       step (d): ``c_i <- c_i + 1``);
    3. on an update: the pending votes (voted learners, a loop over the
       row's weights: :func:`add_pending_vote`, else ``_vote_add``), then one multiply and one range test per
       weight (:func:`update_row_fast`), then the exact update of the
       features it queued and of the always-on feature
       (:func:`stays_plain`, else ``_multiply``).  A weight was
       stored by the fast update iff a nonzero of the row was not queued
       (no flag per stored feature).
    """
    balanced = kind != PW
    csr = is_csr(X)  # a constant in each compiled loop
    b = np.uintp(m.shape[0] - 1)
    # the hot loops index the model flat: u_j at n_models j, v_j next to it
    # (a constant stride: no multiply by the array's runtime width)
    n_models = np.uintp(2 if balanced else 1)
    cu = np.uintp(0)  # the columns of u and v
    cv = np.uintp(1)
    flat = m.reshape(m.size)
    flat_acc = acc.reshape(acc.size)
    n_updates = 0
    data, idx, indptr = winnow_parts(X, columns)
    n_idx = np.uintp(idx.shape[0])
    n_unseen, n_exponents = _pass_counts(m, e, seen)
    for t in range(y.shape[0]):
        lo, hi, off = winnow_span(X, indptr, t)
        yt = y[t]
        # -- 1. score: the augmented, normalised row (Table 2, (a)-(c)) -------
        if n_unseen > 0 or n_exponents > 0:
            dot, xsum, n_zero, low, n_new, refused = row_sums_marking(
                csr, balanced, data, idx, off, lo, hi, flat, seen, n_models, n_idx)
            n_unseen -= n_new
        else:
            dot, xsum, n_zero, refused = row_sums(
                csr, balanced, data, idx, off, lo, hi, flat, n_models, n_idx)
            low = 0.0
        if refused or (not xsum <= MAX_FLOAT and not row_is_finite(data, lo, hi)):
            return -1 - t  # refused: the caller raises (the pass is undone)
        # the always-on feature's u_b - v_b
        wb, high = plain_weight(m[b, cu], e[b, cu])
        if balanced:
            wv, high_v = plain_weight(m[b, cv], e[b, cv])
            wb -= wv
            high = high or high_v
        K = 0
        if low < 0.0 or high:
            s, K, xsum = winnow_score(data, idx, off, lo, hi, m, e, seen, False,
                                      theta)
            margins[t] = yt * math.ldexp(s, CHUNK * K)
        else:
            s = normalised_score(dot, wb, xsum, theta)
            margins[t] = yt * s
        # -- 2. mistake, update condition ------------------------------------
        mistake = is_mistake(s, yt)
        mistakes[t] = mistake
        if not is_update(kind, yt, s, K, mistake, margin):
            istate[CREDITS] += 1  # a credit under either weighting
            continue
        # -- 3. update: every feature present in x_t and the always-on one ---
        positive = yt > 0.0
        fu, fv = row_factors(kind, positive, alpha, beta)
        snorm = signed_norm(positive, xsum)
        credits_f = float(istate[CREDITS])
        if voting:
            # section 3's vote: the pending credits of every weight about to
            # change (the row's features, then the always-on one, k = hi)
            for k in range(lo, hi + np.uintp(1)):
                if k == hi:
                    j = b
                else:
                    if n_zero > 0 and data[k] == 0.0:
                        continue
                    j = np.uintp(idx[k - off])
                ahead = k + np.uintp(PREFETCH)  # (the sums, at random)
                if csr and ahead < n_idx:
                    prefetch(flat_acc, (n_models + np.uintp(1)) * np.uintp(idx[ahead]))
                if add_pending_vote(flat, flat_acc, j, n_models, balanced, credits_f):
                    continue
                # not plain: weight by weight, exactly where it must
                row = (n_models + np.uintp(1)) * j
                c = credits_f - flat_acc[row + n_models]
                for col in range(n_models):
                    w = flat[n_models * j + col]
                    a = flat_acc[row + col]
                    total = a + w * c
                    if min(w, a) >= 0.0 and total < HI:
                        flat_acc[row + col] = total
                    elif c > 0.0:
                        _vote_add(acc, acce, (j, col), w, e[j, col], c)
                flat_acc[row + n_models] = credits_f
        nq = 0
        start = lo
        if kind == MBW and csr and n_zero == 0:  # the common case of MBW
            nq, start = mbw_update_pairs(data, idx, lo, hi, flat, n_models, fu, fv,
                                         snorm, queue)
        nq = update_row_fast(kind, data, idx, off, start, hi, n_zero, flat, n_models,
                             fu, fv, snorm, queue, nq)
        # the exact update of the features the fast one queued, then of the
        # always-on one (i = nq; value 1, so MBW's x~ = 1 / (1 + sum x))
        changed = False
        for i in range(nq + 1):
            if i < nq:
                k = queue[i]
                j = np.uintp(idx[k - off])
                x = data[k]
            else:
                j = b
                x = 1.0
            fa, fb = winnow_factors(kind, fu, fv, x, snorm)
            for col in range(n_models):
                wi = (j, col)
                f = fa if col == 0 else fb
                new = m[wi] * f
                if stays_plain(new, f):
                    m[wi] = new
                    changed = True
                elif m[wi] != 0.0:  # renormalised (a zeroed weight stays 0)
                    before = e[wi] != 0
                    _multiply(m, e, wi, f)
                    changed = True
                    if m[wi] == 0.0:  # MBW's factor 1 - x~_j = 0
                        istate[N_ZEROED] += 1
                    if j != b:
                        n_exponents += (e[wi] != 0) - before
        if changed or np.uintp(nq) < hi - lo - n_zero:
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
    # the queued positions of one row: its nonzeros and the always-on feature
    queue = np.empty(columns.shape[0] + 1, dtype=np.uintp)
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
