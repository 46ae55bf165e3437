"""The PDF edition (LaTeX builder): the version and the commit on its cover.

On the LaTeX builder only: the release printed on the cover and in the page headers
is ``Version <olearn version>``, and the cover's date line adds ``commit <hash>``
(with "with uncommitted changes" when tracked files differ from it), both from
:func:`olearn_build_info.build_info` when the build starts. The domain indices
(sphinx-proof's "Proof Index") are left out of the PDF: they link HTML pages, and
LaTeX prints ``??`` for their page numbers. Chapters open on the next page, not the
next right-hand one (``openany,oneside``: no blank pages in a PDF read on screen). A
glued table (a figure named ``tab-...``, see ``olearn_tables``) is captioned
"Table N" as in the HTML. A display formula with its own ``\\tag`` (MathJax takes it
anywhere) is set in ``gather*`` (``align*`` when it aligns), where amsmath allows it,
instead of Sphinx's ``equation*`` + ``split``, where it is an error. A theorem, lemma or
proof of sphinx-proof is labelled ``<page>:<label>`` (sphinx-proof labelled it ``None:<label>``
on a page whose title has an apostrophe, which the title's smart quote turns into ``'``, so
every reference to it was undefined: ``proof_label_docname``). The HTML build is unchanged.
"""

from __future__ import annotations

_LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                   "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                   "^": r"\textasciicircum{}"}


def _escape(text):
    return "".join(_LATEX_SPECIALS.get(c, c) for c in text)


#: the exercises' difficulty marks (U+2605 BLACK STAR): Sphinx's XeLaTeX fonts lack it in
#: FreeSerif Italic and FreeSans ("Missing character" in the log, nothing printed), so every
#: star is set in DejaVu Sans, which has it in every shape
_STAR_FALLBACK = r"""
\usepackage{newunicodechar}
\newfontfamily\olearnstarfont{DejaVu Sans}
\newunicodechar{^^^^2605}{{\olearnstarfont\symbol{"2605}}}
"""


#: a citation or a reference inside a caption is a moving argument: hyperref's links are
#: fragile there (the full book stopped with "TeX capacity exceeded" on such a caption)
_PREAMBLE = r"""
\usepackage{etoolbox}
\AtBeginDocument{\robustify\hyperlink\robustify\hyperref}
\addto\captionsenglish{\renewcommand{\contentsname}{Contents}}
""" + _STAR_FALLBACK


def _latex_config(app, config):
    config.latex_domain_indices = False
    elements = dict(config.latex_elements or {})
    elements["extraclassoptions"] = "openany,oneside"
    elements["preamble"] = elements.get("preamble", "") + _PREAMBLE
    config.latex_elements = elements


def _patch_figures():
    from sphinx.writers.latex import LaTeXTranslator

    original = LaTeXTranslator.visit_figure

    def visit_figure(self, node):
        original(self, node)
        ids = node.get("ids") or []
        if ids and ids[0].startswith("tab-"):    # local to the figure's group
            self.body.append(r"\renewcommand{\figurename}{Table\@{} }" + "\n")

    LaTeXTranslator.visit_figure = visit_figure


def _patch_unnumbered_pages():
    """A page the HTML does not number (how_to_read, the Reference part) is not numbered in
    the PDF either: its headings are set starred (a chapter still listed in the contents).
    LaTeX numbered every chapter, so "How to read this book" took Chapter 1 and every later
    heading was one ahead of the numbers of the theorems, exercises and cross-references,
    which come from the HTML's numbering (Proposition 8.2.1 printed in section 9.2.4)."""
    from docutils import nodes
    from sphinx.writers.latex import CR, LaTeXTranslator

    original = LaTeXTranslator.visit_title

    def visit_title(self, node):
        parent = node.parent
        docname = self.curfilestack[-1] if self.curfilestack else ""
        if (isinstance(parent, nodes.section) and not self.this_is_the_title and docname
                and not self.builder.env.toc_secnumbers.get(docname)):
            level = self.sectionnames[min(self.sectionlevel, len(self.sectionnames) - 1)]
            if level != "part":
                self.body.append(r"\%s*{" % level)
                entry = ""
                if level == "chapter":
                    title = self.escape(" ".join(node.astext().split()))
                    entry = (r"\addcontentsline{toc}{chapter}{%s}\markboth{%s}{%s}"
                             % (title, title, title) + CR)
                self.context.append("}" + CR + entry + self.hypertarget_to(parent))
                return
        original(self, node)

    LaTeXTranslator.visit_title = visit_title


