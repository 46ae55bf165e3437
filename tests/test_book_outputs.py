"""One convention for notebook outputs in the repository (issue 17, item 15).

A committed page stores no outputs and no execution counts, except the code cells tagged
``nbval-check-output``, which keep the output ``pytest --nbval-lax`` compares. Why this one:
``make book`` re-executes every page (``execute_notebooks: force``), so a stored output is
never what a reader sees; under ``--nbval-lax`` only tagged cells are compared, so every other
stored output is unchecked and goes stale unnoticed, and stored HTML, figures and timings make
a page's diff unreadable. A tagged cell must store its output, because nbval passes a tagged
cell with nothing stored without comparing anything. The first-line ``# NBVAL_CHECK_OUTPUT``
marker is replaced by the tag (it showed on the page). ``make strip-outputs``
(``python -m olearn._nbtools strip book``) applies the convention.
"""
from pathlib import Path

import nbformat
import pytest

from olearn import _nbtools

BOOK = Path(__file__).resolve().parents[1] / "book"
PAGES = _nbtools.notebooks([BOOK])


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(BOOK)))
def test_page_follows_the_output_convention(page):
    problems = _nbtools.violations(nbformat.read(page, as_version=4))
    assert not problems, (f"{page.relative_to(BOOK)}: {problems}; run `make strip-outputs` "
                          f"(and `python -m olearn._nbtools fill <page>` for tagged cells)")


def _page():
    nb = nbformat.v4.new_notebook()
    plain = nbformat.v4.new_code_cell("1 + 1", execution_count=3,
                                      outputs=[nbformat.v4.new_output(
                                          "execute_result", {"text/plain": "2"}, execution_count=3)])
    marked = nbformat.v4.new_code_cell("# NBVAL_CHECK_OUTPUT\nprint(2)", execution_count=4,
                                       outputs=[nbformat.v4.new_output("stream", text="2\n")])
    nb.cells = [nbformat.v4.new_markdown_cell("# T"), plain, marked]
    return nb


def test_violations_are_found_and_strip_fixes_them():
    nb = _page()
    found = {(i, p.split(" ")[0]) for i, p in _nbtools.violations(nb)}
    assert (1, "stores") in found and (2, "first") in found
    assert _nbtools.strip_notebook(nb) == 2
    assert _nbtools.violations(nb) == []
    plain, marked = nb.cells[1], nb.cells[2]
    assert plain.outputs == [] and plain.execution_count is None
    assert marked.source == "print(2)" and marked.metadata["tags"] == ["nbval-check-output"]
    assert marked.outputs[0]["text"] == "2\n"            # the compared output is kept
    assert _nbtools.strip_notebook(nb) == 0               # idempotent


def test_a_tagged_cell_without_output_is_a_violation():
    nb = _page()
    _nbtools.strip_notebook(nb)
    nb.cells[2].outputs = []
    assert any("stores no output" in p for _, p in _nbtools.violations(nb))
