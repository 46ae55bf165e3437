"""Check the PDF edition of the book: its cover, its prose, its figures, a few rendered pages.

Usage: python tests/pdf_check.py PDF [--png-dir DIR] [--min-pages N]

Needs Debian's ``poppler-utils`` (``pdfinfo``, ``pdftohtml``, ``pdfimages``,
``pdftoppm``) and Pillow. The check fails (exit status 1, one line per defect) unless

- the cover (page 1) names the version (``Version <olearn.__version__>``) and a commit;
- the prose -- every text in a font that is not monospaced, so code listings and
  printed outputs are left out -- holds no raw TeX (a ``$`` or a ``\\command``), no
  MyST role or directive left as typed (``{eq}``, ``{prf:ref}``, ``{cite:p}`` ...) and
  no unresolved reference (LaTeX prints ``??``);
- every page with a figure caption (``Fig. 6.1: ...``) carries an image, and the
  document has at least one; no output is printed as a placeholder of what only HTML
  shows (``<HTML table: 17 rows x 3 columns>``, ``<IPython.core.display.HTML object>``);
- the LaTeX log beside the PDF (``olearn.log``), when there is one, names no undefined
  reference (a theorem, equation or exercise whose link leads nowhere, though its number
  prints);
- the pages rendered to PNG with ``pdftoppm`` (the cover, the first and last pages
  with a figure, a page of prose in the middle and the last page) are not blank.

The text is read from ``pdftohtml -xml``, which gives the font of every run of text.
Prints the page count, the file size and the PNG files written.
"""
import argparse
import html
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

MONOSPACE = re.compile(r"mono|courier|typewriter|(?:cm|ec|sf|lm)tt\d|inconsolata|dejavusansm", re.I)
FIGURE_CAPTION = re.compile(r"^Fig\. (\d+(?:\.\d+)*):")
#: what a table or object with only an HTML form prints where its LaTeX form is missing
PLACEHOLDER = re.compile(r"<(?:HTML table: \d+ rows|IPython\.core\.display\.\w+ object|"
                         r"[\w.]+ object at 0x[0-9a-f]+)")
PROSE_DEFECTS = {
    "raw TeX math ($)": re.compile(r"\$"),
    "raw TeX command": re.compile(r"\\[A-Za-z]{2,}"),
    "MyST role or directive as typed": re.compile(
        r"\{(?:eq|ref|numref|doc|math|term|prf:[a-z]+|cite(?::[a-z]+)?|glue(?::[a-z]+)?|"
        r"exercise|solution|figure|admonition|note|dropdown)\}"),
    "unresolved reference (??)": re.compile(r"\?\?"),
}


def run(*command):
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


#: LaTeX's warnings for a \\ref or \\hyperref whose label was never defined
UNDEFINED = re.compile(r"(?:LaTeX Warning: |Package \w+ Warning: )?(Reference|Hyper reference)"
                       r" `([^']+)' on page (\d+) undefined")


def undefined_references(log_text):
    """``[(kind, label, page)]`` of the undefined references a LaTeX log reports. TeX breaks
    its log lines at 79 characters: a line of exactly 79 is joined to the next first."""
    lines, joined = log_text.splitlines(), []
    for line in lines:
        if joined and len(joined[-1]) % 79 == 0 and joined[-1]:
            joined[-1] += line
        else:
            joined.append(line)
    return [(m.group(1), m.group(2), int(m.group(3)))
            for m in UNDEFINED.finditer("\n".join(joined))]


def pdf_info(pdf):
    fields = dict(line.split(":", 1) for line in run("pdfinfo", str(pdf)).splitlines()
                  if ":" in line)
    return int(fields["Pages"]), pdf.stat().st_size


def page_texts(pdf):
    """``{page: [(text, monospaced)]}`` from ``pdftohtml -xml``: per line of a page, its
    runs in monospaced fonts joined, and its other runs (the prose) joined."""
    root = ET.fromstring(run("pdftohtml", "-xml", "-i", "-stdout", "-q", "-nodrm", str(pdf)))
    fonts = {spec.get("id"): bool(MONOSPACE.search(spec.get("family", "")))
             for spec in root.iter("fontspec")}
    pages = {}
    for page in root.iter("page"):
        runs = {}
        for text in page.iter("text"):
            monospaced = fonts.get(text.get("font"), False)
            line = runs.setdefault((int(text.get("top")), monospaced), [])
            line.append((int(text.get("left")), html.unescape("".join(text.itertext()))))
        pages[int(page.get("number"))] = [
            (" ".join(content for _, content in sorted(parts)), monospaced)
            for (_, monospaced), parts in sorted(runs.items())]
    return pages


