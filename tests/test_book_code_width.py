"""The code a reader sees fits the text column.

At a laptop's width (a 1280-px window) the text column of the HTML theme is about 690 px, and
at the theme's 14-px code font only about 77 characters fit: longer lines were cut behind a
horizontal scroll (issue 27). book/_static/olearn.css sets the code font so that black's 88
characters fit (tests/browser_check.py measures every line of every built page), and every
code cell a reader can open keeps its lines within 88 characters: the visible cells and the
``hide-input`` ones (a click shows them), not the ``remove-input`` or ``remove-cell`` ones. Long
calls and strings are wrapped in the source, not by ``white-space: pre-wrap`` in the CSS, which
would break Python's indentation. A visible cell is also never a bare variable whose only job is
to display a table: such a table is shown by a ``remove-input`` cell after a sentence that says
what it is.
"""
import ast
import json
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
PAGES = [p for p in sorted(BOOK.rglob("*.ipynb"))
         if not {"_build", ".ipynb_checkpoints"} & set(p.parts)]
HIDDEN = {"remove-input", "remove-cell"}  # hide-input cells open with a click
WIDTH = 88


def visible_code(nb):
    """(cell index, source) of the code cells whose input the HTML shows (or shows on a click)."""
    return [(i, "".join(c["source"])) for i, c in enumerate(nb["cells"])
            if c["cell_type"] == "code" and not HIDDEN & set(c.get("metadata", {}).get("tags", []))]


def long_lines(nb, width=WIDTH):
    return [(i, n + 1, len(line)) for i, source in visible_code(nb)
            for n, line in enumerate(source.split("\n")) if len(line) > width]


def only_shows_a_name(source):
    """True for a cell that is one bare name (``kinds``, ``table.T``): it only displays it."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return False
    if len(body) != 1 or not isinstance(body[0], ast.Expr):
        return False
    value = body[0].value
    while isinstance(value, ast.Attribute):
        value = value.value
    return isinstance(value, ast.Name)


def _nb(*cells):
    return {"cells": [{"cell_type": "code", "metadata": {"tags": tags}, "source": source}
                      for source, tags in cells]}


def test_detectors_on_a_small_notebook():
    wide = "x = " + "1 + " * 30 + "1"
    nb = _nb((wide, []), (wide, ["remove-input"]), ("y = 1", []), ("kinds", []),
             ("kinds", ["remove-input"]), (wide, ["hide-input"]))
    assert long_lines(nb) == [(0, 1, len(wide)), (5, 1, len(wide))]
    assert [i for i, s in visible_code(nb) if only_shows_a_name(s)] == [3]
    assert only_shows_a_name("table.T") and not only_shows_a_name("pd.DataFrame(rows).T")
    assert not only_shows_a_name("table.loc['a']") and not only_shows_a_name("print(x)")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(BOOK)))
def test_visible_code_fits_the_text_column(page):
    nb = json.loads(page.read_text())
    bad = long_lines(nb)
    assert not bad, (f"{page.relative_to(BOOK)}: visible code lines over {WIDTH} characters "
                     f"(cell, line, length): {bad}; wrap them (black-style)")
    shows = [i for i, source in visible_code(nb) if only_shows_a_name(source)]
    assert not shows, (f"{page.relative_to(BOOK)}: visible cells {shows} only display a "
                       "variable; tag them remove-input after a sentence saying what they show")
