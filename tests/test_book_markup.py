"""Markup errors that the HTML build does not report.

A backtick fence whose info string contains a backtick is not a fence in CommonMark
(for example a directive title with a ``{cite:t}`...``` role): the directive is then
printed as raw text, and the build with ``-W`` passes silently.
"""
import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
PAGES = sorted(BOOK.rglob("*.ipynb")) + sorted(BOOK.glob("*.md")) + sorted(BOOK.glob("parts/*.md"))
PAGES = [p for p in PAGES if "_build" not in p.parts and ".ipynb_checkpoints" not in p.parts]


def markdown_of(path):
    if path.suffix == ".md":
        return [path.read_text()]
    nb = json.loads(path.read_text())
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]


def bad_fences(text):
    """Opening backtick fences of a directive whose info string holds a backtick."""
    bad = []
    for line in text.splitlines():
        m = re.match(r"^\s*(`{3,})(\{.*)$", line)
        if m and "`" in m.group(2):
            bad.append(line)
    return bad


def test_detector_finds_a_backtick_in_a_directive_title():
    assert bad_fences("```{prf:theorem} Title {cite:t}`key`\n:label: x\n```")
    assert not bad_fences("```{prf:theorem} Title (Key 2009)\n:label: x\n```")


def _inline_dollars(line):
    return len(re.findall(r"(?<!\\)\$", line.replace("$$", "")))


def lists_inside_math(text):
    """Lines that start a Markdown list item ("- ", "+ ", "1. ") while an inline formula
    ``$...$`` opened on an earlier line of the same paragraph is still open: Markdown
    starts a list there and the formula is printed as raw TeX."""
    bad, open_math, display = [], False, False
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped:
            open_math = False
            continue
        if stripped.startswith("$$") and stripped.count("$$") == 1:
            display = not display
            continue
        if display:
            continue
        if open_math and re.match(r"^\s*([+*-]|\d+[.)])\s", line):
            bad.append(line)
        if _inline_dollars(line) % 2:
            open_math = not open_math
    return bad


def test_detector_finds_a_list_marker_inside_inline_math():
    assert lists_inside_math("a $x\n+ y$ b")
    assert not lists_inside_math("a $x +\ny$ b\n- item")


def display_math_in_paragraph(text):
    """Lines of text directly followed by an opening ``$$`` line: without a blank line between
    them MyST does not start a display formula, and the page shows ``$`` around an inline
    formula (found by the browser check on arow/bound)."""
    bad, inside, lines = [], False, text.split("\n")
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("$$") and stripped.count("$$") == 1:
            previous = lines[i - 1].strip() if i else ""
            if not inside and previous and not previous.startswith((":", "```", "|")):
                bad.append(previous)
            inside = not inside
    return bad


def test_detector_finds_display_math_inside_a_paragraph():
    assert display_math_in_paragraph("AROW makes\n$$\nM \\le 1\n$$\n")
    assert not display_math_in_paragraph("AROW makes\n\n$$\nM \\le 1\n$$\n")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(BOOK)))
def test_markup_renders(page):
    texts = markdown_of(page)
    fences = [line for text in texts for line in bad_fences(text)]
    lists = [line for text in texts for line in lists_inside_math(text)]
    displays = [line for text in texts for line in display_math_in_paragraph(text)]
    assert not fences, f"{page}: directive fences with a backtick in the title: {fences}"
    assert not lists, f"{page}: a line of a formula starts with a list marker: {lists}"
    assert not displays, f"{page}: a $$ display starts inside a paragraph, after: {displays}"


def test_notation_states_one_convention_and_the_collisions():
    # issue 17, item 7: which model predicts in round t, and the symbols chi, u, S, w_ab
    text = (BOOK / "notation.md").read_text()
    assert "(notation-convention)=" in text
    assert r"\Sigma_{t-1}^{\text{paper}} = \Sigma_t" in text
    collisions = text[text.index("## Further collisions"):]
    for symbol in (r"$\chi_t$", r"$\mathbf{u}$", "| $S$ |", "$w_{ab}$", r"$\Sigma_0$"):
        assert symbol in collisions, symbol


def cells_with_split_math(text):
    """Cells of markdown table rows whose `$` count is odd: a `|` inside math (``$|S|^2$``)
    ends the cell, so the math reaches the HTML and the PDF as raw TeX (seen in the PDF)."""
    return [cell for line in text.split("\n") if line.startswith("|")
            for cell in re.split(r"(?<!\\)\|", line) if cell.count("$") % 2]


def test_split_math_detector():
    assert cells_with_split_math("| a | the O($|S|^2$) update |")
    assert not cells_with_split_math("| a | the $O(\\lvert S\\rvert^2)$ update |\nx $|y|$")


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(BOOK)))
def test_no_pipe_inside_math_in_a_table(path):
    assert not cells_with_split_math("\n".join(markdown_of(path))), (
        "a | inside $...$ in a table row splits the cell: write \\lvert ... \\rvert")
