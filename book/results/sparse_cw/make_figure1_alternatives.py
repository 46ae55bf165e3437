"""Full run of the single changes against SBCW on Figure 1's stand-ins (issue 28 item 7):
python book/results/sparse_cw/make_figure1_alternatives.py"""
import time
from pathlib import Path

import pandas as pd
from threadpoolctl import threadpool_limits

from olearn.experiments import sparse_cw as e

threadpool_limits(1)     # the machine is shared (see make_figure1.py)

HERE = Path(__file__).parent
SETTINGS = {"sets": list(e.FIGURE1_SETS), "budgets": [15, 30, 60, 150, 300],
            "C_grid": [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0], "variants": list(e.FIGURE1_VARIANTS),
            "random_state": 0}

if __name__ == "__main__":
    tic = time.perf_counter()
    frame = pd.concat([e.figure1_alternatives(name, SETTINGS["budgets"], SETTINGS["C_grid"],
                                              SETTINGS["variants"])
                       for name in SETTINGS["sets"]], ignore_index=True)
    seconds = time.perf_counter() - tic
    e.save_frame(frame, HERE, "figure1_alternatives",
                 {**SETTINGS, "variants_described": e.FIGURE1_VARIANTS,
                  "seconds": round(seconds, 1)})
    print(e.off_majority(frame).to_string())
    print(f"{seconds:.0f} s")