def image_pages(pdf):
    """Pages holding at least one image (``pdfimages -list``, soft masks left out)."""
    pages = set()
    for line in run("pdfimages", "-list", str(pdf)).splitlines()[2:]:
        fields = line.split()
        if len(fields) > 2 and fields[2] == "image":
            pages.add(int(fields[0]))
    return pages


def blank(png):
    from PIL import Image

    with Image.open(png) as image:
        grey = image.convert("L")
        dark = sum(grey.histogram()[:200])
        return dark < 0.001 * grey.width * grey.height


def check(pdf, png_dir, min_pages):
    import olearn

    problems = []
    n_pages, size = pdf_info(pdf)
    if n_pages < min_pages:
        problems.append(f"{n_pages} pages, expected at least {min_pages}")
    texts = page_texts(pdf)
    cover = " ".join(text for text, _ in texts.get(1, []))
    if f"Version {olearn.__version__}" not in cover:
        problems.append(f"page 1: no 'Version {olearn.__version__}' on the cover: {cover[:200]!r}")
    if not re.search(r"commit [0-9a-f]{7,40}|commit unknown", cover):
        problems.append(f"page 1: no commit on the cover: {cover[:200]!r}")
    log = pdf.with_suffix(".log")
    if log.is_file():
        seen = set()
        for kind, label, page in undefined_references(log.read_text(errors="replace")):
            if (kind, label) not in seen:
                seen.add((kind, label))
                problems.append(f"page {page}: {kind.lower()} to an undefined label "
                                f"{label!r} (its link leads nowhere; {log.name})")
    captions = {}
    for page, lines in texts.items():
        for text, monospaced in lines:
            if PLACEHOLDER.search(text):
                problems.append(f"page {page}: an output with no printable form (a table "
                                f"shown only in HTML?): {text.strip()[:120]!r}")
            if monospaced:
                continue
            for what, pattern in PROSE_DEFECTS.items():
                if pattern.search(text):
                    problems.append(f"page {page}: {what}: {text.strip()[:120]!r}")
            match = FIGURE_CAPTION.match(text.strip())
            if match:
                captions.setdefault(page, []).append(match.group(1))
    with_images = image_pages(pdf)
    if not with_images:
        problems.append("no image in the whole document")
    for page, numbers in sorted(captions.items()):
        if page not in with_images:
            problems.append(f"page {page}: caption of Fig. {', '.join(numbers)} but no image")
    figure_pages = sorted(captions) or sorted(with_images)
    prose_pages = [p for p, lines in texts.items()
                   if sum(len(t) for t, mono in lines if not mono) > 1500]
    rendered = sorted({1, n_pages, *figure_pages[:1], *figure_pages[-1:],
                       *prose_pages[len(prose_pages) // 2:len(prose_pages) // 2 + 1]})
    png_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for page in rendered:
        stem = png_dir / f"page-{page:04d}"
        run("pdftoppm", "-png", "-r", "60", "-singlefile", "-f", str(page), "-l", str(page),
            str(pdf), str(stem))
        png = stem.with_suffix(".png")
        written.append(png)
        if blank(png):
            problems.append(f"page {page}: rendered blank ({png})")
    return n_pages, size, sorted(captions), written, problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdf", type=Path)
    parser.add_argument("--png-dir", type=Path, default=None,
                        help="where the rendered pages go (default: a temporary folder)")
    parser.add_argument("--min-pages", type=int, default=2)
    args = parser.parse_args(argv)
    if not args.pdf.is_file():
        print(f"pdf_check: {args.pdf} not found (build it with `make pdf`)", file=sys.stderr)
        return 2
    png_dir = args.png_dir or Path(tempfile.mkdtemp(prefix="olearn-pdf-pages-"))
    n_pages, size, figures, written, problems = check(args.pdf, png_dir, args.min_pages)
    print(f"{args.pdf}: {n_pages} pages, {size / 1e6:.1f} MB, figure captions on "
          f"{len(figures)} pages; rendered {', '.join(str(p) for p in written)}")
    for problem in problems:
        print(f"  {problem}")
    print(f"pdf_check: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
