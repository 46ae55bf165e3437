"""The compiled passes update no reference count per row (issue 30, items 1 and 5).

numba counts the references to each array it passes around: a compiled function that
takes arrays increments their counts on entry and decrements them on exit (atomic
read-modify-writes, each a full memory barrier) unless its reference-count pruning can
pair them up, which fails when the function calls another compiled function or, for a
function inlined in numba's IR, often even without one.  Inside the loop over the rows
that is eight or more atomic operations per row.  These tests read the optimised LLVM IR
of each pass: every ``NRT_incref`` of the pass's own function must be a per-pass one, and
no function it calls per row may make any.
"""
import re

import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit, typeof

from olearn import AROW, Averaged, BalancedWinnow, ModifiedBalancedWinnow, PositiveWinnow
from olearn.base import compiled_rows
from olearn.linear._winnow_pass import _PASSES
from olearn.linear._winnow_exact import BW, MBW, PW
from olearn.second_order._passes import diag_pass


def functions(ir):
    """``{name: body}`` of the functions an LLVM module defines."""
    return {m.group(1): m.group(0)
            for m in re.finditer(r"^define [^@]*@\"?([^\s\"(]+)\"?\(.*?^}$", ir, re.S | re.M)}


def increfs(body):
    """The pointers ``NRT_incref`` is called on, outside the entry block."""
    blocks = body.split("\n\n")
    return re.findall(r"call void @NRT_incref\(ptr ([^)]+)\)", "\n\n".join(blocks[1:]))


def representative_signatures(fn, layouts):
    """One signature of ``fn`` per layout of ``X`` in ``layouts`` (numba types of the
    compiled rows, e.g. the CSR triple of this test's matrix): the first one it was called
    with.  Other signatures of the same pass (other scalar arguments, or float32 values,
    int64 indices, read-only arrays that another test in the same worker passed) are the
    same source with the same inline steps and calls: numba emits the same reference
    counting for them (which arrays enter and leave each function, and where), only the
    element types of the loads differ.  So one signature per layout shows the structure
    (this test used to compile afresh every signature its worker had met)."""
    chosen = {}
    for sig in fn.signatures:
        if sig[0] in layouts and sig[0] not in chosen:
            chosen[sig[0]] = sig
    assert set(chosen) == set(layouts), (layouts, fn.signatures)
    return list(chosen.values())


def llvm_of(fn, sig):
    """The optimised LLVM IR of ``fn`` for ``sig``: the dispatcher's own when it compiled
    ``sig`` in this process (a cold cache), else that of a fresh compile with the same
    options (numba keeps no IR of code loaded from its cache; only ``cache`` differs)."""
    if sig not in fn.stats.cache_hits:
        return fn.inspect_llvm(sig)
    fresh = njit(**{k: v for k, v in fn.targetoptions.items()
                   if k not in ("cache", "nopython")})(fn.py_func)
    fresh.compile(sig)
    return fresh.inspect_llvm(sig)


def pass_and_callees(fn, *X):
    """The IR of ``fn``'s compiled pass (for one signature per layout of the ``X`` given,
    :func:`representative_signatures`) and of the other compiled functions of its module
    (not numba's wrappers), per name."""
    layouts = {typeof(compiled_rows(x)) for x in X}
    found = {}
    for sig in representative_signatures(fn, layouts):
        found.update(functions(llvm_of(fn, sig)))
    own = {n: b for n, b in found.items() if fn.__name__ in n and "cpython" not in n
           and not n.startswith("cfunc")}
    others = {n: b for n, b in found.items() if n not in own and n.startswith("_ZN6olearn")}
    return own, others


def test_the_diagonal_pass_counts_no_reference_per_row():
    """``row_moments`` (the score's sums) was a compiled function of its own, called per
    row: 4 arrays counted in and out on every row (the old code fails here)."""
    rng = np.random.default_rng(0)
    X = sp.random(100, 40, density=0.2, format="csr", random_state=1)
    y = np.where(rng.random(100) < 0.5, -1, 1)
    AROW(covariance="diag").fit(X, y)
    AROW(covariance="diag").fit(X.toarray(), y)
    own, others = pass_and_callees(diag_pass, X, X.toarray())
    assert own
    for name, body in own.items():
        extra = increfs(body)                     # beyond the entry block: the model's
        assert len(extra) <= 1, (name, extra)     # flat view, once per pass
        assert not any("arg.X" in p or "arg.ms" in p for p in extra), (name, extra)
    counting = [n for n, b in others.items() if "NRT_incref" in b and "refused_row" not in n
                and "shrunk_variance" not in n]   # (rare paths: a refused row, a cancelling update)
    assert counting == []


@pytest.mark.parametrize("kind, cls", [(PW, PositiveWinnow), (BW, BalancedWinnow),
                                       (MBW, ModifiedBalancedWinnow)])
@pytest.mark.parametrize("voting", [False, True])
def test_the_winnow_passes_count_no_reference_per_row(kind, cls, voting):
    """The Winnow pass in named steps (inline functions taking arrays): beyond the entry
    block only the once-per-pass reshapes of the model (and of the vote sums) count a
    reference -- a step that kept its arrays' counts would add its arrays here."""
    rng = np.random.default_rng(0)
    X = sp.random(200, 60, density=0.1, format="csr", random_state=1)
    y = np.where(rng.random(200) < 0.5, -1, 1)
    (Averaged(cls()) if voting else cls()).fit(X, y)
    own, _ = pass_and_callees(_PASSES[kind, voting], X)  # CSR rows (dense rows:
    # one more per-pass view, X.ravel())
    assert own
    for name, body in own.items():
        extra = increfs(body)
        assert len(extra) <= (3 if voting else 1), (name, extra)
        assert not any("arg.X" in p or "arg.queue" in p for p in extra), (name, extra)
