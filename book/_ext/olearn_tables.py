"""Caption tables as "Table N" in the HTML.

The book glues computed tables (pandas DataFrames) with ``{glue:figure}``, so Sphinx numbers
them as figures ("Fig. N"). A glued figure whose name starts with ``tab-`` is a table: its
caption number is written "Table N" (the number stays in the figures' sequence, so
``{numref}`Table %s <tab-...>``` in the text matches the caption).
"""

from __future__ import annotations

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


def setup(app):
    HTML5Translator.add_fignumber = _add_fignumber
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
