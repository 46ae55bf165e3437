"""Full run of the FGM diagnosis of Figure 1 (stored results):
python book/results/sparse_cw/make_figure1_fgm.py

The FGM stand-in of Figure 1 (Algorithm 3 with ``covariance=False``, 3 passes; movie reviews
also 30) against the same cutting plane with its subproblems solved to optimality, at the
``C`` that Figure 1's validation chose for FGM on each set (``figure1_params.json``)."""
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from olearn.experiments import sparse_cw as e

threadpool_limits(1)     # the machine is shared

HERE = Path(__file__).parent
RUNS = {"movie-reviews": {"budgets": [15, 30, 60, 150, 300], "passes": [3, 30]},
        "reuters": {"budgets": [15, 30, 60, 150, 300], "passes": [3]},
        "20newsgroups": {"budgets": [15, 30, 60, 150, 300], "passes": [3]}}

if __name__ == "__main__":
    chosen = json.loads((HERE / "figure1_params.json").read_text())
    settings = {"runs": RUNS, "C": {n: chosen[n]["FGM"]["C"] for n in RUNS},
                "order": "run_figure1's permutation (seed 0)", "sigma": 1e-3, "m_iter": 15}
    frames, tic = [], time.perf_counter()
    for name, run in RUNS.items():
        data = e.figure1_split(name)
        order = np.random.default_rng(0).permutation(data.y_train.shape[0])
        data = e.Split(data.name, data.X_train[order], data.y_train[order], data.X_test,
                       data.y_test, data.description, data.feature_names)
        frames.append(e.figure1_fgm_diagnosis(data, settings["C"][name], run["budgets"],
                                              tuple(run["passes"])))
        print(frames[-1].to_string(), flush=True)
    settings["seconds"] = time.perf_counter() - tic
    e.save_frame(pd.concat(frames, ignore_index=True), HERE, "figure1_fgm", settings)
