"""Author-year labels for the bibliography, matching the author-year citations in the text.

sphinxcontrib-bibtex renders ``{cite:t}`` / ``{cite:p}`` as "Crammer et al. (2006)" with
``bibtex_reference_style: author_year``, but the reference list uses the labels of the
pybtex formatting style (``alpha`` gives "[CDK+06]"). This extension registers the pybtex
style ``olearn``: the plain (unsrt) formatting, entries sorted by author, year and title,
and labels "Crammer et al., 2006" (one or two authors are named in full; a suffix a, b, ...
separates equal labels).
"""

from __future__ import annotations

from collections import Counter

from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.sorting.author_year_title import SortingStyle
from pybtex.style.template import field, sentence


def _last_names(entry):
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    names = []
    for person in persons:
        parts = person.prelast_names + person.last_names
        name = " ".join(parts)
        for old, new in (("{", ""), ("}", ""), ("\\`o", "ò"), ('\\"e', "ë"), ("\\`", ""), ('\\"', "")):
            name = name.replace(old, new)
        names.append(name)
    return names


def author_year(entry) -> str:
    names = _last_names(entry)
    if not names:
        who = entry.key
    elif len(names) == 1:
        who = names[0]
    elif len(names) == 2:
        who = f"{names[0]} and {names[1]}"
    else:
        who = f"{names[0]} et al."
    return f"{who}, {entry.fields.get('year', 'n.d.')}"


class AuthorYearLabelStyle(BaseLabelStyle):
    def format_labels(self, sorted_entries):
        entries = list(sorted_entries)
        labels = [author_year(e) for e in entries]
        counts = Counter(labels)
        seen: Counter = Counter()
        for label in labels:
            if counts[label] > 1:
                seen[label] += 1
                yield f"{label}{'abcdefghijklmnopqrstuvwxyz'[seen[label] - 1]}"
            else:
                yield label


class OlearnStyle(UnsrtStyle):
    default_label_style = AuthorYearLabelStyle
    default_sorting_style = SortingStyle

    def format_title(self, e, which_field, as_sentence=True):
        # Titles as written in references.bib (no sentence-casing: "Python", "Perceptron").
        formatted_title = field(which_field)
        return sentence[formatted_title] if as_sentence else formatted_title


register_plugin("pybtex.style.formatting", "olearn", OlearnStyle)


def setup(app):
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
