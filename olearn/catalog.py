"""Every public learner and selector of olearn: its family, paper, parent idea and book page.

The book's opening draws its map of the library from this table (:func:`draw_map`), and a test
asserts that every public name of ``olearn.__all__`` has exactly one entry, so a new learner
cannot be added without a place on the map.

Fields of an :class:`Entry`:

- ``name``: the public name (``olearn.<name>``);
- ``family``: one of :data:`FAMILIES`, the book's parts in reading order;
- ``paper``: the BibTeX key (book/references.bib) of the paper that defines it, or None for
  a variant of our own;
- ``parent``: the entry whose idea it changes (None for a root of the map);
- ``page``: the book page (path without suffix) that derives or introduces it;
- ``idea``: what it changes with respect to its parent, in a few words.
"""
from __future__ import annotations

import re
from typing import NamedTuple


class Entry(NamedTuple):
    name: str
    family: str
    paper: str | None
    parent: str | None
    page: str
    idea: str


#: The book's parts by idea, in reading order (the map's columns).
FAMILIES = (
    "first-order additive",
    "multiplicative",
    "regularized and sparse",
    "second-order",
    "second-order at scale",
    "kernels and DUOL",
    "voting and online-to-batch",
)

_F1, _MUL, _REG, _SO, _SCALE, _KER, _VOTE = FAMILIES

CATALOG = (
    # first-order additive
    Entry("Perceptron", _F1, "rosenblatt1958perceptron", None, "perceptron_pa/derivation",
          "add y x after a mistake"),
    Entry("PA", _F1, "crammer2006pa", "Perceptron", "perceptron_pa/derivation",
          "smallest step that fixes the round"),
    Entry("ROMMA", _F1, "li2002romma", "Perceptron", "first_order/romma",
          "also keep the last constraint"),
    Entry("AggressiveROMMA", _F1, "li2002romma", "ROMMA", "first_order/romma",
          "update on margin errors too"),
    Entry("ALMA", _F1, "gentile2001alma", "Perceptron", "first_order/alma_norma",
          "approximate max margin, p-norm"),
    Entry("NORMA", _F1, "kivinen2004norma", "Perceptron", "first_order/alma_norma",
          "gradient step with shrinkage"),
    # multiplicative
    Entry("PositiveWinnow", _MUL, "littlestone1988winnow", "Perceptron", "single_pass/winnow",
          "multiply instead of add"),
    Entry("BalancedWinnow", _MUL, "littlestone1988winnow", "PositiveWinnow",
          "single_pass/winnow", "positive and negative weights"),
    Entry("ModifiedBalancedWinnow", _MUL, "carvalho2006single", "BalancedWinnow",
          "single_pass/winnow", "margin and input scaling"),
    # regularized and sparse
    Entry("ObjectiveRegularizedPA", _REG, "shen2009regularized", "PA",
          "regularized/derivation", "L2 penalty in the PA problem"),
    Entry("L2ConstrainedPA", _REG, "shen2009regularized", "PA", "regularized/derivation",
          "w kept in an L2 ball"),
    Entry("L1ConstrainedPA", _REG, "shen2009regularized", "PA", "regularized/derivation",
          "w kept in an L1 ball"),
    Entry("information_gain", _REG, "shen2009regularized", None,
          "regularized/feature_selection", "rank features by information gain"),
    Entry("pair_information_gain", _REG, "shen2009regularized", "information_gain",
          "regularized/feature_selection", "information gain for one class pair"),
    Entry("game_theoretic_selection", _REG, "shen2009regularized", "information_gain",
          "regularized/feature_selection", "select by a game's LP"),
    Entry("FeatureSelected", _REG, "shen2009regularized", "information_gain",
          "regularized/feature_selection", "any learner on selected features"),
    Entry("chi_square", _REG, "yang1997comparative", None, "single_pass/efs",
          "rank features by chi-square"),
    Entry("ExtremalFeatureSelection", _REG, "carvalho2006single", "Averaged",
          "single_pass/efs", "keep the extreme weights of a learner"),
    # second-order
    Entry("CW", _SO, "dredze2008cw", "PA", "arow/family",
          "Gaussian over weights, hard constraint"),
    Entry("AROW", _SO, "crammer2009arow", "CW", "arow/derivation",
          "penalty instead of the constraint"),
    Entry("SCW", _SO, "wang2012scw", "CW", "arow/family", "soft CW constraint"),
    Entry("SOP", _SO, "cesabianchi2005sop", "Perceptron", "arow/family",
          "Perceptron whitened by the data"),
    Entry("NAROW", _SO, "orabona2010narow", "AROW", "arow/family",
          "adaptive r per round"),
    # second-order at scale
    Entry("BCW", _SCALE, "tan2016sparse", "CW", "sparse_cw/bcw",
          "online-batch CW, several passes"),
    Entry("SBCW", _SCALE, "tan2016sparse", "BCW", "sparse_cw/sbcw",
          "feature groups, block covariance"),
    Entry("SOFS", _SCALE, "wu2014sofs", "AROW", "sparse_cw/figure1",
          "AROW truncated to B features"),
    Entry("SparDCA", _SCALE, "shalev2012proximal", None, "sparse_cw/figure1",
          "L1 dual coordinate ascent"),
    # kernels and DUOL
    Entry("KernelPerceptron", _KER, "freund1999perceptron", "Perceptron", "duol/baselines",
          "Perceptron with a kernel"),
    Entry("KernelROMMA", _KER, "li2002romma", "ROMMA", "duol/baselines",
          "ROMMA with a kernel"),
    Entry("KernelAggressiveROMMA", _KER, "li2002romma", "AggressiveROMMA", "duol/baselines",
          "aggressive ROMMA with a kernel"),
    Entry("KernelALMA", _KER, "gentile2001alma", "ALMA", "duol/baselines",
          "ALMA_2 with a kernel"),
    Entry("KernelPA", _KER, "crammer2006pa", "PA", "duol/baselines",
          "PA-I / PA-II with a kernel"),
    Entry("OnlineSVM", _KER, "zhao2009duol", "KernelPA", "duol/baselines",
          "re-solve the dual each mistake"),
    Entry("DUOL", _KER, "zhao2009duol", "KernelPerceptron", "duol/derivation",
          "also update one old support vector"),
    Entry("KernelAROW", _KER, None, "AROW", "arow/family", "AROW with a kernel (ours)"),
    # voting and online-to-batch
    Entry("Averaged", _VOTE, "freund1999perceptron", "Perceptron", "first_order/voting",
          "vote all hypotheses of the run"),
)

