"""Link the first use of each glossary term on every page to its entry in book/glossary.md.

The terms are those of the page's ``{glossary}`` directive (read from Sphinx's standard domain
once every page is read). On each other page, the first occurrence of a term (or of its plural
with "s") in running text, not in a heading, a caption's number, code, math or an existing link,
becomes a reference to the term's entry. Case is ignored; the text is kept as written.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform

SKIP = (nodes.title, nodes.literal, nodes.literal_block, nodes.math, nodes.math_block,
        nodes.reference, nodes.raw, nodes.term, nodes.FixedTextElement, addnodes.pending_xref,
        addnodes.desc_signature, nodes.caption, nodes.citation_reference)


def glossary_terms(env):
    """{term in lower case: (docname, anchor)} of the book's glossary."""
    std = env.get_domain("std")
    return {name: (doc, anchor) for (kind, name), (doc, anchor) in std.objects.items()
            if kind == "term"}


def _pattern(terms):
    words = sorted(terms, key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")(s?)\b", re.I)


class LinkFirstUses(SphinxPostTransform):
    default_priority = 5  # before the references are resolved
    formats = ("html",)

    def run(self, **kwargs):
        terms = glossary_terms(self.env)
        docname = self.env.docname
        if not terms or any(doc == docname for doc, _ in terms.values()):
            return
        pattern, seen = _pattern(terms), set()
        for text in list(self.document.findall(nodes.Text)):
            if any(isinstance(a, SKIP) for a in _ancestors(text)):
                continue
            while text is not None and len(seen) < len(terms):
                text = self._link_first(text, pattern, seen, docname)

    @staticmethod
    def _link_first(text, pattern, seen, docname):
        """Link the first unseen term of ``text``; return the Text node after it, or None."""
        value = text.astext()
        match = next((m for m in pattern.finditer(value) if m.group(1).lower() not in seen),
                     None)
        if match is None:
            return None
        term = match.group(1).lower()
        seen.add(term)
        ref = addnodes.pending_xref("", refdomain="std", reftype="term", reftarget=term,
                                    refexplicit=True, refdoc=docname, refwarn=False)
        ref += nodes.inline(match.group(0), match.group(0), classes=["xref", "std", "std-term"])
        parent = text.parent
        index = parent.index(text)
        parent.remove(text)
        tail = nodes.Text(value[match.end():])
        for offset, node in enumerate((nodes.Text(value[:match.start()]), ref, tail)):
            parent.insert(index + offset, node)
        return tail


def _ancestors(node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def setup(app):
    app.add_post_transform(LinkFirstUses)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
