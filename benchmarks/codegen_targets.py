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

With ``--mca`` it also estimates, statically, how fast the hot inner loops would run on
each of ``--mca-targets`` (Cascade Lake and Zen 3 by default: LLVM 14's ``llvm-mca`` has
no Zen 4/5 model): the innermost loops of each pass's assembly, compiled for that CPU,
are fed to ``llvm-mca -mcpu=<cpu>``, which simulates the loop body in a steady state on
LLVM's scheduling model of that CPU (ports, latencies, dispatch width) and reports the
cycles per iteration; divided by the nonzeros one iteration handles (its loads of a
32-bit column index), cycles per nonzero.  A model, not a measurement: every load hits
L1, branches are predicted, the instructions of a loop body all run every iteration.
The latencies and throughputs the models give the instructions in question (division,
add, multiply, min; float64 and float32) are tabled too.

    python benchmarks/codegen_targets.py --mca --markdown benchmarks/notes/codegen_targets.md
"""
import argparse
import json
import os
import re
import shutil
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
    if "--asm" in sys.argv:
        out[name]["asm"] = asm
from numba.core import config
import llvmlite.binding as ll
out["target"] = config.CPU_NAME or ll.get_host_cpu_name()
print(json.dumps(out))
"""


def compile_for(target, asm=False):
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
        done = subprocess.run([sys.executable, "-c", CHILD] + (["--asm"] if asm else []),
                              env=env, capture_output=True, text=True)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- static throughput of the hot loops (llvm-mca) ----------------------------------
#: the CPUs of the static estimate: the issue's Intel host and LLVM 14's newest AMD model
MCA_TARGETS = ("cascadelake", "znver3")

#: a load of a 32-bit column index (CSR): one per nonzero the loop handles
INDEX_LOAD = re.compile(r"^\s+mov(slq|l)\s+-?\d*\(%\w+,%\w+,4\),")
STORE = re.compile(r"^\s+vmov[a-z]*\s+%xmm\d+,\s+-?\d*\(")


def functions(asm):
    """``(name, lines)`` of each function of an assembly module."""
    name, body = None, []
    for line in asm.splitlines():
        if re.match(r"^[A-Za-z_][\w.$]*:\s*$", line):
            if name:
                yield name, body
            name, body = line[:-1], []
        elif name:
            body.append(line)
    if name:
        yield name, body


def inner_loops(body):
    """The innermost loops of a function: spans from a label to the last backward jump to
    it that contain no other such span (LLVM lays a loop's blocks out contiguously; a
    block it moved out of the loop is not in the span, as it is not in the hot path)."""
    labels = {m.group(1): i for i, l in enumerate(body)
              if (m := re.match(r"^(\.LBB\d+_\d+):", l))}
    spans = []
    for i, l in enumerate(body):
        m = re.match(r"^\s+j\w+\s+(\.LBB\d+_\d+)\s*$", l)
        if m and labels.get(m.group(1), i + 1) <= i:
            spans.append((labels[m.group(1)], i))
    return [s for s in spans
            if not any(o != s and s[0] <= o[0] and o[1] <= s[1] for o in spans)]


def instructions(lines):
    return [l for l in lines if re.match(r"^\s+[a-z]", l) and not l.strip().startswith(".")]


def hot_loops(asm, pass_name):
    """``{label: instructions}``: the inner loops over a row's nonzeros of a pass (the
    largest loop of each kind: an unrolled body rather than its remainder loop)."""
    found = {}
    for name, body in functions(asm):
        if "cpython" in name or name.startswith("cfunc"):
            continue
        for a, b in inner_loops(body):
            ins = instructions(body[a:b + 1])
            nnz = sum(1 for l in ins if INDEX_LOAD.match(l))
            if not nnz or any(re.match(r"^\s+(callq|retq)\b", l) for l in ins):
                continue  # (a backward jump into a block laid out earlier, not a loop)
            text = "\n".join(ins)
            stores = sum(1 for l in ins if STORE.match(l))
            if pass_name == "perceptron_pass":
                label = ("update v += b x_t (row_axpy)" if stores else
                         "score v.x_t and ||x_t||^2 (row_dot_sq)")
            elif "row_moments" in name or (not stores and "vaddsd" in text):
                label = "score m = mu.x_t, chi = sum Sigma_jj x_j^2 (row_moments)"
            elif "vdivsd" in text and stores:
                label = "update, diagonal='precision' (default)"
            elif stores:
                label = "update, diagonal='covariance'"
            else:
                continue
            if label not in found or len(ins) > len(found[label][0]):
                found[label] = (ins, nnz)
    return found


def llvm_mca(cpu, instructions_text, iterations=1000):
    """``(cycles per iteration, block reciprocal throughput, bottleneck summary)``."""
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write(instructions_text + "\n")
    try:
        done = subprocess.run([MCA, f"-mcpu={cpu}", f"-iterations={iterations}",
                               "-bottleneck-analysis", f.name],
                              capture_output=True, text=True, check=True)
    finally:
        os.unlink(f.name)
    text = done.stdout
    cycles = int(re.search(r"Total Cycles:\s+(\d+)", text).group(1)) / iterations
    rthroughput = float(re.search(r"Block RThroughput:\s+([\d.]+)", text).group(1))
    pressure = re.search(r"Resource Pressure\s+\[\s*([\d.]+)%", text)
    depend = re.search(r"Data Dependencies:\s+\[\s*([\d.]+)%", text)
    ports = re.findall(r"^\s+-\s+(\w+)\s+\[\s*([\d.]+)%", text, re.M)
    top = sorted(ports, key=lambda p: -float(p[1]))[:2]
    summary = (f"resources {pressure.group(1) if pressure else 0}% "
               f"({', '.join(f'{n} {v}%' for n, v in top)}), "
               f"dependencies {depend.group(1) if depend else 0}%")
    return cycles, rthroughput, summary


