"""Interleaved A/B of the diagonal AROW pass: ``olearn/second_order/_passes.py`` at a
git revision against the worktree's (the estimator's pass swapped in), on the benchmark
stream of ``benchmarks/throughput.py``; best of N runs, the order alternating; margins,
``coef_`` and ``covariance_`` compared bit for bit; the Perceptron pass timed alongside as
a load reference.

    python benchmarks/diag_pass_ab.py REV {quick,full} N
"""
import importlib.util, os, subprocess, sys, time
import numpy as np
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
import throughput
import olearn.second_order.core as core
from olearn import AROW, Perceptron
from olearn.base import compiled_rows
rev, quick, reps = sys.argv[1], sys.argv[2] == "quick", int(sys.argv[3])
src = subprocess.run(["git", "show", f"{rev}:olearn/second_order/_passes.py"], capture_output=True,
                     text=True, check=True, cwd=str(__import__("pathlib").Path(__file__).resolve().parents[1])).stdout
src = src.replace("from .._", "from olearn._").replace("from ._", "from olearn.second_order._").replace("from .rules", "from olearn.second_order.rules")
path = __import__("tempfile").mkdtemp() + "/passes_baseline.py"; open(path, "w").write(src)
spec = importlib.util.spec_from_file_location("passes_baseline", path)
old = importlib.util.module_from_spec(spec); spec.loader.exec_module(old)
new_pass = core.diag_pass
X, y = throughput.make_stream("sparse 200k x 50k, 75 nnz/row", quick)
def run(fn):
    core.diag_pass = fn
    est = AROW(covariance="diag")
    Xv, yv, labels = est._validate(X, y, reset=True)
    est._set_classes(labels); est._init_state(Xv.shape[1]); est._reset_record()
    y_pm = est._encode(yv); rows = compiled_rows(Xv)
    mistakes, margins = np.zeros(y_pm.shape[0], bool), np.zeros(y_pm.shape[0])
    t = time.perf_counter(); est._learn(rows, y_pm, mistakes, margins); dt = time.perf_counter() - t
    return dt, (None, margins.copy(), np.asarray(est.coef_).copy(), np.asarray(est.covariance_).copy())
for fn in (old.diag_pass, new_pass):
    run(fn)
best = {"old": 1e9, "new": 1e9, "perceptron": 1e9}
res = {}
load = [os.getloadavg()[0]]
for r in range(reps):
    order = (("old", old.diag_pass), ("new", new_pass)) if r % 2 == 0 else (("new", new_pass), ("old", old.diag_pass))
    for tag, fn in order:
        dt, out = run(fn); best[tag] = min(best[tag], dt); res[tag] = out
    best["perceptron"] = min(best["perceptron"], throughput.loop_seconds(Perceptron(), X, y))
load.append(os.getloadavg()[0])
same = all(np.array_equal(a, b) for a, b in zip(res["old"][1:], res["new"][1:]))
print(f"rows {X.shape[0]:,}, nnz {X.nnz:,}; best of {reps} interleaved; load {load[0]:.2f} -> {load[1]:.2f}")
print(f"diag AROW pass at {rev}: {1e3*best['old']:.1f} ms ({X.shape[0]/best['old']/1e6:.2f} M ex/s); now: {1e3*best['new']:.1f} ms ({X.shape[0]/best['new']/1e6:.2f} M ex/s); now/then time {best['new']/best['old']:.3f}; margins identical: {same}")
print(f"Perceptron pass (reference): {1e3*best['perceptron']:.1f} ms")
