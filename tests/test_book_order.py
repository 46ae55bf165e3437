"""The book's order follows its own prerequisites (issue 39, item 4).

A page says what it needs in a line that starts with **Prerequisites:** (a page) or **Builds
on:** (a landing page); ``book/how_to_read.ipynb`` draws the chapters' dependency graph from
those lines. A reader who follows the table of contents (book/_toc.yml) must meet every page
a page declares as a prerequisite before that page: this test fails when a page comes, in the
table of contents, before a page it declares. The pages of the Reference part (notation,
glossary, algorithm index, API) are looked up, not read in order, and may be named from
anywhere.

The parser is the one of ``how_to_read`` (same paragraph and link patterns), so the test and
the drawn graph see the same arrows.
"""
import json
import re
from pathlib import Path

import yaml

BOOK = Path(__file__).resolve().parents[1] / "book"
PARAGRAPH = re.compile(r"\*\*(?:Prerequisites|Builds on):?\*\*(.*?)(?:\n\n|\*\*[A-Z])", re.S)
LINK = re.compile(
    r"\]\(([^)\s]+?\.(?:ipynb|md))(?:#[^)]*)?\)|\{doc\}`(?:[^`<]*<)?([^`>]+)>?`"
)


def _files(entries):
    for entry in entries or []:
        if "file" in entry:
            yield entry["file"]
        yield from _files(entry.get("sections"))


def reading_order(toc):
    """(the pages in the order of the table of contents, the Reference part's pages)."""
    order = [page for part in toc["parts"] for page in _files(part["chapters"])]
    reference = {page for part in toc["parts"] if part.get("caption") == "Reference"
                 for page in _files(part["chapters"])}
    return order, reference


def markdown_of(page, book=BOOK):
    path = next(book.glob(page + ".*"))
    if path.suffix == ".md":
        return path.read_text(encoding="utf-8")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def declared(page, text, pages):
    """The pages of ``pages`` that ``page`` names in its Prerequisites / Builds on lines."""
    found = set()
    for paragraph in PARAGRAPH.finditer(text):
        for link in LINK.finditer(paragraph.group(1)):
            target = (link.group(1) or link.group(2)).strip()
            base = Path("/") if target.startswith("/") else Path("/" + page).parent
            name = re.sub(r"\.(ipynb|md)$", "",
                          str((base / target.lstrip("/")).resolve())[1:])
            if name in pages:
                found.add(name)
    return found


def arrows(order, reference, text_of):
    """Every (prerequisite, page) pair declared between pages read in order."""
    pages = set(order)
    return [(needed, page) for page in order if page not in reference
            for needed in sorted(declared(page, text_of(page), pages) - reference)]


def backward(order, pairs):
    position = {page: k for k, page in enumerate(order)}
    return [(needed, page) for needed, page in pairs if position[needed] > position[page]]


def test_the_detector_finds_a_backward_arrow():
    # the situation of issue 39: a chapter-2 page that needs a chapter-4 page
    order = ["oco/omd", "oco/lower_bounds", "single_pass/winnow_bound", "notation"]
    texts = {
        "oco/omd": "**Prerequisites:** the [notation](../notation.md).\n\n",
        "oco/lower_bounds": "**Prerequisites:** {doc}`omd` (regret), "
                            "{doc}`../single_pass/winnow_bound` (Winnow's bound).\n**Asserted:**",
        "single_pass/winnow_bound": "**Prerequisites:** [the learners](winnow.ipynb).\n\n",
        "notation": "",
    }
    pairs = arrows(order, {"notation"}, texts.get)
    assert pairs == [("oco/omd", "oco/lower_bounds"),
                     ("single_pass/winnow_bound", "oco/lower_bounds")]
    assert backward(order, pairs) == [("single_pass/winnow_bound", "oco/lower_bounds")]
    swapped = ["oco/omd", "single_pass/winnow_bound", "oco/lower_bounds", "notation"]
    assert backward(swapped, pairs) == []


def test_no_page_comes_before_a_page_it_declares_as_a_prerequisite():
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text(encoding="utf-8"))
    order, reference = reading_order(toc)
    pairs = arrows(order, reference, markdown_of)
    # the test reads real declarations: the problem sets alone declare dozens
    assert len(pairs) >= 40, pairs
    found = backward(order, pairs)
    assert not found, "\n".join(
        f"{page} (position {order.index(page)}) declares {needed} "
        f"(position {order.index(needed)}) as a prerequisite" for needed, page in found)
