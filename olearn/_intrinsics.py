"""What the compiled loops' numba intrinsics share (``llvmlite`` code generation)."""
from numba.core import cgutils


def element_pointer(context, builder, sig, args):
    """The LLVM pointer to ``array[i]`` for an intrinsic called as
    ``f(array, i, ...)``: no negative-index wraparound, no bounds check (the
    callers index within the array)."""
    ty = sig.args[0]
    array = context.make_array(ty)(context, builder, args[0])
    return cgutils.get_item_pointer(context, builder, ty, array, [args[1]],
                                    wraparound=False, boundscheck=False)
