"""The built HTML renders with no network: MathJax is served from the book, no page loads a
script or stylesheet from another host, and headless Chromium with the network unreachable
finds typeset math and loaded figures (tests/browser_check.py, also run by .ci/run on the
real build).

A tiny book with the real ``_config.yml``, ``_static`` and ``_ext`` is built (seconds, not the
minutes of the full book), so that a change of the configuration that brings back a CDN fails
here.
"""
import base64
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
JB = Path(sys.executable).parent / "jupyter-book"

spec = importlib.util.spec_from_file_location("browser_check", ROOT / "tests" / "browser_check.py")
browser_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(browser_check)

needs_jb = pytest.mark.skipif(not JB.exists(), reason="jupyter-book (dev extras) is needed")
needs_chromium = pytest.mark.needs_tools("chromium")   # tests/system_tools.py

# a 2x1 PNG
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAEUlEQVR4nGP4z8DwHwyBDAA"
                       "+pgT8x7h7bQAAAABJRU5ErkJggg==")


def _page_notebook():
    md = ("# Page\n\nInline $\\mathbf{w}_t \\cdot \\mathbf{x}_t$ and a display\n\n"
          "$$\n\\boldsymbol\\mu_{t} = \\operatorname*{argmin}_{\\mathbf{w}} "
          "\\lVert \\mathbf{w} \\rVert^2\n$$ (eq-x)\n\nsee {eq}`eq-x`.\n\n![a figure](fig.png)\n")
    return {"cells": [{"cell_type": "markdown", "id": "m0", "metadata": {}, "source": [md]}],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture(scope="module")
def tiny_html(tmp_path_factory):
    if not JB.exists():
        pytest.skip("jupyter-book (dev extras) is needed")
    book = tmp_path_factory.mktemp("offline") / "book"
    book.mkdir()
    for name in ("_config.yml", "references.bib"):
        shutil.copy(BOOK / name, book / name)
    for name in ("_ext", "_static"):
        shutil.copytree(BOOK / name, book / name)
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nparts:\n  - caption: T\n"
                                   "    chapters:\n      - file: page\n")
    (book / "intro.md").write_text("# Intro\n\nThe protocol, $y_t \\in \\{-1, +1\\}$.\n\n"
                                   "{cite:t}`crammer2006pa`\n\n```{bibliography}\n```\n")
    (book / "page.ipynb").write_text(json.dumps(_page_notebook()))
    (book / "fig.png").write_bytes(PNG)
    result = subprocess.run([str(JB), "build", "-W", "--keep-going", str(book)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return book / "_build" / "html"


def test_mathjax_is_vendored_with_its_license():
    static = BOOK / "_static" / "mathjax"
    config = (BOOK / "_config.yml").read_text()
    path = re.search(r"^\s*mathjax_path:\s*(\S+)", config, re.M)
    assert path, "_config.yml sets no mathjax_path: Sphinx would load MathJax from a CDN"
    assert "://" not in path.group(1), f"mathjax_path is remote: {path.group(1)}"
    assert (BOOK / "_static" / path.group(1)).is_file()
    assert "Apache License" in (static / "LICENSE").read_text()


@needs_jb
def test_no_script_or_stylesheet_from_another_host(tiny_html):
    remote = []
    for page in tiny_html.rglob("*.html"):
        html = page.read_text()
        remote += [(page.name, tag) for tag in re.findall(r"<(?:script|link)\b[^>]*>", html)
                   if re.search(r"""(?:src|href)=["']?(?:https?:)?//""", tag)]
    assert not remote, remote


@needs_jb
@needs_chromium
def test_tiny_book_renders_offline_in_chromium(tiny_html):
    chromium = browser_check.find_chromium()
    for page in ("intro", "page"):
        assert browser_check.check_page(chromium, tiny_html / f"{page}.html") == []


@needs_chromium
def test_check_fails_on_a_cdn_mathjax_and_a_missing_figure(tmp_path):
    # the state before the fix: MathJax from a CDN (unreachable), and a broken image
    page = tmp_path / "cdn.html"
    page.write_text(
        "<html><head><script defer "
        "src='https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js'></script></head>"
        "<body><p><span class='math notranslate nohighlight'>\\(x^2\\)</span></p>"
        "<img src='missing.png'></body></html>")
    problems = browser_check.check_page(browser_check.find_chromium(), page)
    text = "\n".join(problems)
    assert "MathJax did not load" in text
    assert "raw TeX" in text
    assert "images not loaded: ['missing.png']" in text
    assert "requests to other hosts: ['https://cdn.jsdelivr.net" in text


@needs_chromium
def test_check_fails_on_markup_printed_as_typed_cut_code_and_a_wide_table(tmp_path):
    # what issue 27 saw at 1280 px: a computed sentence parsed as CommonMark (its TeX, {eq} and
    # {prf:ref} printed as typed), a code line behind a horizontal scroll, a table wider than
    # the column; none of them is a problem the math and image checks above can see
    long_line = "x = " + "1 + " * 60 + "1"
    page = tmp_path / "raw.html"
    page.write_text(
        "<html><body><main><article class='bd-article' style='width:500px'>"
        "<p>Round 1: $\\Sigma_1\\mathbf x_1 = \\mathbf x_1$, see {eq}`wb-demotions` and "
        "{prf:ref}`thm-winnow-bound`.</p>"
        f"<div class='highlight'><pre style='overflow-x:auto'>{long_line}</pre></div>"
        "<table><tr>" + "<td style='white-space:nowrap'>a wide cell of text</td>" * 12
        + "</tr></table><p>Prices: $5 or so.</p></article></main></body></html>")
    problems = browser_check.check_page(browser_check.find_chromium(), page,
                                        require_math=False)
    text = "\n".join(problems)
    assert "raw $...$" in text and "raw {role}`...`" in text and "raw \\\\command" in text
    assert f"code {len(long_line)} chars" in text
    assert "table" in text and "wider than the text column" in text


@needs_chromium
def test_check_passes_a_page_that_fits(tmp_path):
    page = tmp_path / "fine.html"
    page.write_text(
        "<html><body><main><article class='bd-article' style='width:500px'>"
        "<p>Plain text, a price of $5, and code:</p><div class='highlight'><pre>x = 1</pre>"
        "</div><table><tr><td>a</td><td>b</td></tr></table></article></main></body></html>")
    assert browser_check.check_page(browser_check.find_chromium(), page,
                                    require_math=False) == []


@needs_chromium
def test_check_fails_on_a_formula_past_the_column(tmp_path):
    # a long inline formula does not wrap: it runs past the column's right edge
    page = tmp_path / "math.html"
    page.write_text(
        "<html><body><main><article class='bd-article' style='width:500px'>"
        "<p>See <mjx-container style='display:inline-block;width:900px'>x</mjx-container>"
        "</p></article></main></body></html>")
    problems = browser_check.check_page(browser_check.find_chromium(), page,
                                        require_math=False)
    assert "formula 900 px" in "\n".join(problems)


def test_every_page_of_a_build_is_listed_but_redirects_and_indexes(tmp_path):
    # the browser check covers every page of the build: each HTML file, without Sphinx's
    # genindex/search pages, the static folders and Jupyter Book's redirecting index.html
    (tmp_path / "a").mkdir()
    (tmp_path / "_static").mkdir()
    for name in ("intro.html", "a/page.html", "genindex.html", "search.html",
                 "_static/x.html"):
        (tmp_path / name).write_text("<html><body>x</body></html>")
    (tmp_path / "index.html").write_text(
        '<meta http-equiv="Refresh" content="0; url=intro.html" />')
    assert browser_check.book_pages(tmp_path) == ["a/page", "intro"]
