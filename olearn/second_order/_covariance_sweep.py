"""The full covariance's upper triangle (see :mod:`.core`): the sweep that
applies the pending rank-one update and computes ``Sigma x`` in one read of
the triangle (serial and on threads), the flush of the pending update, and
the symmetric copy the user sees.
"""
import numpy as np
from numba import njit, prange

from ._variance import shrunk_variance

#: ``state[PENDING]``: ``beta`` of the rank-one update not yet applied (0:
#: none); ``state[PENDING_CHI]`` and ``state[GAMMA]``: the ``chi`` and
#: ``gamma`` of its round, for the diagonal's cancellation-free form
PENDING, PENDING_CHI, GAMMA = 0, 1, 2
STATE_SIZE = 3


@njit(cache=True, error_model="numpy", fastmath=False)
def shrunk_diagonal(Sii, pi, a, chi, gamma, beta):
    """The updated diagonal entry: ``a = Sii - beta pi^2`` as the sweep
    computed it where that keeps at least half of ``Sii``, else the form of
    :func:`._variance.shrunk_variance` with ``share_i = (pi / Sii) pi`` (which
    cannot cross zero; in this order ``share_i`` does not underflow where
    ``pi^2`` would, so a run rescaled by a power of two (:func:`._passes.renormalise`)
    stays the unrescaled one rescaled).  ``fastmath=False`` is explicit:
    numba compiles a callee with its caller's flags unless they are set, and
    the sweep's ``reassoc`` would let LLVM reorder that product."""
    if a >= 0.5 * Sii:
        return a
    return shrunk_variance(Sii, (pi / Sii) * pi, beta, chi, gamma)


