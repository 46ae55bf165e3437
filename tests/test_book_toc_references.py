"""What a page says about the book's structure matches the table of contents (book/_toc.yml).

A part is a numbered chapter: its landing page (book/parts/<part>.md) with its sections.

The reorganisation by idea (issue 17) moved pages between parts, and sentences written for
the old layout stayed: "This part has three pages" on a part of six, "the chapter *Single-pass
learning and Winnow*" after that chapter was split, "as for PA in the previous chapter" where
the previous chapter is a landing page, an "opening" link to intro.md (issue 27). This test
reads every page's markdown and checks against _toc.yml:

- "this part has N pages": N is the number of pages of the page's part (its landing page and
  its end-of-part problem set, ``problems/<part>``, not counted);
- "the part *X*" names a caption of the table of contents, "the chapter *X*" a page title;
- "the previous/next chapter" is not written without a link (in this book every page is a
  numbered chapter, so the words alone are ambiguous), and a link whose sentence says "previous
  page", "next page", "next part" (or chapter) goes to that page, or to the next part's first page;
- every relative link and ``{doc}`` reference goes to a page of the table of contents, and a
  link whose text is "opening" goes to the opening chapter.
"""
import json
import re
from pathlib import Path

import pytest
import yaml

BOOK = Path(__file__).resolve().parents[1] / "book"
NUMBERS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}


def _files(entries):
    for entry in entries or []:
        if "file" in entry:
            yield entry["file"]
        yield from _files(entry.get("sections"))


def toc():
    """(root, [(part name, [page, ...]), ...]) in reading order.

    A part is a top-level chapter with its sections (its landing page parts/<part>.md first),
    named by its landing page's title, or a captioned unnumbered part of the toc (the
    Reference); the numbered part's caption only heads its chapters (and titles the PDF's
    LaTeX part, which jupyterbook-latex requires).
    """
    data = yaml.safe_load((BOOK / "_toc.yml").read_text())
    parts = []
    for part in data["parts"]:
        if part.get("caption") and not part.get("numbered"):
            parts.append((part["caption"], list(_files(part["chapters"]))))
            continue
        for chapter in part["chapters"]:
            files = list(_files([chapter]))
            parts.append((title_of(files[0]), files))
    return data["root"], parts


def landing(files):
    return [f for f in files if f.startswith("parts/")]


def problem_sets(files):
    """The end-of-part problem sets (issue 27): not among the pages a part's text counts."""
    return [f for f in files if f.startswith("problems/")]


def source_of(page):
    for suffix in (".ipynb", ".md"):
        path = BOOK / (page + suffix)
        if path.exists():
            return path
    raise FileNotFoundError(page)


def markdown_of(page):
    path = source_of(page)
    if path.suffix == ".md":
        return path.read_text()
    nb = json.loads(path.read_text())
    return "\n\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def title_of(page):
    m = re.search(r"^# (.+)$", markdown_of(page), re.M)
    return m.group(1).strip() if m else ""


ROOT, PARTS = toc()
ORDER = [ROOT] + [f for _, files in PARTS for f in files]
PART_OF = {f: caption for caption, files in PARTS for f in files}


def resolve(page, target):
    """The toc name (folder/page, no suffix) a link or {doc} target of `page` points to."""
    target = target.split("#")[0]
    if not target or re.match(r"[a-z]+:", target):
        return None
    base = Path("/") if target.startswith("/") else Path("/" + page).parent
    path = (base / target.lstrip("/")).resolve()
    name = str(path)[1:]
    return re.sub(r"\.(ipynb|md)$", "", name)


LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)|\{doc\}`(?:([^`<]*?)\s*<([^>`]+)>|([^`]+))`")


def links(page, text):
    """(start, link text, toc name) of each relative link and {doc} reference."""
    # the words a link's check reads are those between it and the link before it
    found = []
    for m in LINK.finditer(text):
        if m.group(2) is not None:
            label, target = m.group(1), m.group(2)
            if not re.search(r"\.(ipynb|md)(#|$)", target) and not target.startswith("#"):
                continue
            if target.startswith("#"):
                continue
        else:
            label, target = m.group(3) or "", m.group(4) or m.group(5)
        found.append((m.start(), label, resolve(page, target)))
    return found


def neighbours(page):
    i = ORDER.index(page)
    prev = ORDER[i - 1] if i > 0 else None
    nxt = ORDER[i + 1] if i + 1 < len(ORDER) else None
    return prev, nxt


def next_part_first(page):
    captions = [c for c, _ in PARTS]
    part = PART_OF.get(page)
    if part is None or captions.index(part) + 1 >= len(PARTS):
        return None
    return PARTS[captions.index(part) + 1][1][0]


def problems(page, text=None):
    text = markdown_of(page) if text is None else text
    found = []
    titles = {title_of(p).lower() for p in ORDER}
    captions = {c.lower() for c, _ in PARTS}
    for m in re.finditer(r"this part has (\w+) pages", text, re.I):
        files = dict(PARTS).get(PART_OF.get(page), [])
        n = len(files) - len(landing(files)) - len(problem_sets(files))
        if NUMBERS.get(m.group(1).lower(), m.group(1)) != n:
            found.append(f"says 'this part has {m.group(1)} pages'; "
                         f"the part {PART_OF.get(page)!r} has {n}")
    for m in re.finditer(r"the (part|chapter) \*([^*]+)\*", text, re.I):
        kind, name = m.group(1).lower(), " ".join(m.group(2).split()).lower()
        known = captions if kind == "part" else titles | captions
        if name not in known:
            found.append(f"names the {kind} *{m.group(2)}*, which the table of contents has not")
    for m in re.finditer(r"(previous|next) chapter", text, re.I):
        sentence = text[m.start():m.start() + 200].split(". ")[0]
        if not LINK.search(sentence):
            found.append(f"'{m.group(0)}' without a link (every page is a chapter here)")
    prev, nxt = neighbours(page)
    last_end = 0
    for start, label, target in links(page, text):
        before = text[max(last_end, start - 120):start]
        last_end = start + len(label) + 4
        if target is None:
            continue
        if target not in ORDER:
            found.append(f"links to {target!r}, not a page of the table of contents")
            continue
        context = (before.split(". ")[-1] + " " + label).lower()
        if label.strip().lower() == "opening" and target != "opening/online_learning":
            found.append(f"an 'opening' link goes to {target!r}")
        if re.search(r"previous page", context) and target != prev:
            found.append(f"'previous page' links to {target!r}; the previous page is {prev!r}")
        if re.search(r"next page", context) and target != nxt:
            found.append(f"'next page' links to {target!r}; the next page is {nxt!r}")
        after = text[start:start + 160].split(". ")[0].lower()
        if re.search(r"\bthe next part\b", context + " " + after) and \
                target not in (next_part_first(page), nxt):
            found.append(f"'the next part' links to {target!r}; it starts at "
                         f"{next_part_first(page)!r}")
    return found


def test_detector_on_the_sentences_issue_27_found():
    assert problems("perceptron_pa/derivation", "This part has three pages:")
    assert problems("regularized/derivation", "exactly as for PA in the previous chapter.")
    assert problems("first_order/voting", "reproduced in the chapter *Single-pass learning and "
                                          "Winnow*: see there.")
    assert problems("parts/first_order", "the online protocol from the [opening](../intro.md);")
    assert problems("regularized/theory", "derived on [the previous page](theory_truncation.ipynb).")
    assert not problems("regularized/theory", "derived on [the previous page](derivation.ipynb).")
    assert not problems("perceptron_pa/derivation", "This part has six pages:")
    assert problems("perceptron_pa/derivation", "This part has seven pages:")


@pytest.mark.parametrize("page", ORDER)
def test_page_agrees_with_the_table_of_contents(page):
    assert not problems(page), f"{page}: {problems(page)}"


def full_text(page):
    """Markdown and code of a page (a class may be named in either)."""
    path = source_of(page)
    if path.suffix == ".md":
        return path.read_text()
    return "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"])


def index_rows(page="algorithms"):
    """(olearn class names, linked section pages) of each row of the algorithm index."""
    rows = []
    for line in markdown_of(page).splitlines():
        cells = line.split(" | ")
        if not line.startswith("|") or len(cells) < 4:
            continue
        classes = re.findall(r"olearn\.([A-Z]\w+)", cells[2])
        pages = [t for _, _, t in links(page, cells[3]) if t]
        if classes and pages:
            rows.append((classes, pages))
    return rows


def test_the_algorithm_index_places_each_class_on_a_page_that_shows_it():
    # kernel AROW was placed on arow/family, which never mentions it (issue 27)
    assert index_rows()
    missing = [(cls, pages) for classes, pages in index_rows() for cls in classes
               if not any(cls in full_text(p) for p in pages)]
    assert not missing, missing


def test_the_front_page_numbers_the_chapters_as_the_book_does():
    # intro.md's list of parts is numbered; the numbers must be the chapters' own
    data = yaml.safe_load((BOOK / "_toc.yml").read_text())
    numbered = [c["file"] for p in data["parts"] if p.get("numbered")
                for c in p["chapters"]]
    listed = re.findall(r"^(\d+)\. \[[^\]]+\]\(([^)]+)\.(?:md|ipynb)\)", markdown_of(ROOT), re.M)
    assert listed
    for number, target in listed:
        assert numbered[int(number) - 1] == target, (number, target)