def _patch_display_math():
    import sphinx.util.math

    original = sphinx.util.math.wrap_displaymath
    if getattr(original, "olearn_tags", False):
        return

    def wrap_displaymath(text, label, numbering):
        if "\\tag" not in text:
            return original(text, label, numbering)
        rows = [part.strip() for part in text.split("\n\n") if part.strip()]
        environment = "align*" if "&" in text else "gather*"
        labeldef = f"\\label{{{label}}}" if label else ""
        return (f"\\begin{{{environment}}}\n" + "\\\\\n".join(rows) + labeldef
                + f"\n\\end{{{environment}}}")

    wrap_displaymath.olearn_tags = True
    sphinx.util.math.wrap_displaymath = wrap_displaymath


def exercise_label(registry, target):
    """The label of the exercise a reference's ``target`` names, in the label's own case, or
    ``None`` when it names no exercise."""
    if not target:
        return None
    if target in registry:
        return target
    return {label.lower(): label for label in registry}.get(target.lower())


def _patch_exercise_references():
    """A reference to an exercise (``{numref}``/``{ref}`` to a sphinx-exercise label)
    printed ``Exercise ??``: sphinx-exercise labels an exercise ``exercise:<label>`` in
    LaTeX, while Sphinx points ``\\ref`` at ``<doc>:<label>``. Such a reference is written
    with the number Sphinx resolved (the one the exercise's title prints), linked to
    ``exercise:<label>``."""
    from sphinx.writers.latex import LaTeXTranslator

    original = LaTeXTranslator.visit_number_reference

    def visit_number_reference(self, node):
        target = node.get("refid") or node.get("refuri", "").rpartition("#")[2]
        registry = getattr(self.builder.env, "sphinx_exercise_registry", {})
        # Sphinx lower-cases a reference's target; the exercise keeps its label's case
        # (ex-reg-H is labelled exercise:ex-reg-H)
        label = exercise_label(registry, target)
        if label is not None:
            self.body.append(r"\hyperref[exercise:%s]{%s}"
                             % (label, self.encode(node.astext())))
            from docutils import nodes
            raise nodes.SkipNode
        original(self, node)

    LaTeXTranslator.visit_number_reference = visit_number_reference


def proof_label_docname(env, node, parent_tag=None):
    """The page a sphinx-proof node is on, for its LaTeX label: the ``docname`` of the
    nearest enclosing node that has one (the ``start_of_file`` node the LaTeX builder wraps
    each page in). sphinx-proof's own ``find_parent`` also asks that the page's title, as
    text, be one of the section's names; after the smart-quotes transform "AROW's mistake
    bound" is titled with a typographic apostrophe while its name keeps the typed one, so it
    returned ``None`` and the PDF's references to the page's theorems led nowhere."""
    while node is not None:
        node = node.parent
        if node is not None and "docname" in node.attributes:
            return node.attributes["docname"]
    return None


def _patch_proof_labels(app):
    if app.builder.name != "latex":
        return
    import sphinx_proof.nodes

    sphinx_proof.nodes.find_parent = proof_label_docname


def _cover(app):
    if app.builder.name != "latex":
        return
    from olearn_build_info import build_info

    info = build_info()
    # the builder's template context, set up from the config before this event
    context = app.builder.context
    context["release"] = info["olearn_version"]
    context["releasename"] = "Version"
    context["date"] = (f"{context.get('date', '')}\\\\[1ex]"
                       f"commit {_escape(info['olearn_commit'])}")


def setup(app):
    app.setup_extension("olearn_pdf_tables")    # HTML-only tables set as LaTeX tables
    _patch_figures()
    _patch_unnumbered_pages()
    _patch_display_math()
    _patch_exercise_references()
    app.connect("config-inited", _latex_config)
    app.connect("builder-inited", _cover)
    app.connect("builder-inited", _patch_proof_labels)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
