"""benchmarks/throughput.py runs (quick sizes) and reports agreement with its peers.

A smoke test only: the timings it prints are not checked (targets are measured by
running the benchmark itself, never by timed tests).
"""
import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "throughput.py"


def load_benchmark():
    spec = importlib.util.spec_from_file_location("throughput", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_quick_benchmark_runs_and_agrees_with_scikit_learn(capsys):
    load_benchmark().main(["--quick", "--repeats", "1", "--no-compile", "--no-river",
                           "--markdown", "--only", "Perceptron", "PA-I", "L1"])
    out = capsys.readouterr().out
    rows = [line.split("|")[1:-1] for line in out.splitlines()
            if line.startswith("| ") and "ex/s" not in line and "---" not in line]
    throughput = [[cell.strip() for cell in row] for row in rows if len(row) == 8]
    names = {(row[0], row[1].split()[0]) for row in throughput}
    assert {("Perceptron", "sparse"), ("PA-I (C=1)", "dense"),
            ("L1ConstrainedPA (beta=10)", "sparse")} <= names
    for row in throughput:
        if row[0] in ("Perceptron", "PA-I (C=1)"):
            assert float(row[4]) > 0            # a ratio was measured
            assert float(row[7]) == 0.0         # identical weights to scikit-learn
        assert row[5] != "n/a"                  # loop-only time measured
