"""benchmarks/cold_start.py runs a page as a kernel does and stops at its first fit."""
import importlib.util
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_benchmark():
    spec = importlib.util.spec_from_file_location("cold_start", ROOT / "benchmarks" / "cold_start.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _page(tree, name, cells):
    path = tree / "book" / f"{name}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "execution_count": None,
                   "outputs": [], "source": [source]} for i, source in enumerate(cells)],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_a_page_runs_to_its_first_fit_and_no_further(tmp_path):
    bench = load_benchmark()
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "olearn").symlink_to(ROOT / "olearn")
    _page(tree, "part/fits", [
        "%matplotlib inline\nimport numpy as np\nfrom olearn import Perceptron",
        "X = np.array([[1.0, 0.0], [0.0, 1.0]] * 5); y = np.array([1, -1] * 5)\n"
        "try:\n    Perceptron().fit(X, y[:3])       # refused: not the first fit\n"
        "except ValueError:\n    pass",
        "model = Perceptron().fit(X, y)\nraise SystemExit('ran past the first fit')",
        "raise SystemExit('ran past the first fit')"])
    _page(tree, "part/none", ["import os", "x = 1"])
    _page(tree, "part/fails", ["1 / 0", "x = 1"])
    assert bench.book_pages(tree) == ["part/fails", "part/fits", "part/none"]
    cache = Path(os.environ.get("NUMBA_CACHE_DIR") or tmp_path / "numba")

    fits = bench.page_time(tree, "part/fits", cache, tmp_path)
    assert fits["error"] is None and fits["learner"] == "Perceptron"
    assert fits["ran"] == 3 and fits["cells"] == 4              # stopped inside cell 3
    assert 0 < fits["fit"] <= fits["to_fit"] <= fits["total"] and fits["cpu"] > 0

    none = bench.page_time(tree, "part/none", cache, tmp_path)
    assert none["error"] is None and "learner" not in none and none["ran"] == 2
    fails = bench.page_time(tree, "part/fails", cache, tmp_path)
    assert fails["error"] == "cell 0: ZeroDivisionError" and fails["ran"] == 1

    runs = {"cold": [fits], "warm": [fits]}
    assert bench.page_note(runs) == "`Perceptron`, cell 3 of 4"
    assert bench.page_note({"cold": [none], "warm": []}) == "no fit: all 2 cells"
    assert bench.page_note({"cold": [fails], "warm": []}).startswith("error: cell 0")
    assert bench.page_row(runs, "fit") == (fits["fit"], fits["fit"])

    # the tables: every page of either tree, before and now, cold and warm
    tree_results = {"import": [{"seconds": 0.01, "loaded": []}],
                    "importtime": {"olearn": 0.01}, "pages": {"part/fits": runs}}
    meta = {"before": "a060fd1", "before_commit": "a060fd1" + "0" * 33, "commit": "f" * 40,
            "repeats": 1, "cold_repeats": 1, "pages": None, "date": "today", "cpus": 2,
            "load_before": 1.0, "load_after": 1.0, "machine": "x", "python": "3",
            "numba": "0", "sklearn": "1"}
    text = bench.markdown({"before": tree_results, "now": {**tree_results, "pages": {}}},
                          ["part/fits"], meta)
    assert "| part/fits | " in text and "(no such page)" in text
    assert f"| {fits['to_fit']:.2f} | {fits['to_fit']:.2f} |" in text
