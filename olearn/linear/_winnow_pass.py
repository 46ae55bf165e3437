"""The compiled training and scoring passes of the Winnow learners.

:mod:`olearn.linear.winnow` states the algorithms (Carvalho and Cohen 2006,
Tables 1-3) and holds the estimators; the exact state they update is
:mod:`olearn.linear._winnow_exact`.  Here: the update rule of each learner
(:func:`update_factors`, :func:`feature_factors`, :func:`is_update`: short
scalar functions, what the paper's tables say), the score of a row
(:func:`winnow_score`), and the pass over the rows (:func:`_train`:
the score loop, the row's refusal test, the update condition, the pending
votes, the fast and the general update, in headed sections of one compiled
loop -- array-taking helpers would cost reference-count updates per row),
specialised per learner (plain or voted) by numba.
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


# -- the update rule of each learner (Carvalho and Cohen 2006, Tables 1-2) -----

@njit(inline="always")
def is_update(kind, yt, s, K, mistake, margin):
    """Whether round ``t`` updates: PW and BW on a mistake (Table 1); MBW
    whenever ``y_t score <= M`` (Table 2, the thick separator), the score
    being ``s 2**(CHUNK K)``."""
    if kind == MBW:
        return yt * s <= (margin if K == 0 else math.ldexp(margin, -CHUNK * K))
    return mistake


@njit(inline="always")
def update_factors(kind, positive, alpha, beta, xsum):
    """The factors of an update on a row whose values sum to ``xsum``
    (``positive``: ``y_t > 0``), as ``(bu, bv, fu, fv, snorm)``:

    * ``u_j *= bu``, ``v_j *= bv`` for every feature of the row (PW, BW:
      ``(alpha, beta)`` if ``y > 0``, else ``(beta, alpha)``; PW has no ``v``)
      and for the always-on feature (MBW: its ``x~ = 1 / (1 + xsum)`` in
      :func:`feature_factors`);
    * MBW, a feature with value ``x_j``: ``feature_factors(fu, fv, x_j /
      snorm)``, i.e. ``u_j *= alpha (1 + x~_j)``, ``v_j *= beta (1 - x~_j)``
      if ``y > 0``, else ``u_j *= beta (1 - x~_j)``, ``v_j *= alpha (1 +
      x~_j)``: the signed ``x~_j y`` is one division by ``snorm = y (1 +
      xsum)`` (exact: IEEE division and ``a + (-b) = a - b`` are symmetric in
      the sign), so no per-feature select.
    """
    norm = xsum + 1.0
    fu = alpha if positive else beta
    fv = beta if positive else alpha
    snorm = norm if positive else -norm
    if kind == MBW:  # the always-on feature's x~ = 1 / norm
        xt = 1.0 / norm
        up = alpha * (1.0 + xt)
        down = beta * (1.0 - xt)
    else:
        up = alpha
        down = beta
    bu = up if positive else down
    bv = down if positive else up
    return bu, bv, fu, fv, snorm


@njit(inline="always")
def feature_factors(fu, fv, xs):
    """MBW's factors of a feature with the signed normalised value ``xs =
    y x~_j``: ``(fu (1 + xs), fv (1 - xs))`` (the fast path computes the same
    two products as one vector, :func:`olearn._intrinsics.range_update_pair`)."""
    return fu * (1.0 + xs), fv * (1.0 - xs)


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
        if not is_update(kind, yt, s, K, mistake, margin):
            istate[CREDITS] += 1  # a credit under either weighting
            continue
        credits = istate[CREDITS]
        credits_f = float(credits)
        # -- the update: every feature present in x_t and the always-on one --
        bu, bv, fu, fv, snorm = update_factors(kind, yt > 0.0, alpha, beta, xsum)
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
                    fa, fb = feature_factors(fu, fv, data[k] / snorm)
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
