"""What numba generates for the hot passes on AMD and Intel targets (issue 30, item 1).

numba compiles each ``@njit`` function for the CPU it runs on. A loop tuned on one
microarchitecture can be fast there by an accident of the code LLVM chose for it; this
script compiles the Perceptron pass and the diagonal AROW pass on the benchmark's input
types (CSR rows, float64) for several target CPUs (``NUMBA_CPU_NAME`` with
``NUMBA_CPU_FEATURES=""``, the named CPU's own features: without it numba keeps the host's;
one fresh process and an empty numba cache each) and counts, in the assembly of each (``inspect_asm``), the
instructions that say how the loops were compiled: vector registers (zmm = 512-bit,
ymm = 256-bit), packed and scalar floating point, fused multiply-adds, gathers, prefetches.
It measures no time: the host only has to be able to compile for the targets.

    python benchmarks/codegen_targets.py --markdown benchmarks/notes/codegen_targets.md
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import host  # noqa: E402

TARGETS = ("host", "znver5", "znver4", "znver3", "znver2", "skylake-avx512", "cascadelake",
           "icelake-server")

# the passes, as the benchmarks call them: sparse 200 x 500 float64 CSR rows
CHILD = r"""
import json, re, sys
import numpy as np, scipy.sparse as sp
from olearn import AROW, Perceptron
from olearn.linear.perceptron import perceptron_pass
from olearn.second_order._passes import diag_pass

rng = np.random.default_rng(0)
X = sp.random(200, 500, density=0.05, format="csr", random_state=0)
y = np.where(rng.random(200) < 0.5, -1, 1)
Perceptron().fit(X, y)
AROW(covariance="diag").fit(X, y)

PATTERNS = {
    "instructions": r"^\s+[a-z][a-z0-9.]*\b",
    "zmm (512-bit) lines": r"%zmm",
    "zmm lines not a move": r"^\s+(?!vmov)\w+.*%zmm",
    "ymm (256-bit) lines": r"%ymm",
    "packed FP arithmetic": r"^\s+v(mul|add|sub|div|min|max|sqrt)p[sd]\b",
    "scalar FP arithmetic": r"^\s+v(mul|add|sub|div|min|max|sqrt)s[sd]\b",
    "scalar divisions": r"^\s+vdivsd\b",
    "fused multiply-add": r"^\s+vf(n)?m(add|sub)\w*",
    "gather": r"^\s+v(p)?gather\w*",
    "prefetch": r"^\s+prefetch\w*",
}
out = {}
for name, fn in (("perceptron_pass", perceptron_pass), ("diag_pass", diag_pass)):
    asm = fn.inspect_asm(fn.signatures[0])     # the one signature: CSR rows
    lines = asm.splitlines()
    out[name] = {k: sum(1 for l in lines if re.search(p, l)) for k, p in PATTERNS.items()}
    out[name]["signature"] = str(fn.signatures[0][0])
from numba.core import config
import llvmlite.binding as ll
out["target"] = config.CPU_NAME or ll.get_host_cpu_name()
print(json.dumps(out))
"""


def compile_for(target):
    env = dict(os.environ)
    # numba compiles for NUMBA_CPU_NAME with the *host's* features unless NUMBA_CPU_FEATURES
    # is set: "" gives the named CPU's own (LLVM's default features of that CPU)
    env.pop("NUMBA_CPU_FEATURES", None)
    env.pop("NUMBA_CPU_NAME", None)
    if target != "host":
        env["NUMBA_CPU_NAME"] = target
        env["NUMBA_CPU_FEATURES"] = ""
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]]
                                                        if env.get("PYTHONPATH") else []))
    with tempfile.TemporaryDirectory() as cache:
        env["NUMBA_CACHE_DIR"] = cache
        done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                              text=True)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def markdown(results):
    lines = [f"Host: {host.describe()}.", ""]
    first = next(r for r in results.values() if "error" not in r)
    lines += ["Each pass compiled once, for CSR rows `X` of type "
              f"`{first['diag_pass']['signature']}` (the benchmark stream's), float64 labels "
              "and weights; counts are of lines of the whole assembly module of the pass "
              "(its callees included).", ""]
    for name in ("perceptron_pass", "diag_pass"):
        keys = [k for k in first[name] if k != "signature"]
        lines += [f"### `{name}`", "", "| target | " + " | ".join(keys) + " |",
                  "|---|" + "---|" * len(keys)]
        for target, r in results.items():
            if "error" in r:
                lines.append(f"| {target} | {r['error']} |" + " |" * (len(keys) - 1))
                continue
            label = (f"{target} (LLVM's features of that CPU)" if target != "host" else
                     f"this host ({r['target']}, its features)")
            lines.append(f"| {label} | " + " | ".join(str(r[name][k]) for k in keys) + " |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--targets", nargs="+", default=list(TARGETS))
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    results = {t: compile_for(t) for t in args.targets}
    text = markdown(results)
    print(text)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
