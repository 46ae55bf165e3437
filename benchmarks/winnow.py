"""Throughput of one Winnow pass on the sparse benchmark stream (issue 11).

The three Winnow learners of Carvalho and Cohen (2006) -- Positive Winnow,
Balanced Winnow and the Modified Balanced Winnow -- and the voted MBW, on the
200,000 x 50,000 text-like CSR stream of ``benchmarks/throughput.py`` (75
nonzeros per row; its values are positive, as Winnow requires).  ``fit`` is
timed end to end (validation, the non-negativity check and the compiled pass),
and the compiled pass alone; the best of ``--repeats`` interleaved runs.

No peer exists: neither scikit-learn nor River implements Winnow, Balanced
Winnow or MBW, so there is no ratio column.

    python benchmarks/winnow.py [--quick] [--repeats N] [--markdown FILE]
"""
import argparse
import importlib.util
import json
import platform
import sys
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

_spec = importlib.util.spec_from_file_location("throughput", HERE / "throughput.py")
throughput = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(throughput)

STREAM = "sparse 200k x 50k, 75 nnz/row"
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


def measure(factory, X, y, repeats):
    factory().fit(X[:50], y[:50])                        # compile / load the cache
    fits, loops = [], []
    for _ in range(repeats):
        est = factory()
        start = time.perf_counter()
        est.fit(X, y)
        fits.append(time.perf_counter() - start)
        loop = throughput.loop_seconds(factory(), X, y)
        if loop is not None:
            loops.append(loop)
    return min(fits), (min(loops) if loops else None), est


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    X, y = throughput.make_stream(STREAM, args.quick)
    assert X.data.min() >= 0.0
    n = X.shape[0]
    rows = []
    for name, factory in LEARNERS.items():
        fit_s, loop_s, est = measure(factory, X, y, args.repeats)
        rows.append(dict(learner=name, n=n, fit_seconds=fit_s,
                         fit_examples_per_second=n / fit_s,
                         loop_seconds=loop_s,
                         loop_examples_per_second=None if loop_s is None else n / loop_s,
                         updates=int(est.n_updates_), mistakes=int(est.n_mistakes_)))
        print(json.dumps(rows[-1]))
    if args.markdown:
        lines = [
            "# Winnow throughput (benchmarks/winnow.py)", "",
            f"Stream: {STREAM}{' (quick: rows and columns / 10)' if args.quick else ''}, "
            f"the generator of `benchmarks/throughput.py` (positive values). One pass, "
            f"best of {args.repeats}; machine: {platform.processor() or platform.machine()}, "
            f"Python {platform.python_version()}, olearn {olearn.__version__}. "
            f"Target: {TARGET:,} examples/s for `fit` end to end.", "",
            "No scikit-learn or River peer exists (neither library implements Winnow, "
            "Balanced Winnow or MBW), so there is no ratio column.", "",
            "| learner | fit (ms) | fit examples/s | loop only (ms) | loop examples/s | updates | mistakes | target met |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            loop_ms = "" if r["loop_seconds"] is None else f"{1e3 * r['loop_seconds']:.1f}"
            loop_rate = ("" if r["loop_examples_per_second"] is None
                         else f"{r['loop_examples_per_second']:,.0f}")
            lines.append(
                f"| {r['learner']} | {1e3 * r['fit_seconds']:.1f} | "
                f"{r['fit_examples_per_second']:,.0f} | {loop_ms} | {loop_rate} | "
                f"{r['updates']:,} | {r['mistakes']:,} | "
                f"{'yes' if r['fit_examples_per_second'] >= TARGET else 'no'} |")
        mbw = next(r for r in rows if r["learner"] == "ModifiedBalancedWinnow")
        lines += [
            "",
            "Notes. The 2M examples/s target of issue 11 is **not met**. The machine "
            "is shared by six engineers, and best-of-N times vary by up to 2x between runs. "
            "In quieter runs during development PW reached about 1.5M and MBW about 1.0M "
            "examples/s, still short of the target. Compared with the Perceptron's pass, a "
            "Winnow round also (i) marks the row's features as present in the model (a store "
            "per nonzero, needed by the test-time rule), (ii) reads two weight arrays "
            "(u and v) for BW and MBW, (iii) checks each updated weight against the "
            "mantissa range that keeps the state exact, and (iv) for MBW updates on "
            f"{mbw['updates'] / mbw['n']:.0%} of the rounds (the thick separator M = 1), "
            "with the row-dependent factors alpha(1 + x~_j) and beta(1 - x~_j). The voted "
            "MBW also adds each changed weight's share of the vote in the log domain "
            "(a log and an exp per updated coordinate).",
        ]
        args.markdown.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
