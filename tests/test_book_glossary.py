"""The glossary (book/glossary.md) and the links from each page's first use of a term.

book/_ext/olearn_glossary.py turns the first occurrence of each glossary term on every page
into a link to its entry (issue 27: the anchors link terms such as regret or support vector
from their first use). A tiny book with the real _config.yml checks it: the first use links,
the second does not, a term in code or in a heading is left alone.
"""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
JB = Path(sys.executable).parent / "jupyter-book"


def glossary_terms():
    text = (BOOK / "glossary.md").read_text()
    body = text.split("```{glossary}", 1)[1].split("```", 1)[0]
    return [line.strip() for line in body.splitlines() if line and not line.startswith(" ")]


def test_the_glossary_has_the_terms_issue_27_names_and_is_in_the_toc():
    terms = glossary_terms()
    for term in ("margin error", "attribute error", "thick separator", "success counter",
                 "support vector", "regret"):
        assert term in terms
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text())
    assert "glossary" in re.findall(r"file: (\S+)", yaml.safe_dump(toc))


@pytest.mark.skipif(not JB.exists(), reason="jupyter-book (dev extras) is needed")
def test_first_use_on_a_page_links_to_the_glossary(tmp_path):
    book = tmp_path / "book"
    book.mkdir()
    for name in ("_config.yml", "references.bib", "glossary.md"):
        shutil.copy(BOOK / name, book / name)
    shutil.copytree(BOOK / "_ext", book / "_ext")
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nparts:\n  - caption: T\n"
                                   "    chapters:\n      - file: page\n      - file: glossary\n")
    (book / "intro.md").write_text("# Intro\n")
    (book / "page.md").write_text(
        "# Regret and more\n\nThe `regret` in code stays. Low Regret is the aim; regret "
        "again. Two support vectors.\n")
    result = subprocess.run([str(JB), "build", "--all", str(book)], capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    html = (book / "_build" / "html" / "page.html").read_text()
    links = re.findall(r'href="glossary.html#term-([\w-]+)"[^>]*>(?:<[^>]+>)*([^<]+)', html)
    assert links == [("regret", "Regret"), ("support-vector", "support vectors")], links
