"""The version and the commit a build of the book comes from, as MyST substitutions.

``{{ olearn_version }}`` is ``olearn.__version__``; ``{{ olearn_commit }}`` is the commit of
the checkout the book is built from (``git rev-parse HEAD``), followed by "with uncommitted
changes" when tracked files differ from it, or "unknown (not a git checkout)";
``{{ olearn_mode }}`` says whether the pages ran in quick mode (``OLEARN_QUICK=1``: the
experiments re-run a subset and check it against the stored full runs) or in full mode. All are
computed when the build starts and shown once, on the book's front page (intro.md), so that no
page prints its own version line.
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
    from olearn.experiments import quick_mode

    mode = ("quick mode (OLEARN_QUICK=1: each experiment re-runs a subset and checks it against "
            "its stored full run)" if quick_mode() else "full mode (every experiment re-run)")
    return {"olearn_version": olearn.__version__, "olearn_commit": described, "olearn_mode": mode}


def _add_substitutions(app, config):
    config.myst_substitutions = {**(config.myst_substitutions or {}), **build_info()}


def setup(app):
    app.connect("config-inited", _add_substitutions)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
