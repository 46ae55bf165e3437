"""The system tools (programs outside Python) that tests need, and the Debian packages that
provide them: one table, read by the tests' ``needs_tools`` marker, by
``tests/test_ci_prerequisites.py`` and, through ``.ci/system-packages``, by ``.ci/run``.

A test that runs a program declares it with ``@pytest.mark.needs_tools("xelatex", ...)`` (or
calls :func:`require` inside the test). Outside CI an absent tool *skips* the test with a
reason that names the Debian packages, so a newcomer's ``make test`` passes without TeX Live
or Chromium; in CI (``CI`` set, as ``.ci/run`` sets it) the same absence *fails* the test,
since ``.ci/run`` installs every package of this table before ``make test``.
"""
from __future__ import annotations

import os
import shutil

# tool name -> (the commands any one of which provides it, the Debian package that installs it)
TOOLS: dict[str, tuple[tuple[str, ...], str]] = {
    "chromium": (("chromium", "chromium-browser", "google-chrome"), "chromium"),
    "xelatex": (("xelatex",), "texlive-xetex"),
    "latexmk": (("latexmk",), "latexmk"),
    "pdftohtml": (("pdftohtml",), "poppler-utils"),
    "pdfimages": (("pdfimages",), "poppler-utils"),
    "pdftoppm": (("pdftoppm",), "poppler-utils"),
    "pdfinfo": (("pdfinfo",), "poppler-utils"),
    "fc-list": (("fc-list",), "fontconfig"),
    "make": (("make",), "make"),
    "git": (("git",), "git"),
}


def in_ci() -> bool:
    """True when ``CI`` is set to anything but '', 0, false or no (``.ci/run`` sets it)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing(*names: str) -> list[str]:
    """The tools of ``names`` that no command on PATH provides (unknown names raise)."""
    unknown = [n for n in names if n not in TOOLS]
    if unknown:
        raise KeyError(f"unknown system tool(s) {unknown}: add them to tests/system_tools.py "
                       "TOOLS with their Debian package, and the package to .ci/system-packages")
    return [n for n in names if not any(shutil.which(c) for c in TOOLS[n][0])]


def reason(names: list[str]) -> str:
    """'xelatex, pdftoppm not installed (Debian: apt-get install texlive-xetex poppler-utils)'."""
    packages = sorted({TOOLS[n][1] for n in names})
    return (f"{', '.join(names)} not installed (Debian: apt-get install {' '.join(packages)}; "
            ".ci/run installs every package of .ci/system-packages)")


def require(*names: str) -> None:
    """Skip the calling test when a tool is absent, or fail it in CI."""
    import pytest

    absent = missing(*names)
    if absent:
        message = reason(absent)
        if in_ci():
            pytest.fail(message + " [CI: .ci/run must install it before make test]")
        pytest.skip(message)
