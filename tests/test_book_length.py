"""Every page's first reading is at most 2,000 words (issue 27, item 10).

A page's *first reading* is what a reader meets when reading it straight through without opening
anything: the prose of its markdown cells before its "Exercises" heading, leaving out

* fenced code (```` ```python ````, ```` ``` ````, ``~~~``) and code directives;
* solutions (``{solution}``, and everything from ``{solution-start}`` to ``{solution-end}``);
* every block that is collapsed in the HTML: ``{dropdown}`` (sphinx-design: a ``<details>``,
  closed until clicked, printed open in the PDF), ``{toggle}`` (sphinx-togglebutton) and an
  admonition, exercise or solution whose ``:class:`` holds ``dropdown`` (their titles count);
* markdown cells tagged ``remove-cell``, ``hide-cell`` or ``remove-input``, HTML comments and
  link targets.

Each formula -- ``$...$``, ``$$...$$``, a ``{math}`` directive or an amsmath environment --
counts as one word; a role (``{cite:t}`x```, ``{eq}`x```) as one word, or as the words of its
explicit text (``{doc}`the derivation <x>```). A word is a whitespace-separated token with a
letter or a digit in it (a table's ``|``, a dash alone, do not count).

A ``prf:`` directive (sphinx-proof) is never collapsed, whatever its class: its HTML is an
admonition without a title, sphinx-togglebutton's script stops with an error on it, the proof
stays open, and so does every dropdown admonition and solution after it on the page (seen in
headless Chromium on a built page). A proof is collapsed by wrapping it in a ``{dropdown}``,
and a page giving a ``prf:`` directive ``:class: dropdown`` fails here.

Every fence opened in a markdown cell must be closed in that cell: an unclosed ``{dropdown}``
would swallow the rest of the cell (MyST renders it inside the block, and the measure would not
count it).

Pages are the notebooks and markdown files that ``_toc.yml`` lists. ``test_print_the_table``
prints the table of every page's first-reading words (``python tests/test_book_length.py``
prints it too).
"""
import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
LIMIT = 2000

# Directives whose whole body is left out of a first reading.
CODE_DIRECTIVES = {"code", "code-block", "code-cell", "sourcecode", "literalinclude", "raw",
                   "eval-rst", "glue:md", "glue:any", "glue:text"}
COLLAPSED_DIRECTIVES = {"dropdown", "toggle", "solution"}
# sphinx-proof's directives accept `:class: dropdown` but do not collapse (and break the
# dropdowns after them): their body counts whatever their class.
NOT_COLLAPSIBLE_PREFIX = "prf:"
TARGET_ARGUMENT = {"glue:figure", "glue", "figure", "image", "include", "bibliography"}
HIDDEN_TAGS = {"remove-cell", "hide-cell", "remove-input"}

FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,}|:{3,})(?P<info>.*)$")
DIRECTIVE = re.compile(r"^\{(?P<name>[^}\s]+)\}\s*(?P<arg>.*)$")
OPTION = re.compile(r"^\s*:(?P<key>[\w-]+):\s*(?P<value>.*)$")
EXERCISES = re.compile(r"^\s{0,3}#{1,6}\s+Exercises\b", re.IGNORECASE)
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
BEGIN_ENV = re.compile(r"^\s*\\begin\{(?P<env>[A-Za-z*]+)\}")
FORMULA = "\x00F\x00"  # a formula stands for one word


def _toc_pages(toc_text):
    """The page paths (without suffix) that ``_toc.yml`` lists, root first."""
    root = re.search(r"^root:\s*(\S+)", toc_text, re.M).group(1)
    return [root] + re.findall(r"^\s*-?\s*file:\s*(\S+)", toc_text, re.M)


def book_pages(book=BOOK):
    """{page name: path} of every page of the table of contents."""
    pages = {}
    for name in _toc_pages((book / "_toc.yml").read_text()):
        for suffix in (".ipynb", ".md"):
            if (book / (name + suffix)).exists():
                pages[name] = book / (name + suffix)
                break
    return pages