@njit(cache=True, fastmath={"reassoc", "contract", "nsz"})
def sweep(S, p, state, x, s):
    """Apply ``S <- S - beta p p'`` and return ``s = S x`` in one sweep
    (``beta = state[PENDING]``; the diagonal by :func:`shrunk_diagonal`).

    ``S`` holds the upper triangle of a symmetric matrix (``S[i, j]``, j >= i);
    ``x`` is dense.  Rows are taken two at a time: rows ``i`` and ``i+1`` of
    the triangle are updated, scattered into ``s`` (``s_j += S_ij x_i +
    S_{i+1,j} x_{i+1}``) and dotted with ``x`` in one loop, so ``s``, ``p``
    and ``x`` are streamed once per pair of rows.  The loops run over slices
    (0-based: numba's index wraparound check vanishes and LLVM vectorises
    them); ``reassoc`` lets LLVM vectorise the dot products, which changes
    only the order in which their terms are added.  With ``beta == 0`` the
    triangle is only read.
    """
    d = x.shape[0]
    beta, chi, gamma = state[PENDING], state[PENDING_CHI], state[GAMMA]
    _sweep_pairs(S, p, beta, chi, gamma, x, s, 0, d // 2)
    if d % 2 == 1:
        i = d - 1
        v = shrunk_diagonal(S[i, i], p[i], S[i, i] - beta * p[i] * p[i],
                            chi, gamma, beta)
        S[i, i] = v
        s[i] += v * x[i]


@njit(cache=True, fastmath={"reassoc", "contract", "nsz"})
def _sweep_pairs(S, p, beta, chi, gamma, x, s, q0, q1):
    """The loop of :func:`sweep` over the row pairs ``q0 <= q < q1`` (rows
    ``2q`` and ``2q+1``), scattering into ``s``; ``s[2 q0:]`` is zeroed first
    (a chunk never writes below its first row)."""
    d = x.shape[0]
    for j in range(2 * q0, d):
        s[j] = 0.0
    for q in range(q0, q1):
        i = 2 * q
        k = i + 1
        bpi = beta * p[i]
        bpk = beta * p[k]
        xi = x[i]
        xk = x[k]
        a00 = S[i, i] - bpi * p[i]
        a01 = S[i, k] - bpi * p[k]
        a11 = S[k, k] - bpk * p[k]
        if beta != 0.0:
            a00 = shrunk_diagonal(S[i, i], p[i], a00, chi, gamma, beta)
            a11 = shrunk_diagonal(S[k, k], p[k], a11, chi, gamma, beta)
        Si = S[i, i + 2:]
        Sk = S[k, i + 2:]
        pv = p[i + 2:]
        xv = x[i + 2:]
        sv = s[i + 2:]
        acc_i = a00 * xi + a01 * xk
        acc_k = a01 * xi + a11 * xk
        if beta != 0.0:
            S[i, i] = a00
            S[i, k] = a01
            S[k, k] = a11
            for j in range(Si.shape[0]):
                vi = Si[j] - bpi * pv[j]
                vk = Sk[j] - bpk * pv[j]
                Si[j] = vi
                Sk[j] = vk
                sv[j] += vi * xi + vk * xk
                acc_i += vi * xv[j]
                acc_k += vk * xv[j]
        else:
            for j in range(Si.shape[0]):
                vi = Si[j]
                vk = Sk[j]
                sv[j] += vi * xi + vk * xk
                acc_i += vi * xv[j]
                acc_k += vk * xv[j]
        s[i] += acc_i
        s[k] += acc_k


def sweep_bounds(d, n_chunks):
    """Pair indices ``0 = b_0 <= ... <= b_T = d // 2`` that cut the row pairs
    of a d x d triangle into ``T = n_chunks`` chunks of about the same number
    of entries (pair ``q``, rows ``2q`` and ``2q+1``, holds ``2d - 1 - 4q``)."""
    n_pairs = d // 2
    sizes = 2 * d - 1 - 4 * np.arange(n_pairs, dtype=np.int64)
    cum = np.concatenate(([0], np.cumsum(sizes)))
    targets = cum[-1] * np.arange(1, n_chunks) / n_chunks
    inner = np.searchsorted(cum, targets)
    return np.concatenate(([0], inner, [n_pairs])).astype(np.int64)


@njit(cache=True, parallel=True, fastmath={"reassoc", "contract", "nsz"})
def sweep_parallel(S, p, state, x, s, bounds, parts):
    """:func:`sweep` on ``T = len(bounds) - 1`` threads (opt-in, ``n_jobs``).

    Chunk ``c`` takes the row pairs ``bounds[c] <= q < bounds[c+1]`` (from
    :func:`sweep_bounds`: about the same number of triangle entries each),
    updates them and scatters ``S x`` into its own row ``parts[c]`` (a T x d
    buffer: no two threads write the same number); the partial vectors are
    then summed into ``s``.  Each entry of ``S`` and ``s`` is computed by the
    same operations as in :func:`sweep` (same fastmath flags); only the order
    in which the terms of ``s_j`` are added differs (the chunks' partial sums
    are added at the end), so results differ from the serial sweep by
    rounding only.
    """
    d = x.shape[0]
    beta, chi, gamma = state[PENDING], state[PENDING_CHI], state[GAMMA]
    n_chunks = bounds.shape[0] - 1
    for c in prange(n_chunks):
        _sweep_pairs(S, p, beta, chi, gamma, x, parts[c], bounds[c], bounds[c + 1])
    for j in range(d):
        s[j] = 0.0
    for c in range(n_chunks):
        lo = 2 * bounds[c]
        if 2 * bounds[c + 1] > lo:
            pc = parts[c, lo:]
            sv = s[lo:]
            for j in range(pc.shape[0]):
                sv[j] += pc[j]
    if d % 2 == 1:
        i = d - 1
        v = shrunk_diagonal(S[i, i], p[i], S[i, i] - beta * p[i] * p[i],
                            chi, gamma, beta)
        S[i, i] = v
        s[i] += v * x[i]


@njit(cache=True)
def flush(S, p, state):
    """Apply the pending rank-one update to the triangle (the diagonal by
    :func:`shrunk_diagonal`, as the sweep)."""
    beta, chi, gamma = state[PENDING], state[PENDING_CHI], state[GAMMA]
    if beta != 0.0:
        d = p.shape[0]
        for i in range(d):
            bpi = beta * p[i]
            Sii = S[i, i]
            for j in range(i, d):
                S[i, j] -= bpi * p[j]
            S[i, i] = shrunk_diagonal(Sii, p[i], S[i, i], chi, gamma, beta)
        state[PENDING] = 0.0


@njit(cache=True)
def mirror(S):
    """The symmetric matrix whose upper triangle is ``S`` (a copy)."""
    d = S.shape[0]
    out = np.empty((d, d))
    for i in range(d):
        for j in range(i, d):
            out[i, j] = S[i, j]
            out[j, i] = S[i, j]
    return out
