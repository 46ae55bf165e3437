"""The Table 1 task list and runner of olearn.experiments.arow."""
import json
import os
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from olearn import datasets
from olearn.experiments import arow as ex

USPS = Path(os.environ.get("OLEARN_DATA_HOME", "")) / "usps"


def test_full_task_list_covers_every_available_family():
    tasks = ex.table1_tasks(quick=False)
    names = [t for t, _ in tasks]
    assert len(names) == len(set(names)) == 119
    registered = set(datasets.names())
    assert set(names) <= registered
    counts = Counter(ex.family(t) for t in names)
    assert counts == {"USPS pairs": 45, "MNIST-10k pairs": 45, "MNIST-10k one-vs-all": 10,
                      "20 Newsgroups": 3, "Reuters-21578 pairs": 15, "movie reviews": 1}
    kinds = dict(tasks)
    assert {kinds[t] for t in names if t.startswith("usps-")} == {"ocr-split"}
    assert {kinds[t] for t in names if t.startswith("mnist-")} == {"ocr-cv"}
    assert {kinds[t] for t in names if ex.family(t) not in ("USPS pairs", "MNIST-10k pairs",
                                                          "MNIST-10k one-vs-all")} == {"text"}
    # every family we run is one of the paper's, and the paper's counts add up to 130
    assert set(counts) <= {f[3] for f in ex.FAMILIES if f[3]}
    assert sum(f[2] for f in ex.FAMILIES) == 130
    assert set(ex.table1_tasks(quick=True)) <= set(tasks)
    with pytest.raises(ValueError):
        ex.family("adult-a7a")


@pytest.mark.skipif(not USPS.exists(), reason="USPS not in OLEARN_DATA_HOME")
def test_run_table1_does_not_depend_on_n_jobs():
    tasks = [("usps-0-vs-1", "ocr-split"), ("usps-4-vs-9", "ocr-split")]
    kwargs = dict(noise_levels=(0.2,), n_passes=2, n_runs=2,
                  grids={"AROW": ("r", (0.1, 10.0)), "CW": ("eta", (0.7,)),
                         "PA": ("C", (0.01,)), "SOP": ("a", (1.0,))})
    one = ex.run_table1(tasks=tasks, **kwargs)
    seen = []
    two = ex.run_table1(tasks=tasks, n_jobs=2, progress=lambda n, s: seen.append(n), **kwargs)
    pd.testing.assert_frame_equal(one, two)
    assert seen == [t for t, _ in tasks]
    assert len(one) == 2 * 4 and (one["n_runs"] == 1).all()


def test_provenance_is_the_checkout_given(tmp_path):
    frame = pd.DataFrame({"a": [1]})
    ex.save(frame, tmp_path, "x", {"k": 1}, {"commit": "abc", "git_dirty": False})
    prov = json.loads((tmp_path / "x.provenance.json").read_text())
    assert prov["commit"] == "abc" and prov["git_dirty"] is False and prov["settings"] == {"k": 1}
