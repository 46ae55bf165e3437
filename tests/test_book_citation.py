"""CITATION.cff cites the five papers olearn implements, as book/references.bib does.

The five papers are the ones of /work/shared/papers (the book's part "Reproducing the five
papers"). Titles, years and DOIs must agree between the two files, and a DOI appears only
where the paper has one (checked by hand; none invented).
"""
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
FIVE = ("shen2009regularized", "zhao2009duol", "tan2016sparse", "carvalho2006single",
        "crammer2009arow")


def bib_entries():
    text = (ROOT / "book" / "references.bib").read_text()
    entries = {}
    for m in re.finditer(r"@\w+\{(\w+),(.*?)\n\}", text, re.S):
        fields = dict(re.findall(r"(\w+)\s*=\s*\{(.*)\},?\s*$", m.group(2), re.M))
        entries[m.group(1)] = fields
    return entries


def _plain(title):
    return re.sub(r"[{}]", "", title).lower()


def test_citation_cff_lists_the_five_papers_as_references_bib():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    refs = cff.get("references", [])
    bib = bib_entries()
    by_title = {_plain(r["title"]): r for r in refs}
    assert len(refs) == 5
    for key in FIVE:
        entry = bib[key]
        ref = by_title.get(_plain(entry["title"]))
        assert ref is not None, f"CITATION.cff lacks {key}: {entry['title']}"
        assert str(ref["year"]) == entry["year"]
        assert ref["authors"][0]["family-names"] in entry["author"].split(",")[0]
        assert ref.get("doi") == entry.get("doi"), key


def test_only_confirmed_dois():
    # the AAAI paper has a DOI; NIPS 2009 and the CMU report have none
    bib = bib_entries()
    assert bib["tan2016sparse"]["doi"] == "10.1609/aaai.v30i1.10281"
    for key in ("zhao2009duol", "crammer2009arow", "carvalho2006single"):
        assert "doi" not in bib[key], key