def markdown_cells(path):
    """The markdown text of a page, one string per markdown cell a reader sees."""
    if path.suffix == ".md":
        text = path.read_text()
        if text.startswith("---"):  # front matter
            end = text.find("\n---", 3)
            text = text[end + 4:] if end >= 0 else text
        return [text]
    nb = json.loads(path.read_text())
    cells = []
    for cell in nb["cells"]:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if cell["cell_type"] == "markdown" and not HIDDEN_TAGS & tags:
            source = cell["source"]
            cells.append("".join(source) if isinstance(source, list) else source)
        elif cell["cell_type"] == "code":
            cells.append(None)  # a code cell: only matters to {solution-start} ... {solution-end}
    return cells


def _count_prose(text):
    """Words of prose lines (no fences in them): formulas and roles count one word each."""
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$(?:[ \t]*\([\w:.-]+\))?", f" {FORMULA} ", text, flags=re.S)
    text = re.sub(r"(?<![\\$])\$(?!\s)[^$\n]+?(?<![\\\s])\$", f" {FORMULA} ", text)
    # roles: {doc}`text <target>` -> text; {cite:t}`key` -> one word
    text = re.sub(r"\{[\w:-]+\}`([^`<]*?)\s*<[^`>]*>`", r" \1 ", text)
    text = re.sub(r"\{[\w:-]+\}`[^`]*`", " R0le ", text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r" \1 ", text)  # [text](url) -> text
    text = re.sub(r"^\s*\([\w:.-]+\)=\s*$", " ", text, flags=re.M)  # (label)= targets
    text = re.sub(r"^\s*\[[^\]]+\]:\s*\S+.*$", " ", text, flags=re.M)  # link definitions
    return sum(1 for token in text.split() if FORMULA in token or re.search(r"\w", token))


class _Reader:
    """Walks a page's markdown, line by line, and counts its first reading."""

    def __init__(self, stop_at_exercises=True):
        self.stop_at_exercises = stop_at_exercises
        self.words = 0
        self.in_solution = False   # between {solution-start} and {solution-end}
        self.done = False          # reached the "Exercises" heading
        self.unclosed = []         # fences opened and never closed in their cell

    def read_cell(self, text):
        lines = text.split("\n")
        self._read(lines, 0, len(lines), counted=True)

    def _read(self, lines, start, stop, counted):
        """Read lines[start:stop]; counted=False inside a collapsed block."""
        prose = []
        i = start
        while i < stop and not self.done:
            line = lines[i]
            if (self.stop_at_exercises and counted and not self.in_solution
                    and EXERCISES.match(line)):
                self.done = True
                break
            fence = FENCE.match(line)
            env = BEGIN_ENV.match(line)
            if fence:
                self._flush(prose, counted)
                i = self._block(lines, i, stop, fence, counted)
                continue
            if env:  # an amsmath environment: one formula
                self._flush(prose, counted)
                end = re.compile(r"\\end\{" + re.escape(env.group("env")) + r"\}")
                j = i
                while j < stop and not end.search(lines[j]):
                    j += 1
                if counted and not self.in_solution:
                    self.words += 1
                i = j + 1
                continue
            if HEADING.match(line):
                self._flush(prose, counted)
            prose.append(line)
            i += 1
        self._flush(prose, counted)

    def _flush(self, prose, counted):
        if prose and counted and not self.in_solution:
            self.words += _count_prose("\n".join(prose))
        prose.clear()

    def _block(self, lines, i, stop, fence, counted):
        """Read the fenced block opened at lines[i]; return the index after it."""
        mark = fence.group("fence")
        closer = re.compile(r"^\s*" + re.escape(mark[0]) + "{" + str(len(mark)) + r",}\s*$")
        j = i + 1
        while j < stop and not closer.match(lines[j]):
            j += 1
        if j >= stop:
            self.unclosed.append(lines[i].strip())
        body_start, body_stop = i + 1, j
        info = fence.group("info").strip()
        directive = DIRECTIVE.match(info)
        if not directive:  # fenced code
            return j + 1
        name, arg = directive.group("name"), directive.group("arg")
        # the options: `:key: value` lines, or a `---` YAML block, right after the opener
        options = {}
        k = body_start
        if k < body_stop and lines[k].strip() == "---":
            k += 1
            while k < body_stop and lines[k].strip() != "---":
                key, _, value = lines[k].partition(":")
                options[key.strip()] = value.strip()
                k += 1
            k += 1
        else:
            while k < body_stop and OPTION.match(lines[k]):
                option = OPTION.match(lines[k])
                options[option.group("key")] = option.group("value")
                k += 1
        if name == "solution-start":
            self.in_solution = True
            return j + 1
        if name == "solution-end":
            self.in_solution = False
            return j + 1
        if name in CODE_DIRECTIVES:
            return j + 1
        if name == "math":
            if counted and not self.in_solution:
                self.words += 1
            return j + 1
        collapsed = (name in COLLAPSED_DIRECTIVES
                     or ("dropdown" in options.get("class", "").split()
                         and not name.startswith(NOT_COLLAPSIBLE_PREFIX)))
        inner = counted and not collapsed
        # a title counts, also a collapsed block's (it is what the reader clicks); a glue key
        # or a file name is not a title
        if counted and not self.in_solution and arg and name not in TARGET_ARGUMENT:
            self.words += _count_prose(arg)
        self._read(lines, k, body_stop, inner)
        return j + 1


