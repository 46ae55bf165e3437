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

import itertools
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

#: One :class:`Entry` per public name of ``olearn.__all__``, in the map's order.
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
    Entry("KernelAROW", _KER, None, "AROW", "duol/baselines", "AROW with a kernel (ours)"),
    # voting and online-to-batch
    Entry("Averaged", _VOTE, "freund1999perceptron", "Perceptron", "first_order/voting",
          "vote all hypotheses of the run"),
)

#: The entries of :data:`CATALOG` by name.
BY_NAME = {entry.name: entry for entry in CATALOG}

def family_edges():
    """How the families build on each other, read from the entries, not from the book's order.

    There is an edge (a, b) when an entry of family b has its parent in family a: the idea
    of b starts from an idea of a. Returned in the order of :data:`FAMILIES`.
    """
    edges = {(BY_NAME[e.parent].family, e.family) for e in CATALOG
             if e.parent is not None and BY_NAME[e.parent].family != e.family}
    return tuple(sorted(edges, key=lambda ab: (FAMILIES.index(ab[0]), FAMILIES.index(ab[1]))))


def family_levels():
    """Depth of each family in the graph of :func:`family_edges` (0: builds on no other)."""
    level = {}
    edges = family_edges()

    def depth(family):
        if family not in level:
            level[family] = 1 + max((depth(a) for a, b in edges if b == family), default=-1)
        return level[family]

    for family in FAMILIES:
        depth(family)
    return level


#: The arrows between the families on the map (see :func:`family_edges`).
FAMILY_EDGES = family_edges()


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


#: Width of the map in inches; the book's text column (about 690 px at a 1280-px window) shows
#: it at about 1.35 px per point, so the smallest text (8 pt) is about 11 px high.
MAP_WIDTH = 7.0
#: Boxes per line in a family's band.
PER_LINE = 3
#: The smallest font size of the map, in points (a test reads it).
MAP_MIN_FONTSIZE = 8.0


