"""The PDF numbers what the HTML numbers, and nothing else (book/_ext/olearn_pdf.py).

The HTML numbers only the chapters of the part "Online learning, idea by idea"; LaTeX numbered
every chapter, so "How to read this book" was Chapter 1 and every later heading was one ahead of
the numbers of its own theorems and exercises (section 9.2.4 held Proposition 8.2.1). A tiny book
with the real configuration and extensions, written by the LaTeX builder (no TeX run): an
unnumbered page's headings are starred and still listed in the contents, the numbered part's are
not, and the contents are called Contents (Sphinx had named them after the first part, "Start
here").
"""
import shutil
import subprocess
import sys
from pathlib import Path

BOOK = Path(__file__).resolve().parents[1] / "book"
JB = Path(sys.executable).parent / "jupyter-book"

PAGES = {
    "intro.md": "# Mini\n\nIntro.\n",
    "s/read.md": "# How to read\n\n## A section of it\n\nText.\n",
    "a/one.md": "# Page one\n\n## Its section\n\nText.\n",
    "s/ref.md": "# Notation\n\n## Symbols\n\nx.\n",
}
TOC = """format: jb-book
root: intro
parts:
  - caption: Start here
    chapters:
      - file: s/read
  - caption: Ideas
    numbered: true
    chapters:
      - file: a/one
  - caption: Reference
    chapters:
      - file: s/ref
"""


def test_only_the_numbered_part_is_numbered_in_the_pdf(tmp_path):
    book = tmp_path / "book"
    shutil.copytree(BOOK / "_ext", book / "_ext")
    shutil.copy(BOOK / "references.bib", book / "references.bib")
    config = (BOOK / "_config.yml").read_text()
    (book / "_config.yml").write_text(config.replace("execute_notebooks: cache",
                                                     'execute_notebooks: "off"'))
    (book / "_toc.yml").write_text(TOC)
    for name, text in PAGES.items():
        (book / name).parent.mkdir(parents=True, exist_ok=True)
        (book / name).write_text(text)
    result = subprocess.run([str(JB), "build", "--builder", "latex", str(book)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    tex = (book / "_build" / "latex" / "olearn.tex").read_text()
    assert r"\chapter*{How to read}" in tex
    assert r"\addcontentsline{toc}{chapter}{How to read}" in tex
    assert r"\section*{A section of it}" in tex
    assert r"\chapter{Page one}" in tex and r"\section{Its section}" in tex
    assert r"\chapter*{Notation}" in tex and r"\section*{Symbols}" in tex
    # the last word on the contents' name is ours
    names = [line for line in tex.splitlines() if r"\renewcommand{\contentsname}" in line]
    assert names and names[-1].strip().endswith(r"{Contents}}"), names
