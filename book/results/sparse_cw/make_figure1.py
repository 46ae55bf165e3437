"""Full run of Figure 1 (stored results): python book/results/sparse_cw/make_figure1.py

``--only NAME [NAME ...]`` re-runs only the named methods (e.g. ``--only FGM``), with their
hyper-parameters validated again, and merges them into the stored table: their stored rows
and parameters are replaced, the others kept; the provenance records the partial run (its
commit, date, seconds and methods) next to the full run's."""
import argparse
import json
import time
from pathlib import Path

import pandas as pd
from threadpoolctl import threadpool_limits

from olearn.experiments import sparse_cw as e

# BLAS on one thread: the machine is shared, and OpenBLAS's two threads on
# contended cores made a 123 x 123 eigendecomposition take seconds
threadpool_limits(1)

HERE = Path(__file__).parent
SETTINGS = {"sets": list(e.FIGURE1_SETS), "p_grid": [15, 30, 60, 150, 300],
            "l1svm_C": list(e.L1SVM_C), "spardca_kappa": list(e.SPARDCA_KAPPA),
            "spardca_lam": 1e-4, "spardca_epochs": 10, "random_state": 0}


def merge(stored, chosen_stored, frame, chosen, methods):
    """The stored table with the rows of ``methods`` replaced by ``frame``'s, and the
    stored parameters with those of ``methods`` replaced by ``chosen``'s."""
    kept = stored[~stored["method"].isin(methods)]
    merged = pd.concat([kept, frame], ignore_index=True)
    params = {name: {**chosen_stored.get(name, {}), **chosen.get(name, {})}
              for name in {*chosen_stored, *chosen}}
    return merged, params


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help="re-run only these methods and merge them into the stored table")
    args = parser.parse_args()
    settings = {**SETTINGS, "validation": "70/30 split of the training part at p = 60",
                "grids": e.FIGURE1_GRIDS}
    prov = e.provenance(settings)
    tic = time.perf_counter()
    frame, chosen = e.run_figure1(**SETTINGS, methods=args.only)
    prov["seconds"] = time.perf_counter() - tic
    if args.only:
        stored = pd.read_csv(HERE / "figure1.csv")
        chosen_stored = json.loads((HERE / "figure1_params.json").read_text())
        frame, chosen = merge(stored, chosen_stored, frame, chosen, args.only)
        full = json.loads((HERE / "provenance_figure1.json").read_text())
        partial = {key: prov[key] for key in ("commit", "git_dirty", "date", "quick",
                                              "seconds", "versions")}
        partial["methods"] = args.only
        full.setdefault("partial_runs", []).append(partial)
        prov = full
    frame.to_csv(HERE / "figure1.csv", index=False)
    (HERE / "figure1_params.json").write_text(json.dumps(chosen, indent=1))
    (HERE / "provenance_figure1.json").write_text(json.dumps(prov, indent=2, default=str))
    print(frame.to_string())
