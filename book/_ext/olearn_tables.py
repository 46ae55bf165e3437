"""Caption tables as "Table N" in the HTML, and let long table headings break at underscores.

The book glues computed tables (pandas DataFrames) with ``{glue:figure}``, so Sphinx numbers
them as figures ("Fig. N"). A glued figure whose name starts with ``tab-`` is a table: its
caption number is written "Table N" (the number stays in the figures' sequence, so
``{numref}`Table %s <tab-...>``` in the text matches the caption).

A computed table's column names are often identifiers (``bcw_l1_minus_dcd_error``): one
unbreakable word as wide as several columns, which pushed tables past the text column at a
1280-px window (issue 27). Every table cell's text gets a line-break opportunity (``<wbr>``)
after each underscore (and after each colon of a word longer than 20 characters: the
scoreboard's row ids), so such a heading wraps like a phrase; cells with math are left alone
(the TeX must reach MathJax as written). A table of eight or more columns gets the class
``olearn-many-columns``, which book/_static/olearn.css sets in smaller type.
"""

from __future__ import annotations

import re

from sphinx.writers.html5 import HTML5Translator

_original = HTML5Translator.add_fignumber


def _add_fignumber(self, node):
    ids = node.get("ids") or []
    if ids and ids[0].startswith("tab-"):
        formats = self.config.numfig_format
        saved = formats.get("figure")
        formats["figure"] = "Table %s"
        try:
            _original(self, node)
        finally:
            formats["figure"] = saved
    else:
        _original(self, node)


_CELL = re.compile(r"(<t[hd]\b[^>]*>)(.*?)(</t[hd]>)", re.S)
_TEXT = re.compile(r">([^<>]*)<")


# a long identifier with colons (the scoreboard's row ids, ``paper:section:short-name``)
_COLON_ID = re.compile(r"\S{21,}")


def _breakable(text):
    text = _COLON_ID.sub(lambda w: w.group(0).replace(":", ":<wbr>"), text)
    return text.replace("_", "_<wbr>")


def breakable_cells(html):
    """``html`` with ``<wbr>`` after each underscore in the text of its table cells, and after
    each colon of a word longer than 20 characters (a scoreboard row id)."""
    def cell(m):
        inner = m.group(2)
        if "math" in inner or ("_" not in inner and ":" not in inner):
            return m.group(0)
        inner = _TEXT.sub(lambda t: ">" + _breakable(t.group(1)) + "<", ">" + inner + "<")[1:-1]
        return m.group(1) + inner + m.group(3)
    return _CELL.sub(cell, html)


_TABLE = re.compile(r"<table\b([^>]*)>(.*?)</table>", re.S)
_ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.S)
MANY_COLUMNS = 8


def mark_wide_tables(html):
    """``html`` with class ``olearn-many-columns`` on each table of MANY_COLUMNS+ columns."""
    def table(m):
        attrs, inner = m.group(1), m.group(2)
        columns = max((len(re.findall(r"<t[hd]\b", row)) for row in _ROW.findall(inner)),
                      default=0)
        if columns < MANY_COLUMNS:
            return m.group(0)
        if 'class="' in attrs:
            attrs = attrs.replace('class="', 'class="olearn-many-columns ', 1)
        else:
            attrs += ' class="olearn-many-columns"'
        return f"<table{attrs}>{inner}</table>"
    return _TABLE.sub(table, html)


def _page_context(app, pagename, templatename, context, doctree):
    if "body" in context:
        context["body"] = mark_wide_tables(breakable_cells(context["body"]))


def setup(app):
    HTML5Translator.add_fignumber = _add_fignumber
    app.connect("html-page-context", _page_context)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