#: the instructions the issue's hypotheses are about, as the models time them
PROBES = {
    "vdivsd (float64 division)": "vdivsd %xmm1, %xmm2, %xmm3",
    "vdivss (float32 division)": "vdivss %xmm1, %xmm2, %xmm3",
    "vdivpd xmm (two float64 divisions)": "vdivpd %xmm1, %xmm2, %xmm3",
    "vaddsd": "vaddsd %xmm1, %xmm2, %xmm3",
    "vmulsd": "vmulsd %xmm1, %xmm2, %xmm3",
    "vminsd": "vminsd %xmm1, %xmm2, %xmm3",
    "vminpd xmm": "vminpd %xmm1, %xmm2, %xmm3",
    "vgatherdpd ymm (4 float64 by 32-bit indices)":
        "vgatherdpd %ymm1, (%rax,%xmm2,8), %ymm3",
}


def probe(cpu, instruction):
    """``(latency, reciprocal throughput)`` of one instruction in ``cpu``'s model."""
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write(instruction + "\n")
    try:
        text = subprocess.run([MCA, f"-mcpu={cpu}", "-iterations=100", f.name],
                              capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(f.name)
    row = re.search(r"^\s*(\d+)\s+(\d+)\s+([\d.]+)\s.*" + re.escape(instruction.split()[0]),
                    text, re.M)
    return int(row.group(2)), float(row.group(3))


MCA = shutil.which("llvm-mca") or "llvm-mca"


def mca_results(targets):
    """Per target: the hot loops of each pass, compiled for it and estimated on its model."""
    out = {}
    for cpu in targets:
        compiled = compile_for(cpu, asm=True)
        if "error" in compiled:
            out[cpu] = {"error": compiled["error"]}
            continue
        loops = {}
        for pass_name in ("perceptron_pass", "diag_pass"):
            for label, (ins, nnz) in hot_loops(compiled[pass_name]["asm"],
                                               pass_name).items():
                cycles, rthroughput, summary = llvm_mca(cpu, "\n".join(ins))
                loops[f"{pass_name}: {label}"] = dict(
                    instructions=len(ins), nonzeros=nnz, cycles=cycles,
                    rthroughput=rthroughput, per_nonzero=cycles / nnz, summary=summary,
                    divisions=sum("vdivsd" in l for l in ins),
                    mins=sum("vminsd" in l for l in ins))
        out[cpu] = dict(loops=loops, probes={k: probe(cpu, v) for k, v in PROBES.items()})
    return out


def mca_markdown(results):
    version = subprocess.run([MCA, "--version"], capture_output=True, text=True).stdout
    version = re.search(r"LLVM version ([\d.]+)", version)
    cpus = [c for c in results if "error" not in results[c]]
    lines = ["## Static estimate of the hot loops (llvm-mca)", "",
             f"`llvm-mca` (LLVM {version.group(1) if version else '?'}) on the innermost "
             "loops over a row's nonzeros, each compiled by numba for the CPU it is "
             "estimated on (`NUMBA_CPU_NAME=<cpu>`, `NUMBA_CPU_FEATURES=''`). **A static "
             "estimate from LLVM's scheduling models, not a measurement on those CPUs**: "
             "every load hits L1, branches are predicted, every instruction of the loop "
             "body runs every iteration; cache misses on the model's random accesses, "
             "the memory layout's effect, are not in it. Cycles, not seconds (clock rates "
             "differ). Nonzeros per iteration: the loop's loads of a 32-bit column index "
             "(the unroll factor LLVM chose for that CPU).", "",
             "| loop | " + " | ".join(f"{c}: instructions / nonzeros per iteration | "
                                      f"{c}: cycles per nonzero" for c in cpus) + " | "
             + " | ".join(f"{c}: bottleneck" for c in cpus) + " |",
             "|---|" + "---|---|" * len(cpus) + "---|" * len(cpus)]
    labels = []
    for c in cpus:
        labels += [k for k in results[c]["loops"] if k not in labels]
    for label in labels:
        cells, notes = [], []
        for c in cpus:
            r = results[c]["loops"].get(label)
            if r is None:
                cells += ["", ""]
                notes.append("")
                continue
            cells += [f"{r['instructions']} / {r['nonzeros']}", f"{r['per_nonzero']:.2f}"]
            notes.append(r["summary"])
        lines.append(f"| `{label}` | " + " | ".join(cells) + " | " + " | ".join(notes) + " |")
    lines += ["", "The instructions in question, as each model times them "
              "(latency / reciprocal throughput, cycles):", "",
              "| instruction | " + " | ".join(cpus) + " |", "|---|" + "---|" * len(cpus)]
    for name in PROBES:
        lines.append(f"| `{name}` | " + " | ".join(
            "{} / {}".format(*results[c]["probes"][name]) for c in cpus) + " |")
    for c in results:
        if "error" in results[c]:
            lines.append(f"\n{c}: {results[c]['error']}")
    return "\n".join(lines)


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
    parser.add_argument("--mca", action="store_true",
                        help="also estimate the hot loops statically with llvm-mca")
    parser.add_argument("--mca-targets", nargs="+", default=list(MCA_TARGETS))
    args = parser.parse_args(argv)
    results = {t: compile_for(t) for t in args.targets}
    text = markdown(results)
    if args.mca:
        text += "\n\n" + mca_markdown(mca_results(args.mca_targets))
    print(text)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
