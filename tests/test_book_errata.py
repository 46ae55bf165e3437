"""The errata page (issue 40, section 3): every corrected statement with its page, what the book
said, what it says now, its kind and the version that corrects it, in the Reference part."""
import re
from pathlib import Path

import yaml

import olearn

BOOK = Path(__file__).resolve().parents[1] / "book"
KINDS = {"error", "gap", "overclaim", "style"}


def _version(text):
    return tuple(int(part) for part in text.split("."))


def _rows():
    rows = []
    for line in (BOOK / "errata.md").read_text().splitlines():
        if line.startswith("| ") and not line.startswith("| page |"):
            cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
            rows.append(cells)
    return rows


def test_errata_is_in_the_reference_part():
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text())
    reference = [part for part in toc["parts"] if part.get("caption") == "Reference"]
    assert reference and {"file": "errata"} in reference[0]["chapters"]


def test_every_entry_names_page_said_now_kind_and_version():
    rows = _rows()
    assert len(rows) >= 30
    for cells in rows:
        assert len(cells) == 5, cells
        page, said, now, kind, version = cells
        targets = re.findall(r"\{doc\}`([^`]+)`", page)
        assert targets, f"an entry without a page: {cells}"
        for target in targets:
            assert (BOOK / f"{target}.ipynb").exists() or (BOOK / f"{target}.md").exists(), target
        assert said and now and said != now
        assert kind in KINDS, kind
        # corrected after the first citable version, and not in a version not yet released
        assert _version("0.1.0") < _version(version) <= _version(olearn.__version__), version
