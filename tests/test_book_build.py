"""`make book`: every page is executed once with the code of the tree, and a cell error fails
every build.

Sphinx re-reads only the sources that changed since the last build, so with a plain
``jupyter-book build`` a second build after a failed one re-uses the failed page and exits 0
(checked below, so that the test shows the problem the Makefile solves). ``make book`` builds
with ``--all``: both builds must fail. It renders the pages that ``make test`` executed under
nbval on the same tree (tests/book_cache.py), and executes the others: a page that failed under
nbval fails every build, and a cache filled from another tree is not used. A tiny book with the
real ``_config.yml`` is used, so the test takes seconds, not the minutes of the full book.
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

pytestmark = [pytest.mark.skipif(not JB.exists(), reason="jupyter-book (dev extras) is needed"),
              pytest.mark.needs_tools("make")]


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


def test_a_plain_second_build_would_hide_the_error(tmp_path):
    # the problem `--all` solves: without it the second build succeeds
    book = _tiny_book(tmp_path, "raise RuntimeError('a failing cell')")
    assert _plain_build(book).returncode != 0
    assert _plain_build(book).returncode == 0


def test_make_book_passes_renders_author_year_labels_and_states_the_version(tmp_path):
    # one build of a tiny book for both: the bibliography's author-year labels, and the
    # opening's version and commit, filled in when the build starts from olearn.__version__
    # and `git rev-parse HEAD` (book/_ext/olearn_build_info.py)
    import olearn
    from olearn.experiments.runner import git_commit

    book = _tiny_book(tmp_path, "print(1 + 1)")
    (book / "intro.md").write_text("# Intro\n\nBuilt from olearn {{ olearn_version }}, "
                                   "commit {{ olearn_commit }}.\n\n{cite:t}`crammer2006pa`\n\n"
                                   "```{bibliography}\n```\n")
    result = _make_book(book)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    html = (book / "_build" / "html" / "intro.html").read_text()
    assert "Crammer et al., 2006" in html      # author-year label in the list, not [CDK+06]
    assert "CDK+06" not in html
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
    # each part is a numbered chapter (its landing page parts/<part>.md), in the order of ideas
    parts = [f for f in files if re.fullmatch(r"parts/(?!paper_)\w+", f)]
    assert parts == ["parts/oco", "parts/first_order", "parts/multiplicative",
                     "parts/regularization", "parts/second_order", "parts/second_order_at_scale",
                     "parts/kernels", "parts/voting", "parts/many_machines", "parts/reproducing"]
    captions = re.findall(r"^\s*- caption:\s*(.+)", toc, re.M)
    assert captions[-1:] == ["Reference"]


# --- one execution of a page per CI run (issue 30, item 4; tests/book_cache.py) ------------
def test_make_test_sets_quick_mode_and_fills_the_book_cache():
    # `make test` alone runs the pages as `make book` does (OLEARN_QUICK=1), on workers, and
    # hands the pages it executed to `make book`
    dry = subprocess.run(["make", "-n", "test", "STAMP=Makefile"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    pytest_line = " ".join(dry.split("\\\n"))
    assert "OLEARN_QUICK=1" in pytest_line.split("-m pytest")[0]
    for option in ("-n ", "--dist loadscope", "--nbval-lax", "--book-cache=book/_build/.jupyter_cache",
                   "--nbval-kernel-startup-timeout="):
        assert option in pytest_line, option


def _nbval(book, *pages):
    """``pytest --nbval-lax`` on ``pages`` of ``book``, writing its cache (tests/book_cache.py)."""
    env = {**os.environ, "OLEARN_QUICK": "1", "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "pytest", "--noconftest", "-p", "book_cache",
                           "-p", "no:cacheprovider", "-q", "--nbval-lax", "--nbval-current-env",
                           f"--book-cache={book / '_build' / '.jupyter_cache'}",
                           *map(str, pages)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def _two_page_book(tmp_path):
    import uuid

    book = _tiny_book(tmp_path, "import uuid\nprint('run', uuid.uuid4().hex)")
    (book / "bad.ipynb").write_text(json.dumps(_notebook(
        f"raise RuntimeError('a failing cell {uuid.uuid4().hex}')")))
    (book / "_toc.yml").write_text((book / "_toc.yml").read_text() + "      - file: bad\n")
    return book


def _run_token(text):
    import re

    return re.findall(r"run ([0-9a-f]{32})", text)


def test_make_book_renders_the_pages_make_test_executed_without_running_them(tmp_path):
    sys.path.insert(0, str(ROOT / "tests"))
    import book_cache

    book = _two_page_book(tmp_path)
    tested = _nbval(book, book / "page.ipynb", book / "bad.ipynb")
    assert tested.returncode == 1, tested.stdout[-2000:]          # the bad page fails nbval
    assert book_cache.reused(book) == (1, []), tested.stdout[-2000:]   # bad.ipynb not cached
    first, second = _make_book(book), _make_book(book)
    for build in (first, second):                    # the failed page fails every build
        assert build.returncode != 0, build.stdout[-2000:]
        assert "bad.ipynb" in build.stdout + build.stderr
        assert "CellExecutionError" in build.stdout + build.stderr
    html = (book / "_build" / "html" / "page.html").read_text()
    shown = _run_token(html)
    assert len(shown) == 1 and book_cache.reused(book)[0] == 1
    cached = book_cache.cache_dir(book)
    from jupyter_cache import get_cache
    record, = [r for r in get_cache(str(cached)).list_cache_records()
               if r.data.get("executed_by") == book_cache.EXECUTED_BY]
    outputs = get_cache(str(cached)).get_cache_bundle(record.pk).nb.cells[0].outputs
    assert _run_token(outputs[0]["text"]) == shown   # the page shows the test run's output

    # the cache of a test run of another tree (or none) is emptied: the page runs afresh
    state = cached / book_cache.STATE_FILE
    state.write_text(json.dumps({"state": {"commit": "another"}}))
    again = _make_book(book)
    assert again.returncode != 0
    assert _run_token((book / "_build" / "html" / "page.html").read_text()) != shown
    assert book_cache.reused(book) == (0, [str((book / "page.ipynb").resolve())])


def test_a_kernel_start_that_dies_is_retried(monkeypatch):
    # two kernels started at once can be handed the same port: the loser dies before
    # replying to kernel_info; nbval's kernel (patched by tests/book_cache.py) starts again
    from nbval import kernel as nbval_kernel
    from nbval import plugin as nbval_plugin

    sys.path.insert(0, str(ROOT / "tests"))
    import book_cache

    assert issubclass(nbval_plugin.RunningKernel, book_cache.PatientKernel)
    starts = []

    def start(**kwargs):
        starts.append(kwargs)
        if len(starts) == 1:
            raise RuntimeError("Kernel died before replying to kernel_info")
        return "km", "kc"

    monkeypatch.setattr(nbval_kernel, "start_new_kernel", start)
    monkeypatch.setattr(nbval_kernel.RunningKernel, "_ensure_iopub_up", lambda self: None)
    monkeypatch.setattr(book_cache.time, "sleep", lambda seconds: None)
    kernel = nbval_plugin.RunningKernel("python3", cwd="/", startup_timeout=300)
    assert (kernel.km, kernel.kc) == ("km", "kc")
    assert len(starts) == 2 and starts[1]["startup_timeout"] == 300
    starts.clear()
    monkeypatch.setattr(nbval_kernel, "start_new_kernel",
                        lambda **kw: starts.append(kw) or (_ for _ in ()).throw(
                            RuntimeError("Kernel died before replying to kernel_info")))
    with pytest.raises(RuntimeError, match="Kernel died"):
        nbval_plugin.RunningKernel("python3", cwd="/", startup_timeout=300)
    assert len(starts) == book_cache.PatientKernel.attempts
