"""Interleaved A/B of the six compiled Winnow passes (PW, BW, MBW; plain and voted):
``olearn/linear/_winnow_pass.py`` at a git revision against the worktree's, on the
benchmark stream of ``benchmarks/throughput.py``; best of N runs, the order of the two
alternating, results compared (updates, model sum).  Prints the load average (the machine
is shared).

    python benchmarks/winnow_pass_ab.py REV {quick,full} N
"""
import sys, time, os, numpy as np
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
import winnow as wb
from olearn import PositiveWinnow, BalancedWinnow, ModifiedBalancedWinnow
import olearn.linear._winnow_pass as new
rev, quick, reps = sys.argv[1], sys.argv[2] == "quick", int(sys.argv[3])
old = wb.baseline_module(rev)
X, y = wb.throughput.make_stream(wb.STREAM, quick)
def seconds(module, cls, voting):
    est = cls(); est._averaging = voting
    rows, y_pm = wb.prepared(est, X, y)
    mistakes, margins = np.zeros(y_pm.shape[0], bool), np.zeros(y_pm.shape[0])
    args = (rows, y_pm, est._kind, est._columns, est._m, est._e, est._seen, est._istate,
            1.5, 0.5, 1.0, float(getattr(est, "margin", 0.0)), est._acc, est._acce, True, mistakes, margins)
    t = time.perf_counter(); n = module.winnow_pass(*args); dt = time.perf_counter() - t
    return dt, n, est._m.sum()
cases = [(c, v) for c in (PositiveWinnow, BalancedWinnow, ModifiedBalancedWinnow) for v in (False, True)]
for c, v in cases:  # compile
    seconds(old, c, v); seconds(new, c, v)
best = {}
load = [os.getloadavg()[0]]
for r in range(reps):
    for c, v in cases:
        for tag, mod in (("old", old), ("new", new)) if r % 2 == 0 else (("new", new), ("old", old)):
            dt, n, s = seconds(mod, c, v)
            key = (c.__name__, v, tag)
            best[key] = min(best.get(key, 1e9), dt)
            best[(c.__name__, v, tag, "chk")] = (n, s)
load.append(os.getloadavg()[0])
print(f"rows {X.shape[0]}, nnz {X.nnz}, best of {reps} interleaved, load {load[0]:.2f} -> {load[1]:.2f}")
for c, v in cases:
    o, n = best[(c.__name__, v, "old")], best[(c.__name__, v, "new")]
    same = best[(c.__name__, v, "old", "chk")] == best[(c.__name__, v, "new", "chk")]
    print(f"{c.__name__:24s} voted={v!s:5s} {rev}: {1e3*o:7.2f} ms  new: {1e3*n:7.2f} ms  new/old time {n/o:.3f}  same result {same}")
