"""The compiled loops' numba intrinsics (``llvmlite`` code generation).

Operations numba does not generate from Python, each bit for bit what the
scalar code computes: a cache prefetch (:func:`prefetch`), two divisions as
one two-lane division (:func:`divide_pair`) and the two-lane update of a
balanced Winnow's pair of weights (:func:`range_update_pair`).  The loops
that use them: :mod:`olearn.linear._winnow_pass`.
"""
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def element_pointer(context, builder, sig, args):
    """The LLVM pointer to ``array[i]`` for an intrinsic called as
    ``f(array, i, ...)``: no negative-index wraparound, no bounds check (the
    callers index within the array)."""
    ty = sig.args[0]
    array = context.make_array(ty)(context, builder, args[0])
    return cgutils.get_item_pointer(context, builder, ty, array, [args[1]],
                                    wraparound=False, boundscheck=False)


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


def range_update_pair(lo, hi):
    """An intrinsic ``update_pair(array, i, fu, fv, xs)`` for the plain range
    ``[lo, hi)`` of positive floats (``0 < lo < hi``; the Winnows:
    ``[2**-256, 2**256)``, :mod:`olearn.linear._winnow_exact`).

    It is the fast update of one feature of a balanced learner, ``(u_j, v_j)
    = (array[i], array[i + 1])``, as one two-lane vector:
    ``(u_j fu (1 + xs), v_j fv (1 + (-xs)))`` (MBW; ``xs = 0`` gives BW's
    ``(u_j fu, v_j fv)``, the factors ``x 1 = x`` exactly), stored iff both
    products are in ``[lo, hi)`` (one unsigned comparison of each bit
    pattern, ordered like the values for non-negative floats; negative ones
    wrap above the span); it returns whether they were.

    Lane by lane these are the scalar operations of the per-weight update,
    bit for bit: IEEE arithmetic is per lane, ``1 + (-xs)`` is ``1 - xs``
    and ``v (fv f) = (fv f) v``.  One load, three vector operations, one
    test and one store instead of the two of each."""
    bits_lo = int(np.float64(lo).view(np.uint64))
    bits_span = int(np.float64(hi).view(np.uint64)) - bits_lo

    @intrinsic
    def update_pair(typingctx, array, i, fu, fv, xs):
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
                                 ir.Constant(v2i, [bits_lo] * 2))
            plain = builder.icmp_unsigned("<", offset,
                                          ir.Constant(v2i, [bits_span] * 2))
            both = builder.and_(builder.extract_element(plain, ir.Constant(i32, 0)),
                                builder.extract_element(plain, ir.Constant(i32, 1)))
            with builder.if_then(both, likely=True):
                builder.store(new, pair, align=8)
            return both
        return sig, codegen
    return update_pair
