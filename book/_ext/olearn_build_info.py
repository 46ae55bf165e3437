"""The version and the commit a build of the book comes from, as MyST substitutions.

``{{ olearn_version }}`` is ``olearn.__version__``; ``{{ olearn_commit }}`` is the commit of
the checkout the book is built from (``git rev-parse HEAD``), followed by "with uncommitted
changes" when tracked files differ from it, or "unknown (not a git checkout)". Both are
computed when the build starts, so the opening page never states a hand-typed version.
"""

from __future__ import annotations


def build_info():
    import olearn
    from olearn.experiments.runner import git_commit, git_dirty

    commit = git_commit()
    if commit is None:
        described = "unknown (not a git checkout)"
    else:
        described = commit[:12] + (" with uncommitted changes" if git_dirty() else "")
    return {"olearn_version": olearn.__version__, "olearn_commit": described}


def _add_substitutions(app, config):
    config.myst_substitutions = {**(config.myst_substitutions or {}), **build_info()}


def setup(app):
    app.connect("config-inited", _add_substitutions)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
