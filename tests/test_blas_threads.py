"""The test processes and the pages' kernels run OpenBLAS on one thread (tests/conftest.py)."""
import os

import numpy as np
from threadpoolctl import threadpool_info


def test_openblas_runs_the_threads_the_environment_sets():
    # make test's two workers fill both cores: a second BLAS thread per worker only waited for a
    # core (book/regularized/theory's real-streams cell: 60 s of CPU with it, 24 s without)
    assert os.environ.get("OPENBLAS_NUM_THREADS"), "tests/conftest.py sets it unless the user did"
    np.ones(4) @ np.ones(4)
    blas = [p for p in threadpool_info() if p.get("internal_api") == "openblas"]
    assert blas, "numpy's OpenBLAS not found"
    assert all(p["num_threads"] == int(os.environ["OPENBLAS_NUM_THREADS"]) for p in blas)
