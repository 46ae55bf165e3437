"""Full run of Figure 1 (stored results): python book/results/sparse_cw/make_figure1.py"""
import json
from pathlib import Path

from threadpoolctl import threadpool_limits

from olearn.experiments import sparse_cw as e

# BLAS on one thread: the machine is shared, and OpenBLAS's two threads on
# contended cores made a 123 x 123 eigendecomposition take seconds
threadpool_limits(1)

HERE = Path(__file__).parent
SETTINGS = {"sets": list(e.FIGURE1_SETS), "p_grid": [15, 30, 60, 150, 300],
            "l1svm_C": list(e.L1SVM_C), "spardca_kappa": list(e.SPARDCA_KAPPA),
            "spardca_lam": 1e-4, "spardca_epochs": 10, "random_state": 0}

if __name__ == "__main__":
    prov = e.provenance({**SETTINGS, "validation": "70/30 split of the training part "
                         "at p = 60", "grids": e.FIGURE1_GRIDS})
    frame, chosen = e.run_figure1(**SETTINGS)
    frame.to_csv(HERE / "figure1.csv", index=False)
    (HERE / "figure1_params.json").write_text(json.dumps(chosen, indent=1))
    (HERE / "provenance_figure1.json").write_text(json.dumps(prov, indent=2, default=str))
    print(frame.to_string())
