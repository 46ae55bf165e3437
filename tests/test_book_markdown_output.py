"""Text a cell computes and shows with ``IPython.display.Markdown`` renders as MyST.

Worked rounds and computed sentences (arow/intuition, duol/derivation, single_pass/winnow_bound,
...) are produced by code cells as ``Markdown(f"...")``. myst-nb parses such output as
CommonMark unless told otherwise, so ``$\\beta_1$`` was printed as typed, underscores became
italics and ``{eq}`` / ``{prf:ref}`` roles appeared literally (issue 27). The book's
``_config.yml`` sets ``nb_render_markdown_format: myst``; this test builds a tiny book with that
configuration and a page whose only math and cross-references come from a code cell's output.
"""
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

pytestmark = pytest.mark.skipif(not JB.exists(), reason="jupyter-book (dev extras) is needed")

CELL = r'''from IPython.display import Markdown
Markdown(r"""Computed: $\beta_1 = 1/(4 + 1)$ and $w_{24} = -0.5$, see {eq}`tiny-eq` and
{prf:ref}`tiny-thm`.""")'''

PAGE_MD = r"""# Page

$$
a = b
$$ (tiny-eq)

```{prf:theorem} Tiny
:label: tiny-thm

A statement.
```
"""


def _page():
    return {"cells": [{"cell_type": "markdown", "id": "m0", "metadata": {}, "source": [PAGE_MD]},
                      {"cell_type": "code", "id": "c0", "metadata": {"tags": ["remove-input"]},
                       "execution_count": None, "outputs": [], "source": [CELL]}],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def _build(tmp_path, config):
    book = tmp_path / "book"
    book.mkdir()
    (book / "_config.yml").write_text(config)
    shutil.copy(BOOK / "references.bib", book / "references.bib")
    shutil.copytree(BOOK / "_ext", book / "_ext")
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nparts:\n  - caption: T\n"
                                   "    chapters:\n      - file: page\n")
    (book / "intro.md").write_text("# Intro\n")
    (book / "page.ipynb").write_text(json.dumps(_page()))
    result = subprocess.run([str(JB), "build", "--all", str(book)], capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return (book / "_build" / "html" / "page.html").read_text()


def raw_markup(html):
    """MyST or TeX left as typed in a page's text (outside math elements)."""
    text = re.sub(r'<(span|div) class="math[^"]*"[^>]*>.*?</\1>', "", html, flags=re.S)
    text = re.sub(r"<[^>]+>", "", text)
    return re.findall(r"\{(?:eq|prf:ref)\}|\$[^$\n]+\$|\\beta", text)


def test_computed_markdown_is_typeset_and_its_references_resolve(tmp_path):
    html = _build(tmp_path, (BOOK / "_config.yml").read_text())
    assert not raw_markup(html), raw_markup(html)
    assert html.count('class="math notranslate nohighlight"') >= 2  # both inline formulas
    assert 'href="#equation-tiny-eq"' in html and 'href="#tiny-thm"' in html


def test_commonmark_output_would_print_the_markup(tmp_path):
    # what the book did before: the same page under myst-nb's default format
    config = (BOOK / "_config.yml").read_text().replace(
        "nb_render_markdown_format: myst", "nb_render_markdown_format: commonmark")
    assert raw_markup(_build(tmp_path, config))
