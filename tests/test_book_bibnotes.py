"""Every part ends its landing page with bibliographic notes, and the standard references exist.

Issue 27: the anchors (d2l, Orabona, Cesa-Bianchi and Lugosi) close each part with who did what
first and what to read next; the book had none, and cited Kivinen and Warmuth (1997) by hand.
"""
import json
import re
from pathlib import Path

BOOK = Path(__file__).resolve().parents[1] / "book"
LANDINGS = ["oco", "first_order", "multiplicative", "regularization", "second_order",
            "second_order_at_scale", "kernels", "voting"]
STANDARD = ["cesabianchi2006prediction", "shalevshwartz2012oco", "orabona2019modern",
            "hazan2016introduction", "kivinen1997eg"]


def test_each_part_has_bibliographic_notes_with_citations():
    for part in LANDINGS:
        text = (BOOK / "parts" / f"{part}.md").read_text()
        notes = text.split("## Bibliographic notes", 1)
        assert len(notes) == 2, part
        assert len(re.findall(r"\{cite:[tp]\}`", notes[1])) >= 3, part
        assert "To read next" in " ".join(notes[1].split()), part


def test_standard_references_are_in_the_bibliography_and_cited():
    bib = (BOOK / "references.bib").read_text()
    keys = set(re.findall(r"@\w+\{(\w+),", bib))
    cited = set()
    for path in list(BOOK.rglob("*.md")) + list(BOOK.rglob("*.ipynb")):
        if "_build" in path.parts:
            continue
        text = path.read_text()
        cited |= {k for m in re.findall(r"\{cite:[tp]\}`([^`]+)`", text) for k in m.split(",")}
    for key in STANDARD:
        assert key in keys and key in cited, key


def test_no_reference_typed_by_hand_where_the_bibliography_has_it():
    nb = json.loads((BOOK / "single_pass" / "winnow.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in nb["cells"])
    assert "(Kivinen and Warmuth, 1997)" not in text
