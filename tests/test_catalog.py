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
