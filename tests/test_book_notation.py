"""Symbols a page uses with a meaning of its own are listed in the notation page's collision table.

The Winnow bound pages introduced $R$, $P$, $\\mu^\\pm$, $\\Phi$, $D(m, w)$, $h_t$, $\\gamma$, $n$
with meanings that collide with the notation page's and were not in its collision table
(issue 27). A page declares such symbols in a paragraph that starts with
"**Symbols local to this page**" (``$X$, meaning``, separated by semicolons); every symbol
declared there must have a row of book/notation.md that names it and links to that page.
"""
import json
import re
from pathlib import Path

BOOK = Path(__file__).resolve().parents[1] / "book"
PAGES = [p for p in sorted(BOOK.rglob("*.ipynb")) if "_build" not in p.parts]
MARK = "**Symbols local to this page**"


def declared_symbols(text):
    """The symbols (TeX between dollars, first of each item) of a page's local-symbol paragraph."""
    start = text.find(MARK)
    if start < 0:
        return []
    paragraph = text[start:].split("\n\n")[0].split("):", 1)[-1]
    items = paragraph.split(";")
    return [m.group(1) for item in items if (m := re.search(r"\$([^$]+)\$", item))]


def symbol_key(tex):
    """A symbol's letter, without sub/superscripts or arguments: $\\mu^+$ and $\\mu$ match."""
    tex = re.sub(r"\\(boldsymbol|mathbf|hat|bar|lVert|left|big)\s*", "", tex)
    m = re.search(r"\\?[A-Za-z]+", tex)
    return m.group(0) if m else tex


def collision_rows():
    rows = []
    for line in (BOOK / "notation.md").read_text().splitlines():
        if line.startswith("| $"):
            first = line.split(" | ")[0]
            keys = {symbol_key(s) for s in re.findall(r"\$([^$]+)\$", first)}
            rows.append((keys, line))
    return rows


def undeclared(page_name, text):
    missing = []
    for sym in declared_symbols(text):
        key = symbol_key(sym)
        if not any(key in keys and page_name in line for keys, line in collision_rows()):
            missing.append(sym)
    return missing


def markdown(path):
    nb = json.loads(path.read_text())
    return "\n\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def test_winnow_bound_declares_the_symbols_issue_27_found():
    text = markdown(BOOK / "single_pass" / "winnow_bound.ipynb")
    keys = {symbol_key(s) for s in declared_symbols(text)}
    assert {"R", "P", "n", r"\mu", r"\Phi", "D", "h", r"\gamma"} <= keys, keys


def test_detector():
    text = f"{MARK} (see notation): $Q$, a thing; $R$, a set.\n\nMore."
    assert declared_symbols(text) == ["Q", "R"]
    assert undeclared("single_pass/winnow_bound", text) == ["Q"]


def test_every_local_symbol_is_in_the_collision_table():
    for path in PAGES:
        name = str(path.relative_to(BOOK).with_suffix(""))
        missing = undeclared(name, markdown(path))
        assert not missing, f"{name}: {missing} not in book/notation.md with a link to the page"
