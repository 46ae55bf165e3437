"""tests/pdf_check.py finds what it promises on small PDFs typeset here (XeLaTeX, the
book's fonts).

A PDF with a good cover, prose, a code listing holding ``$`` and backslashes, and a
captioned figure passes; one with raw TeX, a MyST role as typed, an unresolved
reference, a caption without its image and no commit on the cover fails on each.
Needs xelatex (TeX Live) and poppler-utils, as ``make pdf`` does: skipped without
them, failed in CI.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import olearn

sys.path.insert(0, str(Path(__file__).parent))
import pdf_check  # noqa: E402
import system_tools  # noqa: E402

TOOLS = ("xelatex", "pdftohtml", "pdfimages", "pdftoppm", "pdfinfo")

PREAMBLE = r"""\documentclass{article}
\usepackage{fontspec}
\setmainfont{FreeSerif}
\setmonofont{FreeMono}
\usepackage{graphicx}
\begin{document}
"""


def typeset(folder, name, body, packages=""):
    system_tools.require(*TOOLS)
    preamble = PREAMBLE.replace("\\begin{document}", packages + "\\begin{document}")
    (folder / f"{name}.tex").write_text(preamble + body + "\n\\end{document}\n")
    subprocess.run(["xelatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
                   cwd=folder, check=True, capture_output=True)
    return folder / f"{name}.pdf"


def figure_png(folder):
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (200, 120), "white")
    ImageDraw.Draw(image).line([(10, 110), (190, 10)], fill="red", width=4)
    image.save(folder / "plot.png")


COVER = (f"\\begin{{center}}\\Huge olearn\\\\ \\large Version {olearn.__version__}\\\\ "
         f"{{}}COMMIT\\end{{center}}\\newpage\n")
PROSE = ("A mistake has $y_t \\mathbf{w}_t \\cdot \\mathbf{x}_t \\le 0$, so the bound holds. "
         * 40 + "\n\n")
CODE = ("\\begin{verbatim}\nax.set_xlabel(r\"$\\sigma_t$\")  # a $ and a \\command in code\n"
        "print(\"??\")\n\\end{verbatim}\n")
FIGURE = ("\\begin{center}\\includegraphics[width=5cm]{plot.png}\\\\ "
          "Fig. 1.1: Mistakes against rounds.\\end{center}\n")


def test_a_good_pdf_passes(tmp_path):
    figure_png(tmp_path)
    pdf = typeset(tmp_path, "good", COVER.replace("COMMIT", "commit 0123456789ab") + PROSE
                  + CODE + FIGURE + "\\newpage\n" + PROSE)
    n_pages, size, figures, written, problems = pdf_check.check(pdf, tmp_path / "png", 2)
    assert problems == []
    assert n_pages == 3 and size > 0 and figures == [2]
    assert written and all(png.is_file() for png in written)


def test_each_defect_is_found(tmp_path):
    pdf = typeset(tmp_path, "bad", COVER.replace("COMMIT", "no hash here") + PROSE
                  + "The ratio \\$a\\_\\{\\textbackslash{}max\\}\\$ of \\{eq\\}`wb-demotions` "
                    "and Theorem ?? say so.\n\n"
                  + "Fig. 2.1: A figure whose image is missing.\n\n"
                  + "\\begin{verbatim}\n<HTML table: 17 rows x 3 columns>\n\\end{verbatim}\n"
                  + "\\newpage\n" + PROSE)
    problems = "\n".join(pdf_check.check(pdf, tmp_path / "png", 2)[-1])
    for expected in ("no commit on the cover", "raw TeX math ($)", "raw TeX command",
                     "MyST role or directive as typed", "unresolved reference (??)",
                     "caption of Fig. 2.1 but no image", "no image in the whole document",
                     "no printable form"):
        assert expected in problems, expected
    assert "print(" not in problems and "sigma" not in problems     # code is not prose


def test_the_command_line_names_a_missing_pdf(tmp_path, capsys):
    assert pdf_check.main([str(tmp_path / "olearn.pdf")]) == 2
    assert "make pdf" in capsys.readouterr().err


def test_a_link_to_an_undefined_label_is_found_in_the_log(tmp_path):
    """A ``\\hyperref`` to a label that is nowhere prints its text ("Theorem 6.1") and no
    ``??``: only the LaTeX log beside the PDF tells (the PDF's links to the theorems of
    winnow_bound and arow/bound were such, issue 27)."""
    figure_png(tmp_path)
    body = (COVER.replace("COMMIT", "commit 0123abc") + PROSE + FIGURE
            + "See \\hyperref[single_pass/winnow_bound:thm-winnow-bound]{Theorem 6.1}.\n")
    pdf = typeset(tmp_path, "dangling", body, packages="\\usepackage{hyperref}\n")
    subprocess.run(["xelatex", "-interaction=nonstopmode", "dangling.tex"], cwd=tmp_path,
                   check=True, capture_output=True)   # second run: labels read back
    *_, problems = pdf_check.check(pdf, tmp_path / "png", 2)
    assert any("undefined label 'single_pass/winnow_bound:thm-winnow-bound'" in p
               for p in problems), problems
    assert not any("??" in p for p in problems)


def test_undefined_references_joins_the_logs_broken_lines():
    log = ("LaTeX Warning: Hyper reference `single_pass/winnow_bound:thm-balanced-winnow-bo\n"
           "und' on page 93 undefined on input line 11130.\n"
           "LaTeX Warning: Reference `eq-one' on page 4 undefined on input line 12.\n")
    assert len(log.splitlines()[0]) == 79
    assert pdf_check.undefined_references(log) == [
        ("Hyper reference", "single_pass/winnow_bound:thm-balanced-winnow-bound", 93),
        ("Reference", "eq-one", 4)]


def test_a_theorem_on_a_page_titled_with_an_apostrophe_is_labelled_with_its_page():
    """sphinx-proof's ``find_parent`` gave ``None`` for a theorem on "AROW's mistake bound"
    (the title's text has a typographic apostrophe, its name the typed one), so its LaTeX
    label was ``None:thm-arow-bound``; the book's patch names the page."""
    from docutils import nodes
    from sphinx import addnodes

    sys.path.insert(0, str(Path(__file__).parents[1] / "book" / "_ext"))
    import olearn_pdf

    page = addnodes.start_of_file(docname="arow/bound")
    section = nodes.section(names=["arow's mistake bound"])
    section += nodes.title(text="AROW\u2019s mistake bound")
    theorem = nodes.container()
    section += theorem
    page += section
    assert olearn_pdf.proof_label_docname(None, theorem) == "arow/bound"
