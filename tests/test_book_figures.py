"""Figures of the book's pages reach the HTML and the PDF as images.

Under ``MPLBACKEND=Agg`` (the book's build and CI) a matplotlib figure has an image
representation in a notebook only once the inline backend is on (``%matplotlib inline``):
without it, a figure glued with ``glue(key, fig)`` is stored as its text
``<Figure size 800x380 with 1 Axes>``, and the page and the PDF print that text in place of
the figure (book/bounds/side_by_side.ipynb's Fig. "fig-bounds-side").
"""
import json
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
PAGES = sorted(p for p in BOOK.rglob("*.ipynb") if "_build" not in p.parts
               and ".ipynb_checkpoints" not in p.parts)


def code_of(path):
    nb = json.loads(path.read_text())
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def makes_figures(cells):
    return any("plt.subplots" in c or "plt.figure" in c or "draw_map(" in c
               or "glue_figure(" in c for c in cells)


def inline_first(cells):
    """The inline backend is switched on before any figure is made (in the first code cell)."""
    return bool(cells) and "%matplotlib inline" in cells[0]


def test_detector():
    assert makes_figures(["import x", "fig, ax = plt.subplots()"])
    assert not inline_first(["import matplotlib.pyplot as plt", "%matplotlib inline"])
    assert inline_first(["%matplotlib inline\nimport matplotlib.pyplot as plt"])


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(BOOK)))
def test_pages_with_figures_use_the_inline_backend(page):
    cells = code_of(page)
    if makes_figures(cells):
        assert inline_first(cells), f"{page.name}: add %matplotlib inline to the first code cell"
