"""The CPU a benchmark ran on: model, microarchitecture and vector extensions (issue 30).

A speed figure names its host's CPU (the project's principle 8). Runs land on hosts of one
machine kind with different CPUs (an AMD EPYC, an Intel Xeon), and numba compiles every loop
for the CPU it runs on (``llvmlite.binding.get_host_cpu_name()``: ``znver5``, ``cascadelake``,
...), using its vector extensions (AVX2, AVX-512): the same code is a different program on each.
``describe()`` is what ``benchmarks/run_all.py`` writes in every stamp;
``benchmarks/claims.py`` reads it back (``parse``) for the README's table.

    python benchmarks/host.py      # print this host's line
"""
import platform
import re
from pathlib import Path

# The SIMD extensions that decide what numba's loops compile to, in the order printed
# (/proc/cpuinfo's flag names).
VECTOR_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512dq", "avx512cd", "avx512bw",
                "avx512vl", "avx512_vnni", "avx512_bf16", "avx512ifma", "avx512vbmi",
                "avx_vnni", "amx_tile")
NOT_RECORDED = "not recorded"


def cpuinfo(text=None):
    """The first processor's fields of /proc/cpuinfo (``text``, or read), or {}."""
    if text is None:
        try:
            text = Path("/proc/cpuinfo").read_text()
        except OSError:
            return {}
    fields = {}
    for line in text.splitlines():
        if not line.strip():
            if fields:
                break
            continue
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def llvm_target():
    """The CPU name numba compiles for on this host (NUMBA_CPU_NAME overrides it)."""
    try:
        from numba.core import config
        if config.CPU_NAME:
            return config.CPU_NAME
        import llvmlite.binding as ll
        return ll.get_host_cpu_name()
    except Exception:  # noqa: BLE001 - numba absent or broken: say so, do not fail a run
        return "unknown"


def describe(text=None, target=None):
    """``MODEL (VENDOR family F model M stepping S; numba target T); vector extensions: ...``."""
    info = cpuinfo(text)
    model = info.get("model name") or platform.processor() or platform.machine()
    flags = set(info.get("flags", "").split())
    vector = [f for f in VECTOR_FLAGS if f in flags]
    ident = " ".join(f"{name} {info[key]}" for name, key in
                     (("family", "cpu family"), ("model", "model"), ("stepping", "stepping"))
                     if key in info)
    vendor = info.get("vendor_id", platform.machine())
    return (f"{model} ({vendor} {ident}; numba target {target or llvm_target()}); "
            f"vector extensions: {' '.join(vector) or 'none of ' + ' '.join(VECTOR_FLAGS[:4])}")


# "machine: <describe()>, N logical cores" in a stamp; older stamps have "machine: MODEL, N ..."
_STAMP = re.compile(r"machine: (?P<model>.+?)(?: \((?P<ident>[^()]*numba target [^()]*)\))?"
                    r"(?:; vector extensions: (?P<vector>[^,;]+))?, \d+ logical cores")


def parse(stamp_text):
    """``{model, ident, target, vector}`` from a stamp's machine line (NOT_RECORDED where the
    stamp predates them), or None without one."""
    match = _STAMP.search(stamp_text)
    if match is None:
        return None
    ident = match.group("ident") or ""
    target = re.search(r"numba target (\S+)", ident)
    return {"model": match.group("model").strip(),
            "ident": ident.split(";")[0].strip() or NOT_RECORDED,
            "target": target.group(1) if target else NOT_RECORDED,
            "vector": (match.group("vector") or NOT_RECORDED).strip()}


def short(cpu):
    """The README's CPU cell: model, numba target and the widest vector extensions."""
    if cpu is None:
        return NOT_RECORDED
    if cpu["vector"] == NOT_RECORDED:
        return f"{cpu['model']} (target and vector extensions {NOT_RECORDED})"
    vector = cpu["vector"].split()
    widest = [f for f in ("avx2", "avx512f") if f in vector] or vector[-1:]
    return f"{cpu['model']} ({cpu['target']}; {', '.join(widest) or 'no AVX'})"


if __name__ == "__main__":
    print(describe())
