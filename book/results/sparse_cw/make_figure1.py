"""Full run of Figure 1 (stored results): python book/results/sparse_cw/make_figure1.py"""
from pathlib import Path

from olearn.experiments import sparse_cw as e

HERE = Path(__file__).parent
SETTINGS = {"sets": list(e.FIGURE1_SETS), "p_grid": [15, 30, 60, 150, 300],
            "l1svm_C": list(e.L1SVM_C), "spardca_kappa": list(e.SPARDCA_KAPPA),
            "spardca_lam": 1e-4, "spardca_epochs": 10, "random_state": 0}

if __name__ == "__main__":
    frame = e.run_figure1(**{k: v for k, v in SETTINGS.items() if k != "sets"},
                          sets=SETTINGS["sets"])
    e.save_frame(frame, HERE, "figure1", SETTINGS)
    print(frame.to_string())