def first_reading_words(path):
    """The number of words of the first reading of the page at ``path``."""
    reader = _Reader()
    for text in markdown_cells(Path(path)):
        if reader.done:
            break
        if text is not None:
            reader.read_cell(text)
    return reader.words


def unclosed_fences(path):
    """The fences of a page that are opened and never closed within their markdown cell (an
    unclosed fence swallows the rest of the cell: the measure would not count it, and MyST
    renders it inside the block)."""
    reader = _Reader(stop_at_exercises=False)
    for text in markdown_cells(Path(path)):
        if text is not None:
            reader.read_cell(text)
    return reader.unclosed


def length_table(book=BOOK):
    """[(page, first-reading words)] for every page of the table of contents."""
    return [(name, first_reading_words(path)) for name, path in book_pages(book).items()]


def format_table(rows, limit=LIMIT):
    width = max(len(name) for name, _ in rows)
    lines = [f"{'page':<{width}}  first-reading words"]
    for name, words in sorted(rows, key=lambda row: -row[1]):
        flag = "  OVER" if words > limit else ""
        lines.append(f"{name:<{width}}  {words:>6,}{flag}")
    return "\n".join(lines)


# --- the measure, on small pages whose counts are known -----------------------------------

def _page(tmp_path, *cells):
    nb = {"cells": [{"cell_type": kind, "metadata": {"tags": tags}, "source": source}
                    for kind, source, tags in cells],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "page.ipynb"
    path.write_text(json.dumps(nb))
    return path


def test_measure_counts_prose_and_formulas(tmp_path):
    page = _page(tmp_path, ("markdown", "# A title\n\nOne two $x_1 + y$ three.\n\n"
                            "$$\n\\sum_t \\ell_t\n$$\n\n| a | b |\n|---|---|\n| c d | e |\n", []))
    # A, title, One, two, formula, three, formula, a, b, c, d, e
    assert first_reading_words(page) == 12


def test_measure_leaves_out_code_solutions_collapsed_blocks_and_exercises(tmp_path):
    page = _page(
        tmp_path,
        ("markdown", "Four words of prose.\n\n```python\nx = 1 + 2 + 3\n```\n", []),
        ("markdown", "```{dropdown} Proof\nmany words here hidden\n```\n\n"
                     ":::{toggle}\nhidden too\n:::\n\n"
                     "```{admonition} Detail\n:class: dropdown\nhidden words\n```\n", []),
        ("markdown", "```{solution-start} ex\n:class: dropdown\n```\nhidden solution\n", []),
        ("code", "print('hidden')", []),
        ("markdown", "```{solution-end}\n```\nTwo more.", []),
        ("markdown", "Hidden by a tag.", ["remove-cell"]),
        ("markdown", "## Exercises\n\nNot counted at all.", []),
        ("markdown", "Nor this.", []))
    assert first_reading_words(page) == 4 + 1 + 1 + 2  # the titles "Proof" and "Detail"


def test_measure_counts_open_blocks_and_sphinx_proof_dropdowns(tmp_path):
    page = _page(tmp_path, ("markdown",
                            "````{prf:theorem} Bound\n:label: thm-x\nStatement $M$ holds.\n"
                            "```{math}\n:label: eq-x\nM \\le 1\n```\n````\n\n"
                            "```{prf:proof}\n:class: dropdown\nFive words of a proof.\n```\n\n"
                            "````{dropdown} Proof\n```{prf:proof}\nHidden proof.\n```\n````\n\n"
                            "See {eq}`eq-x` and {doc}`the derivation <other>`.", []))
    # Bound + Statement formula holds + math + Five words of a proof + Proof (a dropdown's
    #   title) + See role and the derivation
    assert first_reading_words(page) == 1 + 3 + 1 + 5 + 1 + 5


PRF_DROPDOWN = re.compile(r"^\s*(`{3,}|:{3,})\{prf:[\w-]+\}[^\n]*\n(?:\s*:[\w-]+:[^\n]*\n)*?"
                          r"\s*:class:[^\n]*\bdropdown\b", re.M)


def prf_dropdowns(path):
    """The sphinx-proof directives of a page that are given ``:class: dropdown``."""
    return [m.group(0).split("\n")[0].strip() for text in markdown_cells(path) if text
            for m in PRF_DROPDOWN.finditer(text)]


def test_prf_dropdown_detector(tmp_path):
    page = _page(tmp_path, ("markdown", "```{prf:proof}\n:label: p\n:class: dropdown\nx\n```\n"
                            "```{prf:theorem} T\nno class\n```\n"
                            "```{admonition} A\n:class: dropdown\nx\n```\n", []))
    assert prf_dropdowns(page) == ["```{prf:proof}"]


@pytest.mark.parametrize("name", sorted(book_pages()))
def test_no_proof_is_given_a_dropdown_class(name):
    found = prf_dropdowns(book_pages()[name])
    assert not found, (
        f"{name}: {found} has :class: dropdown, which sphinx-proof ignores; it stops "
        "sphinx-togglebutton, so every dropdown after it on the page opens too. Wrap the "
        "proof in a ```{dropdown} instead")


def test_unclosed_fence_detector(tmp_path):
    page = _page(tmp_path, ("markdown", "::::{dropdown} A\n```{prf:proof}\nx\n```\n::::\n", []),
                 ("markdown", "::::{dropdown} B\nhidden for ever\n", []),
                 ("markdown", "## Exercises\n```python\nx = 1\n", []))
    assert unclosed_fences(page) == ["::::{dropdown} B", "```python"]


@pytest.mark.parametrize("name", sorted(book_pages()))
def test_every_fence_is_closed(name):
    assert not unclosed_fences(book_pages()[name]), name


def test_every_page_is_measured():
    rows = length_table()
    assert len(rows) >= 60, rows  # every page of the table of contents
    assert all(words > 0 for _, words in rows), rows


def reference_pages(book=BOOK):
    """The pages of the toc's Reference part (notation, glossary, index, API, errata): looked up
    entry by entry, not read straight through, so the first-reading limit does not apply."""
    toc = (book / "_toc.yml").read_text()
    part = toc.split("caption: Reference", 1)[1] if "caption: Reference" in toc else ""
    part = re.split(r"^\s*- caption:", part, flags=re.M)[0]
    return set(re.findall(r"^\s*-?\s*file:\s*(\S+)", part, re.M))


def test_the_reference_part_is_found():
    assert {"notation", "glossary", "errata"} <= reference_pages()


@pytest.mark.parametrize("name", sorted(set(book_pages()) - reference_pages()))
def test_first_reading_is_at_most_2000_words(name):
    words = first_reading_words(book_pages()[name])
    assert words <= LIMIT, (
        f"{name}: the first reading has {words:,} words (limit {LIMIT:,}): move optional "
        "proofs, long derivation steps and reproduction detail into a collapsed block "
        "({dropdown}) or a page of their own")


def test_print_the_table(capsys):
    table = format_table(length_table())
    with capsys.disabled():
        print("\n" + table)


if __name__ == "__main__":
    print(format_table(length_table()))
