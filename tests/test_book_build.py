"""`make book`: every page is re-executed on every build, and any cell error fails every build.

Sphinx re-reads only the sources that changed since the last build, so with a plain
``jupyter-book build`` a second build after a failed one re-uses the failed page and exits 0
(checked below, so that the test shows the problem the Makefile solves). ``make book`` builds
with ``--all``: both builds must fail. A tiny book with the real ``_config.yml`` is used, so
the test takes seconds, not the minutes of the full book.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
JB = Path(sys.executable).parent / "jupyter-book"

pytestmark = pytest.mark.skipif(not JB.exists() or shutil.which("make") is None,
                                reason="jupyter-book (dev extras) and make are needed")


def _notebook(source):
    return {"cells": [{"cell_type": "markdown", "id": "m0", "metadata": {}, "source": ["# Page"]},
                      {"cell_type": "code", "id": "c0", "metadata": {}, "execution_count": None,
                       "outputs": [], "source": [source]}],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def _tiny_book(tmp_path, cell):
    book = tmp_path / "book"
    book.mkdir()
    for name in ("_config.yml", "references.bib"):
        shutil.copy(BOOK / name, book / name)
    shutil.copytree(BOOK / "_ext", book / "_ext")
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nparts:\n  - caption: T\n"
                                   "    chapters:\n      - file: page\n")
    (book / "intro.md").write_text("# Intro\n\n{cite:t}`crammer2006pa`\n\n```{bibliography}\n```\n")
    (book / "page.ipynb").write_text(json.dumps(_notebook(cell)))
    return book


def _make_book(book):
    venv = Path(sys.executable).parents[1]
    env = {**os.environ, "OLEARN_QUICK": "1"}
    return subprocess.run(["make", "-s", "book", f"BOOK={book}", f"VENV={venv}",
                           f"STAMP={venv}/bin/python"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def _plain_build(book):
    return subprocess.run([str(JB), "build", "-W", "--keep-going", str(book)],
                          capture_output=True, text=True, timeout=300)


def test_make_book_fails_on_a_cell_error_every_time(tmp_path):
    book = _tiny_book(tmp_path, "raise RuntimeError('a failing cell')")
    first, second = _make_book(book), _make_book(book)
    assert first.returncode != 0, first.stdout[-2000:]
    assert second.returncode != 0, "the second make book served the failed page"
    assert "CellExecutionError" in second.stdout + second.stderr


def test_a_plain_second_build_would_hide_the_error(tmp_path):
    # the problem `--all` solves: without it the second build succeeds
    book = _tiny_book(tmp_path, "raise RuntimeError('a failing cell')")
    assert _plain_build(book).returncode != 0
    assert _plain_build(book).returncode == 0


def test_make_book_passes_and_renders_author_year_labels(tmp_path):
    book = _tiny_book(tmp_path, "print(1 + 1)")
    result = _make_book(book)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    html = (book / "_build" / "html" / "intro.html").read_text()
    assert "Crammer et al., 2006" in html      # author-year label in the list, not [CDK+06]
    assert "CDK+06" not in html


def test_opening_states_the_version_and_commit_computed_at_build_time(tmp_path):
    # book/_ext/olearn_build_info.py: {{ olearn_version }} and {{ olearn_commit }} are filled
    # in when the build starts, from olearn.__version__ and `git rev-parse HEAD`
    import olearn
    from olearn.experiments.runner import git_commit

    book = _tiny_book(tmp_path, "print(1 + 1)")
    (book / "intro.md").write_text("# Intro\n\nBuilt from olearn {{ olearn_version }}, "
                                   "commit {{ olearn_commit }}.\n\n{cite:t}`crammer2006pa`\n\n"
                                   "```{bibliography}\n```\n")
    result = _plain_build(book)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    html = (book / "_build" / "html" / "intro.html").read_text()
    assert f"Built from olearn {olearn.__version__}, commit {git_commit()[:12]}" in html
    assert "{{" not in html
    intro = (BOOK / "intro.md").read_text()
    assert "{{ olearn_version }}" in intro and "{{ olearn_commit }}" in intro


def test_every_page_is_in_the_toc_once_and_parts_follow_ideas():
    # only_build_toc_files: a page missing from _toc.yml is silently left out of the book
    import re

    toc = (BOOK / "_toc.yml").read_text()
    files = re.findall(r"^\s*- file:\s*(\S+)", toc, re.M)
    assert len(files) == len(set(files)), "a page is listed twice"
    pages = {str(p.relative_to(BOOK).with_suffix("")) for p in BOOK.rglob("*.ipynb")
             if "_build" not in p.parts and ".ipynb_checkpoints" not in p.parts}
    pages |= {f"parts/{p.stem}" for p in (BOOK / "parts").glob("*.md")}
    pages |= {p.stem for p in BOOK.glob("*.md")} - {"intro"}
    assert pages == set(files), (sorted(pages - set(files)), sorted(set(files) - pages))
    captions = re.findall(r"^\s*- caption:\s*(.+)", toc, re.M)
    assert captions[1:8] == ["First-order additive learners", "Multiplicative updates (Winnow)",
                             "Regularization and feature selection", "Second-order learners",
                             "Second-order learning at scale", "Kernels and double updating",
                             "Voting and online-to-batch"]
    assert captions[-2:] == ["Reproducing the five papers", "Reference"]
