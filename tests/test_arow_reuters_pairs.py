"""The Reuters-21578 pair tasks used as the RCV1 stand-in of the AROW paper's Table 1."""
import os
from pathlib import Path

import numpy as np
import pytest

from olearn import datasets
from olearn.datasets import _reuters_pairs as rp

DATA = Path(os.environ.get("OLEARN_DATA_HOME", "")) / "reuters21578" / "reuters21578-sgm.tar.xz"
needs_data = pytest.mark.skipif(not DATA.exists(), reason="Reuters-21578 not in OLEARN_DATA_HOME")


def test_fifteen_pairs_are_registered():
    names = datasets.names("task")
    assert len(rp.PAIRS) == 15 and len(set(rp.PAIRS)) == 15
    for a, b in rp.PAIRS:
        assert f"reuters21578-{a}-vs-{b}" in names
    assert rp.task_names() == [f"reuters21578-{a}-vs-{b}" for a, b in rp.PAIRS]


def test_single_label_counts_orders_by_frequency():
    topics = np.empty(6, dtype=object)
    topics[:] = [("b",), ("a",), ("b",), ("a", "c"), (), ("c",)]
    assert rp.single_label_counts(topics) == {"b": 2, "a": 1, "c": 1}


@needs_data
def test_topics_are_the_six_most_frequent_single_label_categories():
    from olearn.datasets._text import read_reuters21578

    counts = rp.single_label_counts(read_reuters21578(str(DATA))[1])
    assert tuple(list(counts)[: rp.N_TOPICS]) == rp.TOPICS
    data = datasets.load("reuters21578-money-fx-vs-interest")
    assert data.X.shape[0] == counts["money-fx"] + counts["interest"]
    assert (data.y == 1).sum() == counts["money-fx"]
    assert set(np.unique(data.y)) == {-1, 1}
