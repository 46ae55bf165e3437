"""Reuters-21578 pairs of TOPICS categories: the stand-in for the RCV1 label pairs of [AROW].

The AROW paper (section 5) builds its three Reuters tasks from RCV1-v2 "using pairs of
labels following" Dredze, Crammer and Pereira (2008); RCV1 is not available here. The
analogous construction on Reuters-21578 (Distribution 1.0, every story, TITLE + BODY):

- keep the stories with exactly one TOPICS category (so that a pair of categories is a
  clean binary problem, as a pair of RCV1 labels is in the paper);
- take the :data:`N_TOPICS` most frequent of these single-label categories
  (:data:`TOPICS`, computed once from the corpus: earn 3945, acq 2362, crude 408,
  trade 361, money-fx 307, interest 285 stories);
- every pair of them is a task ``reuters21578-<a>-vs-<b>`` (``a`` the more frequent
  category, +1; ``b``, -1): 15 tasks with 592 to 6307 stories; 0/1 bag of words fitted on
  the stories of the task.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

from ._base import Loaded, binary_labels
from ._text import _reuters, vectorize

N_TOPICS = 6
#: The six most frequent single-label TOPICS categories of Reuters-21578, most frequent first.
TOPICS = ("earn", "acq", "crude", "trade", "money-fx", "interest")
PAIRS = tuple(combinations(TOPICS, 2))


def single_label_counts(topics) -> dict:
    """Stories per category among the stories with exactly one TOPICS category."""
    labels, counts = np.unique([t[0] for t in topics if len(t) == 1], return_counts=True)
    order = np.lexsort((labels, -counts))
    return {str(labels[i]): int(counts[i]) for i in order}


def reuters_pair_loader(positive: str, negative: str):
    """Single-label stories of ``positive`` (+1) and ``negative`` (-1), corpus order."""

    def load(paths, subset, features=None):
        texts, topics = _reuters(paths, subset)
        rows = [i for i, t in enumerate(topics) if len(t) == 1 and t[0] in (positive, negative)]
        X, vocabulary = vectorize([texts[i] for i in rows], features)
        y = binary_labels([topics[i][0] == positive for i in rows])
        return Loaded(X, y, vocabulary)

    return load


def task_names() -> list[str]:
    return [f"reuters21578-{a}-vs-{b}" for a, b in PAIRS]


def register(add, files, page_url, splits):
    """Add the 15 pair tasks to the registry (``add`` is the registry's ``_add``)."""
    for a, b in PAIRS:
        add(f"reuters21578-{a}-vs-{b}", "task", files, reuters_pair_loader(a, b),
            f"""Reuters-21578 stories whose only TOPICS category is {a} (+1) or {b} (-1): one of
            the 15 pairs among the six most frequent single-label categories, the stand-in
            for the RCV1 label pairs of [AROW] (see olearn.datasets._reuters_pairs);
            TITLE + BODY, 0/1 bag of words.""",
            page_url, subsets=splits, default_subset="all", text=True)
