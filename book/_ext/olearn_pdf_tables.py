"""The PDF edition's tables: HTML tables of outputs set as LaTeX tables.

A pandas ``Styler`` (``olearn.experiments.claims.styled``) or an ``IPython.display.HTML``
table (the scoreboard's claims) has a text form that only names it (``<HTML table: 17
rows x 3 columns>``), which is what the LaTeX builder would print; a pandas DataFrame's text form cuts
cells longer than 50 characters and wraps wide tables in blocks. On the LaTeX builder
only, before myst-nb picks an output's text form, the HTML of such an output is read
(:class:`_Tables`, the standard library's HTML parser) and the placeholder replaced by
docutils tables -- header row, one paragraph per line of a cell, ``<details>`` written out
("the paper: ...", "ours: ...") -- and headings (``<h3>``) by rubrics; Sphinx then sets
them as LaTeX tables (long ones across pages). Column widths given in the HTML
(``<col style="width:17%">``) are kept. HTML with no table is left as it is (and
``tests/pdf_check.py`` reports it).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

PLACEHOLDER = re.compile(r"^<(?:HTML table: \d+ rows|IPython\.core\.display\.\w+ object)")
_BREAKS = {"br", "p", "div", "li", "dt", "details"}
_SKIPPED = {"summary", "style", "script"}


class _Tables(HTMLParser):
    """HTML -> ``[("heading", text) | ("table", table)]``; ``table["rows"]`` a list of
    rows, a row a list of cells, a cell a list of lines; the first ``table["n_head"]`` rows
    are the header (``<thead>``); a cell spanning columns or rows leaves blank cells."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.items, self.heading = [], None
        self.table = self.row = self.cell = None
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in _SKIPPED:
            self.skip += 1
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6") and self.table is None:
            self.heading = []
        elif tag == "table":
            self.table = {"widths": [], "rows": [], "n_head": 0, "spans": {}}
            self.in_head = False
        elif tag == "col" and self.table is not None:
            width = re.search(r"width:\s*([\d.]+)%", attrs.get("style", ""))
            self.table["widths"].append(float(width.group(1)) if width else None)
        elif tag == "thead" and self.table is not None:
            self.in_head = True
        elif tag == "tr" and self.table is not None:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self._fill_rowspans()
            self.cell = [""]
            self.span = int(attrs.get("colspan") or 1)
            self.down = int(attrs.get("rowspan") or 1)
        elif self.cell is not None and tag in _BREAKS and self.cell[-1].strip():
            self.cell.append("")

    def handle_endtag(self, tag):
        if tag in _SKIPPED:
            self.skip = max(self.skip - 1, 0)
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6") and self.heading is not None:
            self.items.append(("heading", " ".join("".join(self.heading).split())))
            self.heading = None
        elif tag in ("td", "th") and self.cell is not None:
            lines = [" ".join(line.split()) for line in self.cell]
            if self.down > 1:                   # blank cells below, in the next rows
                for j in range(len(self.row), len(self.row) + self.span):
                    self.table["spans"][j] = self.down - 1
            self.row.append([line for line in lines if line])
            self.row.extend([[]] * (self.span - 1))
            self.cell = None
        elif tag == "dt" and self.cell is not None:
            self.cell[-1] = self.cell[-1].rstrip() + ": "
        elif tag in ("dd", "p", "div", "li") and self.cell is not None:
            self.cell.append("")
        elif tag == "tr" and self.row is not None:
            self._fill_rowspans(end=True)
            if self.row:
                self.table["rows"].append(self.row)
                self.table["n_head"] += self.in_head
            self.row = None
        elif tag == "thead":
            self.in_head = False
        elif tag == "table" and self.table is not None:
            if self.table["rows"]:
                self.items.append(("table", self.table))
            self.table = None

    def _fill_rowspans(self, end=False):
        """Blank cells where a cell of a row above spans down (pandas' MultiIndex)."""
        spans = self.table["spans"]
        while spans.get(len(self.row), 0) > 0 or (
                end and any(j >= len(self.row) and k > 0 for j, k in spans.items())):
            j = len(self.row)
            if spans.get(j, 0) > 0:
                spans[j] -= 1
            self.row.append([])

    def handle_data(self, data):
        if self.skip:
            return
        if self.cell is not None:
            self.cell[-1] += data
        elif self.heading is not None:
            self.heading.append(data)


def _entry(lines):
    entry = nodes.entry()
    for line in lines:
        entry += nodes.paragraph(text=line)
    return entry


def _table(table):
    rows = table["rows"]
    n = max(len(row) for row in rows)
    rows = [row + [[]] * (n - len(row)) for row in rows]
    widths = table["widths"]
    given = len(widths) == n and all(widths)
    node = nodes.table(classes=["colwidths-given"] if given else [])
    group = nodes.tgroup(cols=n)
    node += group
    for j in range(n):
        group += nodes.colspec(colwidth=int(widths[j]) if given else 1)
    if table["n_head"]:
        head = nodes.thead()
        for row in rows[:table["n_head"]]:
            head += nodes.row("", *[_entry(cell) for cell in row])
        group += head
        rows = rows[table["n_head"]:]
    body = nodes.tbody()
    for row in rows:
        body += nodes.row("", *[_entry(cell) for cell in row])
    group += body
    return node


def html_to_nodes(html):
    """Docutils nodes for the tables (and headings) of ``html``; [] if it has no table."""
    parser = _Tables()
    parser.feed(html)
    parser.close()
    if not any(kind == "table" for kind, _ in parser.items):
        return []
    return [nodes.rubric(text=item) if kind == "heading" else _table(item)
            for kind, item in parser.items]


class HtmlTablesForLatex(SphinxPostTransform):
    """Replace an HTML-only table's placeholder text by the table (LaTeX builder only)."""

    default_priority = 3          # before myst-nb picks the output's form (priority 4)
    builders = ("latex",)

    def run(self, **kwargs):
        for bundle in list(self.document.findall(nodes.container)):
            if bundle.get("nb_element") != "mime_bundle":
                continue
            forms = {child.get("mime_type"): child for child in bundle.children}
            plain, html = forms.get("text/plain"), forms.get("text/html")
            if plain is None or html is None:
                continue
            # a placeholder, or a pandas DataFrame, whose text form cuts long cells
            if not (PLACEHOLDER.match(plain.astext().strip())
                    or re.search(r'<table[^>]*class="[^"]*dataframe', html.astext())):
                continue
            converted = html_to_nodes(html.astext())
            if converted:
                plain.children = []
                plain.extend(converted)


def setup(app):
    app.add_post_transform(HtmlTablesForLatex)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