BY_NAME = {entry.name: entry for entry in CATALOG}

#: How the families build on each other (the arrows between the map's column titles).
FAMILY_EDGES = (
    (_F1, _MUL), (_MUL, _REG), (_REG, _SO), (_SO, _SCALE), (_F1, _KER), (_KER, _VOTE),
)


def public_names():
    """The names of ``olearn.__all__`` the catalog must cover (all but ``__version__``)."""
    import olearn

    return sorted(name for name in olearn.__all__ if not name.startswith("_"))


def check_catalog():
    """Raise ValueError unless the catalog covers ``olearn.__all__`` exactly once each,
    every parent is an entry, and every family is one of :data:`FAMILIES`."""
    names = [entry.name for entry in CATALOG]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    missing = sorted(set(public_names()) - set(names))
    extra = sorted(set(names) - set(public_names()))
    orphans = sorted(e.name for e in CATALOG if e.parent is not None and e.parent not in BY_NAME)
    families = sorted(e.name for e in CATALOG if e.family not in FAMILIES)
    problems = {"duplicated": duplicates, "missing from the catalog": missing,
                "not in olearn.__all__": extra, "with an unknown parent": orphans,
                "with an unknown family": families}
    problems = {k: v for k, v in problems.items() if v}
    if problems:
        raise ValueError("olearn.catalog is out of date: "
                         + "; ".join(f"{k}: {v}" for k, v in problems.items())
                         + ". Add or fix the entries in olearn/catalog.py.")


