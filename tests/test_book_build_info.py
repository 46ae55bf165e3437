"""The build's version, commit and mode are stated once, on the front page, not on every page.

Thirteen pages printed "olearn 0.1.0; quick mode: True" at their top (issue 27): a line a
reader cannot place, repeated. book/_ext/olearn_build_info.py fills ``{{ olearn_version }}``,
``{{ olearn_commit }}`` and ``{{ olearn_mode }}`` when the build starts, and intro.md shows them.
"""
import importlib.util
import json
import re
from pathlib import Path

BOOK = Path(__file__).resolve().parents[1] / "book"
PAGES = [p for p in sorted(BOOK.rglob("*.ipynb")) if "_build" not in p.parts]

spec = importlib.util.spec_from_file_location("olearn_build_info",
                                              BOOK / "_ext" / "olearn_build_info.py")
build_info = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_info)

VERSION_LINE = re.compile(r"print\(.*(__version__|quick_mode\(\))")


def version_lines(nb):
    return [line for c in nb["cells"] if c["cell_type"] == "code"
            for line in "".join(c["source"]).splitlines() if VERSION_LINE.search(line)]


def test_detector():
    nb = {"cells": [{"cell_type": "code", "source": [
        'print(f"olearn {olearn.__version__}; quick mode: {quick_mode()}")']}]}
    assert version_lines(nb)


def test_no_page_prints_the_version_or_the_mode():
    printing = {str(p.relative_to(BOOK)): version_lines(json.loads(p.read_text()))
                for p in PAGES}
    printing = {k: v for k, v in printing.items() if v}
    assert not printing, printing


def test_the_front_page_states_version_commit_and_mode(monkeypatch):
    intro = (BOOK / "intro.md").read_text()
    for key in ("olearn_version", "olearn_commit", "olearn_mode"):
        assert "{{ " + key + " }}" in intro
    monkeypatch.setenv("OLEARN_QUICK", "1")
    assert build_info.build_info()["olearn_mode"].startswith("quick mode")
    monkeypatch.delenv("OLEARN_QUICK")
    assert build_info.build_info()["olearn_mode"].startswith("full mode")
