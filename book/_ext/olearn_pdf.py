"""The PDF edition (LaTeX builder): the version and the commit on its cover.

On the LaTeX builder only: the release printed on the cover and in the page headers
is ``Version <olearn version>``, and the cover's date line adds ``commit <hash>``
(with "with uncommitted changes" when tracked files differ from it), both from
:func:`olearn_build_info.build_info` when the build starts. The domain indices
(sphinx-proof's "Proof Index") are left out of the PDF: they link HTML pages, and
LaTeX prints ``??`` for their page numbers. The HTML build is unchanged.
"""

from __future__ import annotations

_LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                   "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                   "^": r"\textasciicircum{}"}


def _escape(text):
    return "".join(_LATEX_SPECIALS.get(c, c) for c in text)


def _no_domain_indices(app, config):
    config.latex_domain_indices = False


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
    app.connect("config-inited", _no_domain_indices)
    app.connect("builder-inited", _cover)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