def layout():
    """(column, row) of every entry: one column per family, entries in catalog order."""
    rows = {family: 0 for family in FAMILIES}
    where = {}
    for entry in CATALOG:
        where[entry.name] = (FAMILIES.index(entry.family), rows[entry.family])
        rows[entry.family] += 1
    return where


def draw_map(link=None, ax=None):
    """Draw the map: one column per family (the book's parts, in order), a box per entry.

    Inside a column an arrow runs from each entry's parent to it; a parent in another column
    is named on the box ("from ..."), and the arrows between the column titles show how the
    families build on each other. ``link(entry)`` returns the URL of an entry's box (set as
    the SVG link of the box and its labels, so the boxes are clickable when the figure is
    saved as SVG and inlined in HTML); None draws no links. Returns the figure.
    """
    import textwrap

    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    check_catalog()
    where = layout()
    n_rows = max(row for _, row in where.values()) + 1
    if ax is None:
        fig, ax = plt.subplots(figsize=(17, 0.8 * n_rows + 1.6))
    else:
        fig = ax.figure
    width, height = 0.84, 0.74
    colors = plt.get_cmap("tab10")

    def centre(name):
        col, row = where[name]
        return col, -row

    for entry in CATALOG:
        parent = BY_NAME.get(entry.parent)
        if parent is None or parent.family != entry.family:
            continue
        (x0, y0), (x1, y1) = centre(parent.name), centre(entry.name)
        ax.add_patch(FancyArrowPatch(
            (x0 - width / 2, y0), (x1 - width / 2, y1), arrowstyle="-|>", mutation_scale=8,
            linewidth=0.7, color="0.5", connectionstyle="arc3,rad=0.35", zorder=1))
    for entry in CATALOG:
        x, y = centre(entry.name)
        color = colors(FAMILIES.index(entry.family))
        box = FancyBboxPatch((x - width / 2, y - height / 2), width, height,
                             boxstyle="round,pad=0.0,rounding_size=0.08",
                             facecolor=(*color[:3], 0.16), edgecolor=color, linewidth=1.1,
                             zorder=2)
        ax.add_patch(box)
        artists = [box, ax.text(x, y + 0.2, entry.name, ha="center", va="center",
                                fontsize=7.0, fontweight="bold", zorder=3),
                   ax.text(x, y - 0.02, entry.idea, ha="center", va="center", fontsize=6.0,
                           color="0.2", zorder=3)]
        parent = BY_NAME.get(entry.parent)
        if parent is not None and parent.family != entry.family:
            artists.append(ax.text(x, y - 0.22, f"from {parent.name}", ha="center",
                                   va="center", fontsize=5.8, style="italic",
                                   color=colors(FAMILIES.index(parent.family)), zorder=3))
        if link is not None:
            url = link(entry)
            for artist in artists:
                artist.set_url(url)
    for col, family in enumerate(FAMILIES):
        ax.text(col, 0.62, "\n".join(textwrap.wrap(family, 14)), ha="center", va="bottom",
                fontsize=9, color=colors(col), fontweight="bold")
    for a, b in FAMILY_EDGES:
        i, j = FAMILIES.index(a), FAMILIES.index(b)
        ax.add_patch(FancyArrowPatch(
            (i + 0.32, 1.05), (j - 0.32, 1.05), arrowstyle="-|>", mutation_scale=9,
            linewidth=0.9, color="0.35",
            connectionstyle="arc3,rad=0.0" if j == i + 1 else "arc3,rad=-0.08", zorder=1))
    ax.set_xlim(-0.55, len(FAMILIES) - 0.45)
    ax.set_ylim(-(n_rows - 1) - 0.55, 1.75)
    ax.set_axis_off()
    return fig


def map_svg(link=None):
    """The map as an SVG string with text kept as text, ready to inline in HTML."""
    import io

    import matplotlib.pyplot as plt

    with plt.rc_context({"svg.fonttype": "none"}):
        fig = draw_map(link=link)
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg"):]
    # scale to the width of the page (the viewBox keeps the aspect ratio)
    head, rest = svg.split(">", 1)
    head = re.sub(r'\s(width|height)="[^"]*"', "", head)
    return head + ' width="100%" style="height: auto; max-width: 100%">' + rest
