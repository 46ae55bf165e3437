"""olearn.catalog: one entry per public name of olearn, each with a page of the book."""
import re
from pathlib import Path

import pytest

import olearn
from olearn import catalog

BOOK = Path(__file__).resolve().parents[1] / "book"


def test_every_public_name_has_exactly_one_entry():
    catalog.check_catalog()
    names = [entry.name for entry in catalog.CATALOG]
    assert sorted(names) == sorted(n for n in olearn.__all__ if n != "__version__")


def test_check_names_what_is_missing(monkeypatch):
    monkeypatch.setattr(catalog, "CATALOG", catalog.CATALOG[1:])
    with pytest.raises(ValueError, match=r"missing from the catalog: \['Perceptron'\]"):
        catalog.check_catalog()


def test_pages_exist_and_are_in_the_toc():
    toc = (BOOK / "_toc.yml").read_text()
    files = set(re.findall(r"file:\s*(\S+)", toc))
    for entry in catalog.CATALOG:
        assert (BOOK / f"{entry.page}.ipynb").exists(), entry
        assert entry.page in files, entry


def test_papers_are_in_the_bibliography():
    bib = (BOOK / "references.bib").read_text()
    keys = set(re.findall(r"@\w+\{(\w+),", bib))
    for entry in catalog.CATALOG:
        assert entry.paper is None or entry.paper in keys, entry


def test_map_svg_links_every_box():
    svg = catalog.map_svg(link=lambda e: f"../{e.page}.html")
    for entry in catalog.CATALOG:
        assert f'xlink:href="../{entry.page}.html"' in svg or f'href="../{entry.page}.html"' in svg
        assert f">{entry.name}<" in svg          # text kept as text (svg.fonttype none)
    assert svg.startswith("<svg")


def test_map_svg_scales_to_the_page():
    # inlined in HTML, a fixed width in pt overflowed the text column and was cut off
    head = catalog.map_svg()[:400].split(">", 1)[0]
    assert 'width="100%"' in head and "viewBox" in head and "pt" not in head


def test_family_edges_come_from_the_parents_not_the_book_order(monkeypatch):
    # issue 27: the arrows between the parts followed the table of contents; now an arrow
    # a -> b exists exactly when a learner of b starts from a learner of a
    expected = {(catalog.BY_NAME[e.parent].family, e.family) for e in catalog.CATALOG
                if e.parent and catalog.BY_NAME[e.parent].family != e.family}
    assert set(catalog.family_edges()) == expected
    assert ("first-order additive", "second-order") in expected       # CW from PA
    assert ("voting and online-to-batch", "regularized and sparse") in expected  # EFS
    assert ("multiplicative", "regularized and sparse") not in expected  # only book order
    # change one parent, and the edge follows
    moved = tuple(e._replace(parent="PositiveWinnow") if e.name == "SOP" else e
                  for e in catalog.CATALOG)
    monkeypatch.setattr(catalog, "CATALOG", moved)
    monkeypatch.setattr(catalog, "BY_NAME", {e.name: e for e in moved})
    assert ("multiplicative", "second-order") in catalog.family_edges()


def test_map_text_is_readable_at_the_column_width_and_fits_its_boxes():
    # issue 27: box text was about 6 px high at page width. The map is drawn MAP_WIDTH
    # inches wide and shown at the text column's width (about 690 px at a 1280-px window).
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    fig = catalog.draw_map()
    width_in = fig.get_size_inches()[0]
    px_per_pt = 690 / (72 * width_in)
    texts = [t for t in fig.findobj(matplotlib.text.Text) if t.get_text()]
    smallest = min(t.get_fontsize() for t in texts)
    assert smallest * px_per_pt >= 10, (smallest, px_per_pt)
    renderer = fig.canvas.get_renderer()
    boxes = [b.get_window_extent(renderer) for b in fig.findobj(FancyBboxPatch)]
    for t in texts:
        ext = t.get_window_extent(renderer)
        inside = [b for b in boxes if b.contains(ext.x0 + 1, ext.y0 + 1)
                  or b.contains(ext.x1 - 1, ext.y1 - 1)]
        for b in inside:
            assert b.x0 <= ext.x0 + 0.5 and ext.x1 <= b.x1 + 0.5, (t.get_text(), ext, b)
    plt.close(fig)


def test_map_output_has_an_image_for_the_pdf():
    # the opening page displayed the map as HTML only, so the LaTeX builder (which cannot
    # show HTML) printed "<IPython.core.display.HTML object>" in the PDF
    import matplotlib
    matplotlib.use("Agg")
    from IPython.core.formatters import DisplayFormatter

    data, _ = DisplayFormatter().format(catalog.LearnerMap(link=lambda e: f"../{e.page}.html"))
    assert data["text/html"].startswith("<svg")       # map_svg, with the boxes' links
    assert f'href="../{catalog.CATALOG[0].page}.html"' in data["text/html"]
    assert data["image/png"].startswith(b"\x89PNG")
    assert "IPython.core.display" not in data["text/plain"]


def test_the_opening_page_shows_the_map_with_its_image_form():
    nb = (BOOK / "opening" / "online_learning.ipynb").read_text()
    assert "catalog.LearnerMap(" in nb and "HTML(catalog.map_svg" not in nb