def layout():
    """(band, line, slot) of every entry: one band per family, PER_LINE boxes per line."""
    where, count = {}, {family: 0 for family in FAMILIES}
    for entry in CATALOG:
        i = count[entry.family]
        where[entry.name] = (FAMILIES.index(entry.family), i // PER_LINE, i % PER_LINE)
        count[entry.family] += 1
    return where


def draw_map(link=None):
    """Draw the map: the families' dependency graph, then one band of boxes per family.

    The graph at the top has an arrow a -> b when a learner of family b starts from a learner
    of family a (:func:`family_edges`); its layers are :func:`family_levels`. Below it, each
    family (in reading order) has a band of boxes, one per entry, with the entry's idea and,
    when it has a parent, "from <parent>" in the parent family's colour. ``link(entry)``
    returns the URL of an entry's box (set as the SVG link of the box and its labels, so the
    boxes are clickable when the figure is saved as SVG and inlined in HTML); None draws no
    links. Sizes are in inches (the axes span the figure 1:1). Returns the figure.
    """
    import textwrap

    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    check_catalog()
    colors = plt.get_cmap("tab10")
    where = layout()
    small = MAP_MIN_FONTSIZE

    # the families' graph: one line per level, nodes spread evenly
    levels = family_levels()
    n_levels = max(levels.values()) + 1
    graph_h = 0.3 + 0.62 * n_levels
    node_w, node_h = 1.55, 0.44
    level_y = [-0.3 - 0.62 * lev - node_h / 2 for lev in range(n_levels)]
    node_xy = {}

    def blocked(a, b, placed):
        """How many placed nodes of the levels between a and b the straight arrow crosses."""
        (x0, y0), (x1, y1) = placed[a], placed[b]
        hits = 0
        for family, (x, y) in placed.items():
            if family in (a, b) or not min(y0, y1) < y < max(y0, y1):
                continue
            xc = x0 + (x1 - x0) * (y - y0) / (y1 - y0)
            hits += abs(xc - x) < node_w / 2 + 0.05
        return hits

    for lev in range(n_levels):
        # place a level in the order whose arrows from the levels above cross no node and
        # are shortest (the families are few: every order is tried)
        members = [f for f in FAMILIES if levels[f] == lev]
        best = None
        for order in itertools.permutations(members):
            placed = dict(node_xy)
            for k, family in enumerate(order):
                placed[family] = (MAP_WIDTH * (k + 0.5) / len(order), level_y[lev])
            incoming = [(a, b) for a, b in family_edges() if b in members]
            cost = sum(10 * blocked(a, b, placed) + abs(placed[a][0] - placed[b][0])
                       for a, b in incoming)
            if best is None or cost < best[0]:
                best = (cost, placed)
        node_xy = best[1]

    # the bands
    box_w, box_h, gap = (MAP_WIDTH - 0.1 * (PER_LINE - 1)) / PER_LINE, 0.72, 0.08
    band_top, y = {}, -graph_h - 0.25
    for band, family in enumerate(FAMILIES):
        band_top[family] = y
        lines = 1 + max(line for b, line, _ in where.values() if b == band)
        y -= 0.3 + lines * (box_h + gap) + 0.08
    total_h = -y

    fig = plt.figure(figsize=(MAP_WIDTH, total_h))
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_xlim(0, MAP_WIDTH)
    ax.set_ylim(-total_h, 0)
    ax.set_axis_off()

    ax.text(0.0, -0.08, "How the parts build on each other (an arrow: a learner of one part "
            "starts from a learner of the other)", fontsize=small, color="0.3", va="top")
    for family, (x, yc) in node_xy.items():
        color = colors(FAMILIES.index(family))
        ax.add_patch(FancyBboxPatch((x - node_w / 2, yc - node_h / 2), node_w, node_h,
                                    boxstyle="round,pad=0.0,rounding_size=0.06",
                                    facecolor=(*color[:3], 0.16), edgecolor=color, lw=1.0))
        ax.text(x, yc, "\n".join(textwrap.wrap(family, 16)), ha="center", va="center",
                fontsize=9, fontweight="bold", color=color, linespacing=1.0)
    for a, b in family_edges():
        (x0, y0), (x1, y1) = node_xy[a], node_xy[b]
        same_level = levels[a] == levels[b]
        start = (x0, y0 - node_h / 2) if not same_level else (x0 + node_w / 2, y0)
        end = (x1, y1 + node_h / 2) if not same_level else (x1 - node_w / 2, y1)
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=10,
                                     linewidth=0.9, color="0.35", shrinkA=1, shrinkB=1))

    for band, family in enumerate(FAMILIES):
        color = colors(band)
        top = band_top[family]
        ax.text(0.0, top - 0.04, family, fontsize=10, fontweight="bold", color=color,
                va="top")
        for entry in CATALOG:
            b, line, slot = where[entry.name]
            if b != band:
                continue
            x = slot * (box_w + 0.1)
            yb = top - 0.3 - line * (box_h + gap) - box_h
            box = FancyBboxPatch((x, yb), box_w, box_h,
                                 boxstyle="round,pad=0.0,rounding_size=0.06",
                                 facecolor=(*color[:3], 0.12), edgecolor=color, linewidth=1.0)
            ax.add_patch(box)
            cx = x + box_w / 2
            artists = [box, ax.text(cx, yb + box_h - 0.14, entry.name, ha="center",
                                    va="center", fontsize=9, fontweight="bold")]
            idea = "\n".join(textwrap.wrap(entry.idea, 30)[:2])
            artists.append(ax.text(cx, yb + box_h / 2 - 0.02, idea, ha="center", va="center",
                                   fontsize=small, color="0.15", linespacing=1.0))
            parent = BY_NAME.get(entry.parent)
            if parent is not None:
                artists.append(ax.text(cx, yb + 0.11, f"from {parent.name}", ha="center",
                                       va="center", fontsize=small, style="italic",
                                       color=colors(FAMILIES.index(parent.family))))
            if link is not None:
                url = link(entry)
                for artist in artists:
                    artist.set_url(url)
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


def map_png(dpi=150):
    """The map as PNG bytes (no links), for outputs that cannot show HTML, such as the book's
    PDF."""
    import io

    import matplotlib.pyplot as plt

    fig = draw_map()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


class LearnerMap:
    """The map as a notebook output with two forms: the inline SVG of :func:`map_svg` (text
    kept as text, boxes linked by ``link``) as ``text/html``, and the PNG of :func:`map_png`
    as ``image/png``. Jupyter Book's HTML builder shows the first, its LaTeX builder (which
    cannot show HTML, and printed ``<IPython.core.display.HTML object>``) the second."""

    def __init__(self, link=None):
        self.link = link

    def _repr_html_(self):
        return map_svg(link=self.link)

    def _repr_png_(self):
        return map_png()

    def __repr__(self):
        return f"the map of the {len(CATALOG)} public names of olearn"
